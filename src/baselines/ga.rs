//! The genetic algorithm of the Pyuzzle report (Vasylyeva, de Sá, Rusinova): rows as
//! permutations of their missing digits (clues fixed), fitness = digits missing from every
//! row, column and box (0 = solved), three selections × three crossovers at row borders ×
//! three mutations, elitism with the report's anti-stagnation penalty. One iteration = one
//! generation.

use super::{rng_for, Attempt, Baseline, Budget, Clock};
use crate::puzzle::Grid;
use anyhow::{bail, Result};
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand::RngExt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Fitness-proportionate (roulette) with weights 1/fitness (minimisation).
    Fps,
    /// Best of `tournament_size` individuals drawn uniformly.
    Tournament,
    /// Roulette over ranks: the best of N has weight N, the worst 1.
    Rank,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crossover {
    /// One point at a row border: the tails are exchanged.
    Single,
    /// Two points at row borders: the rows between them are exchanged.
    Two,
    /// Every row from either parent with probability 1/2 (a binary mask).
    Uniform,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// Two free cells of a row exchange their values.
    Swap,
    /// The free values between two random positions of a row are reversed.
    Inversion,
    /// The free values between two random positions of a row are shuffled.
    Scramble,
}

impl Selection {
    pub const ALL: [Selection; 3] = [Selection::Fps, Selection::Tournament, Selection::Rank];
    pub fn name(self) -> &'static str {
        match self {
            Selection::Fps => "fps",
            Selection::Tournament => "tournament",
            Selection::Rank => "rank",
        }
    }
}
impl Crossover {
    pub const ALL: [Crossover; 3] = [Crossover::Single, Crossover::Two, Crossover::Uniform];
    pub fn name(self) -> &'static str {
        match self {
            Crossover::Single => "single",
            Crossover::Two => "two",
            Crossover::Uniform => "uniform",
        }
    }
}
impl Mutation {
    pub const ALL: [Mutation; 3] = [Mutation::Swap, Mutation::Inversion, Mutation::Scramble];
    pub fn name(self) -> &'static str {
        match self {
            Mutation::Swap => "swap",
            Mutation::Inversion => "inversion",
            Mutation::Scramble => "scramble",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaParams {
    pub population: usize,
    pub crossover_rate: f64,
    pub mutation_rate: f64,
    pub selection: Selection,
    pub crossover: Crossover,
    pub mutation: Mutation,
    /// Individuals per tournament (the report does not give it).
    pub tournament_size: usize,
}

impl Default for GaParams {
    /// The report's settings (population 1000, crossover 0.7, mutation 0.3) with its
    /// recommended combination for easy and medium puzzles: rank, single point, swap.
    fn default() -> Self {
        GaParams {
            population: 1000,
            crossover_rate: 0.7,
            mutation_rate: 0.3,
            selection: Selection::Rank,
            crossover: Crossover::Single,
            mutation: Mutation::Swap,
            tournament_size: 4,
        }
    }
}

impl GaParams {
    pub fn validate(&self) -> Result<()> {
        if self.population < 2 {
            bail!(
                "GA population must be at least 2 (got {}); the report uses 1000",
                self.population
            );
        }
        for (what, r) in [
            ("crossover rate", self.crossover_rate),
            ("mutation rate", self.mutation_rate),
        ] {
            if !(0.0..=1.0).contains(&r) {
                bail!("GA {what} must be between 0 and 1 (got {r})");
            }
        }
        if self.tournament_size == 0 || self.tournament_size > self.population {
            bail!(
                "GA tournament size must be between 1 and the population {} (got {})",
                self.population,
                self.tournament_size
            );
        }
        Ok(())
    }

    /// Parses `SELECTION-CROSSOVER-MUTATION` (e.g. `rank-single-swap`) onto these params.
    pub fn with_combination(mut self, combo: &str) -> Result<GaParams> {
        let parts: Vec<&str> = combo.split('-').collect();
        let valid = "selection fps|tournament|rank, crossover single|two|uniform, mutation swap|inversion|scramble";
        let [s, c, m] = parts[..] else {
            bail!("GA combination `{combo}` must be SELECTION-CROSSOVER-MUTATION ({valid})");
        };
        self.selection = *Selection::ALL
            .iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| anyhow::anyhow!("unknown GA selection `{s}` ({valid})"))?;
        self.crossover = *Crossover::ALL
            .iter()
            .find(|x| x.name() == c)
            .ok_or_else(|| anyhow::anyhow!("unknown GA crossover `{c}` ({valid})"))?;
        self.mutation = *Mutation::ALL
            .iter()
            .find(|x| x.name() == m)
            .ok_or_else(|| anyhow::anyhow!("unknown GA mutation `{m}` ({valid})"))?;
        Ok(self)
    }
}

pub struct Ga {
    params: GaParams,
    name: String,
}

impl Ga {
    pub fn new(params: GaParams) -> Result<Ga> {
        params.validate()?;
        let name = format!(
            "ga-{}-{}-{}",
            params.selection.name(),
            params.crossover.name(),
            params.mutation.name()
        );
        Ok(Ga { params, name })
    }
    pub fn params(&self) -> &GaParams {
        &self.params
    }
}

/// Digits missing from every row, column and box (the report's fitness; 0 = solved).
pub fn fitness(cells: &[u8], n: usize, b: usize) -> u32 {
    let geom = crate::puzzle::Geometry::get(b);
    let mut missing = 0;
    for u in 0..3 * n {
        let mut seen = 0u64;
        for &c in geom.unit(u) {
            let v = cells[c as usize];
            if v != 0 {
                seen |= 1u64 << (v - 1);
            }
        }
        missing += n as u32 - seen.count_ones();
    }
    missing
}

#[derive(Clone)]
struct Ind {
    cells: Vec<u8>,
    /// True fitness.
    fit: u32,
    /// Added to `fit` for selection (the elite's anti-stagnation penalty).
    penalty: u32,
}

impl Ind {
    fn sel(&self) -> u32 {
        self.fit + self.penalty
    }
}

struct Ctx<'a> {
    n: usize,
    b: usize,
    /// Free cells of every row.
    free: Vec<Vec<usize>>,
    p: &'a GaParams,
}

