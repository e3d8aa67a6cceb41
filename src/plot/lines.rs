//! Line plots: resolution rate against a parameter (the ILCA paper's Fig. 5–8) and any
//! "values over generations" history such as RFSS species proportions (Horn's Fig. 3).

use super::{draw_legend, fmt_num, fmt_tick, Figure, LegendEntry, Rgb};
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

/// How an [`Interval`] is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalStyle {
    /// A translucent band in the curve's colour.
    Band,
    /// A vertical bar with caps at each point.
    Bars,
}

/// A confidence interval around a curve: (x, low, high) per point.
#[derive(Clone, Debug)]
pub struct Interval {
    pub points: Vec<(f64, f64, f64)>,
    pub style: IntervalStyle,
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
    /// Line width in pixels; 0 draws no line (markers only).
    pub width: u32,
    /// Draw a dot at every point.
    pub markers: bool,
    /// A confidence interval drawn with the line.
    pub interval: Option<Interval>,
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
            interval: None,
        }
    }

    /// A plain line without markers (a label only if given).
    pub fn line(label: Option<String>, points: Vec<(f64, f64)>, colour: Rgb, width: u32) -> Curve {
        Curve {
            label,
            points,
            colour,
            dash: Dash::Solid,
            width,
            markers: false,
            interval: None,
        }
    }
}

/// A horizontal reference line (Horn's initial proportion, a baseline rate), drawn over the
/// curves so that a dense bundle of lines cannot hide it.
#[derive(Clone, Debug)]
pub struct HLine {
    pub y: f64,
    pub label: Option<String>,
    pub colour: Rgb,
    pub dash: Dash,
    pub width: u32,
    /// A confidence band (low, high) drawn under the line.
    pub band: Option<(f64, f64)>,
}

impl HLine {
    /// A line of width 2 without a band.
    pub fn new(y: f64, label: Option<String>, colour: Rgb, dash: Dash) -> HLine {
        HLine {
            y,
            label,
            colour,
            dash,
            width: 2,
            band: None,
        }
    }
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
    /// Logarithmic y axis: labelled in powers of ten over the whole range of the data.
    pub log_y: bool,
    /// Title of the legend box (e.g. "tier").
    pub legend_title: Option<String>,
    /// Legend text of the intervals (shown when a curve or line has one).
    pub interval_label: String,
    /// Extra legend lines under the entries (no symbol), e.g. what a colour ramp means.
    pub legend_notes: Vec<String>,
    /// Legend entries that belong to no one curve (e.g. what the dots mean).
    pub(crate) legend_extra: Vec<LegendEntry>,
    pub size: (u32, u32),
}

