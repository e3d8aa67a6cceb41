//! Pictures of one ILCA run (the paper's Fig. 3 and 4) from a trace: the grid at each step
//! with changed cells highlighted, and every cell's stacked probability history.
//!
//! Trace CSV (what `gpu-sudoku trace --csv` and [`IlcaTrace::write_csv`] write, and
//! [`IlcaTrace::read_csv`] reads): a header line, then one row per step per cell.
//!
//! | column | meaning |
//! |---|---|
//! | `step` | the time-step, 1, 2, …; an optional step 0 is the initial state |
//! | `cell` | cell index r·n + c, 0-based |
//! | `state` | the cell's state after the step's choice (digit 1..=n; 0 = none) |
//! | `p1` … `pn` | the normalised probabilities the step's choice was made from (the weights before the step's learning) |
//! | `fixed` or `clue` | optional: 1 for a clue cell, 0 otherwise |
//!
//! Other columns (`row`, `col`, `changed`, `degree`, `feedback`, `reset`, …) are ignored; rows
//! may come in any order. Without a clue column, the cells with a state at step 0 are the clues.
//! Without a step 0, one is made from step 1: the clues' states, and step 1's probabilities
//! (which are the initial ones).

use super::{digit_colour, draw_legend, Curve, Figure, LegendEntry, LinePlot, Rgb};
use crate::ilca::{trace, IlcaParams};
use crate::puzzle::{symbol_for, Geometry, Grid, MAX_BOX, MIN_BOX};
use anyhow::{bail, ensure, Context, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::collections::BTreeMap;
use std::io::Write;

/// The history of one ILCA run, frame by frame.
#[derive(Clone, Debug, PartialEq)]
pub struct IlcaTrace {
    /// Box size (n = b²).
    pub b: usize,
    /// Per cell: is it a clue?
    pub clue: Vec<bool>,
    /// Step of each frame, ascending (0 = initial state).
    pub steps: Vec<u32>,
    /// `states[frame][cell]`.
    pub states: Vec<Vec<u8>>,
    /// `probs[frame][cell · n + k]`: probability of digit k+1.
    pub probs: Vec<Vec<f32>>,
}

impl IlcaTrace {
    pub fn n(&self) -> usize {
        self.b * self.b
    }

    /// Runs one ILCA instance on the CPU reference and records every step
    /// ([`crate::ilca::trace::record`]): the run of `puzzle` (index `puzzle_index` in its batch)
    /// number `run`, the same draws as in a batch. Frame 0 is the initial state; frame t holds
    /// the states step t chose and the probabilities it chose them from.
    pub fn record(
        puzzle: &Grid,
        params: &IlcaParams,
        puzzle_index: usize,
        run: usize,
    ) -> Result<IlcaTrace> {
        let start = trace::start(puzzle, params, puzzle_index, run)?;
        let mut tr = IlcaTrace {
            b: start.b,
            clue: start.clue.iter().map(|&v| v != 0).collect(),
            steps: vec![0],
            states: vec![start.clue],
            probs: vec![start.probabilities],
        };
        trace::record(puzzle, params, puzzle_index, run, |step| {
            tr.steps.push(step.step);
            tr.states.push(step.states.clone());
            tr.probs.push(step.probabilities.clone());
            Ok(())
        })?;
        Ok(tr)
    }

    /// Did the last frame solve the puzzle (checked against the rules and the clues)?
    pub fn solved(&self, puzzle: &Grid) -> bool {
        let last = self.states.last().cloned().unwrap_or_default();
        Grid::from_cells(self.b, last).is_ok_and(|g| g.is_solution_of(puzzle))
    }

    /// Writes the trace CSV (see the module docs): steps 1, 2, … (step 0 only when it is the
    /// only frame), with a `fixed` column; what `gpu-sudoku trace --csv` writes, less its
    /// extra columns.
    pub fn write_csv(&self, mut w: impl Write) -> Result<()> {
        let n = self.n();
        let mut csv = crate::csv_io::Writer::new(&mut w);
        let mut head: Vec<String> = ["step", "cell", "fixed", "state"]
            .map(String::from)
            .to_vec();
        head.extend((1..=n).map(|k| format!("p{k}")));
        csv.row(&head)?;
        let only_initial = self.steps.len() == 1;
        for (f, &step) in self.steps.iter().enumerate() {
            if step == 0 && !only_initial {
                continue;
            }
            for c in 0..n * n {
                let mut row = vec![
                    step.to_string(),
                    c.to_string(),
                    (self.clue[c] as u8).to_string(),
                    self.states[f][c].to_string(),
                ];
                row.extend(self.probs[f][c * n..(c + 1) * n].iter().map(f32::to_string));
                csv.row(&row)?;
            }
        }
        csv.finish()?;
        w.flush()?;
        Ok(())
    }

    /// Reads a trace CSV (see the module docs); errors name the file, line and column.
    pub fn read_csv(path: &str) -> Result<IlcaTrace> {
        let text =
            crate::limits::read_text(path, crate::limits::MAX_FIGURE_INPUT_BYTES, "a trace CSV")?;
        Self::parse_csv(path, &text)
    }

    /// [`IlcaTrace::read_csv`] on text; `name` is used in error messages.
    pub fn parse_csv(name: &str, text: &str) -> Result<IlcaTrace> {
        let mut lines = crate::csv_io::lines(text);
        let Some((header_at, header)) = lines.next() else {
            bail!("{name}: empty file (expected a header: step,cell,state,p1,...,pn)");
        };
        let cols = crate::csv_io::record(name, header_at, header)?;
        let find = |c: &str| cols.iter().position(|x| x == c);
        let need = |c: &str| {
            find(c).with_context(|| {
                format!("{name}:{header_at}: no `{c}` column (expected step,cell,state,p1,...,pn)")
            })
        };
        let (i_step, i_cell, i_state) = (need("step")?, need("cell")?, need("state")?);
        let i_clue = find("clue").or(find("fixed"));
        let mut p_cols = Vec::new();
        while let Some(i) = find(&format!("p{}", p_cols.len() + 1)) {
            p_cols.push(i);
        }
        let n = p_cols.len();
        let b = crate::puzzle::Geometry::box_for_side(n).with_context(|| {
            format!("{name}:{header_at}: {n} probability columns p1..p{n}; expected n = b² digits (4, 9, 16, …, 64)")
        })?;
        let cells = n * n;
        struct Frame {
            states: Vec<Option<u8>>,
            probs: Vec<f32>,
            clue: Vec<Option<bool>>,
        }
        let mut frames: BTreeMap<u32, Frame> = BTreeMap::new();
        for (ln, line) in lines {
            let f = crate::csv_io::record(name, ln, line)?;
            ensure!(
                f.len() == cols.len(),
                "{name}:{ln}: {} fields, the header has {}",
                f.len(),
                cols.len()
            );
            let int = |i: usize, what: &str| -> Result<u64> {
                f[i].parse::<u64>().map_err(|_| {
                    anyhow::anyhow!(
                        "{name}:{ln}: column {} ({what}): `{}` is not a whole number",
                        i + 1,
                        f[i]
                    )
                })
            };
            let step = int(i_step, "step")?;
            ensure!(
                step <= u32::MAX as u64,
                "{name}:{ln}: step {step} is too large"
            );
            let cell = int(i_cell, "cell")? as usize;
            ensure!(
                cell < cells,
                "{name}:{ln}: cell {cell} is outside the {n}x{n} grid (0..{cells})"
            );
            let state = int(i_state, "state")?;
            ensure!(
                state as usize <= n,
                "{name}:{ln}: state {state} is larger than {n}"
            );
            let fr = frames.entry(step as u32).or_insert_with(|| Frame {
                states: vec![None; cells],
                probs: vec![0.0; cells * n],
                clue: vec![None; cells],
            });
            ensure!(
                fr.states[cell].is_none(),
                "{name}:{ln}: step {step} cell {cell} appears twice"
            );
            fr.states[cell] = Some(state as u8);
            for (k, &i) in p_cols.iter().enumerate() {
                let p: f32 = f[i].parse().map_err(|_| {
                    anyhow::anyhow!(
                        "{name}:{ln}: column {} (p{}): `{}` is not a number",
                        i + 1,
                        k + 1,
                        f[i]
                    )
                })?;
                ensure!(
                    p.is_finite() && (0.0..=1.0 + 1e-4).contains(&p),
                    "{name}:{ln}: p{} = {p} is not a probability in [0, 1]",
                    k + 1
                );
                fr.probs[cell * n + k] = p;
            }
            if let Some(i) = i_clue {
                fr.clue[cell] = Some(int(i, "clue")? != 0);
            }
        }
        ensure!(!frames.is_empty(), "{name}: no data rows after the header");
        let mut tr = IlcaTrace {
            b,
            clue: vec![false; cells],
            steps: Vec::new(),
            states: Vec::new(),
            probs: Vec::new(),
        };
        for (step, fr) in frames {
            if let Some(c) = fr.states.iter().position(|s| s.is_none()) {
                bail!("{name}: step {step} has no row for cell {c} (every step needs all {cells} cells)");
            }
            if tr.steps.is_empty() {
                tr.clue = if i_clue.is_some() {
                    fr.clue.iter().map(|c| c.unwrap_or(false)).collect()
                } else if step == 0 {
                    fr.states.iter().map(|s| s.unwrap_or(0) != 0).collect()
                } else {
                    vec![false; cells]
                };
            }
            let states: Vec<u8> = fr.states.into_iter().map(|s| s.unwrap_or(0)).collect();
            if tr.steps.is_empty() && step > 0 && i_clue.is_some() {
                // The initial state: the clues, and step 1's probabilities (the initial ones).
                tr.steps.push(0);
                tr.states.push(
                    states
                        .iter()
                        .zip(&tr.clue)
                        .map(|(&v, &c)| if c { v } else { 0 })
                        .collect(),
                );
                tr.probs.push(fr.probs.clone());
            }
            tr.steps.push(step);
            tr.states.push(states);
            tr.probs.push(fr.probs);
        }
        Ok(tr)
    }

    /// Cells whose state differs from the previous frame (all free cells with a state at the
    /// first frame after an initial one).
    pub fn changed(&self, frame: usize) -> Vec<bool> {
        let cur = &self.states[frame];
        match frame.checked_sub(1) {
            None => vec![false; cur.len()],
            Some(p) => cur
                .iter()
                .zip(&self.states[p])
                .zip(&self.clue)
                .map(|((a, b), &clue)| !clue && a != b)
                .collect(),
        }
    }
}

/// The grid at each step, changed cells highlighted (the paper's Fig. 3), as small multiples.
#[derive(Clone, Debug)]
pub struct TraceGrids<'a> {
    pub trace: &'a IlcaTrace,
    pub title: String,
    /// At most this many panels: the first frame, frames where a cell changed, the last frame;
    /// when there are more, the first ones and the last are shown and the title says so.
    pub max_frames: usize,
    pub columns: usize,
}

