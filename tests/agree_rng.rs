//! The counter-based RNG's WGSL twin (`shaders/rng.wgsl`) against `src/rng.rs`: the pinned
//! values and thousands of hashes and draws, bit for bit, run through a one-binding kernel.
//! Runs on whatever adapter exists (lavapipe in CI); SKIPPED without one, failing if
//! GPU_SUDOKU_REQUIRE_GPU=1.

mod common;
use gpu_sudoku::gpu::{Binding, BoundsChecks, Pipeline};
use gpu_sudoku::rng::{draw, hash32, instance_key, PINNED, WGSL};

const COUNT: u32 = 4096;

/// out[i] = hash32 of a spread input; out[COUNT + i] = draw(key, step, cell) over a grid; then
/// the two pinned values computed on the device.
const HARNESS: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
const COUNT: u32 = 4096u;
const KEY: u32 = 0x0b6c72dfu; // instance_key(1, 0, 0)
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < COUNT) {
        out[i] = hash32(i * 2654435761u);
        out[COUNT + i] = draw(KEY ^ (i >> 6u), i & 7u, i >> 3u);
    }
    if (i == 0u) {
        out[2u * COUNT] = hash32(1u);
        out[2u * COUNT + 1u] = draw(KEY, 5u, 80u);
    }
}
"#;

static BINDINGS: [Binding; 1] = [Binding::read_write("out")];

#[test]
fn wgsl_rng_equals_rust_rng() {
    assert_eq!(PINNED[1], instance_key(1, 0, 0));
    assert_eq!(PINNED[1], 0x0b6c_72df, "the harness hard-codes this key");
    let Some(gpu) = common::gpu() else { return };
    let source = format!("{WGSL}\n{HARNESS}");
    let k = Pipeline::new(gpu, "rng", &source, &BINDINGS, BoundsChecks::On).unwrap();
    let len = 2 * COUNT as usize + 2;
    let out = gpu.storage_zeroed("rng out", len as u64 * 4);
    let bind = k.bind(gpu, &[&out]);
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    k.dispatch(&mut enc, &bind, (COUNT / 64, 1));
    gpu.queue.submit([enc.finish()]);
    let got = gpu.read_u32(&out, len).unwrap();
    for i in 0..COUNT {
        let want_hash = hash32(i.wrapping_mul(2_654_435_761));
        let want_draw = draw(PINNED[1] ^ (i >> 6), i & 7, i >> 3);
        assert_eq!(got[i as usize], want_hash, "hash32 at {i}");
        assert_eq!(got[(COUNT + i) as usize], want_draw, "draw at {i}");
    }
    assert_eq!(got[len - 2], PINNED[0], "hash32(1) on the device");
    assert_eq!(
        got[len - 1],
        PINNED[2],
        "draw(instance_key(1, 0, 0), 5, 80) on the device"
    );
}
