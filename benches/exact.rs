//! Exact solver throughput on 9x9 sets, side by side with the `sudoku` crate (a bitboard
//! solver after JCZSolve, a dev-dependency used only here and in tests as a peer).
//!
//! `cargo bench --bench exact` — throughput is reported as puzzles/s ("elem/s").
//! Two tasks per set: uniqueness (count solutions up to 2; `sudoku::Sudoku::solution`) and
//! first solution (`sudoku::Sudoku::some_solution`). Results: benches/RESULTS.md.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gpu_sudoku::exact::Solver;
use gpu_sudoku::puzzle::{read_puzzles, Grid};
use std::hint::black_box;
use std::time::Duration;

/// A puzzle file relative to the working directory (cargo runs benches in the package root),
/// or else to the package's directory at build time.
fn load(path: &str) -> Vec<Grid> {
    let full = if std::path::Path::new(path).exists() {
        path.to_string()
    } else {
        format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
    };
    read_puzzles(&full, Some(9))
        .unwrap_or_else(|e| panic!("{e}"))
        .puzzles
        .into_iter()
        .map(|p| p.grid)
        .collect()
}

/// Famous hard 9x9 puzzles (AI Escargot, Platinum Blonde, and the first four of the
/// "hardest 20" list that circulates with brute-force solver benchmarks).
const FAMOUS: [&str; 6] = [
    "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
    ".......12........3..23..4....18....5.6..7.8.......9.....85.....9...4.5..47...6...",
    "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9",
    ".2..5.7..4..1....68....3...2....8..3.4..2.5.....6...1...2.9.....9......57.4...9..",
    "........3..1..56...9..4..7......9.5.7.......8.5.4.2....8..2..9...35..1..6........",
    "12.3....435....1....4........54..2..6...7.........8.9...31..5.......9.7.....6...8",
];

fn sets() -> Vec<(&'static str, Vec<Grid>)> {
    let famous = FAMOUS
        .iter()
        .map(|l| {
            gpu_sudoku::puzzle::parse_str(l, Some(9))
                .unwrap()
                .remove(0)
                .grid
        })
        .collect();
    vec![
        ("unique-hard", load("puzzles/unique/hard.txt")),
        ("unique-evil", load("puzzles/unique/evil.txt")),
        ("famous-hard", famous),
    ]
}

fn bench(c: &mut Criterion) {
    for (name, puzzles) in sets() {
        let peers: Vec<sudoku::Sudoku> = puzzles
            .iter()
            .map(|g| sudoku::Sudoku::from_str_line(&g.to_line()).unwrap())
            .collect();
        // Both must agree before anything is timed.
        for (g, p) in puzzles.iter().zip(&peers) {
            let ours = Solver::default().count(g, 2).count;
            assert_eq!(ours, p.solutions_count_up_to(2), "{}", g.to_line());
        }
        let mut group = c.benchmark_group(format!("exact/{name}"));
        group.throughput(Throughput::Elements(puzzles.len() as u64));
        group.sample_size(20);
        group.measurement_time(Duration::from_secs(4));
        group.bench_function(BenchmarkId::new("unique", "gpu-sudoku"), |b| {
            let mut solver = Solver::default();
            b.iter(|| {
                puzzles
                    .iter()
                    .map(|g| solver.count(black_box(g), 2).count)
                    .sum::<usize>()
            })
        });
        group.bench_function(BenchmarkId::new("unique", "sudoku-crate"), |b| {
            b.iter(|| {
                peers
                    .iter()
                    .map(|p| black_box(*p).solution().is_some() as usize)
                    .sum::<usize>()
            })
        });
        group.bench_function(BenchmarkId::new("first", "gpu-sudoku"), |b| {
            let mut solver = Solver::default();
            b.iter(|| {
                puzzles
                    .iter()
                    .map(|g| solver.solve(black_box(g)).is_some() as usize)
                    .sum::<usize>()
            })
        });
        group.bench_function(BenchmarkId::new("first", "sudoku-crate"), |b| {
            b.iter(|| {
                peers
                    .iter()
                    .map(|p| black_box(*p).some_solution().is_some() as usize)
                    .sum::<usize>()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
