//! Reading puzzle files. Two layouts, detected per puzzle:
//! - one puzzle per line: n² symbols (`1-9`, `A-Z`, `a-z`, `@$%`; blanks `.`, `0`, `_`), then optional
//!   whitespace-separated fields that are kept verbatim (rating, d, solution…);
//! - n consecutive lines of n whitespace-separated integers (0 or -1 for blank).
//!
//! `#` lines and blank lines are skipped. Every problem is reported as file:line:column: what.

use super::{cell_name, format::SYMBOLS, Geometry, Grid, Puzzle, MAX_BOX, MIN_BOX};
use std::fmt;
use std::io::Read;

/// A problem in a puzzle file, with its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub file: String,
    /// 1-based line (0 when the problem is the file as a whole, e.g. unreadable).
    pub line: usize,
    /// 1-based column (characters), when one place on the line is at fault.
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}: {}", self.file, self.message),
            (l, None) => write!(f, "{}:{}: {}", self.file, l, self.message),
            (l, Some(c)) => write!(f, "{}:{}:{}: {}", self.file, l, c, self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// The puzzles of one file, all of one size.
#[derive(Clone, Debug)]
pub struct PuzzleFile {
    /// Path as given (`-` for stdin).
    pub path: String,
    /// Box size b of every puzzle in the file.
    pub b: usize,
    pub puzzles: Vec<Puzzle>,
    /// The `#` comment lines before the first puzzle (the header), without `#`.
    pub header: Vec<String>,
}

impl PuzzleFile {
    /// File name without directories and extension, used as a row label ("evil").
    pub fn label(&self) -> String {
        std::path::Path::new(&self.path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.path.clone())
    }
}

/// Reads and parses a puzzle file (`-` = stdin). `side` forces the size (9 for 9x9).
pub fn read_puzzles(path: &str, side: Option<usize>) -> Result<PuzzleFile, ParseError> {
    let whole = |message: String| ParseError {
        file: path.to_string(),
        line: 0,
        column: None,
        message,
    };
    let mut bytes = Vec::new();
    if path == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| whole(format!("cannot read standard input: {e}")))?;
    } else {
        bytes = std::fs::read(path).map_err(|e| whole(format!("cannot read file: {e}")))?;
    }
    parse_bytes(path, &bytes, side)
}

/// Parses puzzles from text (for tests and in-memory use); the file name in errors is `<input>`.
pub fn parse_str(text: &str, side: Option<usize>) -> Result<Vec<Puzzle>, ParseError> {
    parse_bytes("<input>", text.as_bytes(), side).map(|f| f.puzzles)
}

struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn err(&self, line: usize, column: Option<usize>, message: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.to_string(),
            line,
            column,
            message: message.into(),
        }
    }
}

/// Parses puzzle file contents.
pub fn parse_bytes(
    file: &str,
    bytes: &[u8],
    side: Option<usize>,
) -> Result<PuzzleFile, ParseError> {
    let ctx = Ctx { file };
    let forced_b = match side {
        None => None,
        Some(n) => Some(Geometry::box_for_side(n).ok_or_else(|| {
            ctx.err(
                0,
                None,
                format!("--size {n} is not supported: use 4, 9, 16, 25, 36, 49 or 64"),
            )
        })?),
    };
    // Decode line by line so a bad byte is reported where it is.
    let mut lines: Vec<&str> = Vec::new();
    for (i, raw) in bytes.split(|&c| c == b'\n').enumerate() {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        match std::str::from_utf8(raw) {
            Ok(s) => lines.push(s),
            Err(e) => {
                let col = String::from_utf8_lossy(&raw[..e.valid_up_to()])
                    .chars()
                    .count()
                    + 1;
                return Err(ctx.err(i + 1, Some(col), "not UTF-8 text (is this a binary file?)"));
            }
        }
    }
    if bytes.contains(&0) {
        let line = bytes
            .iter()
            .take_while(|&&c| c != 0)
            .filter(|&&c| c == b'\n')
            .count()
            + 1;
        return Err(ctx.err(line, None, "contains a NUL byte (is this a binary file?)"));
    }

    let mut puzzles = Vec::new();
    let mut header = Vec::new();
    let mut file_b: Option<(usize, usize)> = forced_b.map(|b| (b, 0));
    let mut i = 0;
    while i < lines.len() {
        let line_no = i + 1;
        let line = lines[i];
        let trimmed = line.trim();
        if trimmed.is_empty() {
            i += 1;
            continue;
        }
        if let Some(c) = trimmed.strip_prefix('#') {
            if puzzles.is_empty() {
                header.push(c.trim().to_string());
            }
            i += 1;
            continue;
        }
        let fields = fields_with_columns(line);
        let (puzzle, consumed) = if is_integer_row(&fields) {
            parse_integer_block(&ctx, &lines, i, forced_b)?
        } else {
            (
                parse_symbol_line(&ctx, line, line_no, &fields, forced_b)?,
                1,
            )
        };
        let b = puzzle.grid.box_size();
        match file_b {
            Some((fb, first_line)) if fb != b => {
                let n = fb * fb;
                let what = if first_line == 0 {
                    "--size".to_string()
                } else {
                    format!("the puzzle on line {first_line}")
                };
                return Err(ctx.err(
                    line_no,
                    None,
                    format!(
                        "puzzle is {0}x{0} but {what} is {n}x{n}: one file holds one size",
                        b * b
                    ),
                ));
            }
            None => file_b = Some((b, line_no)),
            _ => {}
        }
        puzzles.push(puzzle);
        i += consumed;
    }
    let Some((b, _)) = file_b.filter(|_| !puzzles.is_empty()) else {
        return Err(ctx.err(
            0,
            None,
            "no puzzle found (the file is empty or holds only comments)",
        ));
    };
    Ok(PuzzleFile {
        path: file.to_string(),
        b,
        puzzles,
        header,
    })
}

