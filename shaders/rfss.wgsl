// RFSS (resource-defined fitness sharing, Horn 2017) on the GPU: one workgroup per puzzle
// instance runs up to `params.gens` generations per dispatch. Mirrors src/rfss/cpu.rs and
// src/rfss/arith.rs operation for operation, under the CPU's stage names (loads, shares, the
// normaliser, select, readoff, Readoff::update); see docs/RFSS.md for why the bits agree.
// Every loop here is counted by loop_passes_per_generation (src/rfss/gpu.rs): the host keeps
// a dispatch under llvmpipe's 65,535 loop passes per invocation. Adding or changing a loop means
// updating that bound (docs/RFSS.md, "Loop budget per dispatch").

//
// The host prepends `const` lines (src/rfss/gpu.rs, `prelude`): every number this kernel shares
// with the Rust side, written from the Rust definitions: LANES (= arith::LANES, the workgroup
// size; it fixes the summation tree of the normaliser), RCP_MAGIC and RCP_STEPS (arith::rcp),
// RES_PER_SPECIES, the flag bits FLAG_DONE and FLAG_STALLED, the codes UNDERFLOW_*, WGM,
// WG_SP, WG_RES, WG_BLANK, WG_TALLY, TALLIES_PER_WORD and TALLY_BITS. No number of the Rust side is written here.
// When WGM is true, every instance of the batch fits workgroup memory (at most WG_SP species,
// WG_RES resources, WG_BLANK blank cells), and a dispatch keeps the instance's proportions p,
// shares w, loads and read-off there, loaded at its start and written back at its end (the
// stages gather these by index; on an H200 this ran about 10% faster than the storage buffers).
// Otherwise they stay in the storage buffers. The arithmetic is the same either way.

// The tree of arith::lane_sum is written out below as three levels that fold the LANES lanes
// into FOLD, then fold32, which adds exactly 32.
const FOLD: u32 = LANES / 8u;
const_assert FOLD == 32u;

