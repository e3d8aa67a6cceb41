//! The exact solver: bitset candidates, constraint propagation (naked and hidden singles, on 9x9
//! by default also locked candidates) and minimum-remaining-values (MRV) branching, for every
//! grid size (4x4 … 64x64, one `u64` mask per cell). It finds a solution, counts solutions up to
//! a limit (uniqueness checks), and keeps search statistics so that the classic baselines
//! ("backtracking", "backtracking + MRV", the "AHA" of the papers) can reuse it with propagation
//! or MRV switched off and report node counts.
//!
//! 9x9 grids with [`Propagation::Full`] or [`Propagation::Locked`] and MRV branching run on
//! digit-major bit words (`nine.rs`, `locked.rs`) that visit exactly the nodes of the generic
//! search with the same settings (the tests compare nodes, guesses, dead ends and solutions),
//! so node counts mean the same whichever code runs.
//!
//! ```
//! use gpu_sudoku::{exact, puzzle::parse_str};
//! let p = parse_str(
//!     "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
//!     None,
//! )
//! .unwrap()
//! .remove(0)
//! .grid;
//! let s = exact::solve(&p).unwrap();
//! assert!(s.is_solution_of(&p));
//! assert_eq!(exact::count_solutions(&p, 2), 1);
//! ```

mod locked;
mod nine;

use crate::puzzle::{Geometry, Grid};
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand::{Rng, RngExt, SeedableRng};

/// How much deduction runs after each placement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Propagation {
    /// None: a placement only removes its digit from the peers' candidates (plain backtracking
    /// over consistent values; an empty cell is found when the search reaches it).
    None,
    /// Naked singles: a cell left with one candidate is placed at once; an empty cell fails.
    NakedSingles,
    /// Naked and hidden singles (a digit with one place left in a row, column or box), to a fixpoint.
    Full,
    /// Full, plus locked candidates (box-line interactions, both ways, on rows and columns): a
    /// digit that a box allows only on one line leaves the rest of that line (pointing), one
    /// that a line allows only in one box leaves the rest of that box (claiming). On 9x9 this
    /// runs as band and stack updates on bit words (after JCZSolve), the fastest search there.
    Locked,
    /// Full, plus locked candidates (box-line interactions) and all-different consistency
    /// per unit (every naked or hidden subset). Slower per node, far fewer nodes on large,
    /// sparse grids near the hardness peak.
    Strong,
    /// The default: [`Propagation::Locked`] on 9x9, where its bit-word search is the fastest,
    /// and [`Propagation::Full`] on every other size (in a one-off check the generic
    /// locked-candidates pass made the five shipped 25x25 puzzles slower: 0.88 s against
    /// 0.73 s for counting to two, with 8% fewer nodes). Search
    /// statistics are those of the setting it stands for ([`Propagation::resolve`]): for node
    /// counts of singles-only search on 9x9, ask for `Full`.
    #[default]
    Auto,
}

impl Propagation {
    /// What this setting stands for on grids of box size `b` (only `Auto` changes).
    pub fn resolve(self, b: usize) -> Propagation {
        match self {
            Propagation::Auto if b == 3 => Propagation::Locked,
            Propagation::Auto => Propagation::Full,
            p => p,
        }
    }
}

/// Which blank cell the search branches on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Branching {
    /// The first blank cell in row-major order.
    FirstBlank,
    /// Minimum remaining values: a blank cell with the fewest candidates (the first such).
    Mrv,
    /// MRV over cells and digit places: a blank cell with the fewest candidates, or a digit
    /// with fewer possible cells in some row, column or box (branching over those cells),
    /// whichever has fewer options (the cell on a tie; like the column choice of dancing links).
    #[default]
    MrvPlaces,
    /// Fewest candidates relative to conflict weight (dom/wdeg): every contradiction adds 1 to
    /// the weight of the units involved, weights last across restarts, and the search branches
    /// on the blank cell with the smallest candidates ÷ (row + column + box weight).
    DomWdeg,
    /// Lookahead: every blank cell with two candidates is probed (each candidate placed and
    /// singles propagated on a scratch copy). A candidate whose probe fails is removed
    /// (failed-literal reasoning); otherwise the search branches on the cell whose two probes
    /// force the most placements (score 1024·f₁·f₂ + f₁ + f₂, as in the Satz SAT solver).
    /// Costly per node, far fewer nodes on hard large grids.
    Lookahead,
}

/// Solver settings. The default (`Auto` propagation, MRV over cells and places, no node limit,
/// restarts) is the fast exact solver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Config {
    pub propagation: Propagation,
    pub branching: Branching,
    /// Give up after this many search nodes in all ([`Outcome::aborted`] is then set).
    pub node_limit: Option<u64>,
    /// Randomized restarts against heavy-tailed search times (see [`Restarts`]).
    pub restarts: Restarts,
}

/// Restart policy. Search times on large sparse grids near the hardness peak (25x25 with about
/// half the cells blank) are heavy-tailed: most orders finish in a few hundred nodes, a few
/// take millions. Restarts cut the tail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Restarts {
    /// One complete search in the configured order.
    Off,
    /// First a deterministic search in the configured order with a budget of `first_budget`
    /// nodes; if it does not finish, one deterministic search with `propagation` and
    /// `branching` and a budget of 16 · `base`; then searches with those, random tie-breaking
    /// and random value order (seeded, so deterministic) and budgets `base · luby(i)`
    /// (1, 1, 2, 1, 1, 2, 4, …) until one finishes. Answers stay exact: counts come from a finished search, or from
    /// `limit` distinct solutions collected across searches.
    Luby {
        first_budget: u64,
        base: u64,
        propagation: Propagation,
        branching: Branching,
    },
}

