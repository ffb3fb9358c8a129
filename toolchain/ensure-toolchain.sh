#!/usr/bin/env bash
# Makes sure the RISC-V cross toolchain for picotpu firmware is present:
# riscv64-unknown-elf-{gcc,objdump,objcopy} and picolibc's rv32i/ilp32 build.
# With --with-test-tools, also qemu-riscv32 (qemu-user), gdb-multiarch and
# llvm-objcopy (llvm; test/bad-input.test.ts strips an ELF with it) and
# /usr/bin/chromium (Debian's chromium; test/playground.test.ts drives the
# browser playground with it through playwright-core, no browser download)
# and redis-server (test/explore.test.ts runs the explore queue on it).
# Quiet when all is there. Installs with apt-get when run as root; otherwise
# prints the command to run and exits 1.
# Then checks the compiler, binutils and picolibc against the versions the tests'
# ELF hashes and clocks were made with (Debian 12 bookworm's packages, PINNED
# below): another version builds working firmware, but its code differs, so the
# tests that pin ELF hashes or clock counts may fail. A difference is one warning
# line per package, not a failure.
set -euo pipefail

with_test_tools=0
for arg in "$@"; do
	case "$arg" in
	--with-test-tools) with_test_tools=1 ;;
	*) echo "usage: $0 [--with-test-tools]" >&2; exit 2 ;;
	esac
done

CROSS=riscv64-unknown-elf-

# The Debian 12 (bookworm) packages the tests' ELF hashes and clocks were made with.
PINNED_DISTRIBUTION="Debian 12 (bookworm)"
PINNED=(
	"gcc-riscv64-unknown-elf 12.2.0-14+deb12u1+11+b2"
	"binutils-riscv64-unknown-elf 2.40-2+4+b1"
	"picolibc-riscv64-unknown-elf 1.8-1"
)
PINNED_GCC=12.2.0

# Compiles and links a program that uses picolibc's string.h for rv32i: this
# is what the firmware needs, and it fails if the multilib is missing.
picolibc_ok() {
	local dir rc
	dir=$(mktemp -d) || return 1
	printf '#include <string.h>\nvoid _start(void) { static char b[8]; memset(b, 0, strlen("x")); for (;;); }\n' >"$dir/t.c"
	"${CROSS}gcc" -march=rv32i -mabi=ilp32 --specs=picolibc.specs -ffreestanding -nostartfiles \
		"$dir/t.c" -o "$dir/t.elf" -lc -lgcc >/dev/null 2>&1
	rc=$?
	rm -rf "$dir"
	return $rc
}

missing_packages() {
	local pkgs=()
	command -v "${CROSS}gcc" >/dev/null || pkgs+=(gcc-riscv64-unknown-elf)
	{ command -v "${CROSS}objdump" && command -v "${CROSS}objcopy"; } >/dev/null ||
		pkgs+=(binutils-riscv64-unknown-elf)
	# Without gcc picolibc cannot be checked: list it, apt skips it if present.
	{ command -v "${CROSS}gcc" >/dev/null && picolibc_ok; } || pkgs+=(picolibc-riscv64-unknown-elf)
	if ((with_test_tools)); then
		command -v qemu-riscv32 >/dev/null || pkgs+=(qemu-user)
		command -v gdb-multiarch >/dev/null || pkgs+=(gdb-multiarch)
		command -v llvm-objcopy >/dev/null || pkgs+=(llvm)
		[[ -x /usr/bin/chromium ]] || pkgs+=(chromium)
		command -v redis-server >/dev/null || pkgs+=(redis-server)
	fi
	echo "${pkgs[@]}"
}

# One warning line per package whose version is not the pinned one (says what differs).
check_versions() {
	local entry pkg want have gcc
	for entry in "${PINNED[@]}"; do
		pkg=${entry%% *} want=${entry#* }
		have=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
		if [[ -z "$have" ]]; then
			# Not from a Debian package (another distribution, or built from source): compare what gcc says.
			if [[ $pkg == gcc-* ]]; then
				gcc=$("${CROSS}gcc" -dumpfullversion 2>/dev/null || echo unknown)
				[[ $gcc == "$PINNED_GCC" ]] ||
					echo "picotpu: warning: ${CROSS}gcc is $gcc, not $PINNED_GCC ($pkg $want on $PINNED_DISTRIBUTION): the firmware builds, but tests that pin ELF hashes or clocks may fail" >&2
			else
				echo "picotpu: warning: $pkg is not installed as a Debian package; the tests' ELF hashes and clocks were made with $pkg $want on $PINNED_DISTRIBUTION" >&2
			fi
		elif [[ $have != "$want" ]]; then
			echo "picotpu: warning: $pkg is $have, not $want ($PINNED_DISTRIBUTION): the firmware builds, but tests that pin ELF hashes or clocks may fail" >&2
		fi
	done
	return 0
}

missing=$(missing_packages)
if [[ -z "$missing" ]]; then
	check_versions
	exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
	echo "picotpu: missing toolchain packages: $missing" >&2
	echo "run: sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y $missing" >&2
	exit 1
fi

echo "picotpu: installing $missing" >&2
apt-get update
# shellcheck disable=SC2086  # word splitting of the package list is intended
DEBIAN_FRONTEND=noninteractive apt-get install -y $missing

missing=$(missing_packages)
if [[ -n "$missing" ]]; then
	echo "picotpu: still missing after install: $missing" >&2
	exit 1
fi
check_versions
