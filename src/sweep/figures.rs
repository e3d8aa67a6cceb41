//! The ILCA paper's result figures from sweep rows (what `gpu-sudoku sweep` writes to its CSV):
//! rate vs the swept parameter per tier (Fig. 5a–8a), rate vs difficulty d per setting
//! (Fig. 5b–8b), and for two swept parameters band maps (Fig. 10) and surfaces (Fig. 9).

use super::{Group, Param, Role, Row};
use crate::plot::{
    fmt_num, save, tier_colour, BandMaps, Curve, Dash, Format, HLine, Heat, LinePlot, Surfaces,
    BLACK_RGB, DARK_BLUE, GRAY_RGB,
};
use anyhow::{bail, ensure, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The swept parameters of the rows (all sweep rows must agree).
pub fn axes(rows: &[Row]) -> Result<Vec<Param>> {
    let Some(first) = rows.iter().find(|r| r.role == Role::Sweep) else {
        bail!("no sweep rows to plot");
    };
    ensure!(
        rows.iter().all(|r| r.swept == first.swept),
        "the rows mix sweeps of different parameters ({} and others): plot one sweep at a time",
        first.swept
    );
    Ok(first
        .swept
        .split('+')
        .map(|s| Param::from_name(s).expect("checked when read"))
        .collect())
}

fn distinct(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    v.dedup_by(|a, b| a.to_bits() == b.to_bits());
    v
}

/// Labels of the file rows in order of first appearance.
fn file_labels(rows: &[Row]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| r.group == Group::File) {
        if !v.contains(&r.label) {
            v.push(r.label.clone());
        }
    }
    v
}

/// "lp = 1, sr = 0, max steps = 250 · 400 puzzles × 10 runs": what the sweep kept fixed.
pub fn describe_fixed(rows: &[Row], swept: &[Param]) -> String {
    let sweep: Vec<&Row> = rows.iter().filter(|r| r.role == Role::Sweep).collect();
    let mut parts = Vec::new();
    for p in [Param::Lr, Param::Lp, Param::Ratio, Param::Sr, Param::Steps] {
        if swept.contains(&p) {
            continue;
        }
        let vals = distinct(sweep.iter().map(|r| r.point.get(p)));
        if vals.len() == 1 {
            parts.push(format!("{} = {}", p.symbol(), fmt_num(vals[0])));
        }
    }
    let files: Vec<&&Row> = sweep.iter().filter(|r| r.group == Group::File).collect();
    if let Some(r0) = files.first() {
        let key = r0.point;
        let (puzzles, instances) = files
            .iter()
            .filter(|r| r.point == key)
            .fold((0, 0), |(p, i), r| (p + r.puzzles, i + r.instances));
        if let Some(runs) = instances.checked_div(puzzles) {
            parts.push(format!("{puzzles} puzzles × {runs} runs"));
        }
    }
    parts.join(", ")
}

fn baseline_desc(rows: &[Row]) -> Option<String> {
    let b = rows.iter().find(|r| r.role == Role::Baseline)?;
    Some(format!(
        "baseline lr = {}, lp = {}, sr = {}",
        fmt_num(b.point.lr),
        fmt_num(b.point.lp),
        b.point.sr
    ))
}

