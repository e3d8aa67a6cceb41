//! Reading puzzle files, streaming, in any of four layouts (see docs/PUZZLES.md):
//! - [`Format::Line`]: one puzzle per line, n² symbols (`1-9`, `A-Z`, `a-z`, `@$%`; blanks `.`,
//!   `0`, `_`), then optional whitespace-separated fields kept verbatim (rating, d, solution…);
//! - [`Format::Integers`]: n lines of n whitespace-separated integers (0 or -1 for blank);
//! - [`Format::Blocks`]: n lines of n symbols, with or without spaces, `|` and `-`/`+` lines
//!   (the `.sdk`/`.ss` style);
//! - [`Format::Csv`]: a header row, then one puzzle (and maybe its solution) per row.
//!
//! Any of them may be gzip-compressed. `#` lines and blank lines are skipped. Every problem is
//! reported as file:line:column: what.

use super::csv::{split_row, CsvTable};
use super::error::{At, ParseError};
use super::lines::LineReader;
use super::rows::{
    fields_with_columns, is_puzzle_text, looks_like_puzzle, parse_symbol_line, read_grid_rows,
    RowStyle,
};
use super::{Geometry, Puzzle};
use std::io::Read;

crate::choice! {
    /// The layout of a puzzle file (docs/PUZZLES.md, "Formats").
    pub enum Format {
        /// Detect: CSV when the first line's first field holds a comma; otherwise, per puzzle, a
        /// line whose first field has n² symbols is a one-line puzzle and any other line starts
        /// a grid written row by row (integers or blocks).
        Auto = "auto",
        /// One puzzle per line, then optional extra fields.
        Line = "line",
        /// n rows of n whitespace-separated integers, 0 or -1 for blank.
        Integers = "integers",
        /// n rows of n symbols, with or without spaces, `|` and `-`/`+` separator lines.
        Blocks = "blocks",
        /// Comma-separated values with a header row; the puzzle column holds one-line puzzles.
        Csv = "csv",
    }
}

// `choice!` writes the enum, so `#[derive(Default)]` cannot mark a variant.
#[allow(clippy::derivable_impls)]
impl Default for Format {
    fn default() -> Format {
        Format::Auto
    }
}

/// How to read a puzzle file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Side of every puzzle (9 for 9x9); `None` takes it from the first puzzle.
    pub side: Option<usize>,
    pub format: Format,
    /// CSV only: the puzzle column, by header name (any case) or 1-based number; `None` takes
    /// the first column whose first value reads as a puzzle.
    pub column: Option<String>,
}

/// Most `#` lines kept as a file's header (later ones are read and passed over).
pub const MAX_HEADER_LINES: usize = 1000;

/// The puzzles of one file, all of one size.
#[derive(Clone, Debug)]
pub struct PuzzleFile {
    /// Path as given (`-` for stdin).
    pub path: String,
    /// Box size b of every puzzle in the file.
    pub b: usize,
    pub puzzles: Vec<Puzzle>,
    /// The `#` comment lines before the first puzzle (the header), without `#`; the first
    /// [`MAX_HEADER_LINES`].
    pub header: Vec<String>,
}

impl PuzzleFile {
    /// The file's row label: [`file_label`] of its path ("evil").
    pub fn label(&self) -> String {
        file_label(&self.path)
    }
}

/// The label of the rows of the file at `path`, the one rule every command and `merge` use:
/// the file name without directories and extension, a `.gz` ending going first
/// ("a/evil.txt" and "evil.txt.gz" → "evil"; `-`, standard input, stays `-`).
pub fn file_label(path: &str) -> String {
    let p = std::path::Path::new(path);
    let p = if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz")) {
        std::path::Path::new(p.file_stem().unwrap_or_default())
    } else {
        p
    };
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string())
}

/// Reads and parses a puzzle file (`-` = stdin), detecting its format. `side` forces the
/// size (9 for 9x9).
pub fn read_puzzles(path: &str, side: Option<usize>) -> Result<PuzzleFile, ParseError> {
    read_puzzles_with(
        path,
        &ReadOptions {
            side,
            ..ReadOptions::default()
        },
    )
}

