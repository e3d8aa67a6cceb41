//! CONTRIBUTING.md names real files and items: every repository path in a code span (`src/…`,
//! `shaders/ilca.wgsl`, `scripts/device/`, `tests/agree_*.rs`, `build.rs`) exists in the tree,
//! and every Rust name in a code span (`IlcaParams`, `State::learn`, `setting_words()`) occurs
//! in the sources. The whole file is checked, every section.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Folders not in the repository's tree (at any depth): build outputs and Git's state.
const NOT_IN_TREE: &[&str] = &["target", ".git"];

/// The contents of the inline code spans of a Markdown text (fenced blocks left out). A span
/// opens with a run of backticks and closes at the next run of the same length; it may cross a
/// line break (read as a space).
fn code_spans(text: &str) -> Vec<String> {
    let mut prose = String::new();
    // The length of the open fence's backtick run, inside a fenced block.
    let mut fence: Option<usize> = None;
    for line in text.lines() {
        let t = line.trim_start();
        let run = t.chars().take_while(|&c| c == '`').count();
        match fence {
            // Closed by a line of at least as many backticks and nothing else.
            Some(open) => {
                if run >= open && t[run..].trim().is_empty() {
                    fence = None;
                }
                continue;
            }
            // Opened by three or more backticks and an info string without any (a line that
            // starts with a code span, "```` ```rust ````", opens none).
            None if run >= 3 && !t[run..].contains('`') => {
                fence = Some(run);
                continue;
            }
            None => {}
        }
        prose.push_str(line);
        prose.push('\n');
    }
    let chars: Vec<char> = prose.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|&&c| c == '`').count();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            i += 1;
            continue;
        }
        let n = run_at(i);
        let start = i + n;
        let mut j = start;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let m = run_at(j);
                if m == n {
                    close = Some(j);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                let body: String = chars[start..j].iter().collect();
                spans.push(body.replace('\n', " ").trim().to_string());
                i = j + n;
            }
            // An unmatched run is literal text.
            None => i = start,
        }
    }
    spans
}

/// Does `span` name a file or folder of the repository? A relative path (letters, digits,
/// `_ - . / *`) with a `/` whose first part is a top-level entry of the tree, whose last part
/// has an extension or which ends with `/` (`src/ilca/cpu.rs`, `tests/agree_*.rs`, `scripts/`), or a bare file
/// name of a source kind (`build.rs`, `setup.sh`). Build outputs (`target/…`) are not.
fn is_repo_path(span: &str, top_level: &BTreeSet<String>) -> bool {
    let path_chars = |c: char| c.is_ascii_alphanumeric() || "_-./*".contains(c);
    if span.is_empty() || !span.chars().all(path_chars) || span.starts_with('/') {
        return false;
    }
    let first = span.split('/').next().unwrap();
    if NOT_IN_TREE.contains(&first) {
        return false;
    }
    let last = span.trim_end_matches('/').rsplit('/').next().unwrap();
    let has_extension = last.rfind('.').is_some_and(|i| i > 0 && i + 1 < last.len());
    if span.contains('/') {
        top_level.contains(first) || has_extension || span.ends_with('/')
    } else {
        ["rs", "wgsl", "toml", "sh"]
            .iter()
            .any(|ext| last.ends_with(&format!(".{ext}")) && last.len() > ext.len() + 1)
    }
}

/// Does `name` match the glob `pattern` (`*` within a part, `**` any number of parts)?
fn glob_match(pattern: &[&str], name: &[&str]) -> bool {
    fn part(p: &[u8], s: &[u8]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((b'*', rest)) => (0..=s.len()).any(|k| part(rest, &s[k..])),
            Some((c, rest)) => s.first() == Some(c) && part(rest, &s[1..]),
        }
    }
    match pattern.split_first() {
        None => name.is_empty(),
        Some((&"**", rest)) => (0..=name.len()).any(|k| glob_match(rest, &name[k..])),
        Some((p, rest)) => {
            !name.is_empty()
                && part(p.as_bytes(), name[0].as_bytes())
                && glob_match(rest, &name[1..])
        }
    }
}

