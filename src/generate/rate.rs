//! A rater that solves like a person: at every step it uses the easiest technique that makes
//! progress, from hidden singles up to swordfish, and guesses (bifurcation) only when none does.
//!
//! Techniques, in the order they are tried, with their cost per use:
//!
//! | technique | cost | tier |
//! |---|---|---|
//! | hidden single (a digit has one place left in a row, column or box) | 1 | easy |
//! | naked single (a cell has one candidate left) | 2 | easy |
//! | pointing (a box's candidates for a digit lie in one line: off the rest of the line) | 5 | medium |
//! | claiming (a line's candidates for a digit lie in one box: off the rest of the box) | 5 | medium |
//! | naked pair | 10 | medium |
//! | hidden pair | 15 | medium |
//! | naked triple | 20 | hard |
//! | hidden triple | 25 | hard |
//! | X-wing | 30 | hard |
//! | XY-wing | 35 | hard |
//! | swordfish | 40 | hard |
//! | guess | 100 | evil |
//!
//! One *use* is one sweep of singles (every hidden single placed by one pass over the units
//! counts one use per digit placed; naked singles likewise) or one elimination step of any
//! other technique. After any use the rater starts again from the easiest technique. A guess
//! places the puzzle's (unique) solution digit in a blank cell with the fewest candidates — the
//! branch a person would have to try — and the rating goes on from there.
//!
//! **Score** = Σ cost × uses. **Tier** = the tier of the hardest technique used: easy (singles
//! only), medium (up to pairs and locked candidates), hard (up to triples, X-wing, XY-wing,
//! swordfish), evil (at least one guess). Only puzzles with exactly one solution are rated.

use super::Tier;
use crate::puzzle::{Geometry, Grid};

/// The rater's techniques, easiest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Technique {
    HiddenSingle,
    NakedSingle,
    Pointing,
    Claiming,
    NakedPair,
    HiddenPair,
    NakedTriple,
    HiddenTriple,
    XWing,
    XYWing,
    Swordfish,
    Guess,
}

impl Technique {
    pub const ALL: [Technique; 12] = [
        Technique::HiddenSingle,
        Technique::NakedSingle,
        Technique::Pointing,
        Technique::Claiming,
        Technique::NakedPair,
        Technique::HiddenPair,
        Technique::NakedTriple,
        Technique::HiddenTriple,
        Technique::XWing,
        Technique::XYWing,
        Technique::Swordfish,
        Technique::Guess,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Technique::HiddenSingle => "hidden-single",
            Technique::NakedSingle => "naked-single",
            Technique::Pointing => "pointing",
            Technique::Claiming => "claiming",
            Technique::NakedPair => "naked-pair",
            Technique::HiddenPair => "hidden-pair",
            Technique::NakedTriple => "naked-triple",
            Technique::HiddenTriple => "hidden-triple",
            Technique::XWing => "x-wing",
            Technique::XYWing => "xy-wing",
            Technique::Swordfish => "swordfish",
            Technique::Guess => "guess",
        }
    }

    /// Points per use.
    pub fn cost(self) -> u64 {
        match self {
            Technique::HiddenSingle => 1,
            Technique::NakedSingle => 2,
            Technique::Pointing | Technique::Claiming => 5,
            Technique::NakedPair => 10,
            Technique::HiddenPair => 15,
            Technique::NakedTriple => 20,
            Technique::HiddenTriple => 25,
            Technique::XWing => 30,
            Technique::XYWing => 35,
            Technique::Swordfish => 40,
            Technique::Guess => 100,
        }
    }

    pub fn tier(self) -> Tier {
        match self {
            Technique::HiddenSingle | Technique::NakedSingle => Tier::Easy,
            Technique::Pointing
            | Technique::Claiming
            | Technique::NakedPair
            | Technique::HiddenPair => Tier::Medium,
            Technique::NakedTriple
            | Technique::HiddenTriple
            | Technique::XWing
            | Technique::XYWing
            | Technique::Swordfish => Tier::Hard,
            Technique::Guess => Tier::Evil,
        }
    }
}