struct Params {
    gens: u32,        // generations to run in this dispatch
    zero: u32,        // always 0; the compiler cannot know it (keeps products from fusing)
    thr_bits: u32,    // underflow threshold 2^-k as f32 bits
    underflow: u32,   // UNDERFLOW_EXTINCT: extinct below the threshold, UNDERFLOW_FLOOR: held there
    stable: u32,      // stable_generations
    stall: u32,       // stall_generations, 0 when the enhancement is off
    n_inst: u32,
    groups_x: u32,    // workgroups per row of a 2-D dispatch
    node_cap: u32,    // = enhance::node_cap: stalled after this many generations too; 0: never
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// Where one instance's data lies in the shared buffers (all offsets in elements).
struct Header {
    sp_off: u32,     // species: p[sp_off..], w in scratch[sp_off..], sp_res[4*sp_off..]
    n_sp: u32,
    n_res: u32,
    load_off: u32,   // loads in scratch[load_off..][..n_res]
    ptr_off: u32,    // csr[ptr_off..][..n_res+1]: list bounds, relative to list_off
    list_off: u32,   // csr[list_off..]: covering species (local ids), ascending per resource
    blank_off: u32,  // argmax[blank_off..][..n_blank]
    n_blank: u32,
}

// Per-instance read-off bookkeeping; = Readoff in src/rfss/mod.rs (+ limit and flags), and
// GpuReadoff in src/rfss/gpu.rs.
struct Readoff {
    generation: u32,
    streak: u32,
    streak_start: u32,
    conflicts: u32,
    unchanged: u32,
    flags: u32,
    limit: u32,      // generation limit of this instance
    pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> headers: array<Header>;
@group(0) @binding(2) var<storage, read> sp_res: array<u32>;
@group(0) @binding(3) var<storage, read> csr: array<u32>;
@group(0) @binding(4) var<storage, read_write> p: array<f32>;
@group(0) @binding(5) var<storage, read_write> scratch: array<f32>;
@group(0) @binding(6) var<storage, read_write> argmax: array<u32>;
@group(0) @binding(7) var<storage, read_write> state: array<Readoff>;

var<workgroup> wp: array<f32, WG_SP>;
var<workgroup> ww: array<f32, WG_SP>;
var<workgroup> wl: array<f32, WG_RES>;
var<workgroup> wa: array<u32, WG_BLANK>;
// With WGM: per blank cell, the load of its cell resource for the next generation, which the
// read-off sums as it selects (the loads stage's sum, in the same order).
var<workgroup> wcell: array<f32, WG_BLANK>;
var<workgroup> lanes: array<f32, LANES>;
var<workgroup> lanes32: array<f32, FOLD>;
var<workgroup> wg_conflicts: atomic<u32>;
var<workgroup> wg_changed: atomic<u32>;
var<workgroup> wg_flags: u32;
// = `tally` in cpu.rs: per non-cell resource r (from n_blank), TALLY_BITS of word
// (r - n_blank) / TALLIES_PER_WORD count the read-off's species covering it. A count stays at
// most 64 (a resource is one numeral in one unit), below 2^TALLY_BITS.
var<workgroup> tally: array<atomic<u32>, WG_TALLY>;

// A product that feeds an addition passes through here: XOR with a zero the compiler cannot
// see, so `a*b + c` can never be contracted into an FMA (which would round differently).
fn opaque(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ params.zero);
}

// = arith::rcp: integer guess, RCP_STEPS Newton steps y <- y*(2 - m*y).
fn rcp(m: f32) -> f32 {
    var y = bitcast<f32>(RCP_MAGIC - bitcast<u32>(m));
    for (var i = 0u; i < RCP_STEPS; i++) {
        let t = opaque(m * y);
        let e = 2.0 - t;
        y = y * e;
    }
    return y;
}

// Where the instance's mutable arrays live during the dispatch (see WGM).
fn get_p(h: Header, x: u32) -> f32 {
    if (WGM) {
        return wp[x];
    }
    return p[h.sp_off + x];
}
fn set_p(h: Header, x: u32, v: f32) {
    if (WGM) {
        wp[x] = v;
    } else {
        p[h.sp_off + x] = v;
    }
}
fn get_w(h: Header, x: u32) -> f32 {
    if (WGM) {
        return ww[x];
    }
    return scratch[h.sp_off + x];
}
fn set_w(h: Header, x: u32, v: f32) {
    if (WGM) {
        ww[x] = v;
    } else {
        scratch[h.sp_off + x] = v;
    }
}
fn get_load(h: Header, r: u32) -> f32 {
    if (WGM) {
        return wl[r];
    }
    return scratch[h.load_off + r];
}
fn set_load(h: Header, r: u32, v: f32) {
    if (WGM) {
        wl[r] = v;
    } else {
        scratch[h.load_off + r] = v;
    }
}
fn get_argmax(h: Header, i: u32) -> u32 {
    if (WGM) {
        return wa[i];
    }
    return argmax[h.blank_off + i];
}
fn set_argmax(h: Header, i: u32, v: u32) {
    if (WGM) {
        wa[i] = v;
    } else {
        argmax[h.blank_off + i] = v;
    }
}

// A barrier after a stage that wrote the arrays above.
fn stage_barrier() {
    if (WGM) {
        workgroupBarrier();
    } else {
        storageBarrier();
    }
}

// = select's rule in cpu.rs for one species: p' = w * rz, then the underflow policy.
fn selected(wx: f32, rz: f32, thr: f32) -> f32 {
    var v = opaque(wx * rz);
    if (wx != 0.0 && v < thr) {
        if (params.underflow == UNDERFLOW_FLOOR) {
            v = thr;
        } else { // UNDERFLOW_EXTINCT
            v = 0.0;
        }
    }
    return v;
}

// Counts the read-off's species on non-cell resource `k` (its index from n_blank) in `tally`;
// 1 if another cell's species had taken it already, so that a resource that c species cover
// adds c - 1 conflicts whatever the order of the cells.
fn take(k: u32) -> u32 {
    let shift = TALLY_BITS * (k % TALLIES_PER_WORD);
    let before = atomicAdd(&tally[k / TALLIES_PER_WORD], 1u << shift);
    return select(0u, 1u, extractBits(before, shift, TALLY_BITS) != 0u);
}

fn quad(i: u32) -> vec4<f32> {
    return vec4<f32>(lanes32[i], lanes32[i + 1u], lanes32[i + 2u], lanes32[i + 3u]);
}

// The last five levels of the lane_sum tree over lanes32 (level s adds lane i + s to lane i),
// as vector additions, which add component by component: the same sums in the same order.
fn fold32() -> f32 {
    let a0 = opaque4(quad(0u) + quad(16u));
    let a1 = opaque4(quad(4u) + quad(20u));
    let a2 = opaque4(quad(8u) + quad(24u));
    let a3 = opaque4(quad(12u) + quad(28u));
    let b0 = opaque4(a0 + a2);
    let b1 = opaque4(a1 + a3);
    let c = opaque4(b0 + b1);
    let d = c.xy + c.zw;
    return opaque(d.x) + opaque(d.y);
}

fn opaque4(v: vec4<f32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(bitcast<vec4<u32>>(v) ^ vec4<u32>(params.zero));
}

@compute @workgroup_size(LANES)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let inst = wid.x + wid.y * params.groups_x;
    if (inst >= params.n_inst) {
        return;
    }
    let h = headers[inst];
    let thr = bitcast<f32>(params.thr_bits);
    if (WGM) {
        for (var x = t; x < h.n_sp; x += LANES) {
            wp[x] = p[h.sp_off + x];
        }
        for (var i = t; i < h.n_blank; i += LANES) {
            wa[i] = argmax[h.blank_off + i];
        }
        workgroupBarrier();
    }
    var ran = false; // some generation ran in this dispatch (uniform: from wg_flags)

