#!/bin/sh
# Prints the tables of docs/BEYOND.md from the `compare --json` reports of docs/beyond/run.sh
# (other reports in DIR, such as the `batch` report of the variant, are skipped).
# Usage: sh docs/beyond/table.sh [DIR]   (needs jq)
#   full    one row per (file, algorithm): budget, attempts, solved % with its Wilson 95%
#           interval, TTS99 in the algorithm's unit and in seconds, mean and median ms per attempt
#   matrix  solved % per file (rows) and algorithm (columns)
#   within  ILCA and RFSS rates within a smaller budget, from the same attempts (a run's
#           dynamics do not depend on its limit): `table.sh DIR within 5000`
set -e
DIR=${1:-docs/beyond}; WHAT=${2:-full}; LIMIT=${3:-5000}
JQ_LIB='
def pretty: {"easy": "9x9 unique easy", "medium": "9x9 unique medium", "hard": "9x9 unique hard",
  "evil": "9x9 unique evil", "famous": "9x9 famous (16)"}[.] // .;
def budget($p): if $p.max_iterations != null then "\($p.max_iterations) \(.unit)"
  else "\($p.budget_ms / 1000) s" end;
def r($d): if . == null then "–" else (. * pow(10; $d) | round / pow(10; $d) | tostring) end;
def sig: if . == null then "–" elif . >= 100 then (round | tostring)
  elif . >= 1 then r(1) elif . >= 0.01 then r(3) elif . > 0 then r(7) else "0" end;
def rank($order): . as $x | [($order | index([$x]) // 99), $x];
def file_order: rank(["easy", "medium", "hard", "evil", "famous"]);
def algo_order: rank(["acs", "ilca-table6", "ilca-improved", "ilca-hard-penalty", "rfss",
  "rfss-propagate", "rfss-mrv", "rfss-lookahead", "sa", "ga", "exact"]);
def wilson($s; $n): 1.959964 as $z | ($s / $n) as $p | ($z * $z / $n) as $z2 |
  (($p + $z2 / 2) / (1 + $z2)) as $c |
  ($z * (($p * (1 - $p) / $n + $z2 / $n / 4) | sqrt) / (1 + $z2)) as $h |
  [100 * ([0, $c - $h] | max), 100 * ([1, $c + $h] | min)];
'
# Every report of DIR, plain or gzipped, one after the other; a NAME.json.gz beside a NAME.json
# (a fresh run.sh into a folder of shipped reports) is left out, so no report counts twice.
reports() {
  for f in "$DIR"/*.json "$DIR"/*.json.gz; do
    [ -e "$f" ] || continue
    case $f in *.gz) [ -e "${f%.gz}" ] && continue ;; esac
    gzip -dcf "$f"
  done
}
case $WHAT in
  full)
    echo "| file | algorithm | budget per attempt | attempts | solved % (95% interval) | TTS99 | TTS99 s | mean / median ms per attempt |"
    echo "|---|---|---|---|---|---|---|---|"
    reports | jq -rs "$JQ_LIB"' [.[] | select(.rows != null) | .params as $p | .rows[] | .budget = budget($p)] |
        sort_by((.file | file_order), (.algo | algo_order))[] |
        "| \(.file | pretty) | \(.algo) | \(.budget) | \(.attempts) | \(.solved_pct | r(1)) (\(.solved_pct_95[0] | r(1))–\(.solved_pct_95[1] | r(1))) | \(if .tts99 then "\(.tts99.steps | sig) \(.unit)" else "–" end) | \(.tts99_s | sig) | \(.mean_ms | sig) / \(.median_ms | sig) |"' ;;
  matrix)
    reports | jq -rs "$JQ_LIB"'
      [.[] | .rows // [] | .[]] as $rows | ($rows | map(.algo) | unique | sort_by(algo_order)) as $algos |
      ($rows | map(.file) | unique | sort_by(file_order)) as $files |
      "| file | \($algos | join(" | ")) |", "|---|\($algos | map("---|") | join(""))",
      ($files[] as $f | "| \($f | pretty) | \([$algos[] as $a | ($rows | map(select(.file == $f and .algo == $a)) | first | if . then (.solved_pct | r(1)) else "" end)] | join(" | ")) |")
    ' ;;
  within)
    echo "| file | algorithm | attempts | solved within $LIMIT (95% interval) |"
    echo "|---|---|---|---|"
    reports | jq -rs --argjson lim "$LIMIT" "$JQ_LIB"'
        [.[] | select(.rows != null and .params.max_iterations != null) | .attempts[]] | group_by([.file, .algo]) |
        sort_by((.[0].file | file_order), (.[0].algo | algo_order))[] |
        (map(select(.solved and .iterations <= $lim)) | length) as $s | length as $n | wilson($s; $n) as $w |
        "| \(.[0].file | pretty) | \(.[0].algo) | \($n) | \(100 * $s / $n | r(1)) (\($w[0] | r(1))–\($w[1] | r(1))) |"' ;;
  *) echo "usage: table.sh [DIR] [full|matrix|within [LIMIT]]" >&2; exit 2 ;;
esac
