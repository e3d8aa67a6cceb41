//! ENHANCEMENT beyond the paper (switch `--enhance propagate`, [`super::Enhancement::Propagate`]).
//!
//! Plain RFSS can settle into a fixed point whose read-off keeps conflicts: an equilibrium of
//! fitness sharing is a fractional cover, not always an integral one. The enhancement adds:
//! 1. **Forced placements** before the species are built: naked singles (a cell with one
//!    candidate) and hidden singles (a numeral with one place in a row, column or box) are filled
//!    in until none is left. Fewer species, and contradictions are found up front.
//! 2. **Decisions at a stall**: when the read-off has stayed the same, and invalid, for
//!    `stall_generations`, the species that RFSS trusts most is *committed* as a clue: among the
//!    read-off species whose row, column and box resources are covered once, the one of highest
//!    proportion (ties: lowest species index). Forced placements are propagated and RFSS restarts
//!    from equal proportions on the reduced puzzle. If propagation finds a contradiction, the last
//!    commitment is turned into an exclusion (chronological backtracking), so the search is
//!    complete: it finds a solution or proves there is none, within the generation budget.
//!
//!
//! `--enhance mrv` ([`super::Enhancement::Mrv`]) takes the same steps but decides on a cell with
//! the fewest candidates (among those, the cell whose favourite species holds the largest share
//! of the cell's total proportion) and commits that favourite: RFSS orders the values of a
//! minimum-remaining-values search, so a wrong decision costs at most the few branches of a
//! small cell.
//!
//! `--enhance logic` ([`super::Enhancement::Logic`]) decides as `mrv` does and propagates more
//! at every node: after singles, the exact solver's strong propagation (locked candidates,
//! naked and hidden subsets) on the digits placed so far, with singles again, until neither
//! removes a candidate. Fewer species, and wrong decisions fail sooner.
//!
//! `--enhance lookahead` ([`super::Enhancement::Lookahead`]) propagates as `logic` does and then
//! probes: each numeral of every blank cell with two candidates is placed on a scratch copy and
//! singles propagated; a numeral whose probe ends in a contradiction is removed (failed-literal
//! reasoning), and logic runs again until no probe fails. Decisions are taken on the
//! two-candidate cell whose two probes force the most placements (score 1024·f₁·f₂ + f₁ + f₂ as
//! in the Satz SAT solver, f counting the cells fixed beyond the probed one; ties: the lowest
//! cell), and RFSS commits its favourite of the two numerals. Where no cell has two candidates
//! it decides as `mrv` does. A wrong decision is found at once far more often, so chronological
//! backtracking no longer thrashes under a wrong early commitment.
//!
//! Everything here runs on the host, on proportions that are bit-identical on CPU and GPU, so
//! both backends take the same decisions at the same generations.

use super::{Enhancement, Problem, Readoff, RfssParams};
use crate::exact::{probe, singles, Probe};
use crate::puzzle::{cell_name, symbol_for, Grid};

/// One decision: numeral in cell, committed (true) or excluded (false).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decision {
    cell: usize,
    numeral: u8,
    commit: bool,
}

/// The enhancement's search state for one instance.
#[derive(Clone, Debug)]
pub struct Search {
    root: Grid,
    stack: Vec<Decision>,
    /// Which enhancement runs (never `Off`): decisions by [`pick`] (Propagate), [`pick_mrv`]
    /// (Mrv, Logic, and Lookahead where no cell has two candidates) or [`pick_in_cell`]
    /// (Lookahead); strong propagation at every node with Logic and Lookahead, failed-literal
    /// probes with Lookahead.
    enhancement: Enhancement,
    /// Lookahead: the cell the current node's probes chose to decide on.
    probed: Option<u32>,
}

impl Search {
    /// The original puzzle.
    pub fn root(&self) -> &Grid {
        &self.root
    }

