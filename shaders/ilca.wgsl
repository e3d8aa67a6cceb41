// ILCA time-steps for many instances at once: the WGSL twin of src/ilca/cpu.rs (State::step),
// its stages under the CPU's names: choose, degrees, learn, reset.
//
// Mapping: a workgroup holds IPW instances, TPI invocations each; an invocation owns CPT cells
// of its instance (`own_cell`) and keeps their weights in private memory for the whole dispatch,
// which runs up to `k_steps` time-steps. The instance's states (two copies, by step parity) and
// degrees live in workgroup memory, so peers are read from there: one u32 per cell, or, where
// that does not fit the device (PACKED; 64x64 needs 62,216 bytes so), one byte per cell, four
// to a word (states are at most 64 and degrees at most NP = 175). A packed invocation owns whole
// words, runs of four cells, so it writes them with plain stores.
// Arithmetic on weights is only f32 multiplies by host-made factors and by powers of two, and
// comparisons: nothing a driver can fuse or reorder, so results equal the CPU's bit for bit.
//
// Unit counts (COUNTS, wherever an invocation owns several cells, whose peers are then computed
// rather than kept in registers): per instance, unit and digit, how many of the unit's cells hold
// the digit, a byte each. A cell's `choose` moves its own three counts when its digit changes;
// `degrees` then reads them after the first barrier: the peers sharing digit v number
// row + column + box - (row within the box) - (column within the box) - 1, so a degree costs 2B
// state reads instead of NP. `learn` reads no count (the next `choose` may be moving them): it
// keeps those numbers per own cell, and the reward test of COMPARE_SHARING visits only the parts
// of the peers (row, column, rest of the box) that hold the digit, until it has seen them all.
//
// Two workgroup barriers per time-step: one after `choose` (the states are published), one after
// `degrees` (the degrees, the unhappy flag and the resolved units are published). Step t writes
// its states into copy t % 2, so the next step's `choose` never overwrites a state that this
// step's `learn` may still read; degrees, flags and units are only written after the next
// step's first barrier, when every `learn` of this step is done.
//
// The host prepends `const` lines (src/ilca/gpu.rs, `prelude`) and shaders/rng.wgsl. The prelude
// holds every number this kernel shares with the Rust side, written from the Rust definitions:
// the sizes B, N, CELLS, NP, the mapping IPW, TPI, CPT, PACKED and CELLS_PER_WORD; the layout of `tables` (UNITS_OFF,
// SET_OFF, SET_STRIDE, the word offsets SET_* of a setting's fields) and of `puzzle_data`
// (PUZ_STRIDE); the status bit EXHAUSTED; the bits of the f32 constants SCALE_HIGH, SCALE_LOW and
// FLUSH_BELOW (`*_BITS`, turned back by bitcast, so exact); and the codes of the options:
// COMPARE_*, TIE_*, RESET_CHECK_*. No number of the Rust side is written here.
//
// Every loop here (and in the functions it calls) is counted by LoopPasses
// (src/ilca/gpu.rs): the host caps the steps of a dispatch so that no invocation exceeds
// llvmpipe's 65,535 loop passes per dispatch (lavapipe silently stops every loop after that; see
// docs/GPU.md, "Loop budget per dispatch"). Adding or changing a loop means updating that bound.

const WG: u32 = IPW * TPI;
// Packed: CELLS_PER_WORD cells to a word, BYTE bits each.
const BYTE: u32 = 32u / CELLS_PER_WORD;
const BYTE_MASK: u32 = (1u << BYTE) - 1u;
// Unit counts: COUNTS_PER_WORD to a word, COUNT_BITS each (a unit has at most 64 cells).
const COUNT_BITS: u32 = 32u / COUNTS_PER_WORD;
// Words of one instance's states (one copy) or degrees.
const WORDS: u32 = select(CELLS, (CELLS + CELLS_PER_WORD - 1u) / CELLS_PER_WORD, PACKED);

