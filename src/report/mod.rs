//! Results shared by every engine: one record per instance (puzzle × run), and the reports
//! built from them (tables, JSON, CSV).

pub mod batch;
pub mod digest;
pub mod schema;
pub mod stats;

use serde::{Deserialize, Serialize};

/// `n` and the noun for it: "1 puzzle", "2 puzzles" (`many` is the plural).
pub fn count(n: impl Into<u128>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The indefinite article for `word`: "an evil", "a hard".
pub fn a_or_an(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

#[cfg(test)]
mod words {
    #[test]
    fn counts_and_articles_agree() {
        assert_eq!(super::count(1u32, "puzzle", "puzzles"), "1 puzzle");
        assert_eq!(super::count(0u32, "puzzle", "puzzles"), "0 puzzles");
        assert_eq!(super::count(2u64, "thread", "threads"), "2 threads");
        assert_eq!(super::a_or_an("evil"), "an");
        assert_eq!(super::a_or_an("easy"), "an");
        assert_eq!(super::a_or_an("hard"), "a");
    }
}

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
