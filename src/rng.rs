//! Counter-based randomness shared bit for bit by the CPU engines and the WGSL kernels
//! (`shaders/rng.wgsl` is the same code): every draw is a pure function of
//! (seed, puzzle, run, step, cell), so results do not depend on thread count, batch
//! order or device.

/// The WGSL twin (`shaders/rng.wgsl`: `hash32` and `draw`), which kernels include.
pub const WGSL: &str = include_str!("../shaders/rng.wgsl");

/// Values that pin the functions: `hash32(1)`, `instance_key(1, 0, 0)` and
/// `draw(instance_key(1, 0, 0), 5, 80)`. Unit tests check the Rust side against them and
/// `tests/agree_rng.rs` checks the WGSL side, so a change to either is noticed.
pub const PINNED: [u32; 3] = [0x6889_90c0, 0x0b6c_72df, 0x84f3_08d0];

/// 32-bit integer hash ("lowbias32", Chris Wellons' hash-prospector): good avalanche,
/// only xor, shift and wrapping multiply, which WGSL's `u32` does identically.
#[inline]
pub fn hash32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// Key of one instance: the stream every draw of (puzzle, run) under `seed` comes from.
/// Computed on the host and uploaded, so the kernels never see 64-bit values.
#[inline]
pub fn instance_key(seed: u64, puzzle: u32, run: u32) -> u32 {
    let mut h = hash32(seed as u32 ^ 0x9e37_79b9);
    h = hash32(h ^ (seed >> 32) as u32);
    h = hash32(h ^ puzzle);
    hash32(h ^ run.wrapping_mul(0x85eb_ca6b))
}

/// The draw for `cell` at `step` of the instance with `key`.
#[inline]
pub fn draw(key: u32, step: u32, cell: u32) -> u32 {
    hash32(hash32(key ^ step.wrapping_mul(0xc2b2_ae35)) ^ cell)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_pin_the_function() {
        // Pinned so that a change to the Rust side (and so the WGSL twin) is noticed.
        assert_eq!(hash32(0), 0);
        assert_eq!(hash32(1), PINNED[0]);
        assert_eq!(instance_key(1, 0, 0), PINNED[1]);
        assert_eq!(draw(PINNED[1], 5, 80), PINNED[2]);
        let k = instance_key(42, 3, 7);
        assert_ne!(k, instance_key(42, 3, 8));
        assert_ne!(k, instance_key(43, 3, 7));
        assert_ne!(draw(k, 0, 0), draw(k, 0, 1));
        assert_ne!(draw(k, 0, 0), draw(k, 1, 0));
    }

    #[test]
    fn draws_are_roughly_uniform() {
        let k = instance_key(1, 0, 0);
        let mut buckets = [0u32; 8];
        for s in 0..200 {
            for c in 0..100 {
                buckets[(draw(k, s, c) % 8) as usize] += 1;
            }
        }
        for b in buckets {
            assert!((2200..2800).contains(&b), "{buckets:?}");
        }
    }
}
