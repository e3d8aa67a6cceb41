//! Propagation of the generic search (naked and hidden singles, locked candidates,
//! all-different consistency), and whole-grid singles on plain candidate masks.

use super::search::Search;
use super::Propagation;
use crate::puzzle::{cell_name, symbol_for, Geometry, Grid};

/// A contradiction found by [`singles`], described by its `Display` text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contradiction {
    /// Cell `cell` of a grid of side `side` has no candidate left.
    NoCandidate { cell: usize, side: usize },
    /// Digit index `digit` (0-based) has no place left in unit `unit` (rows 0..side, then
    /// columns, then boxes).
    NoPlace {
        unit: usize,
        digit: usize,
        side: usize,
    },
}

impl std::fmt::Display for Contradiction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Contradiction::NoCandidate { cell, side } => {
                write!(f, "{} has no candidate left", cell_name(cell, side))
            }
            Contradiction::NoPlace { unit, digit, side } => {
                let kind = ["row", "column", "box"][unit / side];
                write!(
                    f,
                    "numeral {} has no place left in {kind} {}",
                    symbol_for(digit as u8 + 1),
                    unit % side + 1
                )
            }
        }
    }
}

/// `puzzle` with every naked and hidden single placed (see [`singles`]), or the contradiction
/// the singles reach.
pub fn place_singles(puzzle: &Grid) -> Result<Grid, Contradiction> {
    let mask = singles_candidates(puzzle)?;
    let mut out = puzzle.clone();
    for (c, &m) in mask.iter().enumerate() {
        if m.count_ones() == 1 {
            out.set(c, m.trailing_zeros() as u8 + 1);
        }
    }
    Ok(out)
}

/// Per cell, the digits naked and hidden singles leave possible (bit d for digit d + 1; see
/// [`singles`]), or the contradiction they reach.
pub fn singles_candidates(puzzle: &Grid) -> Result<Vec<u64>, Contradiction> {
    let geo = puzzle.geometry();
    let full = u64::MAX >> (64 - geo.n);
    let mut mask: Vec<u64> = puzzle
        .cells()
        .iter()
        .map(|&v| if v == 0 { full } else { 1u64 << (v - 1) })
        .collect();
    singles(geo, &mut mask)?;
    Ok(mask)
}

/// `puzzle` with every cell placed that the strong propagation fixes ([`Propagation::Strong`]:
/// naked and hidden singles, locked candidates and every naked or hidden subset, to a fixpoint,
/// no guessing), or `None` when that propagation finds the puzzle contradictory.
pub fn place_by_logic(puzzle: &Grid) -> Option<Grid> {
    let cand = logic_candidates(puzzle)?;
    let mut out = puzzle.clone();
    for (c, m) in cand.into_iter().enumerate() {
        if out.get(c) == 0 && m.count_ones() == 1 {
            out.set(c, m.trailing_zeros() as u8 + 1);
        }
    }
    Some(out)
}

/// Per cell, the digits the strong propagation leaves possible (bit d for digit d + 1; a clue's
/// mask is its digit), or `None` when that propagation finds the puzzle contradictory. Placing
/// every single bit is [`place_by_logic`].
pub fn logic_candidates(puzzle: &Grid) -> Option<Vec<u64>> {
    let g = Geometry::get(puzzle.box_size());
    let cfg = super::Config {
        propagation: Propagation::Strong,
        ..Default::default()
    };
    let mut search = Search::new(g, cfg, 1, 0, Default::default(), None);
    if !search.load(puzzle, None) {
        return None;
    }
    Some(search.cand[..g.cells].to_vec())
}

/// What one pass of failed-literal probes ([`probe`]) found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// Some numeral's probe failed and was removed (singles propagated after it).
    Removed,
    /// No probe failed: the two-candidate cell whose probes force the most placements (score
    /// 1024·f₁·f₂ + f₁ + f₂, ties to the lowest cell), if there is one.
    Best(Option<usize>),
}

