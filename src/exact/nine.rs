//! The 9x9 fast path of the exact solver (full propagation, MRV or MRV-with-places branching,
//! no randomness): the same search as the generic code on a digit-major state. For every digit
//! and band (three rows) one 27-bit word holds the cells where the digit is still possible
//! (a placed cell keeps its own digit), plus one word per band of open cells: 120 bytes per
//! search level. Naked singles and empty cells are found for a whole band at once with
//! bit-sliced counts over the nine digit words; hidden singles are looked for only where a
//! digit's word changed since the last look (rows and boxes per band, columns per digit).
//!
//! Fixpoints of singles do not depend on the order singles are applied in, and the branching
//! choice mirrors the generic one (first cell with the fewest candidates; places by unit order,
//! lowest digit), so this path visits exactly the nodes the generic solver visits and finds the
//! same first solution; the tests compare both.

use super::search::Limits;
use super::{Branching, Stats};
use crate::puzzle::Geometry;

const ALL: u32 = (1 << 27) - 1;
const ROW: [u32; 3] = [0x1FF, 0x1FF << 9, 0x1FF << 18];
const BOX0: u32 = 0x7 | 0x7 << 9 | 0x7 << 18;
const BOXES: [u32; 3] = [BOX0, BOX0 << 3, BOX0 << 6];
const fn col_mask(col: usize) -> u32 {
    1 << col | 1 << (col + 9) | 1 << (col + 18)
}
/// For each bit i of a band: its column's three bits, and its row's and box's bits.
const COL_OF: [u32; 27] = {
    let mut t = [0u32; 27];
    let mut i = 0;
    while i < 27 {
        t[i] = col_mask(i % 9);
        i += 1;
    }
    t
};
const ROW_BOX_OF: [u32; 27] = {
    let mut t = [0u32; 27];
    let mut i = 0;
    while i < 27 {
        t[i] = ROW[i / 9] | BOXES[(i % 9) / 3];
        i += 1;
    }
    t
};

#[derive(Clone, Copy)]
struct State {
    /// f[band][d]: cells of the band where digit d + 1 is possible or placed.
    f: [[u32; 9]; 3],
    /// Open (blank) cells per band.
    open: [u32; 3],
}

/// The cells of a solved board given as `f[9 * band + d]`, the 27-bit word of the band's cells
/// holding digit d + 1 (the layout of both 9x9 searches, this one and [`super::locked`]).
pub(super) fn board_cells(f: &[u32]) -> Vec<u8> {
    let mut cells = vec![0u8; 81];
    for (j, &word) in f.iter().enumerate() {
        let (band, d) = (j / 9, j % 9);
        let mut m = word;
        while m != 0 {
            cells[27 * band + m.trailing_zeros() as usize] = d as u8 + 1;
            m &= m - 1;
        }
    }
    cells
}

pub(super) struct Nine {
    branching: Branching,
    limit: usize,
    keep: usize,
    limits: Limits,
    /// The digit words when hidden singles were last looked for: only digits whose words
    /// differ now are looked at again (rows and boxes per band, columns per digit).
    seen: [[u32; 9]; 3],
    pub found: usize,
    pub solutions: Vec<Vec<u8>>,
    pub aborted: bool,
    pub stats: Stats,
}

#[inline]
fn single(x: u32) -> bool {
    x & x.wrapping_sub(1) == 0
}

impl Nine {
    pub fn new(branching: Branching, limit: usize, keep: usize, limits: Limits) -> Nine {
        Nine {
            branching,
            limit,
            keep,
            limits,
            seen: [[0; 9]; 3],
            found: 0,
            solutions: Vec::new(),
            aborted: false,
            stats: Stats::default(),
        }
    }

    /// Searches `cells` (81 values, 0 = blank) with digit `exclude.1` forbidden in cell
    /// `exclude.0` (if that cell is blank).
    pub fn run(&mut self, cells: &[u8], exclude: Option<(usize, u8)>) {
        let mut st = State {
            f: [[ALL; 9]; 3],
            open: [ALL; 3],
        };
        if let Some((c, v)) = exclude {
            if v != 0 && cells[c] == 0 {
                st.f[c / 27][v as usize - 1] &= !(1 << (c % 27));
            }
        }
        for (c, &v) in cells.iter().enumerate() {
            if v != 0 {
                let d = v as usize - 1;
                if st.f[c / 27][d] >> (c % 27) & 1 == 0 {
                    return; // a repeated clue
                }
                self.place(&mut st, c / 27, c % 27, d);
            }
        }
        self.seen = [[0; 9]; 3];
        if self.propagate(&mut st) && self.limit > 0 {
            self.dfs(&st);
        }
    }

