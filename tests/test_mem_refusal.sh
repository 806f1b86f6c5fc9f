#!/bin/bash
# SPDX-License-Identifier: MIT
#
# test_mem_refusal.sh - every kernel that allocates or caches by a size
# parameter refuses a size beyond the memory available, before it allocates
# or writes anything, with a message naming the parameter, the value, what
# it needs and what is available (for small systems: boards with little memory).
#
# A machine has the memory it has, so the test gives the command a small
# one: in a private mount namespace (unshare -m) a file saying
# "MemAvailable: 8192 kB" is bind-mounted over /proc/meminfo. Without the
# right to do that (not root, no CAP_SYS_ADMIN, no unshare) the checks skip
# and say so. Run by meson as `test_mem_refusal.sh PATH-TO-EMBPERF`; prints TAP.

set -u

EMBPERF=${1:?usage: test_mem_refusal.sh PATH-TO-EMBPERF}
T=$(mktemp -d "${TMPDIR:-/tmp}/test_mem_refusal.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
mkdir "$T/tmp"

. "$(dirname "$0")/tap.sh"

tap_fail_extra() {
	echo "# stderr: $(head -c 600 "$T/err")"
}

# meminfo NAME LINES...: a fake /proc/meminfo in $T/NAME.
meminfo() {
	local name=$1
	shift
	printf '%s\n' "$@" >"$T/$name"
}
meminfo small 'MemTotal:          65536 kB' 'MemFree:            8192 kB' \
	'MemAvailable:       8192 kB' 'Buffers:               0 kB' 'Cached:                0 kB'
# A kernel before 3.14: no MemAvailable line.
meminfo old 'MemTotal:          65536 kB' 'MemFree:            4096 kB' \
	'Buffers:            1024 kB' 'Cached:             3072 kB'
# No figure at all: the library falls back to sysinfo().
meminfo none 'MemTotal:          65536 kB'

# with_meminfo FILE ARGS...: run the command seeing FILE as /proc/meminfo.
with_meminfo() {
	local fake=$1
	shift
	unshare -m sh -c 'mount --bind "$1" /proc/meminfo && shift && exec "$@"' sh \
		"$T/$fake" "$EMBPERF" "$@" >"$T/out" 2>"$T/err"
	status=$?
}

if ! unshare -m sh -c "mount --bind '$T/small' /proc/meminfo && grep -q 'MemAvailable: *8192 kB' /proc/meminfo" 2>/dev/null; then
	skip "memory refusals" "cannot bind-mount a fake /proc/meminfo in a private mount namespace (needs root or CAP_SYS_ADMIN, and unshare)"
	echo "1..$checks"
	exit 0
fi

# refused NAME NEED KERNEL ARGS...: the run exits 3 and the message names
# the parameter 'size', the value given, NEED and the 8.0 MiB available.
refused() {
	local name=$1 need=$2
	shift 2
	local value
	value=$(printf '%s\n' "$@" | sed -n 's/^size=//p' | head -n 1)
	with_meminfo small run "$@" tmpdir="$T/tmp" repetitions=1 -q
	if [ "$status" -ne 3 ]; then
		fail "$name: refused" "exit code $status, expected 3"
	elif ! grep -q "parameter 'size': value '$value'.* needs $need of memory, more than the 8.0 MiB available (MemAvailable in /proc/meminfo)" "$T/err"; then
		fail "$name: refused" "the message does not name size='$value', $need and 8.0 MiB"
	elif [ -n "$(ls -A "$T/tmp")" ]; then
		fail "$name: refused" "files left in tmpdir: $(ls "$T/tmp")"
	else
		pass "$name: refused"
	fi
}

# tmpdir is a parameter of the file kernels only: the others get none.
refused_mem() {
	local name=$1 need=$2
	shift 2
	local value
	value=$(printf '%s\n' "$@" | sed -n 's/^size=//p' | head -n 1)
	with_meminfo small run "$@" repetitions=1 -q
	if [ "$status" -eq 3 ] &&
		grep -q "parameter 'size': value '$value.* needs $need of memory, more than the 8.0 MiB available" "$T/err"; then
		pass "$name: refused"
	else
		fail "$name: refused" "exit code $status, expected 3 and a message naming size='$value', $need, 8.0 MiB"
	fi
}

refused_mem "mem.lat size=64M" "64.0 MiB" mem.lat size=64M
refused_mem "mem.bw size=64M" "64.0 MiB" mem.bw size=64M
refused_mem "mem.stream size=4000000" "91.6 MiB" mem.stream size=4000000
refused_mem "mem.par size=64M" "64.0 MiB" mem.par size=64M
refused_mem "os.cacheline size=64M" "64.0 MiB" os.cacheline size=64M
refused_mem "os.ctx procs=4 size=16M" "64.0 MiB" os.ctx procs=4 size=16M
refused "os.file_rd size=64M" "64.0 MiB" os.file_rd size=64M
refused "os.mmap_rd size=64M" "64.0 MiB" os.mmap_rd size=64M
refused "os.pagefault size=64M" "64.0 MiB" os.pagefault size=64M
refused "os.mmap size=64M" "64.0 MiB" os.mmap size=64M
refused_mem "os.pipe.bw size=64M" "128.0 MiB" os.pipe.bw size=64M total=64M
refused_mem "os.unix.bw size=64M" "128.0 MiB" os.unix.bw size=64M total=64M
refused_mem "os.unix.lat size=16M" "32.0 MiB" os.unix.lat size=16M
refused_mem "os.tcp.lat size=16M" "32.0 MiB" os.tcp.lat size=16M

# The same small system runs what fits: the refusal is the size's doing.
with_meminfo small run mem.lat size=16k repetitions=1 -q
if [ "$status" -eq 0 ]; then pass "mem.lat size=16k fits in 8 MiB"; else fail "mem.lat size=16k fits in 8 MiB" "exit code $status"; fi
with_meminfo small run os.mmap size=1M tmpdir="$T/tmp" repetitions=1 -q
if [ "$status" -eq 0 ]; then pass "os.mmap size=1M fits in 8 MiB"; else fail "os.mmap size=1M fits in 8 MiB" "exit code $status"; fi

# Kernels before 3.14: MemFree + Buffers + Cached is the figure, named.
with_meminfo old run os.mmap_rd size=64M tmpdir="$T/tmp" repetitions=1 -q
if [ "$status" -eq 3 ] && grep -q "more than the 8.0 MiB available (MemFree + Buffers + Cached in /proc/meminfo)" "$T/err"; then
	pass "no MemAvailable: MemFree + Buffers + Cached"
else
	fail "no MemAvailable: MemFree + Buffers + Cached" "exit code $status"
fi

# No figure in /proc/meminfo: sysinfo() tells; 1T is beyond any machine here.
with_meminfo none run mem.lat size=1T repetitions=1 -q
if [ "$status" -eq 3 ] && grep -q "parameter 'size': value '1T' needs 1.0 TiB of memory, more than the .* available (freeram + bufferram of sysinfo())" "$T/err"; then
	pass "no meminfo figure: sysinfo()"
else
	fail "no meminfo figure: sysinfo()" "exit code $status"
fi

echo "1..$checks"
[ "$failures" -eq 0 ]
