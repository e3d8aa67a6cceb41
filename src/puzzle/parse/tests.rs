use super::*;
use crate::puzzle::Grid;
use std::io::Write;

const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const CLASSIC_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

fn read_as(text: &[u8], format: Format) -> Result<PuzzleFile, ParseError> {
    let options = ReadOptions {
        format,
        ..ReadOptions::default()
    };
    read_puzzles_from("t.txt", text, &options)
}

fn read(text: &str) -> Result<PuzzleFile, ParseError> {
    read_as(text.as_bytes(), Format::Auto)
}

fn err(text: &str) -> ParseError {
    read(text).unwrap_err()
}

fn classic() -> Grid {
    read(CLASSIC).unwrap().puzzles.remove(0).grid
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// A long run of comments is read in bounded memory: the header keeps its first lines only
/// (100 M comment lines took 2.4 GB).
#[test]
fn a_header_keeps_its_first_lines_only() {
    let text = format!("{}{CLASSIC}\n", "# c\n".repeat(MAX_HEADER_LINES + 500));
    let f = read(&text).unwrap();
    assert_eq!(f.header.len(), MAX_HEADER_LINES);
    assert_eq!(f.puzzles.len(), 1);
    assert_eq!(f.puzzles[0].line, MAX_HEADER_LINES + 501);
}

#[test]
fn reads_line_format_with_extra_fields_and_comments() {
    let text = format!(
        "# header\n\n{CLASSIC}  0.63 rated\n{}\n",
        CLASSIC.replace('.', "0")
    );
    let f = read(&text).unwrap();
    assert_eq!(f.b, 3);
    assert_eq!(f.header, vec!["header"]);
    assert_eq!(f.puzzles.len(), 2);
    assert_eq!(f.puzzles[0].line, 3);
    assert_eq!(f.puzzles[0].extra, "0.63 rated");
    assert_eq!(f.puzzles[0].grid, f.puzzles[1].grid);
    assert_eq!(f.puzzles[0].grid.to_line(), CLASSIC);
}

#[test]
fn reads_integer_rows_and_round_trips() {
    let g = classic();
    let rows = g.to_rows().replace(" 0", " -1");
    let back = parse_str(&rows, None).unwrap().remove(0).grid;
    assert_eq!(back, g);
    let f = read_as(rows.as_bytes(), Format::Integers).unwrap();
    assert_eq!(f.puzzles[0].grid, g);
}

#[test]
fn reads_16x16_letters() {
    let line: String = (0..256)
        .map(|i| match i {
            5 => 'G',
            7 => 'a',
            _ => '.',
        })
        .collect();
    let g = parse_str(&line, Some(16)).unwrap().remove(0).grid;
    assert_eq!(g.side(), 16);
    assert_eq!(g.get(5), 16);
    assert_eq!(g.get(7), 10); // lower case accepted for n <= 35
}

#[test]
fn errors_name_line_column_and_problem() {
    let e = err(&format!("# c\n{}", &CLASSIC[..80]));
    assert_eq!((e.line, e.column), (2, Some(1)));
    assert!(e.message.contains("found 80"), "{e}");

    let bad = CLASSIC.replacen('7', "x", 1);
    let e = err(&bad);
    assert_eq!((e.line, e.column), (1, Some(5)));
    assert!(e.message.contains("unknown symbol 'x'"), "{e}");

    let dup = format!("55{}", &CLASSIC[2..]);
    let e = err(&dup);
    assert_eq!((e.line, e.column), (1, Some(2)));
    assert!(e.message.contains("clue 5 repeats in row 1"), "{e}");
    assert_eq!(e.to_string(), format!("t.txt:1:2: {}", e.message));

    let e = err("# only a comment\n\n");
    assert!(e.message.contains("no puzzle found"));
    assert!(err("").message.contains("no puzzle found"));

    let e = read_as(b"53..\xff\xfe", Format::Auto).unwrap_err();
    assert_eq!((e.line, e.column), (1, Some(5)));
    assert!(e.message.contains("binary"));

    let e = err("1 2 3 4\n3 4 1 2\n");
    assert!(e.message.contains("ends after 2 of the 4 rows"), "{e}");

    let e = err("1 2 3 4\n3 4 1 9\n2 1 4 3\n4 3 2 1\n");
    assert_eq!((e.line, e.column), (2, Some(7)));

    let e = err(&format!("{CLASSIC}\n{}", ".".repeat(256)));
    assert!(e.message.contains("one file holds one size"), "{e}");

    let e = parse_str(CLASSIC, Some(16)).unwrap_err();
    assert!(e.message.contains("expected 256 symbols"), "{e}");
}

// ---- Input edge cases (issue 12, item 4) ----

#[test]
fn old_mac_and_unicode_line_breaks_separate_puzzles() {
    let lines = [
        CLASSIC,
        &CLASSIC.replace('.', "0"),
        &CLASSIC.replace('.', "_"),
    ];
    for sep in ["\r", "\r\n", "\u{85}", "\u{2028}", "\u{2029}"] {
        let f = read(&lines.join(sep)).unwrap();
        assert_eq!(f.puzzles.len(), 3, "{sep:?}");
        for (k, p) in f.puzzles.iter().enumerate() {
            assert_eq!(p.line, k + 1, "{sep:?}");
            assert_eq!(p.extra, "", "{sep:?}");
            assert_eq!(p.grid.to_line(), CLASSIC);
        }
    }
    // An integer grid with CR-only line ends.
    let rows = classic().to_rows().replace('\n', "\r");
    assert_eq!(read(&rows).unwrap().puzzles[0].grid, classic());
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let f = read(&format!("\u{feff}{CLASSIC}\n")).unwrap();
    assert_eq!(f.puzzles[0].grid.to_line(), CLASSIC);
    let f = read(&format!("\u{feff}# header\n{CLASSIC}\n")).unwrap();
    assert_eq!(f.header, ["header"]);
    // Columns count from after the mark.
    let e = err(&format!("\u{feff}{}", CLASSIC.replacen('7', "x", 1)));
    assert_eq!((e.line, e.column), (1, Some(5)));
}

#[test]
fn integer_grid_errors_name_row_and_token_from_row_one() {
    let mut rows: Vec<String> = classic().to_rows().lines().map(String::from).collect();
    rows[0] = rows[0].replacen('3', "x", 1); // "5 x 0 0 7 …"
    let text = rows.join("\n");
    let e = err(&text);
    assert_eq!((e.line, e.column), (1, Some(3)), "{e}");
    assert!(e.message.contains("'x'"), "{e}");
    let e = read_as(text.as_bytes(), Format::Integers).unwrap_err();
    assert_eq!((e.line, e.column), (1, Some(3)), "{e}");
    assert_eq!(e.message, "\"x\" is not a number");

    // A number out of range in row 1, a short row 1.
    let e = err("1 2 3 7\n");
    assert_eq!((e.line, e.column), (1, Some(7)), "{e}");
    assert!(
        e.message
            .contains("unknown symbol '7': a 4x4 puzzle uses 1-4"),
        "{e}"
    );
    let e = read_as(b"1 2 3 17\n", Format::Integers).unwrap_err();
    assert_eq!((e.line, e.column), (1, Some(7)), "{e}");
    assert!(
        e.message.contains("17 is not a digit of a 4x4 puzzle"),
        "{e}"
    );
    let e = read_as(b"1 2 3 4 5\n", Format::Integers).unwrap_err();
    assert!(e.message.contains("row has 5 numbers"), "{e}");
}

#[test]
fn a_comment_inside_a_grid_is_refused_clearly() {
    let mut rows: Vec<String> = classic().to_rows().lines().map(String::from).collect();
    rows.insert(4, "# a note".into());
    let e = err(&rows.join("\n"));
    assert_eq!(e.line, 5);
    assert!(
        e.message
            .contains("comment line inside a grid: row 5 of the 9x9 grid that starts on line 1"),
        "{e}"
    );
    // Between grids comments are fine.
    let two = format!("{0}# second\n{0}", classic().to_rows());
    assert_eq!(read(&two).unwrap().puzzles.len(), 2);
}

#[cfg(unix)]
#[test]
fn device_files_fail_in_bounded_memory() {
    let e = read_puzzles("/dev/zero", None).unwrap_err();
    assert_eq!((e.line, e.column), (1, Some(1)), "{e}");
    assert!(e.message.contains("NUL"), "{e}");
    let e = read_puzzles("/dev/urandom", None).unwrap_err();
    assert!(e.line >= 1, "{e}");
}

#[test]
fn puzzles_stream_before_the_input_ends() {
    // Two puzzles, then endless input: both come out, then the error.
    let head = format!("{CLASSIC}\n{CLASSIC}\n");
    let src = head.as_bytes().chain(std::io::repeat(b'7'));
    let mut r = PuzzleReader::new("endless", src, &ReadOptions::default()).unwrap();
    assert!(r.next().unwrap().is_ok());
    assert!(r.next().unwrap().is_ok());
    let e = r.next().unwrap().unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.message.contains("longer than"), "{e}");
    assert!(r.next().is_none());
}

