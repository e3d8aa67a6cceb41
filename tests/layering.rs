//! The library's layering, checked on the source: device plumbing, puzzles, reports and the
//! exact solver import no algorithm; the two algorithms do not import each other; nothing in
//! the library imports the command line (which lives in the binary).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level modules (`crate::X`) a library file refers to outside its tests.
fn imports(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap();
    let mut found = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        found.insert(name);
    }
    found
}

#[test]
fn no_module_imports_upward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let algorithms = ["ilca", "rfss", "baselines", "sweep", "generate", "plot"];
    // (module, what it must not import)
    let rules: Vec<(&str, Vec<&str>)> = vec![
        ("gpu", algorithms.to_vec()),
        ("puzzle", algorithms.to_vec()),
        ("report", algorithms.to_vec()),
        ("exact", algorithms.to_vec()),
        ("backend", algorithms.to_vec()),
        ("rng", algorithms.to_vec()),
        ("ilca", vec!["rfss", "baselines", "sweep", "plot"]),
        ("rfss", vec!["ilca", "baselines", "sweep", "plot"]),
    ];
    let mut bad = Vec::new();
    let mut checked = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let module = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if rel.file_name().is_some_and(|n| n == "tests.rs") || module == "cli" {
            continue;
        }
        let found = imports(f);
        assert!(
            !found.contains("cli"),
            "{}: the library must not use the CLI",
            rel.display()
        );
        for (m, forbidden) in &rules {
            if *m == module {
                checked += 1;
                for x in forbidden {
                    if found.contains(*x) {
                        bad.push(format!("{} imports crate::{x}", rel.display()));
                    }
                }
            }
        }
    }
    assert!(
        checked >= 20,
        "only {checked} files checked: is src/ where it should be?"
    );
    assert!(bad.is_empty(), "upward imports:\n{}", bad.join("\n"));
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    assert!(!lib.contains("mod cli"), "the CLI belongs to the binary");
}

/// README's "Where things are" names every entry of `src/` (and nothing that is gone).
#[test]
fn readme_map_matches_the_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let map = readme
        .split("## Where things are")
        .nth(1)
        .expect("README has a 'Where things are' section");
    let map = map.split("\n## ").next().unwrap();
    let mut missing = Vec::new();
    for e in std::fs::read_dir(root.join("src")).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let shown = if e.path().is_dir() {
            format!("`src/{name}/")
        } else {
            format!("`src/{name}`")
        };
        if !map.contains(&shown) {
            missing.push(shown);
        }
    }
    assert!(missing.is_empty(), "README's map misses {missing:?}");
    // Every `src/…` path the map names exists.
    for part in map.split('`').skip(1).step_by(2) {
        if let Some(path) = part.strip_prefix("src/") {
            let path = path.split(['{', ' ']).next().unwrap();
            assert!(
                root.join("src").join(path).exists(),
                "README's map names src/{path}, which is gone"
            );
        }
    }
}
