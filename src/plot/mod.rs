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
mod wide;

pub use bands::{band_of, Band, BandMaps, Heat, Surfaces, BANDS};
pub use lines::{Curve, Dash, HLine, Interval, IntervalStyle, LinePanels, LinePlot};
pub use trace::{cell_history, check_trace, IlcaTrace, ProbabilityPanel, TraceGrids};
pub use wide::{draw_lines, LinesSpec, Wide};

use anyhow::{bail, ensure, Context, Result};
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

/// Most pixels a figure may have (a 100-megapixel PNG is 300 MB in memory).
const MAX_PIXELS: u64 = 100_000_000;

/// Draws `fig` in memory: the bytes of a PNG or SVG file.
pub fn render(fig: &impl Figure, format: Format) -> Result<Vec<u8>> {
    let (w, h) = fig.size();
    ensure!(
        w > 0 && h > 0 && w as u64 * h as u64 <= MAX_PIXELS,
        "a figure of {w} x {h} pixels is empty or too large (at most {MAX_PIXELS} pixels)"
    );
    match format {
        Format::Png => {
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
                root.fill(&WHITE)?;
                fig.draw(&root)?;
                sign(&root)?;
                root.present()?;
            }
            let mut out = Vec::new();
            let mut enc = png::Encoder::new(&mut out, w, h);
            enc.add_text_chunk("Software".into(), signature())?;
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            // Figures are mostly flat colour: the best compression costs little time here.
            enc.set_compression(png::Compression::Best);
            enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
            let mut writer = enc.write_header()?;
            writer.write_image_data(&rgb)?;
            writer.finish()?;
            Ok(out)
        }
        Format::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                root.fill(&WHITE)?;
                fig.draw(&root)?;
                sign(&root)?;
                root.present()?;
            }
            Ok(svg.into_bytes())
        }
    }
}

/// The build that drew a figure, as its corner note and PNG `Software` text says it.
fn signature() -> String {
    format!("gpu-sudoku {}", crate::build_info::BUILD.short())
}

/// Writes [`signature`] small and light in the bottom-right corner, where figures keep a margin.
fn sign<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let text = signature();
    let font = ("sans-serif", 11)
        .into_font()
        .color(&RGBColor(150, 150, 150));
    let (w, h) = root.dim_in_pixel();
    let tw = root
        .estimate_text_size(&text, &font)
        .map(|(tw, _)| tw)
        .unwrap_or(6 * text.chars().count() as u32);
    let x = w.saturating_sub(tw + 4) as i32;
    root.draw_text(&text, &font, (x, h.saturating_sub(14) as i32))?;
    Ok(())
}

/// Writes `fig` to `path`, PNG or SVG by the extension; parent folders must exist.
pub fn save(fig: &impl Figure, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let what = || format!("cannot write the figure {}", path.display());
    let bytes = render(fig, Format::of_path(path)?).with_context(what)?;
    std::fs::write(path, bytes).with_context(what)
}

/// A number for axis ticks and labels: no trailing zeros, at most 4 decimals.
pub fn fmt_num(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return x.to_string(); // inf, -inf, NaN: messages about bad values show them as given
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

/// An axis tick: whole numbers from 10,000 below 10⁹ with thousands separators (generations:
/// 750,000 rather than 7.5e5), anything else as [`fmt_num`].
pub fn fmt_tick(x: f64) -> String {
    if x.fract() != 0.0 || !(1e4..1e9).contains(&x.abs()) {
        return fmt_num(x);
    }
    let digits = format!("{}", x.abs() as u64);
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if x < 0.0 {
        out.insert(0, '-');
    }
    out
}

/// What a legend entry shows before its label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mark {
    Line(Dash, u32),
    /// A filled box (a band, an area, a colour class).
    Box,
    /// An error bar.
    Bar,
    /// A dot (markers without a line).
    Dot,
    /// Text only (a note under the entries).
    Note,
}

/// One line of a legend.
#[derive(Clone, Debug)]
pub(crate) struct LegendEntry {
    pub label: String,
    pub colour: Rgb,
    pub mark: Mark,
}