// ---- Blocks: one grid per block ----

/// The classic as a 9-line block in the `.sdk` style (digits, 0 or . for blanks).
fn sdk_block(blank: char) -> String {
    CLASSIC
        .replace('.', &blank.to_string())
        .as_bytes()
        .chunks(9)
        .map(|r| String::from_utf8(r.to_vec()).unwrap() + "\n")
        .collect()
}

#[test]
fn reads_blocks_in_the_common_styles() {
    let ss: String = CLASSIC
        .as_bytes()
        .chunks(9)
        .enumerate()
        .map(|(r, row)| {
            let s = String::from_utf8(row.to_vec()).unwrap();
            let line = format!("{}|{}|{}\n", &s[..3], &s[3..6], &s[6..]);
            if r == 3 || r == 6 {
                format!("---+---+---\n{line}")
            } else {
                line
            }
        })
        .collect();
    let grouped: String = CLASSIC
        .as_bytes()
        .chunks(9)
        .map(|row| {
            let s = String::from_utf8(row.to_vec()).unwrap();
            format!("{} {} {}\n", &s[..3], &s[3..6], &s[6..])
        })
        .collect();
    for (name, text) in [
        ("sdk", sdk_block('.')),
        ("sdk zeros", sdk_block('0')),
        ("ss", ss),
        ("grouped", grouped),
        ("pretty", classic().to_pretty()),
    ] {
        for format in [Format::Auto, Format::Blocks] {
            let f = read_as(text.as_bytes(), format).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(f.puzzles.len(), 1, "{name}");
            assert_eq!(f.puzzles[0].grid, classic(), "{name}");
        }
    }
    // Blocks separated by blank lines and # lines, with a header.
    let many = format!(
        "#A author\n{}\n{}# next\n{}",
        sdk_block('.'),
        classic().to_pretty(),
        sdk_block('0')
    );
    let f = read(&many).unwrap();
    assert_eq!(f.header, ["A author"]);
    assert_eq!(f.puzzles.len(), 3);
    assert_eq!(
        f.puzzles.iter().map(|p| p.line).collect::<Vec<_>>(),
        [2, 13, 26]
    );
}

