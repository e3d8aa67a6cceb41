//! `gpu-sudoku rate FILE`: score, tier, clue count, blank fraction and number of solutions
//! (0, 1 or 2 = "two or more") of every puzzle, as a table or JSON. Only puzzles with exactly
//! one solution get a score and tier (docs/PUZZLES.md explains the rater). A puzzle whose
//! search `--max-nodes` or `--time-limit` stopped is reported as `line N: gave up after K nodes`
//! (JSON: `solutions` null, `gave_up_after_nodes` K). Exit code 0, 3 when the search gave up
//! on some puzzle, 1 when the file cannot be read.
//!
//! The file streams through in chunks: the table's rows are printed as they are rated, and the
//! rows of the reports wait in a scratch journal until the totals are known.

use super::args::{
    gave_up_line, print_table, Classifier, InputArgs, ReportArgs, SearchLimits, GAVE_UP,
    STREAM_CHUNK,
};
use anyhow::Result;
use gpu_sudoku::choice::Choice;
use gpu_sudoku::exact::Classified;
use gpu_sudoku::generate::report::{self, Counts, Row};
use gpu_sudoku::generate::Tier;
use gpu_sudoku::job::journal::{Journal, Span};
use gpu_sudoku::puzzle::{Content, PuzzleReader};
use gpu_sudoku::report::batch::InputInfo;
use std::fmt::Write;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Exit status: 0 every puzzle rated or counted; 3 the search gave up on some \
puzzle (--max-nodes, --time-limit); 1 an error such as an unreadable file."
)]
pub struct Args {
    /// Puzzle file (`-` reads standard input).
    pub file: String,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub reports: ReportArgs,
    #[command(flatten)]
    pub limits: SearchLimits,
}

pub fn run(a: Args) -> Result<ExitCode> {
    a.limits.config()?;
    a.reports.check(&[&a.file])?;
    let (mut reader, scan) = a.input.stream(&a.file)?;
    if let Some(scan) = &scan {
        // The rows wait in a scratch journal in the temporary folder until the reports are
        // written: refused up front when they would not fit there, or the reports where they go.
        a.reports.check_disk(
            scan.puzzles as u64,
            gpu_sudoku::limits::RecordBytes::rated_puzzle(scan.longest_extra, scan.path.len()),
            "rate fewer puzzles at a time, or set TMPDIR to a folder with room",
        )?;
    }
    let solver = a
        .limits
        .classifier(scan.as_ref().map_or(0, |s| s.puzzles), "rating")?;
    // The reports' rows wait here, a chunk a line, until the input's totals are known.
    let mut kept = match a.reports.paths().is_empty() {
        true => None,
        false => Some((
            Journal::scratch(&serde_json::json!({"rate": a.file}))?,
            Vec::new(),
        )),
    };
    let (counts, input) = rate_all(&a, &mut reader, scan.is_none(), &solver, kept.as_mut())?;
    solver.finish();
    if let Some(scan) = &scan {
        if (scan.puzzles, &scan.hash) != (input.puzzles, &input.hash) {
            anyhow::bail!(
                "{}: the file changed while it was read (checked: {} puzzles, then read: {}); \
                 nothing written",
                input.path,
                scan.puzzles,
                input.puzzles
            );
        }
    }
    let path = input.path.clone();
    if let Some((journal, spans)) = kept {
        write_reports(&a.reports, input, &journal, &spans)?;
        journal.finish()?;
    }
    print_table(&a.reports, &totals(&path, &counts)?);
    Ok(if counts.given_up() > 0 {
        ExitCode::from(GAVE_UP)
    } else {
        ExitCode::SUCCESS
    })
}

/// Rates the input chunk by chunk, printing the table's rows as they come and keeping the
/// reports' rows in `kept`; `unannounced`: the progress bar does not know the total. Returns
/// the totals and what the input was.
fn rate_all(
    a: &Args,
    reader: &mut PuzzleReader,
    unannounced: bool,
    solver: &Classifier,
    mut kept: Option<&mut (Journal, Vec<Span>)>,
) -> Result<(Counts, InputInfo)> {
    let (mut counts, mut content) = (Counts::default(), Content::default());
    loop {
        let chunk = reader.next_chunk(STREAM_CHUNK)?;
        if chunk.is_empty() {
            break;
        }
        if counts.puzzles == 0 {
            solver.suspend(|| print_table(&a.reports, &table_heading()));
        }
        let classified = solver.classify(&chunk, unannounced);
        let rows = report::rows(&chunk, &classified, &|| {});
        let mut text = String::new();
        for ((p, r), c) in chunk.iter().zip(&rows).zip(&classified) {
            content.add(&p.grid);
            counts.add(r);
            table_row(&mut text, r, c)?;
        }
        solver.suspend(|| print_table(&a.reports, &text));
        if let Some((journal, spans)) = kept.as_deref_mut() {
            spans.push(journal.append(&rows)?);
        }
    }
    Ok((counts, InputInfo::of_content(reader.file(), &content)))
}

/// Writes the JSON and CSV reports of `input` from the rows kept at `spans` of `journal`.
fn write_reports(
    reports: &ReportArgs,
    input: InputInfo,
    journal: &Journal,
    spans: &[Span],
) -> Result<()> {
    let path = input.path.clone();
    let rows = journal.reader();
    let each = |visit: &mut dyn FnMut(&Row) -> std::io::Result<()>| {
        rows.read(spans, |chunk: Vec<Row>| {
            chunk.iter().try_for_each(&mut *visit)
        })
    };
    reports.write_streamed(
        |w| {
            let command = std::env::args().collect();
            report::write_json(w, command, input, |visit| each(visit))
        },
        |w| report::write_csv(w, &path, |visit| each(visit)),
    )
}

fn table_heading() -> String {
    format!(
        "{:>6} {:>6} {:>6} {:>9} {:>7} {:>6}  hardest\n",
        "line", "clues", "blank", "solutions", "tier", "score"
    )
}

/// A puzzle's line of the table.
fn table_row(out: &mut String, r: &Row, c: &Classified) -> std::fmt::Result {
    if let Some(line) = gave_up_line(c, r.line) {
        return writeln!(out, "{line}");
    }
    writeln!(
        out,
        "{:>6} {:>6} {:>6.3} {:>9} {:>7} {:>6}  {}",
        r.line,
        r.clues,
        r.blank_fraction,
        match r.solutions {
            Some(2) => "2+".to_string(),
            Some(k) => k.to_string(),
            None => "?".to_string(),
        },
        r.tier.as_deref().unwrap_or("-"),
        r.score.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
        r.hardest.as_deref().unwrap_or("-")
    )
}

/// The table's last line: the totals.
fn totals(path: &str, counts: &Counts) -> Result<String> {
    let tiers: Vec<String> = Tier::ALL
        .iter()
        .zip(counts.tiers)
        .map(|(t, k)| format!("{k} {t}"))
        .collect();
    let [none, unique, several] = counts.solutions;
    let given_up = counts.given_up();
    Ok(format!(
        "# {path}: {}; solutions: {unique} unique, {several} with 2+, {none} with none{}; tiers of the unique ones: {}\n",
        gpu_sudoku::report::count(counts.puzzles as u64, "puzzle", "puzzles"),
        if given_up > 0 {
            format!(", {given_up} given up (search limits)")
        } else {
            String::new()
        },
        tiers.join(", ")
    ))
}