struct Params {
    num_instances: u32,
    t0: u32,
    k_steps: u32,
    max_steps: u32, // the largest step limit of any setting
    groups_x: u32,
    fresh: u32, // 1 on the first dispatch: start from the puzzle's initial weights and clues
    _pad1: u32,
    _pad2: u32,
}

// The parameters of this invocation's instance (settings are a batch dimension).
var<private> s_steps: u32;
var<private> s_sr: u32;
var<private> s_compare: u32;     // COMPARE_*
var<private> s_tie: u32;         // TIE_*
var<private> s_check: u32;       // RESET_CHECK_*
var<private> s_restart: u32;     // full restart period, 0 = off
var<private> s_share: u32;       // bits of the resource-sharing factor s, 0 = off
var<private> s_factors: u32;     // offset of the reward factors in `tables`

@group(0) @binding(0) var<uniform> P: Params;
// One instance's line of `inst_info`: its puzzle (among the chunk's), RNG key and setting.
struct InstanceInfo {
    local_puzzle: u32,
    key: u32,
    setting: u32,
}

// peers [CELLS*NP] | units [3N*N] | settings [SET_STRIDE each: steps, sr, compare, tie,
// reset_check, restart, share factor bits (0 = off), reward bits [NP+1], penalty bits [NP+1]]
@group(0) @binding(1) var<storage, read> tables: array<u32>;
// per puzzle: clue digit per cell [CELLS] | initial weight bits [CELLS*N]
@group(0) @binding(2) var<storage, read> puzzle_data: array<u32>;
@group(0) @binding(3) var<storage, read> inst_info: array<InstanceInfo>;
@group(0) @binding(4) var<storage, read_write> weights: array<f32>;
@group(0) @binding(5) var<storage, read_write> choices: array<u32>;
// per instance: 0 while running, the solving step (1-based) once solved,
// EXHAUSTED | steps when the step limit was reached unsolved
@group(0) @binding(6) var<storage, read_write> status: array<u32>;

// The states of step t are in copy t % 2, from word (t % 2) * IPW * WORDS + instance slot * WORDS
// on (read them through `state_at`); clue cells hold their clue in both copies.
var<workgroup> states: array<u32, 2u * IPW * WORDS>;
var<workgroup> degrees: array<u32, IPW * WORDS>;
// Per step parity and instance slot: 1 when some cell of the instance has a conflict. Only 0 and
// 1 are ever stored (atomic stores of one value: no read-modify-write to serialise).
var<workgroup> unhappy: array<atomic<u32>, 2u * IPW>;
var<workgroup> unit_ok: array<u32, IPW * 3u * N>;
// COUNTS: per instance slot, from word slot * COUNT_WORDS on, the count of digit v (1-based) in
// unit u (rows 0..N, columns N..2N, boxes 2N..3N) at byte u * N + v - 1 (see `count_at`). Each
// count is a sum of 0/1 contributions that only their cell adds and takes away, so a byte never
// carries into the next. One unused word without COUNTS.
var<workgroup> counts: array<atomic<u32>, IPW * COUNT_WORDS>;

var<private> w: array<f32, CPT * N>;

// The cell of own index k (0 ≤ k < CPT) of invocation j: j, j+TPI, …; packed, the runs of a
// word's cells (4j…4j+3, 4(j+TPI)…), so that each word of `states` and `degrees` has one writer.
fn own_cell(j: u32, k: u32) -> u32 {
    if (PACKED) {
        return CELLS_PER_WORD * (j + (k / CELLS_PER_WORD) * TPI) + k % CELLS_PER_WORD;
    }
    return j + k * TPI;
}

// Cell q's value in the array whose instance (and copy) starts at word `base`.
fn state_at(base: u32, q: u32) -> u32 {
    if (PACKED) {
        return (states[base + q / CELLS_PER_WORD] >> (BYTE * (q % CELLS_PER_WORD))) & BYTE_MASK;
    }
    return states[base + q];
}
fn degree_at(base: u32, q: u32) -> u32 {
    if (PACKED) {
        return (degrees[base + q / CELLS_PER_WORD] >> (BYTE * (q % CELLS_PER_WORD))) & BYTE_MASK;
    }
    return degrees[base + q];
}

