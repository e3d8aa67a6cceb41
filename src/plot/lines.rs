//! Line plots: resolution rate against a parameter (the ILCA paper's Fig. 5–8) and any
//! "values over generations" history such as RFSS species proportions (Horn's Fig. 3).

use super::{draw_legend, fmt_num, Figure, Rgb};
use anyhow::{ensure, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Stroke pattern of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dash {
    Solid,
    Dashed,
    Dotted,
}

/// One line of a [`LinePlot`]. Curves without a label stay out of the legend (for plots of
/// hundreds of series).
#[derive(Clone, Debug)]
pub struct Curve {
    pub label: Option<String>,
    /// (x, y) points, drawn in the given order; non-finite values break nothing, they are skipped.
    pub points: Vec<(f64, f64)>,
    pub colour: Rgb,
    pub dash: Dash,
    /// Line width in pixels.
    pub width: u32,
    /// Draw a dot at every point.
    pub markers: bool,
}

impl Curve {
    /// A solid line of width 2 with markers.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>, colour: Rgb) -> Curve {
        Curve {
            label: Some(label.into()),
            points,
            colour,
            dash: Dash::Solid,
            width: 2,
            markers: true,
        }
    }
}

/// A horizontal reference line (Horn's initial proportion, a baseline rate).
#[derive(Clone, Debug)]
pub struct HLine {
    pub y: f64,
    pub label: Option<String>,
    pub colour: Rgb,
    pub dash: Dash,
}

/// A line plot with an optional logarithmic y axis and a legend to the right of the chart.
#[derive(Clone, Debug)]
pub struct LinePlot {
    pub title: String,
    /// A smaller second title line (settings, counts); empty for none.
    pub subtitle: String,
    pub x_label: String,
    pub y_label: String,
    pub curves: Vec<Curve>,
    pub hlines: Vec<HLine>,
    /// Axis ranges; `None` = fitted to the data.
    pub x_range: Option<(f64, f64)>,
    pub y_range: Option<(f64, f64)>,
    pub log_y: bool,
    /// Title of the legend box (e.g. "tier").
    pub legend_title: Option<String>,
    pub size: (u32, u32),
}

impl LinePlot {
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        LinePlot {
            title: title.into(),
            subtitle: String::new(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            curves: Vec::new(),
            hlines: Vec::new(),
            x_range: None,
            y_range: None,
            log_y: false,
            legend_title: None,
            size: (1100, 650),
        }
    }

    fn finite_points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.curves
            .iter()
            .flat_map(|c| c.points.iter().copied())
            .filter(|(x, y)| x.is_finite() && y.is_finite() && (!self.log_y || *y > 0.0))
    }

    fn ranges(&self) -> Result<((f64, f64), (f64, f64))> {
        let pts: Vec<(f64, f64)> = self.finite_points().collect();
        ensure!(
            !pts.is_empty() || (self.x_range.is_some() && self.y_range.is_some()),
            "the plot \"{}\" has no data points",
            self.title
        );
        let spread = |lo: f64, hi: f64, log: bool| {
            if hi > lo {
                (lo, hi)
            } else if log {
                (lo / 2.0, hi * 2.0)
            } else {
                let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
                (lo - d, hi + d)
            }
        };
        let x = self.x_range.unwrap_or_else(|| {
            let lo = pts.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
            let hi = pts.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
            spread(lo, hi, false)
        });
        let y = self.y_range.unwrap_or_else(|| {
            let ys = pts
                .iter()
                .map(|p| p.1)
                .chain(self.hlines.iter().map(|h| h.y))
                .filter(|y| y.is_finite() && (!self.log_y || *y > 0.0));
            let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
                (a.min(y), b.max(y))
            });
            if self.log_y {
                let (lo, hi) = spread(lo, hi, true);
                (lo / 1.5, hi * 1.5)
            } else {
                let (lo, hi) = spread(lo, hi, false);
                let pad = (hi - lo) * 0.05;
                (lo - pad, hi + pad)
            }
        });
        ensure!(
            x.0 < x.1 && y.0 < y.1 && (!self.log_y || y.0 > 0.0),
            "the plot \"{}\" has an empty or invalid axis range",
            self.title
        );
        Ok((x, y))
    }

    fn legend_entries(&self) -> Vec<(String, Rgb, Dash, u32, bool)> {
        let mut v: Vec<_> = self
            .curves
            .iter()
            .filter_map(|c| {
                c.label
                    .as_ref()
                    .map(|l| (l.clone(), c.colour, c.dash, c.width, false))
            })
            .collect();
        v.extend(self.hlines.iter().filter_map(|h| {
            h.label
                .as_ref()
                .map(|l| (l.clone(), h.colour, h.dash, 2, false))
        }));
        v
    }
}

