use super::*;
use crate::choice::Choice;
use crate::exact;
use crate::puzzle::parse_str;

fn grid(line: &str) -> Grid {
    parse_str(line, None).unwrap().remove(0).grid
}

const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const ESCARGOT: &str =
    "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..";

fn spec(model: Model, tier: Option<Tier>, d: Option<f64>, b: usize, count: usize) -> Spec {
    Spec {
        model,
        tier,
        d,
        unique: false,
        b,
        count,
        seed: 42,
    }
}

#[test]
fn tier_bands() {
    assert!(!Tier::Easy.band_contains(0.1));
    assert!(Tier::Easy.band_contains(0.1001));
    assert!(!Tier::Easy.band_contains(0.4));
    assert!(Tier::Medium.band_contains(0.4));
    assert!(Tier::Hard.band_contains(0.55));
    assert!(Tier::Evil.band_contains(0.7) && !Tier::Evil.band_contains(0.9));
    assert_eq!(Tier::for_d(0.62), Some(Tier::Hard));
    assert_eq!(Tier::for_d(0.95), None);
    // Blank counts stay in the band even where rounding d·81 would leave it.
    for &t in Tier::ALL {
        let (lo, hi, _) = t.d_band();
        for d in [lo + 1e-4, (lo + hi) / 2.0, hi - 1e-4] {
            for cells in [81, 256, 625] {
                let k = blanks_for(d, cells, Some(t));
                assert!(
                    t.band_contains(k as f64 / cells as f64),
                    "{t} d={d} cells={cells} k={k}"
                );
            }
        }
    }
    assert_eq!(blanks_for(324.0 / 625.0, 625, None), 324);
}

#[test]
fn bad_parameters_are_clear_errors() {
    let msg = |s: Spec| s.validate().unwrap_err().to_string();
    assert!(msg(spec(Model::Paper, None, None, 3, 1)).contains("--tier"));
    assert!(msg(spec(Model::Paper, None, Some(1.5), 3, 1)).contains("outside (0, 1)"));
    assert!(msg(spec(Model::Paper, None, Some(0.12345), 3, 1)).contains("4 decimals"));
    assert!(msg(spec(Model::Paper, Some(Tier::Evil), Some(0.5), 3, 1)).contains("evil band"));
    assert!(msg(spec(Model::Paper, Some(Tier::Easy), None, 3, 0)).contains("--count"));
    assert!(msg(spec(Model::Rated, None, None, 3, 1)).contains("--tier"));
    assert!(
        msg(spec(Model::Rated, Some(Tier::Hard), Some(0.95), 3, 1)).contains("outside (0, 0.9)")
    );
    assert!(msg(spec(Model::Rated, Some(Tier::Hard), Some(0.51234), 3, 1)).contains("4 decimals"));
    assert!(msg(spec(Model::Paper, Some(Tier::Easy), None, 9, 1)).contains("not supported"));
}

#[test]
fn paper_model_blanks_a_fraction_d_deterministically() {
    for &t in Tier::ALL {
        let s = spec(Model::Paper, Some(t), None, 3, 30);
        let a = generate(&s, &|| {}).unwrap();
        let b = generate(&s, &|| {}).unwrap();
        assert_eq!(a, b, "same seed, same puzzles");
        for g in &a {
            let d: f64 = g.extra.strip_prefix("d=").unwrap().parse().unwrap();
            assert!(t.band_contains(d), "{t}: {}", g.extra);
            assert!(t.band_contains(g.grid.blank_fraction()), "{t}");
            // Rounding, and keeping the count inside the band, move it by at most one cell.
            assert!((g.grid.blank_fraction() - d).abs() <= 1.0 / 81.0 + 1e-9);
            assert!(g.grid.is_consistent());
            assert!(g.solution.is_solution_of(&g.grid));
        }
    }
    let other = Spec {
        seed: 43,
        ..spec(Model::Paper, Some(Tier::Hard), None, 3, 5)
    };
    let base = spec(Model::Paper, Some(Tier::Hard), None, 3, 5);
    assert_ne!(
        generate(&other, &|| {}).unwrap(),
        generate(&base, &|| {}).unwrap()
    );
    // Puzzle i does not depend on how many are generated.
    let three = generate(&spec(Model::Paper, Some(Tier::Hard), None, 3, 3), &|| {}).unwrap();
    assert_eq!(three[..], generate(&base, &|| {}).unwrap()[..3]);
}

