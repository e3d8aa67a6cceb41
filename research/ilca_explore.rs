//! Research scratchpad (not the engine): a flexible f64 re-implementation of ILCA used to test
//! readings of the paper before one is written into `src/ilca`. Prints solved % per file.
//!
//! `cargo run --release --example ilca_explore -- [key=value…] FILE…`
//!
//! Keys (defaults = the engine's defaults): steps, runs, lr, lp, floor, sr, seed, limit (puzzles
//! per file), compare (sharing|free|all), tie (random|first|keep), check (perm|sum),
//! update (mult = the paper's multiply-and-renormalise | lrp = linear reward-penalty),
//! order (sync | seq: cells updated in place one after another), choose (argmax | sample),
//! cap (weights clipped at cap × initial), prio=1 (random priority among equal degrees),
//! avoid (1: every cell, 2: conflicted cells pick among digits no neighbour held last step),
//! peer=q (digits held by k neighbours × q^k; ponly=1: only when penalised), act=ρ (a cell
//! re-chooses with probability ρ), fixed=1 (single-candidate cells become clues), rs (full
//! restart period), trace=1 (per-step conflicts on stderr; WATCH=c1,c2 prints those cells).

#![allow(clippy::needless_range_loop)]

use gpu_sudoku::puzzle::{read_puzzles, Geometry, Grid};
use gpu_sudoku::rng;
use rayon::prelude::*;
use std::collections::HashMap;

#[derive(Clone, Debug)]
struct P {
    steps: u32,
    runs: usize,
    lr: f64,
    lp: f64,
    floor: f64,
    sr: u32,
    compare: String, // sharing | free | all
    tie: String,     // random | first | keep
    update: String,  // mult | lrp
    order: String,   // sync | seq
    choose: String,  // argmax | sample
    check: String,   // perm | sum
    seed: u64,
    limit: usize,
    cap: f64,
    trace: bool,
    peer: f64,
    prio: bool,
    avoid: u32,
    ponly: bool,
    act: f64,
    fixed: bool,
    rs: u32,
}

