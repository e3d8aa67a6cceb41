//! A puzzle as a SAT problem in DIMACS CNF, and a SAT solver's model read back into a grid, so
//! that the exact solver can be set beside any SAT solver on the same puzzles (and every grid a
//! SAT solver reports is verified like the engine's own).
//!
//! The encoding: naked and hidden singles ([`singles`]) are placed first; then one variable per
//! (open cell, digit) that the singles leave possible, numbered in cell order (row-major), digits
//! ascending within a cell. Clauses: every open cell takes at least one and at most one
//! (pairwise) of its digits; every digit a unit (row, column, box) has not placed goes into at
//! least one and at most one (pairwise) of the unit's cells that allow it. The CNF's models are
//! exactly the puzzle's solutions (tested by enumeration).

use super::propagate::{singles, Contradiction};
use crate::puzzle::{cell_name, symbol_for, Grid};
use std::io::{self, Write};

/// A puzzle's CNF (see the module docs).
#[derive(Clone, Debug)]
pub struct Cnf {
    /// The puzzle with the singles placed: every cell without variables holds its digit here.
    pub start: Grid,
    /// Variable v (1-based) is `vars[v - 1]`: (cell, digit 1..=n).
    pub vars: Vec<(u32, u8)>,
    /// Per cell, its first variable and how many it has (0 for a placed cell).
    cell_vars: Vec<(u32, u8)>,
    /// The clauses' literals, each clause ended by 0 (as DIMACS writes them).
    lits: Vec<i32>,
    clauses: usize,
}

/// What a SAT solver said, read from its output ([`read_model`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Satisfiable, with the model's literals.
    Sat(Vec<i32>),
    Unsat,
    /// No answer (a limit stopped the solver).
    Unknown,
}

/// A fault in a solver's output, at 1-based `line` and `column`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The CNF of `puzzle`, or the contradiction its singles reach (the puzzle has no solution).
pub fn encode(puzzle: &Grid) -> Result<Cnf, Contradiction> {
    let geo = puzzle.geometry();
    let full = u64::MAX >> (64 - geo.n);
    let mut mask: Vec<u64> = puzzle
        .cells()
        .iter()
        .map(|&v| if v == 0 { full } else { 1u64 << (v - 1) })
        .collect();
    singles(geo, &mut mask)?;
    let mut start = puzzle.clone();
    let mut vars = Vec::new();
    let mut cell_vars = vec![(0u32, 0u8); geo.cells];
    // var_of[cell * n + d - 1]: the variable of (cell, d), 0 where there is none.
    let mut var_of = vec![0i32; geo.cells * geo.n];
    for (c, &m) in mask.iter().enumerate() {
        if m.count_ones() == 1 {
            start.set(c, m.trailing_zeros() as u8 + 1);
            continue;
        }
        cell_vars[c] = (vars.len() as u32 + 1, m.count_ones() as u8);
        for d in 0..geo.n {
            if m >> d & 1 == 1 {
                vars.push((c as u32, d as u8 + 1));
                var_of[c * geo.n + d] = vars.len() as i32;
            }
        }
    }
    let mut cnf = Cnf {
        start,
        vars,
        cell_vars,
        lits: Vec::new(),
        clauses: 0,
    };
    let mut group = Vec::with_capacity(geo.n);
    for c in 0..geo.cells {
        group.clear();
        group.extend(
            (0..geo.n)
                .map(|d| var_of[c * geo.n + d])
                .filter(|&v| v != 0),
        );
        cnf.exactly_one(&group);
    }
    for u in 0..3 * geo.n {
        for d in 0..geo.n {
            group.clear();
            group.extend(
                geo.unit(u)
                    .iter()
                    .map(|&c| var_of[c as usize * geo.n + d])
                    .filter(|&v| v != 0),
            );
            // No variable: the digit is placed in this unit (singles leave no digit without a
            // place, and give a digit with one place that place).
            cnf.exactly_one(&group);
        }
    }
    Ok(cnf)
}

impl Cnf {
    /// At least one and, pairwise, at most one of `vars` (nothing for an empty group).
    fn exactly_one(&mut self, vars: &[i32]) {
        if vars.is_empty() {
            return;
        }
        self.lits.extend_from_slice(vars);
        self.lits.push(0);
        self.clauses += 1;
        for (i, &a) in vars.iter().enumerate() {
            for &b in &vars[i + 1..] {
                self.lits.extend_from_slice(&[-a, -b, 0]);
                self.clauses += 1;
            }
        }
    }

