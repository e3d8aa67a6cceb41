//! Splitting a run into shards that merge back to the identical result. A run's results depend
//! only on (seed, puzzle, run, setting) through the counter-based random numbers, so its work
//! items can be split anywhere: shard K of N takes a contiguous stretch of the items, in their
//! canonical order, holding about 1/N of the expected cost (items of bigger grids or longer
//! step budgets count more). Contiguous stretches keep runs of one puzzle together.

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Shard `index` of `count` (0 ≤ index < count). People count shards from 1, as
/// cargo-nextest's `--partition count:K/N` and Jest's `--shard=K/N` do: the command line,
/// tables and reports write it `K/N` with K = index + 1, from 1/N to N/N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// The shard's number as people write it, from 1 to `count`.
    pub fn number(&self) -> usize {
        self.index + 1
    }

    /// The line a shard's table opens with: which part of the run it holds.
    pub fn describe(&self, what: &str) -> String {
        format!(
            "shard {self}: about 1/{} of the {what}; `gpu-sudoku merge` joins all {} reports",
            self.count, self.count
        )
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Shard, String> {
        let bad = || format!("`{s}` is not K/N with 1 ≤ K ≤ N (e.g. 1/4 … 4/4)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (number, count): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if number == 0 && count > 0 {
            return Err(format!(
                "`{s}`: shards count from 1, as cargo-nextest's --partition and Jest's --shard do \
                 (1/{count} … {count}/{count})"
            ));
        }
        if count == 0 || number > count {
            return Err(bad());
        }
        Ok(Shard {
            index: number - 1,
            count,
        })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.number(), self.count)
    }
}

/// Its schema: the text it is written as.
impl schemars::JsonSchema for Shard {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Shard".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The part of a run a report holds, `K/N` with K from 1 to N.",
            "type": "string",
            "pattern": "^[1-9][0-9]*/[1-9][0-9]*$",
        })
    }
}

/// In reports and journals a shard is the text `"K/N"`, as on the command line.
impl Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Reads `"K/N"`, and the `{"index": I, "count": N}` (I from 0) of reports made before shards
/// counted from 1.
impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Shard, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Text(String),
            Old { index: usize, count: usize },
        }
        match Written::deserialize(d)? {
            Written::Text(t) => t.parse().map_err(serde::de::Error::custom),
            Written::Old { index, count } if index < count => Ok(Shard { index, count }),
            Written::Old { index, count } => Err(serde::de::Error::custom(format!(
                "shard index {index} of {count} does not exist"
            ))),
        }
    }
}

/// The items of each group that fall to `shard`, when group g holds `groups[g].0` items of
/// cost `groups[g].1` each, all groups one after the other. Item i (counting over all groups)
/// belongs to the shard whose share of the total cost holds the middle of the item's cost.
pub fn split(groups: &[(usize, u64)], shard: Shard) -> Vec<Range<usize>> {
    let total: u128 = groups
        .iter()
        .map(|&(n, c)| n as u128 * c.max(1) as u128)
        .sum();
    let n = shard.count as u128;
    // The owner of an item whose cost starts at `before` (sum of earlier costs) and is `c`.
    let owner = |before: u128, c: u128| -> u128 { ((2 * before + c) * n / (2 * total)).min(n - 1) };
    let mut before = 0u128;
    let mut out = Vec::with_capacity(groups.len());
    for &(items, cost) in groups {
        let c = cost.max(1) as u128;
        // Owners grow with the item index: find the first item owned by `shard` and the first
        // owned by a later shard by binary search.
        let first_at_least = |k: u128| -> usize {
            let (mut lo, mut hi) = (0usize, items);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if owner(before + mid as u128 * c, c) >= k {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            lo
        };
        let k = shard.index as u128;
        out.push(first_at_least(k)..first_at_least(k + 1));
        before += items as u128 * c;
    }
    out
}

/// The items of each group this process runs: all of them, or `shard`'s (see [`split`]). A
/// shard count above the number of items (`what`, e.g. "instances") is refused: shards with
/// nothing to do would only report empty results.
pub fn ranges(
    groups: &[(usize, u64)],
    shard: Option<Shard>,
    what: &str,
) -> Result<Vec<Range<usize>>> {
    match shard {
        Some(s) => {
            let items: u128 = groups.iter().map(|&(n, _)| n as u128).sum();
            if s.count as u128 > items {
                bail!(
                    "--shard {s}: {} shards but only {items} {what} to split among them; give \
                     N ≤ {items}",
                    s.count
                );
            }
            Ok(split(groups, s))
        }
        None => Ok(groups.iter().map(|&(n, _)| 0..n).collect()),
    }
}

/// FNV-1a (64-bit) of a byte stream: the content hash that identifies a run's inputs, so
/// shards of different inputs are not merged.
pub fn content_hash<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut h = ContentHasher::new();
    for part in parts {
        h.update(part);
        h.end_part();
    }
    h.finish()
}