fn run(p: &P, puzzle: &Grid, pi: u32, ri: u32) -> (bool, u32) {
    let g: &Geometry = puzzle.geometry();
    let (n, np, cells) = (g.n, g.n_peers, g.cells);
    let mut clue = puzzle.cells().to_vec();
    if p.fixed {
        let orig = clue.clone();
        for c in 0..cells {
            if orig[c] == 0 {
                let cands: Vec<usize> = (1..=n)
                    .filter(|&v| {
                        !g.peers_of(c)
                            .iter()
                            .any(|&q| orig[q as usize] as usize == v)
                    })
                    .collect();
                if cands.len() == 1 {
                    clue[c] = cands[0] as u8;
                }
            }
        }
    }
    let clue = clue;
    let mut init = vec![0f64; cells * n];
    for c in 0..cells {
        if clue[c] != 0 {
            init[c * n + clue[c] as usize - 1] = 1.0;
        } else {
            let mut k = 0;
            for v in 0..n {
                if !g
                    .peers_of(c)
                    .iter()
                    .any(|&q| clue[q as usize] as usize == v + 1)
                {
                    init[c * n + v] = 1.0;
                    k += 1;
                }
            }
            for v in 0..n {
                init[c * n + v] /= k.max(1) as f64;
            }
        }
    }
    let mut w = init.clone();
    let mut choice = clue.clone();
    let mut deg = vec![0usize; cells];
    let key = rng::instance_key(p.seed, pi, ri);
    let rf = |d: usize| 1.0 + d as f64 / np as f64 * p.lr;
    let pf = |d: usize| (1.0 - (1.0 - d as f64 / np as f64) * p.lp).max(p.floor);
    let pick = |row: &[f64], cur: u8, t: u32, c: usize| -> u8 {
        if p.choose == "sample" {
            let s: f64 = row.iter().sum();
            let mut x = (rng::draw(key, t, c as u32) as f64 / 4294967296.0) * s;
            for (k, &v) in row.iter().enumerate() {
                if x < v {
                    return k as u8 + 1;
                }
                x -= v;
            }
            return row.iter().rposition(|&v| v > 0.0).unwrap() as u8 + 1;
        }
        let m = row.iter().cloned().fold(f64::MIN, f64::max);
        let tied: Vec<usize> = (0..row.len()).filter(|&k| row[k] == m).collect();
        if tied.len() == 1 || p.tie == "first" {
            return tied[0] as u8 + 1;
        }
        if p.tie == "keep" && cur != 0 && row[cur as usize - 1] == m {
            return cur;
        }
        tied[(rng::draw(key, t, c as u32) % tied.len() as u32) as usize] as u8 + 1
    };
    let degree = |choice: &[u8], c: usize| -> usize {
        np - g
            .peers_of(c)
            .iter()
            .filter(|&&q| choice[q as usize] == choice[c])
            .count()
    };
    let update = |row: &mut [f64], k: usize, reward: bool, d: usize| {
        if p.cap > 0.0 {
            // unnormalised, initial weights 1, chosen weight clipped at cap
            let live = row.iter().filter(|&&x| x > 0.0).count() as f64;
            row[k] = (row[k] * live * if reward { rf(d) } else { pf(d) }).min(p.cap) / live;
        } else if p.update == "mult" {
            row[k] *= if reward { rf(d) } else { pf(d) };
            let s: f64 = row.iter().sum();
            row.iter_mut().for_each(|x| *x /= s);
        } else {
            // linear reward-penalty: a = r - 1 (reward), b = 1 - p (penalty), over live digits
            let live = row.iter().filter(|&&x| x > 0.0).count();
            if reward {
                let a = (rf(d) - 1.0).min(1.0);
                for (j, x) in row.iter_mut().enumerate() {
                    if j == k {
                        *x += a * (1.0 - *x);
                    } else {
                        *x *= 1.0 - a;
                    }
                }
            } else if live > 1 {
                let b = 1.0 - pf(d);
                // every digit shrinks by (1 - b); the live ones other than k share b
                row.iter_mut().for_each(|x| *x *= 1.0 - b);
                let gain = b / (live - 1) as f64;
                for (j, x) in row.iter_mut().enumerate() {
                    if j != k && *x > 0.0 {
                        *x += gain;
                    }
                }
            }
        }
    };
    let beats = |choice: &[u8], deg: &[usize], c: usize, t: u32| -> bool {
        let pr = |x: usize| rng::draw(key ^ 0x5bd1e995, t, x as u32);
        g.peers_of(c).iter().all(|&q| {
            let q = q as usize;
            let cmp = match p.compare.as_str() {
                "sharing" => choice[q] == choice[c],
                "free" => clue[q] == 0,
                _ => true,
            };
            !cmp || (!(p.fixed && puzzle.cells()[q] != 0 && choice[q] == choice[c])
                && deg[q] < deg[c])
                || (p.prio && deg[q] == deg[c] && pr(q) < pr(c))
        })
    };
    for t in 0..p.steps {
        if p.order == "sync" {
            let old = choice.clone();
            for c in 0..cells {
                if clue[c] == 0 {
                    let row = &w[c * n..(c + 1) * n];
                    let mut ch = pick(row, choice[c], t, c);
                    // avoid=1: every cell picks among digits no peer held last step (if any);
                    // avoid=2: only cells in conflict last step do.
                    let conflicted = g.peers_of(c).iter().any(|&q| old[q as usize] == old[c]);
                    if t > 0 && (p.avoid == 1 || (p.avoid == 2 && conflicted)) {
                        let mut masked: Vec<f64> = row.to_vec();
                        for &q in g.peers_of(c) {
                            let v = old[q as usize];
                            if v != 0 {
                                masked[v as usize - 1] = 0.0;
                            }
                        }
                        if masked.iter().any(|&x| x > 0.0) {
                            ch = pick(&masked, choice[c], t, c);
                        }
                    }
                    if t > 0
                        && p.act < 1.0
                        && (rng::draw(key ^ 0x1234567, t, c as u32) as f64) >= p.act * 4294967296.0
                    {
                        ch = old[c];
                    }
                    choice[c] = ch;
                }
            }
            for c in 0..cells {
                deg[c] = degree(&choice, c);
            }
            if p.trace {
                let conf = deg.iter().filter(|&&d| d < np).count();
                let nrew = (0..cells)
                    .filter(|&c| clue[c] == 0 && (deg[c] == np || beats(&choice, &deg, c, t)))
                    .count();
                let s: String = choice.iter().map(|&v| (b'0' + v) as char).collect();
                eprintln!("t={t} conflicted={conf} rewarded={nrew} {s}");
                if let Ok(w_cells) = std::env::var("WATCH") {
                    for c in w_cells.split(',').map(|x| x.parse::<usize>().unwrap()) {
                        let row: Vec<String> = w[c * n..(c + 1) * n]
                            .iter()
                            .map(|x| format!("{x:.3}"))
                            .collect();
                        eprintln!(
                            "   cell {c} state {} deg {} w {}",
                            choice[c],
                            deg[c],
                            row.join(" ")
                        );
                    }
                }
            }
            if deg.iter().all(|&d| d == np) {
                return (true, t + 1);
            }
            for c in 0..cells {
                if clue[c] != 0 {
                    continue;
                }
                let d = deg[c];
                let reward = d == np || beats(&choice, &deg, c, t);
                let k = choice[c] as usize - 1;
                update(&mut w[c * n..(c + 1) * n], k, reward, d);
                if p.peer != 1.0 && (!p.ponly || !reward) {
                    let mut cnt = [0i32; 65];
                    for &q in g.peers_of(c) {
                        cnt[choice[q as usize] as usize] += 1;
                    }
                    let row = &mut w[c * n..(c + 1) * n];
                    for u in 0..n {
                        row[u] *= p.peer.powi(cnt[u + 1]);
                    }
                    let m = row.iter().cloned().fold(0.0, f64::max);
                    row.iter_mut().for_each(|x| *x /= m);
                }
            }
        } else {
            // sequential sweep, cell order fixed, states updated in place
            if t == 0 {
                for c in 0..cells {
                    if clue[c] == 0 {
                        choice[c] = pick(&w[c * n..(c + 1) * n], choice[c], t, c);
                    }
                }
            }
            for c in 0..cells {
                deg[c] = degree(&choice, c);
            }
            if deg.iter().all(|&d| d == np) {
                return (true, t + 1);
            }
            for c in 0..cells {
                if clue[c] != 0 {
                    continue;
                }
                for &q in g.peers_of(c) {
                    deg[q as usize] = degree(&choice, q as usize);
                }
                deg[c] = degree(&choice, c);
                let d = deg[c];
                let reward = d == np || beats(&choice, &deg, c, t);
                let k = choice[c] as usize - 1;
                update(&mut w[c * n..(c + 1) * n], k, reward, d);
                choice[c] = pick(&w[c * n..(c + 1) * n], choice[c], t + 1, c);
            }
        }
        if p.rs != 0 && (t + 1) % p.rs == 0 {
            w.copy_from_slice(&init);
        } else if p.sr != 0 && (t + 1) % p.sr == 0 {
            let ok: Vec<bool> = (0..3 * n)
                .map(|u| {
                    let us = g.unit(u);
                    if p.check == "sum" {
                        us.iter()
                            .map(|&c| choice[c as usize] as usize)
                            .sum::<usize>()
                            == n * (n + 1) / 2
                    } else {
                        let mut m = 0u64;
                        for &c in us {
                            m |= 1 << choice[c as usize];
                        }
                        m.count_ones() as usize == n && m & 1 == 0
                    }
                })
                .collect();
            for c in 0..cells {
                let (r, col, b) = g.row_col_box(c);
                if clue[c] == 0 && !(ok[r] && ok[n + col] && ok[2 * n + b]) {
                    w[c * n..(c + 1) * n].copy_from_slice(&init[c * n..(c + 1) * n]);
                }
            }
        }
    }
    (false, p.steps)
}

