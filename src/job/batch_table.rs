//! The batch table as the command line prints it, for every caller that shows a batch to a
//! person (the `batch` command, the Python package): the line that says what runs where, a row
//! per file (the ILCA paper's Table 2 layout, with the rate's 95% interval and the
//! time-to-solution), the overall row, and the paper's rates beside the measured ones when the
//! setting is one of the paper's and a file a shipped paper tier.

use super::batch::{Algorithm, Report, Request};
use super::merge::MergedBatch;
use crate::backend::Device;
use crate::choice::Choice;
use crate::generate::{paper_tier_of, Tier};
use crate::ilca::presets::{PaperRates, Preset};
use crate::ilca::{IlcaParams, Prune};
use crate::report::batch::{row_labels, FileResults, Summary, Table};

/// The whole table of a finished batch, as `gpu-sudoku batch` prints it on standard output
/// (without the notes it prints on standard error).
pub fn text(request: &Request, devices: &[Device], report: &Report) -> String {
    heading(request, devices) + &Rows::new(request).text(&report.files)
}

/// The table `gpu-sudoku merge` prints for the shards of a batch: the one the unsharded batch
/// prints under its heading, paper column and note included.
pub fn merged_text(merged: &MergedBatch) -> String {
    // The paper's rates when the shards ran one of the paper's ILCA settings (their seed aside).
    let paper = (merged.algorithm == "ilca")
        .then(|| {
            let seed = merged.params["seed"].as_u64()?;
            Preset::paper_setting_where(seed, |want| {
                serde_json::to_value(want).ok().as_ref() == Some(&merged.params)
            })?
            .paper
        })
        .flatten();
    Rows::of(
        merged.files.iter().map(|f| (f.path.as_str(), &f.label)),
        merged.paper_tiers.clone(),
        paper,
        merged.unit(),
    )
    .text(&merged.files)
}

/// The line that says what runs where, before the table; for a shard, a second line says which.
pub fn heading(request: &Request, devices: &[Device]) -> String {
    let mut out = algorithm_line(&request.algorithm, devices);
    if let Some(s) = request.shard {
        out += &s.describe("instances");
        out.push('\n');
    }
    out
}

fn algorithm_line(algorithm: &Algorithm, devices: &[Device]) -> String {
    let device = &devices[0];
    let adapter = match devices.len() {
        1 => device
            .adapter()
            .map(|a| format!(" ({a})"))
            .unwrap_or_default(),
        n => format!(" ({n} adapters)"),
    };
    match algorithm {
        Algorithm::Ilca {
            params,
            runs,
            portfolio,
            pull,
            preset,
        } => {
            let mut how_many = match (*runs, *portfolio, params.ignores_seed()) {
                (1, 1, true) => "1 run/puzzle (deterministic)".to_string(),
                (1, 1, false) => "1 run/puzzle".to_string(),
                (n, 1, _) => format!("{n} runs/puzzle"),
                (n, k, _) => format!(
                    "{n} run{}/puzzle, each a portfolio of {k} instances solved at its first \
                     solution",
                    if n == 1 { "" } else { "s" }
                ),
            };
            if let Some(p) = pull {
                how_many += &format!(
                    ", cooperating: every {} steps pulled toward its best instance by 1 + {} \
                     (not in the paper)",
                    p.every,
                    crate::param::show(p.alpha)
                );
            }
            format!(
                "ILCA on {}{adapter}: {how_many}, {}\n",
                device.name(),
                describe(params, *preset)
            )
        }
        Algorithm::Rfss(params) => format!(
            "RFSS on {}{adapter}: 1 run/puzzle (deterministic), max-generations {}, \
             stable-generations {}, underflow {} below 2^-{}, enhance {}{}\n",
            device.name(),
            params.max_generations,
            params.stable_generations,
            params.underflow,
            params.underflow_log2,
            params.enhancement,
            if params.enhancement == crate::rfss::Enhancement::Off {
                String::new()
            } else {
                format!(" (stall-generations {})", params.stall_generations)
            }
        ),
    }
}

/// The table's layout: a row label per file, and the paper's rates where they apply.
pub struct Rows {
    pub table: Table,
    pub labels: Vec<String>,
    /// The paper tier of each file, if it is one.
    pub tiers: Vec<Option<&'static str>>,
    /// The paper's rates: only for a paper setting on a shipped paper tier.
    pub paper: Option<PaperRates>,
}

impl Rows {
    pub fn new(request: &Request) -> Rows {
        let files = &request.files;
        let tiers: Vec<Option<&'static str>> = files
            .iter()
            .map(|f| paper_tier_of(f.header()).map(|t| t.name()))
            .collect();
        let paper = match &request.algorithm {
            Algorithm::Ilca { params, .. } => {
                Preset::paper_setting_of(params).and_then(|p| p.paper)
            }
            Algorithm::Rfss(_) => None,
        };
        let names: Vec<String> = files.iter().map(|f| f.label()).collect();
        let unit = match request.algorithm {
            Algorithm::Ilca { .. } => "steps",
            Algorithm::Rfss(_) => "gens",
        };
        Rows::of(
            files.iter().map(|f| f.path()).zip(&names),
            tiers,
            paper,
            unit,
        )
    }

