//! Planning a sweep: the grid of points, the engine settings that answer them (points that
//! differ only in their step limit share one), and the reference setting.

use super::{Param, Point, Role, RunSetting, SweepSpec, Values, MAX_POINTS};
use crate::ilca::IlcaParams;
use anyhow::{ensure, Context, Result};
use std::collections::HashMap;

/// The settings of a sweep.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The swept parameters with their values (one or two), in the order ratio, lr, lp, sr, steps.
    pub axes: Vec<(Param, Vec<f64>)>,
    /// The grid, the first axis outermost.
    pub points: Vec<Point>,
    /// The engine settings: sweep settings first, then the baseline's (if any).
    pub runs: Vec<RunSetting>,
}

impl Plan {
    /// Resolves the command line into settings. `base` gives every parameter not in `spec`
    /// (its lr, lp, sr, steps are the defaults of those). With `--ratio`, lp/lr is fixed by
    /// fixing lp (given or `base.lp`) and setting lr = lp/ratio; with `--lr` given instead,
    /// lp = lr·ratio. Every engine setting is validated.
    pub fn new(spec: &SweepSpec, base: &IlcaParams) -> Result<Plan> {
        let mut axes = Vec::new();
        for p in Param::ALL {
            if let Some(Values::Range(v)) = spec.get(p) {
                axes.push((p, v.clone()));
            }
        }
        ensure!(
            !axes.is_empty(),
            "nothing to sweep: give a range to one or two of ratio, lr, lp, sr, steps"
        );
        ensure!(
            axes.len() <= 2,
            "{} ranges given ({}); a sweep varies one parameter or a pair",
            axes.len(),
            axes.iter()
                .map(|(p, _)| p.name())
                .collect::<Vec<_>>()
                .join(", ")
        );
        if spec.get(Param::Ratio).is_some() {
            ensure!(
                !(spec.get(Param::Lr).is_some() && spec.get(Param::Lp).is_some()),
                "ratio sets lp/lr: give lp (lr = lp/ratio) or lr (lp = lr·ratio), not both"
            );
        }
        let total: usize = axes.iter().map(|(_, v)| v.len()).product();
        ensure!(
            total <= MAX_POINTS,
            "{total} settings; at most {MAX_POINTS} per sweep (use larger steps)"
        );
        let fixed = |p: Param, default: f64| match spec.get(p) {
            Some(Values::One(v)) => Some(*v),
            Some(Values::Range(_)) => None,
            None => Some(default),
        };
        let mut points = Vec::with_capacity(total);
        for i in 0..total {
            let mut vals: HashMap<Param, f64> = HashMap::new();
            let mut rem = i;
            for (p, v) in axes.iter().rev() {
                vals.insert(*p, v[rem % v.len()]);
                rem /= v.len();
            }
            let get = |p: Param, default: f64| {
                vals.get(&p)
                    .copied()
                    .or(fixed(p, default))
                    .expect("swept or fixed")
            };
            let steps = get(Param::Steps, base.steps as f64) as u32;
            let sr = get(Param::Sr, base.sr as f64) as u32;
            let (lr, lp, ratio) = if spec.get(Param::Ratio).is_some() {
                let ratio = get(Param::Ratio, 1.0);
                ensure!(ratio > 0.0, "ratio must be positive (lp/lr), got {ratio}");
                if spec.get(Param::Lr).is_some() {
                    let lr = get(Param::Lr, base.lr);
                    (lr, lr * ratio, ratio)
                } else {
                    let lp = get(Param::Lp, base.lp);
                    (lp / ratio, lp, ratio)
                }
            } else {
                let (lr, lp) = (get(Param::Lr, base.lr), get(Param::Lp, base.lp));
                (lr, lp, round_sig(lp / lr))
            };
            points.push(Point {
                lr,
                lp,
                ratio,
                sr,
                steps,
            });
        }
        let mut runs = group_runs(Role::Sweep, &points, base)?;
        if let Some(over) = &spec.baseline {
            let mut bpoints = Vec::new();
            let steps_values: Vec<u32> = match spec.get(Param::Steps) {
                Some(Values::Range(v)) => v.iter().map(|&s| s as u32).collect(),
                Some(Values::One(s)) => vec![*s as u32],
                None => vec![base.steps],
            };
            let given = |p: Param| over.iter().find(|(q, _)| *q == p).map(|&(_, v)| v);
            for (p, _) in &axes {
                let covered = match p {
                    Param::Steps => true,
                    Param::Ratio | Param::Lr | Param::Lp => {
                        given(Param::Ratio).is_some()
                            || (given(Param::Lr).is_some() && given(Param::Lp).is_some())
                            || given(*p).is_some()
                    }
                    Param::Sr => given(Param::Sr).is_some(),
                };
                ensure!(
                    covered,
                    "the baseline must set {} because {} is swept (e.g. lr=1,lp=1,sr=0)",
                    p.name(),
                    p.name()
                );
            }
            let fix = |p: Param, d: f64| given(p).or(fixed(p, d));
            let sr = fix(Param::Sr, base.sr as f64).expect("checked above") as u32;
            // The ratio: the baseline's own, else the sweep's fixed one (a swept ratio must
            // be replaced, checked above), unless the baseline sets both rates.
            let ratio = given(Param::Ratio).or(match spec.get(Param::Ratio) {
                Some(Values::One(r)) => Some(*r),
                _ => None,
            });
            let both = given(Param::Lr).is_some() && given(Param::Lp).is_some();
            let (lr, lp, ratio) = match ratio {
                Some(r) if !both => match given(Param::Lr) {
                    Some(lr) => (lr, lr * r, r),
                    None => {
                        let lp = fix(Param::Lp, base.lp).context("the baseline must set lp")?;
                        (lp / r, lp, r)
                    }
                },
                _ => {
                    let lr = fix(Param::Lr, base.lr).context("the baseline must set lr")?;
                    let lp = fix(Param::Lp, base.lp).context("the baseline must set lp")?;
                    (lr, lp, round_sig(lp / lr))
                }
            };
            for steps in steps_values {
                bpoints.push(Point {
                    lr,
                    lp,
                    ratio,
                    sr,
                    steps,
                });
            }
            runs.extend(group_runs(Role::Baseline, &bpoints, base).context("in the baseline")?);
        }
        Ok(Plan { axes, points, runs })
    }

