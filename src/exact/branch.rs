//! Branching of the generic search: which cell (or digit's places) to branch on, and the
//! lookahead probes.

use super::search::{Look, Search};
use super::{Branching, Propagation};
use rand::RngExt;

impl Search<'_> {
    /// The branch options at `level`: (cell, digit index) pairs, or `None` when the grid is full.
    /// `out` receives the options; an empty list is a dead end.
    pub(super) fn choose(&mut self, level: usize, out: &mut Vec<(u16, u8)>) -> bool {
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
    pub(super) fn lookahead(&mut self, level: usize) -> Look {
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
}
