//! The 9x9 search with locked candidates ([`Propagation::Locked`](super::Propagation::Locked)),
//! MRV or MRV-with-places branching, no randomness: the default exact solver on 9x9.
//!
//! State: for every band (three rows) and digit one 27-bit word of the cells where the digit is
//! still possible (a placed cell keeps only its own digit), plus one word of open cells per
//! band: 120 bytes per search level. Rules:
//!
//! * Band rule (per word, after JCZSolve's band update): in a band, a digit takes exactly one
//!   cell in each row and in each box, so the nonempty row-box intersections ("triads", a 3x3
//!   matrix per band) must contain a permutation; a triad in no permutation is emptied (this
//!   is pointing and claiming between rows and boxes, to their fixpoint) and a band with no
//!   permutation is a contradiction. Rows left with one open place get the digit (a box with
//!   one place leaves its row with one place after the rule).
//! * Stack rule (per digit): the same for columns and boxes on the column-box intersections of
//!   a stack; columns left with one open place get the digit.
//! * Naked singles: an open cell with one candidate left gets it (bit-sliced counts over the
//!   nine digit words of a band); an empty cell is a contradiction.
//!
//! Propagation applies the band rule to every word that changed since it last looked (found
//! by comparing all words with a copy), then naked singles in the bands that changed, until
//! nothing changes; then the stack rule to the digits that changed since it last ran, and
//! again from the start if it changed anything. The hot band update has no data-dependent
//! branch (row singles by table, placement always applied), which matters as much as the
//! instruction count.
//!
//! The fixpoint is the one of the generic solver's [`Propagation::Locked`] (naked and hidden
//! singles, pointing and claiming for rows and columns: for a 3x3 triad matrix, pointing and
//! claiming to a fixpoint leave exactly the triads of some permutation, which a test checks on
//! all 512 matrices), and branching mirrors the generic choice (first cell with the fewest
//! candidates, cells in row-major order; places by unit order, lowest digit), so this path
//! visits exactly the nodes of the generic search with the same settings (tested).
//!
//! [`Propagation::Locked`]: super::Propagation::Locked

use super::search::Limits;
use super::{Branching, Stats};

/// For bit i of a band: the bits of its column in the band.
const COL_OF: [u32; 27] = {
    let mut t = [0u32; 27];
    let mut i = 0;
    while i < 27 {
        t[i] = 0x40201 << (i % 9);
        i += 1;
    }
    t
};

/// For bit i of a band: the bits of its row and of its box.
const ROW_BOX_OF: [u32; 27] = {
    let mut t = [0u32; 27];
    let mut i = 0;
    while i < 27 {
        t[i] = 0x1FF << (9 * (i / 9)) | 0x1C0E07 << (3 * ((i % 9) / 3));
        i += 1;
    }
    t
};

/// For the 9 cells of a row: which of its three triads (boxes) are nonempty.
const TRIADS_OF_ROW: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut x = 0;
    while x < 512 {
        t[x] = (x & 7 != 0) as u8 | ((x & 0o70 != 0) as u8) << 1 | ((x & 0o700 != 0) as u8) << 2;
        x += 1;
    }
    t
};

/// The six permutations of a 3x3 matrix as 9-bit masks (bit 3 * row + column).
const PERMS: [u16; 6] = [
    0b100_010_001,
    0b010_100_001,
    0b100_001_010,
    0b001_100_010,
    0b010_001_100,
    0b001_010_100,
];

/// For a 3x3 0/1 matrix (bit 3 * row + column): the union of the permutations it contains
/// (0: none, a contradiction).
pub(super) const ALLOWED: [u16; 512] = {
    let mut t = [0u16; 512];
    let mut m = 0;
    while m < 512 {
        let mut p = 0;
        while p < 6 {
            if m as u16 & PERMS[p] == PERMS[p] {
                t[m] |= PERMS[p];
            }
            p += 1;
        }
        m += 1;
    }
    t
};

/// A 9-bit triad mask of a band (bit 3 * row + box) as the band's cells.
const TRIAD_CELLS: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut m = 0;
    while m < 512 {
        let mut k = 0;
        while k < 9 {
            if m >> k & 1 == 1 {
                t[m] |= 7 << (3 * k);
            }
            k += 1;
        }
        m += 1;
    }
    t
};

