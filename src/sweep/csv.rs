//! The sweep CSV: one row per setting and group of puzzles, written block by block (so an
//! interrupted sweep leaves a valid file) and read back (for `plot-sweep`'s figures).

use super::{Fixed, Group, Param, Point, Role, Row};
use crate::choice::Choice;
use crate::ilca::{Compare, Prune, ResetCheck, TieBreak};
use crate::report::stats::wilson95;
use anyhow::{bail, ensure, Result};

/// The CSV header (the column order of [`Row::csv_line`]). `solved_pct_95_lo` and
/// `solved_pct_95_hi` are the Wilson 95% interval of `solved_pct` (the figures' bands and bars),
/// named after the JSON reports' `solved_pct_95` pair of `batch`, `compare` and `reproduce`;
/// the columns after them are the parameters the sweep held fixed ([`Fixed::COLUMNS`]).
pub const CSV_HEADER: &str = "swept,role,lr,lp,ratio,sr,steps,group,label,d_lo,d_hi,puzzles,instances,solved,solved_pct,mean_steps_solved,solved_pct_95_lo,solved_pct_95_hi,restart,penalty_floor,compare,tie,reset_check,prune,share,seed";

/// The header sweeps wrote before the fixed parameters' columns; `plot-sweep` still reads such
/// files.
const CSV_HEADER_V2: &str = "swept,role,lr,lp,ratio,sr,steps,group,label,d_lo,d_hi,puzzles,instances,solved,solved_pct,mean_steps_solved,solved_pct_95_lo,solved_pct_95_hi";

/// The header sweeps wrote before the interval columns; `plot-sweep` still reads such files.
const CSV_HEADER_V1: &str = "swept,role,lr,lp,ratio,sr,steps,group,label,d_lo,d_hi,puzzles,instances,solved,solved_pct,mean_steps_solved";

impl Row {
    /// The Wilson 95% interval of [`Row::solved_pct`], in percent (`None` without instances):
    /// the interval the figures draw and `batch`'s and `compare`'s `solved_pct_95` give.
    pub fn solved_pct_95(&self) -> Option<[f64; 2]> {
        wilson95(self.solved, self.instances).map(|(lo, hi)| [100.0 * lo, 100.0 * hi])
    }

    /// The row as a CSV line (floats in shortest round-trip form, so they read back exactly;
    /// the rate and its interval to 2 decimals).
    pub fn csv_line(&self) -> String {
        let opt = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
        let ci = self.solved_pct_95();
        let bound = |i: usize| ci.map(|b| format!("{:.2}", b[i])).unwrap_or_default();
        let mut fields = vec![
            self.swept.to_string(),
            self.role.name().to_string(),
            self.point.lr.to_string(),
            self.point.lp.to_string(),
            self.point.ratio.to_string(),
            self.point.sr.to_string(),
            self.point.steps.to_string(),
            self.group.name().to_string(),
            self.label.clone(),
            opt(self.d_lo),
            opt(self.d_hi),
            self.puzzles.to_string(),
            self.instances.to_string(),
            self.solved.to_string(),
            format!("{:.2}", self.solved_pct()),
            self.mean_steps_solved
                .map(|m| format!("{m:.2}"))
                .unwrap_or_default(),
            bound(0),
            bound(1),
        ];
        match &self.fixed {
            Some(f) => fields.extend(f.csv_fields().into_iter().map(|(_, v)| v)),
            None => fields.extend(Fixed::COLUMNS.split(',').map(|_| String::new())),
        }
        crate::csv_io::line(fields)
    }
}

/// The sweep CSV of `rows`: the header, then a line per row.
pub fn csv_text(rows: &[Row]) -> String {
    let mut text = format!("{CSV_HEADER}\n");
    for r in rows {
        text += &r.csv_line();
        text.push('\n');
    }
    text
}