impl Default for Restarts {
    fn default() -> Restarts {
        Restarts::Luby {
            first_budget: 4096,
            base: 64,
            propagation: Propagation::Strong,
            branching: Branching::Lookahead,
        }
    }
}

/// The i-th term (1-based) of the Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, …
pub fn luby(i: u64) -> u64 {
    let mut i = i.max(1);
    loop {
        // Smallest k with 2^k − 1 ≥ i.
        let k = 64 - i.leading_zeros() as u64;
        if i == (1u64 << k) - 1 {
            return 1u64 << (k - 1);
        }
        i -= (1u64 << (k - 1)) - 1;
    }
}

/// Search statistics of the last call (reset by every call). They depend on the configuration:
/// with the default ([`Propagation::Auto`]) a 9x9 search propagates locked candidates too, so it
/// has fewer nodes than the singles-only search (`Full`) of earlier versions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stats {
    /// Search nodes: the root plus one per value tried at a branch point.
    pub nodes: u64,
    /// Values tried at branch points with two or more candidates.
    pub guesses: u64,
    /// Dead ends: branches whose placement or propagation hit a contradiction.
    pub dead_ends: u64,
    /// Digits placed by propagation (singles), clues not included.
    pub forced: u64,
    /// Searches started again from the root (0 when the first search finished).
    pub restarts: u64,
    /// Lookahead probes (one candidate placed and propagated on a scratch copy).
    pub probes: u64,
}

impl Stats {
    fn add(&mut self, o: &Stats) {
        self.nodes += o.nodes;
        self.guesses += o.guesses;
        self.dead_ends += o.dead_ends;
        self.forced += o.forced;
        self.probes += o.probes;
    }
}

/// What a counting run found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Solutions found, at most the limit asked for.
    pub count: usize,
    /// The first solution found, if any.
    pub first: Option<Grid>,
    /// The node limit stopped the search before it could finish (`count` is then a lower bound).
    pub aborted: bool,
}

/// The number of solutions of a puzzle, as far as uniqueness is concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Solutions {
    None,
    Unique(Grid),
    /// Two or more; one of them.
    Multiple(Grid),
}

/// First solution of `puzzle` (any one if there are several), or `None` if it has none.
pub fn solve(puzzle: &Grid) -> Option<Grid> {
    Solver::default().solve(puzzle)
}

/// Number of solutions of `puzzle`, counting at most `limit` (2 answers "is it unique?").
pub fn count_solutions(puzzle: &Grid, limit: usize) -> usize {
    Solver::default().count(puzzle, limit).count
}

/// None, unique or multiple solutions (searches for at most two).
pub fn classify(puzzle: &Grid) -> Solutions {
    let o = Solver::default().count(puzzle, 2);
    match (o.count, o.first) {
        (1, Some(s)) => Solutions::Unique(s),
        (2, Some(s)) => Solutions::Multiple(s),
        _ => Solutions::None,
    }
}

/// An exact solver with its settings, scratch space and the statistics of its last run.
#[derive(Clone, Debug, Default)]
pub struct Solver {
    config: Config,
    stats: Stats,
    rng: Option<Xoshiro256PlusPlus>,
}

impl Solver {
    pub fn new(config: Config) -> Solver {
        Solver {
            config,
            stats: Stats::default(),
            rng: None,
        }
    }

    /// Tries the values of a branch in an order drawn from `seed` instead of ascending
    /// (for random complete grids); deterministic for the seed.
    pub fn with_random_value_order(mut self, seed: u64) -> Solver {
        self.rng = Some(Xoshiro256PlusPlus::seed_from_u64(seed));
        self
    }

    pub fn config(&self) -> Config {
        self.config
    }

    /// Statistics of the last run.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// First solution, or `None` when there is none (or the node limit stopped the search).
    pub fn solve(&mut self, puzzle: &Grid) -> Option<Grid> {
        self.count(puzzle, 1).first
    }

    /// Searches for up to `limit` solutions.
    pub fn count(&mut self, puzzle: &Grid, limit: usize) -> Outcome {
        self.count_excluding(puzzle, limit, None)
    }