impl Ctx<'_> {
    fn random(&self, puzzle: &Grid, rng: &mut Xoshiro256PlusPlus) -> Ind {
        let mut cells = puzzle.cells().to_vec();
        for r in 0..self.n {
            let row = &cells[r * self.n..(r + 1) * self.n];
            let mut missing: Vec<u8> = (1..=self.n as u8).filter(|v| !row.contains(v)).collect();
            missing.shuffle(rng);
            for (&c, v) in self.free[r].iter().zip(missing) {
                cells[c] = v;
            }
        }
        self.ind(cells)
    }
    fn ind(&self, cells: Vec<u8>) -> Ind {
        let fit = fitness(&cells, self.n, self.b);
        Ind {
            cells,
            fit,
            penalty: 0,
        }
    }
    fn mutate(&self, cells: &mut [u8], rng: &mut Xoshiro256PlusPlus) {
        for _ in 0..2 {
            let r = rng.random_range(0..self.n);
            let free = &self.free[r];
            if free.len() < 2 {
                continue;
            }
            let i = rng.random_range(0..free.len());
            let mut j = rng.random_range(0..free.len() - 1);
            if j >= i {
                j += 1;
            }
            let (lo, hi) = (i.min(j), i.max(j));
            match self.p.mutation {
                Mutation::Swap => cells.swap(free[i], free[j]),
                Mutation::Inversion | Mutation::Scramble => {
                    let mut vals: Vec<u8> = free[lo..=hi].iter().map(|&c| cells[c]).collect();
                    if self.p.mutation == Mutation::Inversion {
                        vals.reverse();
                    } else {
                        vals.shuffle(rng);
                    }
                    for (&c, v) in free[lo..=hi].iter().zip(vals) {
                        cells[c] = v;
                    }
                }
            }
        }
    }
    fn crossover(&self, a: &[u8], b: &[u8], rng: &mut Xoshiro256PlusPlus) -> (Vec<u8>, Vec<u8>) {
        let n = self.n;
        let from_b: Vec<bool> = match self.p.crossover {
            Crossover::Single => {
                let pt = rng.random_range(1..n);
                (0..n).map(|r| r >= pt).collect()
            }
            Crossover::Two => {
                let x = rng.random_range(1..n);
                let mut y = rng.random_range(1..n - 1);
                if y >= x {
                    y += 1;
                }
                let (lo, hi) = (x.min(y), x.max(y));
                (0..n).map(|r| r >= lo && r < hi).collect()
            }
            Crossover::Uniform => (0..n).map(|_| rng.random_bool(0.5)).collect(),
        };
        let (mut c1, mut c2) = (a.to_vec(), b.to_vec());
        for (r, &swap) in from_b.iter().enumerate() {
            if swap {
                c1[r * n..(r + 1) * n].copy_from_slice(&b[r * n..(r + 1) * n]);
                c2[r * n..(r + 1) * n].copy_from_slice(&a[r * n..(r + 1) * n]);
            }
        }
        (c1, c2)
    }
}

