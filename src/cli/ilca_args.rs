//! ILCA parameters on the command line, shared by every subcommand that runs ILCA (batch, trace,
//! bench, sweep, compare). A preset (`--preset`, default `alg1`: the paper's Algorithm 1, which
//! is `IlcaParams::default()`) gives every value; the options given explicitly override it.

use super::args::choice;
use gpu_sudoku::ilca::presets::{self, Preset, PRESETS};
use gpu_sudoku::ilca::{Compare, IlcaParams, Prune, ResetCheck, TieBreak};

/// `--preset NAME`: one of the presets, listed with what each is in `--help`.
pub fn preset_parser() -> impl clap::builder::TypedValueParser<Value = &'static Preset> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        PRESETS
            .iter()
            .map(|p| PossibleValue::new(p.name).help(p.about)),
    )
    .map(|name| presets::by_name(&name).expect("clap accepted one of the possible values"))
}

#[derive(clap::Args, Debug, Clone, Default)]
pub struct IlcaArgs {
    /// Maximum time-steps per run [default: the preset's; Algorithm 1: 250].
    #[arg(long)]
    pub steps: Option<u32>,
    /// Reward learning rate lr: r = 1 + d/|N|·lr (Eq. 8) [default: the preset's; Algorithm 1: 1].
    #[arg(long, allow_hyphen_values = true)]
    pub lr: Option<f64>,
    /// Penalty learning rate lp: p = 1 − (1 − d/|N|)·lp (Eq. 9) [default: the preset's;
    /// Algorithm 1: 1].
    #[arg(long, allow_hyphen_values = true)]
    pub lp: Option<f64>,
    /// Selective reset every SR steps (Algorithm 3); 0 = off [default: the preset's].
    #[arg(long)]
    pub sr: Option<u32>,
    #[command(flatten)]
    pub fixed: IlcaFixedArgs,
}

/// The ILCA options that `sweep` never varies (shared by batch, trace, bench and sweep).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct IlcaFixedArgs {
    /// A named setting: the paper's tables and the improved variants (see docs/REPRODUCTION.md);
    /// options given explicitly override its values.
    #[arg(long, value_parser = preset_parser(), value_name = "NAME")]
    pub preset: Option<&'static Preset>,
    /// Full restart (every free cell back to its initial weights) every RESTART steps; 0 = off.
    /// Not in the paper (improved variant) [default: the preset's].
    #[arg(long)]
    pub restart: Option<u32>,
    /// Smallest penalty factor (Eq. 9 gives p ≤ 0 for small degrees when lp > 1)
    /// [default: the preset's; 0.001, 1e-6 for `pruned`, `pruned-logic` and `shared`].
    #[arg(long, allow_hyphen_values = true)]
    pub penalty_floor: Option<f64>,
    /// Which neighbours' degrees a conflicted cell must beat to be rewarded [default: sharing].
    #[arg(long, value_parser = choice::<Compare>())]
    pub compare: Option<Compare>,
    /// Tie-breaking of the argmax among digits of equal weight [default: random]; `first` makes
    /// ILCA ignore the seed, so a batch runs each puzzle once.
    #[arg(long, value_parser = choice::<TieBreak>())]
    pub tie: Option<TieBreak>,
    /// When a row/column/box counts as resolved for the selective reset [default: permutation].
    #[arg(long, value_parser = choice::<ResetCheck>())]
    pub reset_check: Option<ResetCheck>,
    /// Seed of the counter-based random draws [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// NOT IN THE PAPER: `singles` places every naked and hidden single before ILCA starts
    /// (ILCA learns only the cells left open); `logic` also uses locked candidates and naked and
    /// hidden subsets, and the digits they rule out start with weight 0 [default: the preset's;
    /// off but for `pruned` (singles), `pruned-logic` and `shared` (logic)].
    #[arg(long, value_parser = choice::<Prune>())]
    pub prune: Option<Prune>,
    /// NOT IN THE PAPER: resource sharing, 0 = off, else a number up to 1000: a free cell with a
    /// conflict multiplies its weight of each digit by 1/(1 + SHARE) once per peer holding that
    /// digit, before its reward or penalty [default: the preset's; 0 but for `shared` (0.05)].
    #[arg(long, allow_hyphen_values = true)]
    pub share: Option<f64>,
}

