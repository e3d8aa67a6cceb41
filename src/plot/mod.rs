//! Figures as PNG or SVG (chosen by the file extension), drawn with `plotters` from plain data.
//!
//! Every figure is a plain struct the caller fills ([`LinePlot`], [`BandMaps`], [`Surfaces`],
//! [`IlcaTrace`]) and writes with [`save`]. The builders that turn sweep results into the ILCA
//! paper's figures live in [`crate::sweep::figures`]; this module knows nothing about solvers.
//!
//! Colours are fixed so that figures can be compared: [`tier_colour`] gives every tier (easy,
//! medium, hard, evil, all) the same colour in every figure, [`BANDS`] are the paper's five
//! resolution bands in the paper's colours, and [`digit_colour`] colours the digits of trace
//! pictures.

mod bands;
mod lines;
mod trace;

pub use bands::{band_of, Band, BandMaps, Heat, Surfaces, BANDS};
pub use lines::{Curve, Dash, HLine, LinePlot};
pub use trace::{check_trace, IlcaTrace, ProbabilityPanel, TraceGrids};

use anyhow::{bail, Context, Result};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::path::Path;

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    pub(crate) fn c(self) -> RGBColor {
        RGBColor(self.0, self.1, self.2)
    }
}

pub const BLACK_RGB: Rgb = Rgb(0, 0, 0);
/// Gray of the per-setting lines in the "vs difficulty" plots (the paper's Fig. 5b–8b).
pub const GRAY_RGB: Rgb = Rgb(170, 170, 170);
/// Dark blue of the average line in those plots.
pub const DARK_BLUE: Rgb = Rgb(0, 40, 120);

/// Ten distinguishable colours (Tableau 10), used for anything without a fixed colour.
pub const PALETTE: [Rgb; 10] = [
    Rgb(31, 119, 180),
    Rgb(255, 127, 14),
    Rgb(44, 160, 44),
    Rgb(214, 39, 40),
    Rgb(148, 103, 189),
    Rgb(140, 86, 75),
    Rgb(227, 119, 194),
    Rgb(127, 127, 127),
    Rgb(188, 189, 34),
    Rgb(23, 190, 207),
];

/// The colour of a tier in every figure: easy green, medium blue, hard orange, evil red,
/// all/overall black; any other label gets a palette colour by its `index` (its position among
/// the labels of the figure), skipping the tier colours.
pub fn tier_colour(label: &str, index: usize) -> Rgb {
    let l = label.to_ascii_lowercase();
    let has = |w: &str| l.contains(w);
    if has("easy") {
        PALETTE[2]
    } else if has("medium") {
        PALETTE[0]
    } else if has("hard") {
        PALETTE[1]
    } else if has("evil") {
        PALETTE[3]
    } else if l == "all" || has("overall") {
        BLACK_RGB
    } else {
        const OTHERS: [usize; 6] = [4, 5, 6, 8, 9, 7];
        PALETTE[OTHERS[index % OTHERS.len()]]
    }
}

/// Colour of digit `v` (1-based) of an n-digit puzzle: the palette for n ≤ 10, otherwise n hues.
pub fn digit_colour(v: usize, n: usize) -> Rgb {
    if n <= PALETTE.len() {
        return PALETTE[(v.max(1) - 1) % PALETTE.len()];
    }
    let h = (v.max(1) - 1) as f64 / n as f64;
    let l = if v.is_multiple_of(2) { 0.42 } else { 0.6 };
    let c = HSLColor(h, 0.7, l).to_backend_color().rgb;
    Rgb(c.0, c.1, c.2)
}

/// Output format of a figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Png,
    Svg,
}

impl Format {
    pub fn ext(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Svg => "svg",
        }
    }

    /// The format named by a path's extension.
    pub fn of_path(path: &Path) -> Result<Format> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .as_deref()
        {
            Some("png") => Ok(Format::Png),
            Some("svg") => Ok(Format::Svg),
            _ => bail!("{}: a figure file must end in .png or .svg", path.display()),
        }
    }
}

/// Something that can be drawn on any plotters backend.
pub trait Figure {
    /// Image size in pixels.
    fn size(&self) -> (u32, u32);
    /// Draws the figure on `root` (already filled white).
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static;
}