    /// Like [`Solver::count`], with digit `value` forbidden in `cell` (a blank of the puzzle).
    /// Removing clue `v` at `c` from a unique puzzle keeps it unique exactly when the puzzle
    /// without that clue has no solution with `c != v`, which this answers with `limit` 1 much
    /// faster than counting to two.
    pub fn count_excluding(
        &mut self,
        puzzle: &Grid,
        limit: usize,
        exclude: Option<(usize, u8)>,
    ) -> Outcome {
        self.stats = Stats::default();
        let keep = limit.min(64);
        // Distinct solutions in the order found (the first one found is the first here).
        let mut distinct: Vec<Vec<u8>> = Vec::new();
        let total_limit = self.config.node_limit;
        let mut weights: Vec<u32> = Vec::new();
        let mut run = |stats: &mut Stats,
                       distinct: &mut Vec<Vec<u8>>,
                       cfg: Config,
                       rng: Option<&mut Xoshiro256PlusPlus>,
                       budget: Option<u64>,
                       shuffle_ties: bool|
         -> (usize, bool) {
            let left = total_limit.map(|t| t.saturating_sub(stats.nodes));
            let budget = match (budget, left) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let cfg = Config {
                propagation: cfg.propagation.resolve(puzzle.box_size()),
                ..cfg
            };
            if puzzle.box_size() == 3
                && matches!(cfg.propagation, Propagation::Full | Propagation::Locked)
                && matches!(cfg.branching, Branching::Mrv | Branching::MrvPlaces)
                && rng.is_none()
                && !shuffle_ties
            {
                // The 9x9 fast paths: the generic search tree on a digit-major state.
                let (found, aborted, solutions) = if cfg.propagation == Propagation::Full {
                    let mut s = nine::Nine::new(cfg.branching, limit, keep, budget);
                    s.run(puzzle.cells(), exclude);
                    stats.add(&s.stats);
                    (s.found, s.aborted, s.solutions)
                } else {
                    let mut s = locked::Locked9::new(cfg.branching, limit, keep, budget);
                    s.run(puzzle.cells(), exclude);
                    stats.add(&s.stats);
                    (s.found, s.aborted, s.solutions)
                };
                for sol in solutions {
                    if distinct.len() < keep && !distinct.contains(&sol) {
                        distinct.push(sol);
                    }
                }
                return (found, aborted);
            }
            let mut s = Search::new(puzzle.geometry(), cfg, limit, keep, budget, rng);
            s.shuffle_ties = shuffle_ties;
            if s.wdeg {
                if weights.is_empty() {
                    weights.resize(3 * puzzle.side(), 1);
                }
                s.weights = std::mem::take(&mut weights);
            }
            if s.load(puzzle, exclude) && limit > 0 {
                s.dfs(0);
            }
            if s.wdeg {
                weights = std::mem::take(&mut s.weights);
            }
            stats.add(&s.stats);
            for sol in s.solutions {
                if distinct.len() < keep && !distinct.contains(&sol) {
                    distinct.push(sol);
                }
            }
            (s.found, s.aborted)
        };
        let mut stats = Stats::default();
        let (found, aborted) = match self.config.restarts {
            Restarts::Off => run(
                &mut stats,
                &mut distinct,
                self.config,
                self.rng.as_mut(),
                None,
                false,
            ),
            Restarts::Luby {
                first_budget,
                base,
                propagation,
                branching,
            } => {
                let mut r = run(
                    &mut stats,
                    &mut distinct,
                    self.config,
                    self.rng.as_mut(),
                    Some(first_budget),
                    false,
                );
                let mut restart_rng = match self.rng.as_mut() {
                    Some(rng) => Xoshiro256PlusPlus::seed_from_u64(rng.next_u64()),
                    None => Xoshiro256PlusPlus::seed_from_u64(0x5EED_5D0C_u64),
                };
                let cfg = Config {
                    propagation,
                    branching,
                    ..self.config
                };
                if r.1 && distinct.len() < limit {
                    // The stronger search in its plain order first: a unique puzzle needs one
                    // complete search, which random orders rarely make smaller.
                    stats.restarts += 1;
                    r = run(
                        &mut stats,
                        &mut distinct,
                        cfg,
                        None,
                        Some(base.saturating_mul(16)),
                        false,
                    );
                }
                let mut i = 0;
                while r.1 && distinct.len() < limit {
                    if total_limit.is_some_and(|t| stats.nodes >= t) {
                        break;
                    }
                    i += 1;
                    stats.restarts += 1;
                    r = run(
                        &mut stats,
                        &mut distinct,
                        cfg,
                        Some(&mut restart_rng),
                        Some(base.saturating_mul(luby(i))),
                        true,
                    );
                }
                if r.1 && distinct.len() >= limit {
                    (limit, false) // enough distinct solutions across searches
                } else {
                    r
                }
            }
        };
        self.stats = stats;
        let count = if aborted {
            distinct.len().min(limit)
        } else {
            found
        };
        let first = distinct.into_iter().next().map(|cells| {
            let g = Grid::from_cells(puzzle.box_size(), cells).expect("solver keeps the size");
            debug_assert!(
                g.is_solution_of(puzzle),
                "exact solver produced a non-solution"
            );
            g
        });
        Outcome {
            count,
            first,
            aborted,
        }
    }
}

/// What probing found.
enum Look {
    Contradiction,
    /// A candidate was removed: propagate and probe again.
    Changed,
    /// The cell to branch on (None: no two-candidate cell).
    Best(Option<usize>),
}

/// Search state: a stack of (candidates, values) levels, one per branch depth.
struct Search<'r> {
    g: &'static Geometry,
    cells: usize,
    full: u64,
    cfg: Config,
    limit: usize,
    /// Solutions to keep (the rest are only counted).
    keep: usize,
    budget: Option<u64>,
    rng: Option<&'r mut Xoshiro256PlusPlus>,
    /// Break ties of the branching heuristic at random (restart searches).
    shuffle_ties: bool,
    /// Strong propagation: units whose cells changed since they were last made consistent.
    track: bool,
    dirty: [u64; 3],
    /// Units whose cells changed since the last hidden-singles look at them.
    hs_dirty: [u64; 3],
    unit_bits: &'static [[u64; 3]],
    /// dom/wdeg branching: contradictions per unit (kept across restarts).
    wdeg: bool,
    weights: Vec<u32>,
    /// Lookahead branching: the cell chosen by the last probe.
    probed: Option<usize>,
    units_of: &'static [[u8; 3]],
    cand: Vec<u64>,
    value: Vec<u8>,
    queue: Vec<u16>,
    /// Branch options per level (kept to reuse their allocations).
    options: Vec<Vec<(u16, u8)>>,
    found: usize,
    solutions: Vec<Vec<u8>>,
    aborted: bool,
    stats: Stats,
}

#[inline]
fn single(m: u64) -> bool {
    m & m.wrapping_sub(1) == 0
}