impl IlcaFixedArgs {
    /// The preset's parameters (Algorithm 1 without `--preset`) with these options set.
    pub fn base(&self) -> IlcaParams {
        let p = self.preset.map_or_else(IlcaParams::default, Preset::params);
        IlcaParams {
            restart: self.restart.unwrap_or(p.restart),
            penalty_floor: self.penalty_floor.unwrap_or(p.penalty_floor),
            compare: self.compare.unwrap_or(p.compare),
            tie: self.tie.unwrap_or(p.tie),
            reset_check: self.reset_check.unwrap_or(p.reset_check),
            seed: self.seed.unwrap_or(p.seed),
            prune: self.prune.unwrap_or(p.prune),
            share: self.share.unwrap_or(p.share),
            ..p
        }
    }
}

impl IlcaArgs {
    /// The options given on the command line (for commands that run another algorithm and
    /// must refuse them rather than ignore them).
    pub fn given(&self) -> Vec<&'static str> {
        let f = &self.fixed;
        [
            (f.preset.is_some(), "--preset"),
            (self.steps.is_some(), "--steps"),
            (self.lr.is_some(), "--lr"),
            (self.lp.is_some(), "--lp"),
            (self.sr.is_some(), "--sr"),
            (f.restart.is_some(), "--restart"),
            (f.penalty_floor.is_some(), "--penalty-floor"),
            (f.compare.is_some(), "--compare"),
            (f.tie.is_some(), "--tie"),
            (f.reset_check.is_some(), "--reset-check"),
            (f.seed.is_some(), "--seed"),
            (f.prune.is_some(), "--prune"),
            (f.share.is_some(), "--share"),
        ]
        .into_iter()
        .filter_map(|(c, name)| c.then_some(name))
        .collect()
    }

    /// The effective parameters (preset, then explicit options), validated.
    pub fn params(&self) -> anyhow::Result<IlcaParams> {
        let b = self.fixed.base();
        let p = IlcaParams {
            steps: self.steps.unwrap_or(b.steps),
            lr: self.lr.unwrap_or(b.lr),
            lp: self.lp.unwrap_or(b.lp),
            sr: self.sr.unwrap_or(b.sr),
            ..b
        };
        p.validate().map_err(|mut e| {
            // A value the preset set, not the user: say where it came from.
            if let Some(preset) = self.fixed.preset {
                let flag = format!("--{}", e.param.replace('_', "-"));
                if !self.given().contains(&flag.as_str()) {
                    e.problem += &format!(
                        " ({flag} comes from --preset {}; give {flag} to change it)",
                        preset.name
                    );
                }
            }
            e
        })?;
        Ok(p)
    }

    /// The preset to name in reports: the one given (explicit options may have changed some
    /// of its values, which the reports list), else the paper setting the parameters are.
    pub fn preset_name(&self, params: &IlcaParams) -> Option<&'static str> {
        self.fixed
            .preset
            .or_else(|| Preset::paper_setting_of(params))
            .map(|p| p.name)
    }
}

/// The runs per puzzle a command makes of `asked`: one, with a note, for a setting that
/// ignores the seed (tie first), whose further runs would repeat the first.
pub fn runs_per_puzzle(params: &IlcaParams, asked: usize) -> usize {
    let runs = params.runs_per_puzzle(asked);
    if runs < asked {
        errln!(
            "note: --tie first ignores the seed (ILCA draws only to break ties): every run of a \
             puzzle would be the same run, so each puzzle runs once"
        );
    }
    runs
}