impl LegendEntry {
    pub fn line(label: impl Into<String>, colour: Rgb, dash: Dash, width: u32) -> Self {
        LegendEntry {
            label: label.into(),
            colour,
            mark: Mark::Line(dash, width),
        }
    }

    pub fn boxed(label: impl Into<String>, colour: Rgb) -> Self {
        LegendEntry {
            label: label.into(),
            colour,
            mark: Mark::Box,
        }
    }

    pub fn bar(label: impl Into<String>, colour: Rgb) -> Self {
        LegendEntry {
            label: label.into(),
            colour,
            mark: Mark::Bar,
        }
    }

    pub fn dot(label: impl Into<String>, colour: Rgb) -> Self {
        LegendEntry {
            label: label.into(),
            colour,
            mark: Mark::Dot,
        }
    }

    pub fn note(label: impl Into<String>) -> Self {
        LegendEntry {
            label: label.into(),
            colour: BLACK_RGB,
            mark: Mark::Note,
        }
    }
}

/// A number to three significant digits, in exponent form below 0.01 or from 10⁵
/// (3.09e-3, 0.0421, 1.5e5): for values that span decades.
pub fn fmt_sig3(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return fmt_num(x);
    }
    if x.abs() < 0.01 || x.abs() >= 1e5 {
        let s = format!("{x:.2e}");
        let (m, e) = s.split_once('e').expect("exponent form");
        return format!("{m}e{e}");
    }
    let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

/// Draws a legend (a mark and a label per entry, one entry per line) in `area`.
pub(crate) fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: Option<&str>,
    entries: &[LegendEntry],
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
    for e in entries {
        let col = e.colour.c();
        let mut text_x = 44;
        match e.mark {
            Mark::Box => area.draw(&Rectangle::new([(10, y - 6), (34, y + 8)], col.filled()))?,
            Mark::Bar => {
                let s = col.stroke_width(1);
                area.draw(&PathElement::new(vec![(23, y - 7), (23, y + 7)], s))?;
                area.draw(&PathElement::new(vec![(18, y - 7), (28, y - 7)], s))?;
                area.draw(&PathElement::new(vec![(18, y + 7), (28, y + 7)], s))?;
            }
            Mark::Note => text_x = 8,
            Mark::Dot => area.draw(&Circle::new((23, y), 4, col.filled()))?,
            Mark::Line(dash, width) => {
                let style = col.stroke_width(width.max(1));
                let pts = vec![(8, y), (38, y)];
                match dash {
                    Dash::Solid => area.draw(&PathElement::new(pts, style))?,
                    Dash::Dashed => area.draw(&DashedPathElement::new(pts, 6, 4, style))?,
                    Dash::Dotted => area.draw(&DashedPathElement::new(pts, 2, 3, style))?,
                }
            }
        }
        let font = if e.mark == Mark::Note {
            font.clone().color(&RGBColor(70, 70, 70))
        } else {
            font.clone().color(&BLACK)
        };
        area.draw(&Text::new(e.label.clone(), (text_x, y - 8), font))?;
        y += 22;
    }
    Ok(())
}

/// `area` with a subtitle over it (grey, 15 px), broken after its commas into as many lines
/// as its width needs, so that a long list of settings is never cut off at the edges; returns
/// the area below. Nothing for an empty text.
pub fn subtitled<DB: DrawingBackend>(
    area: DrawingArea<DB, Shift>,
    text: &str,
) -> Result<DrawingArea<DB, Shift>>
where
    DB::ErrorType: 'static,
{
    if text.is_empty() {
        return Ok(area);
    }
    let font = ("sans-serif", 15).into_font().color(&RGBColor(80, 80, 80));
    let room = area.dim_in_pixel().0.saturating_sub(24);
    // Where the backend cannot measure text, about 8 px per character.
    let width = |t: &str| {
        area.estimate_text_size(t, &font)
            .map(|(w, _)| w)
            .unwrap_or(8 * t.chars().count() as u32)
    };
    let mut lines: Vec<String> = Vec::new();
    for part in text.split_inclusive(", ") {
        match lines.last_mut() {
            Some(line) if width(format!("{line}{part}").trim_end()) <= room => line.push_str(part),
            _ => lines.push(part.to_string()),
        }
    }
    let mut area = area;
    for line in &lines {
        area = area.titled(line.trim_end(), font.clone())?;
    }
    Ok(area)
}

