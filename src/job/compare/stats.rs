//! The rows of a compare run: per entry and file the solved %, its 95% interval, TTS99 (over
//! the attempts and per puzzle), the time per attempt and the iterations, from the attempts'
//! outcomes; and the text table that shows them.

use super::algos::ignores_seed;
use super::AttemptRecord;
use crate::report::stats::{median_tts99, tts99, wilson95, Tts};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One algorithm on one file.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Row {
    pub file: String,
    pub algo: String,
    /// What an iteration is (nodes, trials, generations, steps).
    pub unit: String,
    pub puzzles: usize,
    pub runs: usize,
    pub attempts: usize,
    pub solved: usize,
    pub solved_pct: f64,
    /// Wilson 95% interval of `solved_pct`, in percent.
    pub solved_pct_95: Option<[f64; 2]>,
    /// Time to solution at 99% confidence, in iterations (docs: report::stats).
    pub tts99: Option<Tts>,
    /// TTS99 in seconds: TTS99 iterations at the mean time per iteration of the attempts.
    pub tts99_s: Option<f64>,
    /// The median over the file's puzzles of each puzzle's own TTS99, in iterations (a puzzle
    /// no attempt solved counts as infinite; docs: report::stats), and in seconds as `tts99_s`.
    pub tts99_puzzle_median: Option<f64>,
    pub tts99_puzzle_median_s: Option<f64>,
    pub median_ms: f64,
    pub mean_ms: f64,
    pub median_iterations: f64,
    pub mean_iterations: f64,
}

/// What a row needs of one attempt. A compare run holds these (32 bytes each; making a row
/// about as much again) until its rows are made, not the records: those wait in the journal
/// until the reports are written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttemptOutcome {
    pub puzzle: usize,
    pub solved: bool,
    pub iterations: u64,
    pub seconds: f64,
}

impl From<&AttemptRecord> for AttemptOutcome {
    fn from(r: &AttemptRecord) -> AttemptOutcome {
        AttemptOutcome {
            puzzle: r.puzzle,
            solved: r.solved,
            iterations: r.iterations,
            seconds: r.seconds,
        }
    }
}

/// The median of `v` (sorted in place); NaN for none.
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// The row of one algorithm on one file, from its attempts' records (in (puzzle, run) order).
/// An entry that [`ignores_seed`] repeats its run of a puzzle, so its runs are not independent
/// tries: it gets no TTS99, and its 95% interval counts a puzzle once where all its runs agree
/// on solved or not (a wall-clock budget can stop them at different points; a puzzle whose
/// runs disagree counts each).
pub fn row(file: &str, algo: &str, unit: &str, runs: usize, attempts: &[AttemptOutcome]) -> Row {
    let r = attempts;
    let solved = r.iter().filter(|x| x.solved).count();
    let repeats = ignores_seed(algo);
    let (trials, successes) = if repeats {
        let (mut trials, mut successes) = (0, 0);
        for puzzle in r.chunk_by(|x, y| x.puzzle == y.puzzle) {
            if puzzle.iter().all(|x| x.solved == puzzle[0].solved) {
                trials += 1;
                successes += usize::from(puzzle[0].solved);
            } else {
                trials += puzzle.len();
                successes += puzzle.iter().filter(|x| x.solved).count();
            }
        }
        (trials, successes)
    } else {
        (r.len(), solved)
    };
    let mut ms: Vec<f64> = r.iter().map(|x| x.seconds * 1e3).collect();
    let mut it: Vec<f64> = r.iter().map(|x| x.iterations as f64).collect();
    let n = r.len().max(1) as f64;
    let solved_at: Vec<u32> = r
        .iter()
        .filter(|x| x.solved)
        .map(|x| x.iterations.min(u32::MAX as u64) as u32)
        .collect();
    let tts = tts99(&solved_at, r.len()).filter(|_| !repeats);
    // Each puzzle's runs, wherever they sit among the attempts.
    let mut by_puzzle: BTreeMap<usize, (usize, Vec<u32>)> = BTreeMap::new();
    for x in r {
        let e = by_puzzle.entry(x.puzzle).or_default();
        e.0 += 1;
        if x.solved {
            e.1.push(x.iterations.min(u32::MAX as u64) as u32);
        }
    }
    let per_puzzle = median_tts99(
        by_puzzle
            .values()
            .map(|(runs, at)| (*runs, tts99(at, *runs))),
    )
    .filter(|_| !repeats);
    let iterations: f64 = it.iter().sum();
    let seconds: f64 = ms.iter().sum::<f64>() / 1e3;
    let mut puzzles: Vec<usize> = r.iter().map(|x| x.puzzle).collect();
    puzzles.sort_unstable();
    puzzles.dedup();
    Row {
        file: file.to_string(),
        algo: algo.to_string(),
        unit: unit.to_string(),
        puzzles: puzzles.len(),
        runs,
        attempts: r.len(),
        solved,
        solved_pct: 100.0 * solved as f64 / n,
        solved_pct_95: wilson95(successes, trials).map(|(lo, hi)| [100.0 * lo, 100.0 * hi]),
        tts99: tts,
        tts99_s: tts
            .filter(|_| iterations > 0.0)
            .map(|t| t.steps * seconds / iterations),
        tts99_puzzle_median: per_puzzle,
        tts99_puzzle_median_s: per_puzzle
            .filter(|_| iterations > 0.0)
            .map(|t| t * seconds / iterations),
        mean_ms: ms.iter().sum::<f64>() / n,
        median_ms: median(&mut ms),
        mean_iterations: iterations / n,
        median_iterations: median(&mut it),
    }
}