/// A random complete grid of box size `b` with every third cell blanked.
fn holey(b: usize, seed: u64) -> Grid {
    let full = crate::generate::random_complete(b, &mut crate::generate::puzzle_rng(seed, 0));
    let cells = full
        .cells()
        .iter()
        .enumerate()
        .map(|(i, &v)| if i % 3 == 0 { 0 } else { v })
        .collect();
    Grid::from_cells(b, cells).unwrap()
}

#[test]
fn grids_of_every_size_read_back_from_blocks_and_rows() {
    for b in 2..=8 {
        let g = holey(b, b as u64);
        for (name, text) in [("pretty", g.to_pretty()), ("rows", g.to_rows())] {
            let f = read(&text).unwrap_or_else(|e| panic!("{name} {}: {e}", g.side()));
            assert_eq!(f.puzzles[0].grid, g, "{name} {}", g.side());
            let f = read_as(text.as_bytes(), Format::Blocks).unwrap();
            assert_eq!(f.puzzles[0].grid, g, "{name} {}", g.side());
        }
        let f = read_as(g.to_rows().as_bytes(), Format::Integers).unwrap();
        assert_eq!(f.puzzles[0].grid, g);
    }
}

#[test]
fn sixteen_symbol_lines_are_4x4_puzzles_or_16x16_rows() {
    let g = holey(4, 3);
    let bare: String = g
        .to_line()
        .as_bytes()
        .chunks(16)
        .map(|r| String::from_utf8(r.to_vec()).unwrap() + "\n")
        .collect();
    // A first row with symbols above 4 can only be a 16x16 row.
    assert!(bare
        .lines()
        .next()
        .unwrap()
        .chars()
        .any(|c| !"1234.".contains(c)));
    assert_eq!(read(&bare).unwrap().puzzles[0].grid, g);
    // Rows of 4x4 symbols only: 4x4 puzzles unless the size or the format says otherwise.
    let small = "1234341221434321\n".repeat(16);
    let f = read(&small).unwrap();
    assert_eq!((f.b, f.puzzles.len()), (2, 16));
    for options in [
        ReadOptions {
            side: Some(16),
            ..ReadOptions::default()
        },
        ReadOptions {
            format: Format::Blocks,
            ..ReadOptions::default()
        },
    ] {
        let e = read_puzzles_from("t.txt", small.as_bytes(), &options).unwrap_err();
        // Read as a 16x16 grid, whose first row repeats 3.
        assert!(e.message.contains("clue 3 repeats in row 1"), "{e}");
    }
}