impl<'r> Search<'r> {
    fn new(
        g: &'static Geometry,
        cfg: Config,
        limit: usize,
        keep: usize,
        budget: Option<u64>,
        rng: Option<&'r mut Xoshiro256PlusPlus>,
    ) -> Self {
        let cfg = Config {
            propagation: cfg.propagation.resolve(g.b),
            ..cfg
        };
        let full = if g.n == 64 {
            u64::MAX
        } else {
            (1u64 << g.n) - 1
        };
        Search {
            g,
            cells: g.cells,
            full,
            cfg,
            limit,
            keep,
            budget,
            rng,
            shuffle_ties: false,
            track: matches!(cfg.propagation, Propagation::Locked | Propagation::Strong),
            dirty: [u64::MAX; 3],
            hs_dirty: all_units(3 * g.n),
            unit_bits: unit_bits(g.b),
            wdeg: cfg.branching == Branching::DomWdeg,
            weights: Vec::new(),
            probed: None,
            units_of: units_of(g.b),
            cand: vec![full; g.cells],
            value: vec![0; g.cells],
            queue: Vec::with_capacity(g.cells),
            options: vec![Vec::new(); 2],
            found: 0,
            solutions: Vec::new(),
            aborted: false,
            stats: Stats::default(),
        }
    }

    /// Places the clues at level 0 and propagates; false if the puzzle is already contradictory.
    fn load(&mut self, puzzle: &Grid, exclude: Option<(usize, u8)>) -> bool {
        if let Some((c, v)) = exclude {
            if v != 0 && puzzle.get(c) == 0 {
                self.cand[c] &= !(1u64 << (v - 1));
                if self.cand[c] == 0 {
                    return false;
                }
                if self.cfg.propagation != Propagation::None && single(self.cand[c]) {
                    self.queue.push(c as u16);
                }
            }
        }
        // Candidates from the digits each unit already holds (cheaper than placing the clues
        // one by one); a repeated clue is a contradiction.
        let n = self.g.n;
        let units = self.units_of;
        let mut used = [0u64; 192];
        for (c, &v) in puzzle.cells().iter().enumerate() {
            if v != 0 {
                let bit = 1u64 << (v - 1);
                for &u in &units[c] {
                    if used[u as usize] & bit != 0 {
                        return false;
                    }
                    used[u as usize] |= bit;
                }
            }
        }
        let none = self.cfg.propagation == Propagation::None;
        for (c, &v) in puzzle.cells().iter().enumerate() {
            if v != 0 {
                self.value[c] = v;
                self.cand[c] = 1u64 << (v - 1);
            } else {
                let [a, b, x] = units[c];
                let m = self.cand[c] & !(used[a as usize] | used[b as usize] | used[x as usize]);
                self.cand[c] = m;
                if !none {
                    if m == 0 {
                        return false;
                    }
                    if single(m) {
                        self.queue.push(c as u16);
                    }
                }
            }
        }
        debug_assert!(3 * n <= used.len());
        self.propagate(0)
    }

    /// Places digit index `d` (0-based) in cell `c` at `level`; false on a contradiction.
    #[inline]
    fn assign(&mut self, level: usize, c: usize, d: usize) -> bool {
        let base = level * self.cells;
        let bit = 1u64 << d;
        if self.cand[base + c] & bit == 0 {
            return false;
        }
        self.value[base + c] = d as u8 + 1;
        self.cand[base + c] = bit;
        if self.track {
            self.mark(c);
        }
        let ub = self.unit_bits;
        let mut hs = self.hs_dirty;
        for (w, &m) in hs.iter_mut().zip(&ub[c]) {
            *w |= m;
        }
        let np = self.g.n_peers;
        let peers = &self.g.peers[c * np..(c + 1) * np];
        let cand = &mut self.cand[base..base + self.cells];
        if self.cfg.propagation == Propagation::None {
            for &p in peers {
                cand[p as usize] &= !bit;
            }
            return true;
        }
        if !self.track {
            for &p in peers {
                let m = cand[p as usize];
                if m & bit != 0 {
                    let m = m & !bit;
                    cand[p as usize] = m;
                    let pb = &ub[p as usize];
                    hs[0] |= pb[0];
                    hs[1] |= pb[1];
                    hs[2] |= pb[2];
                    if m == 0 {
                        self.hs_dirty = hs;
                        if self.wdeg {
                            self.blame_cell(p as usize);
                        }
                        return false;
                    }
                    if single(m) {
                        self.queue.push(p);
                    }
                }
            }
            self.hs_dirty = hs;
            return true;
        }
        for &p in peers {
            let m = cand[p as usize];
            if m & bit != 0 {
                let m = m & !bit;
                cand[p as usize] = m;
                if m == 0 {
                    if self.wdeg {
                        self.blame_cell(p as usize);
                    }
                    return false;
                }
                if single(m) {
                    self.queue.push(p);
                }
                let pb = &ub[p as usize];
                for w in 0..3 {
                    hs[w] |= pb[w];
                    self.dirty[w] |= pb[w];
                }
            }
        }
        self.hs_dirty = hs;
        true
    }

    /// Conflict weighting: a contradiction at cell `c` weighs on its three units.
    fn blame_cell(&mut self, c: usize) {
        for &u in &self.units_of[c] {
            self.weights[u as usize] += 1;
        }
    }

    /// Marks the three units of cell `c` as changed.
    #[inline]
    fn mark(&mut self, c: usize) {
        for &u in &self.units_of[c] {
            self.dirty[u as usize >> 6] |= 1u64 << (u & 63);
        }
    }

