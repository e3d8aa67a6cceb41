//! Two-parameter results in the ILCA paper's five resolution bands: band maps (the contour
//! plots of Fig. 10, one panel per tier) and 3D surfaces (Fig. 9).

use super::{draw_legend, fmt_num, ramp, shade, Figure, LegendEntry, Rgb};
use anyhow::{ensure, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A resolution band: rates in [lo, hi) percent (the last one includes 100).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    pub name: &'static str,
    pub lo: f64,
    pub hi: f64,
    pub colour: Rgb,
}

/// The paper's bands (Sect. 5.3) in the paper's colours: Very Low [0, 24) blue, Low [24, 48)
/// orange, Average [48, 72) gray, Good [72, 96) yellow, Excellent [96, 100] green.
pub const BANDS: [Band; 5] = [
    Band {
        name: "Very Low [0, 24)",
        lo: 0.0,
        hi: 24.0,
        colour: Rgb(0, 114, 189),
    },
    Band {
        name: "Low [24, 48)",
        lo: 24.0,
        hi: 48.0,
        colour: Rgb(217, 83, 25),
    },
    Band {
        name: "Average [48, 72)",
        lo: 48.0,
        hi: 72.0,
        colour: Rgb(160, 160, 160),
    },
    Band {
        name: "Good [72, 96)",
        lo: 72.0,
        hi: 96.0,
        colour: Rgb(237, 177, 32),
    },
    Band {
        name: "Excellent [96, 100]",
        lo: 96.0,
        hi: 100.0,
        colour: Rgb(119, 172, 48),
    },
];

/// Index into [`BANDS`] of a resolution rate in percent (values outside [0, 100] are clamped).
pub fn band_of(pct: f64) -> usize {
    BANDS
        .iter()
        .position(|b| pct < b.hi)
        .unwrap_or(BANDS.len() - 1)
}

/// One panel: rates in percent, `values[iy][ix]` for `ys[iy]`, `xs[ix]`; NaN = not measured.
#[derive(Clone, Debug)]
pub struct Heat {
    /// Panel title, e.g. "(d) hard".
    pub title: String,
    pub values: Vec<Vec<f64>>,
    /// 95% interval (low, high) of each rate in percent, same shape as `values`; the caption
    /// gives the best rate's.
    pub intervals: Option<Vec<Vec<(f64, f64)>>>,
}

impl Heat {
    /// A panel without intervals.
    pub fn new(title: impl Into<String>, values: Vec<Vec<f64>>) -> Heat {
        Heat {
            title: title.into(),
            values,
            intervals: None,
        }
    }

    /// The largest rate and where it is: (rate, ix, iy), the first in row-major order on ties.
    pub fn best(&self) -> Option<(f64, usize, usize)> {
        let mut best: Option<(f64, usize, usize)> = None;
        for (iy, row) in self.values.iter().enumerate() {
            for (ix, &v) in row.iter().enumerate() {
                if v.is_finite() && best.is_none_or(|b| v > b.0) {
                    best = Some((v, ix, iy));
                }
            }
        }
        best
    }

    /// "(a) overall: best 69.0% (67.5–70.4) at lp/lr = 30, sr = 20".
    fn caption(&self, x_name: &str, xs: &[f64], y_name: &str, ys: &[f64]) -> String {
        let Some((v, ix, iy)) = self.best() else {
            return self.title.clone();
        };
        let ci = self
            .intervals
            .as_ref()
            .and_then(|iv| iv.get(iy)?.get(ix).copied())
            .filter(|(lo, hi)| lo.is_finite() && hi.is_finite())
            .map_or(String::new(), |(lo, hi)| format!(" ({lo:.1}–{hi:.1})"));
        format!(
            "{}: best {v:.1}%{ci} at {x_name} = {}, {y_name} = {}",
            self.title,
            fmt_num(xs[ix]),
            fmt_num(ys[iy])
        )
    }
}

