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

# The demo: C firmware on the CPU, then a stream of tiled int4 matmuls on the
# TPU (DMA + MXU, wait tokens) with its performance report.
echo "== picotpu run build/fw/hello.elf =="
node bin/picotpu.mjs run build/fw/hello.elf --no-report
echo "== picotpu run build/fw/tpubench.elf =="
node bin/picotpu.mjs run build/fw/tpubench.elf --stats "$@"