/// Opacity of interval bands.
const BAND_ALPHA: f64 = 0.16;

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
            interval_label: "95% Wilson interval".into(),
            legend_notes: Vec::new(),
            legend_extra: Vec::new(),
            size: (1100, 650),
        }
    }

    /// y in axis units: log10(y) on a log axis (None where it cannot be drawn).
    fn ty(&self, y: f64) -> Option<f64> {
        if !y.is_finite() {
            None
        } else if self.log_y {
            (y > 0.0).then(|| y.log10())
        } else {
            Some(y)
        }
    }

    /// Every drawable (x, y) in axis units, intervals and reference lines included.
    fn axis_points(&self) -> Vec<(f64, f64)> {
        let mut pts = Vec::new();
        for c in &self.curves {
            for &(x, y) in &c.points {
                if let (true, Some(y)) = (x.is_finite(), self.ty(y)) {
                    pts.push((x, y));
                }
            }
            for &(x, lo, hi) in c.interval.iter().flat_map(|i| &i.points) {
                for y in [lo, hi] {
                    if let (true, Some(y)) = (x.is_finite(), self.ty(y)) {
                        pts.push((x, y));
                    }
                }
            }
        }
        pts
    }

    /// The x range and the y range in axis units (log10 on a log axis: whole decades when the
    /// data span two or more, so that the labels reach past both ends of the data).
    pub fn ranges(&self) -> Result<((f64, f64), (f64, f64))> {
        let pts = self.axis_points();
        ensure!(
            !pts.is_empty() || (self.x_range.is_some() && self.y_range.is_some()),
            "the plot \"{}\" has no data points",
            self.title
        );
        let widen = |lo: f64, hi: f64| {
            if hi > lo {
                (lo, hi)
            } else {
                let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
                (lo - d, hi + d)
            }
        };
        let x = self.x_range.unwrap_or_else(|| {
            let lo = pts.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
            let hi = pts.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
            widen(lo, hi)
        });
        let y = match self.y_range {
            Some((lo, hi)) => (
                self.ty(lo).unwrap_or(f64::NAN),
                self.ty(hi).unwrap_or(f64::NAN),
            ),
            None => {
                let ys = pts
                    .iter()
                    .map(|p| p.1)
                    .chain(self.hlines.iter().filter_map(|h| self.ty(h.y)));
                let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
                    (a.min(y), b.max(y))
                });
                if self.log_y && hi - lo >= 2.0 {
                    let step = log_step(lo, hi);
                    ((lo / step).floor() * step, (hi / step).ceil() * step)
                } else if self.log_y {
                    let (lo, hi) = if hi > lo {
                        (lo, hi)
                    } else {
                        (lo - 0.3, hi + 0.3)
                    };
                    let pad = (hi - lo) * 0.08;
                    (lo - pad, hi + pad)
                } else {
                    let (lo, hi) = widen(lo, hi);
                    let pad = (hi - lo) * 0.05;
                    (lo - pad, hi + pad)
                }
            }
        };
        ensure!(
            x.0 < x.1 && y.0 < y.1,
            "the plot \"{}\" has an empty or invalid axis range",
            self.title
        );
        // A span beyond f64 (data from -1e308 to 1e308) leaves no ticks to draw: the drawing
        // would not end.
        let finite =
            |(lo, hi): (f64, f64)| lo.is_finite() && hi.is_finite() && (hi - lo).is_finite();
        ensure!(
            finite(x) && finite(y),
            "the plot \"{}\" spans values too far apart to draw (x {} to {}, y {} to {}); \
             leave out the extreme values or use a log axis",
            self.title,
            x.0,
            x.1,
            y.0,
            y.1
        );
        Ok((x, y))
    }

    /// How many y ticks to ask plotters for: on a log axis of whole decades, one per
    /// [`log_step`] decades, so that both ends are labelled.
    fn y_ticks(&self, y0: f64, y1: f64) -> usize {
        if self.log_y && y1 - y0 >= 2.0 {
            ((y1 - y0) / log_step(y0, y1)).round() as usize + 1
        } else {
            12
        }
    }

    /// The label of a y tick at `v` axis units (None: an unlabelled grid line). On a log axis
    /// spanning three or more decades only whole powers of ten are labelled.
    pub fn y_tick_label(&self, v: f64, span: f64) -> Option<String> {
        if !self.log_y {
            // Fixed decimals enough for the tick spacing (0.0005 beside 0.001, not 5e-4).
            let decimals = (2.0 - (span / 10.0).log10().ceil()).max(0.0);
            if v == 0.0 || decimals > 8.0 || v.abs() >= 1e5 || !decimals.is_finite() {
                return Some(fmt_num(v));
            }
            let s = format!("{v:.*}", decimals as usize);
            let s = if s.contains('.') {
                s.trim_end_matches('0').trim_end_matches('.')
            } else {
                &s
            };
            return Some(s.to_string());
        }
        let k = v.round();
        if span >= 3.0 {
            return ((v - k).abs() < 1e-9).then(|| fmt_num(10f64.powf(k)));
        }
        let y = 10f64.powf(v);
        // Two significant digits are enough between decades.
        let mag = 10f64.powf(y.log10().floor() - 1.0);
        Some(fmt_num((y / mag).round() * mag))
    }

    fn legend_entries(&self) -> Vec<LegendEntry> {
        let mut v: Vec<LegendEntry> = self
            .curves
            .iter()
            .filter_map(|c| {
                c.label.as_ref().map(|l| {
                    if c.width == 0 {
                        LegendEntry::dot(l, c.colour)
                    } else {
                        LegendEntry::line(l, c.colour, c.dash, c.width)
                    }
                })
            })
            .collect();
        v.extend(self.hlines.iter().filter_map(|h| {
            h.label
                .as_ref()
                .map(|l| LegendEntry::line(l, h.colour, h.dash, h.width))
        }));
        let bands = self.curves.iter().any(|c| {
            c.interval
                .as_ref()
                .is_some_and(|i| i.style == IntervalStyle::Band)
        }) || self.hlines.iter().any(|h| h.band.is_some());
        let bars = self.curves.iter().any(|c| {
            c.interval
                .as_ref()
                .is_some_and(|i| i.style == IntervalStyle::Bars)
        });
        if bands {
            v.push(LegendEntry::boxed(
                format!("shaded: {}", self.interval_label),
                Rgb(215, 215, 215),
            ));
        } else if bars {
            v.push(LegendEntry::bar(
                format!("bars: {}", self.interval_label),
                Rgb(60, 60, 60),
            ));
        }
        v.extend(self.legend_extra.iter().cloned());
        v.extend(self.legend_notes.iter().map(LegendEntry::note));
        v
    }

    /// Draws the plot (title, chart and legend) into `area`.
    pub fn draw_in<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>
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
                .map(|e| e.label.chars().count())
                .max()
                .unwrap_or(0);
            (60 + 8 * longest as u32).clamp(120, 330)
        };
        let (w, _) = area.dim_in_pixel();
        let (chart_area, legend_area) = area.split_horizontally(w.saturating_sub(legend_w));
        let chart_area = chart_area.titled(&self.title, ("sans-serif", 24))?;
        let chart_area = super::subtitled(chart_area, &self.subtitle)?;
        if !entries.is_empty() {
            let top = legend_area.margin(40, 0, 0, 0);
            draw_legend(&top, self.legend_title.as_deref(), &entries)?;
        }
        let span = y1 - y0;
        let mut chart = ChartBuilder::on(&chart_area)
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .x_labels(10)
            .y_labels(self.y_ticks(y0, y1))
            .x_label_formatter(&|x| fmt_tick(*x))
            .y_label_formatter(&|y| self.y_tick_label(*y, span).unwrap_or_default())
            .axis_desc_style(("sans-serif", 18))
            .label_style(("sans-serif", 14))
            .light_line_style(RGBColor(246, 246, 246))
            .bold_line_style(RGBColor(220, 220, 220))
            .draw()?;
        let axis = |pts: &[(f64, f64)]| -> Vec<(f64, f64)> {
            pts.iter()
                .filter(|p| p.0.is_finite())
                .filter_map(|&(x, y)| Some((x, self.ty(y)?)))
                .collect()
        };
        // Bands first, then the curves in order, then reference lines on top.
        for h in &self.hlines {
            if let (Some((lo, hi)), true) = (h.band, h.y.is_finite()) {
                if let (Some(lo), Some(hi)) = (self.ty(lo), self.ty(hi)) {
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x0, lo), (x1, hi)],
                        h.colour.c().mix(BAND_ALPHA).filled(),
                    )))?;
                }
            }
        }
        for c in &self.curves {
            let Some(iv) = c
                .interval
                .as_ref()
                .filter(|i| i.style == IntervalStyle::Band)
            else {
                continue;
            };
            let upper = axis(&iv.points.iter().map(|p| (p.0, p.2)).collect::<Vec<_>>());
            let lower = axis(&iv.points.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>());
            if upper.len() >= 2 && upper.len() == lower.len() {
                let mut poly = upper;
                poly.extend(lower.into_iter().rev());
                chart.draw_series(std::iter::once(Polygon::new(
                    poly,
                    c.colour.c().mix(BAND_ALPHA).filled(),
                )))?;
            }
        }
        for c in &self.curves {
            let pts = axis(&c.points);
            if c.width > 0 {
                let style = c.colour.c().stroke_width(c.width);
                draw_path(&mut chart, pts.clone(), style, c.dash)?;
            }
            if c.markers {
                let col = c.colour.c();
                chart.draw_series(
                    pts.iter()
                        .map(|&p| Circle::new(p, c.width.max(1) + 2, col.filled())),
                )?;
            }
            if let Some(iv) = c
                .interval
                .as_ref()
                .filter(|i| i.style == IntervalStyle::Bars)
            {
                let style = c.colour.c().stroke_width(1);
                let bars = iv.points.iter().filter_map(|&(x, lo, hi)| {
                    let (lo, hi) = (self.ty(lo)?, self.ty(hi)?);
                    let mid = pts
                        .iter()
                        .find(|p| p.0 == x)
                        .map_or((lo + hi) / 2.0, |p| p.1);
                    Some(ErrorBar::new_vertical(x, lo, mid, hi, style, 8))
                });
                chart.draw_series(bars)?;
            }
        }
        for h in &self.hlines {
            if let Some(y) = self.ty(h.y) {
                let style = h.colour.c().stroke_width(h.width.max(1));
                draw_path(&mut chart, vec![(x0, y), (x1, y)], style, h.dash)?;
            }
        }
        Ok(())
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
        self.draw_in(root)
    }
}

