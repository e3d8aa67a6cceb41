//! The f32 arithmetic of one RFSS generation, written once here and mirrored line for line in
//! `shaders/rfss.wgsl`, so that the CPU and any Vulkan GPU produce identical bits.
//!
//! Why these steps give the same bits on both sides (details in `docs/RFSS.md`):
//! - Only `+`, `-` and `*` of f32 are used on values: Vulkan requires them correctly rounded
//!   (round to nearest even), like the CPU. There is no `/`, `exp`, `log` or `sqrt` in the kernel
//!   (Vulkan lets `/` be 2.5 ulp off and transcendental functions differ by driver).
//! - Reciprocals come from [`rcp`]: an integer initial guess and a fixed number of Newton steps,
//!   so the same operations run in the same order everywhere (accurate to 1 ulp).
//! - A GPU compiler may fuse `a*b + c` into one FMA (naga emits no `NoContraction`). Every
//!   product that feeds an addition goes through the kernel's `opaque()`: a bit-cast XOR with a
//!   zero the compiler cannot see (it comes from a uniform buffer), so no fusion is possible.
//!   The CPU never fuses (Rust does not contract floating-point expressions).
//! - Sums run in a fixed order: loads add the covering species in ascending species order;
//!   the normaliser is [`lane_sum`] (fixed strided lanes, then a fixed binary tree).
//! - Proportions never become subnormal (GPUs may flush subnormals): below the threshold
//!   2^-k (k ≤ 120) they are set to 0 or to 2^-k; see [`super::Underflow`].

/// Reduction width: the GPU workgroup size. Part of the arithmetic specification (it fixes the
/// summation tree of [`lane_sum`]); changing it changes results.
pub const LANES: usize = 256;

/// Newton steps of [`rcp`] (4 give ≤ 1 ulp from the correctly rounded 1/m for normal m).
pub const RCP_STEPS: u32 = 4;

/// Magic constant of the integer initial guess of 1/m.
pub const RCP_MAGIC: u32 = 0x7EF3_11C3;

/// Reciprocal of a positive normal f32 in [2^-122, 2^122]: integer guess, then Newton steps
/// `y ← y·(2 − m·y)`. Mirrored by `rcp` in the WGSL kernel.
#[inline]
pub fn rcp(m: f32) -> f32 {
    let mut y = f32::from_bits(RCP_MAGIC.wrapping_sub(m.to_bits()));
    for _ in 0..RCP_STEPS {
        let t = m * y; // opaque() on the GPU: keeps 2 − m·y from fusing
        let e = 2.0f32 - t;
        y *= e;
    }
    y
}

/// Sum of `v` in the canonical order: lane t (0..LANES) adds `v[t]`, `v[t+LANES]`, … in ascending
/// order starting from 0; then lanes are combined by a binary tree (lane t += lane t+s for
/// s = LANES/2, …, 1). The GPU workgroup does exactly this.
pub fn lane_sum(v: &[f32]) -> f32 {
    let mut lanes = [0.0f32; LANES];
    for (i, &x) in v.iter().enumerate() {
        lanes[i % LANES] += x;
    }
    let mut s = LANES / 2;
    while s > 0 {
        for t in 0..s {
            lanes[t] += lanes[t + s];
        }
        s /= 2;
    }
    lanes[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rcp_is_within_one_ulp_over_the_used_range() {
        let mut s: u64 = 7;
        for _ in 0..200_000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let e = ((s >> 33) % 240) as i32 - 120;
            let m = (1.0 + ((s >> 8) & 0xff_ffff) as f32 / 16_777_216.0) * 2f32.powi(e);
            let exact = 1.0f32 / m;
            let d = (rcp(m).to_bits() as i64 - exact.to_bits() as i64).abs();
            assert!(d <= 1, "rcp({m:e}) = {:e}, 1/m = {exact:e}", rcp(m));
        }
        assert!((rcp(1.0).to_bits() as i64 - 1.0f32.to_bits() as i64).abs() <= 1);
    }

    #[test]
    fn lane_sum_follows_the_stated_tree() {
        // Exact values: any order gives the same sum.
        let v: Vec<f32> = (0..1000).map(|i| i as f32).collect();
        assert_eq!(lane_sum(&v), 499_500.0);
        // Order-sensitive values: the tree differs from a left-to-right sum, and is reproducible.
        let w: Vec<f32> = (0..777).map(|i| 1.0 / (i as f32 + 1.3)).collect();
        let a = lane_sum(&w);
        assert_eq!(a.to_bits(), lane_sum(&w).to_bits());
        let seq: f32 = w.iter().sum();
        assert!((a - seq).abs() < 1e-4);
        assert_eq!(lane_sum(&[]), 0.0);
    }
}