/// Reads and parses a puzzle file (`-` = stdin) as `options` say.
pub fn read_puzzles_with(path: &str, options: &ReadOptions) -> Result<PuzzleFile, ParseError> {
    collect(PuzzleReader::open(path, options)?)
}

/// Reads and parses puzzles from `reader` (plain or gzip-compressed text); `name` stands for
/// the input in errors.
pub fn read_puzzles_from<'a>(
    name: &str,
    reader: impl Read + 'a,
    options: &ReadOptions,
) -> Result<PuzzleFile, ParseError> {
    collect(PuzzleReader::new(name, reader, options)?)
}

fn collect(mut reader: PuzzleReader) -> Result<PuzzleFile, ParseError> {
    let puzzles = reader.by_ref().collect::<Result<Vec<_>, _>>()?;
    match reader.box_size() {
        Some(b) if !puzzles.is_empty() => Ok(PuzzleFile {
            path: reader.file,
            b,
            puzzles,
            header: reader.header,
        }),
        _ => Err(reader.nothing_found()),
    }
}

/// A puzzle file read through once without keeping its puzzles: what a command that streams
/// the file checks, and reports about it, before any work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scan {
    /// Path as given.
    pub path: String,
    /// Box size b of every puzzle.
    pub b: usize,
    /// How many puzzles it holds (at least one).
    pub puzzles: usize,
    /// The `#` lines before the first puzzle, as [`PuzzleFile::header`].
    pub header: Vec<String>,
    /// [`crate::shard::content_hash`] of its puzzles as one-line grids, as a report's inputs
    /// name them.
    pub hash: String,
    /// Bytes of the longest [`Puzzle::extra`] (what reports repeat per puzzle).
    pub longest_extra: usize,
    /// [`super::LineNotes`] of its puzzles: their lines, extra fields and solutions.
    pub notes_hash: String,
}

/// Reads the whole file at `path` (not standard input: it cannot be read twice), checking every
/// puzzle, in memory that does not grow with the file. Any error is the one
/// [`read_puzzles_with`] gives.
pub fn scan_puzzles(path: &str, options: &ReadOptions) -> Result<Scan, ParseError> {
    let mut reader = PuzzleReader::open(path, options)?;
    let (mut content, mut notes, mut longest_extra) =
        (super::Content::default(), super::LineNotes::default(), 0);
    for p in reader.by_ref() {
        let p = p?;
        content.add(&p.grid);
        notes.add(&p);
        longest_extra = longest_extra.max(p.extra.len());
    }
    match reader.box_size() {
        Some(b) if content.puzzles > 0 => Ok(Scan {
            path: reader.file,
            b,
            puzzles: content.puzzles,
            header: reader.header,
            hash: content.hash(),
            longest_extra,
            notes_hash: notes.hash(),
        }),
        _ => Err(reader.nothing_found()),
    }
}

/// Parses puzzles from text (for tests and in-memory use); the file name in errors is `<input>`.
pub fn parse_str(text: &str, side: Option<usize>) -> Result<Vec<Puzzle>, ParseError> {
    let options = ReadOptions {
        side,
        ..ReadOptions::default()
    };
    read_puzzles_from("<input>", text.as_bytes(), &options).map(|f| f.puzzles)
}

/// What the file has turned out to be.
enum Mode {
    /// No puzzle line seen yet.
    Undecided,
    /// Lines, integer grids or blocks.
    Text,
    /// CSV, after its first row.
    Csv(CsvTable),
}

/// Puzzles read one at a time, in bounded memory whatever the file's size. Iteration stops
/// after the first error. [`read_puzzles_with`] collects them into a [`PuzzleFile`].
pub struct PuzzleReader<'a> {
    file: String,
    lines: LineReader<'a>,
    format: Format,
    column: Option<String>,
    forced_b: Option<usize>,
    mode: Mode,
    /// Box size of the puzzles and the line of the first (0 when forced by `side`).
    size: Option<(usize, usize)>,
    header: Vec<String>,
    /// Puzzles read so far.
    read: usize,
    /// The error after the last chunk's puzzles, for the next call of [`PuzzleReader::next_chunk`].
    pending: Option<ParseError>,
    finished: bool,
}

