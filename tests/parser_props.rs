//! Property tests of the puzzle readers: whatever the input and whatever the format asked for,
//! they return puzzles or an error that names a place, and never panic; every grid written in
//! any supported layout (gzip-compressed or not) reads back as itself. The reader of SAT
//! solvers' answers (`cnf --decode`) likewise: an answer or an error that names a place, and a
//! decoded grid is always a verified solution.

use gpu_sudoku::generate::{puzzle_rng, random_complete};
use gpu_sudoku::puzzle::{
    parse_str, read_puzzles, read_puzzles_from, Format, Grid, ParseError, PuzzleFile, ReadOptions,
};
use proptest::prelude::*;
use std::io::Write;

const FORMATS: [Format; 5] = [
    Format::Auto,
    Format::Line,
    Format::Integers,
    Format::Blocks,
    Format::Csv,
];

/// Lines as the readers count them: `\n`, `\r\n`, `\r`, NEL, U+2028 and U+2029 end a line.
fn text_lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']) {
        out.push(&rest[..i]);
        let ch = rest[i..].chars().next().unwrap();
        let mut next = i + ch.len_utf8();
        if ch == '\r' && rest[next..].starts_with('\n') {
            next += 1;
        }
        rest = &rest[next..];
    }
    out.push(rest);
    out
}

fn check_error_place(text: &str, e: &ParseError, name: &str) {
    let lines = text_lines(text.strip_prefix('\u{feff}').unwrap_or(text));
    assert!(
        e.line <= lines.len(),
        "line {} of {}: {e}",
        e.line,
        lines.len()
    );
    if e.line == 0 {
        assert!(e.column.is_none());
    }
    if let Some(c) = e.column {
        assert!(c >= 1);
        let line = lines[e.line - 1];
        assert!(
            c <= line.chars().count() + 1,
            "column {c} beyond line {line:?}: {e}"
        );
    }
    let shown = e.to_string();
    assert!(shown.starts_with(name), "{shown}");
    assert!(!e.message.is_empty());
}

fn read_with(text: &[u8], format: Format, side: Option<usize>) -> Result<PuzzleFile, ParseError> {
    let options = ReadOptions {
        side,
        format,
        column: None,
    };
    read_puzzles_from("<input>", text, &options)
}

/// Every format and size asked for: puzzles that hold their promises, or a placed error.
fn check_every_way(text: &str) {
    for format in FORMATS {
        for side in [None, Some(4), Some(9), Some(16)] {
            match read_with(text.as_bytes(), format, side) {
                Ok(f) => {
                    assert!(!f.puzzles.is_empty());
                    for p in &f.puzzles {
                        assert_eq!(p.grid.box_size(), f.b);
                        assert!(p.grid.is_consistent());
                        assert!(p.line >= 1);
                        if let Some(s) = &p.solution {
                            s.verify_solution_of(&p.grid).unwrap();
                        }
                    }
                }
                Err(e) => check_error_place(text, &e, "<input>"),
            }
        }
    }
}

const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const CLASSIC_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// A valid puzzle of box size `b` (every other cell of a random complete grid blanked) and
/// that grid.
fn puzzle_and_solution(b: usize, seed: u64) -> (Grid, Grid) {
    let full = random_complete(b, &mut puzzle_rng(seed, 0));
    let cells = full
        .cells()
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if (i * 7 + seed as usize).is_multiple_of(2) {
                0
            } else {
                v
            }
        })
        .collect();
    (Grid::from_cells(b, cells).unwrap(), full)
}

