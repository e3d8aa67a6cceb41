//! Results shared by every engine: one record per instance (puzzle × run), and the reports
//! built from them (tables, JSON, CSV).

pub mod batch;
pub mod schema;
pub mod stats;

use serde::{Deserialize, Serialize};

/// How one instance (puzzle, run) ended. Engines fill it; `solved` is only set after the final
/// grid passed [`crate::puzzle::Grid::verify_solution_of`] against the puzzle's clues.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceResult {
    /// Index of the puzzle in its file (0-based).
    pub puzzle: usize,
    /// Run index (0-based).
    pub run: usize,
    /// The final grid is a verified solution.
    pub solved: bool,
    /// Time-steps (ILCA) or generations (RFSS) used: when solved, the step that produced the
    /// solution (1-based); otherwise the step limit.
    pub steps: u32,
    /// The final grid in the one-line format.
    pub grid: String,
}