// Packed: own cell k's byte v joins the word of the cells before it in its run (the first of a
// run starts a new word); returns the word (stored once complete, see `word_done`).
fn with_byte(word: u32, k: u32, v: u32) -> u32 {
    let at = k % CELLS_PER_WORD;
    return select(word, 0u, at == 0u) | (v << (BYTE * at));
}
// Packed: the word of own cells k-3…k is complete after own cell k; its index in the instance's
// words, or WORDS when there is none (not packed, not the last of a run, or past the grid).
fn word_done(j: u32, k: u32) -> u32 {
    let i = j + (k / CELLS_PER_WORD) * TPI;
    if (!PACKED || k % CELLS_PER_WORD != CELLS_PER_WORD - 1u || i >= WORDS) {
        return WORDS;
    }
    return i;
}
// The units of cell c, as `unit_ok` and the counts number them: its row (0..N), its column
// (N..2N) and its box (2N..3N).
fn units_of(c: u32) -> vec3<u32> {
    let r = c / N;
    let col = c % N;
    return vec3<u32>(r, N + col, 2u * N + (r / B) * B + col / B);
}
// The count of digit v (1-based) in unit u, for the instance whose counts start at word cb:
// its word, and its lowest bit there.
fn count_word(cb: u32, u: u32, v: u32) -> u32 {
    return cb + (u * N + v - 1u) / COUNTS_PER_WORD;
}
fn count_shift(u: u32, v: u32) -> u32 {
    return COUNT_BITS * ((u * N + v - 1u) % COUNTS_PER_WORD);
}
fn count_at(cb: u32, u: u32, v: u32) -> u32 {
    return (atomicLoad(&counts[count_word(cb, u, v)]) >> count_shift(u, v)) & ((1u << COUNT_BITS) - 1u);
}
// In unit u, one cell's digit changes from `was` to `now` (0: none).
fn count_unit_move(cb: u32, u: u32, was: u32, now: u32) {
    if (was != 0u) {
        atomicSub(&counts[count_word(cb, u, was)], 1u << count_shift(u, was));
    }
    if (now != 0u) {
        atomicAdd(&counts[count_word(cb, u, now)], 1u << count_shift(u, now));
    }
}
// Cell c's digit changes from `was` to `now` in the counts of its row, column and box.
fn count_move(cb: u32, c: u32, was: u32, now: u32) {
    if (was == now) {
        return;
    }
    let units = units_of(c);
    count_unit_move(cb, units.x, was, now);
    count_unit_move(cb, units.y, was, now);
    count_unit_move(cb, units.z, was, now);
}
// COUNTS: own cell c's peers that hold its digit, by part x (0 row, 1 column, 2 rest of the
// box), PART_BITS each (at most 63), as `degrees` found them; `learn` reads these, not the counts.
const PART_BITS: u32 = 8u;
fn part_count(parts: u32, x: u32) -> u32 {
    return (parts >> (PART_BITS * x)) & ((1u << PART_BITS) - 1u);
}

// With one cell per invocation its peers are listed once per dispatch (registers), not per step.
const PE_LEN: u32 = select(1u, NP, CPT == 1u);
var<private> pe: array<u32, PE_LEN>;

// Peers of cell c are enumerated arithmetically (row, column, then the box cells outside both),
// which is cheaper than a table lookup; counts and "beats every neighbour" do not depend on order.
fn peer(c: u32, i: u32) -> u32 {
    let r = c / N;
    let col = c % N;
    if (i < N - 1u) {
        // the row, skipping c
        let k = select(i, i + 1u, i >= col);
        return r * N + k;
    }
    if (i < 2u * (N - 1u)) {
        let k0 = i - (N - 1u);
        let k = select(k0, k0 + 1u, k0 >= r);
        return k * N + col;
    }
    // box cells in other rows and columns: (B-1) x (B-1) of them
    let k = i - 2u * (N - 1u);
    let br = (r / B) * B;
    let bc = (col / B) * B;
    let ir0 = k / (B - 1u);
    let ic0 = k % (B - 1u);
    let ir = select(ir0, ir0 + 1u, ir0 >= r - br);
    let ic = select(ic0, ic0 + 1u, ic0 >= col - bc);
    return (br + ir) * N + bc + ic;
}