/// Band maps of a two-parameter sweep: a panel per tier sharing the axes, a band legend.
#[derive(Clone, Debug)]
pub struct BandMaps {
    pub title: String,
    pub subtitle: String,
    pub x_label: String,
    pub y_label: String,
    /// Short axis names for the 3D surfaces (e.g. "lp/lr").
    pub x_short: String,
    pub y_short: String,
    /// Parameter values along x and y, ascending.
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
    pub panels: Vec<Heat>,
    /// Write each cell's rate in it (default: when the grid is at most 12 × 12).
    pub annotate: bool,
}

impl BandMaps {
    pub fn new(x_label: &str, y_label: &str, xs: Vec<f64>, ys: Vec<f64>) -> BandMaps {
        let annotate = xs.len() <= 12 && ys.len() <= 12;
        BandMaps {
            title: String::new(),
            subtitle: String::new(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_short: x_label.into(),
            y_short: y_label.into(),
            xs,
            ys,
            panels: Vec::new(),
            annotate,
        }
    }

    fn check(&self) -> Result<()> {
        ensure!(
            !self.xs.is_empty() && !self.ys.is_empty(),
            "a band map needs values on both axes"
        );
        ensure!(
            !self.panels.is_empty(),
            "a band map needs at least one panel"
        );
        for p in &self.panels {
            let (nx, ny) = (self.xs.len(), self.ys.len());
            let values_ok = p.values.len() == ny && p.values.iter().all(|r| r.len() == nx);
            let intervals_ok = p
                .intervals
                .as_ref()
                .is_none_or(|iv| iv.len() == ny && iv.iter().all(|r| r.len() == nx));
            ensure!(
                values_ok && intervals_ok,
                "panel \"{}\" is not {} × {} values",
                p.title,
                self.ys.len(),
                self.xs.len()
            );
        }
        Ok(())
    }

    /// (columns, rows) of the panel grid: the legend takes one more slot; at most
    /// `max_cols` columns.
    fn layout(&self, max_cols: usize) -> (usize, usize) {
        let slots = self.panels.len() + 1;
        let cols = if slots <= 2 {
            slots
        } else if slots <= 4 {
            2
        } else {
            3
        }
        .min(max_cols);
        (cols, slots.div_ceil(cols))
    }

    /// Title and subtitle over the whole figure; returns the area below them.
    fn titled<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<DrawingArea<DB, Shift>>
    where
        DB::ErrorType: 'static,
    {
        let area = root.titled(&self.title, ("sans-serif", 26))?;
        super::subtitled(area, &self.subtitle)
    }

    /// One panel as a grid of coloured cells (`colour` of a rate in percent), the best cell
    /// outlined; with `annotate`, each cell's rate written in it.
    fn draw_cells<DB: DrawingBackend>(
        &self,
        slot: &DrawingArea<DB, Shift>,
        panel: &Heat,
        caption: Option<String>,
        colour: &dyn Fn(f64) -> RGBColor,
    ) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        // Index coordinates: cell (ix, iy) spans [ix - 0.5, ix + 0.5] × [iy - 0.5, iy + 0.5];
        // ticks on whole indices are labelled with the parameter values.
        let (nx, ny) = (self.xs.len(), self.ys.len());
        let (x_ticks, y_ticks) = (labelled_indices(&self.xs), labelled_indices(&self.ys));
        let label = |vals: &[f64], ticks: &[usize], v: f64| -> String {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && ticks.contains(&(i as usize)) {
                fmt_num(vals[i as usize])
            } else {
                String::new()
            }
        };
        let mut builder = ChartBuilder::on(slot);
        builder
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(60);
        if let Some(c) = caption {
            builder.caption(c, ("sans-serif", 19));
        }
        let mut chart = builder.build_cartesian_2d(-0.5..nx as f64 - 0.5, -0.5..ny as f64 - 0.5)?;
        chart
            .configure_mesh()
            .disable_mesh()
            // A key point on every cell (plotters picks step 1 when it may give nx + 1);
            // only the chosen ones get a label.
            .x_labels(nx + 1)
            .y_labels(ny + 1)
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .x_label_formatter(&|x| label(&self.xs, &x_ticks, *x))
            .y_label_formatter(&|y| label(&self.ys, &y_ticks, *y))
            .axis_desc_style(("sans-serif", 16))
            .label_style(("sans-serif", 13))
            .draw()?;
        let cell = |ix: usize, iy: usize| {
            let (x, y) = (ix as f64, iy as f64);
            [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)]
        };
        let mut cells = Vec::new();
        for (iy, row) in panel.values.iter().enumerate() {
            for (ix, &v) in row.iter().enumerate() {
                let c = if v.is_finite() {
                    colour(v)
                } else {
                    RGBColor(255, 255, 255)
                };
                cells.push(Rectangle::new(cell(ix, iy), c.filled()));
            }
        }
        chart.draw_series(cells)?;
        if self.annotate {
            let font = ("sans-serif", 12).into_font();
            let mut texts = Vec::new();
            for (iy, row) in panel.values.iter().enumerate() {
                for (ix, &v) in row.iter().enumerate() {
                    if v.is_finite() {
                        texts.push(Text::new(
                            format!("{v:.0}"),
                            (ix as f64, iy as f64),
                            TextStyle::from(font.clone()).pos(Pos::new(HPos::Center, VPos::Center)),
                        ));
                    }
                }
            }
            chart.draw_series(texts)?;
        }
        if let Some((_, ix, iy)) = panel.best() {
            chart.draw_series(std::iter::once(Rectangle::new(
                cell(ix, iy),
                BLACK.stroke_width(3),
            )))?;
        }
        Ok(())
    }
}