/// A row's 9 cells if at most one is set, else 0.
const LONE: [u16; 512] = {
    let mut t = [0u16; 512];
    let mut x: usize = 0;
    while x < 512 {
        if x & x.wrapping_sub(1) == 0 {
            t[x] = x as u16;
        }
        x += 1;
    }
    t
};

/// Triad occupancy of a band word: bit 3 * row + box.
#[inline(always)]
fn triads(w: u32) -> usize {
    (TRIADS_OF_ROW[(w & 0x1FF) as usize] as usize
        | (TRIADS_OF_ROW[(w >> 9 & 0x1FF) as usize] as usize) << 3
        | (TRIADS_OF_ROW[(w >> 18 & 0x1FF) as usize] as usize) << 6)
        & 0x1FF
}

/// The columns (9 bits) where a band word has a cell.
#[inline(always)]
fn columns(w: u32) -> u32 {
    (w | w >> 9 | w >> 18) & 0x1FF
}

#[derive(Clone, Copy)]
struct State {
    /// f[9 * band + d]: cells of the band where digit d + 1 is possible or placed.
    f: [u32; 27],
    /// Open (blank) cells per band.
    open: [u32; 3],
}

/// The words that differ between `a` and `b`, as a bitset.
#[inline(always)]
fn differ(a: &[u32; 27], b: &[u32; 27]) -> u32 {
    let mut m = 0;
    for j in 0..27 {
        m |= ((a[j] != b[j]) as u32) << j;
    }
    m
}

pub(super) struct Locked9 {
    branching: Branching,
    limit: usize,
    keep: usize,
    limits: Limits,
    pub found: usize,
    pub solutions: Vec<Vec<u8>>,
    pub aborted: bool,
    pub stats: Stats,
}

impl Locked9 {
    pub fn new(branching: Branching, limit: usize, keep: usize, limits: Limits) -> Locked9 {
        Locked9 {
            branching,
            limit,
            keep,
            limits,
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
            f: [(1 << 27) - 1; 27],
            open: [(1 << 27) - 1; 3],
        };
        if let Some((c, v)) = exclude {
            if v != 0 && cells[c] == 0 {
                st.f[9 * (c / 27) + v as usize - 1] &= !(1 << (c % 27));
            }
        }
        for (c, &v) in cells.iter().enumerate() {
            if v != 0 {
                let (d, b, i) = (v as usize - 1, c / 27, c % 27);
                if st.f[9 * b + d] >> i & 1 == 0 {
                    return; // a repeated clue
                }
                place(&mut st, d, b, i);
            }
        }
        if self.propagate(&mut st, &mut [0; 27]) && self.limit > 0 {
            self.dfs(&st);
        }
    }

    /// The band rule for word `j` (band j / 9, digit j % 9), then the rows left with one open
    /// place get it; false on a contradiction.
    #[inline(always)]
    fn band(&mut self, st: &mut State, j: usize) -> bool {
        assert!(j < 27);
        let a = ALLOWED[triads(st.f[j])];
        if a == 0 {
            return false;
        }
        let w = st.f[j] & TRIAD_CELLS[a as usize & 0x1FF];
        st.f[j] = w;
        let b = j / 9;
        // (A table, not a branch: which rows are single is unpredictable.)
        let row_single = |r: u32| (LONE[(w >> (9 * r) & 0x1FF) as usize] as u32) << (9 * r);
        let hit = (row_single(0) | row_single(1) | row_single(2)) & st.open[b];
        // Place them all at once: they lie in different rows and (the band rule) boxes, so
        // in different columns, and the digit's word already lacks their row and box peers.
        // The cells leave the other digits, their columns leave the other bands. (Done
        // without a test: with no such row it changes nothing, and a test mispredicts.)
        for x in &mut st.f[9 * b..9 * b + 9] {
            *x &= !hit;
        }
        let cols = !(columns(hit) * 0x40201);
        let d = j % 9;
        st.f[d] &= cols;
        st.f[9 + d] &= cols;
        st.f[18 + d] &= cols;
        st.f[j] = w;
        st.open[b] &= !hit;
        true
    }

