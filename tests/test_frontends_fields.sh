#!/bin/bash
# SPDX-License-Identifier: MIT
#
# test_frontends_fields.sh - the lmbench-compatible front ends print what
# lmbench3 prints for the same arguments: every label, every field, every
# size of a sweep, the same usage text and exit status for what lmbench
# refuses.
#
# The reference is recorded output of real lmbench3 programs, kept as data in
# tests/data/lmbench/ (see its README for where and how they were recorded),
# so lmbench need not be installed. `cases` lists one run a line:
# "ID|PROGRAM ARGS..." (FILE and DIR stand for a 4 MiB file and an empty
# folder made here). ID.stdout, ID.stderr and ID.status are lmbench's.
# "todo:ID|..." marks a known difference (listed in doc/frontends.md): it is
# reported as a TAP TODO and does not fail the test.
#
# Figures differ from run to run and from CPU to CPU, so both outputs go
# through the same filter (normalize below) that replaces each measured
# figure by '#' and keeps everything else: labels, units, the size columns
# of sweeps ("MB X", "SIZE\tN\tX\tY"), the lat_ctx header's size, the usage
# text. What is left must be equal, line for line, and the exit status too.
#
# Run by meson as `test_frontends_fields.sh PATH-TO-embperf-lmbench DATA-DIR
# PATH-TO-embperf [PATH-TO-embperf-hello]`. A case whose kernel this build
# lacks is skipped with the reason. Prints TAP; exits 1 when a check fails.

set -u

LMBENCH=${1:?usage: test_frontends_fields.sh PATH-TO-embperf-lmbench DATA-DIR PATH-TO-embperf [PATH-TO-embperf-hello]}
DATA=${2:?usage: test_frontends_fields.sh PATH-TO-embperf-lmbench DATA-DIR PATH-TO-embperf [PATH-TO-embperf-hello]}
EMBPERF=${3:?usage: test_frontends_fields.sh PATH-TO-embperf-lmbench DATA-DIR PATH-TO-embperf [PATH-TO-embperf-hello]}
if [ -n "${4:-}" ]; then
	export EMBPERF_HELLO=$4
fi
[ -r "$DATA/cases" ] || { echo "Bail out! no $DATA/cases"; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/test_frontends_fields.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
BIN=$T/bin
mkdir -p "$BIN" "$T/dir" "$T/tmp" || exit 1
export TMPDIR=$T/tmp
head -c 4194304 /dev/zero >"$T/file" || exit 1

# The kernel behind each front end, to skip a case cleanly in a build
# without it.
kernel_of() {
	case $1 in
	lat_mem_rd) echo mem.lat ;; bw_mem) echo mem.bw ;; stream) echo mem.stream ;;
	lat_ops) echo cpu.ops ;; par_ops) echo cpu.par ;; mhz) echo cpu.mhz ;;
	lat_ctx) echo os.ctx ;; lat_syscall) echo os.syscall ;; lat_sig) echo os.signal ;;
	lat_proc) echo os.proc ;; lat_sem) echo os.sem ;; lat_pagefault) echo os.pagefault ;;
	lat_mmap) echo os.mmap ;; lat_pipe) echo os.pipe.lat ;; lat_unix) echo os.unix.lat ;;
	lat_tcp) echo os.tcp.lat ;; lat_udp) echo os.udp.lat ;; lat_connect) echo os.tcp.connect ;;
	lat_select) echo os.select ;; bw_pipe) echo os.pipe.bw ;; bw_unix) echo os.unix.bw ;;
	lat_fs) echo os.fs ;; bw_file_rd) echo os.file_rd ;; bw_mmap_rd) echo os.mmap_rd ;;
	lat_usleep) echo os.sleep ;; line) echo os.cacheline ;; par_mem) echo mem.par ;;
	*) echo "" ;;
	esac
}

# normalize FILE: mask the measured figures, keep labels and sizes.
#   "LABEL: X unit"           -> "LABEL: # unit"  (micro(), nano(), mb(), par_ops)
#   "SIZE X"                  -> "SIZE #"         (lat_mem_rd, bw_mem, par_mem, bw_*_rd, lat_mmap, lat_ctx)
#   "SIZEk\tN\tX\tY"          -> "SIZEk\t#\t#\t#" (lat_fs)
#   "\"size=Sk ovr=X"         -> "\"size=Sk ovr=#" (lat_ctx)
#   "N MHz, X nanosec clock"  -> "# MHz, # nanosec clock" (mhz)
#   "X" alone                 -> "#"              (line, mhz -c)
normalize() {
	sed -E \
		-e 's/ovr=-?[0-9][0-9.]*/ovr=#/' \
		-e 's/^([^"].*): -?[0-9][0-9.]*( |$)/\1: #\2/' \
		-e 's/^(-?[0-9][0-9.]*k?)([ \t]+)-?[0-9][0-9.]*$/\1\2#/' \
		-e 's/^([0-9]+k)\t-?[0-9]+\t-?[0-9]+\t-?[0-9]+$/\1\t#\t#\t#/' \
		-e 's/^-?[0-9]+ MHz, -?[0-9.]+ nanosec clock$/# MHz, # nanosec clock/' \
		-e 's/^-?[0-9][0-9.]*$/#/' "$1"
}

