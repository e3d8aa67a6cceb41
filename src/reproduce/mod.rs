//! Reproducing the papers in one call: every setting the ILCA paper reports (Tables 2–6) on the
//! shipped paper-model tiers, paper beside measured with a 95% interval and the time-to-solution
//! (`reproduce ilca`), as a table, JSON and the markdown of docs/REPRODUCTION.md.

pub mod ilca;

pub use ilca::{reproduce_ilca, IlcaReproduction, Reading};