    /// The engine setting (index in `runs`) a row of this sweep belongs to.
    pub fn setting_of(&self, row: &super::Row) -> Option<usize> {
        self.runs.iter().position(|r| {
            r.role == row.role
                && r.points.iter().any(|p| {
                    (p.lr.to_bits(), p.lp.to_bits(), p.sr, p.steps)
                        == (
                            row.point.lr.to_bits(),
                            row.point.lp.to_bits(),
                            row.point.sr,
                            row.point.steps,
                        )
                })
        })
    }

    pub fn swept(&self) -> String {
        self.axes
            .iter()
            .map(|(p, _)| p.name())
            .collect::<Vec<_>>()
            .join("+")
    }
}

/// Groups points that differ only in their step limit into one engine setting.
fn group_runs(role: Role, points: &[Point], base: &IlcaParams) -> Result<Vec<RunSetting>> {
    let mut order: Vec<(u64, u64, u32)> = Vec::new();
    let mut groups: HashMap<(u64, u64, u32), Vec<Point>> = HashMap::new();
    for p in points {
        let k = (p.lr.to_bits(), p.lp.to_bits(), p.sr);
        if !groups.contains_key(&k) {
            order.push(k);
        }
        groups.entry(k).or_default().push(*p);
    }
    let mut runs = Vec::with_capacity(order.len());
    for k in order {
        let pts = groups.remove(&k).expect("grouped above");
        let first = pts[0];
        let steps = pts.iter().map(|p| p.steps).max().expect("non-empty");
        let params = IlcaParams {
            steps,
            lr: first.lr,
            lp: first.lp,
            sr: first.sr,
            ..base.clone()
        };
        params.validate().with_context(|| {
            format!(
                "setting lr = {}, lp = {}, lp/lr = {}, sr = {}, steps = {steps}",
                first.lr, first.lp, first.ratio, first.sr
            )
        })?;
        runs.push(RunSetting {
            role,
            params,
            points: pts,
        });
    }
    Ok(runs)
}

/// Rounds to 10 significant digits (for ratios computed as lp/lr).
fn round_sig(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.9e}").parse().unwrap_or(x)
}
