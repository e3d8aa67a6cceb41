//! Helpers shared by the CLI integration tests.

/// Drops the fields of a batch JSON report that legitimately differ between backends (where,
/// when, how fast), so that a CPU report and a GPU report can be compared with `==`.
pub fn strip_where_and_when(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for k in ["backend", "adapter", "command", "timing"] {
                m.remove(k);
            }
            m.values_mut().for_each(strip_where_and_when);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_where_and_when),
        _ => {}
    }
}
