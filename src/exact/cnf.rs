//! A puzzle as a SAT problem in DIMACS CNF, and a SAT solver's model read back into a grid, so
//! that the exact solver can be set beside any SAT solver on the same puzzles (and every grid a
//! SAT solver reports is verified like the engine's own).
//!
//! The encoding: naked and hidden singles ([`super::singles`]) are placed first; then one variable per
//! (open cell, digit) that the singles leave possible, numbered in cell order (row-major), digits
//! ascending within a cell. Clauses: every open cell takes at least one and at most one
//! (pairwise) of its digits; every digit a unit (row, column, box) has not placed goes into at
//! least one and at most one (pairwise) of the unit's cells that allow it. The CNF's models are
//! exactly the puzzle's solutions (tested by enumeration).

use super::propagate::{singles_candidates, Contradiction};
use crate::puzzle::{cell_name, symbol_for, Grid};
use std::io::{self, Write};

/// A puzzle's CNF (see the module docs): its variables; the clauses are made as they are
/// written ([`Cnf::for_each_clause`]), so a 64x64's tens of millions are never held.
#[derive(Clone, Debug)]
pub struct Cnf {
    /// The puzzle with the singles placed: every cell without variables holds its digit here.
    pub start: Grid,
    /// Variable v (1-based) is `vars[v - 1]`: (cell, digit 1..=n).
    pub vars: Vec<(u32, u8)>,
    /// `var_of[cell * n + d - 1]`: the variable of (cell, d), 0 where there is none.
    var_of: Vec<i32>,
}

/// What a SAT solver said, read from its output ([`read_model`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Satisfiable, with the model's literals (none when the solver printed no model).
    Sat(Vec<i32>),
    Unsat,
    /// No answer (a limit stopped the solver).
    Unknown,
}

/// A fault in a solver's output, at 1-based `line` and `column` (in characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The CNF of `puzzle`, or the contradiction its singles reach (the puzzle has no solution).
pub fn encode(puzzle: &Grid) -> Result<Cnf, Contradiction> {
    let geo = puzzle.geometry();
    let mask = singles_candidates(puzzle)?;
    let mut start = puzzle.clone();
    let mut vars = Vec::new();
    let mut var_of = vec![0i32; geo.cells * geo.n];
    for (c, &m) in mask.iter().enumerate() {
        if m.count_ones() == 1 {
            start.set(c, m.trailing_zeros() as u8 + 1);
            continue;
        }
        for d in 0..geo.n {
            if m >> d & 1 == 1 {
                vars.push((c as u32, d as u8 + 1));
                var_of[c * geo.n + d] = vars.len() as i32;
            }
        }
    }
    Ok(Cnf {
        start,
        vars,
        var_of,
    })
}

impl Cnf {
    /// Number of clauses (counted by making them: a 64x64 with few clues has tens of millions).
    pub fn clause_count(&self) -> u64 {
        let mut count = 0u64;
        self.for_each_clause(|_| {
            count += 1;
            Ok(())
        })
        .expect("counting cannot fail");
        count
    }

    /// Calls `f` with every clause in order (its literals, without the closing 0): per open
    /// cell, then per unit (rows, columns, boxes) and digit it lacks, at least one of the
    /// group's variables, then each pair of them at most once. No clause comes twice: a pair of
    /// cells of one box that also share a row or column has its clause there, and a digit whose
    /// places in a box are its places in a row or column has its at-least-one clause there.
    pub fn for_each_clause(&self, mut f: impl FnMut(&[i32]) -> io::Result<()>) -> io::Result<()> {
        let geo = self.start.geometry();
        let n = geo.n;
        let mut group: Vec<(i32, usize)> = Vec::with_capacity(n);
        // A digit with the same places in a box and in a row or column: one at-least-one clause.
        let mut places_seen = std::collections::HashSet::new();
        let mut emit = |group: &[(i32, usize)], unit: Option<usize>| -> io::Result<()> {
            let vars: Vec<i32> = group.iter().map(|&(v, _)| v).collect();
            if vars.is_empty() || (unit.is_some() && !places_seen.insert(vars.clone())) {
                return Ok(());
            }
            f(&vars)?;
            let in_box = unit.is_some_and(|u| u >= 2 * n);
            for (i, &(a, ca)) in group.iter().enumerate() {
                for &(b, cb) in &group[i + 1..] {
                    if in_box && (ca / n == cb / n || ca % n == cb % n) {
                        continue;
                    }
                    f(&[-a, -b])?;
                }
            }
            Ok(())
        };
        for c in 0..geo.cells {
            group.clear();
            group.extend(
                (0..n)
                    .map(|d| (self.var_of[c * n + d], c))
                    .filter(|&(v, _)| v != 0),
            );
            emit(&group, None)?;
        }
        for u in 0..3 * n {
            for d in 0..n {
                group.clear();
                group.extend(
                    geo.unit(u)
                        .iter()
                        .map(|&c| (self.var_of[c as usize * n + d], c as usize))
                        .filter(|&(v, _)| v != 0),
                );
                // An empty group: the digit is placed in this unit (singles leave no digit
                // without a place, and give a digit with one place that place).
                emit(&group, Some(u))?;
            }
        }
        Ok(())
    }