    /// The layout of files known by (path, label), their paper tiers and the paper's rates of
    /// the setting, if it is one of the paper's.
    fn of<'a>(
        files: impl Iterator<Item = (&'a str, &'a String)>,
        tiers: Vec<Option<&'static str>>,
        paper: Option<PaperRates>,
        unit: &str,
    ) -> Rows {
        let paper = paper.filter(|_| tiers.iter().any(Option::is_some));
        // A row is labelled by its file's label, or by its path where two files share the
        // label (`a/easy.txt`, `b/easy.txt`: two rows called `easy` could not be told apart).
        let labels = row_labels(files.map(|(path, label)| (path, label.as_str())));
        Rows {
            table: Table::new(&labels, unit, paper.is_some()),
            labels,
            tiers,
            paper,
        }
    }

    /// The header, a row per file, the overall row of several, and the paper's note.
    fn text(&self, files: &[FileResults]) -> String {
        let mut out = self.table.header();
        for (fi, file) in files.iter().enumerate() {
            out += &self.row(fi, file);
        }
        if files.len() > 1 {
            out += &self.overall(files);
        }
        if let Some(p) = self.paper {
            out += &paper_note(&p, files, &self.tiers);
        }
        out
    }

    /// File `fi`'s row; a file this shard holds no instance of measured nothing to set beside
    /// the paper.
    pub fn row(&self, fi: usize, file: &FileResults) -> String {
        let rate = self
            .paper
            .zip(self.tiers[fi])
            .and_then(|(p, t)| p.tier(t))
            .filter(|_| file.tally.instances > 0);
        self.table.row(&self.labels[fi], &file.summary(), rate)
    }

    /// The overall row; the paper's overall rate is over its four tiers: only files of those
    /// tiers, all four.
    pub fn overall(&self, files: &[FileResults]) -> String {
        let tiers = &self.tiers;
        let all_four = Tier::ALL.iter().all(|t| tiers.contains(&Some(t.name())));
        let rate = self
            .paper
            .filter(|_| tiers.iter().all(Option::is_some) && all_four)
            .filter(|_| files.iter().all(|f| f.tally.instances > 0))
            .map(|p| p.overall);
        self.table.row("overall", &Summary::overall(files), rate)
    }
}

/// What the solved grids of a file with a solution column showed, if it has one.
pub fn solution_column_note(label: &str, file: &FileResults) -> Option<String> {
    let (checked @ 1.., differing) = file.against_file_solutions() else {
        return None;
    };
    let how = match differing {
        0 => "every one is the file's solution".to_string(),
        k => format!(
            "{k} differ from it (each holds the rules and the clues, so those puzzles have more \
             than one solution)"
        ),
    };
    Some(format!(
        "{label}: {checked} solved grids checked against the file's solution column: {how}"
    ))
}

/// What a first run needs to read the paper column: which table it is, how far this reading
/// is from it, and where to go next.
pub fn paper_note(p: &PaperRates, files: &[FileResults], tiers: &[Option<&str>]) -> String {
    let gaps: Vec<String> = files
        .iter()
        .zip(tiers)
        .filter(|(f, _)| f.tally.instances > 0)
        .filter_map(|(f, t)| {
            let paper = p.tier((*t)?)?;
            Some(format!(
                "{} {:+.1}",
                t.unwrap(),
                f.summary().solved_pct - paper
            ))
        })
        .collect();
    format!(
        "paper: {} of Chatzinikolaou et al. 2024 (measured − paper, points: {}). No reading of the \
         paper reproduces its rates (docs/REPRODUCTION.md); `gpu-sudoku reproduce ilca` sets every \
         table beside its measurement, and `--preset improved` (not the paper) solves Evil.\n",
        p.table,
        if gaps.is_empty() {
            "–".into()
        } else {
            gaps.join(", ")
        }
    )
}

/// One line with the preset (if any) and every effective value, in the flags' spelling.
pub fn describe(params: &IlcaParams, preset: Option<&str>) -> String {
    format!(
        "{}steps {}, lr {}, lp {}, sr {}, restart {}, penalty-floor {}, compare {}, tie {}, \
         reset-check {}, seed {}{}{}",
        preset.map_or(String::new(), |p| format!("preset {p}: ")),
        params.steps,
        params.lr,
        params.lp,
        params.sr,
        params.restart,
        params.penalty_floor,
        params.compare,
        params.tie,
        params.reset_check,
        params.seed,
        match params.prune {
            Prune::Off => String::new(),
            p => format!(", prune {p} (not in the paper)"),
        },
        if params.share == 0.0 {
            String::new()
        } else {
            format!(", share {} (not in the paper)", params.share)
        }
    )
}