/// Most labelled cells along a heat-map axis.
const MAX_CELL_LABELS: usize = 10;

/// Which cells of an axis with parameter values `vals` get a label: those on multiples of the
/// smallest round step (1, 2, 2.5, 5 × 10^k) that gives 3 to [`MAX_CELL_LABELS`] of them, evenly
/// spaced (lp/lr 1..30 → 5, 10, …, 30), or, when the values are not round, evenly spaced cells,
/// the last included.
pub(crate) fn labelled_indices(vals: &[f64]) -> Vec<usize> {
    let n = vals.len();
    if n <= MAX_CELL_LABELS {
        return (0..n).collect();
    }
    let span = vals.iter().fold(0f64, |m, v| m.max(v.abs()));
    if span.is_finite() && span > 0.0 {
        let start = 10f64.powf((span / 1e4).log10().floor());
        for k in 0..24 {
            let step = [1.0, 2.0, 2.5, 5.0][k % 4] * start * 10f64.powi(k as i32 / 4);
            let on: Vec<usize> = (0..n)
                .filter(|&i| {
                    let q = vals[i] / step;
                    (q - q.round()).abs() < 1e-6
                })
                .collect();
            let regular = on.windows(3).all(|w| w[2] - w[1] == w[1] - w[0]);
            if (3..=MAX_CELL_LABELS).contains(&on.len()) && regular {
                return on;
            }
        }
    }
    let every = n.div_ceil(MAX_CELL_LABELS);
    (0..n)
        .rev()
        .step_by(every)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect()
}

fn band_entries() -> Vec<LegendEntry> {
    BANDS
        .iter()
        .rev()
        .map(|b| LegendEntry::boxed(b.name, b.colour))
        .collect()
}

