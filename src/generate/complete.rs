//! Random complete grids of any size, deterministic for the random stream they are given.
//!
//! - Box size b ≤ 5 (up to 25x25): the exact solver fills an empty grid, trying the values of
//!   every branch in a random order (its randomized restarts take care of rare long searches),
//!   then the result goes through the random symmetries below.
//! - b ≥ 6 (36x36 and up): the pattern grid `v(r, c) = (b·(r mod b) + ⌊r/b⌋ + c) mod n + 1`,
//!   then the random symmetries, which give (n!)·(b!)^(2b+2)·2 different grids per pattern.
//!   These grids are more regular than solver-filled ones (every band is made of shifted rows).
//!
//! Random symmetries (each keeps a valid grid valid): relabel the digits, permute the rows
//! within each band, the bands, the columns within each stack, the stacks, and transpose with
//! probability ½.

use crate::exact::{Config, Propagation, Solver};
use crate::puzzle::Grid;
use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

/// Box sizes up to this one are filled by the randomized exact solver (b = 5: about 5 ms).
pub const SOLVER_FILL_MAX_BOX: usize = 5;

/// A random complete (valid, full) grid of box size `b`.
pub fn random_complete<R: Rng + ?Sized>(b: usize, rng: &mut R) -> Grid {
    let base = if b <= SOLVER_FILL_MAX_BOX {
        solver_fill(b, rng)
    } else {
        pattern(b)
    };
    let g = shuffle_symmetries(&base, rng);
    debug_assert!(g.is_complete() && g.is_consistent());
    g
}

/// The pattern grid of box size `b` (valid for every b).
pub fn pattern(b: usize) -> Grid {
    let n = b * b;
    let cells = (0..n * n)
        .map(|i| {
            let (r, c) = (i / n, i % n);
            ((b * (r % b) + r / b + c) % n + 1) as u8
        })
        .collect();
    Grid::from_cells(b, cells).expect("pattern has the right size")
}

fn solver_fill<R: Rng + ?Sized>(b: usize, rng: &mut R) -> Grid {
    let empty = Grid::empty(b);
    // The grid depends on the search order, so the propagation is pinned: generated (and
    // shipped) puzzles stay reproducible from their seed whatever the solver's default.
    let config = Config {
        propagation: Propagation::Full,
        ..Config::default()
    };
    let mut solver = Solver::new(config).with_random_value_order(rng.next_u64());
    solver.solve(&empty).expect("an empty grid has solutions")
}

/// Applies a random member of the validity-preserving symmetry group described above.
pub fn shuffle_symmetries<R: Rng + ?Sized>(grid: &Grid, rng: &mut R) -> Grid {
    let b = grid.box_size();
    let n = b * b;
    let mut digits: Vec<u8> = (1..=n as u8).collect();
    digits.shuffle(rng);
    let rows = line_permutation(b, rng);
    let cols = line_permutation(b, rng);
    let transpose = rng.random_bool(0.5);
    let mut cells = vec![0u8; n * n];
    for r in 0..n {
        for c in 0..n {
            let (sr, sc) = (rows[r], cols[c]);
            let (sr, sc) = if transpose { (sc, sr) } else { (sr, sc) };
            let v = grid.get(sr * n + sc);
            cells[r * n + c] = if v == 0 { 0 } else { digits[v as usize - 1] };
        }
    }
    Grid::from_cells(b, cells).expect("same size")
}

/// A permutation of 0..n that permutes the bands and the lines within each band.
fn line_permutation<R: Rng + ?Sized>(b: usize, rng: &mut R) -> Vec<usize> {
    let mut bands: Vec<usize> = (0..b).collect();
    bands.shuffle(rng);
    let mut out = Vec::with_capacity(b * b);
    for &band in &bands {
        let mut within: Vec<usize> = (0..b).collect();
        within.shuffle(rng);
        out.extend(within.into_iter().map(|i| band * b + i));
    }
    out
}

/// A complete valid grid of box size b made without search, for tests and demos: the pattern
/// grid with its digits, bands, rows within bands, stacks and columns within stacks permuted by
/// a small generator seeded with `seed` (not the puzzle generators' random streams).
pub fn scrambled_pattern(b: usize, seed: u64) -> Grid {
    let n = b * b;
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = |k: usize| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s % k as u64) as usize
    };
    let mut shuffle = |v: &mut Vec<usize>| {
        for i in (1..v.len()).rev() {
            v.swap(i, next(i + 1));
        }
    };
    let mut digits: Vec<usize> = (0..n).collect();
    shuffle(&mut digits);
    let mut rows = Vec::new();
    let mut cols = Vec::new();
    let mut bands: Vec<usize> = (0..b).collect();
    shuffle(&mut bands);
    for &band in &bands {
        let mut inner: Vec<usize> = (0..b).collect();
        shuffle(&mut inner);
        rows.extend(inner.iter().map(|i| band * b + i));
    }
    let mut stacks: Vec<usize> = (0..b).collect();
    shuffle(&mut stacks);
    for &st in &stacks {
        let mut inner: Vec<usize> = (0..b).collect();
        shuffle(&mut inner);
        cols.extend(inner.iter().map(|i| st * b + i));
    }
    let mut cells = vec![0u8; n * n];
    for r in 0..n {
        for c in 0..n {
            let (rr, cc) = (rows[r], cols[c]);
            let v = (rr % b * b + rr / b + cc) % n;
            cells[r * n + c] = digits[v] as u8 + 1;
        }
    }
    let g = Grid::from_cells(b, cells).expect("digits of the grid");
    debug_assert!(g.is_complete() && g.is_consistent());
    g
}

/// [`scrambled_pattern`] with a fraction `blank` of its cells emptied, chosen by `seed`: a
/// deterministic puzzle of any size in microseconds (not always unique), for tests and demos.
pub fn pattern_puzzle(b: usize, seed: u64, blank: f64) -> Grid {
    let mut g = scrambled_pattern(b, seed);
    let cells = g.cells().len();
    let mut order: Vec<usize> = (0..cells).collect();
    let mut s = seed.wrapping_add(12345) | 1;
    for i in (1..cells).rev() {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        order.swap(i, (s >> 33) as usize % (i + 1));
    }
    for &c in order.iter().take((cells as f64 * blank) as usize) {
        g.set(c, 0);
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::SeedableRng;

    #[test]
    fn every_size_gives_valid_distinct_grids() {
        for b in 2..=8 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(b as u64);
            let g1 = random_complete(b, &mut rng);
            let g2 = random_complete(b, &mut rng);
            for g in [&g1, &g2] {
                assert!(g.is_complete(), "b={b}");
                assert!(g.is_consistent(), "b={b}");
            }
            if b > 2 {
                assert_ne!(g1, g2, "b={b}");
            }
        }
    }

    #[test]
    fn same_seed_same_grid() {
        for b in [3, 5] {
            let a = random_complete(b, &mut Xoshiro256PlusPlus::seed_from_u64(7));
            let c = random_complete(b, &mut Xoshiro256PlusPlus::seed_from_u64(7));
            assert_eq!(a, c);
        }
    }
}
