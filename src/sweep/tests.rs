use super::*;
use crate::puzzle::parse_str;

fn spec<T>(f: impl FnOnce(&mut SweepSpec) -> T) -> SweepSpec {
    let mut s = SweepSpec::default();
    f(&mut s);
    s
}

#[test]
fn ratio_fixes_lp_by_default_or_lr_when_given() {
    let base = IlcaParams::default();
    let plan = Plan::new(
        &spec(|s| {
            s.values
                .insert(Param::Ratio, Values::Range(vec![10.0, 20.0]))
        }),
        &base,
    )
    .unwrap();
    assert_eq!(plan.swept(), "ratio");
    assert_eq!(plan.points.len(), 2);
    assert_eq!((plan.points[1].lp, plan.points[1].lr), (1.0, 0.05));
    let plan = Plan::new(
        &spec(|s| {
            s.values.insert(Param::Ratio, Values::One(20.0));
            s.values.insert(Param::Lp, Values::Range(vec![3.5, 4.0]));
        }),
        &base,
    )
    .unwrap();
    assert_eq!(plan.swept(), "lp");
    assert_eq!(
        (plan.points[0].lp, plan.points[0].lr, plan.points[0].ratio),
        (3.5, 0.175, 20.0)
    );
    let plan = Plan::new(
        &spec(|s| {
            s.values.insert(Param::Ratio, Values::Range(vec![2.0, 4.0]));
            s.values.insert(Param::Lr, Values::One(0.5));
        }),
        &base,
    )
    .unwrap();
    assert_eq!((plan.points[1].lr, plan.points[1].lp), (0.5, 2.0));
    let e = Plan::new(
        &spec(|s| {
            s.values.insert(Param::Ratio, Values::Range(vec![2.0, 4.0]));
            s.values.insert(Param::Lr, Values::One(0.5));
            s.values.insert(Param::Lp, Values::One(1.0));
        }),
        &base,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("not both"), "{e}");
}

#[test]
fn plans_need_one_or_two_ranges() {
    let base = IlcaParams::default();
    let e = Plan::new(
        &spec(|s| s.values.insert(Param::Lr, Values::One(0.5))),
        &base,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("nothing to sweep"), "{e}");
    let e = Plan::new(
        &spec(|s| {
            s.values.insert(Param::Lr, Values::Range(vec![0.1, 0.2]));
            s.values.insert(Param::Lp, Values::Range(vec![1.0, 2.0]));
            s.values.insert(Param::Sr, Values::Range(vec![10.0, 20.0]));
        }),
        &base,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("3 ranges") && e.contains("lr, lp, sr"), "{e}");
    // Settings are validated by the engine's rules.
    let e = Plan::new(
        &spec(|s| s.values.insert(Param::Lp, Values::Range(vec![-1.0, 1.0]))),
        &base,
    )
    .unwrap_err();
    assert!(format!("{e:#}").contains("lp: must be"), "{e:#}");
    let e = Plan::new(
        &spec(|s| {
            s.values
                .insert(Param::Sr, Values::Range(vec![100.0, 300.0]));
        }),
        &base,
    )
    .unwrap_err();
    assert!(
        format!("{e:#}").contains("sr: 300 is larger than the step limit 250"),
        "{e:#}"
    );
}

#[test]
fn a_steps_range_is_one_run_per_other_setting() {
    let base = IlcaParams::default();
    let plan = Plan::new(
        &spec(|s| {
            s.values
                .insert(Param::Steps, Values::Range(vec![50.0, 100.0, 150.0]));
            s.values.insert(Param::Sr, Values::Range(vec![0.0, 20.0]));
        }),
        &base,
    )
    .unwrap();
    assert_eq!(plan.swept(), "sr+steps");
    assert_eq!(plan.points.len(), 6);
    assert_eq!(plan.runs.len(), 2);
    for r in &plan.runs {
        assert_eq!(r.params.steps, 150);
        assert_eq!(r.points.len(), 3);
        assert!(r.points.iter().all(|p| p.sr == r.params.sr));
    }
}