#[test]
fn block_errors_are_placed() {
    let mut rows: Vec<String> = sdk_block('.').lines().map(String::from).collect();
    rows[2] = rows[2][..8].to_string();
    let e = err(&rows.join("\n"));
    assert_eq!(e.line, 3);
    assert!(
        e.message
            .contains("row 3 of a 9x9 grid has 8 cells, expected 9"),
        "{e}"
    );

    let mut rows: Vec<String> = sdk_block('.').lines().map(String::from).collect();
    rows[6] = rows[6].replacen('.', "?", 1);
    let e = err(&rows.join("\n"));
    assert_eq!((e.line, e.column), (7, Some(1)), "{e}");
    assert!(e.message.contains("unknown symbol '?'"), "{e}");

    // A blank line cuts a grid short.
    let mut rows: Vec<String> = sdk_block('.').lines().map(String::from).collect();
    rows.insert(3, String::new());
    let e = err(&rows.join("\n"));
    assert_eq!(e.line, 4);
    assert!(e.message.contains("ends after 3 of the 9 rows"), "{e}");

    // A repeated clue is reported at its own line and column: a 3 in r9c2 repeats r1c2's.
    let mut rows: Vec<String> = sdk_block('.').lines().map(String::from).collect();
    rows[8] = format!(".3{}", &rows[8][2..]);
    let e = err(&rows.join("\n"));
    assert_eq!((e.line, e.column), (9, Some(2)), "{e}");
    assert!(e.message.contains("clue 3 repeats in column 2"), "{e}");

    let e = err("12345\n");
    assert!(
        e.message
            .contains("a grid row needs 4, 9, 16, 25, 36, 49 or 64"),
        "{e}"
    );
    let e = err("53. .7. ..x\n");
    assert_eq!((e.line, e.column), (1, Some(11)), "{e}");
}