/// Reads rows written by a sweep (`name` is used in errors), with or without the interval and
/// fixed-parameter columns (older sweeps wrote none); the intervals are not read back but
/// computed again from `solved` and `instances`.
pub fn parse_csv(name: &str, text: &str) -> Result<Vec<Row>> {
    let mut lines = crate::csv_io::lines(text);
    let Some((header_at, header)) = lines.next() else {
        bail!("{name}: empty file (expected the sweep CSV header `{CSV_HEADER}`)");
    };
    let header = crate::csv_io::record(name, header_at, header)?.join(",");
    let headers = [CSV_HEADER, CSV_HEADER_V2, CSV_HEADER_V1];
    ensure!(
        headers.contains(&header.as_str()),
        "{name}:{header_at}: not a sweep CSV: the header must be `{CSV_HEADER}`"
    );
    let columns = header.split(',').count();
    let mut rows = Vec::new();
    let mut row_lines = Vec::new();
    for (ln, line) in lines {
        let f = crate::csv_io::record(name, ln, line)?;
        ensure!(
            !headers.contains(&f.join(",").as_str()),
            "{name}:{ln}: a second header: two CSVs joined? plot each sweep's CSV on its own"
        );
        ensure!(
            f.len() == columns,
            "{name}:{ln}: {} fields, expected {columns} (a partly written last line? delete it)",
            f.len()
        );
        let fl = |i: usize| -> Result<f64> {
            f[i].parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "{name}:{ln}: column {} is not a finite number: `{}`",
                        i + 1,
                        f[i]
                    )
                })
        };
        // A setting's value as the sweep could have run it.
        let param = |i: usize, p: Param| -> Result<f64> {
            let v = fl(i)?;
            p.check(v).map_err(|why| {
                anyhow::anyhow!("{name}:{ln}: column {} ({}): {why}", i + 1, p.name())
            })?;
            Ok(v)
        };
        let int = |i: usize| -> Result<usize> {
            f[i].parse::<usize>().map_err(|_| {
                anyhow::anyhow!(
                    "{name}:{ln}: column {} is not a whole number: `{}`",
                    i + 1,
                    f[i]
                )
            })
        };
        let opt = |i: usize| -> Result<Option<f64>> {
            if f[i].is_empty() {
                Ok(None)
            } else {
                fl(i).map(Some)
            }
        };
        // The fixed parameters from column `at` on (a file of the current header).
        let fixed_at = |at: usize| -> Result<Fixed> {
            fn choice<C: Choice>(name: &str, ln: usize, col: usize, v: &str) -> Result<C> {
                C::from_name(v).ok_or_else(|| {
                    anyhow::anyhow!(
                        "{name}:{ln}: column {col}: `{v}` is not one of {}",
                        crate::choice::names::<C>()
                    )
                })
            }
            let whole = |i: usize| -> Result<u64> {
                f[i].parse::<u64>().map_err(|_| {
                    anyhow::anyhow!(
                        "{name}:{ln}: column {} is not a whole number: `{}`",
                        i + 1,
                        f[i]
                    )
                })
            };
            let restart = whole(at)?;
            let restart = u32::try_from(restart).map_err(|_| {
                anyhow::anyhow!(
                    "{name}:{ln}: column {}: restart {restart} is too large",
                    at + 1
                )
            })?;
            Ok(Fixed {
                restart,
                penalty_floor: fl(at + 1)?,
                compare: choice::<Compare>(name, ln, at + 3, &f[at + 2])?,
                tie: choice::<TieBreak>(name, ln, at + 4, &f[at + 3])?,
                reset_check: choice::<ResetCheck>(name, ln, at + 5, &f[at + 4])?,
                prune: choice::<Prune>(name, ln, at + 6, &f[at + 5])?,
                share: fl(at + 6)?,
                seed: whole(at + 7)?,
            })
        };
        let role = match f[1].as_str() {
            "sweep" => Role::Sweep,
            "baseline" => Role::Baseline,
            x => bail!("{name}:{ln}: role `{x}` is neither sweep nor baseline"),
        };
        let group = match f[7].as_str() {
            "file" => Group::File,
            "all" => Group::All,
            "d" => Group::D,
            x => bail!("{name}:{ln}: group `{x}` is not file, all or d"),
        };
        let swept: Vec<&str> = f[0].split('+').collect();
        for (i, s) in swept.iter().enumerate() {
            ensure!(
                Param::from_name(s).is_some(),
                "{name}:{ln}: swept parameter `{s}` is not one of ratio, lr, lp, sr, steps"
            );
            ensure!(
                !swept[..i].contains(s),
                "{name}:{ln}: swept parameter `{s}` is named twice in `{}`",
                f[0]
            );
        }
        ensure!(
            swept.len() <= 2,
            "{name}:{ln}: `{}` names {} swept parameters; a sweep varies one or two",
            f[0],
            swept.len()
        );
        let row = Row {
            swept: f[0].to_string(),
            role,
            point: Point {
                lr: param(2, Param::Lr)?,
                lp: param(3, Param::Lp)?,
                ratio: param(4, Param::Ratio)?,
                sr: param(5, Param::Sr)? as u32,
                // Earlier sweeps could write steps = 0 from a range: still read.
                steps: if fl(6)? == 0.0 {
                    0
                } else {
                    param(6, Param::Steps)? as u32
                },
            },
            group,
            label: f[8].to_string(),
            d_lo: opt(9)?,
            d_hi: opt(10)?,
            puzzles: int(11)?,
            instances: int(12)?,
            solved: int(13)?,
            mean_steps_solved: opt(15)?,
            // All empty: a row of a merged shard written before they were recorded.
            fixed: if header == CSV_HEADER && f[18..].iter().any(|v| !v.is_empty()) {
                Some(fixed_at(18)?)
            } else {
                None
            },
        };
        if let Some(fx) = row.fixed {
            // The whole setting as the sweep could have run it: a steps range runs a setting
            // at its largest limit, so a row of a smaller limit may have sr or restart above it.
            let mut p = fx.params(&row.point);
            p.steps = p.steps.max(p.sr).max(p.restart);
            p.validate()
                .map_err(|e| anyhow::anyhow!("{name}:{ln}: {e}"))?;
        }
        ensure!(
            row.solved <= row.instances,
            "{name}:{ln}: {} solved of {} instances",
            row.solved,
            row.instances
        );
        // One sweep holds these fixed: rows that differ come from different sweeps, and one
        // figure of them would name one setting for all.
        // (A row without them, resumed from a journal or merged from a shard of a build before
        // they were recorded, cannot be compared.)
        if let Some(first) = rows.iter().find_map(|r: &Row| r.fixed) {
            if row.fixed.is_some_and(|f| f != first) {
                let say = |f: Option<Fixed>| match f {
                    Some(f) => f
                        .csv_fields()
                        .iter()
                        .map(|(k, v)| format!("{k} {v}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    None => "none".into(),
                };
                bail!(
                    "{name}:{ln}: the fixed parameters ({}) differ from the first row's ({}): \
                     rows of different sweeps? plot each sweep's CSV on its own",
                    say(row.fixed),
                    say(Some(first))
                );
            }
        }
        rows.push(row);
        row_lines.push(ln);
    }
    check_one_sweep(name, &rows, &row_lines)?;
    Ok(rows)
}

