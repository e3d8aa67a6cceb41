//! Two-parameter results in the ILCA paper's five resolution bands: band maps (the contour
//! plots of Fig. 10, one panel per tier) and 3D surfaces (Fig. 9).

use super::{draw_legend, fmt_num, Dash, Figure, Rgb};
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
}

impl Heat {
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
            ensure!(
                p.values.len() == self.ys.len()
                    && p.values.iter().all(|r| r.len() == self.xs.len()),
                "panel \"{}\" is not {} × {} values",
                p.title,
                self.ys.len(),
                self.xs.len()
            );
        }
        Ok(())
    }

    /// (columns, rows) of the panel grid: the legend takes one more slot.
    fn layout(&self) -> (usize, usize) {
        let slots = self.panels.len() + 1;
        let cols = if slots <= 2 {
            slots
        } else if slots <= 4 {
            2
        } else {
            3
        };
        (cols, slots.div_ceil(cols))
    }
}

fn band_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let entries: Vec<_> = BANDS
        .iter()
        .rev()
        .map(|b| (b.name.to_string(), b.colour, Dash::Solid, 1, true))
        .collect();
    draw_legend(
        &area.margin(30, 0, 20, 0),
        Some("resolution rate, %"),
        &entries,
    )
}

impl Figure for BandMaps {
    fn size(&self) -> (u32, u32) {
        let (c, r) = self.layout();
        (c as u32 * 560, r as u32 * 470 + 70)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        self.check()?;
        let area = root.titled(&self.title, ("sans-serif", 26))?;
        let area = if self.subtitle.is_empty() {
            area
        } else {
            area.titled(
                &self.subtitle,
                ("sans-serif", 15).into_font().color(&RGBColor(80, 80, 80)),
            )?
        };
        let (cols, rows) = self.layout();
        let slots = area.split_evenly((rows, cols));
        // Index coordinates: cell (ix, iy) spans [ix - 0.5, ix + 0.5] × [iy - 0.5, iy + 0.5];
        // ticks on whole indices are labelled with the parameter values.
        let (nx, ny) = (self.xs.len(), self.ys.len());
        let label = |vals: &[f64], v: f64| -> String {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < vals.len() {
                fmt_num(vals[i as usize])
            } else {
                String::new()
            }
        };
        for (panel, slot) in self.panels.iter().zip(&slots) {
            let caption = match panel.best() {
                Some((v, ix, iy)) => format!(
                    "{}: best {v:.1}% at ({}, {})",
                    panel.title,
                    fmt_num(self.xs[ix]),
                    fmt_num(self.ys[iy])
                ),
                None => panel.title.clone(),
            };
            let mut chart = ChartBuilder::on(slot)
                .margin(14)
                .caption(caption, ("sans-serif", 19))
                .x_label_area_size(44)
                .y_label_area_size(60)
                .build_cartesian_2d(-0.5..nx as f64 - 0.5, -0.5..ny as f64 - 0.5)?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_labels(nx.min(12))
                .y_labels(ny.min(12))
                .x_desc(self.x_label.as_str())
                .y_desc(self.y_label.as_str())
                .x_label_formatter(&|x| label(&self.xs, *x))
                .y_label_formatter(&|y| label(&self.ys, *y))
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
                    let colour = if v.is_finite() {
                        BANDS[band_of(v)].colour.c()
                    } else {
                        RGBColor(255, 255, 255)
                    };
                    cells.push(Rectangle::new(cell(ix, iy), colour.filled()));
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
                                TextStyle::from(font.clone())
                                    .pos(Pos::new(HPos::Center, VPos::Center)),
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
        }
        if let Some(slot) = slots.get(self.panels.len()) {
            band_legend(slot)?;
        }
        Ok(())
    }
}

/// The same data as [`BandMaps`] as 3D surfaces (the paper's Fig. 9): height = rate, each
/// facet coloured by the band of its mean rate.
#[derive(Clone, Debug)]
pub struct Surfaces(pub BandMaps);

impl Figure for Surfaces {
    fn size(&self) -> (u32, u32) {
        self.0.size()
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
        let area = root.titled(&m.title, ("sans-serif", 26))?;
        let area = if m.subtitle.is_empty() {
            area
        } else {
            area.titled(
                &m.subtitle,
                ("sans-serif", 15).into_font().color(&RGBColor(80, 80, 80)),
            )?
        };
        let (cols, rows) = m.layout();
        let slots = area.split_evenly((rows, cols));
        let (x0, x1) = (m.xs[0], m.xs[m.xs.len() - 1]);
        let (z0, z1) = (m.ys[0], m.ys[m.ys.len() - 1]);
        for (panel, slot) in m.panels.iter().zip(&slots) {
            let mut chart = ChartBuilder::on(slot)
                .margin(10)
                .caption(&panel.title, ("sans-serif", 20))
                .build_cartesian_3d(x0..x1, 0.0..100.0, z0..z1)?;
            chart.with_projection(|mut pb| {
                pb.yaw = 0.6;
                pb.pitch = 0.45;
                pb.scale = 0.8;
                pb.into_matrix()
            });
            chart
                .configure_axes()
                .label_style(("sans-serif", 12))
                .x_formatter(&|x| fmt_num(*x))
                .z_formatter(&|z| fmt_num(*z))
                .light_grid_style(RGBColor(225, 225, 225))
                .max_light_lines(2)
                .draw()?;
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
                    let pts: Vec<(f64, f64, f64)> = corners
                        .iter()
                        .zip(&vals)
                        .map(|(&(a, b), &v)| (m.xs[a], v, m.ys[b]))
                        .collect();
                    let colour = BANDS[band_of(mean)].colour.c();
                    facets.push((ix + iy, Polygon::new(pts, colour.filled())));
                }
            }
            facets.sort_by_key(|f| f.0);
            let facets = facets.into_iter().map(|f| f.1);
            chart.draw_series(facets)?;
            let axis_font = ("sans-serif", 14).into_font();
            chart.draw_series([
                Text::new(
                    m.x_short.clone(),
                    ((x0 + x1) / 2.0, 0.0, z1 + 0.25 * (z1 - z0)),
                    axis_font.clone(),
                ),
                Text::new(
                    m.y_short.clone(),
                    (x1 + 0.2 * (x1 - x0), 0.0, (z0 + z1) / 2.0),
                    axis_font.clone(),
                ),
                Text::new("rate %".to_string(), (x0, 100.0, z0), axis_font),
            ])?;
        }
        if let Some(slot) = slots.get(m.panels.len()) {
            band_legend(slot)?;
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
    fn best_is_found() {
        let h = Heat {
            title: String::new(),
            values: vec![vec![1.0, f64::NAN], vec![7.0, 7.0]],
        };
        assert_eq!(h.best(), Some((7.0, 0, 1)));
    }
}