    for (var k = 0u; k < params.gens; k++) {
        if (t == 0u) {
            wg_flags = state[inst].flags;
            atomicStore(&wg_conflicts, 0u);
            atomicStore(&wg_changed, 0u);
        }
        let flags = workgroupUniformLoad(&wg_flags);
        if (flags != 0u) {
            break;
        }
        ran = true;

        // Stage `loads` (cpu.rs): covering species in ascending order. The tallies of the
        // last read-off are cleared here too: the normaliser's workgroup barriers order that
        // before this generation's read-off.
        let tally_words = (h.n_res - h.n_blank + TALLIES_PER_WORD - 1u) / TALLIES_PER_WORD;
        for (var q = t; q < tally_words; q += LANES) {
            atomicStore(&tally[q], 0u);
        }
        // The blank cells' loads come from the last generation's read-off where it ran in this
        // dispatch and the arrays are in workgroup memory; otherwise they are summed here.
        var first_res = 0u;
        if (WGM && k > 0u) {
            for (var i = t; i < h.n_blank; i += LANES) {
                wl[i] = wcell[i];
            }
            first_res = h.n_blank;
        }
        for (var r = first_res + t; r < h.n_res; r += LANES) {
            let a = csr[h.ptr_off + r];
            let e = csr[h.ptr_off + r + 1u];
            var acc = 0.0;
            for (var i = a; i < e; i++) {
                acc = opaque(acc + get_p(h, csr[h.list_off + i]));
            }
            set_load(h, r, acc);
        }
        stage_barrier();

        // Stage `shares` (cpu.rs): w = p / niche (4x niche: the factor cancels), then the
        // normaliser: lane partial sums and the tree of arith::lane_sum.
        var part = 0.0;
        for (var x = t; x < h.n_sp; x += LANES) {
            let px = get_p(h, x);
            var wx = 0.0;
            if (px != 0.0) {
                let b = (h.sp_off + x) * RES_PER_SPECIES;
                // opaque() between the additions: this order of summation, whatever the
                // compiler (llvmpipe's GL compiler regrouped the plain expression).
                let m = opaque(opaque(get_load(h, sp_res[b]) + get_load(h, sp_res[b + 1u]))
                    + get_load(h, sp_res[b + 2u])) + get_load(h, sp_res[b + 3u]);
                wx = opaque(px * rcp(m));
            }
            set_w(h, x, wx);
            part = opaque(part + wx);
        }
        lanes[t] = part;
        if (!WGM) {
            // The read-off reads w and writes p of species that other invocations wrote and
            // read here.
            storageBarrier();
        }
        workgroupBarrier();
        // The tree of arith::lane_sum with two barriers instead of eight: lane t < FOLD adds the
        // eight lanes the tree's first three levels (s = LANES/2, LANES/4, LANES/8) fold into
        // lane t, in the tree's order; then every lane does the last five levels itself (fold32).
        // (opaque() keeps a compiler from regrouping the sums, see `m` below.)
        if (t < FOLD) {
            let a = opaque(opaque(lanes[t] + lanes[t + 4u * FOLD]) + opaque(lanes[t + 2u * FOLD] + lanes[t + 6u * FOLD]));
            let b = opaque(opaque(lanes[t + FOLD] + lanes[t + 5u * FOLD]) + opaque(lanes[t + 3u * FOLD] + lanes[t + 7u * FOLD]));
            lanes32[t] = a + b;
        }
        workgroupBarrier();
        let rz = rcp(fold32());

        // Stages `select` and `readoff` (cpu.rs) in one pass over the blank cells. Every species
        // lies in exactly one blank cell (check_placement), so the cells' covering lists visit
        // each species once: its new proportion is computed, stored and compared there, with
        // no barrier between the two stages. Per cell the species of highest proportion (ties:
        // lowest index); then the conflicts, counted as `tally` (cpu.rs) counts them.
        for (var i = t; i < h.n_blank; i += LANES) {
            let a = csr[h.ptr_off + i];
            let e = csr[h.ptr_off + i + 1u];
            var best = 0u;
            var bp = 0.0;
            var cell_load = 0.0;
            for (var j = a; j < e; j++) {
                let x = csr[h.list_off + j];
                let v = selected(get_w(h, x), rz, thr);
                set_p(h, x, v);
                if (WGM) {
                    cell_load = opaque(cell_load + v);
                }
                if (j == a || v > bp) {
                    best = x;
                    bp = v;
                }
            }
            if (WGM) {
                wcell[i] = cell_load;
            }
            if (get_argmax(h, i) != best) {
                atomicOr(&wg_changed, 1u);
                set_argmax(h, i, best);
            }
            let b = (h.sp_off + best) * RES_PER_SPECIES;
            let taken = take(sp_res[b + 1u] - h.n_blank) + take(sp_res[b + 2u] - h.n_blank)
                + take(sp_res[b + 3u] - h.n_blank);
            if (taken != 0u) {
                atomicAdd(&wg_conflicts, taken);
            }
        }
        stage_barrier();
        if (!WGM) {
            workgroupBarrier(); // the tallies and the two counters, beside the storage arrays
        }

        // Streaks and the stop rule (= Readoff::update), by one invocation.
        if (t == 0u) {
            var st = state[inst];
            let conflicts = atomicLoad(&wg_conflicts);
            let changed = atomicLoad(&wg_changed) != 0u;
            st.generation += 1u;
            st.conflicts = conflicts;
            if (changed) {
                st.unchanged = 0u;
            } else {
                st.unchanged += 1u;
            }
            if (conflicts == 0u) {
                if (st.streak > 0u && !changed) {
                    st.streak += 1u;
                } else {
                    st.streak = 1u;
                    st.streak_start = st.generation;
                }
            } else {
                st.streak = 0u;
            }
            if (st.streak >= params.stable || st.generation >= st.limit) {
                st.flags = FLAG_DONE;
            } else if (params.stall != 0u && conflicts > 0u
                       && (st.unchanged >= params.stall
                           || (params.node_cap != 0u && st.generation >= params.node_cap))) {
                st.flags = FLAG_STALLED;
            }
            state[inst] = st;
        }
        // The next iteration's workgroupUniformLoad is the barrier that publishes st.flags.
    }

    if (WGM) {
        workgroupBarrier();
        for (var x = t; x < h.n_sp; x += LANES) {
            p[h.sp_off + x] = wp[x];
            if (ran) {
                scratch[h.sp_off + x] = ww[x];
            }
        }
        if (ran) {
            for (var r = t; r < h.n_res; r += LANES) {
                scratch[h.load_off + r] = wl[r];
            }
        }
        for (var i = t; i < h.n_blank; i += LANES) {
            argmax[h.blank_off + i] = wa[i];
        }
    }
}
