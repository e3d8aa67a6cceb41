//! The restart driver: a first search in the configured order, then (on large sparse grids
//! whose search times are heavy-tailed) a stronger search and randomized Luby restarts.

use super::search::{Limits, Search};
use super::{locked, nine, Branching, Config, Propagation, Stats};
use crate::puzzle::Grid;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;

/// Restart policy. Search times on large sparse grids near the hardness peak (25x25 with about
/// half the cells blank) are heavy-tailed: most orders finish in a few hundred nodes, a few
/// take millions. Restarts cut the tail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Restarts {
    /// One complete search in the configured order.
    Off,
    /// First a deterministic search in the configured order with a budget of `first_budget`
    /// nodes, or two per blank cell if that is more (a dive that fills a 49x49 or 64x64 grid
    /// needs about one per blank, and the stages below cost far more per node there); if it
    /// does not finish, one deterministic search with `propagation` and `branching` and a
    /// budget of 16 · `base`; then searches with those, random tie-breaking and random value
    /// order (seeded, so deterministic) and budgets `base · luby(i)` (1, 1, 2, 1, 1, 2, 4, …)
    /// until one finishes. Answers stay exact: counts come from a finished search, or from
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
/// What one counting request found: solutions counted, whether a node limit stopped it, the
/// distinct solutions kept (in the order found) and the statistics of all its searches.
pub(super) struct Counted {
    pub found: usize,
    pub aborted: bool,
    pub distinct: Vec<Vec<u8>>,
    pub stats: Stats,
}

/// Searches `puzzle` for up to `limit` solutions (digit `exclude.1` forbidden in cell
/// `exclude.0`) under `config`'s restart policy, node limit and time limit; `counter` (if any)
/// is fed the nodes searched as they go.
pub(super) fn count(
    config: Config,
    rng: Option<&mut Xoshiro256PlusPlus>,
    counter: Option<Arc<AtomicU64>>,
    puzzle: &Grid,
    limit: usize,
    exclude: Option<(usize, u8)>,
) -> Counted {
    let mut d = Driver {
        puzzle,
        limit,
        keep: limit.min(64),
        exclude,
        node_limit: config.node_limit,
        deadline: config
            .time_limit
            .and_then(|t| Instant::now().checked_add(t)),
        counter,
        distinct: Vec::new(),
        stats: Stats::default(),
        weights: Vec::new(),
    };
    let (found, aborted) = match config.restarts {
        Restarts::Off => d.run(config, rng, None, false),
        Restarts::Luby {
            first_budget,
            base,
            propagation,
            branching,
        } => {
            let mut rng = rng;
            // (Blanks are counted only where they can matter: not on 9x9, whose solves are short.)
            let cells = puzzle.cells();
            let first = if 2 * cells.len() as u64 > first_budget {
                let blanks = cells.iter().filter(|&&v| v == 0).count() as u64;
                first_budget.max(2 * blanks)
            } else {
                first_budget
            };
            let mut r = d.run(config, rng.as_deref_mut(), Some(first), false);
            let mut restart_rng = match rng {
                Some(rng) => Xoshiro256PlusPlus::seed_from_u64(rng.next_u64()),
                None => Xoshiro256PlusPlus::seed_from_u64(0x5EED_5D0C_u64),
            };
            let cfg = Config {
                propagation,
                branching,
                ..config
            };
            if r.1 && d.distinct.len() < limit && !d.out_of_limits() {
                // The stronger search in its plain order first: a unique puzzle needs one
                // complete search, which random orders rarely make smaller.
                d.stats.restarts += 1;
                r = d.run(cfg, None, Some(base.saturating_mul(16)), false);
            }
            let mut i = 0;
            while r.1 && d.distinct.len() < limit {
                if d.out_of_limits() {
                    break;
                }
                i += 1;
                d.stats.restarts += 1;
                r = d.run(
                    cfg,
                    Some(&mut restart_rng),
                    Some(base.saturating_mul(luby(i))),
                    true,
                );
            }
            if r.1 && d.distinct.len() >= limit {
                (limit, false) // enough distinct solutions across searches
            } else {
                r
            }
        }
    };
    Counted {
        found: if aborted {
            d.distinct.len().min(limit)
        } else {
            found
        },
        aborted,
        distinct: d.distinct,
        stats: d.stats,
    }
}

