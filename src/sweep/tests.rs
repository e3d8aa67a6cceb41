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
    // The last two columns: the Wilson 95% interval of solved_pct (what the figures draw),
    // in percent to 2 decimals, named after the JSON's `solved_pct_95`; empty without instances.
    assert!(CSV_HEADER.ends_with(",solved_pct,mean_steps_solved,solved_pct_95_lo,solved_pct_95_hi"));
    let (lo, hi) = crate::report::stats::wilson95(69, 70).unwrap();
    let f: Vec<String> = row.csv_line().split(',').map(String::from).collect();
    assert_eq!(f.len(), CSV_HEADER.split(',').count());
    assert_eq!(
        f[16..],
        [format!("{:.2}", 100.0 * lo), format!("{:.2}", 100.0 * hi)]
    );
    assert_eq!(f[16..], ["92.34", "99.75"]);
    assert!(
        other.csv_line().ends_with(",0.00,,0.00,5.20"),
        "{}",
        other.csv_line()
    );
    let mut empty = other.clone();
    (empty.instances, empty.puzzles) = (0, 0);
    assert!(empty.csv_line().ends_with(",,"), "{}", empty.csv_line());
    // A CSV written before the interval columns still reads (plot-sweep on older sweeps).
    let cut = |r: &Row| r.csv_line().rsplitn(3, ',').last().unwrap().to_string();
    let old_header = CSV_HEADER
        .strip_suffix(",solved_pct_95_lo,solved_pct_95_hi")
        .unwrap();
    let old = format!("{old_header}\n{}\n{}\n", cut(&row), cut(&other));
    assert_eq!(parse_csv("old.csv", &old).unwrap(), back);
    let e = parse_csv("x.csv", &format!("{CSV_HEADER}\n{}\n", cut(&row)))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("x.csv:2") && e.contains("16 fields, expected 18"),
        "{e}"
    );
    let e = parse_csv("x.csv", "a,b\n").unwrap_err().to_string();
    assert!(e.contains("not a sweep CSV"), "{e}");
    let e = parse_csv("x.csv", &format!("{CSV_HEADER}\nratio,sweep,1,2\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("x.csv:2") && e.contains("4 fields"), "{e}");
}