/// Line plots stacked vertically under one title (e.g. all species, then the upper group
/// close up). Each panel keeps its own title, axes and legend; its height is its `size.1`.
#[derive(Clone, Debug)]
pub struct LinePanels {
    pub title: String,
    pub subtitle: String,
    pub panels: Vec<LinePlot>,
}

impl LinePanels {
    const HEADER: u32 = 70;
}

impl Figure for LinePanels {
    fn size(&self) -> (u32, u32) {
        let w = self.panels.iter().map(|p| p.size.0).max().unwrap_or(800);
        let h: u32 = self.panels.iter().map(|p| p.size.1).sum();
        (w, h + Self::HEADER)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        ensure!(!self.panels.is_empty(), "no panels to draw");
        let area = root.titled(&self.title, ("sans-serif", 26))?;
        let area = super::subtitled(area, &self.subtitle)?;
        let (_, h) = area.dim_in_pixel();
        let total: u32 = self.panels.iter().map(|p| p.size.1).sum();
        let mut cuts = Vec::new();
        let mut acc = 0u32;
        for p in &self.panels[..self.panels.len() - 1] {
            acc += p.size.1;
            cuts.push((acc as u64 * h as u64 / total.max(1) as u64) as i32);
        }
        let parts = area.split_by_breakpoints(Vec::<i32>::new(), cuts);
        for (p, a) in self.panels.iter().zip(&parts) {
            p.draw_in(a)?;
        }
        Ok(())
    }
}