    /// The stack rule for digit `d`, then the columns left with one open place get it; None
    /// on a contradiction, else whether anything changed.
    #[inline]
    fn stack(&mut self, st: &mut State, d: usize) -> Option<bool> {
        assert!(d < 9);
        let w = [st.f[d], st.f[9 + d], st.f[18 + d]];
        let v = [columns(w[0]), columns(w[1]), columns(w[2])];
        let mut m = [0u32; 3];
        let mut a = [0u32; 3];
        for s in 0..3 {
            m[s] = (v[0] >> (3 * s) & 7) | (v[1] >> (3 * s) & 7) << 3 | (v[2] >> (3 * s) & 7) << 6;
            a[s] = ALLOWED[m[s] as usize] as u32;
        }
        if a[0] == 0 || a[1] == 0 || a[2] == 0 {
            return None;
        }
        let mut x = w;
        if (a[0] ^ m[0]) | (a[1] ^ m[1]) | (a[2] ^ m[2]) != 0 {
            // (One call in ten on hard puzzles.)
            for b in 0..3 {
                let keep =
                    (a[0] >> (3 * b) & 7) | (a[1] >> (3 * b) & 7) << 3 | (a[2] >> (3 * b) & 7) << 6;
                x[b] = w[b] & (keep * 0x40201);
                st.f[9 * b + d] = x[b];
            }
        }
        // Columns with one place: exactly one row of one band has the digit there.
        let multi = |x: u32| (x & x >> 9 | x & x >> 18 | x >> 9 & x >> 18) & 0x1FF;
        let (a0, a1, a2) = (columns(x[0]), columns(x[1]), columns(x[2]));
        let many = multi(x[0]) | multi(x[1]) | multi(x[2]) | a0 & a1 | a0 & a2 | a1 & a2;
        let one = (!many & 0x1FF) * 0x40201;
        let mut moved = (x[0] ^ w[0]) | (x[1] ^ w[1]) | (x[2] ^ w[2]) != 0;
        for (b, &xb) in x.iter().enumerate() {
            let mut hit = xb & one & st.open[b];
            while hit != 0 {
                let i = hit.trailing_zeros() as usize;
                hit &= hit - 1;
                // Two such places never share a box (the stack rule), but they may share a
                // row: the first then takes the second's column's only place.
                if st.f[9 * b + d] >> i & 1 == 0 {
                    return None;
                }
                place(st, d, b, i);
                moved = true;
            }
        }
        Some(moved)
    }

    /// All rules to their fixpoint; `seen` holds the words as the band rule last saw them
    /// (all zero at the root). False on a contradiction. Band rules and naked singles run
    /// first; the stack rule (for the digits changed since it last ran) only when they have
    /// nothing left to do.
    fn propagate(&mut self, st: &mut State, seen: &mut [u32; 27]) -> bool {
        let open = st.open;
        let ok = self.fixpoint(st, seen);
        // Digits placed by propagation (whatever the outcome, as the generic search counts).
        let placed: u32 = (0..3).map(|b| (open[b] & !st.open[b]).count_ones()).sum();
        self.stats.forced += placed as u64;
        ok
    }

