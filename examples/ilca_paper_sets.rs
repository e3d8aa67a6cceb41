//! Stand-in for the paper's puzzle sets while `puzzles/*.txt` is not shipped: writes
//! `easy.txt`, `medium.txt`, `hard.txt`, `evil.txt` (100 puzzles each by default) of the paper
//! model — a random complete 9x9 grid with a fraction d of its cells blanked at random, d drawn
//! uniformly in the tier's band (Easy (0.1, 0.4), Medium [0.4, 0.55), Hard [0.55, 0.7),
//! Evil [0.7, 0.9)).
//!
//! `cargo run --release --example ilca_paper_sets -- DIR [SEED] [COUNT]`

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

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .first()
        .context("usage: ilca_paper_sets DIR [SEED] [COUNT]")?;
    let seed: u64 = args.get(1).map_or(Ok(2024), |s| s.parse())?;
    let count: usize = args.get(2).map_or(Ok(100), |s| s.parse())?;
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
        for _ in 0..count {
            let mut g = complete_grid(&mut rng);
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
