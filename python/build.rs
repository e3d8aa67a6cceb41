//! Empty: the package has a build script only so that its `[build-dependencies]` (a feature
//! alignment with the root crate, see python/Cargo.toml) take part in the build.

fn main() {}