    /// (Not [`super::singles`]: the 9x9 fast path on digit-major bit words, singles woven into
    /// the band and stack rules, same nodes as the generic search.)
    fn fixpoint(&mut self, st: &mut State, seen: &mut [u32; 27]) -> bool {
        let (mut digits, mut bands) = (0u32, 0u32);
        loop {
            let mut changed = differ(&st.f, seen);
            while changed != 0 {
                let open = st.open;
                while changed != 0 {
                    let j = changed.trailing_zeros() as usize;
                    changed &= changed - 1;
                    if !self.band(st, j) {
                        return false;
                    }
                    seen[j] = st.f[j];
                    digits |= 1 << (j % 9);
                    bands |= 1 << (j / 9);
                }
                // The band rule changes only its own word: without placements, nothing new.
                if (st.open[0] ^ open[0]) | (st.open[1] ^ open[1]) | (st.open[2] ^ open[2]) != 0 {
                    changed = differ(&st.f, seen);
                }
            }
            // Naked singles and empty cells, a band at a time (where words changed).
            let mut placed = false;
            for b in 0..3 {
                let open = st.open[b];
                if open == 0 || bands >> b & 1 == 0 {
                    continue;
                }
                let (mut once, mut twice) = (0u32, 0u32);
                for d in 0..9 {
                    let w = st.f[9 * b + d];
                    twice |= once & w;
                    once |= w;
                }
                if open & !once != 0 {
                    return false;
                }
                let singles = open & !twice;
                if singles != 0 {
                    placed = true;
                    for d in 0..9 {
                        let mut hits = singles & st.f[9 * b + d];
                        while hits != 0 {
                            let i = hits.trailing_zeros() as usize;
                            hits &= hits - 1;
                            if st.f[9 * b + d] >> i & 1 == 0 {
                                return false; // its only digit went to a peer just before
                            }
                            // (The other digits already lack the cell.)
                            place_single(st, d, b, i);
                        }
                    }
                }
            }
            bands = 0;
            if placed {
                continue;
            }
            let mut moved = false;
            while digits != 0 {
                let d = digits.trailing_zeros() as usize;
                digits &= digits - 1;
                match self.stack(st, d) {
                    None => return false,
                    Some(m) => moved |= m,
                }
            }
            if !moved {
                return true;
            }
        }
    }

    /// Exact candidate counts k (0..=9) of the open cells as bitsets per band: count[k][band].
    fn counts(st: &State) -> [[u32; 3]; 10] {
        let mut out = [[0u32; 3]; 10];
        for b in 0..3 {
            let open = st.open[b];
            let (mut b0, mut b1, mut b2, mut b3) = (0u32, 0u32, 0u32, 0u32);
            for d in 0..9 {
                let x = st.f[9 * b + d] & open;
                let c0 = b0 & x;
                b0 ^= x;
                let c1 = b1 & c0;
                b1 ^= c0;
                let c2 = b2 & c1;
                b2 ^= c1;
                b3 |= c2;
            }
            for (k, row) in out.iter_mut().enumerate() {
                let sel = |w: u32, on: bool| if on { w } else { !w };
                row[b] = if k < 8 {
                    sel(b0, k & 1 == 1) & sel(b1, k & 2 == 2) & sel(b2, k & 4 == 4) & !b3 & open
                } else {
                    b3 & sel(b0, k == 9) & open
                };
            }
        }
        out
    }

    /// The first open cell with exactly two candidates (the MRV choice at a fixpoint, where
    /// no open cell has fewer), if any.
    fn first_pair(st: &State) -> Option<(usize, usize)> {
        for b in 0..3 {
            let open = st.open[b];
            if open == 0 {
                continue;
            }
            let (mut once, mut twice, mut thrice) = (0u32, 0u32, 0u32);
            for d in 0..9 {
                let w = st.f[9 * b + d];
                thrice |= twice & w;
                twice |= once & w;
                once |= w;
            }
            let pairs = open & twice & !thrice;
            if pairs != 0 {
                return Some((b, pairs.trailing_zeros() as usize));
            }
        }
        None
    }

    /// Branch options as in the generic `choose` (cell, digit index); None when the grid is
    /// full.
    fn choose(&self, st: &State, out: &mut [(u8, u8); 10]) -> Option<usize> {
        if st.open[0] | st.open[1] | st.open[2] == 0 {
            return None;
        }
        let (b, i) = match Locked9::first_pair(st) {
            Some(cell) => cell,
            None => {
                let counts = Locked9::counts(st);
                let (k, b, i) = counts
                    .iter()
                    .enumerate()
                    .find_map(|(k, bands)| {
                        let b = bands.iter().position(|&w| w != 0)?;
                        Some((k, b, bands[b].trailing_zeros() as usize))
                    })
                    .expect("an open cell");
                if self.branching == Branching::MrvPlaces && k > 2 {
                    if let Some(n) = Locked9::fewest_places(st, k, out) {
                        return Some(n);
                    }
                }
                (b, i)
            }
        };
        // The cell's digits in order, written without a test per digit (out has a spare slot).
        let mut n = 0;
        for d in 0..9 {
            out[n] = ((27 * b + i) as u8, d as u8);
            n += (st.f[9 * b + d] >> i & 1) as usize;
        }
        Some(n)
    }