/// Resolution rate against the one swept parameter: a line per file (tier), the overall rate
/// in black, the baseline's rates dotted (the paper's Fig. 5a, 6a, 7a, 8a).
pub fn rate_vs_param(rows: &[Row]) -> Result<LinePlot> {
    let ax = axes(rows)?;
    ensure!(
        ax.len() == 1,
        "a rate-vs-parameter plot needs a one-parameter sweep"
    );
    let p = ax[0];
    let mut plot = LinePlot::new(
        format!("ILCA resolution rate vs {}", p.symbol()),
        p.axis_label(),
        "resolution rate, %",
    );
    plot.subtitle = describe_fixed(rows, &ax);
    plot.y_range = Some((-2.0, 102.0));
    plot.legend_title = Some("tier".into());
    let mut labels = file_labels(rows);
    if rows.iter().any(|r| r.group == Group::All) {
        labels.push("all".into());
    }
    let baseline = baseline_desc(rows);
    for (i, label) in labels.iter().enumerate() {
        let colour = tier_colour(label, i);
        let of = |role: Role| -> Vec<(f64, f64)> {
            let mut pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.role == role && r.group != Group::D && &r.label == label)
                .map(|r| (r.point.get(p), r.solved_pct()))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            pts
        };
        let mut c = Curve::new(label.clone(), of(Role::Sweep), colour);
        if label == "all" {
            c.width = 3;
            c.label = Some("all (overall)".into());
        }
        plot.curves.push(c);
        let base = of(Role::Baseline);
        if base.len() > 1 {
            plot.curves.push(Curve {
                label: Some(format!("{label}, baseline")),
                points: base,
                colour,
                dash: Dash::Dotted,
                width: 2,
                markers: false,
            });
        } else if let Some(&(_, y)) = base.first() {
            plot.hlines.push(HLine {
                y,
                label: Some(format!("{label}, baseline")),
                colour,
                dash: Dash::Dotted,
            });
        }
    }
    if let Some(b) = baseline {
        plot.subtitle = format!("{} · dotted: {b}", plot.subtitle);
    }
    Ok(plot)
}

/// Resolution rate against difficulty d (bins of all files together): every setting in gray,
/// their average in dark blue, the baseline dotted (the paper's Fig. 5b, 6b, 7b, 8b).
pub fn rate_vs_d(rows: &[Row]) -> Result<LinePlot> {
    let ax = axes(rows)?;
    let names: Vec<&str> = ax.iter().map(|p| p.symbol()).collect();
    let mut plot = LinePlot::new(
        format!(
            "ILCA resolution rate vs difficulty d, one gray line per {} setting",
            names.join(" × ")
        ),
        "difficulty d (bin centre)",
        "resolution rate, %",
    );
    plot.subtitle = describe_fixed(rows, &ax);
    plot.y_range = Some((-2.0, 102.0));
    let key = |r: &Row| {
        (
            r.point.lr.to_bits(),
            r.point.lp.to_bits(),
            r.point.sr,
            r.point.steps,
        )
    };
    let mut per_setting: BTreeMap<usize, Vec<(f64, f64)>> = BTreeMap::new();
    let mut order: HashMap<(u64, u64, u32, u32), usize> = HashMap::new();
    let mut sums: BTreeMap<i64, (f64, f64, usize)> = BTreeMap::new();
    for r in rows
        .iter()
        .filter(|r| r.role == Role::Sweep && r.group == Group::D)
    {
        let (Some(lo), Some(hi)) = (r.d_lo, r.d_hi) else {
            continue;
        };
        let next = order.len();
        let k = *order.entry(key(r)).or_insert(next);
        let x = (lo + hi) / 2.0;
        per_setting.entry(k).or_default().push((x, r.solved_pct()));
        let e = sums.entry((x * 1e6).round() as i64).or_insert((x, 0.0, 0));
        e.1 += r.solved_pct();
        e.2 += 1;
    }
    ensure!(!per_setting.is_empty(), "no difficulty (d) rows to plot");
    for (i, (_, mut pts)) in per_setting.into_iter().enumerate() {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        plot.curves.push(Curve {
            label: (i == 0).then(|| "each setting".to_string()),
            points: pts,
            colour: GRAY_RGB,
            dash: Dash::Solid,
            width: 1,
            markers: false,
        });
    }
    plot.curves.push(Curve {
        label: Some("average over settings".into()),
        points: sums.values().map(|&(x, s, n)| (x, s / n as f64)).collect(),
        colour: DARK_BLUE,
        dash: Dash::Solid,
        width: 3,
        markers: true,
    });
    let mut base: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.role == Role::Baseline && r.group == Group::D)
        .filter(|r| {
            // With a steps sweep the baseline has one line per limit: take the largest.
            let max = rows
                .iter()
                .filter(|q| q.role == Role::Baseline)
                .map(|q| q.point.steps)
                .max();
            Some(r.point.steps) == max
        })
        .filter_map(|r| Some(((r.d_lo? + r.d_hi?) / 2.0, r.solved_pct())))
        .collect();
    if !base.is_empty() {
        base.sort_by(|a, b| a.0.total_cmp(&b.0));
        plot.curves.push(Curve {
            label: baseline_desc(rows),
            points: base,
            colour: BLACK_RGB,
            dash: Dash::Dotted,
            width: 3,
            markers: false,
        });
    }
    Ok(plot)
}

