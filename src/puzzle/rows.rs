//! Grids in text: one puzzle per line (`53..7....`), and grids written row by row, as integers
//! (`5 3 0 0 7 0 0 0 0`) or as blocks (`53. | .7. | ...` with `+---+` lines between bands).

use super::error::{At, ParseError};
use super::lines::LineReader;
use super::{cell_name, format::SYMBOLS, Geometry, Grid, Puzzle, MAX_BOX, MIN_BOX};

/// The value of symbol `ch` in an n×n puzzle: 0 for a blank (`.`, `0`, `_`), `None` when it is
/// not one of the puzzle's symbols. Letters are read case-blind up to 35x35.
pub(super) fn symbol_value(ch: char, n: usize) -> Option<u8> {
    if matches!(ch, '.' | '0' | '_') {
        return Some(0);
    }
    let key = if n <= 35 { ch.to_ascii_uppercase() } else { ch };
    SYMBOLS[..n]
        .iter()
        .position(|&s| s as char == key)
        .map(|p| p as u8 + 1)
}

fn unknown_symbol(ch: char, n: usize) -> String {
    let last = SYMBOLS[n - 1] as char;
    format!("unknown symbol {ch:?}: a {n}x{n} puzzle uses 1-{last} for digits and . 0 _ for blanks")
}

/// Fields of `line` split at whitespace (and at `|` when `bars` is set), with their 1-based
/// character columns.
pub(super) fn fields_with_columns(line: &str, bars: bool) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None; // (byte, char column)
    for (col, (byte, ch)) in line.char_indices().enumerate() {
        if ch.is_whitespace() || (bars && ch == '|') {
            if let Some((s, c)) = start.take() {
                out.push((c, &line[s..byte]));
            }
        } else if start.is_none() {
            start = Some((byte, col + 1));
        }
    }
    if let Some((s, c)) = start {
        out.push((c, &line[s..]));
    }
    out
}

/// "16, 81, 256, 625, 1296, 2401 or 4096": the symbol counts of one-line puzzles.
fn line_lengths() -> String {
    or_list((MIN_BOX..=MAX_BOX).map(|b| b.pow(4)))
}

/// "4, 9, 16, 25, 36, 49 or 64": the supported sides.
fn sides() -> String {
    or_list((MIN_BOX..=MAX_BOX).map(|b| b * b))
}

fn or_list(values: impl Iterator<Item = usize>) -> String {
    let v: Vec<String> = values.map(|x| x.to_string()).collect();
    format!("{} or {}", v[..v.len() - 1].join(", "), v[v.len() - 1])
}

/// The forced side in messages: "--size 9".
fn size_flag(b: usize) -> String {
    format!("--size {}", b * b)
}

/// A grid from the n² symbols of `text`, whose first symbol is at column `col0`; `forced_b`
/// fixes the size, else the length does. Clues are not checked here.
pub(super) fn grid_from_symbols(
    at: &At,
    text: &str,
    col0: usize,
    forced_b: Option<usize>,
) -> Result<Grid, ParseError> {
    let len = text.chars().count();
    let b = match (Geometry::box_for_cells(len), forced_b) {
        (Some(b), None) => b,
        (Some(b), Some(fb)) if b == fb => b,
        (_, Some(fb)) => {
            let n = fb * fb;
            return Err(at.err(
                Some(col0),
                format!(
                    "expected {} symbols for a {n}x{n} puzzle, found {len}",
                    n * n
                ),
            ));
        }
        (None, None) => {
            return Err(at.err(
                Some(col0),
                format!(
                    "a puzzle line needs {} symbols (4x4 … 64x64), found {len}{}",
                    line_lengths(),
                    if len <= 64 {
                        format!(" (a grid written row by row needs {} per row)", sides())
                    } else {
                        String::new()
                    }
                ),
            ))
        }
    };
    let n = b * b;
    if n == 16 {
        // Digits 0-F (a common 16x16 spelling) would read as blanks plus digits 1-F: a line
        // with two kinds of blank and no G is refused rather than read so.
        let dot = text.find(['.', '_']);
        if let (Some(dot), Some(zero)) = (dot, text.find('0')) {
            if !text.contains(['G', 'g']) {
                let k = text[..zero].chars().count();
                return Err(at.err(
                    Some(col0 + k),
                    format!(
                        "this 16x16 line has blanks written both as {:?} and as '0', and no G: \
                         digits 0-F are not read here; write the digits as 1-9 and A-G (0 → G)",
                        &text[dot..dot + 1]
                    ),
                ));
            }
        }
    }
    let mut cells = Vec::with_capacity(n * n);
    for (k, ch) in text.chars().enumerate() {
        let v = symbol_value(ch, n).ok_or_else(|| at.err(Some(col0 + k), unknown_symbol(ch, n)))?;
        cells.push(v);
    }
    Ok(Grid::from_cells(b, cells).expect("sized above"))
}