    /// Places digit `d` at bit `i` of band `bd`.
    #[inline(always)]
    fn place(&mut self, st: &mut State, bd: usize, i: usize, d: usize) {
        let bit = 1u32 << i;
        for w in st.f[bd].iter_mut() {
            *w &= !bit;
        }
        let cm = COL_OF[i];
        for fb in st.f.iter_mut() {
            fb[d] &= !cm;
        }
        st.f[bd][d] = st.f[bd][d] & !ROW_BOX_OF[i] | bit;
        st.open[bd] &= !bit;
    }

    /// Naked and hidden singles to a fixpoint; false on a contradiction.
    /// (Not [`super::singles`]: the 9x9 fast path on digit-major bit words, same nodes as the
    /// generic search.)
    fn propagate(&mut self, st: &mut State) -> bool {
        loop {
            // Naked singles and empty cells, a band at a time.
            let mut placed = false;
            for bd in 0..3 {
                let (mut once, mut twice) = (0u32, 0u32);
                for &w in &st.f[bd] {
                    twice |= once & w;
                    once |= w;
                }
                if st.open[bd] & !once != 0 {
                    return false;
                }
                let singles = once & !twice & st.open[bd];
                if singles != 0 {
                    placed = true;
                    for d in 0..9 {
                        let mut hits = singles & st.f[bd][d];
                        while hits != 0 {
                            let i = hits.trailing_zeros() as usize;
                            hits &= hits - 1;
                            // A placement just before may have taken the digit from this cell
                            // (the cell is then empty: the next pass reports it).
                            if st.f[bd][d] >> i & 1 == 1 {
                                self.place(st, bd, i, d);
                                self.stats.forced += 1;
                            }
                        }
                    }
                }
            }
            if placed {
                continue;
            }
            if st.f == self.seen {
                return true;
            }
            if self.hidden(st).is_none() {
                return false;
            }
        }
    }

    /// Places the hidden singles of the changed digits (rows and boxes per band, columns per
    /// digit); None on a unit without a place for its digit.
    fn hidden(&mut self, st: &mut State) -> Option<()> {
        let mut changed = [0u16; 3];
        for (bd, ch) in changed.iter_mut().enumerate() {
            if st.f[bd] != self.seen[bd] {
                for d in 0..9 {
                    *ch |= ((st.f[bd][d] != self.seen[bd][d]) as u16) << d;
                }
            }
        }
        self.seen = st.f;
        for (bd, &ch) in changed.iter().enumerate() {
            let mut digits = ch;
            while digits != 0 {
                let d = digits.trailing_zeros() as usize;
                digits &= digits - 1;
                for mask in ROW.iter().chain(&BOXES) {
                    let x = st.f[bd][d] & mask;
                    if x == 0 {
                        return None;
                    }
                    if single(x) && x & st.open[bd] != 0 {
                        self.place(st, bd, x.trailing_zeros() as usize, d);
                        self.stats.forced += 1;
                    }
                }
            }
        }
        let mut digits = changed[0] | changed[1] | changed[2];
        while digits != 0 {
            let d = digits.trailing_zeros() as usize;
            digits &= digits - 1;
            // Fold each band's three rows; a column is single when exactly one row of one
            // band has the digit there.
            let fold = |w: u32| (w | w >> 9 | w >> 18) & 0x1FF;
            let multi = |w: u32| (w & w >> 9 | w & w >> 18 | (w >> 9) & (w >> 18)) & 0x1FF;
            let f = [st.f[0][d], st.f[1][d], st.f[2][d]];
            let (a0, a1, a2) = (fold(f[0]), fold(f[1]), fold(f[2]));
            let any = a0 | a1 | a2;
            if any != 0x1FF {
                return None;
            }
            let many = multi(f[0]) | multi(f[1]) | multi(f[2]) | a0 & a1 | a0 & a2 | a1 & a2;
            let mut cols = any & !many;
            while cols != 0 {
                let col = cols.trailing_zeros() as usize;
                cols &= cols - 1;
                let bd = if a0 >> col & 1 == 1 {
                    0
                } else if a1 >> col & 1 == 1 {
                    1
                } else {
                    2
                };
                let x = st.f[bd][d] & col_mask(col);
                if x == 0 {
                    return None; // taken by a placement of this pass
                }
                if x & st.open[bd] != 0 && single(x) {
                    self.place(st, bd, x.trailing_zeros() as usize, d);
                    self.stats.forced += 1;
                }
            }
        }
        Some(())
    }