/// Refuses rows that cannot come from one sweep (`lines`: each row's line): a sweep of another
/// parameter, a row that repeats an earlier one's setting, group and label (a CSV holding a
/// sweep twice, or two sweeps of overlapping files), and a setting held fixed that changes (the
/// figures would name one value for all). Of lr, lp and lp/lr, a sweep of one of them holds
/// one of the other two (the third follows); a sweep of none holds all three.
fn check_one_sweep(name: &str, rows: &[Row], lines: &[usize]) -> Result<()> {
    let Some(first) = rows.iter().position(|r| r.role == Role::Sweep) else {
        return Ok(());
    };
    let mut seen = std::collections::HashMap::new();
    for (r, &ln) in rows.iter().zip(lines) {
        ensure!(
            r.swept == rows[first].swept,
            "{name}:{ln}: a row of a sweep of {} after rows of a sweep of {} (line {}): plot one \
             sweep at a time",
            r.swept,
            rows[first].swept,
            lines[first]
        );
        let key = (
            r.role,
            Param::ALL.map(|p| r.point.get(p).to_bits()),
            r.group,
            r.label.clone(),
        );
        if let Some(before) = seen.insert(key, ln) {
            bail!(
                "{name}:{ln}: repeats line {before} (the same setting, {} and {}): a sweep written \
                 twice, or two sweeps of the same files? plot each sweep's CSV on its own",
                r.group.name(),
                r.label
            );
        }
    }
    let swept = super::figures::axes(rows)?;
    let sweep: Vec<(&Row, usize)> = rows
        .iter()
        .zip(lines.iter().copied())
        .filter(|(r, _)| r.role == Role::Sweep)
        .collect();
    let changes = |p: Param| {
        sweep
            .iter()
            .find(|(r, _)| r.point.get(p).to_bits() != sweep[0].0.point.get(p).to_bits())
    };
    let rates = [Param::Lr, Param::Lp, Param::Ratio];
    let swept_rates = rates.iter().filter(|p| swept.contains(p)).count();
    let held: Vec<Param> = [Param::Lr, Param::Lp, Param::Ratio, Param::Sr, Param::Steps]
        .into_iter()
        .filter(|p| !swept.contains(p))
        .collect();
    for p in held {
        let Some((r, ln)) = changes(p) else { continue };
        let is_rate = rates.contains(&p);
        // A sweep of one rate holds one of the other two; the third may follow from them.
        let derived = is_rate
            && swept_rates == 1
            && rates
                .iter()
                .any(|&q| q != p && !swept.contains(&q) && changes(q).is_none());
        if derived || (is_rate && swept_rates >= 2) {
            continue;
        }
        bail!(
            "{name}:{ln}: {} = {} here but {} at line {}, and the sweep of {} holds it fixed: \
             rows of different sweeps? plot each sweep's CSV on its own",
            p.symbol(),
            crate::plot::fmt_num(r.point.get(p)),
            crate::plot::fmt_num(sweep[0].0.point.get(p)),
            sweep[0].1,
            rows[first].swept
        );
    }
    Ok(())
}