impl<'a> TraceGrids<'a> {
    pub fn new(trace: &'a IlcaTrace, title: impl Into<String>) -> Self {
        TraceGrids {
            trace,
            title: title.into(),
            max_frames: 20,
            columns: 5,
        }
    }

    /// The frames shown, and how many frames with changes were left out.
    pub fn frames(&self) -> (Vec<usize>, usize) {
        let t = self.trace;
        let last = t.steps.len() - 1;
        let mut v: Vec<usize> = (0..=last)
            .filter(|&f| f == 0 || f == last || t.changed(f).iter().any(|&c| c))
            .collect();
        let max = self.max_frames.max(2);
        if v.len() <= max {
            return (v, 0);
        }
        let omitted = v.len() - max;
        v.truncate(max - 1);
        v.push(last);
        (v, omitted)
    }

    fn cell_px(&self) -> u32 {
        (300 / self.trace.n() as u32).max(14)
    }

    fn panel_size(&self) -> (u32, u32) {
        let side = self.cell_px() * self.trace.n() as u32;
        (side + 24, side + 44)
    }

    fn grid_dims(&self) -> (usize, usize) {
        let k = self.frames().0.len();
        let cols = self.columns.clamp(1, k);
        (cols, k.div_ceil(cols))
    }
}

const HIGHLIGHT: RGBColor = RGBColor(255, 236, 120);
const CHANGED_TEXT: RGBColor = RGBColor(0, 60, 200);