impl Figure for BandMaps {
    fn size(&self) -> (u32, u32) {
        let (c, r) = self.layout(3);
        (c as u32 * 560, r as u32 * 470 + 70)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        self.check()?;
        let area = self.titled(root)?;
        let (cols, rows) = self.layout(3);
        let slots = area.split_evenly((rows, cols));
        let band_colour = |v: f64| BANDS[band_of(v)].colour.c();
        for (panel, slot) in self.panels.iter().zip(&slots) {
            let caption = panel.caption(&self.x_short, &self.xs, &self.y_short, &self.ys);
            self.draw_cells(slot, panel, Some(caption), &band_colour)?;
        }
        if let Some(slot) = slots.get(self.panels.len()) {
            draw_legend(
                &slot.margin(30, 0, 20, 0),
                Some("resolution rate, %"),
                &band_entries(),
            )?;
        }
        Ok(())
    }
}

/// The same data as [`BandMaps`] as 3D surfaces (the paper's Fig. 9): height = rate, each
/// facet coloured by the band of its mean rate and shaded by its slope; beside each surface
/// a heat map of the same rates on a continuous colour scale, for reading values.
#[derive(Clone, Debug)]
pub struct Surfaces(pub BandMaps);

/// Pixel size of one tier's pair (surface and heat map).
const PAIR: (u32, u32) = (900, 430);

/// Light direction in the unit cube (x, rate, depth): from above, front left.
const LIGHT: [f64; 3] = [-0.35, 0.85, -0.4];

