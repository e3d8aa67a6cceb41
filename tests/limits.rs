//! Counts that do not fit are refused, and runs that would not fit in memory are refused
//! before they start, saying what they would cost.

mod common;
use common::run;

fn refused(args: &[&str]) -> String {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{args:?} must be refused");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

#[test]
fn counts_that_do_not_fit_are_refused() {
    let huge = "18446744073709551615";
    for args in [
        vec!["batch", "puzzles/classic.txt", "--runs", huge],
        vec!["compare", "puzzles/classic.txt", "--runs", huge],
    ] {
        let e = refused(&args);
        assert!(e.contains("--runs"), "{args:?}: {e}");
    }
    let e = refused(&["trace", "puzzles/classic.txt", "--run", "4294967296"]);
    assert!(e.contains("--run: 4294967296 does not fit"), "{e}");
    let e = refused(&["trace", "puzzles/classic.txt", "--index", "4294967296"]);
    assert!(e.contains("out of range"), "{e}");
}

#[test]
fn runs_that_would_not_fit_in_memory_are_refused_at_once() {
    let t = std::time::Instant::now();
    let e = refused(&[
        "batch",
        "puzzles/classic.txt",
        "--runs",
        "1000000000",
        "--backend",
        "cpu",
    ]);
    assert!(e.contains("1000000000 instances would need about"), "{e}");
    assert!(e.contains("use fewer --runs"), "{e}");
    let e = refused(&[
        "compare",
        "puzzles/classic.txt",
        "--runs",
        "4000000000",
        "--algos",
        "mrv",
    ]);
    assert!(e.contains("instances would need about"), "{e}");
    assert!(t.elapsed().as_secs() < 20, "refused before any work");
}