/// The rating of a puzzle with a unique solution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rating {
    /// Σ cost × uses.
    pub score: u64,
    /// Tier of the hardest technique used.
    pub tier: Tier,
    /// The hardest technique used (`None` for a puzzle with no blank).
    pub hardest: Option<Technique>,
    /// Uses per technique, indexed like [`Technique::ALL`].
    pub uses: [u32; 12],
}

impl Rating {
    pub fn uses_of(&self, t: Technique) -> u32 {
        self.uses[t as usize]
    }
    pub fn guesses(&self) -> u32 {
        self.uses_of(Technique::Guess)
    }
}

/// Rates `puzzle`; `None` unless it has exactly one solution.
pub fn rate(puzzle: &Grid) -> Option<Rating> {
    match crate::exact::classify(puzzle) {
        crate::exact::Solutions::Unique(s) => Some(rate_with_solution(puzzle, &s)),
        _ => None,
    }
}

/// Rates `puzzle`, whose unique solution is `solution` (the caller vouches for uniqueness).
pub fn rate_with_solution(puzzle: &Grid, solution: &Grid) -> Rating {
    rate_capped(puzzle, solution, Tier::Evil).expect("an evil cap never stops the rater")
}

/// Rates `puzzle` (unique, with this `solution`) but gives up with `None` as soon as it would
/// need a technique above `cap`; cheaper than a full rating when only "tier ≤ cap?" matters.
pub fn rate_capped(puzzle: &Grid, solution: &Grid, cap: Tier) -> Option<Rating> {
    rate_capped_until(puzzle, solution, cap, &|| false).expect("never stopped")
}

/// The rating was stopped before it ended (see [`rate_capped_until`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped;

/// [`rate_capped`], asking `stop` before each step (a step places at least one digit; on a
/// 64x64 grid one takes up to tens of milliseconds) and ending with [`Stopped`] when it says so.
pub fn rate_capped_until(
    puzzle: &Grid,
    solution: &Grid,
    cap: Tier,
    stop: &dyn Fn() -> bool,
) -> Result<Option<Rating>, Stopped> {
    let mut board = Board::new(puzzle, solution);
    let mut uses = [0u32; 12];
    let mut hardest: Option<Technique> = None;
    while board.unplaced > 0 {
        if stop() {
            return Err(Stopped);
        }
        let mut used = None;
        for t in Technique::ALL {
            if t.tier() > cap {
                return Ok(None);
            }
            let k = board.apply(t);
            if k > 0 {
                uses[t as usize] += k;
                used = Some(t);
                break;
            }
        }
        let t = used.expect("a guess always makes progress");
        hardest = hardest.max(Some(t));
    }
    let score = Technique::ALL
        .iter()
        .map(|&t| t.cost() * uses[t as usize] as u64)
        .sum();
    Ok(Some(Rating {
        score,
        tier: hardest.map(Technique::tier).unwrap_or(Tier::Easy),
        hardest,
        uses,
    }))
}

/// Candidates of a partly solved grid.
struct Board<'a> {
    g: &'static Geometry,
    n: usize,
    solution: &'a Grid,
    cand: Vec<u64>,
    value: Vec<u8>,
    unplaced: usize,
}

impl<'a> Board<'a> {
    fn new(puzzle: &Grid, solution: &'a Grid) -> Board<'a> {
        let g = puzzle.geometry();
        let full = if g.n == 64 {
            u64::MAX
        } else {
            (1u64 << g.n) - 1
        };
        let mut board = Board {
            g,
            n: g.n,
            solution,
            cand: vec![full; g.cells],
            value: vec![0; g.cells],
            unplaced: g.cells,
        };
        for (c, &v) in puzzle.cells().iter().enumerate() {
            if v != 0 {
                board.place(c, v as usize - 1);
            }
        }
        board
    }

    fn unit(&self, u: usize) -> &'static [u16] {
        &self.g.units[u * self.n..(u + 1) * self.n]
    }