/// For text of a one-line puzzle's length (of size `forced_b` when given): how many of its
/// symbols are valid for that size, and how many it has.
fn valid_symbols(text: &str, forced_b: Option<usize>) -> Option<(usize, usize)> {
    let len = text.chars().count();
    let b = Geometry::box_for_cells(len).filter(|&b| forced_b.is_none_or(|fb| fb == b))?;
    let valid = text
        .chars()
        .filter(|&ch| symbol_value(ch, b * b).is_some())
        .count();
    Some((valid, len))
}

/// Whether `text` is a whole one-line puzzle (of size `forced_b` when given), clues unchecked.
pub(super) fn is_puzzle_text(text: &str, forced_b: Option<usize>) -> bool {
    valid_symbols(text, forced_b).is_some_and(|(valid, len)| valid == len)
}

/// Whether `text` looks like a one-line puzzle: the length of one, and at least 90% of its
/// symbols valid, so that a puzzle with a typo is still taken for one (and its error
/// reported) while words are not.
pub(super) fn looks_like_puzzle(text: &str, forced_b: Option<usize>) -> bool {
    valid_symbols(text, forced_b).is_some_and(|(valid, len)| 10 * valid >= 9 * len)
}

/// One puzzle per line: the first field is the grid, the rest of the line its extra fields.
pub(super) fn parse_symbol_line(
    at: &At,
    line: &str,
    forced_b: Option<usize>,
) -> Result<Puzzle, ParseError> {
    let fields = fields_with_columns(line, false);
    let (col0, text) = fields[0];
    let grid = grid_from_symbols(at, text, col0, forced_b)?;
    check_clues(at, &grid, |cell| (at.line, col0 + cell))?;
    let extra = fields
        .get(1)
        .map(|&(c, _)| {
            let byte = line.char_indices().nth(c - 1).map_or(0, |(i, _)| i);
            line[byte..].trim_end().to_string()
        })
        .unwrap_or_default();
    Ok(Puzzle {
        grid,
        line: at.line,
        extra,
        solution: None,
    })
}

/// A line made only of `-`, `+` and `|` (at least one `-`) between the rows of a block.
pub(super) fn is_separator_line(line: &str) -> bool {
    let t = line.trim();
    t.contains('-')
        && t.chars()
            .all(|c| matches!(c, '-' | '+' | '|') || c.is_whitespace())
}

/// Which grid-by-rows layout is read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum RowStyle {
    /// n whitespace-separated integers per row, `0` or `-1` for blank.
    Integers,
    /// n symbols per row, with or without spaces and `|`, or n fields each a symbol or an
    /// integer; `-`/`+`/`|` lines between bands.
    Blocks,
}

/// Why a row could not be split into cells.
enum RowError {
    /// The row does not hold the expected number of cells.
    Width { fields: usize, symbols: usize },
    /// One cell is wrong: its column and what is wrong.
    Cell(usize, String),
}

