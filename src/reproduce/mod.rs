//! Reproducing the papers in one call, paper beside measured with a 95% interval, as a table,
//! JSON and the markdown of the docs:
//! - [`ilca`]: every setting the ILCA paper reports (Tables 2–6) on the shipped paper-model tiers,
//!   with the time-to-solution (`reproduce ilca`, docs/REPRODUCTION.md);
//! - [`rfss`]: Horn's 25x25 run and the RFSS rates on the 9x9 tiers (`reproduce rfss`,
//!   docs/RFSS.md);
//! - [`baselines`]: the A* trial counts of the INFO-H410 report and the GA operator table of the
//!   Pyuzzle report (`reproduce baselines`, docs/BASELINES.md).

pub mod baselines;
pub mod ilca;
pub mod report;
pub mod rfss;
pub mod shipped;

pub use baselines::{reproduce_astar, reproduce_ga, BaselinesReproduction};
pub use ilca::{reproduce_ilca, IlcaReproduction, Reading};
pub use report::Report;
pub use rfss::{reproduce_horn, reproduce_tiers, RfssReproduction};

use crate::report::batch::Summary;

/// A rate's Wilson 95% interval as "lo–hi" (percent, one decimal); "–" without instances.
fn interval(s: &Summary) -> String {
    s.solved_pct_95
        .map_or("–".into(), |[lo, hi]| format!("{lo:.1}–{hi:.1}"))
}

/// `x` with `decimals` decimals, "–" when absent.
fn opt(x: Option<f64>, decimals: usize) -> String {
    x.map_or("–".into(), |v| format!("{v:.decimals$}"))
}

/// One markdown table row of `cells`.
fn md_row<S: AsRef<str>>(cells: &[S]) -> String {
    let cells: Vec<&str> = cells.iter().map(AsRef::as_ref).collect();
    format!("| {} |\n", cells.join(" | "))
}
