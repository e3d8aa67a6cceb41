//! Recording one ILCA run step by step (the data of the paper's Fig. 3 and 4), on the CPU
//! reference: the same run as instance (puzzle, run) of a batch with the same seed. Steps are
//! handed to a callback as they happen, so a long run never holds its history in memory.

use super::cpu::{Problem, State, StepInfo};
use super::IlcaParams;
use crate::puzzle::Grid;
use anyhow::Result;

/// One time-step of a recorded run.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceStep {
    /// The time-step, 1-based.
    pub step: u32,
    /// What the step did (counts).
    pub info: StepInfo,
    /// Per cell: its state after the step's choice (digit 1..=n).
    pub states: Vec<u8>,
    /// Per cell: the choice changed a free cell's state.
    pub changed: Vec<bool>,
    /// Per cell: its degree at this step.
    pub degrees: Vec<u8>,
    /// Per cell: `Some(true)` rewarded, `Some(false)` penalised, `None` for clues and on a step
    /// without learning (solved, or the last allowed step).
    pub feedback: Vec<Option<bool>>,
    /// Per cell: the reset after this step restored its weights.
    pub reset: Vec<bool>,
    /// Per cell, n values each: the normalised probabilities the step's choice was made from
    /// (the weights before the step's learning).
    pub probabilities: Vec<f32>,
}

/// The start of a recorded run: clues and initial probabilities (what step 1 chooses from).
#[derive(Clone, Debug, PartialEq)]
pub struct TraceStart {
    /// Box size b (n = b²).
    pub b: usize,
    /// Per cell: its clue digit, 0 for a free cell.
    pub clue: Vec<u8>,
    /// Per cell, n values each: the initial probabilities.
    pub probabilities: Vec<f32>,
}

/// How a recorded run ended.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEnd {
    /// The step that solved the puzzle (verified against the rules and the clues), if any.
    pub solved_at: Option<u32>,
    /// The final grid.
    pub grid: Grid,
}

/// Every cell's normalised probabilities, cell-major.
fn probabilities(st: &State, prob: &Problem) -> Vec<f32> {
    let n = prob.geom.n;
    (0..prob.geom.cells)
        .flat_map(|c| st.probabilities(c, n))
        .collect()
}

/// The state run (`puzzle_index`, `run`) of `puzzle` under `params` starts from (every run
/// starts the same); errors for parameters or indices [`record`] would refuse.
pub fn start(
    puzzle: &Grid,
    params: &IlcaParams,
    puzzle_index: usize,
    run: usize,
) -> Result<TraceStart> {
    check(params, puzzle_index, run)?;
    let prob = Problem::new(&params.prune.on()(puzzle), params);
    Ok(TraceStart {
        b: prob.geom.b,
        clue: prob.clue.clone(),
        probabilities: probabilities(&State::new(&prob), &prob),
    })
}

/// Valid parameters, and indices that fit the random key's 32-bit counters.
fn check(params: &IlcaParams, puzzle_index: usize, run: usize) -> Result<()> {
    params.validate()?;
    for (name, v) in [("index", puzzle_index), ("run", run)] {
        crate::param::check(u32::try_from(v).is_ok(), name, || {
            format!(
                "{v} does not fit the random key's 32-bit counter (at most {})",
                u32::MAX
            )
        })?;
    }
    Ok(())
}

/// Runs instance (`puzzle_index`, `run`) of `puzzle` under `params` on the CPU reference,
/// calling `on_step` after every step.
pub fn record(
    puzzle: &Grid,
    params: &IlcaParams,
    puzzle_index: usize,
    run: usize,
    mut on_step: impl FnMut(&TraceStep) -> Result<()>,
) -> Result<TraceEnd> {
    check(params, puzzle_index, run)?;
    // The puzzle the batch runs too (`--prune`), with the same random key.
    let prob = Problem::new(&params.prune.on()(puzzle), params);
    let g = prob.geom;
    let cells = g.cells;
    let mut st = State::new(&prob);
    let key = crate::rng::instance_key(params.seed, puzzle_index as u32, run as u32);
    let mut solved_at = None;
    for t in 0..params.steps {
        let before_probs = probabilities(&st, &prob);
        let before = st.choice.clone();
        let info = st.step(&prob, params, key, t);
        let learned = !info.solved && t + 1 < params.steps;
        let free = |c: usize| prob.clue[c] == 0;
        let step = TraceStep {
            step: t + 1,
            states: st.choice.clone(),
            changed: (0..cells)
                .map(|c| free(c) && before[c] != st.choice[c])
                .collect(),
            degrees: st.deg.clone(),
            feedback: (0..cells)
                .map(|c| (free(c) && learned).then(|| st.was_rewarded(&prob, params, c)))
                .collect(),
            reset: if learned {
                st.reset_cells(&prob, params, t)
            } else {
                vec![false; cells]
            },
            probabilities: before_probs,
            info,
        };
        on_step(&step)?;
        if step.info.solved {
            solved_at = Some(t + 1);
            break;
        }
    }
    let grid = st.grid(g.b);
    if solved_at.is_some() {
        grid.verify_solution_of(puzzle)
            .map_err(|why| anyhow::anyhow!("internal error: a 'solved' ILCA grid fails: {why}"))?;
    }
    Ok(TraceEnd { solved_at, grid })
}