fn peer_of(c: u32, i: u32) -> u32 {
    if (CPT == 1u) {
        return pe[i];
    }
    return peer(c, i);
}

// The digit `choose` picks for own cell k, and the largest of its other weights.
struct Choice {
    digit: u32,
    // The row's largest weight once one occurrence of its maximum is left out: `learn` scales
    // only the chosen digit, whose weight is the maximum, so the row's new maximum is the larger
    // of its new weight and this (what cpu::rescale finds by scanning the row).
    others_max: f32,
}

// Largest-weight digit (1-based) of own cell k; ties as in cpu::choose_digit.
fn choose_digit(k: u32, cur: u32, key: u32, t: u32, c: u32) -> Choice {
    let base = k * N;
    var best = w[base];
    var ties = 1u;
    var first = 0u;
    var others = 0.0;
    for (var d = 1u; d < N; d++) {
        let x = w[base + d];
        if (x > best) {
            others = best;
            best = x;
            ties = 1u;
            first = d;
        } else {
            if (x == best) {
                ties += 1u;
            }
            if (x > others) {
                others = x;
            }
        }
    }
    if (s_tie == TIE_KEEP && cur != 0u && w[base + cur - 1u] == best) {
        return Choice(cur, others);
    }
    if (s_tie == TIE_FIRST || ties == 1u) {
        return Choice(first + 1u, others);
    }
    // TIE_RANDOM, or TIE_KEEP when the current digit is not among the largest
    var pick = draw(key, t, c) % ties;
    for (var d = 0u; d < N; d++) {
        if (w[base + d] == best) {
            if (pick == 0u) {
                return Choice(d + 1u, others);
            }
            pick -= 1u;
        }
    }
    return Choice(1u, others); // unreachable: the maximum occurs in the row
}

// x, or 0 below 2^-100 (cpu::flushed).
fn flushed(x: f32) -> f32 {
    return select(x, 0.0, x < bitcast<f32>(FLUSH_BELOW_BITS));
}

// The power of two cpu::rescale scales a row by when its largest weight is m (1: none).
fn scale_for(m: f32) -> f32 {
    if (m > bitcast<f32>(SCALE_HIGH_BITS)) {
        return bitcast<f32>(SCALE_LOW_BITS);
    }
    if (m > 0.0 && m < bitcast<f32>(SCALE_LOW_BITS)) {
        return bitcast<f32>(SCALE_HIGH_BITS);
    }
    return 1.0;
}

// Every weight of own cell k times s, then flushed.
fn scale_row(k: u32, s: f32) {
    let base = k * N;
    for (var d = 0u; d < N; d++) {
        w[base + d] = flushed(w[base + d] * s);
    }
}

// Power-of-two rescale and flush of own cell k after its weight `idx` was scaled, as
// cpu::rescale. Every other weight of the row is 0 or at least 2^-100 (initial weights are 0 or
// 1, and every rescale leaves the row so), so unless the whole row is scaled only `idx` can
// need flushing. Returns the row's largest weight before the rescale (0: all weights are 0).
fn rescale(k: u32, idx: u32, others_max: f32) -> f32 {
    let m = select(others_max, w[idx], w[idx] > others_max);
    let s = scale_for(m);
    if (s == 1.0) {
        w[idx] = flushed(w[idx]);
    } else {
        scale_row(k, s);
    }
    return m;
}

// Rescale and flush of the whole row of own cell k, as cpu::rescale (after resource sharing,
// which scales several weights of the row). Returns the largest weight before the rescale.
fn rescale_row(k: u32) -> f32 {
    let base = k * N;
    var m = 0.0;
    for (var d = 0u; d < N; d++) {
        if (w[base + d] > m) {
            m = w[base + d];
        }
    }
    scale_row(k, scale_for(m));
    return m;
}