/// [`content_hash`] fed piece by piece: `update` with a part's bytes (in any number of
/// pieces), `end_part` after each part.
#[derive(Clone, Copy, Debug)]
pub struct ContentHasher(u64);

impl ContentHasher {
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    pub fn new() -> ContentHasher {
        ContentHasher(0xcbf2_9ce4_8422_2325)
    }

    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    /// Separates parts, so that ("ab", "c") and ("a", "bc") differ.
    pub fn end_part(&mut self) {
        self.0 ^= 0xff;
        self.0 = self.0.wrapping_mul(Self::PRIME);
    }

    /// The hash as 16 lowercase hex digits.
    pub fn finish(&self) -> String {
        format!("{:016x}", self.0)
    }
}

impl Default for ContentHasher {
    fn default() -> Self {
        ContentHasher::new()
    }
}

/// Checks that `shards` (the `index` of every file to merge) are 0..count once each (shards
/// 1/N … N/N). Works in
/// the number of files given, whatever `count` claims (a damaged report may claim billions),
/// and names at most [`LISTED`] shards of a kind.
pub fn check_complete(indices: &[usize], count: usize) -> Result<()> {
    if count == 0 {
        bail!("a shard count of 0 is not a run (shards are K/N with N ≥ 1)");
    }
    let mut seen = std::collections::BTreeMap::<usize, usize>::new();
    for &i in indices {
        if i >= count {
            bail!("shard {}/{count} does not exist", i as u128 + 1);
        }
        *seen.entry(i).or_default() += 1;
    }
    let listed = |shards: &mut dyn Iterator<Item = usize>, total: usize| {
        listed(shards.map(|i| format!("{}/{count}", i as u128 + 1)), total)
    };
    let twice: Vec<usize> = seen
        .iter()
        .filter(|(_, &k)| k > 1)
        .map(|(&i, _)| i)
        .collect();
    if !twice.is_empty() {
        bail!(
            "shards given more than once: {}",
            listed(&mut twice.iter().copied(), twice.len())
        );
    }
    if seen.len() < count {
        let mut missing = (0..count).filter(|i| !seen.contains_key(i));
        bail!(
            "shards missing: {} (run them with --shard K/N, then merge all {count})",
            listed(&mut missing, count - seen.len())
        );
    }
    Ok(())
}

/// How many shards (or settings) of one kind an error names before it only counts them.
pub const LISTED: usize = 20;