    #[inline]
    fn take_dirty(&mut self, u: usize) -> bool {
        let (w, bit) = (u >> 6, 1u64 << (u & 63));
        let was = self.dirty[w] & bit != 0;
        self.dirty[w] &= !bit;
        was
    }

    /// Propagates at `level` to a fixpoint of the configured deductions; false on a contradiction.
    fn propagate(&mut self, level: usize) -> bool {
        loop {
            if !self.propagate_singles(level) {
                return false;
            }
            let changed = match self.cfg.propagation {
                Propagation::Locked => self.locked_candidates(level),
                Propagation::Strong => match self.locked_candidates(level) {
                    Ok(false) => self.all_different(level),
                    other => other,
                },
                _ => return true,
            };
            match changed {
                Err(()) => {
                    self.queue.clear();
                    return false;
                }
                Ok(true) => continue,
                Ok(false) => return true,
            }
        }
    }

    /// Removes digits `mask` from open cell `c` (relative index) at `base`; Ok(true) if it
    /// removed something, Err on an emptied cell. New singles go to the queue.
    #[inline]
    fn remove(&mut self, base: usize, c: usize, mask: u64) -> Result<bool, ()> {
        let m = self.cand[base + c];
        if self.value[base + c] != 0 || m & mask == 0 {
            return Ok(false);
        }
        let m = m & !mask;
        if m == 0 {
            if self.wdeg {
                self.blame_cell(c);
            }
            return Err(());
        }
        self.cand[base + c] = m;
        if single(m) {
            self.queue.push(c as u16);
        }
        self.mark(c);
        for w in 0..3 {
            self.hs_dirty[w] |= self.unit_bits[c][w];
        }
        Ok(true)
    }

    /// Locked candidates, both ways, at every box-line intersection: a digit of the
    /// intersection that the rest of the box lacks leaves the rest of the line (pointing), and
    /// one that the rest of the line lacks leaves the rest of the box (claiming).
    /// Only intersections of a changed box or line are looked at; with `Locked` (no
    /// all-different pass after it) this pass clears the changed marks itself.
    fn locked_candidates(&mut self, level: usize) -> Result<bool, ()> {
        let base = level * self.cells;
        let (b, n) = (self.g.b, self.g.n);
        let mut changed = false;
        let seen = if self.cfg.propagation == Propagation::Locked {
            std::mem::take(&mut self.dirty)
        } else {
            self.dirty
        };
        let is_dirty = |u: usize| seen[u >> 6] >> (u & 63) & 1 == 1;
        for bx in 0..n {
            let (r0, c0) = ((bx / b) * b, (bx % b) * b);
            let box_dirty = is_dirty(2 * n + bx);
            for rows in [true, false] {
                for k in 0..b {
                    let line = if rows { r0 + k } else { n + c0 + k };
                    if !box_dirty && !is_dirty(line) {
                        continue;
                    }
                    // The line through the box: row r0 + k, or column c0 + k.
                    let line_cell = |i: usize| {
                        if rows {
                            (r0 + k) * n + i
                        } else {
                            i * n + c0 + k
                        }
                    };
                    let in_box = |i: usize| {
                        if rows {
                            i / b == c0 / b
                        } else {
                            i / b == r0 / b
                        }
                    };
                    let (mut inter, mut line_rest) = (0u64, 0u64);
                    for i in 0..n {
                        let c = base + line_cell(i);
                        if self.value[c] == 0 {
                            if in_box(i) {
                                inter |= self.cand[c];
                            } else {
                                line_rest |= self.cand[c];
                            }
                        }
                    }
                    if inter == 0 {
                        continue;
                    }
                    let mut box_rest = 0u64;
                    for &c in &self.g.units[(2 * n + bx) * n..(2 * n + bx + 1) * n] {
                        let c = c as usize;
                        let (r, col) = (c / n, c % n);
                        let on_line = if rows { r == r0 + k } else { col == c0 + k };
                        if !on_line && self.value[base + c] == 0 {
                            box_rest |= self.cand[base + c];
                        }
                    }
                    let pointing = inter & !box_rest & line_rest;
                    if pointing != 0 {
                        for i in (0..n).filter(|&i| !in_box(i)) {
                            changed |= self.remove(base, line_cell(i), pointing)?;
                        }
                    }
                    let claiming = inter & !line_rest & box_rest;
                    if claiming != 0 {
                        for j in 0..n {
                            let c = self.g.units[(2 * n + bx) * n + j] as usize;
                            let (r, col) = (c / n, c % n);
                            let on_line = if rows { r == r0 + k } else { col == c0 + k };
                            if !on_line {
                                changed |= self.remove(base, c, claiming)?;
                            }
                        }
                    }
                }
            }
        }
        Ok(changed)
    }

