//! Running a sweep's settings on a device and summarising each setting's instances into rows:
//! per file, overall and per difficulty bin.

use super::{Fixed, Group, Plan, Point, Row, RunSetting};
use crate::backend::Device;
use crate::ilca::{Batch, IlcaParams};
use crate::puzzle::{Grid, Puzzle, PuzzleFile};
use crate::report::InstanceResult;
use anyhow::{ensure, Result};
use std::collections::BTreeMap;

/// One puzzle file of a sweep.
#[derive(Clone, Debug)]
pub struct Input {
    /// Row label: the file name without directory and extension ("evil").
    pub label: String,
    pub puzzles: Vec<Grid>,
    /// Difficulty d of each puzzle (see [`difficulty`]).
    pub d: Vec<f64>,
}

/// A puzzle's difficulty variable d: the `d=` field of its extra text (what `gpu-sudoku
/// generate` records), else the fraction of blank cells (the same quantity for generated
/// puzzles). The flag says whether the fallback was used.
pub fn difficulty(p: &Puzzle) -> (f64, bool) {
    for tok in p.extra.split_whitespace() {
        if let Some(v) = tok.strip_prefix("d=").and_then(|v| v.parse::<f64>().ok()) {
            if v.is_finite() {
                return (v, false);
            }
        }
    }
    (p.grid.blank_fraction(), true)
}

impl Input {
    pub fn new(label: impl Into<String>, puzzles: &[Puzzle]) -> Input {
        Input {
            label: label.into(),
            puzzles: puzzles.iter().map(|p| p.grid.clone()).collect(),
            d: puzzles.iter().map(|p| difficulty(p).0).collect(),
        }
    }
}

/// Refuses a file a sweep cannot take: one without puzzles, or whose label (which names its
/// CSV rows) is empty or holds a comma or quote. Errors name the file by its path.
pub fn check_file(file: &PuzzleFile) -> Result<()> {
    let f = &file.path;
    ensure!(!file.puzzles.is_empty(), "{f}: no puzzles in the file");
    let label = file.label();
    ensure!(
        !label.contains([',', '"']) && !label.is_empty(),
        "{f}: the file name `{label}` labels CSV rows and must not contain a comma or quote"
    );
    Ok(())
}

/// Refuses a d bin width the rows cannot label: [0.01, 1] (a bin's label has two decimals).
pub fn check_d_bin(w: f64) -> Result<()> {
    ensure!(
        (0.01..=1.0).contains(&w),
        "--d-bin must be in [0.01, 1] (the width of the d bins: a bin's label has two \
         decimals), got {}",
        crate::plot::fmt_num(w)
    );
    Ok(())
}

/// The d bin of a difficulty: (index, lo, hi) for bins of width `w`.
pub fn d_bin(d: f64, w: f64) -> (i64, f64, f64) {
    let i = (d / w + 1e-9).floor() as i64;
    let r = |x: f64| format!("{x:.6}").parse::<f64>().expect("formatted");
    (i, r(i as f64 * w), r((i + 1) as f64 * w))
}

/// A running sweep: the inputs and options shared by its blocks.
pub struct Sweep<'a> {
    pub plan: &'a Plan,
    pub inputs: &'a [Input],
    pub runs: usize,
    /// Width of the difficulty bins of the `d` rows.
    pub d_bin: f64,
}

