// Cooperation between the instances of a portfolio (issue #36; not in the paper): the WGSL twin
// of src/ilca/cpu.rs `pull`, run between the ILCA kernel's dispatches after every `every`-th
// step. Two entry points, dispatched one after the other, one workgroup per instance:
// - `rank`: the instance's conflicted free cells (as cpu::State::degrees counts them, from the
//   states `choices` holds), folded into its portfolio's word of `best` as the complement of
//   (count × portfolio + index in the portfolio) by atomicMax. The host clears `best` to 0
//   first; an integer maximum does not depend on order, so the kept one is the CPU's best:
//   fewest conflicted cells, the lowest index on ties.
// - `pull`: every running instance but its portfolio's best multiplies, in each free cell, its
//   weight of the best's digit there by the factor, then rescales the row as cpu::rescale. A
//   portfolio whose best has no conflict has solved and is left alone.
// Only an f32 multiply by a host-made factor, powers of two and comparisons: nothing a driver can
// fuse or reorder. The host prepends the `const` lines (src/ilca/gpu_pull.rs, `prelude`).
// Loops are counted by `pull_loop_passes` there (lavapipe's per-dispatch loop limiter).

struct PullParams {
    num_instances: u32,
    portfolio: u32,
    factor_bits: u32,
    groups_x: u32,
}

@group(0) @binding(0) var<uniform> P: PullParams;
// The ILCA kernel's buffers: peers at the start of `tables`, clues at the start of each
// puzzle's block of `puzzle_data`, the puzzle of an instance in its line of `inst_info`.
@group(0) @binding(1) var<storage, read> tables: array<u32>;
@group(0) @binding(2) var<storage, read> puzzle_data: array<u32>;
@group(0) @binding(3) var<storage, read> inst_info: array<u32>;
@group(0) @binding(4) var<storage, read_write> weights: array<f32>;
@group(0) @binding(5) var<storage, read> choices: array<u32>;
@group(0) @binding(6) var<storage, read> status: array<u32>;
// Per portfolio: the complement of its best instance's rank (0: none yet).
@group(0) @binding(7) var<storage, read_write> best: array<atomic<u32>>;

var<workgroup> conflicted: atomic<u32>;

// The first word of instance `inst`'s puzzle block.
fn puzzle_base(inst: u32) -> u32 {
    return inst_info[inst * INFO_WORDS + INFO_PUZZLE] * PUZ_STRIDE;
}

@compute @workgroup_size(PULL_WG)
fn rank(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let inst = wid.x + wid.y * P.groups_x;
    if (li == 0u) {
        atomicStore(&conflicted, 0u);
    }
    workgroupBarrier();
    if (inst < P.num_instances) {
        let pbase = puzzle_base(inst);
        let cb = inst * CELLS;
        var mine = 0u;
        for (var c = li; c < CELLS; c += PULL_WG) {
            if (puzzle_data[pbase + c] == 0u) {
                let v = choices[cb + c];
                for (var i = 0u; i < NP; i++) {
                    if (choices[cb + tables[c * NP + i]] == v) {
                        mine += 1u;
                        break;
                    }
                }
            }
        }
        atomicAdd(&conflicted, mine);
    }
    workgroupBarrier();
    if (inst < P.num_instances && li == 0u) {
        let key = atomicLoad(&conflicted) * P.portfolio + inst % P.portfolio;
        atomicMax(&best[inst / P.portfolio], ~key);
    }
}

// x, or 0 below 2^-100 (cpu::flushed).
fn flushed(x: f32) -> f32 {
    return select(x, 0.0, x < bitcast<f32>(FLUSH_BELOW_BITS));
}

@compute @workgroup_size(PULL_WG)
fn pull(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let inst = wid.x + wid.y * P.groups_x;
    if (inst >= P.num_instances) {
        return;
    }
    if (status[inst] != 0u) {
        return;
    }
    let key = ~atomicLoad(&best[inst / P.portfolio]);
    let teacher = inst - inst % P.portfolio + key % P.portfolio;
    if (key / P.portfolio == 0u || teacher == inst) {
        return;
    }
    let f = bitcast<f32>(P.factor_bits);
    let pbase = puzzle_base(inst);
    for (var c = li; c < CELLS; c += PULL_WG) {
        if (puzzle_data[pbase + c] == 0u) {
            let row = (inst * CELLS + c) * N;
            let idx = row + choices[teacher * CELLS + c] - 1u;
            weights[idx] = weights[idx] * f;
            // cpu::rescale: the row's largest weight into [2^-32, 2^32] by a power of two,
            // then every weight below 2^-100 flushed.
            var m = 0.0;
            for (var d = 0u; d < N; d++) {
                if (weights[row + d] > m) {
                    m = weights[row + d];
                }
            }
            var s = 1.0;
            if (m > bitcast<f32>(SCALE_HIGH_BITS)) {
                s = bitcast<f32>(SCALE_LOW_BITS);
            } else if (m > 0.0 && m < bitcast<f32>(SCALE_LOW_BITS)) {
                s = bitcast<f32>(SCALE_HIGH_BITS);
            }
            for (var d = 0u; d < N; d++) {
                weights[row + d] = flushed(weights[row + d] * s);
            }
        }
    }
}