/// The puzzle in one of the supported layouts, and the format to force for it.
fn written(p: &Grid, s: &Grid, layout: usize) -> (String, Format) {
    match layout {
        0 => (format!("{} rated\n", p.to_line()), Format::Line),
        1 => (p.to_rows().replace(" 0", " -1"), Format::Integers),
        2 => (p.to_pretty(), Format::Blocks),
        _ => (
            format!("id,puzzle,solution\n1,{},{}\n", p.to_line(), s.to_line()),
            Format::Csv,
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_text_parses_or_fails_with_a_place(text in "\\PC{0,400}") {
        match parse_str(&text, None) {
            Ok(ps) => prop_assert!(!ps.is_empty()),
            Err(e) => check_error_place(&text, &e, "<input>"),
        }
    }

    #[test]
    fn puzzle_like_text_in_every_format(
        text in "([0-9A-Ga-g._ #x-]{0,90}[\n\r]{1,2}){0,20}"
    ) {
        check_every_way(&text);
    }

    #[test]
    fn block_like_text_in_every_format(
        text in "([1-9.|+ -]{0,14}(\n|\r\n|\r|\u{2028})){0,24}"
    ) {
        check_every_way(&text);
    }

    #[test]
    fn csv_like_text_in_every_format(
        text in "((quizzes|puzzle|id|\"x\")(,(solutions|solution|y|\"\")){0,2}\n)?([0-9.,\" ]{0,170}\n){0,4}"
    ) {
        check_every_way(&text);
    }

    #[test]
    fn a_mutated_classic_is_read_or_located(pos in 0usize..81, ch in any::<char>()) {
        // A line break would move the rest of the puzzle to the next line: not a mutation in place.
        prop_assume!(!matches!(ch, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}'));
        // A # first makes the line a comment.
        prop_assume!(pos > 0 || ch != '#');
        let mut chars: Vec<char> = CLASSIC.chars().collect();
        chars[pos] = ch;
        let text: String = format!("# header\n{}\n", chars.into_iter().collect::<String>());
        match parse_str(&text, None) {
            Ok(ps) => {
                prop_assert_eq!(ps.len(), 1);
                prop_assert!(ps[0].grid.is_consistent());
            }
            Err(e) => {
                check_error_place(&text, &e, "<input>");
                prop_assert!(e.line == 2, "{}", e);
            }
        }
    }

    #[test]
    fn a_mutated_kaggle_row_is_read_or_located(pos in 0usize..163, ch in any::<char>()) {
        prop_assume!(!matches!(ch, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}'));
        prop_assume!(pos > 0 || ch != '#');
        let row = format!("{},{CLASSIC_SOLUTION}", CLASSIC.replace('.', "0"));
        let mut chars: Vec<char> = row.chars().collect();
        chars[pos] = ch;
        let text = format!("quizzes,solutions\n{}\n", chars.into_iter().collect::<String>());
        match read_with(text.as_bytes(), Format::Csv, None) {
            Ok(f) => {
                let p = &f.puzzles[0];
                prop_assert!(p.grid.is_consistent());
                // A changed solution is never accepted unless it still solves the puzzle.
                if let Some(s) = &p.solution {
                    prop_assert!(s.is_solution_of(&p.grid));
                }
            }
            Err(e) => {
                check_error_place(&text, &e, "<input>");
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
            Err(e) => check_error_place(&text, &e, "<input>"),
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
            // Lines can only end at the bytes that end lines.
            let breaks = bytes.iter().filter(|&&b| matches!(b, b'\n' | b'\r' | 0x85 | 0xa8 | 0xa9)).count();
            prop_assert!(e.line <= breaks + 1, "{}", e);
        }
    }

    /// Gzip-compressed junk, and a valid compressed file cut anywhere.
    #[test]
    fn gzip_streams_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300), cut in 0usize..1000) {
        for format in FORMATS {
            let _ = read_with(&gzip(&bytes), format, None);
        }
        let packed = gzip(format!("{CLASSIC}\n").repeat(20).as_bytes());
        let cut = cut.min(packed.len());
        match read_with(&packed[..cut], Format::Auto, None) {
            Ok(f) => prop_assert!(f.puzzles.iter().all(|p| p.grid.to_line() == CLASSIC)),
            Err(e) => prop_assert!(e.line <= 21, "{}", e),
        }
    }

    /// A valid puzzle of any size in any layout, plain or gzip, detected or forced, reads
    /// back as itself (and its CSV solution with it).
    #[test]
    fn every_layout_reads_back(b in 2usize..=5, seed in 0u64..1000, layout in 0usize..4, packed: bool, forced: bool) {
        let (p, s) = puzzle_and_solution(b, seed);
        let (text, format) = written(&p, &s, layout);
        let bytes = if packed { gzip(text.as_bytes()) } else { text.into_bytes() };
        let format = if forced { format } else { Format::Auto };
        let f = read_with(&bytes, format, None).unwrap_or_else(|e| panic!("{e}"));
        prop_assert_eq!(f.puzzles.len(), 1);
        prop_assert_eq!(&f.puzzles[0].grid, &p);
        if layout == 3 {
            prop_assert_eq!(f.puzzles[0].solution.as_ref(), Some(&s));
            prop_assert_eq!(&f.puzzles[0].extra, "id=1");
        }
    }
}

/// The lines `read_model` counts (`str::lines`), for checking the places it names.
fn model_lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// Words a SAT solver's output is made of, for text near the real thing.
const MODEL_WORDS: &[&str] = &[
    "s SATISFIABLE",
    "s UNSATISFIABLE",
    "s UNKNOWN",
    "s",
    "SAT",
    "UNSAT",
    "INDET",
    "v",
    "c note",
    "0",
    "1",
    "-1",
    "2",
    "-2",
    "17",
    "+3",
    "-0",
    "007",
    "99999999999",
    "x",
    " ",
    "\t",
    "\n",
    "\r\n",
    "é",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any text is an answer or an error whose line and column lie in the text.
    #[test]
    fn any_solver_output_is_read_or_located(text in "\\PC{0,300}") {
        check_model_text(&text);
    }

    #[test]
    fn solver_like_output_is_read_or_located(words in prop::collection::vec(0usize..MODEL_WORDS.len(), 0..40)) {
        let text: String = words.iter().map(|&w| MODEL_WORDS[w]).collect::<Vec<_>>().join(" ");
        check_model_text(&text);
    }

    /// A puzzle's CNF decodes the model its solution makes to that solution, and any model with
    /// some literals flipped to a verified solution or a refusal, never a panic.
    #[test]
    fn models_decode_to_solutions_or_are_refused(b in 2usize..=3, seed in 0u64..500, flips in prop::collection::vec(any::<u32>(), 0..4)) {
        use gpu_sudoku::exact::cnf::encode;
        let (puzzle, solution) = puzzle_and_solution(b, seed);
        let cnf = encode(&puzzle).expect("a puzzle with a solution has a CNF");
        let mut model: Vec<i32> = cnf
            .vars
            .iter()
            .enumerate()
            .map(|(i, &(c, d))| {
                let v = i as i32 + 1;
                if solution.get(c as usize) == d { v } else { -v }
            })
            .collect();
        if !model.is_empty() {
            let decoded = cnf.decode(&puzzle, &model).unwrap();
            prop_assert_eq!(decoded.cells(), solution.cells());
        }
        for f in &flips {
            if !model.is_empty() {
                let k = *f as usize % model.len();
                model[k] = -model[k];
            }
        }
        if let Ok(g) = cnf.decode(&puzzle, &model) {
            prop_assert!(g.is_solution_of(&puzzle));
        }
    }
}

fn check_model_text(text: &str) {
    use gpu_sudoku::exact::cnf::read_model;
    if let Err(e) = read_model(text) {
        let lines = model_lines(text);
        assert!(
            e.line >= 1 && e.line <= lines.len().max(1),
            "{e:?} in {text:?}"
        );
        let width = lines.get(e.line - 1).map_or(0, |l| l.chars().count());
        assert!(e.column >= 1 && e.column <= width + 1, "{e:?} in {text:?}");
        assert!(!e.message.is_empty());
    }
}