/// The cells of one grid row with their columns. `n` is the side, or `None` on the first
/// row, whose width sets it. A row with n fields is read one cell per field; a blocks row
/// with n symbols one cell per symbol (`53. .7. ...`); when both fit, the one that reads.
fn row_cells(text: &str, n: Option<usize>, style: RowStyle) -> Result<Vec<(u8, usize)>, RowError> {
    let fields = fields_with_columns(text, style == RowStyle::Blocks);
    let symbols: usize = fields.iter().map(|(_, f)| f.chars().count()).sum();
    let fits = |k: usize| n.map_or(Geometry::box_for_side(k).is_some(), |n| k == n);
    let by_field =
        fits(fields.len()).then(|| cells_by_field(&fields, n.unwrap_or(fields.len()), style));
    if let Some(Ok(cells)) = by_field {
        return Ok(cells);
    }
    if style == RowStyle::Blocks && fits(symbols) {
        let by_symbol = cells_by_symbol(&fields, n.unwrap_or(symbols));
        return match (by_field, by_symbol) {
            (Some(Err(e)), Err(_)) => Err(e),
            (_, by_symbol) => by_symbol,
        };
    }
    by_field.unwrap_or(Err(RowError::Width {
        fields: fields.len(),
        symbols,
    }))
}

/// One cell per field: a symbol (blocks) or an integer.
fn cells_by_field(
    fields: &[(usize, &str)],
    n: usize,
    style: RowStyle,
) -> Result<Vec<(u8, usize)>, RowError> {
    let mut cells = Vec::with_capacity(n);
    for &(col, field) in fields {
        let mut chars = field.chars();
        let v = match (chars.next(), chars.next()) {
            (Some(ch), None) if style == RowStyle::Blocks => {
                symbol_value(ch, n).ok_or_else(|| unknown_symbol(ch, n))
            }
            _ => integer_cell(field, n, style),
        };
        cells.push((v.map_err(|m| RowError::Cell(col, m))?, col));
    }
    Ok(cells)
}

/// One cell per symbol.
fn cells_by_symbol(fields: &[(usize, &str)], n: usize) -> Result<Vec<(u8, usize)>, RowError> {
    let mut cells = Vec::with_capacity(n);
    for &(col, field) in fields {
        for (k, ch) in field.chars().enumerate() {
            let v = symbol_value(ch, n)
                .ok_or_else(|| RowError::Cell(col + k, unknown_symbol(ch, n)))?;
            cells.push((v, col + k));
        }
    }
    Ok(cells)
}

/// A cell written as an integer: 0 or -1 for blank, else a digit 1..=n.
fn integer_cell(field: &str, n: usize, style: RowStyle) -> Result<u8, String> {
    let Ok(v) = field.parse::<i64>() else {
        return Err(match style {
            RowStyle::Integers => format!("{field:?} is not a number"),
            RowStyle::Blocks => format!("{field:?} is neither a symbol nor a number"),
        });
    };
    match v {
        -1 | 0 => Ok(0),
        v if (1..=n as i64).contains(&v) => Ok(v as u8),
        v => Err(format!(
            "{v} is not a digit of a {n}x{n} puzzle (1-{n}, or 0/-1 for blank)"
        )),
    }
}

