//! CSV files of puzzles, like Kaggle's sudoku sets (`quizzes,solutions`, `puzzle,solution`,
//! `id,puzzle,solution,clues,difficulty`): a header row names the columns, one row per puzzle,
//! each grid a one-line puzzle. Fields are separated by commas and may be quoted (`"…"`,
//! `""` for a quote); a field cannot span lines. [`crate::csv_io`] splits the rows.

use super::error::{At, ParseError};
use super::rows::{check_clues, grid_from_symbols, looks_like_puzzle};
use super::Puzzle;
use crate::csv_io::Field;

/// Splits a CSV row into fields (the project's one CSV parser, [`crate::csv_io`]).
pub(super) fn split_row(at: &At, line: &str) -> Result<Vec<Field>, ParseError> {
    crate::csv_io::split_line(line).map_err(|e| at.err(Some(e.column), e.why))
}

/// Whether a column name means "the solution".
fn is_solution_name(name: &str) -> bool {
    name.eq_ignore_ascii_case("solution") || name.eq_ignore_ascii_case("solutions")
}

/// The columns of a CSV file and which of them hold the puzzle and its solution.
pub(super) struct CsvTable {
    names: Vec<String>,
    /// Line of the header row; 0 when the file has none (its columns are named 1, 2, 3…).
    header_line: usize,
    /// The puzzle column; when not asked for, the first (not named solution) whose value in
    /// the first data row looks like a puzzle.
    puzzle: Option<usize>,
    solution: Option<usize>,
}

impl CsvTable {
    /// The table from the file's first row, and whether that row is data: a row in which a
    /// field looks like a puzzle is not a header. `column` names the puzzle column (a header
    /// name, any case, or a 1-based number).
    pub fn start(
        at: &At,
        fields: &[Field],
        column: Option<&str>,
        forced_b: Option<usize>,
    ) -> Result<(CsvTable, bool), ParseError> {
        let headerless = fields.iter().any(|f| looks_like_puzzle(&f.text, forced_b));
        let names: Vec<String> = if headerless {
            (1..=fields.len()).map(|k| k.to_string()).collect()
        } else {
            fields.iter().map(|f| f.text.clone()).collect()
        };
        let mut table = CsvTable {
            names,
            header_line: if headerless { 0 } else { at.line },
            puzzle: None,
            solution: None,
        };
        if let Some(wanted) = column {
            let found = table
                .names
                .iter()
                .position(|n| n.eq_ignore_ascii_case(wanted.trim()))
                .or_else(|| {
                    wanted
                        .trim()
                        .parse::<usize>()
                        .ok()
                        .filter(|k| (1..=fields.len()).contains(k))
                        .map(|k| k - 1)
                });
            let Some(p) = found else {
                return Err(at.err(
                    None,
                    format!(
                        "--column {wanted:?}: no such column; the columns are {} (or give a number 1-{})",
                        table.names.join(", "),
                        fields.len()
                    ),
                ));
            };
            table.choose(p);
        }
        Ok((table, headerless))
    }

    /// Line of the header row (0: none).
    pub fn header_line(&self) -> usize {
        self.header_line
    }

    fn choose(&mut self, puzzle: usize) {
        self.puzzle = Some(puzzle);
        self.solution =
            (0..self.names.len()).find(|&c| c != puzzle && is_solution_name(&self.names[c]));
    }

    /// The puzzle of one data row (with its solution, when the file has a solution column).
    pub fn puzzle(
        &mut self,
        at: &At,
        fields: &[Field],
        forced_b: Option<usize>,
    ) -> Result<Puzzle, ParseError> {
        if fields.len() != self.names.len() {
            let first = if self.header_line == 0 {
                "the first row"
            } else {
                "the header"
            };
            return Err(at.err(
                None,
                format!(
                    "row has {} fields but {first} has {} ({})",
                    fields.len(),
                    self.names.len(),
                    self.names.join(", ")
                ),
            ));
        }
        let p = match self.puzzle {
            Some(p) => p,
            None => {
                let Some(p) = (0..fields.len()).find(|&c| {
                    !is_solution_name(&self.names[c])
                        && looks_like_puzzle(&fields[c].text, forced_b)
                }) else {
                    return Err(at.err(
                        None,
                        format!(
                            "no field of this row reads as a puzzle (columns: {}): name the puzzle column with --column",
                            self.names.join(", ")
                        ),
                    ));
                };
                self.choose(p);
                p
            }
        };
        let field = &fields[p];
        if field.text.is_empty() {
            return Err(at.err(
                Some(field.column),
                format!("the puzzle column {:?} is empty", self.names[p]),
            ));
        }
        let grid = grid_from_symbols(at, &field.text, field.column, forced_b)?;
        check_clues(at, &grid, |cell| (at.line, field.column + cell))?;
        let solution = match self.solution.map(|s| (s, &fields[s])) {
            Some((s, sf)) if !sf.text.is_empty() => {
                let name = &self.names[s];
                let sol = grid_from_symbols(at, &sf.text, sf.column, Some(grid.box_size()))
                    .map_err(|e| ParseError {
                        message: format!("solution column {name:?}: {}", e.message),
                        ..e
                    })?;
                if let Some((cell, why)) = sol.solution_fault(&grid) {
                    return Err(at.err(
                        Some(sf.column + cell),
                        format!("the solution in column {name:?} does not solve the puzzle: {why}"),
                    ));
                }
                Some(sol)
            }
            _ => None,
        };
        let extra: Vec<String> = fields
            .iter()
            .enumerate()
            .filter(|&(c, f)| c != p && Some(c) != self.solution && !f.text.is_empty())
            .map(|(c, f)| format!("{}={}", self.names[c], f.text))
            .collect();
        Ok(Puzzle {
            grid,
            line: at.line,
            extra: extra.join(" "),
            solution,
        })
    }
}