#[test]
fn baselines_must_pin_swept_parameters() {
    let base = IlcaParams::default();
    let b = vec![(Param::Lr, 1.0), (Param::Lp, 1.0), (Param::Sr, 0.0)];
    let plan = Plan::new(
        &spec(|s| {
            s.values
                .insert(Param::Ratio, Values::Range(vec![10.0, 20.0]));
            s.values.insert(Param::Lp, Values::One(3.5));
            s.baseline = Some(b.clone());
        }),
        &base,
    )
    .unwrap();
    let last = plan.runs.last().unwrap();
    assert_eq!(last.role, Role::Baseline);
    assert_eq!(
        (last.params.lr, last.params.lp, last.params.sr),
        (1.0, 1.0, 0)
    );
    // Fig. 7: lp swept at lp/lr = 20; the baseline keeps the ratio.
    let plan = Plan::new(
        &spec(|s| {
            s.values.insert(Param::Ratio, Values::One(20.0));
            s.values.insert(Param::Lp, Values::Range(vec![2.0, 3.5]));
            s.baseline = Some(vec![(Param::Lp, 1.0)]);
        }),
        &base,
    )
    .unwrap();
    let last = plan.runs.last().unwrap();
    assert_eq!((last.params.lr, last.params.lp), (0.05, 1.0));
    let e = Plan::new(
        &spec(|s| {
            s.values.insert(Param::Sr, Values::Range(vec![10.0, 20.0]));
            s.baseline = Some(vec![(Param::Lr, 1.0)]);
        }),
        &base,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("the baseline must set sr"), "{e}");
}

#[test]
fn difficulty_comes_from_the_d_field() {
    let line = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    let mut p = parse_str(&format!("{line} x=1 d=0.6123"), None)
        .unwrap()
        .remove(0);
    assert_eq!(difficulty(&p), (0.6123, false));
    p.extra = "rated".into();
    let (d, fallback) = difficulty(&p);
    assert!(fallback);
    assert_eq!(d, 1.0 - 30.0 / 81.0);
}

#[test]
fn d_bins_are_half_open() {
    assert_eq!(d_bin(0.4, 0.05), (8, 0.4, 0.45));
    assert_eq!(d_bin(0.449, 0.05), (8, 0.4, 0.45));
    assert_eq!(d_bin(0.15, 0.05).0, 3);
}