    fn place(&mut self, c: usize, d: usize) {
        debug_assert_eq!(
            self.solution.get(c) as usize,
            d + 1,
            "rater placed a wrong digit"
        );
        debug_assert_eq!(self.value[c], 0);
        let bit = 1u64 << d;
        self.value[c] = d as u8 + 1;
        self.cand[c] = bit;
        self.unplaced -= 1;
        for &p in self.g.peers_of(c) {
            if self.value[p as usize] == 0 {
                self.cand[p as usize] &= !bit;
            }
        }
    }

    /// Removes the digits `mask` from blank cell `c`; true if anything was removed.
    fn eliminate(&mut self, c: usize, mask: u64) -> bool {
        if self.value[c] != 0 || self.cand[c] & mask == 0 {
            return false;
        }
        debug_assert_eq!(
            mask & (1u64 << (self.solution.get(c) - 1)),
            0,
            "rater eliminated a solution digit"
        );
        self.cand[c] &= !mask;
        true
    }

    /// Applies technique `t` once; returns its number of uses (0: it does not apply).
    fn apply(&mut self, t: Technique) -> u32 {
        match t {
            Technique::HiddenSingle => self.hidden_singles(),
            Technique::NakedSingle => self.naked_singles(),
            Technique::Pointing => self.pointing() as u32,
            Technique::Claiming => self.claiming() as u32,
            Technique::NakedPair => self.naked_subset(2) as u32,
            Technique::HiddenPair => self.hidden_subset(2) as u32,
            Technique::NakedTriple => self.naked_subset(3) as u32,
            Technique::HiddenTriple => self.hidden_subset(3) as u32,
            Technique::XWing => self.fish(2) as u32,
            Technique::XYWing => self.xy_wing() as u32,
            Technique::Swordfish => self.fish(3) as u32,
            Technique::Guess => self.guess(),
        }
    }

    /// One pass over the units (boxes, then rows, then columns), placing every hidden single.
    /// (Not [`crate::exact::singles`]: the rater counts uses per pass, not to a fixpoint.)
    fn hidden_singles(&mut self) -> u32 {
        let n = self.n;
        let mut placed = 0;
        for k in 0..3 * n {
            let u = (k + 2 * n) % (3 * n); // boxes first, as people scan
            let (mut once, mut twice) = (0u64, 0u64);
            for &c in self.unit(u) {
                if self.value[c as usize] == 0 {
                    let m = self.cand[c as usize];
                    twice |= once & m;
                    once |= m;
                }
            }
            let mut hidden = once & !twice;
            while hidden != 0 {
                let d = hidden.trailing_zeros() as usize;
                hidden &= hidden - 1;
                let cell = self
                    .unit(u)
                    .iter()
                    .map(|&c| c as usize)
                    .find(|&c| self.value[c] == 0 && self.cand[c] >> d & 1 == 1);
                if let Some(c) = cell {
                    self.place(c, d);
                    placed += 1;
                }
            }
        }
        placed
    }

    /// One pass over the cells, placing every naked single (counted per pass, as above).
    fn naked_singles(&mut self) -> u32 {
        let mut placed = 0;
        for c in 0..self.g.cells {
            if self.value[c] == 0 && self.cand[c].count_ones() == 1 {
                let d = self.cand[c].trailing_zeros() as usize;
                self.place(c, d);
                placed += 1;
            }
        }
        placed
    }

    /// Row, column and box of every cell.
    fn rcb(&self, c: usize) -> (usize, usize, usize) {
        self.g.row_col_box(c)
    }

