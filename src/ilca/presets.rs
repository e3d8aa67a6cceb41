//! Named ILCA settings: every setting of the paper's Tables 2–6 (under the documented default
//! reading: compare sharing, random ties, permutation check, penalty floor 0.001), with the
//! rates the paper reports for them, and the improved variants of docs/REPRODUCTION.md (not the
//! paper). Explicit options override a preset's fields.

use super::{IlcaParams, Prune};

/// The resolution rates (%) a paper table reports per tier; `None` where it reports none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperRates {
    /// "Table 2" etc.
    pub table: &'static str,
    pub easy: Option<f64>,
    pub medium: Option<f64>,
    pub hard: Option<f64>,
    pub evil: Option<f64>,
    pub overall: f64,
}

impl PaperRates {
    /// The rate for a tier name (`easy`, …, `overall`/`all`).
    pub fn tier(&self, name: &str) -> Option<f64> {
        match name {
            "easy" => self.easy,
            "medium" => self.medium,
            "hard" => self.hard,
            "evil" => self.evil,
            "overall" | "all" => Some(self.overall),
            _ => None,
        }
    }
}

/// A named setting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    pub name: &'static str,
    /// One line for `--help` and report headers.
    pub about: &'static str,
    pub steps: u32,
    pub lr: f64,
    pub lp: f64,
    pub sr: u32,
    pub restart: u32,
    /// Smallest penalty factor; `None`: the default reading's.
    pub penalty_floor: Option<f64>,
    /// What is done to a puzzle before ILCA starts (off for every paper preset).
    pub prune: Prune,
    /// Resource sharing (0: off, as in every paper preset); see [`IlcaParams::share`].
    pub share: f64,
    /// What the paper reports for this setting (paper presets only).
    pub paper: Option<PaperRates>,
}

const fn paper(table: &'static str, tiers: [Option<f64>; 4], overall: f64) -> Option<PaperRates> {
    Some(PaperRates {
        table,
        easy: tiers[0],
        medium: tiers[1],
        hard: tiers[2],
        evil: tiers[3],
        overall,
    })
}

/// Every preset, the paper's first.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "alg1",
        about: "the paper's Algorithm 1 (Table 2): lr = lp = 1, 250 steps",
        steps: 250,
        lr: 1.0,
        lp: 1.0,
        sr: 0,
        restart: 0,
        penalty_floor: None,
        prune: Prune::Off,
        share: 0.0,
        paper: paper(
            "Table 2",
            [Some(99.9), Some(96.7), Some(58.0), Some(35.5)],
            72.5,
        ),
    },
    Preset {
        name: "table3",
        about: "the paper's Table 3: lp/lr = 20 read as lp = 1, lr = 0.05, 250 steps",
        steps: 250,
        lr: 0.05,
        lp: 1.0,
        sr: 0,
        restart: 0,
        penalty_floor: None,
        prune: Prune::Off,
        share: 0.0,
        paper: paper("Table 3", [None, None, Some(93.0), Some(77.0)], 92.5),
    },
    Preset {
        name: "table4",
        about: "the paper's Table 4: lp/lr = 20 with lp = 3.5 (lr = 0.175), 250 steps",
        steps: 250,
        lr: 0.175,
        lp: 3.5,
        sr: 0,
        restart: 0,
        penalty_floor: None,
        prune: Prune::Off,
        share: 0.0,
        paper: paper("Table 4", [None, None, Some(98.0), Some(87.0)], 96.3),
    },
    Preset {
        name: "table5",
        about: "the paper's Table 5: selective reset every 40 steps, lr = lp = 1, 250 steps",
        steps: 250,
        lr: 1.0,
        lp: 1.0,
        sr: 40,
        restart: 0,
        penalty_floor: None,
        prune: Prune::Off,
        share: 0.0,
        paper: paper("Table 5", [None, None, Some(99.0), Some(96.0)], 98.8),
    },
    Preset {
        name: "table6",
        about:
            "the paper's best (Table 6): lp/lr = 15 read as lp = 1, lr = 1/15, sr = 65, 250 steps",
        steps: 250,
        lr: 0.066_666_7,
        lp: 1.0,
        sr: 65,
        restart: 0,
        penalty_floor: None,
        prune: Prune::Off,
        share: 0.0,
        paper: paper(
            "Table 6",
            [Some(100.0), Some(100.0), Some(100.0), Some(98.0)],
            99.3,
        ),
    },
    Preset {
        name: "improved",
        about: "improved variant, not the paper: lr = 0.01, lp = 1, sr = 50, restart every 500 \
                steps, 3,000 steps (passes the paper's best on the paper-model tiers)",
        steps: 3000,
        lr: 0.01,
        lp: 1.0,
        sr: 50,
        restart: 500,
        penalty_floor: None,
        prune: Prune::Off,
        share: 0.0,
        paper: None,
    },
    Preset {
        name: "improved10k",
        about:
            "the improved variant with 10,000 steps (not the paper): 100% on the paper-model tiers",
        steps: 10_000,
        lr: 0.01,
        lp: 1.0,
        sr: 50,
        restart: 500,
        penalty_floor: None,
        prune: Prune::Off,
        share: 0.0,
        paper: None,
    },
    Preset {
        name: "hard-penalty",
        about: "for unique puzzles, not the paper: lr = 1, lp = 20, sr = 40, restart every 500 \
                steps, 20,000 steps",
        steps: 20_000,
        lr: 1.0,
        lp: 20.0,
        sr: 40,
        restart: 500,
        penalty_floor: None,
        prune: Prune::Off,
        share: 0.0,
        paper: None,
    },
    Preset {
        name: "pruned",
        about: "singles placed first (--prune singles), then lr = 0.05, lp = 20, sr = 40, restart \
                every 750 steps, penalty floor 1e-6, 20,000 steps; not the paper (docs/BEYOND.md: \
                16x16 at 45% fixed 98.5%, unique 9x9 tiers 94% in 5,000 steps)",
        steps: 20_000,
        lr: 0.05,
        lp: 20.0,
        sr: 40,
        restart: 750,
        penalty_floor: Some(1e-6),
        prune: Prune::Singles,
        share: 0.0,
        paper: None,
    },
    Preset {
        name: "pruned-logic",
        about: "what logic fixes placed and the digits it rules out removed first (--prune \
                logic), then lr = 0.05, lp = 20, sr = 40, restart every 160 steps, penalty floor \
                1e-6, 5,000 steps; not the paper (docs/BEYOND.md: unique 9x9 tiers 98-99% in \
                5,000 steps)",
        steps: 5_000,
        lr: 0.05,
        lp: 20.0,
        sr: 40,
        restart: 160,
        penalty_floor: Some(1e-6),
        prune: Prune::Logic,
        share: 0.0,
        paper: None,
    },
    Preset {
        name: "shared",
        about: "pruned-logic with resource sharing (--share 0.05: a conflicted cell's weight of a \
                digit is multiplied by 1/1.05 per peer holding it) and sr = 20; not the paper \
                (docs/BEYOND.md: unique 9x9 tiers 99.2% of runs in 5,000 steps over 3,600 \
                puzzles)",
        steps: 5_000,
        lr: 0.05,
        lp: 20.0,
        sr: 20,
        restart: 160,
        penalty_floor: Some(1e-6),
        prune: Prune::Logic,
        share: 0.05,
        paper: None,
    },
];