/// Every file and folder under `root` (relative, `/`-separated, folders ending with `/`),
/// without [`NOT_IN_TREE`].
fn tree(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel.split('/').any(|part| NOT_IN_TREE.contains(&part)) {
                continue;
            }
            if p.is_dir() {
                out.push(format!("{rel}/"));
                walk(root, &p, out);
            } else {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out
}

/// The repository paths `text` names in code spans that `entries` (as [`tree`] lists them) do
/// not hold.
fn missing_paths(text: &str, entries: &[String]) -> Vec<String> {
    let top_level: BTreeSet<String> = entries
        .iter()
        .filter(|e| !e.trim_end_matches('/').contains('/'))
        .map(|e| e.trim_end_matches('/').to_string())
        .collect();
    let files: BTreeSet<&str> = entries.iter().map(String::as_str).collect();
    let exists = |span: &str| -> bool {
        if !span.contains('/') {
            // A bare file name: somewhere in the tree.
            return entries.iter().any(|e| e.rsplit('/').next() == Some(span));
        }
        if span.contains('*') {
            let pattern: Vec<&str> = span.trim_end_matches('/').split('/').collect();
            return entries.iter().any(|e| {
                let parts: Vec<&str> = e.trim_end_matches('/').split('/').collect();
                glob_match(&pattern, &parts)
            });
        }
        // `src/cli` names the folder as well as `src/cli/` does.
        files.contains(span)
            || files.contains(format!("{span}/").as_str())
            || (span.ends_with('/') && files.contains(span.trim_end_matches('/')))
    };
    code_spans(text)
        .into_iter()
        .filter(|s| is_repo_path(s, &top_level) && !exists(s))
        .collect()
}

/// Rust names in code spans: a path of identifiers (`a::B`, `B::c()`, `wgsl_struct!`), or one
/// identifier in CamelCase (`IlcaParams`) or with `()` (`setting_words()`); plain lowercase
/// words (`share`, `learn`) are not taken for items. Returns the names of their parts.
fn rust_names(text: &str) -> BTreeSet<String> {
    let ident = |s: &str| {
        let mut c = s.chars();
        c.next()
            .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
            && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
    };
    let mut out = BTreeSet::new();
    for span in code_spans(text) {
        let bare = span
            .strip_suffix("()")
            .or_else(|| span.strip_suffix('!'))
            .unwrap_or(&span);
        let parts: Vec<&str> = bare.split("::").collect();
        if !parts.iter().all(|p| ident(p)) {
            continue;
        }
        let camel = bare.starts_with(|c: char| c.is_ascii_uppercase())
            && bare.chars().any(|c| c.is_ascii_lowercase());
        if parts.len() > 1 || bare.len() < span.len() || camel {
            out.extend(
                parts
                    .into_iter()
                    .filter(|p| !["crate", "self", "super", "gpu_sudoku", "std"].contains(p))
                    .map(str::to_string),
            );
        }
    }
    out
}

/// Does `word` occur as a whole word (identifier characters around it) in `code`?
fn has_word(code: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.match_indices(word).any(|(i, _)| {
        !code[..i].chars().next_back().is_some_and(is_ident)
            && !code[i + word.len()..].chars().next().is_some_and(is_ident)
    })
}

/// The Rust and WGSL sources of the repository, concatenated.
fn sources() -> String {
    let root = Path::new(ROOT);
    let mut code = std::fs::read_to_string(root.join("build.rs")).unwrap();
    let mut files: Vec<PathBuf> = Vec::new();
    for e in tree(root) {
        let top = e.split('/').next().unwrap();
        let ours = ["src", "shaders", "tests", "benches", "research", "fuzz"].contains(&top);
        if ours && (e.ends_with(".rs") || e.ends_with(".wgsl")) {
            files.push(root.join(&e));
        }
    }
    for f in files {
        code += &std::fs::read_to_string(f).unwrap();
    }
    code
}

fn contributing() -> String {
    std::fs::read_to_string(Path::new(ROOT).join("CONTRIBUTING.md")).unwrap()
}

#[test]
fn every_path_in_contributing_exists() {
    let text = contributing();
    let entries = tree(Path::new(ROOT));
    let missing = missing_paths(&text, &entries);
    assert!(
        missing.is_empty(),
        "CONTRIBUTING.md names paths that are not in the repository: {missing:?}"
    );
    // The check reads the walkthrough's files (so it is not vacuous).
    let spans = code_spans(&text);
    for p in [
        "src/ilca/cpu.rs",
        "shaders/ilca.wgsl",
        "tests/agree_ilca.rs",
    ] {
        assert!(
            spans.iter().any(|s| s == p),
            "{p} not found in CONTRIBUTING.md"
        );
    }
}

#[test]
fn every_rust_name_in_contributing_is_in_the_sources() {
    let code = sources();
    let names = rust_names(&contributing());
    assert!(names.contains("IlcaParams"), "{names:?}");
    let unknown: Vec<&String> = names.iter().filter(|n| !has_word(&code, n)).collect();
    assert!(
        unknown.is_empty(),
        "CONTRIBUTING.md names Rust items the sources do not have: {unknown:?}"
    );
}

#[test]
fn spans_are_read_as_markdown_does() {
    let text = "a `src/x.rs` and ``b ` c``, `one\ntwo` and ` `` ` \n```text\n`in/fence.rs`\n```\n\
                ```` ```rust ```` opens no fence: `x`";
    assert_eq!(
        code_spans(text),
        ["src/x.rs", "b ` c", "one two", "``", "```rust", "x"]
    );
    // A run of backticks without a closing run of the same length is text.
    assert_eq!(code_spans("a ``x` b `y`"), ["b"]);
}

#[test]
fn made_up_paths_are_caught_and_others_are_not_taken_for_paths() {
    let entries: Vec<String> = [
        "src/",
        "src/ilca/",
        "src/ilca/cpu.rs",
        "tests/",
        "tests/agree_ilca.rs",
        "docs/",
        "docs/GPU.md",
        "scripts/",
        "scripts/device/",
        "scripts/device/setup.sh",
        "build.rs",
    ]
    .map(String::from)
    .to_vec();
    let text = "Edit `src/ilca/cpu.rs`, `src/ilca/`, `src/ilca`, `scripts/device/`, `build.rs`, \
                `setup.sh`, `tests/agree_*.rs`, `docs/**/*.md`; not paths: `target/release/x`, \
                `/`, `lp/lr`, `--share 0.05`, `off|singles`, `.doc-test.err`, `IlcaParams`. \
                Made up: `src/ilca/nope.rs`, `shaders/`, `tests/agree_*.wgsl`, `nope/x.rs`, \
                `made_up.rs`.";
    assert_eq!(
        missing_paths(text, &entries),
        [
            "src/ilca/nope.rs",
            "shaders/",
            "tests/agree_*.wgsl",
            "nope/x.rs",
            "made_up.rs"
        ]
    );
}

#[test]
fn rust_names_are_read_and_made_up_ones_caught() {
    let text =
        "`IlcaParams`, `State::learn`, `setting_words()`, `wgsl_struct!`, `gpu_sudoku::ilca`, \
                `share`, `SET_STRIDE`, `--share`, `impl Default for X`, `NoSuchItem`";
    let names = rust_names(text);
    let want = [
        "IlcaParams",
        "NoSuchItem",
        "State",
        "ilca",
        "learn",
        "setting_words",
        "wgsl_struct",
    ];
    assert_eq!(names.iter().map(String::as_str).collect::<Vec<_>>(), want);
    let code = "pub struct IlcaParams; impl State { fn learn() {} } fn setting_words() {} \
                macro_rules! wgsl_struct {} mod ilca; struct NoSuchItemAtAll;";
    let unknown: Vec<&String> = names.iter().filter(|n| !has_word(code, n)).collect();
    assert_eq!(unknown, ["NoSuchItem"]);
}