/// Reads the grid whose first row is `first` and the next rows from `lines`.
pub(super) fn read_grid_rows(
    file: &str,
    lines: &mut LineReader,
    first_line: usize,
    first: &str,
    forced_b: Option<usize>,
    style: RowStyle,
) -> Result<Puzzle, ParseError> {
    let at = At {
        file,
        line: first_line,
    };
    let first_cells = row_cells(first, forced_b.map(|b| b * b), style).map_err(|e| match e {
        RowError::Cell(col, m) => at.err(Some(col), m),
        RowError::Width { fields, symbols } => at.err(
            None,
            width_message(forced_b, &found_width(style, fields, symbols)),
        ),
    })?;
    let n = first_cells.len();
    let b = Geometry::box_for_side(n).expect("row_cells checks the width");
    // 16 symbols are also a 4x4 puzzle on one line: say why this one is not.
    let not_4x4 = (n == 16)
        .then(|| first_cells.iter().find(|(v, _)| *v > 4))
        .flatten()
        .map(|(v, col)| {
            format!("; as a 4x4 puzzle its line holds {v} at column {col}, and a 4x4 takes 1–4")
        })
        .unwrap_or_default();
    let mut cells = Vec::with_capacity(n * n);
    let mut places = Vec::with_capacity(n * n);
    let mut push_row = |line: usize, row: Vec<(u8, usize)>| {
        for (v, col) in row {
            cells.push(v);
            places.push((line, col));
        }
    };
    push_row(first_line, first_cells);
    let mut rows = 1;
    while rows < n {
        let Some(line) = lines.next_line()? else {
            return Err(ParseError {
                file: file.to_string(),
                line: lines.last_line(),
                column: None,
                message: format!(
                    "the grid ends after {rows} of the {n} rows of this {n}x{n} grid (the file \
                     ends){}",
                    if rows == 1 { not_4x4.as_str() } else { "" }
                ),
            });
        };
        let at = At {
            file,
            line: line.number,
        };
        let trimmed = line.text.trim();
        if trimmed.is_empty() {
            return Err(at.err(
                None,
                format!(
                    "the grid ends after {rows} of the {n} rows of this {n}x{n} grid (a blank \
                     line){}",
                    if rows == 1 { not_4x4.as_str() } else { "" }
                ),
            ));
        }
        if trimmed.starts_with('#') {
            return Err(at.err(
                None,
                format!(
                    "a comment line inside a grid: row {} of the {n}x{n} grid that starts on line \
                     {first_line} is expected here (comments go between grids)",
                    rows + 1
                ),
            ));
        }
        if style == RowStyle::Blocks && is_separator_line(trimmed) {
            continue;
        }
        let row = row_cells(&line.text, Some(n), style).map_err(|e| match e {
            RowError::Cell(col, m) => at.err(Some(col), m),
            RowError::Width { fields, symbols } => at.err(
                None,
                format!(
                    "row {} of a {n}x{n} grid has {}, expected {n}",
                    rows + 1,
                    found_width(style, fields, symbols)
                ),
            ),
        })?;
        push_row(line.number, row);
        rows += 1;
    }
    let grid = Grid::from_cells(b, cells).expect("n rows of n cells");
    let at = At {
        file,
        line: first_line,
    };
    check_clues(&at, &grid, |cell| places[cell])?;
    Ok(Puzzle {
        grid,
        line: first_line,
        extra: String::new(),
        solution: None,
    })
}

/// What a row of the wrong width holds: "8 numbers", "8 cells", "20 symbols in 3 fields".
fn found_width(style: RowStyle, fields: usize, symbols: usize) -> String {
    match style {
        RowStyle::Integers => format!("{fields} numbers"),
        RowStyle::Blocks if fields == 1 || fields == symbols => format!("{symbols} cells"),
        RowStyle::Blocks => format!("{symbols} symbols in {fields} fields"),
    }
}

fn width_message(forced_b: Option<usize>, found: &str) -> String {
    match forced_b {
        Some(fb) => format!("row has {found} but {} needs {}", size_flag(fb), fb * fb),
        None => format!(
            "row has {found}: a grid row needs {} (a one-line puzzle {} symbols)",
            sides(),
            line_lengths()
        ),
    }
}

/// A puzzle from raw cell values (row by row, 0 for a blank), checked as a file's puzzle is:
/// errors are placed at `file:line:cell` (`line` names the puzzle, the column its 1-based
/// cell), a value too large for the grid or a clue repeated in a row, column or box (the
/// command line's own messages). For callers with grids in memory (the Python package).
pub fn grid_from_cells(
    file: &str,
    line: usize,
    b: usize,
    cells: Vec<u8>,
) -> Result<Grid, ParseError> {
    let at = At { file, line };
    let n = b * b;
    if let Some(c) = cells.iter().position(|&v| v as usize > n) {
        return Err(at.err(
            Some(c + 1),
            format!("value {} is larger than {n}", cells[c]),
        ));
    }
    let grid = Grid::from_cells(b, cells).map_err(|e| at.err(None, e.to_string()))?;
    check_clues(&at, &grid, |c| (line, c + 1))?;
    Ok(grid)
}

/// Errors if a clue repeats in a row, column or box; the error is placed at the later cell
/// (`place` gives a cell's line and column).
pub(super) fn check_clues(
    at: &At,
    grid: &Grid,
    place: impl Fn(usize) -> (usize, usize),
) -> Result<(), ParseError> {
    let Some((a, b, v)) = grid.first_conflict() else {
        return Ok(());
    };
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
    let (line, column) = place(b);
    Err(ParseError {
        file: at.file.to_string(),
        line,
        column: Some(column),
        message: format!(
            "clue {} repeats in {unit} ({} and {})",
            super::symbol_for(v),
            cell_name(a, n),
            cell_name(b, n)
        ),
    })
}
