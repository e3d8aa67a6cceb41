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

mod branch;
pub mod cnf;
mod locked;
mod nine;
mod propagate;
mod restarts;
mod search;

pub use propagate::{
    logic_candidates, place_by_logic, place_singles, probe, singles, singles_candidates,
    Contradiction, Probe,
};
pub use restarts::{luby, Restarts};

use crate::puzzle::Grid;
use rand::rngs::Xoshiro256PlusPlus;
use rand::SeedableRng;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

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

/// Solver settings. The default (`Auto` propagation, MRV over cells and places, no node or time
/// limit, restarts) is the fast exact solver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Config {
    pub propagation: Propagation,
    pub branching: Branching,
    /// Give up after this many search nodes in all ([`Outcome::aborted`] is then set).
    pub node_limit: Option<u64>,
    /// Give up when a call has run this long ([`Outcome::aborted`] is then set). The clock is
    /// read every 1,024 nodes (or lookahead probes) and between restarts.
    pub time_limit: Option<Duration>,
    /// Randomized restarts against heavy-tailed search times (see [`Restarts`]).
    pub restarts: Restarts,
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
    /// The node or time limit stopped the search before it could finish (`count` is then a
    /// lower bound).
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
    Solver::default()
        .classify(puzzle)
        .expect("the default solver has no limit")
}

/// An exact solver with its settings, scratch space and the statistics of its last run.
#[derive(Clone, Debug, Default)]
pub struct Solver {
    config: Config,
    stats: Stats,
    rng: Option<Xoshiro256PlusPlus>,
    counter: Option<Arc<AtomicU64>>,
}

impl Solver {
    pub fn new(config: Config) -> Solver {
        Solver {
            config,
            stats: Stats::default(),
            rng: None,
            counter: None,
        }
    }

    /// Changes the time limit of the calls that follow ([`Config::time_limit`]).
    pub fn set_time_limit(&mut self, limit: Option<Duration>) {
        self.config.time_limit = limit;
    }

    /// Tries the values of a branch in an order drawn from `seed` instead of ascending
    /// (for random complete grids); deterministic for the seed.
    pub fn with_random_value_order(mut self, seed: u64) -> Solver {
        self.rng = Some(Xoshiro256PlusPlus::seed_from_u64(seed));
        self
    }

    /// Adds the nodes searched to `counter` as the search goes (in steps of 1,024), for a
    /// progress display in another thread.
    pub fn with_node_counter(mut self, counter: Arc<AtomicU64>) -> Solver {
        self.counter = Some(counter);
        self
    }

    pub fn config(&self) -> Config {
        self.config
    }

    /// Statistics of the last run.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// None, unique or multiple solutions (searches for at most two); `None` when the node or
    /// time limit stopped the search before the answer was known (see [`Solver::stats`]).
    pub fn classify(&mut self, puzzle: &Grid) -> Option<Solutions> {
        let o = self.count(puzzle, 2);
        if o.aborted {
            return None;
        }
        Some(match (o.count, o.first) {
            (1, Some(s)) => Solutions::Unique(s),
            (2, Some(s)) => Solutions::Multiple(s),
            _ => Solutions::None,
        })
    }

    /// First solution, or `None` when there is none (or a limit stopped the search).
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
        let counted = restarts::count(
            self.config,
            self.rng.as_mut(),
            self.counter.clone(),
            puzzle,
            limit,
            exclude,
        );
        self.stats = counted.stats;
        let first = counted.distinct.into_iter().next().map(|cells| {
            let g = Grid::from_cells(puzzle.box_size(), cells).expect("solver keeps the size");
            debug_assert!(
                g.is_solution_of(puzzle),
                "exact solver produced a non-solution"
            );
            g
        });
        Outcome {
            count: counted.found,
            first,
            aborted: counted.aborted,
        }
    }
}

/// What the search found for one puzzle within a solver's limits.
#[derive(Clone, Debug, PartialEq)]
pub enum Classified {
    Known(Solutions),
    /// The node or time limit stopped the search after `nodes` nodes and `seconds` seconds.
    GaveUp {
        nodes: u64,
        seconds: f64,
    },
}

/// Classifies every puzzle (none, unique, several) in parallel under `config`, adding the
/// nodes searched to `nodes` as the search goes (for a progress display) and calling `done`
/// after each puzzle.
pub fn classify_all(
    puzzles: &[crate::puzzle::Puzzle],
    config: Config,
    nodes: &Arc<AtomicU64>,
    done: &(dyn Fn() + Sync),
) -> Vec<Classified> {
    use rayon::prelude::*;
    puzzles
        .par_iter()
        .map(|p| {
            let started = std::time::Instant::now();
            let mut solver = Solver::new(config).with_node_counter(Arc::clone(nodes));
            let r = match solver.classify(&p.grid) {
                Some(s) => Classified::Known(s),
                None => Classified::GaveUp {
                    nodes: solver.stats().nodes,
                    seconds: started.elapsed().as_secs_f64(),
                },
            };
            done();
            r
        })
        .collect()
}

#[cfg(test)]
mod tests;
