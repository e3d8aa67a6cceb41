//! Yardstick for docs/REPRODUCTION.md §5: min-conflicts local search without learning. Each step,
//! every cell in conflict moves (with probability RHO) to a candidate held by the fewest
//! neighbours (ties random); `sync` reads the previous step's grid, `seq` updates cells one by one
//! in a random order. First 30 puzzles of each file × 3 runs; prints solved % per file.
//!
//! `cargo run --release --example mc_probe -- STEPS RHO sync|seq FILE…`
use gpu_sudoku::puzzle::{read_puzzles, Grid};
use gpu_sudoku::rng;
use rayon::prelude::*;

fn run(puz: &Grid, pi: u32, ri: u32, steps: u32, rho: f64, seq: bool) -> bool {
    let g = puz.geometry();
    let (n, cells) = (g.n, g.cells);
    let clue = puz.cells().to_vec();
    let cand: Vec<Vec<u8>> = (0..cells)
        .map(|c| {
            (1..=n as u8)
                .filter(|&v| clue[c] == 0 && !g.peers_of(c).iter().any(|&q| clue[q as usize] == v))
                .collect()
        })
        .collect();
    let key = rng::instance_key(7, pi, ri);
    let mut st = clue.clone();
    for c in 0..cells {
        if clue[c] == 0 {
            st[c] = cand[c][(rng::draw(key, 0, c as u32) as usize) % cand[c].len()];
        }
    }
    for t in 1..steps {
        let conf: Vec<bool> = (0..cells)
            .map(|c| g.peers_of(c).iter().any(|&q| st[q as usize] == st[c]))
            .collect();
        if !conf.iter().any(|&x| x) {
            return true;
        }
        let old = st.clone();
        let mut order: Vec<usize> = (0..cells).collect();
        if seq {
            order.sort_by_key(|&c| rng::draw(key ^ 99, t, c as u32));
        }
        for c in order {
            if clue[c] != 0
                || !(if seq {
                    g.peers_of(c).iter().any(|&q| st[q as usize] == st[c])
                } else {
                    conf[c]
                })
            {
                continue;
            }
            if (rng::draw(key ^ 77, t, c as u32) as f64) >= rho * 4294967296.0 {
                continue;
            }
            let src = if seq { &st } else { &old };
            let mut best = usize::MAX;
            let mut ties = vec![];
            for &v in &cand[c] {
                let k = g
                    .peers_of(c)
                    .iter()
                    .filter(|&&q| src[q as usize] == v)
                    .count();
                if k < best {
                    best = k;
                    ties.clear();
                }
                if k == best {
                    ties.push(v);
                }
            }
            st[c] = ties[(rng::draw(key, t, c as u32) as usize) % ties.len()];
        }
    }
    false
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let steps: u32 = a[0].parse().unwrap();
    let rho: f64 = a[1].parse().unwrap();
    let seq = a[2] == "seq";
    for f in &a[3..] {
        let pf = read_puzzles(f, None).unwrap();
        let ps: Vec<Grid> = pf.puzzles.iter().take(30).map(|p| p.grid.clone()).collect();
        let ok = (0..ps.len() * 3)
            .into_par_iter()
            .filter(|&i| run(&ps[i / 3], (i / 3) as u32, (i % 3) as u32, steps, rho, seq))
            .count();
        print!(
            "{}: {:.1}%  ",
            pf.label(),
            100.0 * ok as f64 / (ps.len() * 3) as f64
        );
    }
    println!("[steps={steps} rho={rho} {}]", a[2]);
}