    /// Writes the DIMACS text: `comments` as `c` lines (control characters escaped, so each
    /// stays one line), a `c map VAR ROW COL DIGIT` line per variable (1-based), the `p cnf`
    /// header and the clauses; returns the number of clauses.
    pub fn write_dimacs(&self, w: &mut dyn Write, comments: &[String]) -> io::Result<u64> {
        for c in comments {
            let one_line: String = c
                .chars()
                .map(|ch| {
                    if ch.is_control() {
                        ch.escape_default().to_string()
                    } else {
                        ch.to_string()
                    }
                })
                .collect();
            writeln!(w, "c {one_line}")?;
        }
        let n = self.start.side();
        for (i, &(cell, d)) in self.vars.iter().enumerate() {
            let cell = cell as usize;
            writeln!(w, "c map {} {} {} {d}", i + 1, cell / n + 1, cell % n + 1)?;
        }
        let clauses = self.clause_count();
        writeln!(w, "p cnf {} {clauses}", self.vars.len())?;
        let mut line = String::new();
        self.for_each_clause(|clause| {
            line.clear();
            for l in clause {
                line.push_str(&l.to_string());
                line.push(' ');
            }
            line.push_str("0\n");
            w.write_all(line.as_bytes())
        })?;
        Ok(clauses)
    }