impl Figure for LinePlot {
    fn size(&self) -> (u32, u32) {
        self.size
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        let ((x0, x1), (y0, y1)) = self.ranges()?;
        let entries = self.legend_entries();
        let legend_w = if entries.is_empty() {
            0
        } else {
            let longest = entries
                .iter()
                .map(|e| e.0.chars().count())
                .max()
                .unwrap_or(0);
            (60 + 8 * longest as u32).clamp(120, 320)
        };
        let (w, _) = root.dim_in_pixel();
        let (chart_area, legend_area) = root.split_horizontally(w.saturating_sub(legend_w));
        let chart_area = if self.subtitle.is_empty() {
            chart_area.titled(&self.title, ("sans-serif", 24))?
        } else {
            let a = chart_area.titled(&self.title, ("sans-serif", 24))?;
            a.titled(
                &self.subtitle,
                ("sans-serif", 15).into_font().color(&RGBColor(80, 80, 80)),
            )?
        };
        if !entries.is_empty() {
            let top = legend_area.margin(40, 0, 0, 0);
            draw_legend(&top, self.legend_title.as_deref(), &entries)?;
        }

        macro_rules! body {
            ($y:expr) => {{
                let mut chart = ChartBuilder::on(&chart_area)
                    .margin(12)
                    .x_label_area_size(48)
                    .y_label_area_size(70)
                    .build_cartesian_2d(x0..x1, $y)?;
                chart
                    .configure_mesh()
                    .x_desc(self.x_label.as_str())
                    .y_desc(self.y_label.as_str())
                    .x_label_formatter(&|x| fmt_num(*x))
                    .y_label_formatter(&|y| fmt_num(*y))
                    .axis_desc_style(("sans-serif", 18))
                    .label_style(("sans-serif", 14))
                    .light_line_style(RGBColor(246, 246, 246))
                    .bold_line_style(RGBColor(220, 220, 220))
                    .draw()?;
                for h in &self.hlines {
                    let style = h.colour.c().stroke_width(2);
                    let pts = vec![(x0, h.y), (x1, h.y)];
                    draw_path(&mut chart, pts, style, h.dash)?;
                }
                for c in &self.curves {
                    let pts: Vec<(f64, f64)> = c
                        .points
                        .iter()
                        .copied()
                        .filter(|(x, y)| {
                            x.is_finite() && y.is_finite() && (!self.log_y || *y > 0.0)
                        })
                        .collect();
                    let style = c.colour.c().stroke_width(c.width.max(1));
                    draw_path(&mut chart, pts.clone(), style, c.dash)?;
                    if c.markers {
                        let col = c.colour.c();
                        chart.draw_series(
                            pts.iter()
                                .map(|&p| Circle::new(p, c.width.max(1) + 2, col.filled())),
                        )?;
                    }
                }
            }};
        }
        if self.log_y {
            body!((y0..y1).log_scale())
        } else {
            body!(y0..y1)
        }
        Ok(())
    }
}

fn draw_path<DB: DrawingBackend, CT: CoordTranslate<From = (f64, f64)>>(
    chart: &mut ChartContext<DB, CT>,
    pts: Vec<(f64, f64)>,
    style: ShapeStyle,
    dash: Dash,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    if pts.len() < 2 {
        return Ok(());
    }
    match dash {
        Dash::Solid => {
            chart.draw_series(LineSeries::new(pts, style))?;
        }
        Dash::Dashed => {
            chart.draw_series(DashedLineSeries::new(pts, 8, 5, style))?;
        }
        Dash::Dotted => {
            chart.draw_series(DashedLineSeries::new(pts, 2, 4, style))?;
        }
    }
    Ok(())
}
