//! Reads the structs and bindings the WGSL kernels declare (`shaders/*.wgsl`) and writes them
//! as Rust constants (`$OUT_DIR/wgsl_layout.rs`), so that the host code can check at compile
//! time that its `#[repr(C)]` structs and bind-group layouts are the kernel's
//! (`gpu::layout`). Only what the kernels use is understood: structs of 32-bit scalars and
//! `@group(0) @binding(i) var<…> name` lines; anything else in a struct stops the build.
//!
//! It also records the build's identity (commit, toolchain, wgpu, target) for `--version` and
//! every report's header (`crate::build_info`).

use std::fmt::Write as _;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=shaders");
    build_identity();
    let mut out = String::new();
    let mut files: Vec<_> = std::fs::read_dir("shaders")
        .expect("shaders/ is next to Cargo.toml")
        .map(|e| e.expect("a readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "wgsl"))
        .collect();
    files.sort();
    for path in files {
        let kernel = path.file_stem().unwrap().to_string_lossy().to_uppercase();
        let text = std::fs::read_to_string(&path).expect("a readable shader");
        let code: Vec<String> = text
            .lines()
            .map(|l| l.split("//").next().unwrap().trim().to_string())
            .collect();
        let mut bindings = Vec::new();
        let mut i = 0;
        while i < code.len() {
            let line = &code[i];
            if let Some(rest) = line.strip_prefix("struct ") {
                let name = rest.trim_end_matches('{').trim().to_uppercase();
                let mut fields = Vec::new();
                i += 1;
                while !code[i].starts_with('}') {
                    let m = code[i].trim_end_matches(',');
                    if !m.is_empty() {
                        let (field, ty) = m.split_once(':').unwrap_or_else(|| {
                            panic!("{}: cannot read struct member `{m}`", path.display())
                        });
                        let ty = ty.trim();
                        assert!(
                            ["u32", "i32", "f32"].contains(&ty),
                            "{}: struct {name} member `{m}`: only 32-bit scalars are checked",
                            path.display()
                        );
                        fields.push(field.trim().to_string());
                    }
                    i += 1;
                }
                let list: Vec<String> = fields
                    .iter()
                    .enumerate()
                    .map(|(k, f)| format!("(\"{f}\", {})", 4 * k))
                    .collect();
                writeln!(
                    out,
                    "/// `struct {}` of shaders/{}: members and byte offsets; size {} bytes.\n\
                     pub const {kernel}_{name}: (&[(&str, usize)], usize) = (&[{}], {});",
                    rest.trim_end_matches('{').trim(),
                    path.file_name().unwrap().to_string_lossy(),
                    4 * fields.len(),
                    list.join(", "),
                    4 * fields.len()
                )
                .unwrap();
            } else if let Some(rest) = line.strip_prefix("@group(0) @binding(") {
                let (index, decl) = rest.split_once(')').unwrap();
                let decl = decl
                    .trim()
                    .strip_prefix("var<")
                    .unwrap_or_else(|| panic!("{}: cannot read binding `{line}`", path.display()));
                let (space, name) = decl.split_once('>').unwrap();
                let name = name.split(':').next().unwrap().trim();
                let access = match space.replace(' ', "").as_str() {
                    "uniform" => "Uniform",
                    "storage,read" => "Read",
                    "storage,read_write" => "ReadWrite",
                    other => panic!("{}: unknown address space `{other}`", path.display()),
                };
                bindings.push((index.parse::<usize>().unwrap(), name.to_string(), access));
            }
            i += 1;
        }
        if !bindings.is_empty() {
            bindings.sort();
            let list: Vec<String> = bindings
                .iter()
                .enumerate()
                .map(|(k, (index, name, access))| {
                    assert_eq!(*index, k, "{}: bindings must be 0, 1, 2, …", path.display());
                    format!("(\"{name}\", Access::{access})")
                })
                .collect();
            writeln!(
                out,
                "/// The bind group of shaders/{}: binding i = entry i.\n\
                 pub const {kernel}_BINDINGS: &[(&str, Access)] = &[{}];",
                path.file_name().unwrap().to_string_lossy(),
                list.join(", ")
            )
            .unwrap();
        }
    }
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("wgsl_layout.rs");
    std::fs::write(dest, out).unwrap();
}

/// The files the engine is built from: "dirty" means one of them differs from the commit.
const SOURCES: &[&str] = &["src", "shaders", "build.rs", "Cargo.toml", "Cargo.lock"];

/// Sets `GPU_SUDOKU_COMMIT` (12 hex digits, or `unknown` outside a git checkout, e.g. a source
/// tarball), `GPU_SUDOKU_DIRTY` (`true`/`false`/empty when unknown), `GPU_SUDOKU_RUSTC`,
/// `GPU_SUDOKU_WGPU` and `GPU_SUDOKU_TARGET`.
fn build_identity() {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"]);
    let dirty = commit.as_ref().and_then(|_| {
        let mut args = vec![
            "--no-optional-locks",
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--",
        ];
        args.extend_from_slice(SOURCES);
        git(&args).map(|s| (!s.is_empty()).to_string())
    });
    // A commit or a branch moving reruns this; a source edit reruns it too, so the dirty flag
    // follows the sources the binary is built from. (Not the index: status may rewrite it.)
    for path in SOURCES {
        println!("cargo:rerun-if-changed={path}");
    }
    for name in ["HEAD", "packed-refs"] {
        if let Some(p) = git(&["rev-parse", "--git-path", name]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    if let Some(p) =
        git(&["symbolic-ref", "-q", "HEAD"]).and_then(|r| git(&["rev-parse", "--git-path", &r]))
    {
        println!("cargo:rerun-if-changed={p}");
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "unknown".into());
    let wgpu = locked_version("wgpu").unwrap_or_else(|| "unknown".into());
    println!(
        "cargo:rustc-env=GPU_SUDOKU_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
    println!(
        "cargo:rustc-env=GPU_SUDOKU_DIRTY={}",
        dirty.unwrap_or_default()
    );
    println!("cargo:rustc-env=GPU_SUDOKU_RUSTC={rustc}");
    println!("cargo:rustc-env=GPU_SUDOKU_WGPU={wgpu}");
    println!(
        "cargo:rustc-env=GPU_SUDOKU_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
}

/// The version of `package` that Cargo.lock pins.
fn locked_version(package: &str) -> Option<String> {
    let lock = std::fs::read_to_string("Cargo.lock").ok()?;
    let name = format!("name = \"{package}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == name {
            let v = lines.next()?.trim().strip_prefix("version = \"")?;
            return Some(v.trim_end_matches('"').to_string());
        }
    }
    None
}