impl Surfaces {
    /// One tier's surface in `area`, its axes named next to their tick labels.
    fn draw_surface<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        panel: &Heat,
    ) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        let m = &self.0;
        let (x0, x1) = (m.xs[0], m.xs[m.xs.len() - 1]);
        let (z0, z1) = (m.ys[0], m.ys[m.ys.len() - 1]);
        let mut chart = ChartBuilder::on(area)
            .margin_top(4)
            .margin_bottom(26)
            .margin_left(30)
            .margin_right(36)
            .build_cartesian_3d(x0..x1, 0.0..100.0, z0..z1)?;
        chart.with_projection(|mut pb| {
            pb.yaw = 0.6;
            pb.pitch = 0.45;
            pb.scale = 0.78;
            pb.into_matrix()
        });
        chart
            .configure_axes()
            .label_style(("sans-serif", 12))
            .x_labels(4)
            .y_labels(6)
            .z_labels(4)
            // The x and depth axes meet at the corner (x1, z1): its label is the depth's.
            .x_formatter(&|x| {
                if (x1 - *x).abs() < 0.08 * (x1 - x0) {
                    String::new()
                } else {
                    fmt_num(*x)
                }
            })
            .y_formatter(&|y| fmt_num(*y))
            .z_formatter(&|z| fmt_num(*z))
            .light_grid_style(RGBColor(230, 230, 230))
            .max_light_lines(1)
            .draw()?;
        let unit =
            |x: f64, rate: f64, z: f64| [(x - x0) / (x1 - x0), rate / 100.0, (z - z0) / (z1 - z0)];
        // Painter's order: at this yaw the corner (x0, z0) is farthest from the viewer, so
        // facets are drawn by increasing ix + iy.
        let mut facets = Vec::new();
        for iy in 0..m.ys.len() - 1 {
            for ix in 0..m.xs.len() - 1 {
                let corners = [(ix, iy), (ix, iy + 1), (ix + 1, iy + 1), (ix + 1, iy)];
                let vals: Vec<f64> = corners.iter().map(|&(a, b)| panel.values[b][a]).collect();
                if vals.iter().any(|v| !v.is_finite()) {
                    continue;
                }
                let mean = vals.iter().sum::<f64>() / 4.0;
                let p: Vec<[f64; 3]> = corners
                    .iter()
                    .zip(&vals)
                    .map(|(&(a, b), &v)| unit(m.xs[a], v, m.ys[b]))
                    .collect();
                let light = lambert(sub(p[2], p[0]), sub(p[1], p[3]));
                let colour = shade(BANDS[band_of(mean)].colour, 0.45 + 0.55 * light);
                let pts: Vec<(f64, f64, f64)> = corners
                    .iter()
                    .zip(&vals)
                    .map(|(&(a, b), &v)| (m.xs[a], v, m.ys[b]))
                    .collect();
                facets.push((
                    ix + iy,
                    Polygon::new(pts.clone(), colour.c().filled()),
                    PathElement::new(
                        pts.into_iter()
                            .chain(std::iter::once((m.xs[ix], vals[0], m.ys[iy])))
                            .collect::<Vec<_>>(),
                        shade(colour, 0.8).c().stroke_width(1),
                    ),
                ));
            }
        }
        facets.sort_by_key(|f| f.0);
        for (_, face, edge) in facets {
            chart.draw_series([face])?;
            chart.draw_series([edge])?;
        }
        // Axis names in pixels, pushed out from the middle of each labelled edge (plotters
        // puts the tick labels on the near edges), so that they meet neither labels nor each
        // other.
        let pa = chart.plotting_area();
        let px = |x: f64, y: f64, z: f64| pa.map_coordinate(&(x, y, z));
        // map_coordinate gives backend pixels; text in `area` is placed relative to it.
        let root = area.clone();
        let offset = |p: (i32, i32)| {
            let (rx, ry) = root.get_base_pixel();
            (p.0 - rx, p.1 - ry)
        };
        let font = ("sans-serif", 14).into_font().style(FontStyle::Bold);
        let (cx, cy) = offset(px((x0 + x1) / 2.0, 50.0, (z0 + z1) / 2.0));
        let name = |text: &str, at: (i32, i32), push: i32| -> Text<'_, (i32, i32), String> {
            let (dx, dy) = ((at.0 - cx) as f64, (at.1 - cy) as f64);
            let len = (dx * dx + dy * dy).sqrt().max(1.0);
            let p = (
                at.0 + (dx / len * push as f64) as i32,
                at.1 + (dy / len * push as f64) as i32,
            );
            Text::new(
                text.to_string(),
                p,
                TextStyle::from(font.clone()).pos(Pos::new(HPos::Center, VPos::Center)),
            )
        };
        root.draw(&name(&m.x_short, offset(px((x0 + x1) / 2.0, 0.0, z1)), 34))?;
        root.draw(&name(&m.y_short, offset(px(x1, 0.0, (z0 + z1) / 2.0)), 34))?;
        let top = offset(px(x0, 100.0, z1));
        root.draw(&Text::new(
            "rate %".to_string(),
            (top.0, top.1 - 16),
            TextStyle::from(font).pos(Pos::new(HPos::Center, VPos::Bottom)),
        ))?;
        Ok(())
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Lambert lighting in [0, 1] of the facet spanned by the diagonals `d1`, `d2`.
fn lambert(d1: [f64; 3], d2: [f64; 3]) -> f64 {
    let n = [
        d1[1] * d2[2] - d1[2] * d2[1],
        d1[2] * d2[0] - d1[0] * d2[2],
        d1[0] * d2[1] - d1[1] * d2[0],
    ];
    let norm = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let (ln, nn) = (norm(LIGHT), norm(n));
    if nn == 0.0 {
        return 1.0;
    }
    // The facet's upper side faces the light.
    let up = if n[1] < 0.0 { -1.0 } else { 1.0 };
    let dot = up * (n[0] * LIGHT[0] + n[1] * LIGHT[1] + n[2] * LIGHT[2]) / (nn * ln);
    dot.max(0.0)
}

