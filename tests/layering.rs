//! The library's layering, checked on the source: device plumbing, puzzles, reports and the
//! exact solver import no algorithm; the two algorithms do not import each other; nothing in
//! the library imports the command line (which lives in the binary); and no two library files
//! import each other, directly or through a loop (a child naming its parent's `mod.rs` aside).

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

/// The names that follow each of `prefixes` in `code` (`crate::` gives the top-level modules a
/// file refers to).
fn names_after(code: &str, prefixes: &[&str]) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for prefix in prefixes {
        for (i, _) in code.match_indices(prefix) {
            let name: String = code[i + prefix.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            found.insert(name);
        }
    }
    found
}

/// The top-level modules (`crate::X`) a library file refers to outside its tests.
fn imports(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap();
    names_after(text.split("#[cfg(test)]").next().unwrap(), &["crate::"])
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

// ---------------------------------------------------------------------------------------------
// No import cycles between library files.
//
// A graph of the library's source files (the module tree `src/lib.rs` declares outside its
// tests: so not `src/main.rs`, not `src/cli/`, not the `tests.rs` files), with an edge A → B
// when A's code (before its `#[cfg(test)]`, comments and string literals left out) names a path
// into B: `crate::…`, `super::…`, `self::…`, or a child module A declares (`format::…` in a
// `mod.rs` that has `mod format;`), `use` trees (`super::{a::X, b::Y}`) included. A path
// `crate::a::b::C` goes to the longest module prefix that is a file: `src/a/b.rs` or
// `src/a/b/mod.rs` when it exists, else `src/a.rs` or `src/a/mod.rs`, else `src/lib.rs`.
// Declaring a child (`mod x;`) is not an import.
//
// Allowed: a child file naming its own parent's `mod.rs` (or a top-level file naming
// `lib.rs`). A `mod.rs` that defines shared types (`exact::Branching`, `sweep::Param`,
// `puzzle::Grid`…) and re-exports its children's items is how most of the library's modules
// are laid out; the test first found such parent/child loops in eight modules (exact,
// generate, gpu, plot, puzzle, reproduce, rfss, sweep), too many to move into files of their
// own at once. So those edges are left out ([`without_child_to_parent`]); any other loop,
// between siblings, across modules, or through a grandparent, fails the test.

/// Module path (`["puzzle", "parse"]`) → file (relative to `src/`, `/`-separated).
type Modules = std::collections::BTreeMap<Vec<String>, String>;
/// File → the files it refers to, each with one path that made the edge.
type Graph = std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>;

/// `text` with comments, string and char literals blanked out (lines kept), so that only code
/// is searched.
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                    out.push_str("  ");
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    out.push_str("  ");
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !(i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_'))
        {
            // Raw string r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            while j < b.len() {
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &x in &b[i..j.min(b.len())] {
                blank(&mut out, x);
            }
            i = j;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < b.len() {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}'), not a lifetime ('a).
            let end = if next == Some('\\') {
                (i + 2..b.len()).find(|&j| b[j] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    for &x in &b[i..=e] {
                        blank(&mut out, x);
                    }
                    i = e + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Identifiers, `::` and single punctuation characters of `code`.
fn tokens(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(b[start..i].iter().collect());
        } else if c == ':' && b.get(i + 1) == Some(&':') {
            out.push("::".into());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// The part of a file that builds outside tests.
fn non_test_code(text: &str) -> String {
    let code = code_only(text);
    code.split("#[cfg(test)]").next().unwrap().to_string()
}

/// The `mod x;` declarations of a file's code (not inline `mod x { … }`).
fn declared_children(tokens: &[String]) -> Vec<String> {
    (0..tokens.len().saturating_sub(2))
        .filter(|&i| tokens[i] == "mod" && tokens[i + 2] == ";")
        .map(|i| tokens[i + 1].clone())
        .collect()
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Every full path (module path of the item) that the code names, from `tokens` of the file
/// at module path `here`: expands `super`/`self`/`crate` and the file's own children, and the
/// branches of `use` trees.
fn named_paths(tokens: &[String], here: &[String], children: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        let after_sep = i > 0 && (tokens[i - 1] == "::" || tokens[i - 1] == ".");
        let starts = tokens.get(i + 1).is_some_and(|n| n == "::")
            && !after_sep
            && (matches!(t, "crate" | "super" | "self") || children.iter().any(|c| c == t));
        if !starts {
            i += 1;
            continue;
        }
        let mut base: Vec<String> = match t {
            "crate" => Vec::new(),
            "super" => here[..here.len().saturating_sub(1)].to_vec(),
            "self" => here.to_vec(),
            child => here.iter().cloned().chain([child.to_string()]).collect(),
        };
        i += 2;
        // More `super::` after the first.
        while tokens.get(i).is_some_and(|t| t == "super")
            && tokens.get(i + 1).is_some_and(|t| t == "::")
        {
            base.pop();
            i += 2;
        }
        i = use_tree(tokens, i, base, &mut out);
    }
    out
}

/// Reads the rest of a path (or `use` tree) at `tokens[i]` under `prefix`, pushing each full
/// path; returns the index after it.
fn use_tree(
    tokens: &[String],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        match tokens.get(i).map(String::as_str) {
            Some("{") => {
                i += 1;
                loop {
                    match tokens.get(i).map(String::as_str) {
                        None => return i,
                        Some("}") => return i + 1,
                        Some(",") => i += 1,
                        Some("self") => {
                            out.push(prefix.clone());
                            i += 1;
                        }
                        _ => i = use_tree(tokens, i, prefix.clone(), out),
                    }
                }
            }
            Some("*") => {
                out.push(prefix);
                return i + 1;
            }
            Some(t) if is_ident(t) => {
                prefix.push(t.to_string());
                i += 1;
                if tokens.get(i).is_some_and(|t| t == "::") {
                    i += 1;
                    continue;
                }
                // `as name`, or the path ends.
                if tokens.get(i).is_some_and(|t| t == "as") {
                    i += 2;
                }
                out.push(prefix);
                return i;
            }
            _ => {
                // `crate::` then `<`, `!`…: the path so far.
                out.push(prefix);
                return i;
            }
        }
    }
}

/// The file of the longest prefix of `path` that is a module with a file.
fn file_of(path: &[String], modules: &Modules) -> Option<String> {
    (0..=path.len())
        .rev()
        .find_map(|k| modules.get(&path[..k]).cloned())
}

/// The library's files, by module path: the module tree from `lib.rs`, following `mod x;`
/// outside `#[cfg(test)]`.
fn library_modules(src: &Path) -> Modules {
    let mut modules = Modules::new();
    let mut todo = vec![(Vec::<String>::new(), "lib.rs".to_string())];
    while let Some((module, file)) = todo.pop() {
        let text = std::fs::read_to_string(src.join(&file)).unwrap();
        let toks = tokens(&non_test_code(&text));
        // Children of `a/b.rs` and of `a/b/mod.rs` both live in `a/b/`.
        let dir: String = module.iter().map(|m| format!("{m}/")).collect();
        for child in declared_children(&toks) {
            let flat = format!("{dir}{child}.rs");
            let nested = format!("{dir}{child}/mod.rs");
            let f = if src.join(&flat).exists() {
                flat
            } else {
                nested
            };
            assert!(
                src.join(&f).exists(),
                "{file} declares mod {child}, not found"
            );
            let mut m = module.clone();
            m.push(child);
            todo.push((m, f));
        }
        modules.insert(module, file);
    }
    modules
}

/// The import graph of files given as (module path, file, its text).
fn import_graph<'a>(
    files: impl IntoIterator<Item = (&'a [String], &'a str, &'a str)>,
    modules: &Modules,
) -> Graph {
    let mut graph = Graph::new();
    for (module, file, text) in files {
        let toks = tokens(&non_test_code(text));
        let children = declared_children(&toks);
        let edges = graph.entry(file.to_string()).or_default();
        for path in named_paths(&toks, module, &children) {
            if let Some(target) = file_of(&path, modules) {
                if target != file {
                    edges
                        .entry(target)
                        .or_insert_with(|| format!("crate::{}", path.join("::")));
                }
            }
        }
    }
    graph
}

/// `graph` without the edges from a file to its own parent module's file (`a/x.rs` →
/// `a/mod.rs`, `a.rs` → `lib.rs`): see the note above.
fn without_child_to_parent(graph: &Graph, modules: &Modules) -> Graph {
    let module_of: std::collections::BTreeMap<&str, &[String]> = modules
        .iter()
        .map(|(m, f)| (f.as_str(), m.as_slice()))
        .collect();
    let mut kept = graph.clone();
    for (file, edges) in kept.iter_mut() {
        let Some(m) = module_of.get(file.as_str()).filter(|m| !m.is_empty()) else {
            continue;
        };
        let parent = &m[..m.len() - 1];
        edges.retain(|target, _| module_of.get(target.as_str()) != Some(&parent));
    }
    kept
}

/// The strongly connected components of more than one file (Tarjan): each holds one or more
/// cycles.
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: std::collections::BTreeMap<&'g str, usize>,
        low: std::collections::BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(edges) = s.graph.get(v) {
            for w in edges.keys() {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if s.on_stack.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: Default::default(),
        low: Default::default(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found.sort();
    s.found
}

/// A cycle's files and the edges between them, for the message.
fn describe(component: &[String], graph: &Graph) -> String {
    let mut lines = vec![format!("cycle among {}:", component.join(", "))];
    for a in component {
        for (b, via) in &graph[a] {
            if component.contains(b) {
                lines.push(format!("  src/{a} -> src/{b} (names {via})"));
            }
        }
    }
    lines.join("\n")
}

#[test]
fn no_library_files_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = library_modules(&src);
    assert!(
        modules.len() >= 40,
        "only {} library files found: is src/ where it should be?",
        modules.len()
    );
    assert!(!modules
        .values()
        .any(|f| f.starts_with("cli/") || f == "main.rs"));
    let texts: Vec<(Vec<String>, String, String)> = modules
        .iter()
        .map(|(m, f)| {
            (
                m.clone(),
                f.clone(),
                std::fs::read_to_string(src.join(f)).unwrap(),
            )
        })
        .collect();
    let graph = import_graph(
        texts
            .iter()
            .map(|(m, f, t)| (m.as_slice(), f.as_str(), t.as_str())),
        &modules,
    );
    // The graph is read at all: edges there are, and one known.
    let edge_count: usize = graph.values().map(|e| e.len()).sum();
    assert!(edge_count >= 100, "only {edge_count} imports found");
    assert!(graph["puzzle/parse.rs"].contains_key("puzzle/lines.rs"));
    let graph = without_child_to_parent(&graph, &modules);
    let found = cycles(&graph);
    assert!(
        found.is_empty(),
        "library files that import each other, directly or through others:\n{}",
        found
            .iter()
            .map(|c| describe(c, &graph))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The cycle finder finds a cycle it is shown, from source text through to the message.
#[test]
fn the_cycle_finder_finds_a_made_up_cycle() {
    let m = |p: &str| -> Vec<String> {
        p.split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    let modules: Modules = [
        ("", "lib.rs"),
        ("a", "a/mod.rs"),
        ("a::x", "a/x.rs"),
        ("a::y", "a/y.rs"),
        ("b", "b.rs"),
        ("c", "c.rs"),
    ]
    .into_iter()
    .map(|(p, f)| (m(p), f.to_string()))
    .collect();
    let files = [
        ("", "lib.rs", "pub mod a; pub mod b; pub mod c;"),
        // The parent re-exports a child item; declaring children is no import.
        ("a", "a/mod.rs", "mod x; mod y; pub use y::Y;"),
        // Through a `use` tree to a sibling; a string and a comment that name others do not count.
        (
            "a::x",
            "a/x.rs",
            "use super::{y::Y, *}; // crate::c::C\nconst S: &str = \"crate::b\";",
        ),
        ("a::y", "a/y.rs", "pub struct Y(crate::b::B);"),
        // A three-file loop: b → c → a::x → a::y → b.
        (
            "b",
            "b.rs",
            "pub struct B; fn f() -> crate::c::C { todo!() }",
        ),
        (
            "c",
            "c.rs",
            "pub struct C(super::a::x::X);\n#[cfg(test)]\nuse crate::b::B;",
        ),
    ];
    let graph = import_graph(
        files.iter().map(|(p, f, t)| {
            (
                modules.keys().find(|k| **k == m(p)).unwrap().as_slice(),
                *f,
                *t,
            )
        }),
        &modules,
    );
    let edges = |f: &str| graph[f].keys().cloned().collect::<Vec<_>>();
    assert_eq!(edges("lib.rs"), Vec::<String>::new());
    assert_eq!(edges("a/mod.rs"), ["a/y.rs"]);
    assert_eq!(edges("a/x.rs"), ["a/mod.rs", "a/y.rs"]);
    assert_eq!(edges("c.rs"), ["a/x.rs"]);
    // With the child → parent edge a/x.rs → a/mod.rs (from `*`), the parent joins the loop.
    let found = cycles(&graph);
    assert_eq!(
        found,
        [vec!["a/mod.rs", "a/x.rs", "a/y.rs", "b.rs", "c.rs"]]
    );
    // Without it, the loop of four remains.
    let graph = without_child_to_parent(&graph, &modules);
    assert_eq!(edges("a/x.rs"), ["a/mod.rs", "a/y.rs"], "the filter copies");
    assert_eq!(graph["a/x.rs"].keys().collect::<Vec<_>>(), ["a/y.rs"]);
    let found = cycles(&graph);
    assert_eq!(found, [vec!["a/x.rs", "a/y.rs", "b.rs", "c.rs"]]);
    let message = describe(&found[0], &graph);
    assert!(
        message.contains("src/a/y.rs -> src/b.rs (names crate::b::B)"),
        "{message}"
    );
    // Breaking one edge breaks the loop.
    let mut acyclic = graph.clone();
    acyclic.get_mut("b.rs").unwrap().clear();
    assert!(cycles(&acyclic).is_empty());
    // Two siblings that name each other are a loop even under the allowance.
    let graph = import_graph(
        [
            (m("a::x").as_slice(), "a/x.rs", "use super::y::Y;"),
            (m("a::y").as_slice(), "a/y.rs", "pub struct Y(super::x::X);"),
        ],
        &modules,
    );
    assert_eq!(
        cycles(&without_child_to_parent(&graph, &modules)),
        [vec!["a/x.rs", "a/y.rs"]]
    );
}

/// The modules of `src/cli/` that every command may use: flag groups, output and progress.
/// Every other module is a command, and no command imports another's module (what two
/// commands share lives in one of these, or in the library).
const CLI_SHARED: &[&str] = &[
    "mod",
    "args",
    "ilca_args",
    "rfss_args",
    "output",
    "progress",
];

/// The `src/cli/` modules `code` refers to (`super::X`, `crate::cli::X`).
fn cli_modules_used(code: &str) -> BTreeSet<String> {
    names_after(code, &["super::", "crate::cli::"])
}

#[test]
fn no_command_imports_another() {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let mut files = Vec::new();
    rust_files(&cli, &mut files);
    let commands: BTreeSet<String> = files
        .iter()
        .map(|f| f.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|m| !CLI_SHARED.contains(&m.as_str()))
        .collect();
    assert!(
        commands.len() >= 10,
        "only {commands:?}: is src/cli/ there?"
    );
    let mut bad = Vec::new();
    for f in &files {
        let me = f.file_stem().unwrap().to_string_lossy().into_owned();
        if me == "mod" {
            continue; // it dispatches to every command
        }
        let text = std::fs::read_to_string(f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        for used in cli_modules_used(code) {
            if used != me && commands.contains(&used) {
                bad.push(format!("src/cli/{me}.rs uses the command module `{used}`"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The check sees an import where there is one.
    assert!(cli_modules_used("use super::solve::classify;").contains("solve"));
}

/// The functions of `code` (outside its tests) with their length in lines: from the `fn` line
/// to the closing brace at the same indentation.
fn function_lengths(code: &str) -> Vec<(String, usize)> {
    let code = code.split("#[cfg(test)]").next().unwrap();
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let after_vis = body
            .strip_prefix("pub(crate) ")
            .or_else(|| body.strip_prefix("pub "))
            .unwrap_or(body);
        let Some(rest) = after_vis.strip_prefix("fn ") else {
            continue;
        };
        if line.trim_end().ends_with(';') {
            continue; // a declaration without a body
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        if let Some(end) = lines[i..].iter().position(|l| l.trim_end() == close) {
            out.push((name, end + 1));
        }
    }
    out
}

/// The command line only parses and prints: no function under `src/cli/` is longer than 80
/// lines (the work is the library's).
#[test]
fn cli_functions_are_short() {
    const LIMIT: usize = 80;
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let mut files = Vec::new();
    rust_files(&cli, &mut files);
    let mut long = Vec::new();
    for f in &files {
        for (name, len) in function_lengths(&std::fs::read_to_string(f).unwrap()) {
            if len > LIMIT {
                long.push(format!("{}: fn {name} is {len} lines", f.display()));
            }
        }
    }
    assert!(long.is_empty(), "over {LIMIT} lines:\n{}", long.join("\n"));
    let sample = "fn a() {\n    x();\n}\n\npub fn b(\n    y: u8,\n) -> u8 {\n    y\n}\n";
    assert_eq!(
        function_lengths(sample),
        vec![("a".to_string(), 3), ("b".to_string(), 5)]
    );
}