/// The first [`LISTED`] of `names` (`total` in all), joined for an error message: `a, b, …
/// (N in all)` when there are more.
pub fn listed(names: impl Iterator<Item = String>, total: usize) -> String {
    let mut shown: Vec<String> = names.take(LISTED).collect();
    if total > LISTED {
        shown.push(format!("… ({total} in all)"));
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(index: usize, count: usize) -> Shard {
        Shard { index, count }
    }

    #[test]
    fn shards_cover_every_item_once_and_balance_cost() {
        let groups = [(10, 81u64 * 250), (7, 625 * 250), (0, 5), (13, 81 * 250)];
        for count in 1..=7 {
            let mut owned = vec![0u32; 30];
            let mut cost = vec![0u64; count];
            for (k, shard_cost) in cost.iter_mut().enumerate() {
                let ranges = split(&groups, s(k, count));
                let mut offset = 0;
                for (g, r) in ranges.iter().enumerate() {
                    for i in r.clone() {
                        owned[offset + i] += 1;
                        *shard_cost += groups[g].1;
                    }
                    offset += groups[g].0;
                }
            }
            assert!(owned.iter().all(|&o| o == 1), "{count}: {owned:?}");
            let total: u64 = cost.iter().sum();
            let biggest = 625 * 250;
            for c in &cost {
                // Each share is within one item's cost of an equal split.
                assert!(
                    (*c as i64 - (total / count as u64) as i64).unsigned_abs() <= biggest,
                    "{count}: {cost:?}"
                );
            }
        }
        assert_eq!(split(&[(5, 1)], s(0, 1)), vec![0..5]);
    }

    #[test]
    fn more_shards_than_items_are_refused() {
        let groups = [(2, 10u64), (1, 5)];
        assert_eq!(ranges(&groups, None, "items").unwrap(), vec![0..2, 0..1]);
        assert_eq!(ranges(&groups, Some(s(2, 3)), "items").unwrap().len(), 2);
        let e = ranges(&groups, Some(s(0, 4)), "instances")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--shard 1/4") && e.contains("only 3 instances") && e.contains("N ≤ 3"),
            "{e}"
        );
    }

    #[test]
    fn parse_and_complete() {
        // Counted from 1: 2/4 is the second quarter.
        assert_eq!("2/4".parse::<Shard>().unwrap(), s(1, 4));
        assert_eq!("4/4".parse::<Shard>().unwrap(), s(3, 4));
        assert_eq!(s(1, 4).to_string(), "2/4");
        for bad in ["5/4", "1/0", "x/2", "3", "0/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let e = "0/4".parse::<Shard>().unwrap_err();
        assert!(e.contains("count from 1") && e.contains("1/4 … 4/4"), "{e}");
        // Reports write the text; older reports' 0-based objects still read.
        assert_eq!(serde_json::json!(s(1, 4)), serde_json::json!("2/4"));
        let back: Shard = serde_json::from_value(serde_json::json!("2/4")).unwrap();
        assert_eq!(back, s(1, 4));
        let old: Shard = serde_json::from_str(r#"{"index": 1, "count": 4}"#).unwrap();
        assert_eq!(old, s(1, 4));
        assert!(serde_json::from_str::<Shard>(r#"{"index": 4, "count": 4}"#).is_err());
        assert!(serde_json::from_str::<Shard>(r#""0/4""#).is_err());
        check_complete(&[2, 0, 1], 3).unwrap();
        let e = check_complete(&[0, 2], 3).unwrap_err().to_string();
        assert!(e.contains("missing: 2/3"), "{e}");
        let e = check_complete(&[0, 1, 1, 2], 3).unwrap_err().to_string();
        assert!(e.contains("more than once: 2/3"), "{e}");
        // A damaged count: answered at once, the list cut short.
        let e = check_complete(&[0], usize::MAX).unwrap_err().to_string();
        assert!(
            e.contains("2/18446744073709551615, 3/") && e.contains("in all)"),
            "{e}"
        );
        assert!(e.len() < 1_000, "{e}");
        assert!(check_complete(&[0], 0).is_err());
        assert_ne!(
            content_hash([&b"ab"[..], b"c"]),
            content_hash([&b"a"[..], b"bc"])
        );
        assert_eq!(content_hash([&b"x"[..]]).len(), 16);
    }
}
