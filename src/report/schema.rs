//! The schema pieces every JSON report shares: its layout version [`SCHEMA`], the [`Header`]
//! it opens with, the [`InputInfo`] that identifies each input by content, and the provenance
//! ([`provenance_here`]) that says where and when it was made.

use serde::Serialize;

/// Version of the JSON reports' layout; it changes when a field changes meaning or goes.
/// 3: `rate` names the file it read `inputs`, a list of [`InputInfo`] as every other report
/// does (2 had a single object `input`).
pub const SCHEMA: u32 = 3;

/// The fields every JSON report opens with: which tool and version wrote it, the build it came
/// from (commit, compiler, wgpu, target), its schema, and the command line that made it (so
/// the run can be repeated).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Header {
    pub tool: &'static str,
    pub version: &'static str,
    pub build: crate::build_info::BuildInfo,
    pub schema: u32,
    pub command: Vec<String>,
}

impl Header {
    /// The header of a report made by `command` (argv).
    pub fn new(command: Vec<String>) -> Header {
        Header {
            tool: "gpu-sudoku",
            version: env!("CARGO_PKG_VERSION"),
            build: crate::build_info::BUILD,
            schema: SCHEMA,
            command,
        }
    }
}

/// One input of a run, identified by its content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct InputInfo {
    pub path: String,
    pub puzzles: usize,
    /// [`crate::shard::content_hash`] of its puzzles (one-line grids), so the same puzzles under
    /// another name or layout are the same input.
    pub hash: String,
}

impl InputInfo {
    /// The input `path` holding the grids `lines` (one-line format).
    pub fn new<'a>(path: &str, lines: impl IntoIterator<Item = &'a str>) -> InputInfo {
        let lines: Vec<&str> = lines.into_iter().collect();
        InputInfo {
            path: path.into(),
            puzzles: lines.len(),
            hash: crate::shard::content_hash(lines.iter().map(|l| l.as_bytes())),
        }
    }
}

impl InputInfo {
    /// The input a puzzle file is.
    pub fn of_file(f: &crate::puzzle::PuzzleFile) -> InputInfo {
        InputInfo::of_grids(&f.path, f.puzzles.iter().map(|p| &p.grid))
    }

    /// The input `path` holding these grids.
    pub fn of_grids<'a>(
        path: &str,
        grids: impl IntoIterator<Item = &'a crate::puzzle::Grid>,
    ) -> InputInfo {
        // One line at a time: a file of a million puzzles needs no copy of them all.
        let mut content = crate::puzzle::Content::default();
        grids.into_iter().for_each(|g| content.add(g));
        InputInfo::of_content(path, &content)
    }

    /// The input `path` whose puzzles were `content`.
    pub fn of_content(path: &str, content: &crate::puzzle::Content) -> InputInfo {
        InputInfo {
            path: path.into(),
            puzzles: content.puzzles,
            hash: content.hash(),
        }
    }
}

/// Host name and start time (seconds since the Unix epoch) of this process's run.
pub fn provenance_here(started: std::time::SystemTime) -> serde_json::Value {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_default();
    let secs = started
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    serde_json::json!({ "host": host, "started_unix": secs })
}

/// The JSON Schema (draft 2020-12) of a report whose document is the type `T`, as its writer
/// serialises it, with the `digest` field that [`super::digest::write_signed`] adds where
/// `signed`. `title` names the report kind.
pub fn json_schema_of<T: schemars::JsonSchema>(title: &str, signed: bool) -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut schema = serde_json::Value::from(generator.into_root_schema_for::<T>());
    closed(&mut schema);
    schema["title"] = title.into();
    if signed {
        schema["properties"]["digest"] = serde_json::json!({
            "description": "The report's digest, its last field: the 64-bit FNV-1a hash (16 hex \
                            digits) of every byte before it. `merge` checks it before believing \
                            any record.",
            "type": "string",
            "pattern": "^[0-9a-f]{16}$",
        });
        if let Some(required) = schema["required"].as_array_mut() {
            required.push("digest".into());
        }
    }
    schema
}

/// Marks every object schema with fixed properties as closed (`unevaluatedProperties: false`)
/// unless it already says otherwise (a flattened map leaves it open): a field the writer adds
/// without its type saying so fails validation instead of passing unnoticed. The variants of a
/// flattened enum (a `oneOf` beside `properties`) stay open: their object closes over both.
fn closed(schema: &mut serde_json::Value) {
    close(schema, false);
}

fn close(schema: &mut serde_json::Value, flattened_part: bool) {
    match schema {
        serde_json::Value::Object(m) => {
            let fixed = m.contains_key("properties");
            if fixed && !flattened_part && !m.contains_key("additionalProperties") {
                m.insert("unevaluatedProperties".into(), false.into());
            }
            for (k, v) in m.iter_mut() {
                let parts = fixed && matches!(k.as_str(), "oneOf" | "anyOf" | "allOf");
                match v {
                    serde_json::Value::Array(a) if parts => {
                        a.iter_mut().for_each(|p| close(p, true));
                    }
                    _ => close(v, false),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|v| close(v, false)),
        _ => {}
    }
}