/// A vertical colour bar of [`ramp`] over 0..100 % with ticks.
fn colour_bar<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let (x, y0, w, h) = (12, 30, 26, 240);
    area.draw(&Text::new(
        title.to_string(),
        (8, 6),
        ("sans-serif", 15).into_font().style(FontStyle::Bold),
    ))?;
    for i in 0..h {
        let t = 1.0 - i as f64 / (h - 1) as f64;
        area.draw(&Rectangle::new(
            [(x, y0 + i), (x + w, y0 + i + 1)],
            ramp(t).c().filled(),
        ))?;
    }
    area.draw(&Rectangle::new(
        [(x, y0), (x + w, y0 + h)],
        BLACK.stroke_width(1),
    ))?;
    for v in (0..=100).step_by(20) {
        let y = y0 + h - 1 - (v as f64 / 100.0 * (h - 1) as f64).round() as i32;
        area.draw(&PathElement::new(
            vec![(x + w, y), (x + w + 5, y)],
            BLACK.stroke_width(1),
        ))?;
        area.draw(&Text::new(
            v.to_string(),
            (x + w + 9, y),
            TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

impl Figure for Surfaces {
    fn size(&self) -> (u32, u32) {
        let (c, r) = self.0.layout(2);
        (c as u32 * PAIR.0, r as u32 * PAIR.1 + 80)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        let m = &self.0;
        m.check()?;
        ensure!(
            m.xs.len() >= 2 && m.ys.len() >= 2,
            "a surface needs at least two values on each axis"
        );
        let area = m.titled(root)?;
        let (cols, rows) = m.layout(2);
        let slots = area.split_evenly((rows, cols));
        let heat_colour = |v: f64| ramp(v / 100.0).c();
        for (panel, slot) in m.panels.iter().zip(&slots) {
            let caption = panel.caption(&m.x_short, &m.xs, &m.y_short, &m.ys);
            let slot = slot.titled(&caption, ("sans-serif", 19))?;
            let (w, _) = slot.dim_in_pixel();
            let (left, right) = slot.split_horizontally(w * 52 / 100);
            self.draw_surface(&left, panel)?;
            m.draw_cells(&right, panel, None, &heat_colour)?;
        }
        if let Some(slot) = slots.get(m.panels.len()) {
            let (w, _) = slot.dim_in_pixel();
            let (bands, bar) = slot.margin(30, 0, 20, 0).split_horizontally(w * 40 / 100);
            draw_legend(&bands, Some("surfaces: rate, %"), &band_entries())?;
            colour_bar(&bar, "heat maps: rate, %")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_follow_the_paper() {
        assert_eq!(band_of(0.0), 0);
        assert_eq!(band_of(23.99), 0);
        assert_eq!(band_of(24.0), 1);
        assert_eq!(band_of(71.9), 2);
        assert_eq!(band_of(72.0), 3);
        assert_eq!(band_of(95.99), 3);
        assert_eq!(band_of(96.0), 4);
        assert_eq!(band_of(100.0), 4);
    }

    #[test]
    fn heat_map_labels_fall_on_round_values() {
        let ratios: Vec<f64> = (1..=30).map(f64::from).collect();
        let picked =
            |v: &[f64]| -> Vec<f64> { labelled_indices(v).into_iter().map(|i| v[i]).collect() };
        assert_eq!(picked(&ratios), [5.0, 10.0, 15.0, 20.0, 25.0, 30.0]);
        let sr: Vec<f64> = (1..=15).map(|k| 10.0 * k as f64).collect();
        assert_eq!(picked(&sr), [20.0, 40.0, 60.0, 80.0, 100.0, 120.0, 140.0]);
        let lp: Vec<f64> = (1..=12).map(|k| 0.5 * k as f64).collect();
        assert_eq!(picked(&lp), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        // Few values: all; values that are not round: evenly spaced, the last included.
        assert_eq!(labelled_indices(&[0.3, 0.7, 1.1]), [0, 1, 2]);
        let odd: Vec<f64> = (0..23)
            .map(|k| 0.1 + k as f64 / std::f64::consts::PI)
            .collect();
        let l = labelled_indices(&odd);
        assert!(l.len() <= MAX_CELL_LABELS && l.len() >= 5, "{l:?}");
        assert_eq!(*l.last().unwrap(), 22);
    }

    #[test]
    fn best_is_found() {
        let h = Heat::new("", vec![vec![1.0, f64::NAN], vec![7.0, 7.0]]);
        assert_eq!(h.best(), Some((7.0, 0, 1)));
    }
}
