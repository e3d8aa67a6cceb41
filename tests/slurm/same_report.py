#!/usr/bin/env python3
"""Compares a merged report with the unsharded run's, as tests/scale.rs does:
    same_report.py MERGED.json WHOLE.json
Both JSON reports lose the fields that differ from run to run (those of strip_run_specific in
tests/common/mod.rs: timings, command, provenance, backend, adapter, shard, digest), then must be
equal. Prints how many records (instances, attempts or sweep rows) were compared, or the first
difference by its path, and exits 1."""

import json
import sys

RUN_SPECIFIC = {
    "timing",
    "command",
    "provenance",
    "backend",
    "adapter",
    "shard",
    "seconds",
    "median_ms",
    "mean_ms",
    "tts99_s",
    "tts99_puzzle_median_s",
    "digest",
}


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in RUN_SPECIFIC}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return path, a, b
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}", a.get(k, "(absent)"), b.get(k, "(absent)")
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return f"{path} (length)", len(a), len(b)
        return None
    return None if a == b else (path, a, b)


def records(report):
    """The report's records: batch's instances, compare's attempts, sweep's rows."""
    if "files" in report:
        return sum(len(f["instances"]) for f in report["files"])
    return len(report.get("attempts") or report.get("rows") or [])


def main():
    merged_path, whole_path = sys.argv[1:3]
    with open(merged_path) as f:
        merged = strip(json.load(f))
    with open(whole_path) as f:
        whole = strip(json.load(f))
    d = first_difference(merged, whole)
    if d:
        path, x, y = d
        print(f"{merged_path} differs from {whole_path} at {path}: {x!r} against {y!r}", file=sys.stderr)
        sys.exit(1)
    n = records(whole)
    if n == 0:
        print(f"{whole_path} holds no records: nothing was compared", file=sys.stderr)
        sys.exit(1)
    print(n)


main()