    /// Exact candidate counts k (0..=9) as bitsets per band: count[k][band].
    fn counts(st: &State) -> [[u32; 3]; 10] {
        let mut out = [[0u32; 3]; 10];
        for bd in 0..3 {
            let (mut b0, mut b1, mut b2, mut b3) = (0u32, 0u32, 0u32, 0u32);
            for &w in &st.f[bd] {
                let x = w & st.open[bd];
                let c0 = b0 & x;
                b0 ^= x;
                let c1 = b1 & c0;
                b1 ^= c0;
                let c2 = b2 & c1;
                b2 ^= c1;
                b3 |= c2;
            }
            let open = st.open[bd];
            for (k, row) in out.iter_mut().enumerate() {
                let sel = |w: u32, on: bool| if on { w } else { !w };
                row[bd] = if k < 8 {
                    sel(b0, k & 1 == 1) & sel(b1, k & 2 == 2) & sel(b2, k & 4 == 4) & !b3 & open
                } else {
                    b3 & sel(b0, k == 9) & open
                };
            }
        }
        out
    }

    /// Branch options as in the generic `choose`; None when the grid is full.
    fn choose(&self, st: &State, out: &mut [(u8, u8); 9]) -> Option<usize> {
        if st.open == [0; 3] {
            return None;
        }
        let counts = Nine::counts(st);
        let (k, cell) = counts
            .iter()
            .enumerate()
            .find_map(|(k, bands)| {
                bands
                    .iter()
                    .position(|&w| w != 0)
                    .map(|bd| (k, bd * 27 + bands[bd].trailing_zeros() as usize))
            })
            .expect("an open cell");
        if self.branching == Branching::MrvPlaces && k > 2 {
            if let Some((u, d)) = Nine::fewest_places(st, k) {
                let mut n = 0;
                for &c in Geometry::get(3).unit(u) {
                    let c = c as usize;
                    let (bd, i) = (c / 27, c % 27);
                    if st.open[bd] >> i & 1 == 1 && st.f[bd][d] >> i & 1 == 1 {
                        out[n] = (c as u8, d as u8);
                        n += 1;
                    }
                }
                return Some(n);
            }
        }
        let (bd, i) = (cell / 27, cell % 27);
        let mut n = 0;
        for (d, &w) in st.f[bd].iter().enumerate() {
            if w >> i & 1 == 1 {
                out[n] = (cell as u8, d as u8);
                n += 1;
            }
        }
        Some(n)
    }

    /// Mirrors the generic search: the first unit (rows, columns, boxes) with a digit of two
    /// open places (its lowest such digit), else the first with three if `than` > 3.
    fn fewest_places(st: &State, than: usize) -> Option<(usize, usize)> {
        let g = Geometry::get(3);
        let mut three = None;
        for u in 0..27 {
            let mut mask = [0u32; 3];
            for &c in g.unit(u) {
                mask[c as usize / 27] |= 1 << (c % 27);
            }
            let mut first_three = None;
            for d in 0..9 {
                let k: u32 = (0..3)
                    .map(|bd| (st.f[bd][d] & st.open[bd] & mask[bd]).count_ones())
                    .sum();
                if k == 2 {
                    return Some((u, d));
                }
                if k == 3 && first_three.is_none() {
                    first_three = Some(d);
                }
            }
            if three.is_none() && than > 3 {
                three = first_three.map(|d| (u, d));
            }
        }
        three
    }

    fn dfs(&mut self, st: &State) {
        self.stats.nodes += 1;
        if self.limits.stop(self.stats.nodes) {
            self.aborted = true;
            return;
        }
        let mut options = [(0u8, 0u8); 9];
        let Some(k) = self.choose(st, &mut options) else {
            self.found += 1;
            if self.solutions.len() < self.keep {
                self.solutions.push(board_cells(st.f.as_flattened()));
            }
            return;
        };
        if k == 0 {
            self.stats.dead_ends += 1;
            return;
        }
        for &(c, d) in &options[..k] {
            if k > 1 {
                self.stats.guesses += 1;
            }
            let mut next = *st;
            let (c, d) = (c as usize, d as usize);
            let (bd, i) = (c / 27, c % 27);
            self.seen = st.f;
            let ok = next.f[bd][d] >> i & 1 == 1 && {
                self.place(&mut next, bd, i, d);
                self.propagate(&mut next)
            };
            if ok {
                self.dfs(&next);
                if self.found >= self.limit || self.aborted {
                    return;
                }
            } else {
                self.stats.dead_ends += 1;
                self.stats.nodes += 1;
            }
        }
    }
}