impl Sweep<'_> {
    /// Instances one engine setting runs (all files).
    pub fn instances_per_setting(&self) -> usize {
        self.inputs.iter().map(|i| i.puzzles.len()).sum::<usize>() * self.runs
    }

    /// Runs the given engine settings (usually a block of `plan.runs`): one engine call per
    /// puzzle size, all these settings batched together. Returns each setting's rows, in order.
    pub fn run_block(
        &self,
        device: &Device,
        settings: &[RunSetting],
        progress: &(dyn Fn(usize) + Sync),
    ) -> Result<Vec<Vec<Row>>> {
        ensure!(self.runs >= 1, "runs must be at least 1");
        for inp in self.inputs {
            ensure!(!inp.puzzles.is_empty(), "{}: no puzzles", inp.label);
            ensure!(
                inp.d.len() == inp.puzzles.len(),
                "{}: one d per puzzle needed",
                inp.label
            );
        }
        check_d_bin(self.d_bin)?;
        // Files grouped by puzzle size (first appearance order); puzzle indices run over the
        // group's concatenation.
        let mut sizes: Vec<usize> = Vec::new();
        for inp in self.inputs {
            if let Some(p) = inp.puzzles.first() {
                if !sizes.contains(&p.box_size()) {
                    sizes.push(p.box_size());
                }
            }
        }
        let params: Vec<IlcaParams> = settings.iter().map(|s| s.params.clone()).collect();
        // results[file][setting] = that file's instances, puzzle-major.
        let mut results: Vec<Vec<Vec<InstanceResult>>> = vec![Vec::new(); self.inputs.len()];
        // offset[file] = index of the file's first puzzle in its size group.
        let mut offset = vec![0usize; self.inputs.len()];
        for b in sizes {
            let members: Vec<usize> = (0..self.inputs.len())
                .filter(|&i| self.inputs[i].puzzles.first().map(|p| p.box_size()) == Some(b))
                .collect();
            let mut start = 0;
            for &i in &members {
                offset[i] = start;
                start += self.inputs[i].puzzles.len();
            }
            let puzzles: Vec<Grid> = members
                .iter()
                .flat_map(|&i| self.inputs[i].puzzles.iter().cloned())
                .collect();
            let batch = Batch::all(&puzzles, &params, self.runs);
            let out = batch.per_setting(crate::ilca::run::run(device, &batch, progress)?);
            for per_setting in out {
                let mut it = per_setting.into_iter();
                for &i in &members {
                    let k = self.inputs[i].puzzles.len() * self.runs;
                    results[i].push(it.by_ref().take(k).collect());
                }
            }
        }
        Ok(settings
            .iter()
            .enumerate()
            .map(|(s, set)| {
                set.points
                    .iter()
                    .flat_map(|pt| self.rows_for(set, pt, &offset, |f| &results[f][s]))
                    .collect()
            })
            .collect())
    }

    /// Rows of one point from its setting's results (`res(file)`).
    fn rows_for<'r>(
        &self,
        set: &RunSetting,
        pt: &Point,
        offset: &[usize],
        res: impl Fn(usize) -> &'r Vec<InstanceResult>,
    ) -> Vec<Row> {
        #[derive(Default)]
        struct Acc {
            puzzles: usize,
            instances: usize,
            solved: usize,
            steps: u64,
        }
        let add = |a: &mut Acc, r: &InstanceResult| {
            a.instances += 1;
            if r.solved && r.steps <= pt.steps {
                a.solved += 1;
                a.steps += r.steps as u64;
            }
        };
        let swept = self.plan.swept();
        let row = |group, label: String, lo, hi, a: &Acc| Row {
            swept: swept.clone(),
            role: set.role,
            point: *pt,
            group,
            label,
            d_lo: lo,
            d_hi: hi,
            puzzles: a.puzzles,
            instances: a.instances,
            solved: a.solved,
            mean_steps_solved: (a.solved > 0).then(|| a.steps as f64 / a.solved as f64),
            fixed: Some(Fixed::of(&set.params)),
        };
        let mut rows = Vec::new();
        let mut all = Acc::default();
        let mut bins: BTreeMap<i64, (f64, f64, Acc)> = BTreeMap::new();
        for (f, inp) in self.inputs.iter().enumerate() {
            let mut acc = Acc {
                puzzles: inp.puzzles.len(),
                ..Acc::default()
            };
            all.puzzles += inp.puzzles.len();
            for r in res(f) {
                add(&mut acc, r);
                add(&mut all, r);
                let (i, lo, hi) = d_bin(inp.d[r.puzzle - offset[f]], self.d_bin);
                let e = bins.entry(i).or_insert((lo, hi, Acc::default()));
                add(&mut e.2, r);
                if r.run == 0 {
                    e.2.puzzles += 1;
                }
            }
            rows.push(row(Group::File, inp.label.clone(), None, None, &acc));
        }
        if self.inputs.len() > 1 {
            rows.push(row(Group::All, "all".into(), None, None, &all));
        }
        for (lo, hi, acc) in bins.values() {
            rows.push(row(
                Group::D,
                format!("{lo:.2}-{hi:.2}"),
                Some(*lo),
                Some(*hi),
                acc,
            ));
        }
        rows
    }
}