#[test]
fn csv_rows_read_back_exactly() {
    let row = Row {
        swept: "ratio+sr".into(),
        role: Role::Sweep,
        point: Point {
            lr: 3.5 / 15.0,
            lp: 3.5,
            ratio: 15.0,
            sr: 65,
            steps: 250,
        },
        group: Group::D,
        label: "0.40-0.45".into(),
        d_lo: Some(0.4),
        d_hi: Some(0.45),
        puzzles: 7,
        instances: 70,
        solved: 69,
        mean_steps_solved: Some(41.25),
        fixed: Some(Fixed {
            restart: 160,
            penalty_floor: 1e-6,
            compare: crate::ilca::Compare::Free,
            tie: crate::ilca::TieBreak::Keep,
            reset_check: crate::ilca::ResetCheck::Sum,
            prune: crate::ilca::Prune::Logic,
            share: 0.05,
            seed: 7,
        }),
    };
    let mut other = row.clone();
    other.group = Group::File;
    other.label = "hard".into();
    other.d_lo = None;
    other.d_hi = None;
    other.solved = 0;
    other.mean_steps_solved = None;
    other.role = Role::Baseline;
    let text = format!("{CSV_HEADER}\n{}\n{}\n", row.csv_line(), other.csv_line());
    let back = parse_csv("x.csv", &text).unwrap();
    assert_eq!(back, vec![row.clone(), other.clone()]);
    // A label with a comma or a quote (a file named so) is quoted and reads back whole.
    let mut odd = other.clone();
    odd.label = "a,b \"c\"".into();
    assert!(
        odd.csv_line().contains(",\"a,b \"\"c\"\"\","),
        "{}",
        odd.csv_line()
    );
    let text = format!("{CSV_HEADER}\n{}\n", odd.csv_line());
    assert_eq!(parse_csv("x.csv", &text).unwrap(), vec![odd]);
    // Then the Wilson 95% interval of solved_pct (what the figures draw), in percent to 2
    // decimals, named after the JSON's `solved_pct_95`, empty without instances; last the
    // parameters the sweep held fixed, so that a row says everything that ran.
    assert!(CSV_HEADER.ends_with(&format!(
        ",solved_pct,mean_steps_solved,solved_pct_95_lo,solved_pct_95_hi,{}",
        Fixed::COLUMNS
    )));
    let (lo, hi) = crate::report::stats::wilson95(69, 70).unwrap();
    let f: Vec<String> = row.csv_line().split(',').map(String::from).collect();
    assert_eq!(f.len(), CSV_HEADER.split(',').count());
    assert_eq!(
        f[16..18],
        [format!("{:.2}", 100.0 * lo), format!("{:.2}", 100.0 * hi)]
    );
    assert_eq!(f[16..18], ["92.34", "99.75"]);
    assert_eq!(
        f[18..],
        ["160", "0.000001", "free", "keep", "sum", "logic", "0.05", "7"]
    );
    let fixed_text = ",160,0.000001,free,keep,sum,logic,0.05,7";
    assert!(
        other
            .csv_line()
            .ends_with(&format!(",0.00,,0.00,5.20{fixed_text}")),
        "{}",
        other.csv_line()
    );
    let mut empty = other.clone();
    (empty.instances, empty.puzzles) = (0, 0);
    assert!(
        empty.csv_line().ends_with(&format!(",,{fixed_text}")),
        "{}",
        empty.csv_line()
    );
    // A row without them (a merged shard of a build before they were recorded) leaves them
    // empty and reads back so.
    let mut bare = row.clone();
    bare.fixed = None;
    let text = format!("{CSV_HEADER}\n{}\n", bare.csv_line());
    assert_eq!(parse_csv("x.csv", &text).unwrap(), vec![bare.clone()]);
    // CSVs written before the fixed columns, and before the interval columns, still read
    // (plot-sweep on older sweeps), with no fixed parameters.
    let cut = |r: &Row, n: usize| {
        let line = r.csv_line();
        let f: Vec<&str> = line.split(',').collect();
        f[..f.len() - n].join(",")
    };
    let v2_header = CSV_HEADER
        .strip_suffix(&format!(",{}", Fixed::COLUMNS))
        .unwrap();
    let bare_back: Vec<Row> = back
        .iter()
        .map(|r| Row {
            fixed: None,
            ..r.clone()
        })
        .collect();
    let v2 = format!("{v2_header}\n{}\n{}\n", cut(&row, 8), cut(&other, 8));
    assert_eq!(parse_csv("v2.csv", &v2).unwrap(), bare_back);
    let v1_header = v2_header
        .strip_suffix(",solved_pct_95_lo,solved_pct_95_hi")
        .unwrap();
    let v1 = format!("{v1_header}\n{}\n{}\n", cut(&row, 10), cut(&other, 10));
    assert_eq!(parse_csv("old.csv", &v1).unwrap(), bare_back);
    let e = parse_csv("x.csv", &format!("{CSV_HEADER}\n{}\n", cut(&row, 2)))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("x.csv:2") && e.contains("24 fields, expected 26"),
        "{e}"
    );
    // A fixed parameter that no sweep could have run, or a name that is none of the choices.
    for (bad, what) in [
        (row.csv_line().replace(",0.05,7", ",-1,7"), "share"),
        (
            row.csv_line().replace(",keep,", ",maybe,"),
            "`maybe` is not one of random, first, keep",
        ),
        (row.csv_line().replace(",160,", ",4294967296,"), "too large"),
        (
            row.csv_line().replacen("ratio+sr", "sr+sr", 1),
            "`sr` is named twice",
        ),
        (
            row.csv_line().replacen("ratio+sr", "lr+lp+sr", 1),
            "names 3 swept parameters; a sweep varies one or two",
        ),
        // A second row of another sweep: the fixed parameters differ from the first row's.
        (
            format!(
                "{}\n{}",
                row.csv_line(),
                row.csv_line().replace(",0.05,7", ",0.1,7")
            ),
            "x.csv:3: the fixed parameters (restart 160, penalty_floor 0.000001, compare free, \
             tie keep, reset_check sum, prune logic, share 0.1, seed 7) differ from the first \
             row's (restart 160, penalty_floor 0.000001, compare free, tie keep, reset_check \
             sum, prune logic, share 0.05, seed 7)",
        ),
    ] {
        let e = parse_csv("x.csv", &format!("{CSV_HEADER}\n{bad}\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.csv:") && e.contains(what), "{e}");
    }
    // A byte-order mark before the header (a spreadsheet's save) is skipped.
    assert_eq!(
        parse_csv("x.csv", &format!("\u{feff}{text}")).unwrap(),
        vec![bare.clone()]
    );
    let e = parse_csv("x.csv", "a,b\n").unwrap_err().to_string();
    assert!(e.contains("not a sweep CSV"), "{e}");
    let e = parse_csv("x.csv", &format!("{CSV_HEADER}\nratio,sweep,1,2\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("x.csv:2") && e.contains("4 fields"), "{e}");
}

/// The subtitle names the fixed parameters that differ from the defaults, each written so that
/// it reads back as itself: 0.0010001 is not shown as the default floor 0.001.
#[test]
fn subtitles_name_fixed_parameters_exactly() {
    let mut fixed = Fixed::of(&IlcaParams::default());
    let row = |fixed: Fixed| Row {
        swept: "sr".into(),
        role: Role::Sweep,
        point: Point {
            lr: 1.0,
            lp: 1.0,
            ratio: 1.0,
            sr: 10,
            steps: 250,
        },
        group: Group::File,
        label: "hard".into(),
        d_lo: None,
        d_hi: None,
        puzzles: 3,
        instances: 6,
        solved: 1,
        mean_steps_solved: Some(9.0),
        fixed: Some(fixed),
    };
    let plain = figures::describe_fixed(&[row(fixed)], &[Param::Sr]);
    assert_eq!(
        plain,
        "lr = 1, lp = 1, lp/lr = 1, max steps = 250, 3 puzzles × 2 runs"
    );
    fixed.penalty_floor = 0.0010001;
    fixed.share = 0.05;
    fixed.prune = crate::ilca::Prune::Singles;
    let s = figures::describe_fixed(&[row(fixed)], &[Param::Sr]);
    assert!(
        s.contains("penalty floor = 0.0010001, prune singles, share = 0.05, 3 puzzles"),
        "{s}"
    );
}

/// Rows that cannot come from one sweep are refused where they stand: a repeated row (a sweep
/// written twice, two sweeps of the same files), a setting held fixed that changes, a sweep of
/// another parameter, a second header. A rate that follows from the two others may change.
#[test]
fn rows_of_one_sweep_only() {
    let at = |sr: u32, lr: f64, lp: f64, steps: u32| Row {
        swept: "sr".into(),
        role: Role::Sweep,
        point: Point {
            lr,
            lp,
            ratio: lp / lr,
            sr,
            steps,
        },
        group: Group::File,
        label: "hard".into(),
        d_lo: None,
        d_hi: None,
        puzzles: 10,
        instances: 20,
        solved: 5,
        mean_steps_solved: Some(40.0),
        fixed: None,
    };
    let csv = |rows: &[Row]| {
        let lines: Vec<String> = rows.iter().map(Row::csv_line).collect();
        format!("{CSV_HEADER}\n{}\n", lines.join("\n"))
    };
    let err = |rows: &[Row]| parse_csv("x.csv", &csv(rows)).unwrap_err().to_string();
    let a = at(10, 1.0, 1.0, 250);
    assert_eq!(
        parse_csv("x.csv", &csv(&[a.clone(), at(20, 1.0, 1.0, 250)]))
            .unwrap()
            .len(),
        2
    );
    let e = err(&[a.clone(), at(20, 1.0, 1.0, 250), a.clone()]);
    assert!(
        e.starts_with("x.csv:4: repeats line 2 (the same setting, file and hard)"),
        "{e}"
    );
    let e = err(&[a.clone(), at(20, 0.5, 1.0, 250)]);
    assert!(
        e.starts_with("x.csv:3: lr = 0.5 here but 1 at line 2, and the sweep of sr holds it fixed"),
        "{e}"
    );
    let e = err(&[a.clone(), at(20, 1.0, 1.0, 300)]);
    assert!(
        e.contains("x.csv:3: max steps = 300 here but 250 at line 2"),
        "{e}"
    );
    let mut other = at(20, 1.0, 1.0, 250);
    other.swept = "lr".into();
    let e = err(&[a.clone(), other]);
    assert!(
        e.contains("x.csv:3: a row of a sweep of lr after rows of a sweep of sr (line 2)"),
        "{e}"
    );
    let e = parse_csv(
        "x.csv",
        &format!(
            "{}{}",
            csv(std::slice::from_ref(&a)),
            csv(&[at(20, 1.0, 1.0, 250)])
        ),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("x.csv:3: a second header"), "{e}");
    let e = parse_csv("x.csv", "\nswept,role\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("x.csv:2: not a sweep CSV"), "{e}");
    // A sweep of lr at a fixed lp/lr: lp follows lr. At a fixed lp: the ratio follows.
    let lr_sweep = |lr: f64, lp: f64| Row {
        swept: "lr".into(),
        ..at(10, lr, lp, 250)
    };
    assert!(parse_csv("x.csv", &csv(&[lr_sweep(0.5, 0.5), lr_sweep(1.0, 1.0)])).is_ok());
    assert!(parse_csv("x.csv", &csv(&[lr_sweep(0.5, 1.0), lr_sweep(1.0, 1.0)])).is_ok());
    let e = err(&[lr_sweep(0.5, 0.5), lr_sweep(1.0, 2.0)]);
    assert!(e.contains("x.csv:3: lp = 2 here but 0.5 at line 2"), "{e}");
}
