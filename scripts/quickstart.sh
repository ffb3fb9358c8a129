#!/usr/bin/env bash
# The README's first command: installs what is missing (the RISC-V toolchain
# and the test tools, npm packages), builds the firmware, then runs the demo:
# the trained int4 transformer (models/adder.ptm) adds two random 31-digit
# numbers on the emulated TPU, and the performance reports of its prefill,
# its decode and the whole run are printed (docs/addition.md).
#
#   bash scripts/quickstart.sh                       # a random problem (a fresh seed each run, printed)
#   bash scripts/quickstart.sh 123456789+987654321   # arguments go to picotpu demo
set -euo pipefail
cd "$(dirname "$0")/.."

bash toolchain/ensure-toolchain.sh --with-test-tools
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
make -s -C firmware-c
npm run -s build   # the compiled command line (dist/): no TypeScript transpiled at run time

echo "== picotpu demo $* =="
exec node bin/picotpu.cjs demo "$@"
