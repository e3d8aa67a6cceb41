use super::*;
use crate::puzzle::parse_str;

fn err(p: Param, t: &str) -> String {
    parse_spec(p, t).unwrap_err().to_string()
}

#[test]
fn values_and_ranges_parse() {
    assert_eq!(parse_spec(Param::Lp, "3.5").unwrap(), Spec::Value(3.5));
    assert_eq!(
        parse_spec(Param::Sr, "10:30:10").unwrap(),
        Spec::Range(vec![10.0, 20.0, 30.0])
    );
    // The end is included only when it is on the grid.
    assert_eq!(
        parse_spec(Param::Steps, "50:120:50").unwrap(),
        Spec::Range(vec![50.0, 100.0])
    );
    // Rounded to the decimals written.
    assert_eq!(
        parse_spec(Param::Lr, "0.1:0.5:0.1").unwrap(),
        Spec::Range(vec![0.1, 0.2, 0.3, 0.4, 0.5])
    );
    assert_eq!(
        parse_spec(Param::Ratio, " 1:3:1 ").unwrap(),
        Spec::Range(vec![1.0, 2.0, 3.0])
    );
    assert_eq!(
        parse_spec(Param::Sr, "5:5:1").unwrap(),
        Spec::Range(vec![5.0])
    );
}

#[test]
fn bad_ranges_say_what_is_wrong() {
    let e = err(Param::Sr, "10:5:1");
    assert!(
        e.contains("--sr 10:5:1") && e.contains("end 5 is below the start 10"),
        "{e}"
    );
    let e = err(Param::Sr, "10:50:0");
    assert!(e.contains("step must be positive"), "{e}");
    let e = err(Param::Lr, "0.1:1:-0.1");
    assert!(e.contains("step must be positive"), "{e}");
    let e = err(Param::Lr, "1:2");
    assert!(e.contains("A:B:STEP") && e.contains("2 fields"), "{e}");
    let e = err(Param::Lp, "a:2:1");
    assert!(e.contains("start A `a` is not a number"), "{e}");
    let e = err(Param::Lp, "abc");
    assert!(e.contains("`abc` is not a number"), "{e}");
    let e = err(Param::Sr, "2.5");
    assert!(e.contains("not a whole number"), "{e}");
    let e = err(Param::Steps, "10:20:2.5");
    assert!(e.contains("not a whole number"), "{e}");
    let e = err(Param::Lr, "0:1:0.00001");
    assert!(e.contains("at most"), "{e}");
    let e = err(Param::Lr, "inf");
    assert!(e.contains("finite"), "{e}");
}

fn spec(f: impl FnOnce(&mut SweepSpec)) -> SweepSpec {
    let mut s = SweepSpec::default();
    f(&mut s);
    s
}

fn range(v: &[f64]) -> Option<Spec> {
    Some(Spec::Range(v.to_vec()))
}

#[test]
fn ratio_fixes_lp_by_default_or_lr_when_given() {
    let base = IlcaParams::default();
    let plan = Plan::new(&spec(|s| s.ratio = range(&[10.0, 20.0])), &base).unwrap();
    assert_eq!(plan.swept(), "ratio");
    assert_eq!(plan.points.len(), 2);
    assert_eq!((plan.points[1].lp, plan.points[1].lr), (1.0, 0.05));
    let plan = Plan::new(
        &spec(|s| {
            s.ratio = Some(Spec::Value(20.0));
            s.lp = range(&[3.5, 4.0]);
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
            s.ratio = range(&[2.0, 4.0]);
            s.lr = Some(Spec::Value(0.5));
        }),
        &base,
    )
    .unwrap();
    assert_eq!((plan.points[1].lr, plan.points[1].lp), (0.5, 2.0));
    let e = Plan::new(
        &spec(|s| {
            s.ratio = range(&[2.0, 4.0]);
            s.lr = Some(Spec::Value(0.5));
            s.lp = Some(Spec::Value(1.0));
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
    let e = Plan::new(&spec(|s| s.lr = Some(Spec::Value(0.5))), &base)
        .unwrap_err()
        .to_string();
    assert!(e.contains("nothing to sweep"), "{e}");
    let e = Plan::new(
        &spec(|s| {
            s.lr = range(&[0.1, 0.2]);
            s.lp = range(&[1.0, 2.0]);
            s.sr = range(&[10.0, 20.0]);
        }),
        &base,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("3 ranges") && e.contains("--lr, --lp, --sr"),
        "{e}"
    );
    // Settings are validated by the engine's rules.
    let e = Plan::new(&spec(|s| s.lp = range(&[-1.0, 1.0])), &base).unwrap_err();
    assert!(format!("{e:#}").contains("lp: must be"), "{e:#}");
    let e = Plan::new(
        &spec(|s| {
            s.sr = range(&[100.0, 300.0]);
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
            s.steps = range(&[50.0, 100.0, 150.0]);
            s.sr = range(&[0.0, 20.0]);
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
    let b = parse_baseline("lr=1, lp=1,sr=0").unwrap();
    assert_eq!(
        b,
        vec![(Param::Lr, 1.0), (Param::Lp, 1.0), (Param::Sr, 0.0)]
    );
    let plan = Plan::new(
        &spec(|s| {
            s.ratio = range(&[10.0, 20.0]);
            s.lp = Some(Spec::Value(3.5));
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
            s.ratio = Some(Spec::Value(20.0));
            s.lp = range(&[2.0, 3.5]);
            s.baseline = Some(vec![(Param::Lp, 1.0)]);
        }),
        &base,
    )
    .unwrap();
    let last = plan.runs.last().unwrap();
    assert_eq!((last.params.lr, last.params.lp), (0.05, 1.0));
    let e = Plan::new(
        &spec(|s| {
            s.sr = range(&[10.0, 20.0]);
            s.baseline = Some(vec![(Param::Lr, 1.0)]);
        }),
        &base,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("--baseline must set sr"), "{e}");
    assert!(parse_baseline("lr")
        .unwrap_err()
        .to_string()
        .contains("KEY=VALUE"));
    assert!(parse_baseline("steps=3")
        .unwrap_err()
        .to_string()
        .contains("unknown key"));
    assert!(parse_baseline("sr=1:5:1")
        .unwrap_err()
        .to_string()
        .contains("one value"));
    assert!(parse_baseline("sr=1,sr=2")
        .unwrap_err()
        .to_string()
        .contains("twice"));
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
    assert_eq!(back, vec![row, other]);
    let e = parse_csv("x.csv", "a,b\n").unwrap_err().to_string();
    assert!(e.contains("not a sweep CSV"), "{e}");
    let e = parse_csv("x.csv", &format!("{CSV_HEADER}\nratio,sweep,1,2\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("x.csv:2") && e.contains("4 fields"), "{e}");
}