/// Band maps of a two-parameter sweep: the overall rate and each file's, in the paper's five
/// bands (Fig. 10); [`Surfaces`] of the same data draw Fig. 9.
pub fn band_maps(rows: &[Row]) -> Result<BandMaps> {
    let ax = axes(rows)?;
    ensure!(ax.len() == 2, "band maps need a two-parameter sweep");
    let (px, py) = (ax[0], ax[1]);
    let sweep: Vec<&Row> = rows
        .iter()
        .filter(|r| r.role == Role::Sweep && r.group != Group::D)
        .collect();
    let xs = distinct(sweep.iter().map(|r| r.point.get(px)));
    let ys = distinct(sweep.iter().map(|r| r.point.get(py)));
    let mut m = BandMaps::new(px.axis_label(), py.axis_label(), xs.clone(), ys.clone());
    m.title = format!(
        "ILCA resolution rate over {} × {}",
        px.symbol(),
        py.symbol()
    );
    m.x_short = px.symbol().into();
    m.y_short = py.symbol().into();
    m.subtitle = describe_fixed(rows, &ax);
    let mut labels = Vec::new();
    if sweep.iter().any(|r| r.group == Group::All) {
        labels.push("all".to_string());
    }
    labels.extend(file_labels(rows));
    for (i, label) in labels.iter().enumerate() {
        let mut values = vec![vec![f64::NAN; xs.len()]; ys.len()];
        for r in sweep.iter().filter(|r| &r.label == label) {
            let ix = xs
                .iter()
                .position(|v| v.to_bits() == r.point.get(px).to_bits());
            let iy = ys
                .iter()
                .position(|v| v.to_bits() == r.point.get(py).to_bits());
            if let (Some(ix), Some(iy)) = (ix, iy) {
                values[iy][ix] = r.solved_pct();
            }
        }
        let letter = (b'a' + i as u8) as char;
        let name = if label == "all" { "overall" } else { label };
        m.panels.push(Heat {
            title: format!("({letter}) {name}"),
            values,
        });
    }
    Ok(m)
}

/// Writes every figure the rows support into `dir` (created if missing), in each format;
/// returns the paths written.
pub fn write_all(rows: &[Row], dir: &Path, formats: &[Format]) -> Result<Vec<PathBuf>> {
    let ax = axes(rows)?;
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create the plot folder {}: {e}", dir.display()))?;
    let swept = ax.iter().map(|p| p.name()).collect::<Vec<_>>().join("-");
    let mut written = Vec::new();
    for &f in formats {
        let path = |stem: String| dir.join(format!("{stem}.{}", f.ext()));
        if ax.len() == 1 {
            let p = path(format!("rate-vs-{swept}"));
            save(&rate_vs_param(rows)?, &p)?;
            written.push(p);
        } else {
            let m = band_maps(rows)?;
            let p = path(format!("bands-{swept}"));
            save(&m, &p)?;
            written.push(p);
            if m.xs.len() >= 2 && m.ys.len() >= 2 {
                let p = path(format!("surface-{swept}"));
                save(&Surfaces(m), &p)?;
                written.push(p);
            }
        }
        if rows.iter().any(|r| r.group == Group::D) {
            let p = path(format!("rate-vs-d-{swept}"));
            save(&rate_vs_d(rows)?, &p)?;
            written.push(p);
        }
    }
    Ok(written)
}