/// Roulette over `weights` (cumulative sums given).
fn roulette(cum: &[f64], rng: &mut Xoshiro256PlusPlus) -> usize {
    let x = rng.random::<f64>() * cum[cum.len() - 1];
    cum.partition_point(|&c| c <= x).min(cum.len() - 1)
}

impl Baseline for Ga {
    fn name(&self) -> &str {
        &self.name
    }
    fn unit(&self) -> &str {
        "generations"
    }
    fn solve(&self, puzzle: &Grid, seed: u64, budget: &Budget) -> Attempt {
        let clock = Clock::new(budget);
        let (n, b) = (puzzle.side(), puzzle.box_size());
        let p = &self.params;
        let free = (0..n)
            .map(|r| {
                (r * n..(r + 1) * n)
                    .filter(|&c| puzzle.get(c) == 0)
                    .collect()
            })
            .collect();
        let ctx = Ctx { n, b, free, p };
        let rows_ok = (0..n).all(|r| {
            let mut seen = 0u64;
            (r * n..(r + 1) * n).all(|c| {
                let v = puzzle.get(c);
                let bit = if v == 0 { 0 } else { 1u64 << (v - 1) };
                let fresh = seen & bit == 0;
                seen |= bit;
                fresh
            })
        });
        if !rows_ok {
            // A row repeats a clue: no permutation can fix it.
            return Attempt::verified(puzzle, puzzle.clone(), 0, &clock);
        }
        let mut rng = rng_for(seed);
        let mut pop: Vec<Ind> = (0..p.population)
            .map(|_| ctx.random(puzzle, &mut rng))
            .collect();
        let mut generations = 0u64;
        let best_of = |pop: &[Ind]| -> usize {
            (0..pop.len())
                .min_by_key(|&i| pop[i].fit)
                .expect("non-empty")
        };
        while pop[best_of(&pop)].fit > 0 && !clock.out(generations) {
            generations += 1;
            // Selection tables for this generation.
            let cum: Vec<f64> = match p.selection {
                Selection::Fps => pop
                    .iter()
                    .scan(0.0, |s, x| {
                        *s += 1.0 / x.sel().max(1) as f64;
                        Some(*s)
                    })
                    .collect(),
                Selection::Rank => Vec::new(),
                Selection::Tournament => Vec::new(),
            };
            let (order, rank_cum): (Vec<usize>, Vec<f64>) = if p.selection == Selection::Rank {
                let mut order: Vec<usize> = (0..pop.len()).collect();
                order.sort_by_key(|&i| std::cmp::Reverse(pop[i].sel())); // worst first
                let cum = (1..=pop.len()).scan(0.0, |s, r| {
                    *s += r as f64;
                    Some(*s)
                });
                (order, cum.collect())
            } else {
                (Vec::new(), Vec::new())
            };
            let select = |rng: &mut Xoshiro256PlusPlus| -> usize {
                match p.selection {
                    Selection::Fps => roulette(&cum, rng),
                    Selection::Rank => order[roulette(&rank_cum, rng)],
                    Selection::Tournament => (0..p.tournament_size)
                        .map(|_| rng.random_range(0..pop.len()))
                        .min_by_key(|&i| pop[i].sel())
                        .expect("size ≥ 1"),
                }
            };
            let mut next: Vec<Ind> = Vec::with_capacity(p.population + 1);
            while next.len() < p.population {
                let (a, bb) = (select(&mut rng), select(&mut rng));
                let (mut c1, mut c2) = if rng.random_bool(p.crossover_rate) {
                    ctx.crossover(&pop[a].cells, &pop[bb].cells, &mut rng)
                } else {
                    (pop[a].cells.clone(), pop[bb].cells.clone())
                };
                for c in [&mut c1, &mut c2] {
                    if rng.random_bool(p.mutation_rate) {
                        ctx.mutate(c, &mut rng);
                    }
                }
                next.push(ctx.ind(c1));
                if next.len() < p.population {
                    next.push(ctx.ind(c2));
                }
            }
            // Elitism: the best old individual replaces the worst new one; if the best new
            // one is no better, the elite's selection fitness grows by 1 (report §5).
            let mut elite = pop[best_of(&pop)].clone();
            let best_new = next.iter().map(|x| x.fit).min().expect("non-empty");
            if best_new == elite.sel() {
                elite.penalty += 1;
            }
            let worst = (0..next.len())
                .max_by_key(|&i| next[i].sel())
                .expect("non-empty");
            next[worst] = elite;
            pop = next;
        }
        let best = pop.swap_remove(best_of(&pop));
        let grid = Grid::from_cells(b, best.cells).expect("values stay in range");
        Attempt::verified(puzzle, grid, generations, &clock)
    }
}
