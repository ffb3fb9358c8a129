#!/usr/bin/env bash
# A local cluster for trying `picotpu explore --queue` in one command: starts
# redis-server (Debian's package) on a free loopback port with a temporary
# directory and no persistence, N `picotpu worker` processes, runs the grid
# through the queue, and stops everything it started, however it ends.
#   bash scripts/explore-cluster.sh [GRID.json] [WORKERS] [more explore options]
# Defaults: study/explore/example-grid.json, 2 workers (one thread each).
set -euo pipefail
cd "$(dirname "$0")/.."

grid=${1:-study/explore/example-grid.json}
nworkers=${2:-2}
shift $(($# > 2 ? 2 : $#))
command -v redis-server >/dev/null || { echo "explore-cluster: redis-server is missing: apt-get install redis-server" >&2; exit 1; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/picotpu-cluster.XXXXXX")
redis=
workers=()
# The workers first (they finish their jobs and close their connections), then redis-server.
stop() {
	for pid in "${workers[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${workers[@]}"; do wait "$pid" 2>/dev/null || true; done
	[ -z "$redis" ] || { kill "$redis" 2>/dev/null || true; wait "$redis" 2>/dev/null || true; }
	rm -rf "$dir"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A free port on 127.0.0.1 (the kernel picks one; nothing else binds it in the instant before redis does).
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
# In its own session, so a Ctrl-C at the terminal reaches the workers and the coordinator but not the server they close through.
setsid redis-server --port "$port" --bind 127.0.0.1 --protected-mode yes --dir "$dir" --save '' --appendonly no --logfile "$dir/redis.log" &
redis=$!
for _ in $(seq 100); do [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
url="redis://127.0.0.1:$port/0"
echo "explore-cluster: redis-server on $url (data in $dir), $nworkers workers; logs in $dir/worker-*.log" >&2

for i in $(seq "$nworkers"); do
	node bin/picotpu.cjs worker --queue "$url" --concurrency 1 >"$dir/worker-$i.log" 2>&1 &
	workers+=($!)
done
node bin/picotpu.cjs explore "$grid" --queue "$url" "$@"