#[test]
fn paper_model_with_fixed_d_and_large_sizes() {
    let s = spec(Model::Paper, None, Some(0.5184), 5, 2);
    for g in generate(&s, &|| {}).unwrap() {
        assert_eq!(g.grid.clue_count(), 301);
        assert_eq!(g.extra, "d=0.5184");
        assert!(g.solution.is_solution_of(&g.grid));
    }
    let s = spec(Model::Paper, Some(Tier::Medium), None, 4, 3);
    for g in generate(&s, &|| {}).unwrap() {
        assert_eq!(g.grid.side(), 16);
        assert!(Tier::Medium.band_contains(g.grid.blank_fraction()));
    }
}

#[test]
fn paper_model_unique_variant() {
    let s = Spec {
        unique: true,
        ..spec(Model::Paper, Some(Tier::Hard), None, 3, 10)
    };
    for g in generate(&s, &|| {}).unwrap() {
        assert_eq!(exact::count_solutions(&g.grid, 2), 1);
        assert!(Tier::Hard.band_contains(g.grid.blank_fraction()));
    }
    let s = Spec {
        unique: true,
        ..spec(Model::Paper, None, Some(0.5184), 5, 1)
    };
    let g = generate(&s, &|| {}).unwrap().remove(0);
    assert_eq!(g.grid.clue_count(), 301);
    assert_eq!(exact::count_solutions(&g.grid, 2), 1);
    let bad = Spec {
        unique: true,
        ..spec(Model::Rated, Some(Tier::Hard), None, 3, 1)
    };
    assert!(bad.validate().unwrap_err().to_string().contains("--unique"));
}

#[test]
fn rated_model_gives_unique_puzzles_of_the_tier() {
    for &t in Tier::ALL {
        let s = spec(Model::Rated, Some(t), None, 3, 3);
        let out = generate(&s, &|| {}).unwrap();
        assert_eq!(out, generate(&s, &|| {}).unwrap());
        for g in out {
            assert_eq!(exact::count_solutions(&g.grid, 2), 1);
            let r = rate(&g.grid).unwrap();
            assert_eq!(r.tier, t, "{}", g.grid.to_line());
            assert!(g.extra.starts_with(&format!("tier={t} score={}", r.score)));
            assert!(g.solution.is_solution_of(&g.grid));
        }
    }
}

#[test]
fn rated_model_with_a_blank_fraction_stops_digging_there() {
    // 9x9 with 45 blanks, and 25x25 with the RFSS paper's 324 blanks (301 clues), logic only.
    for (b, d, blanks, tier) in [(3, 0.5556, 45, Tier::Medium), (5, 0.5184, 324, Tier::Easy)] {
        let s = spec(Model::Rated, Some(tier), Some(d), b, 2);
        let out = generate(&s, &|| {}).unwrap();
        assert_eq!(out, generate(&s, &|| {}).unwrap());
        for g in out {
            let n_blank = g.grid.cells().iter().filter(|&&v| v == 0).count();
            assert_eq!(n_blank, blanks);
            assert_eq!(exact::count_solutions(&g.grid, 2), 1);
            assert!(rate(&g.grid).unwrap().tier <= tier);
            assert!(g.solution.is_solution_of(&g.grid));
        }
    }
}

#[test]
fn rated_model_works_for_16x16() {
    let s = spec(Model::Rated, Some(Tier::Easy), None, 4, 1);
    let g = generate(&s, &|| {}).unwrap().remove(0);
    assert_eq!(exact::count_solutions(&g.grid, 2), 1);
    assert_eq!(rate(&g.grid).unwrap().tier, Tier::Easy);
}

#[test]
fn rater_on_known_puzzles() {
    let classic = rate(&grid(CLASSIC)).unwrap();
    assert_eq!(classic.tier, Tier::Easy);
    assert_eq!(classic.guesses(), 0);
    assert_eq!(
        classic.uses_of(Technique::HiddenSingle) + classic.uses_of(Technique::NakedSingle),
        51
    );
    let escargot = rate(&grid(ESCARGOT)).unwrap();
    assert_eq!(escargot.tier, Tier::Evil);
    assert!(escargot.guesses() > 0);
    assert!(escargot.score > classic.score);
    // Not unique: no rating.
    assert_eq!(rate(&Grid::empty(3)), None);
}

#[test]
fn capped_rating_stops_above_the_cap() {
    let e = grid(ESCARGOT);
    let s = exact::solve(&e).unwrap();
    assert_eq!(rate_capped(&e, &s, Tier::Hard), None);
    assert_eq!(rate_capped(&e, &s, Tier::Evil).unwrap().tier, Tier::Evil);
    let c = grid(CLASSIC);
    let cs = exact::solve(&c).unwrap();
    assert_eq!(rate_capped(&c, &cs, Tier::Easy).unwrap().tier, Tier::Easy);
}