    /// Number of clauses.
    pub fn clause_count(&self) -> usize {
        self.clauses
    }

    /// The clauses, each a slice of literals without the closing 0.
    pub fn clauses(&self) -> impl Iterator<Item = &[i32]> {
        self.lits.split(|&l| l == 0).take(self.clauses)
    }

    /// Writes the DIMACS text: `comments` as `c` lines, a `c map VAR ROW COL DIGIT` line per
    /// variable (1-based), the `p cnf` header and the clauses.
    pub fn write_dimacs(&self, w: &mut dyn Write, comments: &[String]) -> io::Result<()> {
        for c in comments {
            writeln!(w, "c {c}")?;
        }
        let n = self.start.side();
        for (i, &(cell, d)) in self.vars.iter().enumerate() {
            let cell = cell as usize;
            writeln!(w, "c map {} {} {} {d}", i + 1, cell / n + 1, cell % n + 1)?;
        }
        writeln!(w, "p cnf {} {}", self.vars.len(), self.clauses)?;
        let mut line = String::new();
        for clause in self.clauses() {
            line.clear();
            for l in clause {
                line.push_str(&l.to_string());
                line.push(' ');
            }
            line.push_str("0\n");
            w.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// The grid a model gives `puzzle` (whose CNF this is), verified against the rules and the
    /// clues; `Err` says what is wrong with the model.
    pub fn decode(&self, puzzle: &Grid, model: &[i32]) -> Result<Grid, String> {
        let mut value = vec![None::<bool>; self.vars.len()];
        for &l in model {
            let v = l.unsigned_abs() as usize;
            if v == 0 || v > self.vars.len() {
                return Err(format!(
                    "literal {l} is no variable of this CNF (it has {})",
                    self.vars.len()
                ));
            }
            if value[v - 1].is_some_and(|b| b != (l > 0)) {
                return Err(format!("the model sets variable {v} both true and false"));
            }
            value[v - 1] = Some(l > 0);
        }
        let n = self.start.side();
        let mut grid = self.start.clone();
        for (c, &(first, count)) in self.cell_vars.iter().enumerate() {
            if count == 0 {
                continue;
            }
            let range = first as usize - 1..first as usize - 1 + count as usize;
            let digits: Vec<u8> = range
                .filter(|&i| value[i] == Some(true))
                .map(|i| self.vars[i].1)
                .collect();
            match digits[..] {
                [d] => grid.set(c, d),
                [] => return Err(format!("the model gives {} no digit", cell_name(c, n))),
                [a, b, ..] => {
                    return Err(format!(
                        "the model gives {} both {} and {}",
                        cell_name(c, n),
                        symbol_for(a),
                        symbol_for(b)
                    ))
                }
            }
        }
        grid.verify_solution_of(puzzle)
            .map_err(|e| format!("the model's grid is no solution: {e}"))?;
        Ok(grid)
    }
}

/// Reads a SAT solver's output: the SAT competition's (`s SATISFIABLE`, `v` lines of literals,
/// `c` comments) or MiniSat's result file (`SAT`, then the literals; `UNSAT`; `INDET`). The
/// model ends at literal 0 (or at the end of the text).
pub fn read_model(text: &str) -> Result<Answer, ModelError> {
    let mut status = None;
    let mut lits = Vec::new();
    let mut ended = false;
    for (i, line) in text.lines().enumerate() {
        let err = |column: usize, message: String| ModelError {
            line: i + 1,
            column,
            message,
        };
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let first = trimmed.split_whitespace().next().unwrap_or("");
        let (body, offset) = match first {
            "" | "c" => continue,
            "s" => {
                let word = trimmed[1..].trim();
                status = Some(match word {
                    "SATISFIABLE" => Status::Sat,
                    "UNSATISFIABLE" => Status::Unsat,
                    "UNKNOWN" => Status::Unknown,
                    _ => {
                        return Err(err(
                            indent + 1,
                            format!(
                                "unknown status {word:?}: expected SATISFIABLE, UNSATISFIABLE or UNKNOWN"
                            ),
                        ))
                    }
                });
                continue;
            }
            "SAT" | "SATISFIABLE" if status.is_none() && lits.is_empty() => {
                status = Some(Status::Sat);
                continue;
            }
            "UNSAT" | "UNSATISFIABLE" if status.is_none() => {
                status = Some(Status::Unsat);
                continue;
            }
            "INDET" | "INDETERMINATE" | "UNKNOWN" if status.is_none() => {
                status = Some(Status::Unknown);
                continue;
            }
            "v" => (&trimmed[1..], indent + 1),
            _ => (trimmed, indent),
        };
        let mut column = offset;
        let mut rest = body;
        while let Some(start) = rest.find(|ch: char| !ch.is_whitespace()) {
            let token_len = rest[start..]
                .find(char::is_whitespace)
                .unwrap_or(rest.len() - start);
            let token = &rest[start..start + token_len];
            let at = column + start + 1;
            if ended {
                return Err(err(at, format!("{token:?} after the model's closing 0")));
            }
            let l: i32 = token.parse().map_err(|_| {
                err(
                    at,
                    format!("{token:?} is not a literal (a whole number such as -12)"),
                )
            })?;
            if l == 0 {
                ended = true;
            } else {
                lits.push(l);
            }
            column += start + token_len;
            rest = &rest[start + token_len..];
        }
    }
    let last = text.lines().count().max(1);
    match status {
        Some(Status::Unsat) if !lits.is_empty() => Err(ModelError {
            line: last,
            column: 1,
            message: "an UNSATISFIABLE answer with a model".into(),
        }),
        Some(Status::Unsat) => Ok(Answer::Unsat),
        Some(Status::Unknown) => Ok(Answer::Unknown),
        Some(Status::Sat) => Ok(Answer::Sat(lits)),
        None if !lits.is_empty() => Ok(Answer::Sat(lits)),
        None => Err(ModelError {
            line: last,
            column: 1,
            message: "no answer: expected a SAT solver's output (`s SATISFIABLE` and `v` lines, \
                      or MiniSat's `SAT`/`UNSAT` result file)"
                .into(),
        }),
    }
}

#[derive(Clone, Copy)]
enum Status {
    Sat,
    Unsat,
    Unknown,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::parse_str;

    fn grid(line: &str) -> Grid {
        parse_str(line, None).unwrap().remove(0).grid
    }

    fn satisfies(cnf: &Cnf, value: &[bool]) -> bool {
        cnf.clauses().all(|cl| {
            cl.iter()
                .any(|&l| value[l.unsigned_abs() as usize - 1] == (l > 0))
        })
    }

    /// Two independent swaps leave 4 solutions; the singles place nothing. Every assignment of
    /// one digit per open cell is tried: those that satisfy the CNF are exactly the solutions.
    #[test]
    fn models_are_exactly_the_solutions() {
        let p = grid("..34..1...43..2.");
        assert_eq!(crate::exact::count_solutions(&p, 10), 4);
        let cnf = encode(&p).unwrap();
        assert_eq!(cnf.vars.len(), 16); // 8 open cells of 2 digits each
        let open: Vec<usize> = (0..16).filter(|&c| cnf.start.get(c) == 0).collect();
        assert_eq!(open.len(), 8);
        let mut models = Vec::new();
        for bits in 0u32..1 << 16 {
            let value: Vec<bool> = (0..16).map(|i| bits >> i & 1 == 1).collect();
            if satisfies(&cnf, &value) {
                let model: Vec<i32> = (1..=16)
                    .map(|v| if value[v - 1] { v as i32 } else { -(v as i32) })
                    .collect();
                models.push(cnf.decode(&p, &model).unwrap());
            }
        }
        assert_eq!(models.len(), 4);
        models.sort_by(|a, b| a.cells().cmp(b.cells()));
        models.dedup();
        assert_eq!(models.len(), 4);
        assert!(models.iter().all(|g| g.is_solution_of(&p)));
    }

    #[test]
    fn a_solution_satisfies_every_clause_and_decodes() {
        // AI Escargot: the singles leave most cells open.
        let p = grid(
            "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
        );
        let s = crate::exact::solve(&p).unwrap();
        let cnf = encode(&p).unwrap();
        assert!(cnf.vars.len() > 100, "{} variables", cnf.vars.len());
        let value: Vec<bool> = cnf
            .vars
            .iter()
            .map(|&(c, d)| s.get(c as usize) == d)
            .collect();
        assert!(satisfies(&cnf, &value));
        let model: Vec<i32> = (1..=cnf.vars.len() as i32)
            .map(|v| if value[v as usize - 1] { v } else { -v })
            .collect();
        assert_eq!(cnf.decode(&p, &model).unwrap(), s);
        // Only the true literals (some solvers print fewer) decode alike.
        let trues: Vec<i32> = model.iter().copied().filter(|&l| l > 0).collect();
        assert_eq!(cnf.decode(&p, &trues).unwrap(), s);
        // The DIMACS text: header, one line per clause, one map line per variable.
        let mut out = Vec::new();
        cnf.write_dimacs(&mut out, &["hello".into()]).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("c hello\nc map 1 1 2 "), "{}", &text[..40]);
        let header = format!("p cnf {} {}", cnf.vars.len(), cnf.clause_count());
        assert_eq!(text.lines().filter(|l| *l == header).count(), 1);
        assert_eq!(
            text.lines().filter(|l| l.ends_with(" 0")).count(),
            cnf.clause_count()
        );
        assert_eq!(
            text.lines().filter(|l| l.starts_with("c map ")).count(),
            cnf.vars.len()
        );
    }

    #[test]
    fn faulty_models_are_refused() {
        let p = grid("..34..1...43..2.");
        let cnf = encode(&p).unwrap();
        // Variables 1, 2: r1c1 takes 1 or 2; 3, 4: r1c2 takes 1 or 2.
        assert_eq!(cnf.vars[..4], [(0, 1), (0, 2), (1, 1), (1, 2)]);
        let no_digit = cnf.decode(&p, &[-1, -2]).unwrap_err();
        assert_eq!(no_digit, "the model gives r1c1 no digit");
        let two = cnf.decode(&p, &[1, 2]).unwrap_err();
        assert_eq!(two, "the model gives r1c1 both 1 and 2");
        assert!(cnf
            .decode(&p, &[17])
            .unwrap_err()
            .contains("literal 17 is no variable"));
        assert!(cnf
            .decode(&p, &[1, -1])
            .unwrap_err()
            .contains("both true and false"));
        // One digit per cell, but r1 holds 1 twice: the verification catches it.
        let bad = [1, 3, 6, 8, 9, 11, 14, 16];
        let e = cnf.decode(&p, &bad).unwrap_err();
        assert!(e.starts_with("the model's grid is no solution"), "{e}");
    }

    #[test]
    fn contradictory_puzzles_have_no_cnf() {
        // r1c4 can only be 4, which column 4 already holds.
        let e = encode(&grid("123............4")).unwrap_err();
        assert!(e.to_string().contains("no candidate"), "{e}");
    }

    #[test]
    fn solver_outputs_are_read() {
        let comp = "c by some solver\ns SATISFIABLE\nv 1 -2 3\nv -4 0\n";
        assert_eq!(read_model(comp), Ok(Answer::Sat(vec![1, -2, 3, -4])));
        assert_eq!(
            read_model("SAT\n1 -2 3 -4 0\n"),
            Ok(Answer::Sat(vec![1, -2, 3, -4]))
        );
        assert_eq!(read_model("s UNSATISFIABLE\n"), Ok(Answer::Unsat));
        assert_eq!(read_model("UNSAT\n"), Ok(Answer::Unsat));
        assert_eq!(read_model("INDET\n"), Ok(Answer::Unknown));
        assert_eq!(read_model("s UNKNOWN\n"), Ok(Answer::Unknown));
        let at = |t: &str| read_model(t).map(|_| ()).unwrap_err();
        let e = at("s SATISFIABLE\nv 1 x2 0\n");
        assert_eq!((e.line, e.column), (2, 5), "{}", e.message);
        assert!(e.message.contains("\"x2\" is not a literal"));
        let e = at("SAT\n1 0 2\n");
        assert_eq!((e.line, e.column), (2, 5));
        assert!(e.message.contains("after the model's closing 0"));
        let e = at("s MAYBE\n");
        assert_eq!((e.line, e.column), (1, 1));
        assert!(e.message.contains("unknown status"));
        assert!(at("").message.contains("no answer"));
        assert!(at("s UNSATISFIABLE\nv 1 0\n")
            .message
            .contains("with a model"));
    }
}
