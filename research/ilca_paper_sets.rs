//! Stand-in for the paper's puzzle sets while `puzzles/*.txt` is not shipped: writes
//! `easy.txt`, `medium.txt`, `hard.txt`, `evil.txt` (100 puzzles each by default) of the paper
//! model — a random complete 9x9 grid with a fraction d of its cells blanked at random, d drawn
//! uniformly in the tier's band (Easy (0.1, 0.4), Medium [0.4, 0.55), Hard [0.55, 0.7),
//! Evil [0.7, 0.9)).
//!
//! `cargo run --release --example ilca_paper_sets -- DIR [SEED] [COUNT] [MODEL]`
//!
//! MODEL `unique` writes only `unique.txt`: minimal puzzles with a unique solution.
//! MODEL `ps-pattern` / `ps-random` imitates the generator the paper most likely used (MATLAB
//! Central File Exchange #13846, `Ps.m`/`Cs(n)`): one base grid (the canonical pattern grid, or
//! one random grid), random row swaps inside bands and column swaps inside stacks, then every
//! cell blanked independently with probability d.

use anyhow::{Context, Result};
use rand::seq::SliceRandom;
use rand::{rngs::StdRng, RngExt, SeedableRng};

/// A uniformly shuffled backtracking fill of an empty 9x9 grid.
fn complete_grid(rng: &mut StdRng) -> Vec<u8> {
    fn fill(g: &mut [u8; 81], pos: usize, rng: &mut StdRng) -> bool {
        if pos == 81 {
            return true;
        }
        let (r, c) = (pos / 9, pos % 9);
        let mut digits: Vec<u8> = (1..=9).collect();
        digits.shuffle(rng);
        for v in digits {
            let clash = (0..9).any(|i| {
                g[r * 9 + i] == v
                    || g[i * 9 + c] == v
                    || g[(r / 3 * 3 + i / 3) * 9 + c / 3 * 3 + i % 3] == v
            });
            if !clash {
                g[pos] = v;
                if fill(g, pos + 1, rng) {
                    return true;
                }
                g[pos] = 0;
            }
        }
        false
    }
    let mut g = [0u8; 81];
    assert!(fill(&mut g, 0, rng));
    g.to_vec()
}

/// Number of solutions of a 9x9 grid, counting up to `cap` (bitmask backtracking, MRV).
fn count_solutions(g: &mut [u8; 81], cap: usize) -> usize {
    let mut best: Option<(usize, u16)> = None;
    for c in 0..81 {
        if g[c] != 0 {
            continue;
        }
        let (r, col) = (c / 9, c % 9);
        let mut used = 0u16;
        for i in 0..9 {
            used |= 1 << g[r * 9 + i];
            used |= 1 << g[i * 9 + col];
            used |= 1 << g[(r / 3 * 3 + i / 3) * 9 + col / 3 * 3 + i % 3];
        }
        let free = !used & 0b11_1111_1110;
        if best.is_none_or(|(_, m)| free.count_ones() < m.count_ones()) {
            best = Some((c, free));
        }
    }
    let Some((c, free)) = best else {
        return 1;
    };
    let mut total = 0;
    for v in 1..=9u8 {
        if free & (1 << v) != 0 {
            g[c] = v;
            total += count_solutions(g, cap - total);
            g[c] = 0;
            if total >= cap {
                break;
            }
        }
    }
    total
}

/// `unique.txt`: random complete grids with clues removed in random order while the solution
/// stays unique (minimal puzzles, typically 21–26 clues).
fn unique_set(dir: &str, seed: u64, count: usize) -> Result<()> {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5555);
    let mut out = format!("# unique minimal puzzles (clues removed while unique), seed {seed}\n");
    for _ in 0..count {
        let full = complete_grid(&mut rng);
        let mut g = [0u8; 81];
        g.copy_from_slice(&full);
        let mut cells: Vec<usize> = (0..81).collect();
        cells.shuffle(&mut rng);
        for c in cells {
            let v = g[c];
            g[c] = 0;
            if count_solutions(&mut g.clone(), 2) != 1 {
                g[c] = v;
            }
        }
        let line: String = g
            .iter()
            .map(|&v| if v == 0 { '.' } else { (b'0' + v) as char })
            .collect();
        out.push_str(&format!("{line}\n"));
    }
    std::fs::write(format!("{dir}/unique.txt"), out)?;
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .first()
        .context("usage: ilca_paper_sets DIR [SEED] [COUNT]")?;
    let seed: u64 = args.get(1).map_or(Ok(2024), |s| s.parse())?;
    let count: usize = args.get(2).map_or(Ok(100), |s| s.parse())?;
    let model = args.get(3).cloned().unwrap_or_else(|| "uniform".into());
    if model == "unique" {
        std::fs::create_dir_all(dir)?;
        return unique_set(dir, seed, count);
    }
    std::fs::create_dir_all(dir)?;
    let tiers = [
        ("easy", 0.1, 0.4),
        ("medium", 0.4, 0.55),
        ("hard", 0.55, 0.7),
        ("evil", 0.7, 0.9),
    ];
    for (t, &(name, lo, hi)) in tiers.iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(seed.wrapping_mul(31).wrapping_add(t as u64));
        let mut out = format!(
            "# paper-model {name}: random complete grid, blank fraction d uniform in [{lo}, {hi}), seed {seed}\n"
        );
        let base: Vec<u8> = if model == "ps-pattern" {
            (0..81)
                .map(|i| ((i / 9 * 3 + i / 27 + i % 9) % 9 + 1) as u8)
                .collect()
        } else {
            complete_grid(&mut StdRng::seed_from_u64(seed))
        };
        for _ in 0..count {
            let mut g = if model.starts_with("ps-") {
                let mut g = base.clone();
                for _ in 0..200 {
                    let (band, i, j) = (
                        rng.random_range(0..3usize),
                        rng.random_range(0..3usize),
                        rng.random_range(0..3usize),
                    );
                    let (a, b) = (band * 3 + i, band * 3 + j);
                    if rng.random_range(0..2) == 0 {
                        for c in 0..9 {
                            g.swap(a * 9 + c, b * 9 + c);
                        }
                    } else {
                        for r in 0..9 {
                            g.swap(r * 9 + a, r * 9 + b);
                        }
                    }
                }
                g
            } else {
                complete_grid(&mut rng)
            };
            if model.starts_with("ps-") {
                let d: f64 = rng.random_range(lo..hi);
                for v in g.iter_mut() {
                    if rng.random_range(0.0..1.0) < d {
                        *v = 0;
                    }
                }
                let line: String = g
                    .iter()
                    .map(|&v| if v == 0 { '.' } else { (b'0' + v) as char })
                    .collect();
                out.push_str(&format!("{line} d={d:.3}\n"));
                continue;
            }
            let d: f64 = loop {
                let d = rng.random_range(lo..hi);
                if d > lo || name != "easy" {
                    break d;
                }
            };
            let blanks = ((d * 81.0).round() as usize).min(80);
            let mut cells: Vec<usize> = (0..81).collect();
            cells.shuffle(&mut rng);
            for &c in &cells[..blanks] {
                g[c] = 0;
            }
            let line: String = g
                .iter()
                .map(|&v| if v == 0 { '.' } else { (b'0' + v) as char })
                .collect();
            out.push_str(&format!("{line} d={d:.3}\n"));
        }
        let path = format!("{dir}/{name}.txt");
        std::fs::write(&path, out).with_context(|| format!("writing {path}"))?;
    }
    Ok(())
}