// ---- CSV ----

#[test]
fn reads_kaggle_csv_with_solutions() {
    let zeros = CLASSIC.replace('.', "0");
    for header in ["quizzes,solutions", "puzzle,solution", "Puzzle,Solution"] {
        let text = format!("{header}\n{zeros},{CLASSIC_SOLUTION}\n{zeros},{CLASSIC_SOLUTION}\n");
        let f = read(&text).unwrap_or_else(|e| panic!("{header}: {e}"));
        assert_eq!(f.puzzles.len(), 2);
        let p = &f.puzzles[1];
        assert_eq!((p.line, p.grid.to_line().as_str()), (3, CLASSIC));
        assert_eq!(p.solution.as_ref().unwrap().to_line(), CLASSIC_SOLUTION);
        assert_eq!(p.extra, "");
    }
    // Other columns become name=value extra fields; quoted fields; the puzzle column is the
    // first that reads as a puzzle.
    let text =
        format!("id,puzzle,solution,clues,difficulty\n7,\"{CLASSIC}\",{CLASSIC_SOLUTION},30,1.5\n");
    let f = read_as(text.as_bytes(), Format::Csv).unwrap();
    let p = &f.puzzles[0];
    assert_eq!(p.extra, "id=7 clues=30 difficulty=1.5");
    assert!(p.solution.as_ref().unwrap().is_solution_of(&p.grid));
}

#[test]
fn csv_column_is_chosen_by_name_or_number() {
    let text = format!("a,b\n{CLASSIC_SOLUTION},{CLASSIC}\n");
    let pick = |column: &str| {
        let options = ReadOptions {
            column: Some(column.into()),
            ..ReadOptions::default()
        };
        read_puzzles_from("t.csv", text.as_bytes(), &options)
    };
    assert_eq!(
        read(&text).unwrap().puzzles[0].grid.to_line(),
        CLASSIC_SOLUTION
    );
    assert_eq!(pick("B").unwrap().puzzles[0].grid.to_line(), CLASSIC);
    assert_eq!(pick("2").unwrap().puzzles[0].grid.to_line(), CLASSIC);
    assert_eq!(
        pick("b").unwrap().puzzles[0].extra,
        format!("a={CLASSIC_SOLUTION}")
    );
    let e = pick("c").unwrap_err();
    assert_eq!(e.line, 1);
    assert!(
        e.message.contains("no such column; the columns are a, b"),
        "{e}"
    );
    let e = read_puzzles_from(
        "t.txt",
        CLASSIC.as_bytes(),
        &ReadOptions {
            column: Some("a".into()),
            ..ReadOptions::default()
        },
    )
    .unwrap_err();
    assert!(e.message.contains("applies to CSV files"), "{e}");
}

#[test]
fn a_csv_without_header_starts_with_data() {
    let text = format!("{CLASSIC},x\n{CLASSIC},y\n");
    let f = read(&text).unwrap();
    assert_eq!(f.puzzles.len(), 2);
    assert_eq!(f.puzzles[0].line, 1);
    assert_eq!(f.puzzles[1].extra, "2=y");
}