/// Writes `fig` to `path`, PNG or SVG by the extension; parent folders must exist.
pub fn save(fig: &impl Figure, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let size = fig.size();
    let what = || format!("cannot write the figure {}", path.display());
    match Format::of_path(path)? {
        Format::Png => {
            let root = BitMapBackend::new(path, size).into_drawing_area();
            root.fill(&WHITE).with_context(what)?;
            fig.draw(&root).with_context(what)?;
            root.present().with_context(what)?;
        }
        Format::Svg => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            root.fill(&WHITE).with_context(what)?;
            fig.draw(&root).with_context(what)?;
            root.present().with_context(what)?;
        }
    }
    Ok(())
}

/// A number for axis ticks and labels: no trailing zeros, at most 4 decimals.
pub fn fmt_num(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if x.abs() >= 1e5 || x.abs() < 1e-3 {
        // 3 significant digits, trailing zeros of the mantissa dropped: 1e-4, 2.5e5, 5.87e-4.
        let s = format!("{x:.2e}");
        let (m, e) = s.split_once('e').expect("exponent form");
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{m}e{e}");
    }
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Draws a legend (coloured line or box + label per entry) in `area`, one entry per line.
pub(crate) fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: Option<&str>,
    entries: &[(String, Rgb, Dash, u32, bool)],
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let font = ("sans-serif", 15).into_font();
    let mut y = 30;
    if let Some(t) = title {
        area.draw(&Text::new(
            t.to_string(),
            (8, y - 10),
            font.clone().style(FontStyle::Bold),
        ))?;
        y += 22;
    }
    for (label, colour, dash, width, boxed) in entries {
        let col = colour.c();
        if *boxed {
            area.draw(&Rectangle::new([(10, y - 6), (34, y + 8)], col.filled()))?;
        } else {
            let style = col.stroke_width(*width.max(&1));
            match dash {
                Dash::Solid => area.draw(&PathElement::new(vec![(8, y), (38, y)], style))?,
                Dash::Dashed => {
                    area.draw(&DashedPathElement::new(vec![(8, y), (38, y)], 6, 4, style))?
                }
                Dash::Dotted => {
                    area.draw(&DashedPathElement::new(vec![(8, y), (38, y)], 2, 3, style))?
                }
            }
        }
        area.draw(&Text::new(label.clone(), (44, y - 8), font.clone()))?;
        y += 22;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_keep_their_colours() {
        assert_eq!(tier_colour("easy", 3), tier_colour("Easy-100", 0));
        assert_ne!(tier_colour("hard", 0), tier_colour("evil", 0));
        assert_eq!(tier_colour("all", 0), BLACK_RGB);
        let others: Vec<_> = (0..4).map(|i| tier_colour("x", i)).collect();
        for t in ["easy", "medium", "hard", "evil"] {
            assert!(!others.contains(&tier_colour(t, 0)));
        }
    }

    #[test]
    fn formats_come_from_extensions() {
        assert_eq!(Format::of_path(Path::new("a/b.PNG")).unwrap(), Format::Png);
        assert_eq!(Format::of_path(Path::new("b.svg")).unwrap(), Format::Svg);
        let e = Format::of_path(Path::new("b.pdf")).unwrap_err().to_string();
        assert!(e.contains(".png or .svg"), "{e}");
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(fmt_num(0.175), "0.175");
        assert_eq!(fmt_num(20.0), "20");
        assert_eq!(fmt_num(1.0 / 1703.0), "5.87e-4");
        assert_eq!(fmt_num(1e-4), "1e-4");
        assert_eq!(fmt_num(250000.0), "2.5e5");
        assert_eq!(fmt_num(0.1 + 0.2), "0.3");
    }

    #[test]
    fn digit_colours_are_distinct() {
        for n in [9usize, 16, 25] {
            let c: Vec<_> = (1..=n).map(|v| digit_colour(v, n)).collect();
            for i in 0..n {
                for j in i + 1..n {
                    assert_ne!(c[i], c[j], "n = {n}: digits {} and {}", i + 1, j + 1);
                }
            }
        }
    }
}
