//! Compile-time agreement between the host's `#[repr(C)]` structs and bind-group layouts and
//! what the WGSL kernels declare. `build.rs` reads the kernels' structs (32-bit scalar members)
//! and `@binding` lines into the constants below; [`wgsl_struct!`](crate::wgsl_struct) and
//! [`bindings_match`] compare them with the Rust side in `const` assertions, so a member
//! added, removed, renamed or reordered on one side only is a compile error.

use super::{Access, Binding};

include!(concat!(env!("OUT_DIR"), "/wgsl_layout.rs"));

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Do the Rust struct's size and (member, offset) list equal the WGSL struct's?
pub const fn struct_matches(
    wgsl: (&[(&str, usize)], usize),
    rust_size: usize,
    rust: &[(&str, usize)],
) -> bool {
    if wgsl.1 != rust_size || wgsl.0.len() != rust.len() {
        return false;
    }
    let mut i = 0;
    while i < rust.len() {
        if !same_str(wgsl.0[i].0, rust[i].0) || wgsl.0[i].1 != rust[i].1 {
            return false;
        }
        i += 1;
    }
    true
}

/// Are the host's bindings the kernel's, name and access, in binding order?
pub const fn bindings_match(wgsl: &[(&str, Access)], host: &[Binding]) -> bool {
    if wgsl.len() != host.len() {
        return false;
    }
    let mut i = 0;
    while i < host.len() {
        let same_access = matches!(
            (wgsl[i].1, host[i].access),
            (Access::Uniform, Access::Uniform)
                | (Access::Read, Access::Read)
                | (Access::ReadWrite, Access::ReadWrite)
        );
        if !same_access || !same_str(wgsl[i].0, host[i].name) {
            return false;
        }
        i += 1;
    }
    true
}

/// `wgsl_struct!(RustType as KERNEL_STRUCT { member, … })`: a compile-time assertion that the
/// `#[repr(C)]` Rust type has the WGSL struct's members at the WGSL struct's offsets (member
/// names as in the WGSL) and its size.
#[macro_export]
macro_rules! wgsl_struct {
    ($ty:ident as $wgsl:ident { $($field:ident),+ $(,)? }) => {
        const _: () = assert!(
            $crate::gpu::layout::struct_matches(
                $crate::gpu::layout::$wgsl,
                ::std::mem::size_of::<$ty>(),
                &[$((stringify!($field), ::std::mem::offset_of!($ty, $field))),+],
            ),
            concat!(stringify!($ty), " does not match ", stringify!($wgsl), " of the kernel"),
        );
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mismatches_are_found() {
        let wgsl: (&[(&str, usize)], usize) = (&[("a", 0), ("b", 4)], 8);
        assert!(struct_matches(wgsl, 8, &[("a", 0), ("b", 4)]));
        assert!(!struct_matches(wgsl, 8, &[("b", 0), ("a", 4)]));
        assert!(!struct_matches(wgsl, 12, &[("a", 0), ("b", 4)]));
        assert!(!struct_matches(wgsl, 4, &[("a", 0)]));
        let host = [Binding::uniform("p"), Binding::read("t")];
        assert!(bindings_match(
            &[("p", Access::Uniform), ("t", Access::Read)],
            &host
        ));
        assert!(!bindings_match(
            &[("p", Access::Uniform), ("t", Access::ReadWrite)],
            &host
        ));
        assert!(!bindings_match(
            &[("p", Access::Uniform), ("u", Access::Read)],
            &host
        ));
        assert!(!bindings_match(&[("p", Access::Uniform)], &host));
    }
}