#[test]
fn csv_errors_are_placed() {
    let zeros = CLASSIC.replace('.', "0");
    // A solution that changes a clue: placed at the cell inside the solution field.
    let mut wrong = CLASSIC_SOLUTION.as_bytes().to_vec();
    wrong.swap(0, 2); // r1c1 (clue 5) becomes 4
    let wrong = String::from_utf8(wrong).unwrap();
    let e = err(&format!("quizzes,solutions\n{zeros},{wrong}\n"));
    assert_eq!((e.line, e.column), (2, Some(83)), "{e}");
    assert!(
        e.message
            .contains("does not solve the puzzle: r1c1 changes clue 5 to 4"),
        "{e}"
    );
    // A solution that repeats a digit (two free cells swapped).
    let mut swapped = CLASSIC_SOLUTION.as_bytes().to_vec();
    swapped.swap(2, 3);
    let e = err(&format!(
        "quizzes,solutions\n{zeros},{}\n",
        String::from_utf8(swapped).unwrap()
    ));
    assert!(e.message.contains("repeats"), "{e}");
    // A short solution, a blank in it.
    let e = err(&format!(
        "quizzes,solutions\n{zeros},{}\n",
        &CLASSIC_SOLUTION[1..]
    ));
    assert_eq!((e.line, e.column), (2, Some(83)), "{e}");
    assert!(
        e.message
            .starts_with("solution column \"solutions\": expected 81 symbols"),
        "{e}"
    );
    let e = err(&format!("quizzes,solutions\n{zeros},{zeros}\n"));
    assert!(e.message.contains("r1c3 is blank"), "{e}");
    // Field counts, quotes, a bad puzzle cell, no puzzle column.
    let e = err(&format!(
        "quizzes,solutions\n{zeros},{CLASSIC_SOLUTION},1\n"
    ));
    assert!(
        e.message.contains("row has 3 fields but the header has 2"),
        "{e}"
    );
    let e = err(&format!(
        "quizzes,solutions\n\"{zeros},{CLASSIC_SOLUTION}\n"
    ));
    assert_eq!((e.line, e.column), (2, Some(1)), "{e}");
    assert!(e.message.contains("not closed"), "{e}");
    let e = err(&format!(
        "quizzes,solutions\n{},{CLASSIC_SOLUTION}\n",
        zeros.replacen('0', "x", 1)
    ));
    assert_eq!((e.line, e.column), (2, Some(3)), "{e}");
    let e = err("a,b\n1,2\n");
    assert!(
        e.message.contains("no field of this row reads as a puzzle"),
        "{e}"
    );
}

// ---- gzip and large files ----

#[test]
fn gzip_of_every_format_reads_like_the_text() {
    let csv = format!(
        "quizzes,solutions\n{},{CLASSIC_SOLUTION}\n",
        CLASSIC.replace('.', "0")
    );
    for text in [
        format!("# h\n{CLASSIC} d=0.6\n"),
        classic().to_rows(),
        classic().to_pretty(),
        csv,
    ] {
        let plain = read(&text).unwrap();
        let packed = read_as(&gzip(text.as_bytes()), Format::Auto).unwrap();
        assert_eq!(plain.puzzles, packed.puzzles);
        assert_eq!(plain.header, packed.header);
    }
    // Two gzip members one after the other read as one text (like `cat a.gz b.gz`).
    let mut two = gzip(format!("{CLASSIC}\n").as_bytes());
    two.extend(gzip(format!("{CLASSIC}\n").as_bytes()));
    assert_eq!(read_as(&two, Format::Auto).unwrap().puzzles.len(), 2);
}

#[test]
fn broken_gzip_is_an_error_at_the_line_reached() {
    let text = format!("{CLASSIC}\n").repeat(2000);
    let packed = gzip(text.as_bytes());
    let cut = &packed[..packed.len() / 2];
    let e = read_as(cut, Format::Auto).unwrap_err();
    assert!(e.message.starts_with("cannot read the gzip data"), "{e}");
    assert!(e.line > 1, "{e}");
    let mut flipped = packed.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0xff;
    assert!(read_as(&flipped, Format::Auto).is_err());
}

/// A Kaggle-style CSV of `rows` puzzles with one malformed row at `bad`, as text.
fn big_csv(rows: usize, bad: usize) -> Vec<u8> {
    let zeros = CLASSIC.replace('.', "0");
    let mut out = Vec::with_capacity((rows + 1) * 165);
    out.extend_from_slice(b"quizzes,solutions\n");
    for k in 0..rows {
        let quiz = if k == bad { &zeros[1..] } else { &zeros[..] };
        writeln!(out, "{quiz},{CLASSIC_SOLUTION}").unwrap();
    }
    out
}