/// Requests that can never be met give up after `max_grids` grids with a reason and a setting
/// that works (they used to loop forever).
#[test]
fn impossible_requests_give_up_with_a_suggestion() {
    let unique = |d, b| Spec {
        unique: true,
        ..spec(Model::Paper, None, Some(d), b, 1)
    };
    for (s, why, try_) in [
        (
            unique(0.9, 2),
            "none kept a unique solution with 14 of its 16 cells",
            "Try --d 0.",
        ),
        (
            unique(0.95, 3),
            "none kept a unique solution with 77 of its 81 cells",
            "Try --d 0.",
        ),
        (
            spec(Model::Rated, Some(Tier::Medium), None, 2, 1),
            "none gave a medium 4x4 puzzle (they gave 1000 easy)",
            "Try --tier easy",
        ),
    ] {
        let e = format!("{:#}", generate(&s, &|| {}).unwrap_err());
        assert!(e.contains("gave up after 1000 complete grids"), "{e}");
        assert!(e.contains(why) && e.contains(try_), "{e}");
    }
    // The suggestion works.
    let e = format!("{:#}", generate(&unique(0.95, 3), &|| {}).unwrap_err());
    let d: f64 = e.split("Try --d ").nth(1).unwrap()[..4].parse().unwrap();
    assert!(generate(&unique(d, 3), &|| {}).is_ok(), "--d {d}");
    assert_eq!(max_grids(3), 1000);
}

#[test]
fn a_paper_tier_is_read_only_from_the_papers_own_instances() {
    let h = |line: &str| vec![line.to_string()];
    let of = |line: &str| paper_tier_of(&h(line));
    assert_eq!(
        of("# gpu-sudoku generate --model paper --tier hard --count 100 --size 9 --seed 3"),
        Some(Tier::Hard)
    );
    // Older headers did not always name the size.
    assert_eq!(
        of("# gpu-sudoku generate --model paper --tier evil --count 4"),
        Some(Tier::Evil)
    );
    for other in [
        "# gpu-sudoku generate --model paper --tier medium --unique --count 10 --size 16 --seed 16",
        "# gpu-sudoku generate --model paper --tier medium --count 10 --size 16 --seed 16",
        "# gpu-sudoku generate --model paper --tier medium --unique --count 10 --size 9 --seed 1",
        "# gpu-sudoku generate --model rated --tier hard --count 100 --size 9 --seed 13",
        "# made by hand",
    ] {
        assert_eq!(of(other), None, "{other}");
    }
}

#[test]
fn a_time_limit_makes_a_puzzle_whole_or_fails_the_run() {
    for model in [Model::Paper, Model::Rated] {
        let s = Spec {
            unique: model == Model::Paper,
            ..spec(model, Some(Tier::Hard), None, 3, 7)
        };
        let err = generate_within(&s, Some(Duration::ZERO), &|| {}).unwrap_err();
        assert!(
            err.chain()
                .any(|c| c.downcast_ref::<TimeLimitReached>().is_some()),
            "{err:#}"
        );
        assert!(
            format!("{err:#}").contains("puzzle 1 of the run"),
            "{err:#}"
        );
        let limited = generate_within(&s, Some(Duration::from_secs(3600)), &|| {}).unwrap();
        assert_eq!(limited, generate(&s, &|| {}).unwrap());
    }
}

#[test]
fn the_streamed_report_is_the_report_printed_whole() {
    use super::report::{rows, write_json, Row};
    use crate::report::batch::{Header, InputInfo};
    /// The report as one document, as `rate` wrote it before it streamed.
    #[derive(serde::Serialize)]
    struct Whole<'a> {
        #[serde(flatten)]
        header: Header,
        inputs: [InputInfo; 1],
        puzzles: &'a [Row],
    }
    let puzzles = parse_str(&format!("{CLASSIC} name=classic\n{ESCARGOT}\n"), None).unwrap();
    let classified: Vec<_> = puzzles
        .iter()
        .map(|p| exact::Classified::Known(exact::classify(&p.grid)))
        .collect();
    let all = rows(&puzzles, &classified, &|| {});
    for k in 0..=2 {
        let rows: &[Row] = &all[..k];
        let input = InputInfo::of_grids("p.txt", puzzles[..k].iter().map(|p| &p.grid));
        let whole = Whole {
            header: Header::new(vec!["rate".into()]),
            inputs: [input.clone()],
            puzzles: rows,
        };
        let mut streamed = Vec::new();
        write_json(&mut streamed, vec!["rate".into()], input, |visit| {
            rows.iter().try_for_each(visit)
        })
        .unwrap();
        let expected = serde_json::to_string_pretty(&whole).unwrap() + "\n";
        assert_eq!(String::from_utf8(streamed).unwrap(), expected, "{k} rows");
    }
}