    /// Generalized arc consistency of the all-different constraint of every unit (Régin):
    /// a perfect matching of the unit's open cells to its missing digits, then a digit stays
    /// in a cell only if some perfect matching puts it there, i.e. the cell and the digit's
    /// matched cell lie on a common alternating cycle (same strongly connected component).
    /// This covers naked and hidden pairs, triples, quads … of every size.
    fn all_different(&mut self, level: usize) -> Result<bool, ()> {
        let base = level * self.cells;
        let n = self.g.n;
        let mut changed = false;
        let mut cells = [0usize; 64];
        let mut masks = [0u64; 64];
        let mut cell_of_digit = [u8::MAX; 64];
        let mut digit_of_cell = [0u8; 64];
        let mut reach = [0u64; 64];
        for u in 0..3 * n {
            if !self.take_dirty(u) {
                continue;
            }
            let mut k = 0;
            for &c in &self.g.units[u * n..(u + 1) * n] {
                let c = c as usize;
                if self.value[base + c] == 0 {
                    cells[k] = c;
                    masks[k] = self.cand[base + c];
                    k += 1;
                }
            }
            if k <= 2 {
                continue; // singles and pairs of two cells are already settled by singles
            }
            // Maximum matching, greedy start then augmenting paths (Kuhn).
            cell_of_digit.fill(u8::MAX);
            let mut unmatched = [0usize; 64];
            let mut nu = 0;
            for i in 0..k {
                let mut free = masks[i];
                while free != 0 {
                    let d = free.trailing_zeros() as usize;
                    if cell_of_digit[d] == u8::MAX {
                        break;
                    }
                    free &= free - 1;
                }
                if free != 0 {
                    let d = free.trailing_zeros() as usize;
                    cell_of_digit[d] = i as u8;
                    digit_of_cell[i] = d as u8;
                } else {
                    unmatched[nu] = i;
                    nu += 1;
                }
            }
            for &i in &unmatched[..nu] {
                let mut seen = 0u64;
                if !augment(i, &masks, &mut cell_of_digit, &mut digit_of_cell, &mut seen) {
                    if self.wdeg {
                        self.weights[u] += 1;
                    }
                    return Err(());
                }
            }
            // Cell graph: i → j when cell i allows the digit matched to cell j.
            for i in 0..k {
                let mut m = masks[i];
                let mut adj = 0u64;
                while m != 0 {
                    let d = m.trailing_zeros() as usize;
                    m &= m - 1;
                    adj |= 1u64 << cell_of_digit[d];
                }
                reach[i] = adj | 1u64 << i;
            }
            // Transitive closure (k ≤ 64 nodes, one word per row).
            for via in 0..k {
                let bit = 1u64 << via;
                let rv = reach[via];
                for r in reach[..k].iter_mut() {
                    if *r & bit != 0 {
                        *r |= rv;
                    }
                }
            }
            for i in 0..k {
                // Same component: j reachable from i and i from j.
                let mut keep = 0u64;
                let mut rs = reach[i];
                while rs != 0 {
                    let j = rs.trailing_zeros() as usize;
                    rs &= rs - 1;
                    if reach[j] >> i & 1 == 1 {
                        keep |= 1u64 << digit_of_cell[j];
                    }
                }
                let drop = masks[i] & !keep;
                if drop != 0 {
                    changed |= self.remove(base, cells[i], drop)?;
                }
            }
        }
        Ok(changed)
    }

    /// Naked singles from the queue, then (with full propagation) hidden singles, to a fixpoint.
    fn propagate_singles(&mut self, level: usize) -> bool {
        if self.cfg.propagation == Propagation::None {
            return true;
        }
        let base = level * self.cells;
        let n = self.g.n;
        loop {
            while let Some(p) = self.queue.pop() {
                let p = p as usize;
                if self.value[base + p] == 0 {
                    let m = self.cand[base + p];
                    if !self.assign(level, p, m.trailing_zeros() as usize) {
                        self.queue.clear();
                        return false;
                    }
                    self.stats.forced += 1;
                }
            }
            if self.cfg.propagation == Propagation::NakedSingles {
                return true;
            }
            if self.hs_dirty == [0; 3] {
                return true;
            }
            for w in 0..3 {
                while self.hs_dirty[w] != 0 {
                    let u = w * 64 + self.hs_dirty[w].trailing_zeros() as usize;
                    self.hs_dirty[w] &= self.hs_dirty[w] - 1;
                    let unit = &self.g.units[u * n..(u + 1) * n];
                    let (mut once, mut twice, mut placed) = (0u64, 0u64, 0u64);
                    for &c in unit {
                        let c = base + c as usize;
                        let m = self.cand[c];
                        if self.value[c] != 0 {
                            placed |= m;
                        } else {
                            twice |= once & m;
                            once |= m;
                        }
                    }
                    if once | placed != self.full {
                        if self.wdeg {
                            self.weights[u] += 1;
                        }
                        self.queue.clear();
                        return false;
                    }
                    let mut hidden = once & !twice & !placed;
                    while hidden != 0 {
                        let d = hidden.trailing_zeros() as usize;
                        hidden &= hidden - 1;
                        let bit = 1u64 << d;
                        let Some(&c) = self.g.units[u * n..(u + 1) * n].iter().find(|&&c| {
                            self.value[base + c as usize] == 0
                                && self.cand[base + c as usize] & bit != 0
                        }) else {
                            // An earlier placement in this unit took the digit's only cell.
                            self.queue.clear();
                            return false;
                        };
                        if !self.assign(level, c as usize, d) {
                            self.queue.clear();
                            return false;
                        }
                        self.stats.forced += 1;
                    }
                }
            }
        }
    }

