// Counter-based randomness: the WGSL twin of src/rng.rs, bit for bit.
// Every draw is a pure function of (instance key, step, cell); the key comes from the host.

fn hash32(x0: u32) -> u32 {
    var x = x0;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

fn draw(key: u32, step: u32, cell: u32) -> u32 {
    return hash32(hash32(key ^ (step * 0xc2b2ae35u)) ^ cell);
}