    /// Mirrors the generic search: the first unit (rows, columns, boxes) with a digit of two
    /// open places (its lowest such digit), else the first with three if `than` > 3; the
    /// options are its places in unit order.
    fn fewest_places(st: &State, than: usize, out: &mut [(u8, u8); 10]) -> Option<usize> {
        let g = crate::puzzle::Geometry::get(3);
        let places = |u: usize, d: usize| {
            g.unit(u)
                .iter()
                .filter(|&&c| {
                    let (b, i) = (c as usize / 27, c as usize % 27);
                    (st.f[9 * b + d] & st.open[b]) >> i & 1 == 1
                })
                .count()
        };
        let mut best = None;
        'units: for u in 0..27 {
            let mut three = None;
            for d in 0..9 {
                match places(u, d) {
                    2 => {
                        best = Some((u, d));
                        break 'units;
                    }
                    3 if three.is_none() => three = Some(d),
                    _ => {}
                }
            }
            if best.is_none() && than > 3 {
                best = three.map(|d| (u, d));
            }
        }
        let (u, d) = best?;
        let mut n = 0;
        for &c in g.unit(u) {
            let (b, i) = (c as usize / 27, c as usize % 27);
            if (st.f[9 * b + d] & st.open[b]) >> i & 1 == 1 {
                out[n] = (c as u8, d as u8);
                n += 1;
            }
        }
        Some(n)
    }

    fn dfs(&mut self, st: &State) {
        self.stats.nodes += 1;
        if self.limits.stop(self.stats.nodes) {
            self.aborted = true;
            return;
        }
        let mut options = [(0u8, 0u8); 10];
        let Some(k) = self.choose(st, &mut options) else {
            self.found += 1;
            if self.solutions.len() < self.keep {
                self.solutions.push(super::nine::board_cells(&st.f));
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
            let (d, b, i) = (d as usize, c as usize / 27, c as usize % 27);
            let mut seen = st.f;
            let ok = next.f[9 * b + d] >> i & 1 == 1 && {
                place(&mut next, d, b, i);
                self.propagate(&mut next, &mut seen)
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

/// Places digit `d` at bit `i` of band `b`, a cell no other digit allows: the digit leaves the
/// cell's row, box and column.
#[inline(always)]
fn place_single(st: &mut State, d: usize, b: usize, i: usize) {
    assert!(d < 9 && b < 3 && i < 27);
    let bit = 1u32 << i;
    let own = st.f[9 * b + d] & !ROW_BOX_OF[i] | bit;
    let col = !COL_OF[i];
    st.f[d] &= col;
    st.f[9 + d] &= col;
    st.f[18 + d] &= col;
    st.f[9 * b + d] = own;
    st.open[b] &= !bit;
}

/// Places digit `d` at bit `i` of band `b`: the cell leaves the other digits, the digit leaves
/// the cell's row, box and column.
#[inline(always)]
fn place(st: &mut State, d: usize, b: usize, i: usize) {
    // Bounds the compiler can use to drop the index checks below.
    assert!(d < 9 && b < 3 && i < 27);
    let bit = 1u32 << i;
    for w in &mut st.f[9 * b..9 * b + 9] {
        *w &= !bit;
    }
    place_single(st, d, b, i);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two columns whose only place for a digit lies in the same row: the stack rule keeps
    /// both, placing one takes the other's place, and that is a contradiction (not a second
    /// placement in the same row).
    #[test]
    fn column_singles_in_one_row_are_a_contradiction() {
        let all = (1u32 << 27) - 1;
        let cols = |cs: &[u32]| cs.iter().fold(0, |m, &c| m | COL_OF[c as usize]);
        let mut st = State {
            f: [all; 27],
            open: [all; 3],
        };
        // Digit 1 in band 0: row 0 at columns 0 and 3, row 1 at column 1, row 2 at columns
        // 4 and 6; nowhere in columns 0 and 3 of the other bands.
        st.f[0] = 1 << 0 | 1 << 3 | 1 << 10 | 1 << 22 | 1 << 24;
        st.f[9] = all & !cols(&[0, 3]);
        st.f[18] = all & !cols(&[0, 3]);
        let mut s = Locked9::new(Branching::Mrv, 1, 1, Limits::default());
        assert_eq!(s.stack(&mut st, 0), None);
    }
}