    /// The branch options at `level`: (cell, digit index) pairs, or `None` when the grid is full.
    /// `out` receives the options; an empty list is a dead end.
    fn choose(&mut self, level: usize, out: &mut Vec<(u16, u8)>) -> bool {
        out.clear();
        let base = level * self.cells;
        let vals = &self.value[base..base + self.cells];
        let cand = &self.cand[base..base + self.cells];
        let cell = match self.cfg.branching {
            Branching::FirstBlank => vals.iter().position(|&v| v == 0),
            Branching::Lookahead if self.probed.is_some() => self.probed,
            Branching::Lookahead => {
                // No two-candidate cell: plain MRV.
                let mut best = (u32::MAX, usize::MAX);
                for (c, (&v, &m)) in vals.iter().zip(cand).enumerate() {
                    if v == 0 && m.count_ones() < best.0 {
                        best = (m.count_ones(), c);
                    }
                }
                (best.1 != usize::MAX).then_some(best.1)
            }
            Branching::DomWdeg => {
                // Minimise k / w by cross-multiplication; ties at random when shuffling.
                let mut best: Option<(u64, u64, usize)> = None;
                let mut ties = 0u32;
                let mut rng = self.rng.as_deref_mut().filter(|_| self.shuffle_ties);
                for (c, (&v, &m)) in vals.iter().zip(cand).enumerate() {
                    if v != 0 {
                        continue;
                    }
                    let k = m.count_ones() as u64;
                    let [a, bb, cc] = self.units_of[c];
                    let w = (self.weights[a as usize]
                        + self.weights[bb as usize]
                        + self.weights[cc as usize]) as u64;
                    match best {
                        Some((bk, bw, _)) if k * bw > bk * w => {}
                        Some((bk, bw, _)) if k * bw == bk * w => {
                            ties += 1;
                            if let Some(r) = rng.as_deref_mut() {
                                if r.random_range(0..ties) == 0 {
                                    best = Some((k, w, c));
                                }
                            }
                        }
                        _ => {
                            best = Some((k, w, c));
                            ties = 1;
                        }
                    }
                }
                best.map(|b| b.2)
            }
            Branching::Mrv | Branching::MrvPlaces => {
                let floor = if self.cfg.propagation == Propagation::None {
                    0
                } else {
                    2
                };
                let mut best = (u32::MAX, usize::MAX);
                match self.rng.as_deref_mut().filter(|_| self.shuffle_ties) {
                    None => {
                        for (c, (&v, &m)) in vals.iter().zip(cand).enumerate() {
                            if v == 0 {
                                let k = m.count_ones();
                                if k < best.0 {
                                    best = (k, c);
                                    if k <= floor {
                                        break;
                                    }
                                }
                            }
                        }
                    }
                    Some(rng) => {
                        // Uniform among the tied cells (reservoir sampling).
                        let mut ties = 0u32;
                        for (c, (&v, &m)) in vals.iter().zip(cand).enumerate() {
                            if v == 0 {
                                let k = m.count_ones();
                                if k < best.0 {
                                    best = (k, c);
                                    ties = 1;
                                } else if k == best.0 {
                                    ties += 1;
                                    if rng.random_range(0..ties) == 0 {
                                        best.1 = c;
                                    }
                                }
                            }
                        }
                    }
                }
                if best.1 == usize::MAX {
                    None
                } else if self.cfg.branching == Branching::MrvPlaces && best.0 > 2 {
                    // A digit with fewer places in some unit than the best cell has candidates?
                    if let Some((u, d)) = self.fewest_places(level, best.0) {
                        let bit = 1u64 << d;
                        let n = self.g.n;
                        for &c in &self.g.units[u * n..(u + 1) * n] {
                            if vals[c as usize] == 0 && cand[c as usize] & bit != 0 {
                                out.push((c, d as u8));
                            }
                        }
                        return true;
                    }
                    Some(best.1)
                } else {
                    Some(best.1)
                }
            }
        };
        let Some(c) = cell else {
            return false;
        };
        let mut m = cand[c];
        while m != 0 {
            out.push((c as u16, m.trailing_zeros() as u8));
            m &= m - 1;
        }
        true
    }

    /// A (unit, digit index) whose digit has 2 or 3 places left in the unit, fewer than
    /// `than`; the first with 2 places if any.
    fn fewest_places(&self, level: usize, than: u32) -> Option<(usize, usize)> {
        let base = level * self.cells;
        let n = self.g.n;
        let mut three = None;
        for u in 0..3 * n {
            // Bit-sliced counters of how many open cells of the unit allow each digit.
            let (mut b0, mut b1, mut b2) = (0u64, 0u64, 0u64);
            for &c in &self.g.units[u * n..(u + 1) * n] {
                let c = base + c as usize;
                if self.value[c] == 0 {
                    let m = self.cand[c];
                    let c0 = b0 & m;
                    b0 ^= m;
                    let c1 = b1 & c0;
                    b1 ^= c0;
                    b2 |= c1;
                }
            }
            let two = !b2 & b1 & !b0;
            if two != 0 {
                return Some((u, two.trailing_zeros() as usize));
            }
            let t = !b2 & b1 & b0;
            if three.is_none() && t != 0 && than > 3 {
                three = Some((u, t.trailing_zeros() as usize));
            }
        }
        three
    }