/// One counting request: its puzzle and limits, and what its searches share (the distinct
/// solutions found, the statistics, the dom/wdeg conflict weights).
struct Driver<'p> {
    puzzle: &'p Grid,
    limit: usize,
    /// Solutions to keep (the rest are only counted).
    keep: usize,
    exclude: Option<(usize, u8)>,
    node_limit: Option<u64>,
    deadline: Option<Instant>,
    counter: Option<Arc<AtomicU64>>,
    distinct: Vec<Vec<u8>>,
    stats: Stats,
    weights: Vec<u32>,
}

impl Driver<'_> {
    /// The node limit is used up or the time limit has passed.
    fn out_of_limits(&self) -> bool {
        self.node_limit.is_some_and(|t| self.stats.nodes >= t)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// One search with `cfg` and at most `budget` nodes (and what is left of the node limit);
    /// (solutions found, aborted).
    fn run(
        &mut self,
        cfg: Config,
        rng: Option<&mut Xoshiro256PlusPlus>,
        budget: Option<u64>,
        shuffle_ties: bool,
    ) -> (usize, bool) {
        let puzzle = self.puzzle;
        let (limit, keep, exclude) = (self.limit, self.keep, self.exclude);
        let left = self.node_limit.map(|t| t.saturating_sub(self.stats.nodes));
        let budget = match (budget, left) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let cfg = Config {
            propagation: cfg.propagation.resolve(puzzle.box_size()),
            ..cfg
        };
        let limits = Limits {
            budget,
            deadline: self.deadline,
            counter: self.counter.clone(),
        };
        if puzzle.box_size() == 3
            && matches!(cfg.propagation, Propagation::Full | Propagation::Locked)
            && matches!(cfg.branching, Branching::Mrv | Branching::MrvPlaces)
            && rng.is_none()
            && !shuffle_ties
        {
            // The 9x9 fast paths: the generic search tree on a digit-major state.
            let (found, aborted, solutions) = if cfg.propagation == Propagation::Full {
                let mut s = nine::Nine::new(cfg.branching, limit, keep, limits);
                s.run(puzzle.cells(), exclude);
                self.stats.add(&s.stats);
                (s.found, s.aborted, s.solutions)
            } else {
                let mut s = locked::Locked9::new(cfg.branching, limit, keep, limits);
                s.run(puzzle.cells(), exclude);
                self.stats.add(&s.stats);
                (s.found, s.aborted, s.solutions)
            };
            self.keep_distinct(solutions);
            return (found, aborted);
        }
        let mut s = Search::new(puzzle.geometry(), cfg, limit, keep, limits, rng);
        s.shuffle_ties = shuffle_ties;
        if s.wdeg {
            if self.weights.is_empty() {
                self.weights.resize(3 * puzzle.side(), 1);
            }
            s.weights = std::mem::take(&mut self.weights);
        }
        if s.load(puzzle, exclude) && limit > 0 {
            s.dfs(0);
        }
        if s.wdeg {
            self.weights = std::mem::take(&mut s.weights);
        }
        self.stats.add(&s.stats);
        let (found, aborted) = (s.found, s.aborted);
        self.keep_distinct(s.solutions);
        (found, aborted)
    }

    /// Adds the solutions not seen before, up to `keep`.
    fn keep_distinct(&mut self, solutions: Vec<Vec<u8>>) {
        for sol in solutions {
            if self.distinct.len() < self.keep && !self.distinct.contains(&sol) {
                self.distinct.push(sol);
            }
        }
    }
}
