//! Which build made a result: the crate version, the git commit (and whether the engine's
//! sources differed from it), the compiler, wgpu and the target. `--version` prints it and
//! every JSON report's header carries it ([`crate::report::schema::Header`]), so a figure can
//! be traced to the engine that made it. build.rs records it; a build outside a git checkout
//! (a source tarball) says `commit unknown`.

use serde::Serialize;

/// The identity of this build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BuildInfo {
    /// The crate version (Cargo.toml).
    pub version: &'static str,
    /// The git commit, 12 hex digits, or `unknown`.
    pub commit: &'static str,
    /// Whether src/, shaders/, build.rs, Cargo.toml or Cargo.lock differed from `commit`;
    /// None when that is unknown.
    pub dirty: Option<bool>,
    /// `rustc --version` of the compiler that built it.
    pub rustc: &'static str,
    /// The wgpu version it links (Cargo.lock).
    pub wgpu: &'static str,
    /// The target triple.
    pub target: &'static str,
}

/// This build.
pub const BUILD: BuildInfo = BuildInfo {
    version: env!("CARGO_PKG_VERSION"),
    commit: env!("GPU_SUDOKU_COMMIT"),
    dirty: match env!("GPU_SUDOKU_DIRTY").as_bytes() {
        b"true" => Some(true),
        b"false" => Some(false),
        _ => None,
    },
    rustc: env!("GPU_SUDOKU_RUSTC"),
    wgpu: env!("GPU_SUDOKU_WGPU"),
    target: env!("GPU_SUDOKU_TARGET"),
};

impl BuildInfo {
    /// Version and commit in a few words: `0.1.0 (commit 0123456789ab)`, with `, modified`
    /// when the sources differed from the commit.
    pub fn short(&self) -> String {
        let modified = if self.dirty == Some(true) {
            ", modified"
        } else {
            ""
        };
        format!("{} (commit {}{modified})", self.version, self.commit)
    }

    /// Every field, one per line (`--version`).
    pub fn long(&self) -> String {
        let dirty = match self.dirty {
            Some(true) => "yes: src/, shaders/ or the manifests differ from the commit",
            Some(false) => "no",
            None => "unknown",
        };
        format!(
            "{}\ncommit: {}\nmodified: {dirty}\nrustc: {}\nwgpu: {}\ntarget: {}",
            self.short(),
            self.commit,
            self.rustc,
            self.wgpu,
            self.target
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_build_is_named() {
        let b = BUILD;
        assert!(!b.version.is_empty() && !b.rustc.is_empty() && !b.target.is_empty());
        // In a git checkout (CI's clone included) the commit is known.
        if std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(".git")
            .exists()
        {
            assert!(
                b.commit.len() == 12 && b.commit.bytes().all(|c| c.is_ascii_hexdigit()),
                "commit {:?}",
                b.commit
            );
            assert!(b.dirty.is_some());
        }
        assert!(b.wgpu.chars().next().is_some_and(|c| c.is_ascii_digit()));
        assert!(b.long().starts_with(&b.short()));
        assert!(b.long().contains(&format!("wgpu: {}", b.wgpu)));
    }
}