    fn pointing(&mut self) -> bool {
        let n = self.n;
        for bx in 0..n {
            let u = 2 * n + bx;
            for d in 0..n {
                let bit = 1u64 << d;
                let (mut rows, mut cols, mut any) = (0u64, 0u64, false);
                for &c in self.unit(u) {
                    let c = c as usize;
                    if self.value[c] == 0 && self.cand[c] & bit != 0 {
                        let (r, col, _) = self.rcb(c);
                        rows |= 1 << r;
                        cols |= 1 << col;
                        any = true;
                    }
                }
                if !any {
                    continue;
                }
                let mut changed = false;
                if rows.count_ones() == 1 {
                    let r = rows.trailing_zeros() as usize;
                    for &c in self.unit(r) {
                        if self.rcb(c as usize).2 != bx {
                            changed |= self.eliminate(c as usize, bit);
                        }
                    }
                }
                if cols.count_ones() == 1 {
                    let col = cols.trailing_zeros() as usize;
                    for &c in self.unit(n + col) {
                        if self.rcb(c as usize).2 != bx {
                            changed |= self.eliminate(c as usize, bit);
                        }
                    }
                }
                if changed {
                    return true;
                }
            }
        }
        false
    }

    fn claiming(&mut self) -> bool {
        let n = self.n;
        for u in 0..2 * n {
            for d in 0..n {
                let bit = 1u64 << d;
                let (mut boxes, mut any) = (0u64, false);
                for &c in self.unit(u) {
                    let c = c as usize;
                    if self.value[c] == 0 && self.cand[c] & bit != 0 {
                        boxes |= 1 << self.rcb(c).2;
                        any = true;
                    }
                }
                if !any || boxes.count_ones() != 1 {
                    continue;
                }
                let bx = boxes.trailing_zeros() as usize;
                let mut changed = false;
                for &c in self.unit(2 * n + bx) {
                    let (r, col, _) = self.rcb(c as usize);
                    let on_line = if u < n { r == u } else { col == u - n };
                    if !on_line {
                        changed |= self.eliminate(c as usize, bit);
                    }
                }
                if changed {
                    return true;
                }
            }
        }
        false
    }

    /// Naked pair (k = 2) / triple (k = 3): k blank cells of a unit whose candidates together
    /// are k digits; those digits leave the unit's other cells.
    fn naked_subset(&mut self, k: usize) -> bool {
        for u in 0..3 * self.n {
            let unit = self.unit(u);
            let small: Vec<usize> = unit
                .iter()
                .map(|&c| c as usize)
                .filter(|&c| {
                    self.value[c] == 0 && (2..=k as u32).contains(&self.cand[c].count_ones())
                })
                .collect();
            if small.len() < k {
                continue;
            }
            let mut hit: Option<(u64, Vec<usize>)> = None;
            for_each_combo(small.len(), k, &mut |idx| {
                let union = idx.iter().fold(0u64, |m, &i| m | self.cand[small[i]]);
                if union.count_ones() as usize != k {
                    return false;
                }
                let members: Vec<usize> = idx.iter().map(|&i| small[i]).collect();
                let useful = unit.iter().any(|&c| {
                    let c = c as usize;
                    !members.contains(&c) && self.value[c] == 0 && self.cand[c] & union != 0
                });
                if useful {
                    hit = Some((union, members));
                }
                useful
            });
            if let Some((union, members)) = hit {
                for &c in unit {
                    if !members.contains(&(c as usize)) {
                        self.eliminate(c as usize, union);
                    }
                }
                return true;
            }
        }
        false
    }

