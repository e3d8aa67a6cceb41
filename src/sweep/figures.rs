//! The ILCA paper's result figures from sweep rows (what `gpu-sudoku sweep` writes to its CSV):
//! rate vs the swept parameter per tier (Fig. 5a–8a), rate vs difficulty d per setting
//! (Fig. 5b–8b), and for two swept parameters band maps (Fig. 10) and surfaces (Fig. 9).

use super::{Group, Param, Role, Row};
use crate::plot::{
    fmt_num, render, tier_colour, BandMaps, Curve, Dash, Format, HLine, Heat, Interval,
    IntervalStyle, LinePlot, Rgb, Surfaces, BLACK_RGB, DARK_BLUE, GRAY_RGB,
};
use crate::report::stats::wilson95;
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
    // The fixed parameters that differ from the defaults (the paper's, or "off"), each
    // written so that it reads back as itself (never as the default it is close to).
    let exact = |x: f64| {
        let short = fmt_num(x);
        if short.parse::<f64>() == Ok(x) {
            short
        } else {
            x.to_string()
        }
    };
    if let Some(fx) = sweep.first().and_then(|r| r.fixed) {
        let d = super::Fixed::of(&crate::ilca::IlcaParams::default());
        let mut add = |differs: bool, text: String| {
            if differs {
                parts.push(text);
            }
        };
        add(fx.restart != d.restart, format!("restart = {}", fx.restart));
        add(
            fx.penalty_floor != d.penalty_floor,
            format!("penalty floor = {}", exact(fx.penalty_floor)),
        );
        add(fx.compare != d.compare, format!("compare {}", fx.compare));
        add(fx.tie != d.tie, format!("tie {}", fx.tie));
        add(
            fx.reset_check != d.reset_check,
            format!("reset check {}", fx.reset_check),
        );
        add(fx.prune != d.prune, format!("prune {}", fx.prune));
        add(fx.share != d.share, format!("share = {}", exact(fx.share)));
        add(fx.seed != d.seed, format!("seed {}", fx.seed));
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

/// What the figures show besides the rates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Wilson 95% intervals: bands around the rate curves and baselines, bars on the average
    /// of the rate-vs-d plot, the best cell's interval in band-map captions. On by default.
    pub intervals: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { intervals: true }
    }
}

/// The Wilson 95% interval of a row's rate, in percent (the CSV's `solved_pct_95_lo`/`_hi`).
fn interval_pct(r: &Row) -> Option<(f64, f64)> {
    r.solved_pct_95().map(|[lo, hi]| (lo, hi))
}

/// Points (x, y) of a curve and its interval points (x, low, high).
type PointsAndInterval = (Vec<(f64, f64)>, Vec<(f64, f64, f64)>);

/// Points (x, rate %) and their intervals (x, low %, high %), sorted by x.
fn rate_points(rows: &[&Row], x: impl Fn(&Row) -> f64) -> PointsAndInterval {
    let mut v: Vec<&&Row> = rows.iter().collect();
    v.sort_by(|a, b| x(a).total_cmp(&x(b)));
    let pts = v.iter().map(|r| (x(r), r.solved_pct())).collect();
    let iv = v
        .iter()
        .filter_map(|r| interval_pct(r).map(|(lo, hi)| (x(r), lo, hi)))
        .collect();
    (pts, iv)
}

/// Resolution rate against the one swept parameter: a line per file (tier), the overall rate
/// in black, the baseline's rates dotted (the paper's Fig. 5a, 6a, 7a, 8a); with
/// `opts.intervals`, each rate's Wilson 95% interval shaded.
pub fn rate_vs_param(rows: &[Row], opts: Options) -> Result<LinePlot> {
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
        let of = |role: Role| {
            let sel: Vec<&Row> = rows
                .iter()
                .filter(|r| r.role == role && r.group != Group::D && &r.label == label)
                .collect();
            rate_points(&sel, |r| r.point.get(p))
        };
        let (pts, iv) = of(Role::Sweep);
        let mut c = Curve::new(label.clone(), pts, colour);
        if label == "all" {
            c.width = 3;
            c.label = Some("all (overall)".into());
        }
        if opts.intervals {
            c.interval = Some(Interval {
                points: iv,
                style: IntervalStyle::Band,
            });
        }
        plot.curves.push(c);
        let (base, base_iv) = of(Role::Baseline);
        let base_label = Some(format!("{label}, baseline"));
        if base.len() > 1 {
            let mut c = Curve::line(base_label, base, colour, 2);
            c.dash = Dash::Dotted;
            if opts.intervals {
                c.interval = Some(Interval {
                    points: base_iv,
                    style: IntervalStyle::Band,
                });
            }
            plot.curves.push(c);
        } else if let Some(&(_, y)) = base.first() {
            let mut h = HLine::new(y, base_label, colour, Dash::Dotted);
            if opts.intervals {
                h.band = base_iv.first().map(|&(_, lo, hi)| (lo, hi));
            }
            plot.hlines.push(h);
        }
    }
    if let Some(b) = baseline {
        plot.subtitle = format!("{} · dotted: {b}", plot.subtitle);
    }
    Ok(plot)
}