/// A colour of the viridis ramp at `t` in [0, 1] (dark purple to yellow), for continuous
/// values (heat maps, ordered settings).
pub fn ramp(t: f64) -> Rgb {
    let c: RGBColor = ViridisRGB::get_color_normalized(t.clamp(0.0, 1.0) as f32, 0.0, 1.0);
    Rgb(c.0, c.1, c.2)
}

/// `c` scaled towards black by `k` in [0, 1] (1 = unchanged): shading of lit surfaces.
pub fn shade(c: Rgb, k: f64) -> Rgb {
    let f = |v: u8| (v as f64 * k.clamp(0.0, 1.0)).round() as u8;
    Rgb(f(c.0), f(c.1), f(c.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subtitle wider than its figure is broken after its commas into lines that fit; a
    /// short one stays one line.
    #[test]
    fn long_subtitles_wrap() {
        let top_below = |width: u32, text: &str| {
            let mut buf = vec![0u8; (width * 300 * 3) as usize];
            let root = BitMapBackend::with_buffer(&mut buf, (width, 300)).into_drawing_area();
            let area = subtitled(root, text).unwrap();
            area.get_pixel_range().1.start
        };
        let long = "lr = 0.05, lp = 20, lp/lr = 400, max steps = 5000, restart = 160, \
                    penalty floor = 1e-6, prune logic, share = 0.05, 400 puzzles × 10 runs";
        let one = top_below(2000, long);
        assert_eq!(top_below(2000, "lr = 1"), one);
        assert_eq!(top_below(300, ""), 0);
        let narrow = top_below(300, long);
        assert!(
            narrow >= 3 * one,
            "{narrow} px against {one} px for one line"
        );
    }

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
        // Bad values in messages (`--d-bin inf`, a step so small the count overflows).
        assert_eq!(fmt_num(f64::INFINITY), "inf");
        assert_eq!(fmt_num(f64::NAN), "NaN");
        assert_eq!(fmt_num(1e-320), "1e-320");
    }

    #[test]
    fn figures_render_in_memory_within_a_pixel_budget() {
        let mut p = LinePlot::new("t", "x", "y");
        p.curves
            .push(Curve::new("a", vec![(0.0, 1.0), (1.0, 2.0)], PALETTE[0]));
        let png = render(&p, Format::Png).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let svg = String::from_utf8(render(&p, Format::Svg).unwrap()).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("\na\n"), "{svg}");
        // Both name the build that drew them (the PNG also in its `Software` text).
        let commit = crate::build_info::BUILD.commit;
        assert!(svg.contains(&format!("(commit {commit}")), "{svg}");
        let text = png::Decoder::new(std::io::Cursor::new(&png))
            .read_info()
            .unwrap()
            .info()
            .uncompressed_latin1_text
            .clone();
        assert!(
            text.iter()
                .any(|t| t.keyword == "Software" && t.text.contains(commit)),
            "{text:?}"
        );
        p.size = (20_000, 20_000);
        let e = render(&p, Format::Png).unwrap_err().to_string();
        assert!(e.contains("too large"), "{e}");
        p.size = (0, 10);
        assert!(render(&p, Format::Svg).is_err());
    }

    #[test]
    fn ticks_group_thousands() {
        assert_eq!(fmt_tick(750000.0), "750,000");
        assert_eq!(fmt_tick(-12000.0), "-12,000");
        assert_eq!(fmt_tick(250.0), "250");
        assert_eq!(fmt_tick(0.25), "0.25");
        assert_eq!(fmt_tick(2e9), "2e9");
    }

    #[test]
    fn three_significant_digits() {
        assert_eq!(fmt_sig3(0.0030864), "3.09e-3");
        assert_eq!(fmt_sig3(0.0421), "0.0421");
        assert_eq!(fmt_sig3(12.345), "12.3");
        assert_eq!(fmt_sig3(150000.0), "1.50e5");
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
