//! The library builds without the command-line stack: with `default-features = false` (no
//! `cli` feature) none of clap, clap_complete, clap_mangen or indicatif is among its normal
//! dependencies; with the default features (the binary) they are, so the check can fail.

use std::process::Command;

/// The crates only the command line (src/main.rs, src/cli/) uses.
const CLI_CRATES: [&str; 4] = ["clap", "clap_complete", "clap_mangen", "indicatif"];

/// `cargo tree --prefix none` of this workspace's `package`, with `extra` arguments.
fn tree(package: &str, extra: &[&str]) -> String {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(&cargo)
        .args(["tree", "--manifest-path", manifest, "--locked", "--offline"])
        .args(["--prefix", "none", "--package", package])
        .args(extra)
        .output()
        .unwrap_or_else(|e| panic!("running {cargo} tree: {e}"));
    assert!(
        out.status.success(),
        "cargo tree {extra:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The names of the crates `cargo tree` lists for this package's normal dependencies, with
/// `extra` arguments (the features).
fn dependency_names(extra: &[&str]) -> Vec<String> {
    names(&tree(
        "gpu-sudoku",
        &[&["--edges", "normal"], extra].concat(),
    ))
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

/// Every crate both the binary (default features) and the Python package build resolves to
/// the same features in both, so that `cargo install --path .` and `pip install ./python`
/// share their release artifacts in target/ (CI builds both; the `syn` build-dependencies in
/// the two manifests keep the proc-macro crates aligned). A crate that differs is named.
#[test]
fn the_binary_and_the_python_package_share_every_dependency() {
    let features = |package: &str| -> std::collections::BTreeMap<String, String> {
        tree(package, &["--edges", "normal,build", "--format", "{p} {f}"])
            .lines()
            .filter_map(|l| {
                let mut words = l.split_whitespace();
                let key = format!("{} {}", words.next()?, words.next()?);
                let f: Vec<&str> = words.filter(|w| !w.starts_with('(')).collect();
                Some((key, f.join(",")))
            })
            .filter(|(key, _)| !key.starts_with("gpu-sudoku"))
            .collect()
    };
    let binary = features("gpu-sudoku");
    let python = features("gpu-sudoku-python");
    assert!(binary.keys().any(|k| k.starts_with("wgpu ")), "{binary:?}");
    let differ: Vec<String> = binary
        .iter()
        .filter_map(|(k, f)| {
            let g = python.get(k)?;
            (f != g).then(|| format!("{k}: binary [{f}], python [{g}]"))
        })
        .collect();
    assert!(differ.is_empty(), "features differ: {differ:#?}");
}