/// One pass of failed-literal probes on candidate masks (bit d for digit d + 1, singles already
/// propagated): each numeral of every two-candidate cell is placed on a scratch copy and singles
/// propagated; a numeral whose probe fails is removed (and singles propagated at once), else the
/// cells are scored by the placements their two probes force. `Err` when the removals
/// contradict (a cell loses both numerals).
pub fn probe(geo: &Geometry, mask: &mut [u64]) -> Result<Probe, Contradiction> {
    let fixed = |m: &[u64]| m.iter().filter(|m| m.count_ones() == 1).count() as u64;
    let before = fixed(mask);
    let mut removed = false;
    let mut best: Option<(u64, usize)> = None;
    let mut scratch = mask.to_vec();
    for cell in 0..mask.len() {
        if mask[cell].count_ones() != 2 {
            continue;
        }
        let mut forced = [0u64; 2];
        let mut failed = false;
        let mut bits = mask[cell];
        for f in forced.iter_mut() {
            let bit = bits & bits.wrapping_neg();
            bits &= !bit;
            scratch.copy_from_slice(mask);
            scratch[cell] = bit;
            if singles(geo, &mut scratch).is_err() {
                mask[cell] &= !bit;
                failed = true;
            } else {
                // Masks only shrink, so the scratch copy has at least this cell more fixed.
                *f = fixed(&scratch).saturating_sub(before + 1);
            }
        }
        if failed {
            removed = true;
            // One failed: the other is placed, and its consequences change every later probe,
            // so propagate now (both failed: the cell is empty and this reports it).
            singles(geo, mask)?;
            continue;
        }
        if removed {
            continue; // scores are of the probes after the last removal only
        }
        let score = 1024 * forced[0] * forced[1] + forced[0] + forced[1];
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, cell));
        }
    }
    Ok(if removed {
        Probe::Removed
    } else {
        Probe::Best(best.map(|(_, c)| c))
    })
}

/// Naked and hidden singles on whole-grid candidate masks (bit d for digit d + 1, one mask per
/// cell, clues as single bits) until none is left: a cell with one candidate leaves it to no
/// peer, a digit with one place in a unit gets that place. Sweeps the cells, then every unit's
/// digits, in order, so the contradiction reported is always the same one.
pub fn singles(geo: &Geometry, mask: &mut [u64]) -> Result<(), Contradiction> {
    let n = geo.n;
    let no_candidate = |cell| Contradiction::NoCandidate { cell, side: n };
    let mut placed = vec![false; geo.cells];
    loop {
        let mut changed = false;
        for c in 0..geo.cells {
            let m = mask[c];
            if m == 0 {
                return Err(no_candidate(c));
            }
            if !placed[c] && m.count_ones() == 1 {
                placed[c] = true;
                changed = true;
                for &q in geo.peers_of(c) {
                    let q = q as usize;
                    if mask[q] & m != 0 {
                        mask[q] &= !m;
                        if mask[q] == 0 {
                            return Err(no_candidate(q));
                        }
                    }
                }
            }
        }
        for u in 0..3 * n {
            for d in 0..n {
                let bit = 1u64 << d;
                let mut count = 0;
                let mut at = 0;
                for &c in geo.unit(u) {
                    if mask[c as usize] & bit != 0 {
                        count += 1;
                        at = c as usize;
                    }
                }
                if count == 0 {
                    return Err(Contradiction::NoPlace {
                        unit: u,
                        digit: d,
                        side: n,
                    });
                }
                if count == 1 && mask[at] != bit {
                    mask[at] = bit;
                    changed = true;
                }
            }
        }
        if !changed {
            return Ok(());
        }
    }
}

impl Search<'_> {
    /// Propagates at `level` to a fixpoint of the configured deductions; false on a contradiction.
    pub(super) fn propagate(&mut self, level: usize) -> bool {
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
    /// (Not [`singles`]: the search's hot loop, incremental over a stack of levels with a queue
    /// and changed-unit marks, counting forced placements and conflict weights.)
    pub(super) fn propagate_singles(&mut self, level: usize) -> bool {
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
