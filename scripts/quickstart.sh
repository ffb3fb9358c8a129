#!/usr/bin/env bash
# The README's first command: installs what is missing (npm packages, the
# RISC-V toolchain), builds the firmware and runs a demo on the emulated board.
set -euo pipefail
cd "$(dirname "$0")/.."

bash toolchain/ensure-toolchain.sh --with-test-tools
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
make -s -C firmware-c

demo=build/fw/hello.elf
[ -f build/fw/demo.elf ] && demo=build/fw/demo.elf
echo "== picotpu run $demo =="
node bin/picotpu.mjs run "$demo" --stats "$@"