    /// Probes every two-candidate blank cell at `level` (see [`Branching::Lookahead`]).
    fn lookahead(&mut self, level: usize) -> Look {
        let base = level * self.cells;
        let next = base + self.cells;
        let (wdeg, forced) = (self.wdeg, self.stats.forced);
        self.wdeg = false;
        let mut best: Option<(u64, usize)> = None;
        let mut outcome = None;
        for c in 0..self.cells {
            let m = self.cand[base + c];
            if self.value[base + c] != 0 || m.count_ones() != 2 {
                continue;
            }
            let mut f = [0u64; 2];
            let mut fails = 0u64;
            let mut rest = m;
            for fi in f.iter_mut() {
                let d = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                self.cand.copy_within(base..next, next);
                self.value.copy_within(base..next, next);
                let before = self.stats.forced;
                let ok = self.assign(level + 1, c, d) && self.propagate_singles(level + 1);
                self.queue.clear();
                self.stats.probes += 1;
                if ok {
                    *fi = self.stats.forced - before + 1;
                } else {
                    fails |= 1u64 << d;
                }
            }
            if fails == m {
                outcome = Some(Look::Contradiction);
                break;
            }
            if fails != 0 {
                outcome = Some(match self.remove(base, c, fails) {
                    Ok(_) => Look::Changed,
                    Err(()) => Look::Contradiction,
                });
                break;
            }
            let score = 1024 * f[0] * f[1] + f[0] + f[1];
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, c));
            }
        }
        self.wdeg = wdeg;
        self.stats.forced = forced;
        if self.track {
            self.dirty = [u64::MAX; 3];
        }
        outcome.unwrap_or(Look::Best(best.map(|b| b.1)))
    }

    fn dfs(&mut self, level: usize) {
        self.stats.nodes += 1;
        if let Some(limit) = self.budget {
            if self.stats.nodes > limit {
                self.aborted = true;
                return;
            }
        }
        if self.cfg.branching == Branching::Lookahead {
            let next = (level + 2) * self.cells;
            if self.cand.len() < next {
                self.cand.resize(next, 0);
                self.value.resize(next, 0);
            }
            loop {
                match self.lookahead(level) {
                    Look::Contradiction => {
                        self.stats.dead_ends += 1;
                        return;
                    }
                    Look::Changed => {
                        if !self.propagate(level) {
                            self.stats.dead_ends += 1;
                            return;
                        }
                    }
                    Look::Best(c) => {
                        self.probed = c;
                        break;
                    }
                }
            }
        }
        let mut options = std::mem::take(&mut self.options[level]);
        if !self.choose(level, &mut options) {
            self.found += 1;
            if self.solutions.len() < self.keep {
                let base = level * self.cells;
                self.solutions
                    .push(self.value[base..base + self.cells].to_vec());
            }
            self.options[level] = options;
            return;
        }
        let base = level * self.cells;
        if options.is_empty() {
            self.stats.dead_ends += 1;
            self.options[level] = options;
            return;
        }
        let next = base + self.cells;
        if self.cand.len() < next + self.cells {
            self.cand.resize(next + self.cells, 0);
            self.value.resize(next + self.cells, 0);
        }
        if self.options.len() < level + 2 {
            self.options.resize_with(level + 2, Vec::new);
        }
        if let Some(rng) = self.rng.as_deref_mut() {
            options.shuffle(rng);
        }
        let k = options.len();
        for &(c, d) in &options {
            if k > 1 {
                self.stats.guesses += 1;
            }
            self.cand.copy_within(base..next, next);
            self.value.copy_within(base..next, next);
            if self.track {
                self.dirty = [0; 3];
            }
            self.hs_dirty = [0; 3];
            if self.assign(level + 1, c as usize, d as usize) && self.propagate(level + 1) {
                self.dfs(level + 1);
                if self.found >= self.limit || self.aborted {
                    break;
                }
            } else {
                self.queue.clear();
                self.stats.dead_ends += 1;
                self.stats.nodes += 1;
            }
        }
        self.options[level] = options;
    }
}

/// The row, column and box unit numbers of every cell of box size `b`, computed once.
fn units_of(b: usize) -> &'static [[u8; 3]] {
    use std::sync::OnceLock;
    static TABLES: [OnceLock<Vec<[u8; 3]>>; crate::puzzle::MAX_BOX + 1] =
        [const { OnceLock::new() }; crate::puzzle::MAX_BOX + 1];
    TABLES[b].get_or_init(|| {
        let g = Geometry::get(b);
        (0..g.cells)
            .map(|c| {
                let (r, col, bx) = g.row_col_box(c);
                [r as u8, (g.n + col) as u8, (2 * g.n + bx) as u8]
            })
            .collect()
    })
}

/// The bitset of units 0..count.
fn all_units(count: usize) -> [u64; 3] {
    let mut m = [0u64; 3];
    for (w, word) in m.iter_mut().enumerate() {
        let lo = w * 64;
        if count > lo {
            let k = (count - lo).min(64);
            *word = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
        }
    }
    m
}

/// For every cell of box size `b`, the bitset (over unit numbers) of its row, column and box.
fn unit_bits(b: usize) -> &'static [[u64; 3]] {
    use std::sync::OnceLock;
    static TABLES: [OnceLock<Vec<[u64; 3]>>; crate::puzzle::MAX_BOX + 1] =
        [const { OnceLock::new() }; crate::puzzle::MAX_BOX + 1];
    TABLES[b].get_or_init(|| {
        units_of(b)
            .iter()
            .map(|us| {
                let mut m = [0u64; 3];
                for &u in us {
                    m[u as usize >> 6] |= 1u64 << (u & 63);
                }
                m
            })
            .collect()
    })
}

/// Finds an augmenting path from cell `i` (Kuhn's algorithm over digit bitmasks).
fn augment(
    i: usize,
    masks: &[u64; 64],
    cell_of_digit: &mut [u8; 64],
    digit_of_cell: &mut [u8; 64],
    seen: &mut u64,
) -> bool {
    let mut m = masks[i] & !*seen;
    while m != 0 {
        let d = m.trailing_zeros() as usize;
        m &= m - 1;
        *seen |= 1u64 << d;
        let j = cell_of_digit[d];
        if j == u8::MAX || augment(j as usize, masks, cell_of_digit, digit_of_cell, seen) {
            cell_of_digit[d] = i as u8;
            digit_of_cell[i] = d as u8;
            return true;
        }
        m &= !*seen;
    }
    false
}

#[cfg(test)]
mod tests;