// Is peer q compared in the reward test of a cell holding ch (cpu::State::learn's rule)?
fn compared(sb: u32, pbase: u32, q: u32, ch: u32) -> bool {
    if (s_compare == COMPARE_SHARING) {
        return state_at(sb, q) == ch;
    }
    if (s_compare == COMPARE_FREE) {
        return puzzle_data[pbase + q] == 0u;
    }
    return true; // COMPARE_ALL: every neighbour
}

// COUNTS: has some compared peer of cell c (digit ch, degree deg) a degree of at least deg
// (cpu::State::learn's reward test, negated; states from word sb, degrees from db)? The peers
// by part, as `peer` orders them: the row (N - 1), the column (N - 1), the rest of the box
// ((B - 1)^2). Under COMPARE_SHARING only the peers holding ch are compared, `parts` of them
// per part: a part without any is skipped, and a part is left once all of its have been seen.
fn outranked(c: u32, sb: u32, db: u32, pbase: u32, ch: u32, deg: u32, parts: u32) -> bool {
    // Part x is peers ends[x] .. ends[x + 1] - 1.
    var ends = array<u32, 4>(0u, N - 1u, 2u * (N - 1u), NP);
    for (var x = 0u; x < 3u; x++) {
        let lo = ends[x];
        let hi = ends[x + 1u];
        let want = select(hi - lo, part_count(parts, x), s_compare == COMPARE_SHARING);
        var seen = 0u;
        for (var i = lo; i < hi && seen < want; i++) {
            let q = peer(c, i);
            if (compared(sb, pbase, q, ch)) {
                if (degree_at(db, q) >= deg) {
                    return true;
                }
                seen += 1u;
            }
        }
    }
    return false;
}