#[test]
fn a_malformed_row_in_the_middle_of_a_large_file_is_placed() {
    let rows = 40_000;
    let good = big_csv(rows, usize::MAX);
    assert_eq!(read_as(&good, Format::Auto).unwrap().puzzles.len(), rows);
    let bad = big_csv(rows, rows / 2);
    for bytes in [bad.clone(), gzip(&bad)] {
        let e = read_as(&bytes, Format::Auto).unwrap_err();
        assert_eq!((e.line, e.column), (rows / 2 + 2, Some(1)), "{e}");
        assert!(e.message.contains("found 80"), "{e}");
    }
}

#[test]
fn label_drops_directories_and_extensions() {
    let mut f = read(CLASSIC).unwrap();
    for (path, label) in [
        ("a/evil.txt", "evil"),
        ("evil.txt.gz", "evil"),
        ("b/k.csv.GZ", "k"),
        ("-", "-"),
    ] {
        f.path = path.into();
        assert_eq!(f.label(), label);
        assert_eq!(super::file_label(path), label);
    }
}

// ---- Inputs that once failed a property test or the fuzzer, kept byte for byte ----

#[test]
fn regression_cr_then_nul_is_placed_on_line_two() {
    let e = read_as(&[13, 0], Format::Auto).unwrap_err();
    assert_eq!((e.line, e.column), (2, Some(1)), "{e}");
}

#[test]
fn regression_a_comma_typo_does_not_make_a_puzzle_line_a_csv_header() {
    let text = format!("# header\n,{}\n", &CLASSIC[1..]);
    let e = err(&text);
    assert_eq!((e.line, e.column), (2, Some(1)), "{e}");
    assert!(e.message.contains("unknown symbol ','"), "{e}");
}

#[test]
fn regression_a_csv_header_without_rows_is_placed() {
    let e = err("# c\nquizzes,solutions\n");
    assert_eq!(e.line, 2, "{e}");
    assert!(e.message.contains("no puzzle row follows"), "{e}");
}

/// A 16-symbol line that is no 4x4 puzzle (a digit above 4) is read as the first row of a
/// 16x16 grid; the error says so and why it is not a 4x4 (it spoke of a 16x16 grid only).
#[test]
fn a_16_symbol_line_with_a_digit_above_4_says_why_it_is_no_4x4() {
    let e = read("1.5.............\n").unwrap_err().to_string();
    assert!(
        e.contains("1 of the 16 rows")
            && e.contains("as a 4x4 puzzle its line holds 5 at column 3"),
        "{e}"
    );
}

/// A 16x16 line written with digits 0-F (and `.` for blanks) was read as blanks plus digits
/// 1-F without a word; two kinds of blank and no G is now refused, placed at the first `0`. With
/// a G, `0` is a blank as in every size.
#[test]
fn a_16x16_line_with_digits_0_to_f_is_refused() {
    let hex: String = (0..256)
        .map(|i| match i % 3 {
            0 => '.',
            _ => char::from_digit((i % 16) as u32, 16)
                .unwrap()
                .to_ascii_uppercase(),
        })
        .collect();
    let first_zero = hex.find('0').unwrap();
    let e = read(&format!("{hex}\n")).unwrap_err().to_string();
    assert!(
        e.contains(&format!("1:{}:", first_zero + 1)) && e.contains("digits 0-F are not read here"),
        "{e}"
    );
    let with_g: String = (0..256)
        .map(|i| match i {
            3 => '0',
            5 => 'G',
            _ => '.',
        })
        .collect();
    let g = parse_str(&with_g, None).unwrap().remove(0).grid;
    assert_eq!((g.get(3), g.get(5)), (0, 16));
    // One kind of blank: read as before (0 is a blank).
    let zeros = hex.replace('.', "1");
    assert!(!read(&format!("{zeros}\n"))
        .err()
        .is_some_and(|e| e.to_string().contains("0-F")));
}