/// The colour of a setting's line in the rate-vs-d plot, by its rank `t` in [0, 1] among the
/// settings (light orange for the smallest value to dark red for the largest).
fn setting_colour(t: f64) -> Rgb {
    const STOPS: [Rgb; 3] = [Rgb(245, 165, 60), Rgb(220, 60, 30), Rgb(100, 0, 30)];
    let t = t.clamp(0.0, 1.0) * 2.0;
    let (a, b, f) = if t <= 1.0 {
        (STOPS[0], STOPS[1], t)
    } else {
        (STOPS[1], STOPS[2], t - 1.0)
    };
    let mix = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * f).round() as u8;
    Rgb(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// "lp/lr = 30, sr = 20": a setting's swept values.
fn setting_name(r: &Row, ax: &[Param]) -> String {
    ax.iter()
        .map(|&p| format!("{} = {}", p.symbol(), fmt_num(r.point.get(p))))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Most settings named one by one in the rate-vs-d legend; beyond, a few evenly spaced.
const NAMED_SETTINGS: usize = 10;

/// Resolution rate against difficulty d (bins of all files together), the paper's Fig. 5b–8b:
/// one line per setting, their average in dark blue, the baseline dotted. A one-parameter
/// sweep colours the settings from light (smallest value) to dark (largest) and names them in
/// the legend; a two-parameter sweep draws them gray and names the best and worst overall.
/// With `opts.intervals` the average carries bars: the Wilson 95% interval of one setting's
/// rate in the bin.
pub fn rate_vs_d(rows: &[Row], opts: Options) -> Result<LinePlot> {
    let ax = axes(rows)?;
    let names: Vec<&str> = ax.iter().map(|p| p.symbol()).collect();
    let mut plot = LinePlot::new(
        format!(
            "ILCA resolution rate vs difficulty d, one line per {} setting",
            names.join(" × ")
        ),
        "difficulty d (bin centre)",
        "resolution rate, %",
    );
    plot.subtitle = describe_fixed(rows, &ax);
    plot.y_range = Some((-2.0, 102.0));
    plot.legend_title = Some("setting".into());
    let key = |r: &Row| {
        (
            r.point.lr.to_bits(),
            r.point.lp.to_bits(),
            r.point.sr,
            r.point.steps,
        )
    };
    // Per setting: a representative row (for its values) and its (d, rate) points.
    let mut settings: Vec<(&Row, Vec<(f64, f64)>)> = Vec::new();
    let mut index: HashMap<(u64, u64, u32, u32), usize> = HashMap::new();
    // Per bin: (centre, sum of rates, settings, instances of one setting).
    let mut bins: BTreeMap<i64, (f64, f64, usize, usize)> = BTreeMap::new();
    for r in rows
        .iter()
        .filter(|r| r.role == Role::Sweep && r.group == Group::D)
    {
        let (Some(lo), Some(hi)) = (r.d_lo, r.d_hi) else {
            continue;
        };
        let next = settings.len();
        let k = *index.entry(key(r)).or_insert(next);
        if k == next {
            settings.push((r, Vec::new()));
        }
        let x = (lo + hi) / 2.0;
        settings[k].1.push((x, r.solved_pct()));
        let e = bins
            .entry((x * 1e6).round() as i64)
            .or_insert((x, 0.0, 0, r.instances));
        e.1 += r.solved_pct();
        e.2 += 1;
    }
    ensure!(!settings.is_empty(), "no difficulty (d) rows to plot");
    for s in &mut settings {
        s.1.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    if ax.len() == 1 {
        let p = ax[0];
        settings.sort_by(|a, b| a.0.point.get(p).total_cmp(&b.0.point.get(p)));
        let k = settings.len();
        let named: Vec<usize> = if k <= NAMED_SETTINGS {
            (0..k).collect()
        } else {
            let m = 6;
            (0..m).map(|i| i * (k - 1) / (m - 1)).collect()
        };
        for (i, (r, pts)) in settings.iter().enumerate() {
            let t = if k > 1 {
                i as f64 / (k - 1) as f64
            } else {
                1.0
            };
            let label = named.contains(&i).then(|| setting_name(r, &ax));
            plot.curves
                .push(Curve::line(label, pts.clone(), setting_colour(t), 1));
        }
        if k > NAMED_SETTINGS {
            plot.legend_notes
                .push(format!("{} settings in all, shades between", k));
        }
    } else {
        // Two parameters: the overall rate of each setting picks the best and worst.
        let overall = |r: &Row| -> f64 {
            let (s, n) = rows
                .iter()
                .filter(|q| q.role == Role::Sweep && q.group == Group::D && key(q) == key(r))
                .fold((0, 0), |(s, n), q| (s + q.solved, n + q.instances));
            s as f64 / n.max(1) as f64
        };
        let scores: Vec<f64> = settings.iter().map(|(r, _)| overall(r)).collect();
        let pick = |better: fn(f64, f64) -> bool| {
            (0..scores.len())
                .reduce(|a, b| if better(scores[b], scores[a]) { b } else { a })
                .expect("settings")
        };
        let (best, worst) = (pick(|a, b| a > b), pick(|a, b| a < b));
        let others = settings.len() - if best == worst { 1 } else { 2 };
        let mut labelled = false;
        for (i, (_, pts)) in settings.iter().enumerate() {
            if i != best && i != worst {
                let label = (!std::mem::replace(&mut labelled, true))
                    .then(|| format!("each of the other {others} settings"));
                plot.curves
                    .push(Curve::line(label, pts.clone(), GRAY_RGB, 1));
            }
        }
        for (i, what, colour) in [
            (worst, "worst", Rgb(214, 39, 40)),
            (best, "best", Rgb(44, 160, 44)),
        ] {
            let r = settings[i].0;
            plot.curves.push(Curve::line(
                Some(format!(
                    "{what}: {} ({:.1}% overall)",
                    setting_name(r, &ax),
                    100.0 * scores[i]
                )),
                settings[i].1.clone(),
                colour,
                2,
            ));
            if best == worst {
                break;
            }
        }
    }
    let mut avg = Curve::new(
        "average over settings",
        bins.values()
            .map(|&(x, s, n, _)| (x, s / n as f64))
            .collect(),
        DARK_BLUE,
    );
    avg.width = 3;
    if opts.intervals {
        avg.interval = Some(Interval {
            points: bins
                .values()
                .filter_map(|&(x, s, n, inst)| {
                    let mean = s / n as f64 / 100.0;
                    let solved = (mean * inst as f64).round() as usize;
                    wilson95(solved, inst).map(|(lo, hi)| (x, 100.0 * lo, 100.0 * hi))
                })
                .collect(),
            style: IntervalStyle::Bars,
        });
        plot.interval_label = "95% interval, one setting".into();
        plot.legend_notes
            .push("(Wilson, of one setting's rate in the bin)".into());
    }
    plot.curves.push(avg);
    let max_steps = rows
        .iter()
        .filter(|q| q.role == Role::Baseline)
        .map(|q| q.point.steps)
        .max();
    // With a steps sweep the baseline has one line per limit: take the largest.
    let base: Vec<&Row> = rows
        .iter()
        .filter(|r| r.role == Role::Baseline && r.group == Group::D)
        .filter(|r| Some(r.point.steps) == max_steps && r.d_lo.is_some() && r.d_hi.is_some())
        .collect();
    if !base.is_empty() {
        let centre = |r: &Row| (r.d_lo.unwrap_or(0.0) + r.d_hi.unwrap_or(0.0)) / 2.0;
        let (pts, _) = rate_points(&base, centre);
        let mut c = Curve::line(baseline_desc(rows), pts, BLACK_RGB, 3);
        c.dash = Dash::Dotted;
        plot.curves.push(c);
    }
    Ok(plot)
}

/// Band maps of a two-parameter sweep: the overall rate and each file's, in the paper's five
/// bands (Fig. 10); [`Surfaces`] of the same data draw Fig. 9. With `opts.intervals`, each
/// panel's best rate carries its Wilson 95% interval and the subtitle the widest interval.
pub fn band_maps(rows: &[Row], opts: Options) -> Result<BandMaps> {
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
    let mut widest: f64 = 0.0;
    for (i, label) in labels.iter().enumerate() {
        let mut values = vec![vec![f64::NAN; xs.len()]; ys.len()];
        let mut intervals = vec![vec![(f64::NAN, f64::NAN); xs.len()]; ys.len()];
        for r in sweep.iter().filter(|r| &r.label == label) {
            let ix = xs
                .iter()
                .position(|v| v.to_bits() == r.point.get(px).to_bits());
            let iy = ys
                .iter()
                .position(|v| v.to_bits() == r.point.get(py).to_bits());
            if let (Some(ix), Some(iy)) = (ix, iy) {
                values[iy][ix] = r.solved_pct();
                if let Some((lo, hi)) = interval_pct(r) {
                    intervals[iy][ix] = (lo, hi);
                    widest = widest.max((hi - r.solved_pct()).max(r.solved_pct() - lo));
                }
            }
        }
        let letter = (b'a' + i as u8) as char;
        let name = if label == "all" { "overall" } else { label };
        let mut heat = Heat::new(format!("({letter}) {name}"), values);
        if opts.intervals {
            heat.intervals = Some(intervals);
        }
        m.panels.push(heat);
    }
    if opts.intervals && widest > 0.0 {
        m.subtitle = format!(
            "{} · best cell's 95% Wilson interval in brackets; widest interval of a cell ±{widest:.1} points",
            m.subtitle
        );
    }
    Ok(m)
}

crate::choice! {
    /// The image formats the figures are written in.
    pub enum FigureFormats {
        /// PNG images.
        Png = "png",
        /// SVG drawings.
        Svg = "svg",
        /// PNG and SVG.
        Both = "both",
    }
}

impl FigureFormats {
    /// The formats, each file written once per format.
    pub fn formats(self) -> Vec<Format> {
        match self {
            FigureFormats::Png => vec![Format::Png],
            FigureFormats::Svg => vec![Format::Svg],
            FigureFormats::Both => vec![Format::Png, Format::Svg],
        }
    }
}

/// File names (without folder) of every figure a sweep of the `swept` parameters can give,
/// in each format: what a command checks before it starts.
pub fn figure_names(swept: &[Param], formats: &[Format]) -> Vec<String> {
    let stem = swept.iter().map(|p| p.name()).collect::<Vec<_>>().join("-");
    let mut v = Vec::new();
    for f in formats {
        let ext = f.ext();
        if swept.len() == 1 {
            v.push(format!("rate-vs-{stem}.{ext}"));
        } else {
            v.push(format!("bands-{stem}.{ext}"));
            v.push(format!("surface-{stem}.{ext}"));
        }
        v.push(format!("rate-vs-d-{stem}.{ext}"));
    }
    v
}

/// Every figure the rows support, in each format: (file name, file bytes), names as in
/// [`figure_names`].
pub fn render_all(
    rows: &[Row],
    formats: &[Format],
    opts: Options,
) -> Result<Vec<(String, Vec<u8>)>> {
    let ax = axes(rows)?;
    let stem = ax.iter().map(|p| p.name()).collect::<Vec<_>>().join("-");
    let mut out = Vec::new();
    for &f in formats {
        let name = |kind: &str| format!("{kind}-{stem}.{}", f.ext());
        if ax.len() == 1 {
            out.push((name("rate-vs"), render(&rate_vs_param(rows, opts)?, f)?));
        } else {
            let m = band_maps(rows, opts)?;
            out.push((name("bands"), render(&m, f)?));
            if m.xs.len() >= 2 && m.ys.len() >= 2 {
                out.push((name("surface"), render(&Surfaces(m), f)?));
            }
        }
        if rows.iter().any(|r| r.group == Group::D) {
            out.push((name("rate-vs-d"), render(&rate_vs_d(rows, opts)?, f)?));
        }
    }
    Ok(out)
}

/// Writes every figure the rows support into `dir` (created if missing), in each format;
/// returns the paths written.
pub fn write_all(
    rows: &[Row],
    dir: &Path,
    formats: &[Format],
    opts: Options,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create the plot folder {}: {e}", dir.display()))?;
    let mut written = Vec::new();
    for (name, bytes) in render_all(rows, formats, opts)? {
        let p = dir.join(name);
        std::fs::write(&p, bytes)
            .map_err(|e| anyhow::anyhow!("cannot write the figure {}: {e}", p.display()))?;
        written.push(p);
    }
    Ok(written)
}
