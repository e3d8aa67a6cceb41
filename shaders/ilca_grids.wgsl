// The final grids of a chunk, a byte per cell (issue #35: read back only what a result needs):
// what the host builds each instance's `Grid` from, as `cpu::State::choice` holds it (u8
// cells), instead of the word per cell the ILCA kernel keeps in `choices` between dispatches.
// One invocation per output word: instance `w / GRID_WORDS`, cells 4k … 4k + 3 of it for
// k = w % GRID_WORDS, cell 4k + j in byte j (little-endian, so the words read back as bytes
// are the cells in order); bytes past the last cell are 0. The host prepends the `const`
// lines (src/ilca/gpu/grids.rs, `prelude`).

struct GridsParams {
    num_words: u32,
    groups_x: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> P: GridsParams;
@group(0) @binding(1) var<storage, read> choices: array<u32>;
@group(0) @binding(2) var<storage, read_write> grids: array<u32>;

@compute @workgroup_size(GRIDS_WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let w = (wid.x + wid.y * P.groups_x) * GRIDS_WG + li;
    if (w >= P.num_words) {
        return;
    }
    let inst = w / GRID_WORDS;
    let first = (w % GRID_WORDS) * CELLS_PER_WORD;
    var word = 0u;
    for (var j = 0u; j < CELLS_PER_WORD; j++) {
        if (first + j < CELLS) {
            word |= choices[inst * CELLS + first + j] << (BYTE_BITS * j);
        }
    }
    grids[w] = word;
}