    /// Hidden pair / triple: k digits of a unit confined to the same k cells; every other
    /// digit leaves those cells.
    fn hidden_subset(&mut self, k: usize) -> bool {
        let n = self.n;
        for u in 0..3 * n {
            let unit = self.unit(u);
            // Positions (indices within the unit) of each digit still open in the unit.
            let mut pos = vec![0u64; n];
            let mut placed = 0u64;
            for (i, &c) in unit.iter().enumerate() {
                let c = c as usize;
                if self.value[c] != 0 {
                    placed |= self.cand[c];
                } else {
                    let mut m = self.cand[c];
                    while m != 0 {
                        pos[m.trailing_zeros() as usize] |= 1 << i;
                        m &= m - 1;
                    }
                }
            }
            let digits: Vec<usize> = (0..n)
                .filter(|&d| placed >> d & 1 == 0 && (2..=k as u32).contains(&pos[d].count_ones()))
                .collect();
            if digits.len() < k {
                continue;
            }
            let mut hit: Option<(u64, u64)> = None;
            for_each_combo(digits.len(), k, &mut |idx| {
                let cells = idx.iter().fold(0u64, |m, &i| m | pos[digits[i]]);
                if cells.count_ones() as usize != k {
                    return false;
                }
                let keep = idx.iter().fold(0u64, |m, &i| m | 1 << digits[i]);
                let useful =
                    (0..n).any(|i| cells >> i & 1 == 1 && self.cand[unit[i] as usize] & !keep != 0);
                if useful {
                    hit = Some((cells, keep));
                }
                useful
            });
            if let Some((cells, keep)) = hit {
                for (i, &c) in unit.iter().enumerate() {
                    if cells >> i & 1 == 1 {
                        self.eliminate(c as usize, !keep);
                    }
                }
                return true;
            }
        }
        false
    }

    /// X-wing (k = 2) / swordfish (k = 3): for a digit, k rows whose candidates lie in the same
    /// k columns (or the same with rows and columns swapped): the digit leaves those columns'
    /// other cells.
    fn fish(&mut self, k: usize) -> bool {
        let n = self.n;
        for d in 0..n {
            let bit = 1u64 << d;
            for by_rows in [true, false] {
                // lines[i]: the cross positions of digit d in base line i (0 when placed there).
                let mut lines = vec![0u64; n];
                for (i, line) in lines.iter_mut().enumerate() {
                    for j in 0..n {
                        let c = if by_rows { i * n + j } else { j * n + i };
                        if self.value[c] == d as u8 + 1 {
                            *line = 0;
                            break;
                        }
                        if self.value[c] == 0 && self.cand[c] & bit != 0 {
                            *line |= 1 << j;
                        }
                    }
                }
                let base: Vec<usize> = (0..n)
                    .filter(|&i| (2..=k as u32).contains(&lines[i].count_ones()))
                    .collect();
                if base.len() < k {
                    continue;
                }
                let mut hit: Option<(u64, u64)> = None;
                for_each_combo(base.len(), k, &mut |idx| {
                    let cover = idx.iter().fold(0u64, |m, &i| m | lines[base[i]]);
                    if cover.count_ones() as usize != k {
                        return false;
                    }
                    let rows = idx.iter().fold(0u64, |m, &i| m | 1 << base[i]);
                    let useful = (0..n).any(|i| {
                        rows >> i & 1 == 0
                            && (0..n).any(|j| {
                                cover >> j & 1 == 1 && {
                                    let c = if by_rows { i * n + j } else { j * n + i };
                                    self.value[c] == 0 && self.cand[c] & bit != 0
                                }
                            })
                    });
                    if useful {
                        hit = Some((rows, cover));
                    }
                    useful
                });
                if let Some((rows, cover)) = hit {
                    for i in (0..n).filter(|&i| rows >> i & 1 == 0) {
                        for j in (0..n).filter(|&j| cover >> j & 1 == 1) {
                            let c = if by_rows { i * n + j } else { j * n + i };
                            self.eliminate(c, bit);
                        }
                    }
                    return true;
                }
            }
        }
        false
    }

    fn sees(&self, a: usize, b: usize) -> bool {
        let (ra, ca, ba) = self.rcb(a);
        let (rb, cb, bb) = self.rcb(b);
        a != b && (ra == rb || ca == cb || ba == bb)
    }

