//! Species-proportion history of a plain RFSS run: the data of the paper's Fig. 3.

use super::cpu::State;
use super::{finish, Enhancement, Problem, RfssOutcome, RfssParams, Species};
use crate::puzzle::{symbol_for, Grid};
use anyhow::{bail, Context, Result};
use std::io::Write;

/// Proportions of every species sampled every `every` generations (generation 0 and the last
/// generation included), with the read-off's conflict count at each sample.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Side n of the puzzle (for species labels).
    pub side: usize,
    pub species: Vec<Species>,
    /// Sampled generations, ascending.
    pub generations: Vec<u32>,
    /// Read-off conflicts at each sample.
    pub conflicts: Vec<u32>,
    /// `proportions[k][x]`: proportion of species x at sample k.
    pub proportions: Vec<Vec<f32>>,
    /// How the run ended.
    pub outcome: RfssOutcome,
}

/// Runs plain RFSS on the CPU and records the history (the enhancement is not traced: its
/// restarts change the species set).
pub fn trace(puzzle: &Grid, params: &RfssParams, every: u32) -> Result<Trace> {
    params.validate()?;
    if every == 0 {
        return Err(crate::param::ParamError::new(
            "every",
            "the trace interval must be at least 1 generation (got 0)",
        )
        .into());
    }
    if params.enhancement != Enhancement::Off {
        return Err(crate::param::ParamError::new(
            "enhancement",
            "a trace records plain RFSS (its restarts would change the species set): use off",
        )
        .into());
    }
    let prob = match Problem::build(puzzle) {
        Ok(p) => p,
        Err(reason) => bail!("the puzzle is unsolvable up front: {reason}"),
    };
    let mut eng = State::new(prob, params);
    let mut t = Trace {
        side: puzzle.side(),
        species: eng.prob.species.clone(),
        generations: vec![0],
        conflicts: vec![eng.st.conflicts],
        proportions: vec![eng.p.clone()],
        outcome: RfssOutcome::unsolvable(puzzle, String::new()),
    };
    while !eng.st.done {
        eng.step(params);
        if eng.st.generation.is_multiple_of(every) || eng.st.done {
            t.generations.push(eng.st.generation);
            t.conflicts.push(eng.st.conflicts);
            t.proportions.push(eng.p.clone());
        }
    }
    t.outcome = finish(
        puzzle,
        &eng.prob,
        &eng.st,
        &eng.argmax,
        0,
        eng.st.generation,
        0,
    )?;
    Ok(t)
}

impl Trace {
    /// Column label of species x: `n4r1c3` = numeral 4 in row 1, column 3 (1-based).
    pub fn label(&self, x: usize) -> String {
        let s = self.species[x];
        let (r, c) = (s.cell as usize / self.side, s.cell as usize % self.side);
        format!("n{}r{}c{}", symbol_for(s.numeral), r + 1, c + 1)
    }
}

/// Writes a trace as CSV: `generation,conflicts,<one column per species>`, one row per sample;
/// proportions are written with enough digits to read back the same f32.
pub fn write_trace_csv(trace: &Trace, mut w: impl Write) -> Result<()> {
    let mut csv = crate::csv_io::Writer::new(&mut w);
    let mut head = vec!["generation".to_string(), "conflicts".to_string()];
    head.extend((0..trace.species.len()).map(|x| trace.label(x)));
    csv.row(&head)?;
    for k in 0..trace.generations.len() {
        let mut row = vec![
            trace.generations[k].to_string(),
            trace.conflicts[k].to_string(),
        ];
        row.extend(trace.proportions[k].iter().map(|v| format!("{v:e}")));
        csv.row(&row)?;
    }
    csv.finish()?;
    w.flush().context("writing the trace")?;
    Ok(())
}