fn main() {
    let mut kv: HashMap<String, String> = HashMap::new();
    let mut files = vec![];
    for a in std::env::args().skip(1) {
        match a.split_once('=') {
            Some((k, v)) => {
                kv.insert(k.into(), v.into());
            }
            None => files.push(a),
        }
    }
    let get = |k: &str, d: &str| kv.get(k).cloned().unwrap_or(d.to_string());
    let p = P {
        steps: get("steps", "250").parse().unwrap(),
        runs: get("runs", "10").parse().unwrap(),
        lr: get("lr", "1").parse().unwrap(),
        lp: get("lp", "1").parse().unwrap(),
        floor: get("floor", "0.001").parse().unwrap(),
        sr: get("sr", "0").parse().unwrap(),
        compare: get("compare", "sharing"),
        tie: get("tie", "random"),
        update: get("update", "mult"),
        order: get("order", "sync"),
        choose: get("choose", "argmax"),
        check: get("check", "perm"),
        seed: get("seed", "1").parse().unwrap(),
        limit: get("limit", "100000").parse().unwrap(),
        cap: get("cap", "0").parse().unwrap(),
        trace: get("trace", "0") == "1",
        peer: get("peer", "1").parse().unwrap(),
        prio: get("prio", "0") == "1",
        avoid: get("avoid", "0").parse().unwrap(),
        ponly: get("ponly", "0") == "1",
        act: get("act", "1").parse().unwrap(),
        fixed: get("fixed", "0") == "1",
        rs: get("rs", "0").parse().unwrap(),
    };
    let mut all = (0, 0);
    let mut row = String::new();
    for f in &files {
        let pf = read_puzzles(f, None).unwrap();
        let puz: Vec<Grid> = pf
            .puzzles
            .iter()
            .take(p.limit)
            .map(|x| x.grid.clone())
            .collect();
        let res: Vec<(bool, u32)> = (0..puz.len() * p.runs)
            .into_par_iter()
            .map(|i| {
                let (pi, ri) = (i / p.runs, i % p.runs);
                run(&p, &puz[pi], pi as u32, ri as u32)
            })
            .collect();
        let s = res.iter().filter(|r| r.0).count();
        let mean = res.iter().filter(|r| r.0).map(|r| r.1 as f64).sum::<f64>() / s.max(1) as f64;
        all.0 += s;
        all.1 += res.len();
        row += &format!(
            "{}: {:.1}% ({mean:.0}) | ",
            pf.label(),
            100.0 * s as f64 / res.len() as f64
        );
    }
    println!(
        "{row}all {:.1}%   [{}]",
        100.0 * all.0 as f64 / all.1 as f64,
        std::env::args()
            .skip(1)
            .filter(|a| a.contains('='))
            .collect::<Vec<_>>()
            .join(" ")
    );
}
