//! Property tests of the puzzle parser: whatever the input, it returns puzzles or an error
//! that names a place, and never panics.

use gpu_sudoku::puzzle::{parse_str, read_puzzles};
use proptest::prelude::*;

fn check_error_place(text: &str, e: &gpu_sudoku::puzzle::ParseError) {
    let lines = text.split('\n').count();
    assert!(e.line <= lines, "line {} of {lines}: {e}", e.line);
    if e.line == 0 {
        assert!(e.column.is_none());
    }
    if let Some(c) = e.column {
        assert!(c >= 1);
        let line = text.split('\n').nth(e.line - 1).unwrap();
        assert!(
            c <= line.chars().count() + 1,
            "column {c} beyond line {line:?}: {e}"
        );
    }
    let shown = e.to_string();
    assert!(shown.starts_with("<input>"), "{shown}");
    assert!(!e.message.is_empty());
}

const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_text_parses_or_fails_with_a_place(text in "\\PC{0,400}") {
        match parse_str(&text, None) {
            Ok(ps) => prop_assert!(!ps.is_empty()),
            Err(e) => check_error_place(&text, &e),
        }
    }

    #[test]
    fn puzzle_like_text_parses_or_fails_with_a_place(
        text in "([0-9A-Ga-g._ #x-]{0,90}\n){0,20}"
    ) {
        for side in [None, Some(4), Some(9), Some(16)] {
            match parse_str(&text, side) {
                Ok(ps) => {
                    for p in ps {
                        prop_assert!(p.grid.is_consistent());
                        prop_assert!(p.line >= 1);
                    }
                }
                Err(e) => check_error_place(&text, &e),
            }
        }
    }

    #[test]
    fn a_mutated_classic_is_read_or_located(pos in 0usize..81, ch in any::<char>()) {
        // A line break would move the rest of the puzzle to the next line: not a mutation in place.
        prop_assume!(ch != '\n');
        let mut chars: Vec<char> = CLASSIC.chars().collect();
        chars[pos] = ch;
        let text: String = format!("# header\n{}\n", chars.into_iter().collect::<String>());
        match parse_str(&text, None) {
            Ok(ps) => {
                prop_assert_eq!(ps.len(), 1);
                prop_assert!(ps[0].grid.is_consistent());
            }
            Err(e) => {
                check_error_place(&text, &e);
                prop_assert!(e.line == 2, "{}", e);
            }
        }
    }

    #[test]
    fn integer_rows_parse_or_fail_with_a_place(
        rows in prop::collection::vec(prop::collection::vec(-2i32..20, 4..=4), 0..6)
    ) {
        let text: String = rows
            .iter()
            .map(|r| r.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" ") + "\n")
            .collect();
        match parse_str(&text, None) {
            Ok(ps) => prop_assert!(ps.iter().all(|p| p.grid.side() == 4)),
            Err(e) => check_error_place(&text, &e),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Raw bytes through a real file (binary junk included).
    #[test]
    fn random_bytes_in_a_file_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("parser-props");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("junk-{}.txt", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let p = path.to_str().unwrap();
        if let Err(e) = read_puzzles(p, None) {
            prop_assert!(e.to_string().starts_with(p));
            prop_assert!(e.line <= bytes.split(|&b| b == b'\n').count());
        }
    }
}
