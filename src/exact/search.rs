//! The generic search state (every size, every setting): a stack of candidate levels, clue
//! loading, placement and the depth-first search.

use super::{Branching, Config, Propagation, Stats};
use crate::puzzle::{Geometry, Grid};
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What the lookahead probes (`Search::lookahead`, in `branch.rs`) found. Here, beside the
/// search that acts on it, so that `branch.rs` extends [`Search`] without the two naming each
/// other.
pub(super) enum Look {
    Contradiction,
    /// A candidate was removed: propagate and probe again.
    Changed,
    /// The cell to branch on (None: no two-candidate cell).
    Best(Option<usize>),
}

/// When a search stops: a node budget, a deadline, and a counter that progress displays read.
#[derive(Clone, Debug, Default)]
pub(super) struct Limits {
    pub budget: Option<u64>,
    pub deadline: Option<Instant>,
    pub counter: Option<Arc<AtomicU64>>,
}

impl Limits {
    /// Nodes (and lookahead probes) between two looks at the clock and updates of the counter.
    pub const EVERY: u64 = 1024;

    /// Whether a search that has visited `nodes` nodes must stop (for searches whose nodes
    /// all cost about the same).
    #[inline(always)]
    pub fn stop(&self, nodes: u64) -> bool {
        self.over_budget(nodes)
            || (nodes.is_multiple_of(Self::EVERY) && self.checkpoint(Self::EVERY))
    }

    #[inline(always)]
    pub fn over_budget(&self, nodes: u64) -> bool {
        self.budget.is_some_and(|b| nodes > b)
    }

    /// Adds `nodes` new nodes to the counter; whether the deadline has passed.
    #[cold]
    pub fn checkpoint(&self, nodes: u64) -> bool {
        if let Some(c) = &self.counter {
            c.fetch_add(nodes, Ordering::Relaxed);
        }
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Search state: a stack of (candidates, values) levels, one per branch depth.
pub(super) struct Search<'r> {
    pub(super) g: &'static Geometry,
    pub(super) cells: usize,
    pub(super) full: u64,
    pub(super) cfg: Config,
    pub(super) limit: usize,
    /// Solutions to keep (the rest are only counted).
    pub(super) keep: usize,
    pub(super) limits: Limits,
    /// Work (nodes + probes) and nodes at the last look at the clock.
    pub(super) looked: (u64, u64),
    pub(super) rng: Option<&'r mut Xoshiro256PlusPlus>,
    /// Break ties of the branching heuristic at random (restart searches).
    pub(super) shuffle_ties: bool,
    /// Strong propagation: units whose cells changed since they were last made consistent.
    pub(super) track: bool,
    pub(super) dirty: [u64; 3],
    /// Units whose cells changed since the last hidden-singles look at them.
    pub(super) hs_dirty: [u64; 3],
    pub(super) unit_bits: &'static [[u64; 3]],
    /// dom/wdeg branching: contradictions per unit (kept across restarts).
    pub(super) wdeg: bool,
    pub(super) weights: Vec<u32>,
    /// Lookahead branching: the cell chosen by the last probe.
    pub(super) probed: Option<usize>,
    pub(super) units_of: &'static [[u8; 3]],
    pub(super) cand: Vec<u64>,
    pub(super) value: Vec<u8>,
    pub(super) queue: Vec<u16>,
    /// Branch options per level (kept to reuse their allocations).
    pub(super) options: Vec<Vec<(u16, u8)>>,
    pub(super) found: usize,
    pub(super) solutions: Vec<Vec<u8>>,
    pub(super) aborted: bool,
    pub(super) stats: Stats,
}

#[inline]
pub(super) fn single(m: u64) -> bool {
    m & m.wrapping_sub(1) == 0
}

impl<'r> Search<'r> {
    pub(super) fn new(
        g: &'static Geometry,
        cfg: Config,
        limit: usize,
        keep: usize,
        limits: Limits,
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
            limits,
            looked: (0, 0),
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
    pub(super) fn load(&mut self, puzzle: &Grid, exclude: Option<(usize, u8)>) -> bool {
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
    pub(super) fn assign(&mut self, level: usize, c: usize, d: usize) -> bool {
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
    pub(super) fn blame_cell(&mut self, c: usize) {
        for &u in &self.units_of[c] {
            self.weights[u as usize] += 1;
        }
    }

    /// Marks the three units of cell `c` as changed.
    #[inline]
    pub(super) fn mark(&mut self, c: usize) {
        for &u in &self.units_of[c] {
            self.dirty[u as usize >> 6] |= 1u64 << (u & 63);
        }
    }

    #[inline]
    pub(super) fn take_dirty(&mut self, u: usize) -> bool {
        let (w, bit) = (u >> 6, 1u64 << (u & 63));
        let was = self.dirty[w] & bit != 0;
        self.dirty[w] &= !bit;
        was
    }

    /// Removes digits `mask` from open cell `c` (relative index) at `base`; Ok(true) if it
    /// removed something, Err on an emptied cell. New singles go to the queue.
    #[inline]
    pub(super) fn remove(&mut self, base: usize, c: usize, mask: u64) -> Result<bool, ()> {
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

    /// Every [`Limits::EVERY`] nodes or probes (a lookahead node on a large grid costs hundreds
    /// of probes): whether the deadline has passed.
    fn look_at_clock(&mut self) -> bool {
        let work = self.stats.nodes + self.stats.probes;
        if work - self.looked.0 < Limits::EVERY {
            return false;
        }
        let fresh = self.stats.nodes - self.looked.1;
        self.looked = (work, self.stats.nodes);
        self.limits.checkpoint(fresh)
    }

    pub(super) fn dfs(&mut self, level: usize) {
        self.stats.nodes += 1;
        if self.limits.over_budget(self.stats.nodes) || self.look_at_clock() {
            self.aborted = true;
            return;
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
