//! Criterion: throughput of the ILCA CPU reference in instance-steps per second (one instance
//! through one time-step), on one thread and on all threads.
//!
//! Workload: 16 paper-model "Hard" puzzles (the classic Fig. 3 solution with 60% of its cells
//! blanked by a fixed hash, relabelled per puzzle), 8 runs each, Algorithm 1 (lr = lp = 1),
//! 250 steps; plain Algorithm 1 rarely solves these, so almost every instance runs all 250 steps.
//! Self-contained: needs no puzzle files.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gpu_sudoku::ilca::{cpu, Batch, IlcaParams};
use gpu_sudoku::puzzle::Grid;
use gpu_sudoku::rng::hash32;

const SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

fn puzzles() -> Vec<Grid> {
    (0..16u32)
        .map(|s| {
            // Relabel the digits by a rotation (keeps the grid valid), blank 60% of the cells.
            let cells = SOLUTION
                .bytes()
                .enumerate()
                .map(|(i, ch)| {
                    let v = ((ch - b'1') as u32 + s) % 9 + 1;
                    if hash32(i as u32 ^ s.wrapping_mul(0x9e37_79b9)) % 100 < 60 {
                        0
                    } else {
                        v as u8
                    }
                })
                .collect();
            Grid::from_cells(3, cells).expect("valid cells")
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let puzzles = puzzles();
    let runs = 8;
    let params = IlcaParams::default();
    let batch = Batch::runs(&puzzles, &params, runs);
    let steps: u64 = cpu::run(&batch, &|_| {})
        .iter()
        .map(|r| r.steps as u64)
        .sum();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let mut g = c.benchmark_group("ilca_cpu_16x8x250");
    g.sample_size(10);
    g.throughput(Throughput::Elements(steps));
    g.bench_function("1_thread", |b| {
        b.iter(|| one.install(|| cpu::run(&batch, &|_| {})))
    });
    g.bench_function(format!("{}_threads", rayon::current_num_threads()), |b| {
        b.iter(|| cpu::run(&batch, &|_| {}))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
