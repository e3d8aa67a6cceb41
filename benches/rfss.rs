//! RFSS throughput, CPU reference vs GPU kernel, in species-updates per second
//! (one species-update = one species through one generation). Results: benches/RESULTS.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gpu_sudoku::puzzle::parse_str;
use gpu_sudoku::rfss::{self, Problem, RfssParams};

#[path = "../tests/common/mod.rs"]
mod common;
// Norvig's hard1: plain RFSS does not solve it, so every instance runs all generations.
use common::HARD;
const GENERATIONS: u32 = 500;

fn bench(c: &mut Criterion) {
    let g = parse_str(HARD, None).unwrap().remove(0).grid;
    let species = Problem::build(&g).unwrap().n_species() as u64;
    let params = RfssParams {
        max_generations: GENERATIONS,
        stable_generations: 1,
        ..Default::default()
    };
    let mut group = c.benchmark_group("rfss");
    group.sample_size(10);
    for instances in [8usize, 64] {
        let batch = vec![g.clone(); instances];
        group.throughput(Throughput::Elements(
            species * GENERATIONS as u64 * instances as u64,
        ));
        group.bench_function(format!("cpu/{instances}x9x9"), |b| {
            b.iter(|| rfss::cpu::run(&batch, &params, &|_| {}).unwrap())
        });
        if let Some(gpu) = common::gpu() {
            let opts = rfss::gpu::GpuOptions::default();
            group.bench_function(format!("gpu/{instances}x9x9"), |b| {
                b.iter(|| rfss::gpu::run(gpu, &batch, &params, &opts, &|_| {}).unwrap())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