impl<'a> PuzzleReader<'a> {
    /// Opens a file (`-` = stdin).
    pub fn open(path: &str, options: &ReadOptions) -> Result<PuzzleReader<'static>, ParseError> {
        if path == "-" {
            PuzzleReader::new(path, std::io::stdin().lock(), options)
        } else {
            let f = std::fs::File::open(path)
                .map_err(|e| ParseError::whole(path, format!("cannot read file: {e}")))?;
            PuzzleReader::new(path, f, options)
        }
    }

    /// Reads from `reader` (plain or gzip-compressed text); `name` stands for it in errors.
    pub fn new(
        name: &str,
        reader: impl Read + 'a,
        options: &ReadOptions,
    ) -> Result<PuzzleReader<'a>, ParseError> {
        let forced_b = match options.side {
            None => None,
            Some(n) => Some(Geometry::box_for_side(n).ok_or_else(|| {
                ParseError::whole(
                    name,
                    format!("--size {n} is not supported: use 4, 9, 16, 25, 36, 49 or 64"),
                )
            })?),
        };
        if options.column.is_some() && !matches!(options.format, Format::Auto | Format::Csv) {
            return Err(ParseError::whole(
                name,
                format!(
                    "--column applies to CSV files, not to --format {}",
                    format_name(options.format)
                ),
            ));
        }
        Ok(PuzzleReader {
            file: name.to_string(),
            lines: LineReader::new(name, reader)?,
            format: options.format,
            column: options.column.clone(),
            forced_b,
            mode: Mode::Undecided,
            size: forced_b.map(|b| (b, 0)),
            header: Vec::new(),
            read: 0,
            pending: None,
            finished: false,
        })
    }

    /// The `#` comment lines before the first puzzle, without `#`.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// Box size of the puzzles: forced, or that of the first puzzle once read.
    pub fn box_size(&self) -> Option<usize> {
        self.size.map(|(b, _)| b)
    }

    /// The input's name in errors (its path, `-` for standard input).
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Up to `n` (at least 1) more puzzles: fewer at the end of the input, none after it. The
    /// puzzles before a bad one come first; its error comes with the next call. The input must
    /// hold at least one puzzle: an input with none gives the error [`read_puzzles_with`] gives.
    pub fn next_chunk(&mut self, n: usize) -> Result<Vec<Puzzle>, ParseError> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let mut chunk = Vec::new();
        while chunk.len() < n.max(1) {
            match self.next() {
                None => break,
                Some(Ok(p)) => chunk.push(p),
                Some(Err(e)) if chunk.is_empty() => return Err(e),
                Some(Err(e)) => self.pending = Some(e),
            }
        }
        if chunk.is_empty() && self.read == 0 {
            return Err(self.nothing_found());
        }
        Ok(chunk)
    }

    /// The error for an input that held no puzzle.
    fn nothing_found(&self) -> ParseError {
        match &self.mode {
            Mode::Csv(table) if table.header_line() > 0 => ParseError {
                file: self.file.clone(),
                line: table.header_line(),
                column: None,
                message: "read as a CSV header row, but no puzzle row follows it".into(),
            },
            _ => ParseError::whole(
                &self.file,
                "no puzzle found (the file is empty or holds only comments)",
            ),
        }
    }

    fn next_puzzle(&mut self) -> Result<Option<Puzzle>, ParseError> {
        while let Some(line) = self.lines.next_line()? {
            let trimmed = line.text.trim();
            if trimmed.is_empty() {
                continue;
            }
            if let Some(comment) = trimmed.strip_prefix('#') {
                // The header is for people and provenance: a file of nothing but comments
                // (a gzip of 100 M of them is 200 kB) must not fill the memory.
                if matches!(self.mode, Mode::Undecided) && self.header.len() < MAX_HEADER_LINES {
                    self.header.push(comment.trim().to_string());
                }
                continue;
            }
            let at = At {
                file: &self.file,
                line: line.number,
            };
            if matches!(self.mode, Mode::Undecided) {
                let csv = match self.format {
                    Format::Csv => true,
                    Format::Auto => {
                        // A comma in the first field, unless that field is a puzzle with a typo.
                        let first = fields_with_columns(&line.text, false)[0].1;
                        first.contains(',') && !looks_like_puzzle(first, self.forced_b)
                    }
                    _ => false,
                };
                if csv {
                    let fields = split_row(&at, &line.text)?;
                    let (table, is_data) =
                        CsvTable::start(&at, &fields, self.column.as_deref(), self.forced_b)?;
                    self.mode = Mode::Csv(table);
                    if !is_data {
                        continue;
                    }
                } else if let Some(column) = &self.column {
                    return Err(at.err(
                        None,
                        format!(
                            "--column {column:?} applies to CSV files, and this line is not a CSV header (no comma in its first field)"
                        ),
                    ));
                } else {
                    self.mode = Mode::Text;
                }
            }
            let puzzle = match &mut self.mode {
                Mode::Csv(table) => {
                    table.puzzle(&at, &split_row(&at, &line.text)?, self.forced_b)?
                }
                _ => match self.text_layout(&line.text) {
                    None => continue,
                    Some(None) => parse_symbol_line(&at, &line.text, self.forced_b)?,
                    Some(Some(style)) => read_grid_rows(
                        &self.file,
                        &mut self.lines,
                        line.number,
                        &line.text,
                        self.forced_b,
                        style,
                    )?,
                },
            };
            self.check_size(&puzzle)?;
            return Ok(Some(puzzle));
        }
        Ok(None)
    }

    /// How a text line starts a puzzle: `Some(None)` a one-line puzzle, `Some(Some(style))`
    /// the first row of a grid, `None` a separator line to skip.
    fn text_layout(&self, line: &str) -> Option<Option<RowStyle>> {
        match self.format {
            Format::Line | Format::Csv => Some(None),
            Format::Integers => Some(Some(RowStyle::Integers)),
            Format::Blocks if super::rows::is_separator_line(line) => None,
            Format::Blocks => Some(Some(RowStyle::Blocks)),
            Format::Auto => {
                if super::rows::is_separator_line(line) {
                    return None;
                }
                let first = fields_with_columns(line, false)[0].1;
                let len = first.chars().count();
                let forced_side = self.forced_b.map(|b| b * b);
                let a_puzzle_length =
                    Geometry::box_for_cells(len).is_some() && forced_side != Some(len);
                // 16 symbols: a 4x4 puzzle, or a row of a 16x16 grid when they are not 4x4 symbols.
                let a_row_length = Geometry::box_for_side(len).is_some()
                    && forced_side.is_none_or(|n| n == len)
                    && !is_puzzle_text(first, self.forced_b);
                if (a_puzzle_length && !a_row_length) || len > 64 {
                    Some(None)
                } else {
                    Some(Some(RowStyle::Blocks))
                }
            }
        }
    }

    /// One file holds puzzles of one size.
    fn check_size(&mut self, puzzle: &Puzzle) -> Result<(), ParseError> {
        let b = puzzle.grid.box_size();
        match self.size {
            None => self.size = Some((b, puzzle.line)),
            Some((fb, first_line)) if fb != b => {
                let n = fb * fb;
                let what = if first_line == 0 {
                    "--size".to_string()
                } else {
                    format!("the puzzle on line {first_line}")
                };
                return Err(ParseError {
                    file: self.file.clone(),
                    line: puzzle.line,
                    column: None,
                    message: format!(
                        "puzzle is {0}x{0} but {what} is {n}x{n}: one file holds one size",
                        b * b
                    ),
                });
            }
            Some(_) => {}
        }
        Ok(())
    }
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Auto => "auto",
        Format::Line => "line",
        Format::Integers => "integers",
        Format::Blocks => "blocks",
        Format::Csv => "csv",
    }
}

impl Iterator for PuzzleReader<'_> {
    type Item = Result<Puzzle, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        let next = self.next_puzzle().transpose();
        self.finished = !matches!(next, Some(Ok(_)));
        self.read += usize::from(!self.finished);
        next
    }
}

#[cfg(test)]
mod tests;
