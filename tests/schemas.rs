//! The published report schemas (docs/schema/): each is what `gpu-sudoku schema KIND` prints,
//! and real reports of every kind, merged ones included, validate against the committed file.

mod common;
use common::{bin, ok, run, temp_dir, two_shards};
use std::path::{Path, PathBuf};

/// Every report kind `gpu-sudoku schema` knows.
const KINDS: [&str; 6] = ["batch", "compare", "sweep", "rate", "rfss", "reproduce"];

/// The committed schema of `kind`.
fn committed(kind: &str) -> String {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/schema/{kind}.schema.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Checks the report at `report` against the committed schema of `kind`, every error named.
fn validates(kind: &str, report: &Path) {
    let schema: serde_json::Value = serde_json::from_str(&committed(kind)).unwrap();
    let text = std::fs::read_to_string(report).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema is a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .take(10)
        .collect();
    assert!(
        errors.is_empty(),
        "{} does not validate against docs/schema/{kind}.schema.json:\n{}",
        report.display(),
        errors.join("\n")
    );
}

/// Runs `args` (a command line's words) with `--json DIR/NAME`; the report's path.
fn report(dir: &Path, name: &str, args: &str) -> PathBuf {
    let path = dir.join(name);
    ok(&bin()
        .args(args.split_whitespace())
        .args(["--json", path.to_str().unwrap()])
        .output()
        .unwrap());
    path
}

/// Runs `args` as shards 1/2 and 2/2, merges them; the paths of both shards and the merge.
fn sharded(dir: &Path, stem: &str, args: &str) -> Vec<PathBuf> {
    let words: Vec<&str> = args.split_whitespace().collect();
    let mut paths: Vec<PathBuf> = two_shards(dir, stem, &words)
        .into_iter()
        .map(PathBuf::from)
        .collect();
    let merged = dir.join(format!("{stem}-merged.json"));
    ok(&bin()
        .arg("merge")
        .args(&paths)
        .args(["--json", merged.to_str().unwrap()])
        .output()
        .unwrap());
    paths.push(merged);
    paths
}

#[test]
fn the_committed_schemas_are_what_the_build_prints() {
    for kind in KINDS {
        let printed = ok(&run(&["schema", kind]));
        assert!(
            printed == committed(kind),
            "docs/schema/{kind}.schema.json is out of date: run \
             `gpu-sudoku schema {kind} -o docs/schema/{kind}.schema.json`"
        );
    }
}

#[test]
fn a_schema_rejects_a_report_with_a_field_it_does_not_name() {
    let dir = temp_dir("schema-strict");
    let rate = report(&dir, "rate.json", "rate puzzles/easy.txt");
    // RFSS's records flatten an enum (`status`, and `reason` for one of its values).
    let rfss = "rfss puzzles/easy.txt --max-generations 20 --backend cpu";
    let rfss = report(&dir, "rfss.json", rfss);
    for (kind, path) in [("rate", rate), ("rfss", rfss)] {
        validates(kind, &path);
        let schema: serde_json::Value = serde_json::from_str(&committed(kind)).unwrap();
        let mut doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        doc["puzzles"][0]["surprise"] = 1.into();
        assert!(
            !jsonschema::is_valid(&schema, &doc),
            "{kind}: an unnamed field passed"
        );
        // And one without a field it requires.
        let puzzle = doc["puzzles"][0].as_object_mut().unwrap();
        puzzle.remove("surprise");
        assert!(jsonschema::is_valid(&schema, &doc));
        doc.as_object_mut().unwrap().remove("tool");
        assert!(
            !jsonschema::is_valid(&schema, &doc),
            "{kind}: a missing field passed"
        );
    }
}

#[test]
fn batch_reports_validate_direct_and_merged() {
    let dir = temp_dir("schema-batch");
    let ilca = "batch puzzles/famous.txt --runs 2 --steps 40 --backend cpu";
    validates("batch", &report(&dir, "ilca.json", ilca));
    let rfss = "batch puzzles/easy.txt --algo rfss --max-generations 20 --backend cpu";
    validates("batch", &report(&dir, "rfss.json", rfss));
    // A file with a solution column: each puzzle's entry names it.
    let csv = dir.join("with-solutions.csv");
    std::fs::write(
        &csv,
        "puzzle,solution\n\
         8579243616.93..42.34271.9.84.318927.781542639295637184..48657121.82...46526471893,\
         857924361619358427342716958463189275781542639295637184934865712178293546526471893\n",
    )
    .unwrap();
    let solved = format!("batch {} --runs 2 --steps 40 --backend cpu", csv.display());
    let solved = report(&dir, "solutions.json", &solved);
    let text = std::fs::read_to_string(&solved).unwrap();
    assert!(
        text.contains("\"file_solution\""),
        "the file's solution is in the report"
    );
    validates("batch", &solved);
    for path in sharded(&dir, "s", ilca) {
        validates("batch", &path);
    }
}

#[test]
fn compare_and_sweep_reports_validate_direct_and_merged() {
    let dir = temp_dir("schema-compare-sweep");
    let compare =
        "compare puzzles/easy.txt --algos mrv,sa,ilca,rfss --runs 1 --time-limit 1s --max-iterations 200";
    validates("compare", &report(&dir, "compare.json", compare));
    let sweep = "sweep puzzles/easy.txt --sr 0:10:10 --runs 1 --steps 20 --backend cpu --d-bin 0.1";
    let csv = dir.join("sweep.csv");
    let with_csv = format!("{sweep} --csv {}", csv.display());
    validates("sweep", &report(&dir, "sweep.json", &with_csv));
    for (kind, args) in [("compare", compare), ("sweep", sweep)] {
        for path in sharded(&dir, kind, args) {
            validates(kind, &path);
        }
    }
}

#[test]
fn rate_rfss_and_reproduce_reports_validate() {
    let dir = temp_dir("schema-other");
    validates(
        "rate",
        &report(&dir, "rate.json", "rate puzzles/famous.txt"),
    );
    let rfss = "rfss puzzles/easy.txt --max-generations 20 --backend cpu";
    validates("rfss", &report(&dir, "rfss.json", rfss));
    for (name, args) in [
        ("ilca", "reproduce ilca --table 2 --runs 1 --backend cpu"),
        ("rfss", "reproduce rfss --max-generations 20 --backend cpu"),
        (
            "baselines",
            "reproduce baselines --what ga --runs 1 --ga-generations 5",
        ),
    ] {
        validates("reproduce", &report(&dir, &format!("{name}.json"), args));
    }
}