    /// The problem of the current node: clues, decisions and forced placements applied (and,
    /// with lookahead, the cell its probes chose).
    fn node(&mut self) -> Result<Problem, String> {
        self.probed = None;
        let geo = self.root.geometry();
        let full = if geo.n == 64 {
            u64::MAX
        } else {
            (1u64 << geo.n) - 1
        };
        let mut mask: Vec<u64> = self
            .root
            .cells()
            .iter()
            .map(|&v| if v == 0 { full } else { 1u64 << (v - 1) })
            .collect();
        if let Some((a, c, v)) = self.root.first_conflict() {
            return Err(format!(
                "clues repeat: {} and {} both hold {}",
                cell_name(a, geo.n),
                cell_name(c, geo.n),
                symbol_for(v)
            ));
        }
        singles(geo, &mut mask).map_err(|e| e.to_string())?;
        for d in &self.stack {
            let bit = 1u64 << (d.numeral - 1);
            if d.commit {
                if mask[d.cell] & bit == 0 {
                    return Err("committed placement was eliminated".into());
                }
                mask[d.cell] = bit;
            } else {
                mask[d.cell] &= !bit;
            }
            singles(geo, &mut mask).map_err(|e| e.to_string())?;
        }
        let mut puzzle = self.root.clone();
        place_fixed(&mut puzzle, &mask);
        // Logic on the digits placed so far only: exclusions stay in the masks, which the
        // candidates it leaves are intersected with (both hold for every solution).
        let lookahead = self.enhancement == Enhancement::Lookahead;
        if lookahead || self.enhancement == Enhancement::Logic {
            loop {
                loop {
                    let logic = crate::exact::logic_candidates(&puzzle)
                        .ok_or_else(|| "logic finds a contradiction".to_string())?;
                    let before: u32 = mask.iter().map(|m| m.count_ones()).sum();
                    for (m, l) in mask.iter_mut().zip(&logic) {
                        *m &= l;
                    }
                    singles(geo, &mut mask).map_err(|e| e.to_string())?;
                    place_fixed(&mut puzzle, &mask);
                    if mask.iter().map(|m| m.count_ones()).sum::<u32>() == before {
                        break;
                    }
                }
                if !lookahead {
                    break;
                }
                match probe(geo, &mut mask).map_err(|e| e.to_string())? {
                    Probe::Removed => place_fixed(&mut puzzle, &mask),
                    Probe::Best(cell) => {
                        self.probed = cell.map(|c| c as u32);
                        break;
                    }
                }
            }
        }
        Problem::build_with(&puzzle, Some(&mask))
    }

    /// The read-off has stalled on `prob` with proportions `p`: commits RFSS's most trusted
    /// species (backtracking over contradictions) and returns the next problem to run, or `Err`
    /// when the search is exhausted (the puzzle has no solution).
    pub fn on_stall(
        &mut self,
        prob: &Problem,
        p: &[f32],
        argmax: &[u32],
    ) -> Result<Problem, String> {
        let pick = if let Some(cell) = self.probed {
            pick_in_cell(prob, p, cell)
        } else if self.enhancement != Enhancement::Propagate {
            pick_mrv(prob, p)
        } else {
            pick(prob, p, argmax)
        };
        let s = prob.species[pick as usize];
        self.stack.push(Decision {
            cell: s.cell as usize,
            numeral: s.numeral,
            commit: true,
        });
        loop {
            match self.node() {
                Ok(next) => return Ok(next),
                Err(_) => loop {
                    match self.stack.pop() {
                        None => {
                            return Err(
                                "no solution: the enhancement's search exhausted every branch"
                                    .into(),
                            )
                        }
                        Some(d) if d.commit => {
                            self.stack.push(Decision { commit: false, ..d });
                            break;
                        }
                        Some(_) => {}
                    }
                },
            }
        }
    }

    /// Decisions currently on the stack (for reports and tests).
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The cell the current node's probes chose to decide on (lookahead; for tests).
    pub fn probed_cell(&self) -> Option<u32> {
        self.probed
    }

    /// The last decision on the stack: cell, numeral, and whether it is a commitment (for tests).
    pub fn last_decision(&self) -> Option<(u32, u8, bool)> {
        self.stack
            .last()
            .map(|d| (d.cell as u32, d.numeral, d.commit))
    }
}

/// The species to commit in `cell` (lookahead): its species of highest proportion, ties to the
/// lowest index.
fn pick_in_cell(prob: &Problem, p: &[f32], cell: u32) -> u32 {
    let i = prob
        .blank
        .binary_search(&cell)
        .expect("the probed cell is blank in the node's problem");
    favourite(prob.covering(i), p)
}

/// The species of highest proportion among `sp` (a cell's species), ties to the first.
fn favourite(sp: &[u32], p: &[f32]) -> u32 {
    let mut top = sp[0];
    for &x in sp {
        if p[x as usize] > p[top as usize] {
            top = x;
        }
    }
    top
}