/// Whitespace-separated fields with their 1-based character columns.
fn fields_with_columns(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None; // (byte, char column)
    let mut col = 0;
    for (byte, ch) in line.char_indices() {
        col += 1;
        if ch.is_whitespace() {
            if let Some((s, c)) = start.take() {
                out.push((c, &line[s..byte]));
            }
        } else if start.is_none() {
            start = Some((byte, col));
        }
    }
    if let Some((s, c)) = start {
        out.push((c, &line[s..]));
    }
    out
}

/// A row of the integer layout: at least 4 fields, each a short integer.
fn is_integer_row(fields: &[(usize, &str)]) -> bool {
    fields.len() >= 4
        && fields
            .iter()
            .all(|(_, f)| f.len() <= 2 && f.parse::<i32>().is_ok())
}

fn sizes_hint() -> String {
    (MIN_BOX..=MAX_BOX)
        .map(|b| (b * b * b * b).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_symbol_line(
    ctx: &Ctx,
    line: &str,
    line_no: usize,
    fields: &[(usize, &str)],
    forced_b: Option<usize>,
) -> Result<Puzzle, ParseError> {
    let (col0, text) = fields[0];
    let len = text.chars().count();
    let b = match (Geometry::box_for_cells(len), forced_b) {
        (Some(b), None) => b,
        (Some(b), Some(fb)) if b == fb => b,
        (_, Some(fb)) => {
            let n = fb * fb;
            return Err(ctx.err(
                line_no,
                Some(col0),
                format!(
                    "expected {} symbols for a {n}x{n} puzzle, found {len}",
                    n * n
                ),
            ));
        }
        (None, None) => {
            return Err(ctx.err(
                line_no,
                Some(col0),
                format!(
                    "a puzzle line needs {} symbols (4x4 … 64x64), found {len}",
                    sizes_hint()
                ),
            ))
        }
    };
    let n = b * b;
    let mut cells = Vec::with_capacity(n * n);
    for (k, ch) in text.chars().enumerate() {
        let col = col0 + k;
        let v = match ch {
            '.' | '0' | '_' => 0,
            _ => {
                let key = if n <= 35 { ch.to_ascii_uppercase() } else { ch };
                match SYMBOLS.iter().position(|&s| s as char == key) {
                    Some(p) if p < n => p as u8 + 1,
                    _ => {
                        let last = SYMBOLS[n - 1] as char;
                        return Err(ctx.err(
                            line_no,
                            Some(col),
                            format!(
                                "unknown symbol {ch:?}: a {n}x{n} puzzle uses 1-{last} for digits and . 0 _ for blanks"
                            ),
                        ));
                    }
                }
            }
        };
        cells.push(v);
    }
    let grid = Grid::from_cells(b, cells).expect("sized above");
    check_clues(ctx, &grid, line_no, |cell| Some(col0 + cell))?;
    let extra = fields
        .get(1)
        .map(|&(c, _)| {
            let byte = line.char_indices().nth(c - 1).map(|(i, _)| i).unwrap_or(0);
            line[byte..].trim_end().to_string()
        })
        .unwrap_or_default();
    Ok(Puzzle {
        grid,
        line: line_no,
        extra,
    })
}

fn parse_integer_block(
    ctx: &Ctx,
    lines: &[&str],
    start: usize,
    forced_b: Option<usize>,
) -> Result<(Puzzle, usize), ParseError> {
    let first = fields_with_columns(lines[start]);
    let n = first.len();
    let b = match (Geometry::box_for_side(n), forced_b) {
        (Some(b), None) => b,
        (Some(b), Some(fb)) if b == fb => b,
        (_, Some(fb)) => {
            return Err(ctx.err(
                start + 1,
                None,
                format!("row has {n} numbers but --size is {}", fb * fb),
            ))
        }
        (None, None) => {
            return Err(ctx.err(
                start + 1,
                None,
                format!("row has {n} numbers: a grid row needs 4, 9, 16, 25, 36, 49 or 64"),
            ))
        }
    };
    let mut cells = Vec::with_capacity(n * n);
    let mut columns = Vec::with_capacity(n * n);
    for r in 0..n {
        let line_no = start + r + 1;
        let Some(line) = lines.get(start + r).filter(|l| !l.trim().is_empty()) else {
            return Err(ctx.err(
                line_no,
                None,
                format!("the grid ends after {r} of the {n} rows of this {n}x{n} grid"),
            ));
        };
        let fields = fields_with_columns(line);
        if fields.len() != n {
            return Err(ctx.err(
                line_no,
                None,
                format!(
                    "row {} of a {n}x{n} grid has {} numbers, expected {n}",
                    r + 1,
                    fields.len()
                ),
            ));
        }
        for (col, f) in fields {
            let v: i64 = f
                .parse()
                .map_err(|_| ctx.err(line_no, Some(col), format!("{f:?} is not a number")))?;
            if v == -1 || v == 0 {
                cells.push(0);
            } else if (1..=n as i64).contains(&v) {
                cells.push(v as u8);
            } else {
                return Err(ctx.err(
                    line_no,
                    Some(col),
                    format!("{v} is not a digit of a {n}x{n} puzzle (1-{n}, or 0/-1 for blank)"),
                ));
            }
            columns.push((line_no, col));
        }
    }
    let grid = Grid::from_cells(b, cells).expect("sized above");
    // Clue conflicts are reported at the later cell's own line and column.
    if let Some((_, later, _)) = grid.first_conflict() {
        let (line_no, col) = columns[later];
        check_clues(ctx, &grid, line_no, |_| Some(col))?;
    }
    Ok((
        Puzzle {
            grid,
            line: start + 1,
            extra: String::new(),
        },
        n,
    ))
}

/// Errors if a clue repeats in a row, column or box.
fn check_clues(
    ctx: &Ctx,
    grid: &Grid,
    line_no: usize,
    column_of: impl Fn(usize) -> Option<usize>,
) -> Result<(), ParseError> {
    if let Some((a, b, v)) = grid.first_conflict() {
        let g = grid.geometry();
        let (ra, ca, ba) = g.row_col_box(a);
        let (rb, cb, _) = g.row_col_box(b);
        let unit = if ra == rb {
            format!("row {}", ra + 1)
        } else if ca == cb {
            format!("column {}", ca + 1)
        } else {
            format!("box {}", ba + 1)
        };
        let n = grid.side();
        return Err(ctx.err(
            line_no,
            column_of(b),
            format!(
                "clue {} repeats in {unit} ({} and {})",
                super::symbol_for(v),
                cell_name(a, n),
                cell_name(b, n)
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLASSIC: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    fn err(text: &str) -> ParseError {
        parse_bytes("t.txt", text.as_bytes(), None).unwrap_err()
    }

    #[test]
    fn reads_line_format_with_extra_fields_and_comments() {
        let text = format!(
            "# header\n\n{CLASSIC}  0.63 rated\n{}\n",
            CLASSIC.replace('.', "0")
        );
        let f = parse_bytes("t.txt", text.as_bytes(), None).unwrap();
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
        let g = parse_str(CLASSIC, None).unwrap().remove(0).grid;
        let rows = g.to_rows().replace(" 0", " -1");
        let back = parse_str(&rows, None).unwrap().remove(0).grid;
        assert_eq!(back, g);
    }

    #[test]
    fn reads_16x16_letters() {
        let line: String = (0..256)
            .map(|i| {
                if i == 5 {
                    'G'
                } else if i == 7 {
                    'a'
                } else {
                    '.'
                }
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

        let e = parse_bytes("t.txt", b"53..\xff\xfe", None).unwrap_err();
        assert_eq!((e.line, e.column), (1, Some(5)));
        assert!(e.message.contains("binary"));

        let e = err("1 2 3 4\n3 4 1 2\n");
        assert!(e.message.contains("ends after 2 of the 4 rows"), "{e}");

        let e = err("1 2 3 4\n3 4 1 9\n2 1 4 3\n4 3 2 1\n");
        assert_eq!((e.line, e.column), (2, Some(7)));

        let e = err(&format!("{CLASSIC}\n{}", ".".repeat(256)));
        assert!(e.message.contains("one file holds one size"), "{e}");

        let e = parse_bytes("t.txt", CLASSIC.as_bytes(), Some(16)).unwrap_err();
        assert!(e.message.contains("expected 256 symbols"), "{e}");
    }
}