/// A file in `std::env::temp_dir()` holding `text`, removed by the caller.
fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("gpu-sudoku-parse-{name}-{}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_scan_names_the_file_as_reading_it_whole_does() {
    let text = format!("# from a test\n{CLASSIC} d=0.6\n\n{CLASSIC_SOLUTION}\n{CLASSIC}\n");
    let path = temp_file("scan", &text);
    let p = path.to_str().unwrap();
    let scan = scan_puzzles(p, &ReadOptions::default()).unwrap();
    let whole = read_puzzles(p, None).unwrap();
    assert_eq!(
        (scan.b, scan.puzzles, &scan.header),
        (whole.b, whole.puzzles.len(), &whole.header)
    );
    let lines: Vec<String> = whole.puzzles.iter().map(|p| p.grid.to_line()).collect();
    assert_eq!(
        scan.hash,
        crate::shard::content_hash(lines.iter().map(|l| l.as_bytes()))
    );
    // A bad line anywhere is the same located error.
    std::fs::write(&path, format!("{text}{}\n", &CLASSIC[1..])).unwrap();
    let (scanned, read) = (
        scan_puzzles(p, &ReadOptions::default()).unwrap_err(),
        read_puzzles(p, None).unwrap_err(),
    );
    assert_eq!(scanned.to_string(), read.to_string());
    assert_eq!(scanned.line, 6);
    std::fs::write(&path, "# nothing but a comment\n").unwrap();
    assert!(scan_puzzles(p, &ReadOptions::default())
        .unwrap_err()
        .to_string()
        .contains("no puzzle found"));
    std::fs::remove_file(&path).ok();
}

#[test]
fn chunks_hand_over_every_puzzle_once_in_order() {
    let text: String = (0..7).map(|_| format!("{CLASSIC}\n")).collect();
    for side in [None, Some(9)] {
        let options = ReadOptions {
            side,
            ..ReadOptions::default()
        };
        let mut reader = PuzzleReader::new("t.txt", text.as_bytes(), &options).unwrap();
        let sizes: Vec<Vec<usize>> = std::iter::from_fn(|| {
            let chunk = reader.next_chunk(3).unwrap();
            (!chunk.is_empty()).then(|| chunk.iter().map(|p| p.line).collect())
        })
        .collect();
        assert_eq!(sizes, [vec![1, 2, 3], vec![4, 5, 6], vec![7]]);
        assert!(reader.next_chunk(3).unwrap().is_empty(), "and none after");
    }
    // A bad puzzle: the good ones before it first, then its error, then nothing.
    let bad = format!("{CLASSIC}\n{CLASSIC}\n{}\n{CLASSIC}\n", &CLASSIC[1..]);
    let mut reader = PuzzleReader::new("t.txt", bad.as_bytes(), &ReadOptions::default()).unwrap();
    assert_eq!(reader.next_chunk(5).unwrap().len(), 2);
    assert_eq!(reader.next_chunk(5).unwrap_err().line, 3);
    assert!(reader.next_chunk(5).unwrap().is_empty());
    // An input without a puzzle is an error at the first chunk, as it is read whole.
    let mut empty = PuzzleReader::new("t.txt", &b"# only\n"[..], &ReadOptions::default()).unwrap();
    assert!(empty
        .next_chunk(3)
        .unwrap_err()
        .to_string()
        .contains("no puzzle found"));
    let mut csv =
        PuzzleReader::new("t.csv", &b"puzzle,solution\n"[..], &ReadOptions::default()).unwrap();
    assert!(csv
        .next_chunk(3)
        .unwrap_err()
        .to_string()
        .contains("no puzzle row follows"));
}