/// Writes into `puzzle` every cell that `mask` leaves one candidate.
fn place_fixed(puzzle: &mut Grid, mask: &[u64]) {
    for (c, &m) in mask.iter().enumerate() {
        if m.count_ones() == 1 {
            puzzle.set(c, m.trailing_zeros() as u8 + 1);
        }
    }
}

/// The species to commit: among read-off species with no conflict (each of their row, column
/// and box resources chosen once), the one of highest proportion, ties to the lowest index; if
/// every read-off species conflicts, the highest of all.
pub fn pick(prob: &Problem, p: &[f32], argmax: &[u32]) -> u32 {
    let mut chosen_count = vec![0u32; prob.n_res];
    for &x in argmax {
        for &r in &prob.res[x as usize][1..] {
            chosen_count[r as usize] += 1;
        }
    }
    let clean = |x: u32| {
        prob.res[x as usize][1..]
            .iter()
            .all(|&r| chosen_count[r as usize] == 1)
    };
    let best_of = |only_clean: bool| {
        let mut best: Option<u32> = None;
        for &x in argmax {
            if only_clean && !clean(x) {
                continue;
            }
            best = match best {
                Some(b) if p[x as usize] < p[b as usize] => Some(b),
                Some(b) if p[x as usize] == p[b as usize] && b < x => Some(b),
                _ => Some(x),
            };
        }
        best
    };
    best_of(true)
        .or_else(|| best_of(false))
        .expect("a stalled read-off has blank cells")
}

/// The species to commit with `--enhance mrv`: the blank cells with the fewest species (ties:
/// the cell whose highest proportion is the largest share of the cell's summed proportion,
/// compared exactly as `best·total' > best'·total` in f64; then the lowest cell), and in that
/// cell the species of highest proportion (ties: the lowest index).
pub fn pick_mrv(prob: &Problem, p: &[f32]) -> u32 {
    let mut best: Option<(usize, f64, f64, u32)> = None; // (count, top, total, species)
    for i in 0..prob.n_blank() {
        let sp = prob.covering(i);
        let top = favourite(sp, p);
        let total = sp.iter().fold(0f64, |t, &x| t + p[x as usize] as f64);
        let t = p[top as usize] as f64;
        let better = match best {
            None => true,
            Some((count, bt, btotal, _)) => {
                sp.len() < count || (sp.len() == count && t * btotal > bt * total)
            }
        };
        if better {
            best = Some((sp.len(), t, total, top));
        }
    }
    best.expect("a stalled read-off has blank cells").3
}

/// The problem to start from (with forced placements when enhanced) and the search state;
/// `Err` when the puzzle is unsolvable up front.
pub fn prepare(puzzle: &Grid, params: &RfssParams) -> Result<(Problem, Option<Search>), String> {
    match params.enhancement {
        Enhancement::Off => Problem::build(puzzle).map(|p| (p, None)),
        Enhancement::Propagate | Enhancement::Mrv | Enhancement::Logic | Enhancement::Lookahead => {
            let mut s = Search {
                root: puzzle.clone(),
                stack: Vec::new(),
                enhancement: params.enhancement,
                probed: None,
            };
            let prob = s.node()?;
            Ok((prob, Some(s)))
        }
    }
}

/// With `--enhance lookahead`, a node whose read-off is still invalid after this many times
/// `stall_generations` is decided on as if it had stalled. On a few small nodes RFSS's read-off
/// cycles among a handful of invalid grids and never stays the same for `stall_generations`;
/// those runs spent the rest of their budget there (on 600 puzzles of 25x25 at 40–50% fixed,
/// every unsolved run of the variant without this limit, and no node that stalled later
/// than 9.4 times the stall).
pub const NODE_PATIENCE: u32 = 20;

/// Generations after which a node with an invalid read-off counts as stalled (0: no such
/// limit, the other enhancements and plain RFSS).
pub fn node_cap(params: &RfssParams) -> u32 {
    if params.enhancement == Enhancement::Lookahead {
        params.stall_generations.saturating_mul(NODE_PATIENCE)
    } else {
        0
    }
}

/// The enhancement wants to act: it is on, and the invalid read-off has not changed for
/// `stall_generations` (or, with lookahead, the node has run [`node_cap`] generations); the GPU
/// kernel sets its stalled flag on the same condition.
pub fn stalled(st: &Readoff, params: &RfssParams) -> bool {
    let cap = node_cap(params);
    params.enhancement != Enhancement::Off
        && !st.done
        && st.conflicts > 0
        && (st.unchanged >= params.stall_generations || (cap != 0 && st.generation >= cap))
}
