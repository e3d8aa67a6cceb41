//! Geometry of an n×n Sudoku (n = b², box size b): units and peers, computed once per size
//! and shared by every engine (CPU and GPU read the same tables).

use std::sync::OnceLock;

/// Smallest and largest supported box size: 4x4 up to 64x64.
pub const MIN_BOX: usize = 2;
pub const MAX_BOX: usize = 8;

/// Precomputed tables for one grid size.
#[derive(Debug)]
pub struct Geometry {
    /// Box size b (3 for 9x9).
    pub b: usize,
    /// Side length and number of digits n = b².
    pub n: usize,
    /// Number of cells n².
    pub cells: usize,
    /// Peers per cell: 3n − 2b − 1 (20 for 9x9).
    pub n_peers: usize,
    /// `peers[c * n_peers ..][..n_peers]`: the peers of cell c in ascending order.
    pub peers: Vec<u16>,
    /// `units[u * n ..][..n]`: the cells of unit u; units 0..n are rows, n..2n columns, 2n..3n boxes.
    pub units: Vec<u16>,
}

impl Geometry {
    /// The tables for box size `b` (2..=8); panics on an unsupported size, which callers
    /// rule out when they parse or validate a size.
    pub fn get(b: usize) -> &'static Geometry {
        static TABLES: [OnceLock<Geometry>; MAX_BOX + 1] = [const { OnceLock::new() }; MAX_BOX + 1];
        assert!(
            (MIN_BOX..=MAX_BOX).contains(&b),
            "box size {b} outside {MIN_BOX}..={MAX_BOX}"
        );
        TABLES[b].get_or_init(|| Geometry::build(b))
    }

    fn build(b: usize) -> Geometry {
        let n = b * b;
        let cells = n * n;
        let mut units = Vec::with_capacity(3 * n * n);
        for r in 0..n {
            units.extend((0..n).map(|c| (r * n + c) as u16));
        }
        for c in 0..n {
            units.extend((0..n).map(|r| (r * n + c) as u16));
        }
        for bx in 0..n {
            let (r0, c0) = ((bx / b) * b, (bx % b) * b);
            for i in 0..n {
                units.push(((r0 + i / b) * n + c0 + i % b) as u16);
            }
        }
        let n_peers = 3 * n - 2 * b - 1;
        let mut peers = Vec::with_capacity(cells * n_peers);
        for cell in 0..cells {
            let (r, c) = (cell / n, cell % n);
            let bx = (r / b) * b + c / b;
            let mut p: Vec<u16> = [r, n + c, 2 * n + bx]
                .iter()
                .flat_map(|&u| units[u * n..(u + 1) * n].iter().copied())
                .filter(|&q| q as usize != cell)
                .collect();
            p.sort_unstable();
            p.dedup();
            debug_assert_eq!(p.len(), n_peers);
            peers.extend(p);
        }
        Geometry {
            b,
            n,
            cells,
            n_peers,
            peers,
            units,
        }
    }

    /// Peers of `cell`, ascending.
    pub fn peers_of(&self, cell: usize) -> &[u16] {
        &self.peers[cell * self.n_peers..(cell + 1) * self.n_peers]
    }

    /// Cells of unit `u` (rows, then columns, then boxes).
    pub fn unit(&self, u: usize) -> &[u16] {
        &self.units[u * self.n..(u + 1) * self.n]
    }

    /// Row, column and box index of a cell.
    pub fn row_col_box(&self, cell: usize) -> (usize, usize, usize) {
        let (r, c) = (cell / self.n, cell % self.n);
        (r, c, (r / self.b) * self.b + c / self.b)
    }

    /// Box size for a side length n, if n is a supported square.
    pub fn box_for_side(n: usize) -> Option<usize> {
        (MIN_BOX..=MAX_BOX).find(|b| b * b == n)
    }

    /// Box size for a cell count n², if supported.
    pub fn box_for_cells(cells: usize) -> Option<usize> {
        (MIN_BOX..=MAX_BOX).find(|b| b * b * b * b == cells)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nine_by_nine_has_twenty_peers() {
        let g = Geometry::get(3);
        assert_eq!(g.n_peers, 20);
        assert_eq!(g.peers_of(0).len(), 20);
        // Cell (0,0): row 1..8, column 9,18,..,72, box 10,11,19,20.
        let p = g.peers_of(0);
        assert!(p.contains(&8) && p.contains(&72) && p.contains(&20));
        assert!(!p.contains(&0) && !p.contains(&30));
    }

    #[test]
    fn every_size_has_symmetric_peers() {
        for b in MIN_BOX..=MAX_BOX {
            let g = Geometry::get(b);
            assert_eq!(g.peers.len(), g.cells * g.n_peers);
            for c in (0..g.cells).step_by(7) {
                for &q in g.peers_of(c) {
                    assert!(g.peers_of(q as usize).contains(&(c as u16)));
                }
            }
            for u in 0..3 * g.n {
                let mut cells: Vec<u16> = g.unit(u).to_vec();
                cells.sort_unstable();
                cells.dedup();
                assert_eq!(cells.len(), g.n);
            }
        }
    }
}