// Is unit u of the instance whose states start at sbase resolved, as cpu::unit_resolved?
fn unit_resolved(sb: u32, u: u32) -> bool {
    var lo = 0u;
    var hi = 0u;
    var sum = 0u;
    var blank = false;
    for (var i = 0u; i < N; i++) {
        let v = state_at(sb, tables[UNITS_OFF + u * N + i]);
        sum += v;
        if (v == 0u) {
            blank = true;
        } else if (v <= 32u) {
            lo |= 1u << (v - 1u);
        } else {
            hi |= 1u << (v - 33u);
        }
    }
    if (s_check == RESET_CHECK_SUM) {
        return sum == N * (N + 1u) / 2u;
    }
    // RESET_CHECK_PERMUTATION
    return !blank && countOneBits(lo) + countOneBits(hi) == N;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let group = wid.x + wid.y * P.groups_x;
    let slot = li / TPI;
    let j = li % TPI;
    let inst = group * IPW + slot;
    var live = inst < P.num_instances;
    if (live) {
        live = status[inst] == 0u;
    }
    let started = live;
    var puz = 0u;
    var key = 0u;
    if (live) {
        let info = inst_info[inst];
        puz = info.local_puzzle;
        key = info.key;
        let so = SET_OFF + info.setting * SET_STRIDE;
        s_steps = tables[so + SET_STEPS];
        s_sr = tables[so + SET_SR];
        s_compare = tables[so + SET_COMPARE];
        s_tie = tables[so + SET_TIE];
        s_check = tables[so + SET_RESET_CHECK];
        s_restart = tables[so + SET_RESTART];
        s_share = tables[so + SET_SHARE];
        s_factors = so + SET_FACTORS;
    }
    let pbase = puz * PUZ_STRIDE;
    let sbase = slot * WORDS;
    let cb = slot * COUNT_WORDS;
    // Own cells: clue, current state, and the largest weight but the chosen one (see Choice);
    // COUNTS: the peers holding its digit by part (see `part_count`).
    var clue: array<u32, CPT>;
    var cur: array<u32, CPT>;
    var others: array<f32, CPT>;
    var parts: array<u32, CPT>;
    if (COUNTS) {
        // Counted from zero each dispatch (below, from the states it starts with).
        for (var i = j; i < COUNT_WORDS; i += TPI) {
            atomicStore(&counts[cb + i], 0u);
        }
        workgroupBarrier();
    }
    if (CPT == 1u && j < CELLS) {
        for (var i = 0u; i < NP; i++) {
            pe[i] = peer(j, i);
        }
    }
    var word = 0u;
    for (var k = 0u; k < CPT; k++) {
        let c = own_cell(j, k);
        if (live && c < CELLS) {
            clue[k] = puzzle_data[pbase + c];
            if (P.fresh == 1u) {
                cur[k] = clue[k];
                for (var d = 0u; d < N; d++) {
                    w[k * N + d] = bitcast<f32>(puzzle_data[pbase + CELLS + c * N + d]);
                }
            } else {
                cur[k] = choices[inst * CELLS + c];
                for (var d = 0u; d < N; d++) {
                    w[k * N + d] = weights[(inst * CELLS + c) * N + d];
                }
            }
            if (COUNTS) {
                count_move(cb, c, 0u, cur[k]);
            }
            // Both copies: a clue cell's state is never written again.
            if (!PACKED) {
                states[sbase + c] = cur[k];
                states[IPW * WORDS + sbase + c] = cur[k];
            }
        }
        word = with_byte(word, k, cur[k]);
        let wi = word_done(j, k);
        if (live && wi < WORDS) {
            states[sbase + wi] = word;
            states[IPW * WORDS + sbase + wi] = word;
        }
    }

    for (var s = 0u; s < P.k_steps; s++) {
        let t = P.t0 + s;
        if (t >= P.max_steps) {
            break;
        }
        let par = t % 2u;
        let sb = par * IPW * WORDS + sbase;
        // Read last in the `learn` of step t - 2, before the first barrier of step t - 1.
        if (live && j == 0u) {
            atomicStore(&unhappy[par * IPW + slot], 0u);
        }
        // Stage `choose` (State::choose).
        for (var k = 0u; k < CPT; k++) {
            let c = own_cell(j, k);
            if (live && c < CELLS && clue[k] == 0u) {
                let ch = choose_digit(k, cur[k], key, t, c);
                if (COUNTS) {
                    count_move(cb, c, cur[k], ch.digit);
                }
                cur[k] = ch.digit;
                others[k] = ch.others_max;
                if (!PACKED) {
                    states[sb + c] = ch.digit;
                }
            }
            word = with_byte(word, k, cur[k]);
            let wi = word_done(j, k);
            if (live && wi < WORDS) {
                states[sb + wi] = word;
            }
        }
        workgroupBarrier();
        // Stage `degrees` (State::degrees); the resolved units for a selective reset.
        for (var k = 0u; k < CPT; k++) {
            let c = own_cell(j, k);
            var deg = 0u;
            if (live && c < CELLS) {
                let v = cur[k];
                var same = 0u;
                if (COUNTS) {
                    let units = units_of(c);
                    let r = c / N;
                    let col = c % N;
                    let br = (r / B) * B;
                    let bc = (col / B) * B;
                    // Cells holding v in the row within the box and the column within the box.
                    var rx = 0u;
                    var cx = 0u;
                    for (var i = 0u; i < B; i++) {
                        rx += select(0u, 1u, state_at(sb, r * N + bc + i) == v);
                        cx += select(0u, 1u, state_at(sb, (br + i) * N + col) == v);
                    }
                    let in_row = count_at(cb, units.x, v) - 1u;
                    let in_col = count_at(cb, units.y, v) - 1u;
                    let in_box = count_at(cb, units.z, v) + 1u - rx - cx;
                    parts[k] = in_row | (in_col << PART_BITS) | (in_box << (2u * PART_BITS));
                    same = in_row + in_col + in_box;
                } else {
                    for (var i = 0u; i < NP; i++) {
                        if (state_at(sb, peer_of(c, i)) == v) {
                            same += 1u;
                        }
                    }
                }
                deg = NP - same;
                if (!PACKED) {
                    degrees[sbase + c] = deg;
                }
                if (same != 0u) {
                    atomicStore(&unhappy[par * IPW + slot], 1u);
                }
            }
            word = with_byte(word, k, deg);
            let wi = word_done(j, k);
            if (live && wi < WORDS) {
                degrees[sbase + wi] = word;
            }
        }
        // A full restart takes the place of a selective reset on the same step (as on the CPU).
        let restart_step = live && s_restart != 0u && (t + 1u) % s_restart == 0u;
        let reset_step = live && !restart_step && s_sr != 0u && (t + 1u) % s_sr == 0u;
        if (reset_step) {
            for (var u = j; u < 3u * N; u += TPI) {
                unit_ok[slot * 3u * N + u] = select(0u, 1u, unit_resolved(sb, u));
            }
        }
        workgroupBarrier();
        if (live) {
            if (atomicLoad(&unhappy[par * IPW + slot]) == 0u) {
                if (j == 0u) {
                    status[inst] = t + 1u;
                }
                live = false;
            } else if (t + 1u >= s_steps) {
                if (j == 0u) {
                    status[inst] = EXHAUSTED | s_steps;
                }
                live = false;
            } else {
                // Stages `learn` and `reset` (State::learn, State::reset): a cell the reset
                // restores skips learning, whose result the reset would overwrite.
                for (var k = 0u; k < CPT; k++) {
                    let c = own_cell(j, k);
                    if (c < CELLS && clue[k] == 0u) {
                        var do_reset = restart_step;
                        if (reset_step) {
                            let units = units_of(c);
                            let ub = slot * 3u * N;
                            do_reset = unit_ok[ub + units.x] == 0u || unit_ok[ub + units.y] == 0u || unit_ok[ub + units.z] == 0u;
                        }
                        // Restored: by the reset, or after learning that left every weight 0
                        // (cpu::State::learn); one loop for both keeps the loop-pass bound.
                        var restore = do_reset;
                        if (!do_reset) {
                            let ch = cur[k];
                            let deg = degree_at(sbase, c);
                            var reward = deg == NP;
                            if (!reward && COUNTS) {
                                reward = !outranked(c, sb, sbase, pbase, ch, deg, parts[k]);
                            } else if (!reward) {
                                reward = true;
                                for (var i = 0u; i < NP; i++) {
                                    let q = peer_of(c, i);
                                    if (compared(sb, pbase, q, ch) && degree_at(sbase, q) >= deg) {
                                        reward = false;
                                        break;
                                    }
                                }
                            }
                            let off = select(s_factors + NP + 1u, s_factors, reward);
                            let f = bitcast<f32>(tables[off + deg]);
                            let idx = k * N + ch - 1u;
                            if (s_share != 0u && deg < NP) {
                                // Resource sharing (cpu::State::learn): each peer's digit
                                // scaled by s once per peer; the same s, so order is free.
                                // Each product flushed at once, as on the CPU: no subnormal
                                // is multiplied again or revived by the rescale.
                                let sf = bitcast<f32>(s_share);
                                for (var i = 0u; i < NP; i++) {
                                    let wi = k * N + state_at(sb, peer_of(c, i)) - 1u;
                                    w[wi] = flushed(w[wi] * sf);
                                }
                                w[idx] = flushed(w[idx] * f);
                                restore = rescale_row(k) == 0.0;
                            } else {
                                w[idx] = flushed(w[idx] * f);
                                restore = rescale(k, idx, others[k]) == 0.0;
                            }
                        }
                        if (restore) {
                            for (var d = 0u; d < N; d++) {
                                w[k * N + d] = bitcast<f32>(puzzle_data[pbase + CELLS + c * N + d]);
                            }
                        }
                    }
                }
            }
        }
    }

    if (started) {
        for (var k = 0u; k < CPT; k++) {
            let c = own_cell(j, k);
            if (c < CELLS) {
                choices[inst * CELLS + c] = cur[k];
                for (var d = 0u; d < N; d++) {
                    weights[(inst * CELLS + c) * N + d] = w[k * N + d];
                }
            }
        }
    }
}