    /// XY-wing: a pivot with candidates {x, y} sees pincers {x, z} and {y, z}; z leaves every
    /// cell that sees both pincers.
    fn xy_wing(&mut self) -> bool {
        for pivot in 0..self.g.cells {
            let pm = self.cand[pivot];
            if self.value[pivot] != 0 || pm.count_ones() != 2 {
                continue;
            }
            let wings: Vec<usize> = self
                .g
                .peers_of(pivot)
                .iter()
                .map(|&p| p as usize)
                .filter(|&p| {
                    let m = self.cand[p];
                    self.value[p] == 0 && m.count_ones() == 2 && (m & pm).count_ones() == 1
                })
                .collect();
            for (i, &a) in wings.iter().enumerate() {
                for &w in &wings[i + 1..] {
                    let (ma, mb) = (self.cand[a], self.cand[w]);
                    // The pincers share z, not in the pivot, and together cover the pivot.
                    let z = ma & mb & !pm;
                    if z.count_ones() != 1 || (ma | mb) & pm != pm {
                        continue;
                    }
                    let targets: Vec<usize> = self
                        .g
                        .peers_of(a)
                        .iter()
                        .map(|&c| c as usize)
                        .filter(|&c| {
                            c != w && self.sees(c, w) && self.value[c] == 0 && self.cand[c] & z != 0
                        })
                        .collect();
                    if !targets.is_empty() {
                        for c in targets {
                            self.eliminate(c, z);
                        }
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Places the solution digit in the first blank cell with the fewest candidates.
    fn guess(&mut self) -> u32 {
        let best = (0..self.g.cells)
            .filter(|&c| self.value[c] == 0)
            .min_by_key(|&c| self.cand[c].count_ones());
        match best {
            Some(c) => {
                let d = self.solution.get(c) as usize - 1;
                self.place(c, d);
                1
            }
            None => 0,
        }
    }
}

/// Calls `f` with every k-subset of 0..m (as ascending indices) until it returns true.
fn for_each_combo(m: usize, k: usize, f: &mut dyn FnMut(&[usize]) -> bool) {
    fn rec(
        start: usize,
        m: usize,
        k: usize,
        idx: &mut Vec<usize>,
        f: &mut dyn FnMut(&[usize]) -> bool,
    ) -> bool {
        if idx.len() == k {
            return f(idx);
        }
        for i in start..m {
            if m - i < k - idx.len() {
                break;
            }
            idx.push(i);
            if rec(i + 1, m, k, idx, f) {
                return true;
            }
            idx.pop();
        }
        false
    }
    let mut idx = Vec::with_capacity(k);
    rec(0, m, k, &mut idx, f);
}

#[cfg(test)]
mod tests {
    //! Each technique on a hand-made candidate state built around a known solution: the
    //! elimination it must make, and (by the rater's debug assertions) nothing unsound.
    use super::*;
    use crate::puzzle::parse_str;

    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    fn sol() -> Grid {
        parse_str(SOLUTION, None).unwrap().remove(0).grid
    }

    /// Every cell open, with only its solution digit as candidate, plus the extras given.
    fn board<'a>(s: &'a Grid, extra: &[(usize, u8)]) -> Board<'a> {
        let g = s.geometry();
        let mut b = Board {
            g,
            n: 9,
            solution: s,
            cand: (0..81).map(|c| 1u64 << (s.get(c) - 1)).collect(),
            value: vec![0; 81],
            unplaced: 81,
        };
        for &(c, v) in extra {
            b.cand[c] |= 1u64 << (v - 1);
        }
        b
    }

    fn has(b: &Board, c: usize, v: u8) -> bool {
        b.cand[c] >> (v - 1) & 1 == 1
    }

    fn cell(r: usize, c: usize) -> usize {
        r * 9 + c
    }

    #[test]
    fn naked_pair_clears_its_unit() {
        let s = sol();
        // Row 0 is 534678912. Cells c0 (5) and c1 (3) become {3,5}; c4 (7) also has 5.
        let mut b = board(&s, &[(0, 3), (1, 5), (4, 5)]);
        assert!(b.naked_subset(2));
        assert!(!has(&b, 4, 5) && has(&b, 0, 3) && has(&b, 1, 5));
    }

    #[test]
    fn hidden_pair_clears_its_cells() {
        let s = sol();
        // Row 0: digits 5 and 3 only in c0 and c1, which also hold 9 (a digit found elsewhere
        // in the row: c6 holds 9 as its own digit).
        let mut b = board(&s, &[(0, 3), (1, 5), (0, 9), (1, 9)]);
        assert!(b.hidden_subset(2));
        assert!(!has(&b, 0, 9) && !has(&b, 1, 9));
        assert!(has(&b, 0, 5) && has(&b, 0, 3));
    }

    #[test]
    fn pointing_and_claiming() {
        let s = sol();
        // Box 0 rows 0-2 cols 0-2: 534/672/198. Digit 5 is at r0c0. Make 5 possible at r0c1
        // too (still inside box 0, row 0) and at r0c4 outside the box: the box's 5s lie in
        // row 0, so r0c4 loses 5.
        let mut b = board(&s, &[(cell(0, 1), 5), (cell(0, 4), 5)]);
        assert!(b.pointing());
        assert!(!has(&b, cell(0, 4), 5) && has(&b, cell(0, 1), 5));
        // Claiming: row 0's 5s only in box 0 (c0, c2); r1c0 (in box 0, not row 0) loses 5.
        let mut b = board(&s, &[(cell(0, 2), 5), (cell(1, 0), 5)]);
        assert!(b.claiming());
        assert!(!has(&b, cell(1, 0), 5));
    }

    #[test]
    fn x_wing_and_swordfish() {
        let s = sol();
        let n = 9;
        let col_of = |r: usize, v: u8| (0..n).find(|&c| s.get(r * n + c) == v).unwrap();
        // Digit 1 in rows 0 and 4 (different bands): r0 has 1 at c7, r4 at c6. Allow 1 at
        // r0c6 and r4c7: an X-wing on columns 6 and 7. r8c7 (not 1) gets 1 as an extra.
        let (a, bb) = (col_of(0, 1), col_of(4, 1));
        assert_ne!(a, bb);
        let victim = (0..n)
            .find(|&r| r != 0 && r != 4 && s.get(r * n + a) != 1)
            .unwrap();
        let mut b = board(
            &s,
            &[(cell(0, bb), 1), (cell(4, a), 1), (cell(victim, a), 1)],
        );
        assert!(b.fish(2));
        assert!(!has(&b, cell(victim, a), 1));
        // Swordfish on rows 0, 3, 6 for digit 2: each row allows 2 at its own column and the
        // next row's column (a 3-cycle), so no X-wing exists; a fourth row loses 2 there.
        let rows = [0, 3, 6];
        let cols: Vec<usize> = rows.iter().map(|&r| col_of(r, 2)).collect();
        let mut extra = vec![];
        for i in 0..3 {
            extra.push((cell(rows[i], cols[(i + 1) % 3]), 2));
        }
        let victim = (0..n)
            .find(|r| !rows.contains(r) && s.get(r * n + cols[0]) != 2)
            .unwrap();
        extra.push((cell(victim, cols[0]), 2));
        let mut b = board(&s, &extra);
        assert!(!b.fish(2), "no X-wing in a 3-cycle");
        assert!(b.fish(3));
        assert!(!has(&b, cell(victim, cols[0]), 2));
    }

    #[test]
    fn xy_wing() {
        let s = sol();
        // Pivot P = r0c0 {5, 7} (solution 5); pincer A = r0c4 {7, 8} (solution 7) in P's row;
        // pincer B = r3c0 {8, 5} (solution 8) in P's column; z = 8. The cell r3c4 (solution 7)
        // sees A (column 4) and B (row 3), so it loses an extra 8.
        let p = cell(0, 0);
        let a = cell(0, 4);
        let bcell = cell(3, 0);
        let mut b = board(&s, &[(p, 7), (a, 8), (bcell, 5), (cell(3, 4), 8)]);
        assert_eq!(b.cand[p].count_ones(), 2);
        assert!(b.xy_wing());
        assert!(!has(&b, cell(3, 4), 8));
    }
}