# The kernels of this build, asked once.
kernels=$("$EMBPERF" list 2>/dev/null | awk '{ printf "%s ", $1 }')
[ -n "$kernels" ] || { echo "Bail out! '$EMBPERF list' gave no kernel"; exit 1; }

checks=0
failures=0

pass() {
	checks=$((checks + 1))
	echo "ok $checks - $1"
}

fail() {
	checks=$((checks + 1))
	failures=$((failures + 1))
	echo "not ok $checks - $1"
	shift
	for line in "$@"; do echo "# $line"; done
}

skip() {
	checks=$((checks + 1))
	echo "ok $checks - $1 # SKIP $2"
}

# The filter itself must tell a label or a size apart: a check that the
# comparison can fail.
printf 'Simple syscall: 0.1 microseconds\n0.00049 1.2\n' >"$T/a"
printf 'Simple syscal: 0.2 microseconds\n0.00098 1.2\n' >"$T/b"
if [ "$(normalize "$T/a")" != "$(normalize "$T/b")" ] &&
	[ "$(normalize "$T/a")" = "$(printf 'Simple syscall: # microseconds\n0.00049 #')" ]; then
	pass "the filter keeps labels and sizes and masks figures"
else
	fail "the filter keeps labels and sizes and masks figures" "$(normalize "$T/a")"
fi

while IFS='|' read -r id cmd; do
	[ -z "$id" ] && continue
	case $id in '#'*) continue ;; esac
	todo=
	case $id in todo:*) id=${id#todo:} todo=1 ;; esac
	# shellcheck disable=SC2206
	words=($cmd)
	name=${words[0]}
	ln -sf "$LMBENCH" "$BIN/$name" || exit 1
	for i in "${!words[@]}"; do
		case ${words[$i]} in
		FILE) words[i]=$T/file ;;
		DIR) words[i]=$T/dir ;;
		esac
	done
	kernel=$(kernel_of "$name")
	if [ -n "$kernel" ] && [[ " $kernels " != *" $kernel "* ]] &&
		[ "$(cat "$DATA/$id.status")" = 0 ]; then
		skip "$cmd" "kernel $kernel not in this build"
		continue
	fi
	# On PATH, as lmbench was when recorded, so argv[0] (in the usage
	# line) is the bare program name.
	start=$(date +%s%N)
	(cd "$T" && PATH=$BIN:$PATH "${words[@]}" >"$T/out" 2>"$T/err" </dev/null)
	status=$?
	took="($(( ($(date +%s%N) - start) / 1000000 )) ms)"
	# The file and folder appear in some labels ("Pagefaults on FILE").
	sed -i -e "s#$T/file#FILE#g" -e "s#$T/dir#DIR#g" "$T/out" "$T/err"
	why=()
	[ "$status" = "$(cat "$DATA/$id.status")" ] ||
		why+=("exit status $status, lmbench $(cat "$DATA/$id.status")")
	for stream in stderr stdout; do
		ours=$T/err
		[ $stream = stdout ] && ours=$T/out
		if ! diff <(normalize "$DATA/$id.$stream") <(normalize "$ours") >"$T/diff"; then
			why+=("$stream differs (< lmbench, > front end):")
			while IFS= read -r line; do why+=("  $line"); done < <(head -n 12 "$T/diff")
		fi
	done
	if [ -n "$todo" ]; then
		# A known difference (doc/frontends.md): reported, not failed.
		checks=$((checks + 1))
		if [ ${#why[@]} -eq 0 ]; then
			echo "ok $checks - $cmd $took # TODO passes now: drop its todo: mark in cases"
		else
			echo "not ok $checks - $cmd $took # TODO known difference, see doc/frontends.md"
			for line in "${why[@]}"; do echo "# $line"; done
		fi
	elif [ ${#why[@]} -eq 0 ]; then
		pass "$cmd $took"
	else
		fail "$cmd $took" "${why[@]}"
	fi
done <"$DATA/cases"

echo "1..$checks"
[ "$failures" -eq 0 ]