/// The preset called `name`.
pub fn by_name(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

impl Preset {
    /// The preset's parameters (the default reading for everything it does not set).
    pub fn params(&self) -> IlcaParams {
        self.apply(IlcaParams::default())
    }

    /// `base` with the preset's fields set.
    pub fn apply(&self, base: IlcaParams) -> IlcaParams {
        IlcaParams {
            steps: self.steps,
            lr: self.lr,
            lp: self.lp,
            sr: self.sr,
            restart: self.restart,
            penalty_floor: self.penalty_floor.unwrap_or(base.penalty_floor),
            prune: self.prune,
            share: self.share,
            ..base
        }
    }

    /// The paper preset whose setting `params` is (any seed), if any: the same rates, periods
    /// and step limit under the default reading.
    pub fn paper_setting_of(params: &IlcaParams) -> Option<&'static Preset> {
        Preset::paper_setting_where(params.seed, |want| want == params)
    }

    /// The paper preset whose setting, run with `seed`, passes `same` (a comparison with
    /// parameters known otherwise, e.g. as a report's JSON), if any.
    pub fn paper_setting_where(
        seed: u64,
        same: impl Fn(&IlcaParams) -> bool,
    ) -> Option<&'static Preset> {
        PRESETS
            .iter()
            .filter(|p| p.paper.is_some())
            .find(|p| same(&IlcaParams { seed, ..p.params() }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_and_the_default_is_algorithm_1() {
        for p in PRESETS {
            p.params().validate().unwrap();
        }
        assert_eq!(by_name("alg1").unwrap().params(), IlcaParams::default());
        assert_eq!(
            Preset::paper_setting_of(&IlcaParams::default())
                .unwrap()
                .name,
            "alg1"
        );
        let t6 = IlcaParams {
            seed: 9,
            ..by_name("table6").unwrap().params()
        };
        assert_eq!(Preset::paper_setting_of(&t6).unwrap().name, "table6");
        let other = IlcaParams {
            compare: crate::ilca::Compare::Free,
            ..t6
        };
        assert!(
            Preset::paper_setting_of(&other).is_none(),
            "another reading"
        );
        assert!(Preset::paper_setting_of(&by_name("improved").unwrap().params()).is_none());
        assert_eq!(
            by_name("table3").unwrap().paper.unwrap().tier("evil"),
            Some(77.0)
        );
        assert_eq!(by_name("table3").unwrap().paper.unwrap().tier("easy"), None);
        // A preset may set the penalty floor and pruning; the paper's set neither.
        let u = by_name("pruned").unwrap().params();
        assert_eq!(
            (u.prune, u.penalty_floor, u.steps),
            (Prune::Singles, 1e-6, 20_000)
        );
        let l = by_name("pruned-logic").unwrap().params();
        assert_eq!(
            (l.prune, l.restart, l.steps),
            (Prune::Logic, 160, 5_000),
            "the 9x9 setting of docs/REPRODUCTION.md §6"
        );
        let s = by_name("shared").unwrap().params();
        assert_eq!(
            IlcaParams {
                share: 0.0,
                sr: 40,
                ..s
            },
            l,
            "pruned-logic with sharing and sr 20"
        );
        for p in PRESETS.iter().filter(|p| p.paper.is_some()) {
            assert_eq!(
                (p.prune, p.penalty_floor, p.share),
                (Prune::Off, None, 0.0),
                "{}",
                p.name
            );
        }
        let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(names, unique);
    }
}
