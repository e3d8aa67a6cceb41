//! Criterion: the same ILCA batch on the CPU reference (all cores) and on the GPU, side by side.
//! Throughput is in instance-steps (elements); without an adapter only the CPU side runs.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gpu_sudoku::gpu::Gpu;
use gpu_sudoku::ilca::{cpu, gpu as gpu_ilca, Batch, IlcaParams};
use gpu_sudoku::puzzle::{read_puzzles, Grid};

fn puzzles() -> Vec<Grid> {
    let dir = env!("CARGO_MANIFEST_DIR");
    let file = read_puzzles(&format!("{dir}/puzzles/hard.txt"), None)
        .expect("puzzles/hard.txt ships with the repository");
    file.puzzles.into_iter().take(40).map(|p| p.grid).collect()
}

fn bench(c: &mut Criterion) {
    let puzzles = puzzles();
    let runs = 10;
    // No early solves distort the work: a step budget most runs exhaust.
    let params = IlcaParams {
        steps: 100,
        ..Default::default()
    };
    let batch = Batch::runs(&puzzles, &params, runs);
    let steps: u64 = cpu::run(&batch, &|_| {})
        .iter()
        .map(|r| r.steps as u64)
        .sum();
    let mut g = c.benchmark_group("ilca_batch_40x10");
    g.sample_size(10);
    g.throughput(Throughput::Elements(steps));
    g.bench_function("cpu_all_cores", |b| b.iter(|| cpu::run(&batch, &|_| {})));
    match Gpu::open(None) {
        Ok(gpu) => {
            eprintln!("GPU: {}", gpu.describe());
            g.bench_function("gpu", |b| {
                let opts = gpu_ilca::GpuOptions::default();
                b.iter(|| gpu_ilca::run(&gpu, &batch, &opts, &|_| {}).unwrap())
            });
        }
        Err(e) => eprintln!("no GPU adapter, GPU side skipped: {e:#}"),
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