/// Most labelled decades on a log axis.
const MAX_LOG_TICKS: f64 = 16.0;

/// Decades between labels of a log axis over [lo, hi] (log10 units): the smallest of 1, 2, 5,
/// 10, 20, … that labels the whole range with at most [`MAX_LOG_TICKS`] ticks.
fn log_step(lo: f64, hi: f64) -> f64 {
    let mut step = 1.0;
    for k in 0.. {
        step = [1.0, 2.0, 5.0][k % 3] * 10f64.powi(k as i32 / 3);
        let ticks = (hi / step).ceil() - (lo / step).floor() + 1.0;
        if ticks <= MAX_LOG_TICKS || k >= 30 {
            break;
        }
    }
    step
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_spans_the_data() {
        // Proportions from 1e-30 to 3e-3: the axis runs over whole decades 1e-30 .. 0.01.
        let mut p = LinePlot::new("t", "x", "y");
        p.log_y = true;
        p.curves.push(Curve::line(
            None,
            vec![(0.0, 6e-4), (1.0, 3e-3), (2.0, 1.2e-30), (3.0, 0.0)],
            Rgb(0, 0, 0),
            1,
        ));
        let (_, (y0, y1)) = p.ranges().unwrap();
        assert_eq!((y0, y1), (-30.0, -2.0));
        // plotters' ticks for the count asked: every second decade, both ends included.
        let ticks =
            plotters::coord::types::RangedCoordf64::from(y0..y1).key_points(p.y_ticks(y0, y1));
        let l: Vec<String> = ticks
            .iter()
            .filter_map(|&v| p.y_tick_label(v, y1 - y0))
            .collect();
        assert_eq!(l.len(), 15, "{l:?}");
        assert_eq!(l.first().unwrap(), "1e-30");
        assert_eq!(l[1], "1e-28");
        assert_eq!(l.last().unwrap(), "0.01");
        assert_eq!(p.y_tick_label(-12.5, 28.0), None);
        // Wider ranges take coarser steps, still ending on labelled decades.
        assert_eq!(log_step(-30.0, -2.0), 2.0);
        assert_eq!(log_step(-100.0, 0.0), 10.0);
        assert_eq!(log_step(-4.0, 0.0), 1.0);
        // A narrow log range labels values between decades.
        let mut q = p.clone();
        q.curves[0].points = vec![(0.0, 2e-3), (1.0, 5e-3)];
        let (_, (y0, y1)) = q.ranges().unwrap();
        assert!(y0 < 2e-3f64.log10() && y1 > 5e-3f64.log10());
        assert_eq!(q.y_tick_label(3e-3f64.log10(), y1 - y0).unwrap(), "0.003");
        // A linear axis labels in fixed decimals for its range.
        q.log_y = false;
        assert_eq!(q.y_tick_label(5e-4, 0.0034).unwrap(), "0.0005");
        assert_eq!(q.y_tick_label(0.0025, 0.0034).unwrap(), "0.0025");
        assert_eq!(q.y_tick_label(20.0, 104.0).unwrap(), "20");
        assert_eq!(q.y_tick_label(0.0, 104.0).unwrap(), "0");
    }

    #[test]
    fn intervals_and_reference_lines_count_in_the_range() {
        let mut p = LinePlot::new("t", "x", "y");
        let mut c = Curve::new("a", vec![(0.0, 50.0), (1.0, 60.0)], Rgb(1, 2, 3));
        c.interval = Some(Interval {
            points: vec![(0.0, 40.0, 58.0), (1.0, 52.0, 70.0)],
            style: IntervalStyle::Band,
        });
        p.curves.push(c);
        p.hlines
            .push(HLine::new(10.0, None, Rgb(0, 0, 0), Dash::Dotted));
        let (_, (y0, y1)) = p.ranges().unwrap();
        assert!(y0 < 10.0 && y1 > 70.0, "{y0} {y1}");
        let e = p.legend_entries();
        assert!(e.iter().any(|e| e.label.contains("95% Wilson")));
    }
}