impl Figure for TraceGrids<'_> {
    fn size(&self) -> (u32, u32) {
        let (pw, ph) = self.panel_size();
        let (c, r) = self.grid_dims();
        (pw * c as u32 + 20, ph * r as u32 + 90)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        let t = self.trace;
        check_trace(t)?;
        ensure!(!t.steps.is_empty(), "the trace has no frames");
        let (frames, omitted) = self.frames();
        let mut title = self.title.clone();
        if omitted > 0 {
            title.push_str(&format!("; {omitted} frames with changes not shown"));
        }
        let area = root.titled(&title, ("sans-serif", 24))?;
        let area = area.titled(
            "yellow background, blue digit: the cell's state changed at this step; grey background, bold black: clue",
            ("sans-serif", 14).into_font().color(&RGBColor(80, 80, 80)),
        )?;
        let n = t.n();
        let b = t.b;
        let px = self.cell_px() as i32;
        let (pw, ph) = self.panel_size();
        let cols = self.grid_dims().0;
        let font_px = (px as f64 * 0.62).max(9.0);
        for (i, &f) in frames.iter().enumerate() {
            let (ox, oy) = (
                10 + (i % cols) as i32 * pw as i32,
                (i / cols) as i32 * ph as i32,
            );
            let changed = t.changed(f);
            let k = changed.iter().filter(|&&c| c).count();
            let label = if t.steps[f] == 0 {
                "initial state".to_string()
            } else {
                format!("step {} ({k} changed)", t.steps[f])
            };
            let letter = (b'a' + (i % 26) as u8) as char;
            area.draw(&Text::new(
                format!("({letter}) {label}"),
                (ox, oy + 6),
                ("sans-serif", 15),
            ))?;
            let (gx, gy) = (ox, oy + 28);
            for (c, &ch) in changed.iter().enumerate() {
                let (r, col) = ((c / n) as i32, (c % n) as i32);
                let (x, y) = (gx + col * px, gy + r * px);
                if ch || t.clue[c] {
                    let fill = if ch { HIGHLIGHT } else { CLUE_FILL };
                    area.draw(&Rectangle::new([(x, y), (x + px, y + px)], fill.filled()))?;
                }
                area.draw(&Rectangle::new(
                    [(x, y), (x + px, y + px)],
                    RGBColor(200, 200, 200).stroke_width(1),
                ))?;
                let v = t.states[f][c];
                if v != 0 {
                    let (colour, style) = if t.clue[c] {
                        (BLACK, FontStyle::Bold)
                    } else if ch {
                        (CHANGED_TEXT, FontStyle::Bold)
                    } else {
                        (RGBColor(90, 90, 90), FontStyle::Normal)
                    };
                    area.draw(&Text::new(
                        symbol_for(v).to_string(),
                        (x + px / 2, y + px / 2),
                        ("sans-serif", font_px)
                            .into_font()
                            .style(style)
                            .color(&colour)
                            .pos(Pos::new(HPos::Center, VPos::Center)),
                    ))?;
                }
            }
            for k in 0..=b as i32 {
                let s = k * b as i32 * px;
                let side = n as i32 * px;
                area.draw(&PathElement::new(
                    vec![(gx + s, gy), (gx + s, gy + side)],
                    BLACK.stroke_width(2),
                ))?;
                area.draw(&PathElement::new(
                    vec![(gx, gy + s), (gx + side, gy + s)],
                    BLACK.stroke_width(2),
                ))?;
            }
        }
        Ok(())
    }
}

