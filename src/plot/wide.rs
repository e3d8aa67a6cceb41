//! Any wide CSV of series drawn over x (what `gpu-sudoku plot-lines` draws, e.g. RFSS species
//! proportions over generations: Horn's Fig. 3): one column is x, every other numeric column a
//! series.

use super::{
    fmt_num, fmt_sig3, render, Curve, Dash, Format, HLine, LinePanels, LinePlot, Rgb, BLACK_RGB,
    GRAY_RGB, PALETTE,
};
use anyhow::{bail, ensure, Context, Result};

/// A wide CSV: column names and rows of numbers (an empty field is NaN, a gap in its series).
#[derive(Clone, Debug, PartialEq)]
pub struct Wide {
    /// Where it came from, for messages.
    pub path: String,
    pub cols: Vec<String>,
    pub rows: Vec<Vec<f64>>,
}

impl Wide {
    /// Reads the wide CSV at `path`.
    pub fn read(path: &str) -> Result<Wide> {
        let text = crate::limits::read_text(path, crate::limits::MAX_FIGURE_INPUT_BYTES, "a CSV")?;
        Wide::parse(path, &text)
    }

    /// Parses a wide CSV's `text` (`path` names it in messages): a header, then rows with as
    /// many fields, each a finite number or empty.
    pub fn parse(path: &str, text: &str) -> Result<Wide> {
        let mut lines = crate::csv_io::lines(text);
        let Some((header_at, header)) = lines.next() else {
            bail!("{path}: empty file (expected a header line of column names)");
        };
        let cols = crate::csv_io::record(path, header_at, header)?;
        let mut rows = Vec::new();
        for (ln, line) in lines {
            let f = crate::csv_io::record(path, ln, line)?;
            ensure!(
                f.len() == cols.len(),
                "{path}:{ln}: {} fields, the header has {}",
                f.len(),
                cols.len()
            );
            let row = f.iter().enumerate().map(|(i, s)| {
                field(s).ok_or_else(|| {
                    anyhow::anyhow!(
                        "{path}:{ln}: column {} ({}): `{s}` is not a finite number (leave the \
                         field empty for a gap)",
                        i + 1,
                        cols[i]
                    )
                })
            });
            rows.push(row.collect::<Result<Vec<f64>>>()?);
        }
        ensure!(!rows.is_empty(), "{path}: no data rows after the header");
        Ok(Wide {
            path: path.to_string(),
            cols,
            rows,
        })
    }
}

