//! The library builds without the command-line stack: with `default-features = false` (no
//! `cli` feature) none of clap, clap_complete, clap_mangen or indicatif is among its normal
//! dependencies; with the default features (the binary) they are, so the check can fail.

use std::process::Command;

/// The crates only the command line (src/main.rs, src/cli/) uses.
const CLI_CRATES: [&str; 4] = ["clap", "clap_complete", "clap_mangen", "indicatif"];

/// The names of the crates `cargo tree` lists for this package's normal dependencies, with
/// `extra` arguments (the features).
fn dependency_names(extra: &[&str]) -> Vec<String> {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(&cargo)
        .args(["tree", "--manifest-path", manifest])
        .args([
            "--edges",
            "normal",
            "--prefix",
            "none",
            "--locked",
            "--offline",
        ])
        .args(["--package", "gpu-sudoku"])
        .args(extra)
        .output()
        .unwrap_or_else(|e| panic!("running {cargo} tree: {e}"));
    assert!(
        out.status.success(),
        "cargo tree {extra:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    names(&String::from_utf8(out.stdout).unwrap())
}

/// The crate name of each line of `cargo tree --prefix none` (`clap v4.6.9 (*)` → `clap`).
fn names(tree: &str) -> Vec<String> {
    tree.lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn names_are_read_from_the_tree() {
    let tree = "gpu-sudoku v0.1.0 (/x)\nclap_builder v4.6.7\nclap v4.6.9 (*)\n";
    assert_eq!(names(tree), ["gpu-sudoku", "clap_builder", "clap"]);
}

#[test]
fn the_library_alone_has_no_cli_dependencies() {
    let lib = dependency_names(&["--no-default-features"]);
    assert!(
        lib.iter().any(|n| n == "wgpu"),
        "the tree lists the library's dependencies: {lib:?}"
    );
    let found: Vec<&str> = CLI_CRATES
        .into_iter()
        .filter(|c| lib.iter().any(|n| n == c))
        .collect();
    assert!(
        found.is_empty(),
        "the library without its `cli` feature depends on {found:?}: only src/main.rs and \
         src/cli/ may use them, and Cargo.toml must make them optional (feature `cli`)"
    );
    // The default features (the binary) do bring them in: the check above can fail.
    let full = dependency_names(&[]);
    for c in CLI_CRATES {
        assert!(
            full.iter().any(|n| n == c),
            "{c} is missing with the default features"
        );
    }
}