/// Every cell's probability vector over the steps as a stacked area (the paper's Fig. 4 for
/// all cells at once): an n × n panel of small plots with rows and columns numbered, a step
/// axis under the bottom row and a probability axis left of the first column, boxes outlined.
/// Under each free cell's plot a strip shows the state chosen at each step (the digit's
/// colour) and ends in the final digit; clue cells are grey boxes with their digit.
#[derive(Clone, Debug)]
pub struct ProbabilityPanel<'a> {
    pub trace: &'a IlcaTrace,
    pub title: String,
}

/// Margins of the panel grid: row numbers and the y axis on the left, column numbers on top,
/// the x axis below.
const PANEL_LEFT: u32 = 78;
const PANEL_TOP: u32 = 26;
const PANEL_BOTTOM: u32 = 48;
const PANEL_LEGEND: u32 = 200;
const CLUE_FILL: RGBColor = RGBColor(228, 228, 228);

impl ProbabilityPanel<'_> {
    fn mini(&self) -> (u32, u32) {
        let n = self.trace.n() as u32;
        ((1400 / n).max(40), (1000 / n).max(30))
    }

    /// Text in the panels only when they are large enough to read it.
    fn labelled(&self) -> bool {
        self.mini().0 >= 60
    }
}

impl Figure for ProbabilityPanel<'_> {
    fn size(&self) -> (u32, u32) {
        let n = self.trace.n() as u32;
        let (w, h) = self.mini();
        (
            w * n + PANEL_LEFT + 20 + PANEL_LEGEND,
            h * n + PANEL_TOP + PANEL_BOTTOM + 60,
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        let t = self.trace;
        check_trace(t)?;
        ensure!(!t.steps.is_empty(), "the trace has no frames");
        let n = t.n();
        let (mw, mh) = self.mini();
        let (mw_i, mh_i) = (mw as i32, mh as i32);
        let area = root.titled(&self.title, ("sans-serif", 24))?;
        let area = area.titled(
            "each cell: stacked probability of each digit at each step, before the step's choice; strip below: the state chosen at each step, then the final digit",
            ("sans-serif", 14).into_font().color(&RGBColor(80, 80, 80)),
        )?;
        let (w, _) = area.dim_in_pixel();
        let (grid_area, legend_area) = area.split_horizontally(w - PANEL_LEGEND);
        // Frame 0 repeats step 1's probabilities (those step 1 chose from): start at step 1.
        let f0 = usize::from(t.steps.len() > 1 && t.steps[0] == 0);
        let steps = &t.steps[f0..];
        let x0 = steps[0] as f64;
        let x1 = (*steps.last().expect("non-empty") as f64).max(x0 + 1.0);
        let (gx, gy) = (PANEL_LEFT as i32, PANEL_TOP as i32);
        let (side_x, side_y) = (n as i32 * mw_i, n as i32 * mh_i);
        let labelled = self.labelled();
        let small = TextStyle::from(("sans-serif", 13).into_font());
        let centre = Pos::new(HPos::Center, VPos::Center);
        // Geometry of one cell's box: plot, then strip, then a gap.
        let strip_h = (mh_i / 12).clamp(4, 9);
        let plot_h = mh_i - strip_h - 6;
        let digit_w = if labelled { 14 } else { 0 };
        for c in 0..n * n {
            let (r, col) = (c / n, c % n);
            let (ox, oy) = (gx + col as i32 * mw_i, gy + r as i32 * mh_i);
            let (px0, px1) = (ox + 3, ox + mw_i - 3);
            let (py0, py1) = (oy + 3, oy + 3 + plot_h);
            if t.clue[c] {
                grid_area.draw(&Rectangle::new(
                    [(ox + 1, oy + 1), (ox + mw_i - 1, oy + mh_i - 1)],
                    CLUE_FILL.filled(),
                ))?;
                let v = t.states[0][c];
                let size = (mh as f64 * 0.45).max(9.0);
                grid_area.draw(&Text::new(
                    symbol_for(v).to_string(),
                    (ox + mw_i / 2, oy + mh_i / 2),
                    ("sans-serif", size)
                        .into_font()
                        .style(FontStyle::Bold)
                        .color(&RGBColor(60, 60, 60))
                        .pos(centre),
                ))?;
                if labelled {
                    grid_area.draw(&Text::new(
                        "clue".to_string(),
                        (ox + 6, oy + 5),
                        small.clone().color(&RGBColor(110, 110, 110)),
                    ))?;
                }
                continue;
            }
            let sub = grid_area
                .clone()
                .shrink((px0, py0), ((px1 - px0) as u32, plot_h as u32));
            let mut chart = ChartBuilder::on(&sub).build_cartesian_2d(x0..x1, 0.0..1.0)?;
            // Stacked areas, digit 1 at the bottom.
            let mut lower = vec![0f64; steps.len()];
            for k in 0..n {
                let upper: Vec<f64> = (0..steps.len())
                    .map(|i| lower[i] + t.probs[f0 + i][c * n + k] as f64)
                    .collect();
                if upper.iter().zip(&lower).any(|(u, l)| u > l) {
                    let mut pts: Vec<(f64, f64)> = steps
                        .iter()
                        .zip(&upper)
                        .map(|(&s, &u)| (s as f64, u.min(1.0)))
                        .collect();
                    pts.extend(
                        steps
                            .iter()
                            .zip(&lower)
                            .rev()
                            .map(|(&s, &l)| (s as f64, l.min(1.0))),
                    );
                    let colour = digit_colour(k + 1, n).c();
                    chart.draw_series(std::iter::once(Polygon::new(pts, colour.filled())))?;
                }
                lower = upper;
            }
            grid_area.draw(&Rectangle::new(
                [(px0, py0), (px1, py1)],
                RGBColor(120, 120, 120).stroke_width(1),
            ))?;
            // The state strip: step i covers [x(step_i), x(step_i+1)).
            let (sy0, sy1) = (py1 + 2, py1 + 2 + strip_h);
            let sx1 = px1 - digit_w;
            let to_px = |x: f64| px0 + ((x - x0) / (x1 - x0) * (sx1 - px0) as f64).round() as i32;
            for (i, &s) in steps.iter().enumerate() {
                let v = t.states[f0 + i][c];
                if v == 0 {
                    continue;
                }
                let a = to_px(s as f64);
                let b = steps
                    .get(i + 1)
                    .map_or(sx1, |&e| to_px(e as f64))
                    .max(a + 1);
                grid_area.draw(&Rectangle::new(
                    [(a, sy0), (b, sy1)],
                    digit_colour(v as usize, n).c().filled(),
                ))?;
            }
            let last = *t.states.last().expect("frames")[..].get(c).unwrap_or(&0);
            if labelled && last != 0 {
                grid_area.draw(&Text::new(
                    symbol_for(last).to_string(),
                    (px1 - digit_w / 2 + 1, (sy0 + sy1) / 2),
                    ("sans-serif", 13)
                        .into_font()
                        .style(FontStyle::Bold)
                        .color(&digit_colour(last as usize, n).c())
                        .pos(centre),
                ))?;
            }
        }
        // Thin cell borders, bold box borders.
        let b = t.b as i32;
        for k in 0..=n as i32 {
            let bold = k % b == 0;
            let style = if bold {
                BLACK.stroke_width(2)
            } else {
                RGBColor(190, 190, 190).stroke_width(1)
            };
            let (sx, sy) = (gx + k * mw_i, gy + k * mh_i);
            grid_area.draw(&PathElement::new(vec![(sx, gy), (sx, gy + side_y)], style))?;
            grid_area.draw(&PathElement::new(vec![(gx, sy), (gx + side_x, sy)], style))?;
        }
        // Row and column numbers (1-based, as the paper's C4,7 = row 4, column 7).
        let word = labelled;
        for k in 0..n as i32 {
            let name = |what: &str| {
                if word {
                    format!("{what} {}", k + 1)
                } else {
                    (k + 1).to_string()
                }
            };
            grid_area.draw(&Text::new(
                name("column"),
                (gx + k * mw_i + mw_i / 2, gy - 12),
                small.clone().pos(centre),
            ))?;
            grid_area.draw(&Text::new(
                name("row"),
                (gx - 34, gy + k * mh_i + mh_i / 2),
                small.clone().pos(centre),
            ))?;
        }
        // Axes: probability 0..1 left of the first column, steps under the bottom row.
        let axis_font = TextStyle::from(("sans-serif", 11).into_font());
        for r in 0..n as i32 {
            let (py0, py1) = (gy + r * mh_i + 3, gy + r * mh_i + 3 + plot_h);
            for (y, l) in [(py1, "0"), (py0, "1")] {
                grid_area.draw(&PathElement::new(
                    vec![(gx - 4, y), (gx, y)],
                    BLACK.stroke_width(1),
                ))?;
                grid_area.draw(&Text::new(
                    l.to_string(),
                    (gx - 6, y),
                    axis_font.clone().pos(Pos::new(HPos::Right, VPos::Center)),
                ))?;
            }
        }
        let ticks = [x0, (x0 + x1) / 2.0, x1];
        for col in 0..n as i32 {
            let (px0, px1) = (gx + col * mw_i + 3, gx + col * mw_i + mw_i - 3 - digit_w);
            for (i, &x) in ticks.iter().enumerate() {
                if !labelled && i == 1 {
                    continue;
                }
                let xp = px0 + ((x - x0) / (x1 - x0) * (px1 - px0) as f64).round() as i32;
                grid_area.draw(&PathElement::new(
                    vec![(xp, gy + side_y), (xp, gy + side_y + 4)],
                    BLACK.stroke_width(1),
                ))?;
                if labelled || col == 0 || col == n as i32 - 1 {
                    grid_area.draw(&Text::new(
                        crate::plot::fmt_num(x.round()),
                        (xp, gy + side_y + 6),
                        axis_font.clone().pos(Pos::new(HPos::Center, VPos::Top)),
                    ))?;
                }
            }
        }
        grid_area.draw(&Text::new(
            format!(
                "x: step {} to {} in every cell; y: probability 0 to 1",
                x0, x1
            ),
            (gx, gy + side_y + 24),
            ("sans-serif", 14),
        ))?;
        let mut entries: Vec<LegendEntry> = (1..=n)
            .map(|v| {
                LegendEntry::boxed(format!("digit {}", symbol_for(v as u8)), digit_colour(v, n))
            })
            .collect();
        entries.push(LegendEntry::boxed("clue cell", Rgb(228, 228, 228)));
        draw_legend(&legend_area.margin(20, 0, 0, 0), Some("digit"), &entries)?;
        Ok(())
    }
}