    /// The grid a model gives `puzzle` (whose CNF this is), verified against the rules and the
    /// clues; `Err` says what is wrong with the model.
    pub fn decode(&self, puzzle: &Grid, model: &[i32]) -> Result<Grid, String> {
        if model.is_empty() && !self.vars.is_empty() {
            return Err(
                "SATISFIABLE, but the answer holds no model (no `v` lines): run the \
                        SAT solver so that it prints one"
                    .into(),
            );
        }
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
        for c in 0..n * n {
            let digits: Vec<u8> = (1..=n as u8)
                .filter(|&d| {
                    let v = self.var_of[c * n + d as usize - 1];
                    v != 0 && value[v as usize - 1] == Some(true)
                })
                .collect();
            let open = self.start.get(c) == 0;
            match digits[..] {
                [] if !open => {}
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
/// model ends at literal 0 (or at the end of the text). One answer only: a second status line
/// that differs, a model after UNSATISFIABLE or UNKNOWN, and literals that are not plain
/// DIMACS numbers (`+5`, `-0`, `007`) are refused where they stand.
pub fn read_model(text: &str) -> Result<Answer, ModelError> {
    let mut status: Option<(Status, usize)> = None;
    let mut lits = Vec::new();
    let mut ended = false;
    for (i, line) in text.lines().enumerate() {
        let err = |column: usize, message: String| ModelError {
            line: i + 1,
            column,
            message,
        };
        let trimmed = line.trim_start();
        let indent = line.chars().count() - trimmed.chars().count();
        let first = trimmed.split_whitespace().next().unwrap_or("");
        let said = match first {
            "" | "c" => continue,
            "s" => match trimmed[1..].trim() {
                "SATISFIABLE" => Some(Status::Sat),
                "UNSATISFIABLE" => Some(Status::Unsat),
                "UNKNOWN" => Some(Status::Unknown),
                word => {
                    return Err(err(
                        indent + 1,
                        format!(
                        "unknown status {word:?}: expected SATISFIABLE, UNSATISFIABLE or UNKNOWN"
                    ),
                    ))
                }
            },
            "SAT" | "SATISFIABLE" => Some(Status::Sat),
            "UNSAT" | "UNSATISFIABLE" => Some(Status::Unsat),
            "INDET" | "INDETERMINATE" | "UNKNOWN" => Some(Status::Unknown),
            _ => None,
        };
        if let Some(now) = said {
            if let Some((before, at)) = status {
                return Err(err(
                    indent + 1,
                    format!(
                        "a second answer ({}) after line {at}'s ({}): give one solver run's output",
                        now.name(),
                        before.name()
                    ),
                ));
            }
            if now != Status::Sat && !lits.is_empty() {
                return Err(err(indent + 1, format!("{} after a model", now.name())));
            }
            status = Some((now, i + 1));
            continue;
        }
        let (body, offset) = match first {
            "v" => (&trimmed[1..], indent + 1),
            _ => (trimmed, indent),
        };
        if let Some((s @ (Status::Unsat | Status::Unknown), _)) = status {
            return Err(err(indent + 1, format!("a model after {}", s.name())));
        }
        let mut column = offset;
        for (gap, token) in tokens(body) {
            let at = column + gap + 1;
            column += gap + token.chars().count();
            if ended {
                return Err(err(at, format!("{token:?} after the model's closing 0")));
            }
            let l = literal(token).map_err(|why| {
                let hint = if status.is_none() && lits.is_empty() {
                    " (MiniSat prints its answer to a result file: `minisat P.cnf RESULT`, \
                     then --decode RESULT)"
                } else {
                    ""
                };
                err(at, format!("{token:?} {why}{hint}"))
            })?;
            if l == 0 {
                ended = true;
            } else {
                lits.push(l);
            }
        }
    }
    let last = text.lines().count().max(1);
    match status {
        Some((Status::Unsat, _)) => Ok(Answer::Unsat),
        Some((Status::Unknown, _)) => Ok(Answer::Unknown),
        Some((Status::Sat, _)) => Ok(Answer::Sat(lits)),
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

/// The whitespace-separated tokens of `s`, each with the number of characters before it since
/// the previous token's end.
fn tokens(s: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = s;
    std::iter::from_fn(move || {
        let start = rest.find(|ch: char| !ch.is_whitespace())?;
        let gap = rest[..start].chars().count();
        let len = rest[start..]
            .find(char::is_whitespace)
            .unwrap_or(rest.len() - start);
        let token = &rest[start..start + len];
        rest = &rest[start + len..];
        Some((gap, token))
    })
}

/// A DIMACS literal: `0`, or an optional `-` and a number without leading zeros that fits a
/// variable index; `Err` says why not.
fn literal(token: &str) -> Result<i32, &'static str> {
    let digits = token.strip_prefix('-').unwrap_or(token);
    let plain = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && !(token.starts_with('-') && digits == "0");
    if !plain {
        return Err("is not a literal (a whole number such as -12, or 0 to end the model)");
    }
    token
        .parse()
        .ok()
        .filter(|l: &i32| *l != i32::MIN)
        .ok_or("is too large for a variable")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Sat,
    Unsat,
    Unknown,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Sat => "SATISFIABLE",
            Status::Unsat => "UNSATISFIABLE",
            Status::Unknown => "UNKNOWN",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::parse_str;

    fn grid(line: &str) -> Grid {
        parse_str(line, None).unwrap().remove(0).grid
    }

    fn clauses(cnf: &Cnf) -> Vec<Vec<i32>> {
        let mut all = Vec::new();
        cnf.for_each_clause(|cl| {
            all.push(cl.to_vec());
            Ok(())
        })
        .unwrap();
        assert_eq!(all.len() as u64, cnf.clause_count());
        all
    }

    fn satisfies(clauses: &[Vec<i32>], value: &[bool]) -> bool {
        clauses.iter().all(|cl| {
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
        let cl = clauses(&cnf);
        let mut models = Vec::new();
        for bits in 0u32..1 << 16 {
            let value: Vec<bool> = (0..16).map(|i| bits >> i & 1 == 1).collect();
            if satisfies(&cl, &value) {
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
        let cl = clauses(&cnf);
        assert!(satisfies(&cl, &value));
        // No clause twice (a box pair that shares a row or column has its clause there).
        let mut sorted: Vec<Vec<i32>> = cl
            .iter()
            .map(|c| {
                let mut c = c.clone();
                c.sort();
                c
            })
            .collect();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), cl.len());
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
            text.lines().filter(|l| l.ends_with(" 0")).count() as u64,
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
        // One answer per output, plain DIMACS literals.
        let e = at("s SATISFIABLE\ns UNSATISFIABLE\n");
        assert_eq!((e.line, e.column), (2, 1));
        assert!(e
            .message
            .contains("a second answer (UNSATISFIABLE) after line 1's (SATISFIABLE)"));
        let e = at("s UNSATISFIABLE\nSAT\n1 0\n");
        assert!(e.message.contains("a second answer"), "{}", e.message);
        let e = at("s UNKNOWN\nv 1 2 0\n");
        assert_eq!((e.line, e.column), (2, 1));
        assert!(e.message.contains("a model after UNKNOWN"), "{}", e.message);
        assert!(at("v 1 2\ns UNSATISFIABLE\n")
            .message
            .contains("UNSATISFIABLE after a model"));
        for bad in ["+5", "-0", "007", "1e3", "--1"] {
            let e = at(&format!("SAT\n1 {bad} 0\n"));
            assert_eq!((e.line, e.column), (2, 3), "{bad}");
            assert!(
                e.message.contains("is not a literal"),
                "{bad}: {}",
                e.message
            );
        }
        let e = at("SAT\n99999999999 0\n");
        assert!(
            e.message.contains("too large for a variable"),
            "{}",
            e.message
        );
        // Columns count characters; a first line that is no answer hints at MiniSat's file.
        let e = at("c é\nv é 1\n");
        assert_eq!((e.line, e.column), (2, 3));
        assert!(e
            .message
            .contains("MiniSat prints its answer to a result file"));
        assert_eq!(read_model("s SATISFIABLE\n"), Ok(Answer::Sat(vec![])));
        assert!(at("s UNSATISFIABLE\nv 1 0\n")
            .message
            .contains("a model after UNSATISFIABLE"));
    }
}
