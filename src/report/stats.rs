//! The statistics every report shares: the Wilson score interval of a rate, and the
//! time-to-solution (TTS) the unconventional-computing literature compares stochastic solvers by.
//!
//! **TTS99.** From the per-run step counts of one setting on one puzzle set, p(t) is the fraction
//! of runs solved by step t. Restarting a run of length t until one succeeds needs
//! ln(0.01)/ln(1 − p(t)) runs for a 99% chance of success, so TTS99(t) = t · ln(0.01) / ln(1 − p(t))
//! steps (t itself when p(t) = 1). TTS99 is the minimum over t up to the step budget; it is
//! undefined when no run solved the puzzle set (p = 0 everywhere). Between two solved step counts
//! p(t) is constant and TTS99(t) grows with t, so the minimum is at a solved step count. In
//! seconds, TTS99 is its steps divided by the measured throughput of one instance
//! (instance-steps per second of the batch): the machine time a user would spend per solution at
//! 99% confidence. Over a set of different puzzles the pooled p(t) lets the easy ones set the
//! figure, so `batch` and `compare` also report the median over puzzles of each puzzle's own
//! TTS99 ([`median_tts99`]; `batch`'s overall row of several files over all their puzzles). Each algorithm's unit of "step" is its own (time-steps, generations, nodes).

use serde::{Deserialize, Serialize};

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval (95%) of `successes` out of `trials`, as fractions in [0, 1];
/// `None` for no trials.
pub fn wilson95(successes: usize, trials: usize) -> Option<(f64, f64)> {
    if trials == 0 {
        return None;
    }
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // At 0 and n the bounds are exactly 0 and 1 (the formula rounds to a hair inside).
    let lo = if successes == 0 { 0.0 } else { centre - half };
    let hi = if successes == trials {
        1.0
    } else {
        centre + half
    };
    Some((lo, hi))
}

/// Time to solution at 99% confidence.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Tts {
    /// TTS99 in the algorithm's steps.
    pub steps: f64,
    /// The run length t at which the minimum is reached.
    pub at: u32,
    /// p(t) there.
    pub p: f64,
}

/// TTS99 of `runs` runs whose solved ones finished at the step counts `solved_steps` (each at
/// most the budget); `None` when none solved.
pub fn tts99(solved_steps: &[u32], runs: usize) -> Option<Tts> {
    let mut counts = std::collections::BTreeMap::new();
    for &s in solved_steps {
        *counts.entry(s).or_insert(0) += 1;
    }
    tts99_of_counts(&counts, runs)
}

/// [`tts99`] of solved runs given as (step count → runs solved at it), the form long runs
/// keep instead of every run's record.
pub fn tts99_of_counts(
    solved: &std::collections::BTreeMap<u32, usize>,
    runs: usize,
) -> Option<Tts> {
    if solved.is_empty() || runs == 0 {
        return None;
    }
    let mut best: Option<Tts> = None;
    let mut i = 0;
    for (&t, &k) in solved {
        i += k;
        let here = tts99_at(t, i, runs);
        if best.is_none_or(|b| here.steps < b.steps) {
            best = Some(here);
        }
    }
    best
}

/// The TTS99 of runs of length `t` when `solved` of `runs` runs solve within `t` steps: the
/// one formula [`tts99_of_counts`] minimises, so a point kept from it gives the same value.
pub fn tts99_at(t: u32, solved: usize, runs: usize) -> Tts {
    let p = solved as f64 / runs as f64;
    let steps = if solved >= runs {
        t as f64
    } else {
        t as f64 * 0.01f64.ln() / (1.0 - p).ln()
    };
    Tts { steps, at: t, p }
}

/// The median of the puzzles' own TTS99 in steps, given per puzzle as (its runs, its TTS99;
/// `None` for a puzzle no run solved, counted as infinite). `None` for no puzzles, an infinite
/// median (half of them or more unsolved), or a puzzle of fewer than two runs (whose "TTS99"
/// would be only its step count).
pub fn median_tts99(per_puzzle: impl IntoIterator<Item = (usize, Option<Tts>)>) -> Option<f64> {
    let mut v = Vec::new();
    for (runs, t) in per_puzzle {
        if runs < 2 {
            return None;
        }
        v.push(t.map_or(f64::INFINITY, |t| t.steps));
    }
    median_of_steps(v)
}

/// The median of puzzles' TTS99 in steps (infinite for a puzzle no run solved), of puzzles
/// of two runs or more: `None` for none, or an infinite median.
pub fn median_of_steps(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let m = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    m.is_finite().then_some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_by_hand() {
        // 50 of 100: centre 0.5, half-width 1.96·sqrt(0.25/100 + 1.96²/40000)/(1 + 1.96²/100).
        let (lo, hi) = wilson95(50, 100).unwrap();
        assert!(
            (lo - 0.403_832).abs() < 1e-5 && (hi - 0.596_168).abs() < 1e-5,
            "{lo} {hi}"
        );
        // 0 of 10: [0, 0.2775]; 10 of 10: [0.7225, 1].
        let (lo, hi) = wilson95(0, 10).unwrap();
        assert_eq!(lo, 0.0);
        assert!((hi - 0.277_533).abs() < 1e-5, "{hi}");
        let (lo, hi) = wilson95(10, 10).unwrap();
        assert!((lo - 0.722_467).abs() < 1e-5 && hi == 1.0, "{lo}");
        assert_eq!(wilson95(0, 0), None);
    }

    #[test]
    fn tts_by_hand() {
        // 4 runs, solved at 10 and 30: p(10) = 1/4 → 10·ln 0.01/ln 0.75 = 160.08;
        // p(30) = 1/2 → 30·ln 0.01/ln 0.5 = 199.32; the minimum is at t = 10.
        let t = tts99(&[30, 10], 4).unwrap();
        assert_eq!(t.at, 10);
        assert_eq!(t.p, 0.25);
        assert!((t.steps - 160.078_7).abs() < 1e-3, "{}", t.steps);
        // Every run solved: TTS = the largest step count when that is the minimum.
        let t = tts99(&[5, 7], 2).unwrap();
        assert_eq!((t.steps, t.at, t.p), (7.0, 7, 1.0));
        // But a cheaper early restart can win: 1 of 2 at step 1 gives 1·ln .01/ln .5 = 6.64 < 100.
        let t = tts99(&[1, 100], 2).unwrap();
        assert_eq!(t.at, 1);
        assert!((t.steps - 6.643_856).abs() < 1e-5);
        // Ties count together: three runs solved at 4 of 3.
        assert_eq!(tts99(&[4, 4, 4], 3).unwrap().steps, 4.0);
        assert_eq!(tts99(&[], 5), None);
    }
}
