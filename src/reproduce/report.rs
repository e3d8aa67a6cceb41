//! The JSON report every `reproduce` command writes: the header, where it ran and what it read,
//! then the reproduction's own fields.

use crate::report::schema::{Header, InputInfo};
use serde::Serialize;

/// The JSON of a `reproduce` command: provenance, then the reproduction's own fields.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(rename = "Report_{T}")]
pub struct Report<'a, T: Serialize> {
    #[serde(flatten)]
    pub header: Header,
    pub backend: &'static str,
    pub adapter: Option<String>,
    /// The folder the inputs were read from, or `built in` (the copies of the repository's
    /// files this build carries).
    pub puzzles: &'a str,
    /// Every file read, with its puzzle count and content hash.
    pub inputs: Vec<InputInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(flatten)]
    pub reproduction: &'a T,
}

/// The JSON Schema of `reproduce`'s report (`gpu-sudoku schema reproduce`): the fields every
/// reproduction shares, then those of `reproduce ilca`, `rfss` or `baselines`.
pub fn json_schema() -> serde_json::Value {
    /// One of the three reports.
    #[derive(schemars::JsonSchema)]
    #[serde(untagged)]
    #[allow(dead_code)] // only its schema is used
    enum AnyReport<'a> {
        Ilca(Report<'a, super::IlcaReproduction>),
        Rfss(Report<'a, super::RfssReproduction>),
        Baselines(Report<'a, super::BaselinesReproduction>),
    }
    crate::report::schema::json_schema_of::<AnyReport<'static>>(
        "gpu-sudoku reproduce report",
        false,
    )
}