/// One cell's candidate probabilities over the steps (the paper's Fig. 4, e.g. its cell C4,7:
/// `row` 4, `col` 7, 1-based): a line per digit that is ever possible, a dot on the digit the
/// step chose. A line plot, written with [`super::save`] like any other.
pub fn cell_history(trace: &IlcaTrace, row: usize, col: usize, title: &str) -> Result<LinePlot> {
    check_trace(trace)?;
    let n = trace.n();
    ensure!(
        (1..=n).contains(&row) && (1..=n).contains(&col),
        "cell {row},{col} is outside the {n}x{n} grid (rows and columns are 1..{n})"
    );
    let c = (row - 1) * n + (col - 1);
    // Frame 0 repeats step 1's probabilities (those step 1 chose from): start at step 1.
    let f0 = usize::from(trace.steps.len() > 1 && trace.steps[0] == 0);
    let frames = f0..trace.steps.len();
    let mut plot = LinePlot::new(
        format!("{title}: cell C{row},{col} (row {row}, column {col})"),
        "time-step",
        "probability",
    );
    plot.y_range = Some((-0.02, 1.02));
    plot.legend_title = Some("digit".into());
    let last = trace.states.last().map_or(0, |s| s[c]);
    plot.subtitle = if trace.clue[c] {
        format!("a clue: its state is {} at every step", symbol_for(last))
    } else {
        format!(
            "probability of each candidate before the step's choice (digits never possible left out); final state {}",
            symbol_for(last)
        )
    };
    for k in 0..n {
        let pts: Vec<(f64, f64)> = frames
            .clone()
            .map(|f| (trace.steps[f] as f64, trace.probs[f][c * n + k] as f64))
            .collect();
        if pts.iter().all(|p| p.1 <= 0.0) {
            continue;
        }
        let colour = digit_colour(k + 1, n);
        plot.curves.push(Curve::line(
            Some(format!("digit {}", symbol_for(k as u8 + 1))),
            pts,
            colour,
            2,
        ));
        // A clue is never chosen: no dots.
        let chosen: Vec<(f64, f64)> = frames
            .clone()
            .filter(|&f| !trace.clue[c] && trace.steps[f] > 0)
            .filter(|&f| trace.states[f][c] as usize == k + 1)
            .map(|f| (trace.steps[f] as f64, trace.probs[f][c * n + k] as f64))
            .collect();
        if !chosen.is_empty() {
            let mut dots = Curve::line(None, chosen, colour, 0);
            dots.markers = true;
            plot.curves.push(dots);
        }
    }
    ensure!(
        !plot.curves.is_empty(),
        "cell {row},{col}: no digit has a probability above 0"
    );
    if !trace.clue[c] {
        plot.legend_extra.push(LegendEntry::dot(
            "the digit chosen at the step",
            Rgb(70, 70, 70),
        ));
    }
    Ok(plot)
}

/// Geometry check for callers building traces by hand.
pub fn check_trace(t: &IlcaTrace) -> Result<()> {
    ensure!(
        (MIN_BOX..=MAX_BOX).contains(&t.b),
        "box size {} is not supported",
        t.b
    );
    let g = Geometry::get(t.b);
    ensure!(
        t.clue.len() == g.cells,
        "clue mask has {} cells, not {}",
        t.clue.len(),
        g.cells
    );
    ensure!(
        t.states.len() == t.steps.len() && t.probs.len() == t.steps.len(),
        "steps, states and probabilities must have one entry per frame"
    );
    for (f, (s, p)) in t.states.iter().zip(&t.probs).enumerate() {
        ensure!(
            s.len() == g.cells,
            "frame {f}: {} states, not {}",
            s.len(),
            g.cells
        );
        ensure!(
            p.len() == g.cells * g.n,
            "frame {f}: {} probabilities, not {}",
            p.len(),
            g.cells * g.n
        );
    }
    Ok(())
}