/// The header of an ILCA trace CSV of an n×n puzzle: per step and cell its state, whether the
/// step changed it, its degree, the feedback, whether it was reset, and the n probabilities the
/// state was chosen from (`p1`…`pn`).
pub fn csv_header(n: usize) -> Vec<String> {
    let mut h: Vec<String> = [
        "step", "cell", "row", "col", "fixed", "state", "changed", "degree", "feedback", "reset",
    ]
    .map(String::from)
    .to_vec();
    h.extend((1..=n).map(|k| format!("p{k}")));
    h
}

impl TraceStep {
    /// Writes this step's CSV rows (see [`csv_header`]), one per cell; `clue` (the run's
    /// [`TraceStart::clue`]) marks the fixed cells.
    pub fn write_csv<W: std::io::Write>(
        &self,
        clue: &[u8],
        csv: &mut crate::csv_io::Writer<W>,
    ) -> std::io::Result<()> {
        let cells = self.states.len();
        let n = self.probabilities.len() / cells;
        for (c, &clue) in clue.iter().enumerate() {
            let feedback = match self.feedback[c] {
                None => "-",
                Some(true) => "reward",
                Some(false) => "penalty",
            };
            let mut row = vec![
                self.step.to_string(),
                c.to_string(),
                (c / n + 1).to_string(),
                (c % n + 1).to_string(),
                ((clue != 0) as u8).to_string(),
                self.states[c].to_string(),
                (self.changed[c] as u8).to_string(),
                self.degrees[c].to_string(),
                feedback.to_string(),
                (self.reset[c] as u8).to_string(),
            ];
            row.extend(
                self.probabilities[c * n..(c + 1) * n]
                    .iter()
                    .map(f32::to_string),
            );
            csv.row(&row)?;
        }
        Ok(())
    }
}

/// What `params.prune` places before step 1: the pruned puzzle the run starts from, and per
/// cell whether the pruning placed it; `None` without pruning.
pub fn pruned(puzzle: &Grid, params: &IlcaParams) -> Option<(Grid, Vec<bool>)> {
    if params.prune == super::Prune::Off {
        return None;
    }
    let pruned = params.prune.on()(puzzle);
    let placed = (0..puzzle.cells().len())
        .map(|c| puzzle.cells()[c] == 0 && pruned.cells()[c] != 0)
        .collect();
    Some((pruned, placed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ilca::{cpu, Batch};
    use crate::puzzle::{parse_str, CLASSIC};

    #[test]
    fn indices_that_do_not_fit_are_refused() {
        let p = parse_str(CLASSIC, None).unwrap().remove(0).grid;
        let e = record(&p, &IlcaParams::default(), 0, 1 << 32, |_| Ok(())).unwrap_err();
        assert_eq!(
            e.downcast_ref::<crate::param::ParamError>().unwrap().param,
            "run"
        );
    }

    #[test]
    fn a_recorded_run_is_the_batch_run() {
        let p = parse_str(CLASSIC, None).unwrap().remove(0).grid;
        let params = IlcaParams {
            lr: 0.05,
            sr: 20,
            ..Default::default()
        };
        let batch = cpu::run(&Batch::runs(std::slice::from_ref(&p), &params, 3), &|_| {});
        for (run, want) in batch.iter().enumerate() {
            let mut steps = Vec::new();
            let end = record(&p, &params, 0, run, |s| {
                steps.push(s.step);
                Ok(())
            })
            .unwrap();
            assert_eq!(end.solved_at.is_some(), want.solved);
            assert_eq!(*steps.last().unwrap(), want.steps);
            assert_eq!(end.grid.to_line(), want.grid);
        }
    }
}