/// The text table of `rows`, one line each under a header.
pub fn table(rows: &[Row]) -> String {
    let mut t = format!(
        "{:<24} {:<22} {:>8} {:>8} {:>13} {:>11} {:>13} {:>11} {:>11} {:>11} {:<11}\n",
        "file",
        "algorithm",
        "attempts",
        "solved%",
        "95% interval",
        "TTS99 iter",
        "TTS99/puzzle",
        "median ms",
        "mean ms",
        "median iter",
        "unit"
    );
    for r in rows {
        t += &format!(
            "{:<24} {:<22} {:>8} {:>8.1} {:>13} {:>11} {:>13} {:>11.3} {:>11.3} {:>11} {:<11}\n",
            r.file,
            r.algo,
            r.attempts,
            r.solved_pct,
            r.solved_pct_95
                .map_or("-".into(), |[lo, hi]| format!("{lo:.1}–{hi:.1}%")),
            r.tts99.map_or("-".into(), |t| format!("{:.0}", t.steps)),
            r.tts99_puzzle_median
                .map_or("-".into(), |t| format!("{t:.0}")),
            r.median_ms,
            r.mean_ms,
            r.median_iterations,
            r.unit
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcomes(o: &[(usize, bool, u64)]) -> Vec<AttemptOutcome> {
        o.iter()
            .map(|&(puzzle, solved, iterations)| AttemptOutcome {
                puzzle,
                solved,
                iterations,
                seconds: 0.001,
            })
            .collect()
    }

    #[test]
    fn entries_that_ignore_the_seed_count_puzzles_and_have_no_tts() {
        // Two puzzles × 3 runs; the first solved at 10 every time, the second never.
        let o = [
            (0, true, 10),
            (0, true, 10),
            (0, true, 10),
            (1, false, 50),
            (1, false, 50),
            (1, false, 50),
        ];
        let random = row("f", "sa", "steps", 3, &outcomes(&o));
        let search = row("f", "mrv", "nodes", 3, &outcomes(&o));
        for r in [&random, &search] {
            assert_eq!((r.attempts, r.solved, r.solved_pct), (6, 3, 50.0));
        }
        // sa: 3 of 6 independent runs; p(10) = 1/2 → 10·ln 0.01/ln 0.5 = 66.4 steps.
        let [lo, hi] = random.solved_pct_95.unwrap();
        let (l, h) = wilson95(3, 6).unwrap();
        assert_eq!((lo, hi), (100.0 * l, 100.0 * h));
        assert!((random.tts99.unwrap().steps - 66.44).abs() < 0.01);
        // Per puzzle: 10 (all three at 10) and infinite, so no median of two; with a third
        // puzzle solved in one of its three runs at 20 (20·ln 0.01/ln(2/3) = 227.1), the median
        // is that puzzle's.
        assert_eq!(random.tts99_puzzle_median, None);
        let mut three = o.to_vec();
        three.extend([(2, true, 20), (2, false, 50), (2, false, 50)]);
        let r3 = row("f", "sa", "steps", 3, &outcomes(&three));
        let want = 20.0 * 0.01f64.ln() / (2.0f64 / 3.0).ln();
        assert!((r3.tts99_puzzle_median.unwrap() - want).abs() < 1e-9);
        let per_iteration = 0.009 / r3.mean_iterations / 9.0;
        assert!((r3.tts99_puzzle_median_s.unwrap() - want * per_iteration).abs() < 1e-12);
        assert!(table(std::slice::from_ref(&r3)).contains(" 227 "));
        // Attempts of a puzzle need not sit together; one run per puzzle gives no median.
        let mut shuffled = outcomes(&three);
        shuffled.rotate_left(4);
        let again = row("f", "sa", "steps", 3, &shuffled).tts99_puzzle_median;
        assert_eq!(again, r3.tts99_puzzle_median);
        let single = row(
            "f",
            "sa",
            "steps",
            1,
            &outcomes(&[(0, true, 5), (1, true, 9)]),
        );
        assert_eq!(single.tts99_puzzle_median, None);
        // mrv: 1 of 2 puzzles, no TTS99.
        let (l, h) = wilson95(1, 2).unwrap();
        assert_eq!(search.solved_pct_95.unwrap(), [100.0 * l, 100.0 * h]);
        assert!(search.tts99.is_none() && search.tts99_s.is_none());
        assert!(search.tts99_puzzle_median.is_none());
        // A time budget stopped the search's runs at different points: a puzzle whose runs
        // disagree counts each (puzzle 0: 1 of 2), one whose runs agree counts once (puzzle 1:
        // unsolved twice, with other node counts); still no TTS99.
        let timed = [(0, true, 10), (0, false, 7), (1, false, 50), (1, false, 40)];
        let t = row("f", "astar", "nodes", 2, &outcomes(&timed));
        let (l, h) = wilson95(1, 3).unwrap();
        assert_eq!(t.solved_pct_95.unwrap(), [100.0 * l, 100.0 * h]);
        assert!(t.tts99.is_none());
        assert!(ignores_seed("rfss-mrv") && ignores_seed("exact") && !ignores_seed("ilca-pruned"));
        assert!(!ignores_seed("acs") && !ignores_seed("ga"));
    }
}
