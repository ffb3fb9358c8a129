#!/usr/bin/env bash
# The explore benchmark of docs/explore.md (not a timed test): points per
# minute for a grid on the local pool and through the queue with 1 and 2
# workers (scripts/explore-cluster.sh, one thread each), and the queue's
# overhead per job (scripts/bench-explore-queue.ts).
#   bash scripts/bench-explore.sh [GRID.json]      (default: the bundled grid)
#   bash scripts/bench-explore.sh --overhead-only
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(mktemp -d "${TMPDIR:-/tmp}/picotpu-bench-explore.XXXXXX")
trap 'rm -rf "$out"' EXIT
now() { date +%s.%N; }
# Seconds a command takes; its own output goes to $out.
timed() { local t0; t0=$(now); "$@" >"$out/last.out" 2>"$out/last.err" || { cat "$out/last.err" >&2; exit 1; }; awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }'; }
runnable() { grep -o '([0-9]* run' "$out/last.out" | head -1 | tr -dc 0-9; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.1f", 60 * n / t }'; }

if [ "${1:-}" != --overhead-only ]; then
	grid=${1:-study/explore/example-grid.json}
	t=$(timed node bin/picotpu.cjs explore "$grid" --fresh --results "$out/local" --docs "$out/local"); n=$(runnable)
	echo "local pool: $n points in $t s: $(rate "$n" "$t") points/min"
	for w in 1 2; do
		t=$(timed bash scripts/explore-cluster.sh "$grid" "$w" --fresh --results "$out/q$w" --docs "$out/q$w"); n=$(runnable)
		echo "queue, $w worker(s): $n points in $t s: $(rate "$n" "$t") points/min"
	done
	median=$(node -e "
		const ms = require('fs').readFileSync('$out/local/' + require('fs').readdirSync('$out/local').find((f) => f.endsWith('.jsonl')), 'utf8')
			.split('\n').filter(Boolean).map((l) => JSON.parse(l).record.wallMs).sort((a, b) => a - b);
		console.log(ms[ms.length >> 1].toFixed(1));")
	echo "median point: $median ms of emulation"
fi

npx tsx scripts/bench-explore-queue.ts 240