/// An empty field is a gap in its series (NaN); a written value must be a finite number.
fn field(s: &str) -> Option<f64> {
    if s.is_empty() {
        return Some(f64::NAN);
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// What to draw of a wide CSV, and how.
#[derive(Clone, Debug, Default)]
pub struct LinesSpec {
    /// The x column (default: the first).
    pub x: Option<String>,
    /// Columns that are not series.
    pub exclude: Vec<String>,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// A dashed line at the series' mean first value.
    pub initial_line: bool,
    /// Colour the K series with the largest last value apart, and add a close-up panel.
    pub top: Option<usize>,
    /// Title; `{series}` is replaced by the number of series plotted.
    pub title: String,
    /// x axis title (default: the x column's name).
    pub x_label: Option<String>,
    pub y_label: String,
}

/// Colour of the upper group (`top`).
const TOP_COLOUR: Rgb = PALETTE[3];

/// The series of a wide CSV as a spec picks them.
struct Picked<'a> {
    wide: &'a Wide,
    xi: usize,
    series: Vec<usize>,
    /// Series by their last value, largest first.
    order: Vec<usize>,
    /// Per column: in the upper group.
    top: Vec<bool>,
}

impl<'a> Picked<'a> {
    fn new(wide: &'a Wide, spec: &LinesSpec) -> Result<Picked<'a>> {
        let (path, cols) = (&wide.path, &wide.cols);
        let xi = match &spec.x {
            Some(x) => cols.iter().position(|c| c == x).with_context(|| {
                format!("{path}: no column `{x}` (columns: {})", cols.join(", "))
            })?,
            None => 0,
        };
        for e in &spec.exclude {
            ensure!(cols.contains(e), "{path}: --exclude {e}: no such column");
        }
        let series: Vec<usize> = (0..cols.len())
            .filter(|&i| i != xi && !spec.exclude.contains(&cols[i]))
            .collect();
        ensure!(!series.is_empty(), "{path}: no series columns left to plot");
        let mut p = Picked {
            wide,
            xi,
            order: series.clone(),
            top: vec![false; cols.len()],
            series,
        };
        let mut order = std::mem::take(&mut p.order);
        order.sort_by(|&i, &j| p.last(j).total_cmp(&p.last(i)));
        p.order = order;
        if let Some(k) = spec.top {
            ensure!(
                k >= 1 && k < p.series.len(),
                "--top {k}: must be between 1 and the number of series minus one ({})",
                p.series.len() - 1
            );
            for &i in &p.order[..k] {
                p.top[i] = true;
            }
        }
        Ok(p)
    }

    fn pts(&self, i: usize) -> Vec<(f64, f64)> {
        self.wide.rows.iter().map(|r| (r[self.xi], r[i])).collect()
    }

    /// A series' last value.
    fn last(&self, i: usize) -> f64 {
        self.wide
            .rows
            .iter()
            .rev()
            .map(|r| r[i])
            .find(|v| v.is_finite())
            .unwrap_or(f64::NAN)
    }

    fn many(&self) -> bool {
        self.series.len() > PALETTE.len()
    }

    /// The curves, the upper group drawn last so that the others cannot cover it.
    fn curves(&self, top: Option<usize>) -> Vec<Curve> {
        let mut drawn: Vec<usize> = self
            .series
            .iter()
            .copied()
            .filter(|&i| !self.top[i])
            .collect();
        drawn.extend(self.series.iter().copied().filter(|&i| self.top[i]));
        let (mut seen_top, mut seen_rest) = (false, false);
        let mut curves = Vec::new();
        for (j, &i) in drawn.iter().enumerate() {
            let (label, colour) = if let Some(k) = top {
                let up = self.top[i];
                let seen = if up { &mut seen_top } else { &mut seen_rest };
                let label = if up {
                    format!("the {k} largest at the end")
                } else {
                    format!("the other {} series", self.series.len() - k)
                };
                (
                    (!std::mem::replace(seen, true)).then_some(label),
                    if up { TOP_COLOUR } else { GRAY_RGB },
                )
            } else if self.many() {
                (None, Rgb(60, 60, 60))
            } else {
                (Some(self.wide.cols[i].clone()), PALETTE[j % PALETTE.len()])
            };
            let width = if self.many() { 1 } else { 2 };
            curves.push(Curve::line(label, self.pts(i), colour, width));
        }
        curves
    }

    /// The subtitle's notes: series the log axis loses, the upper group's values at the end.
    fn notes(&self, spec: &LinesSpec) -> Vec<String> {
        let mut notes = Vec::new();
        if spec.log_y {
            let rows = &self.wide.rows;
            let zero = self
                .series
                .iter()
                .filter(|&&i| rows.iter().any(|r| r[i] <= 0.0))
                .count();
            if zero > 0 {
                notes.push(format!(
                    "{zero} series reach 0 or below (left out of the log axis from there)"
                ));
            }
        }
        if let Some(k) = spec.top {
            let order = &self.order;
            let (hi, lo, next) = (
                self.last(order[0]),
                self.last(order[k - 1]),
                self.last(order[k]),
            );
            let gap = if next > 0.0 {
                format!(
                    ", {}× the largest other ({})",
                    fmt_sig3(lo / next),
                    fmt_sig3(next)
                )
            } else {
                String::new()
            };
            notes.push(format!(
                "at the end the {k} largest run from {} to {}{gap}",
                fmt_sig3(lo),
                fmt_sig3(hi)
            ));
        }
        notes
    }

    /// The dashed line at the series' mean first value.
    fn initial_line(&self) -> Result<HLine> {
        let firsts: Vec<f64> = self
            .series
            .iter()
            .map(|&i| self.wide.rows[0][i])
            .filter(|v| v.is_finite())
            .collect();
        ensure!(
            !firsts.is_empty(),
            "--initial-line: the first row has no values"
        );
        let y = firsts.iter().sum::<f64>() / firsts.len() as f64;
        Ok(HLine::new(
            y,
            Some(format!("initial mean {}", fmt_num(y))),
            BLACK_RGB,
            Dash::Dashed,
        ))
    }
}

/// Draws the series of `wide` as `spec` says, in `format`: one plot, or with `spec.top` the
/// plot and a linear close-up of the largest values.
pub fn draw_lines(wide: &Wide, spec: &LinesSpec, format: Format) -> Result<Vec<u8>> {
    let p = Picked::new(wide, spec)?;
    let title = spec.title.replace("{series}", &p.series.len().to_string());
    let x_label = spec
        .x_label
        .clone()
        .unwrap_or_else(|| wide.cols[p.xi].clone());
    let mut plot = LinePlot::new(title.clone(), x_label, spec.y_label.clone());
    plot.log_y = spec.log_y;
    plot.curves = p.curves(spec.top);
    let notes = p.notes(spec);
    if spec.initial_line {
        plot.hlines.push(p.initial_line()?);
    }
    let Some(k) = spec.top else {
        plot.subtitle = std::iter::once(format!("{} series", p.series.len()))
            .filter(|_| p.many())
            .chain(notes)
            .collect::<Vec<_>>()
            .join("; ");
        return render(&plot, format);
    };
    plot.size.1 = 600;
    let mut close = plot.clone();
    close.log_y = false;
    close.title =
        format!("close-up, linear scale: the {k} largest at the end (red) against the others");
    let max = p
        .order
        .iter()
        .flat_map(|&i| p.pts(i))
        .map(|q| q.1)
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    close.y_range = Some((0.0, max * 1.08));
    plot.title = if spec.log_y {
        "all series, log scale".into()
    } else {
        "all series".into()
    };
    let panels = LinePanels {
        title,
        subtitle: notes.join("; "),
        panels: vec![plot, close],
    };
    render(&panels, format)
}
