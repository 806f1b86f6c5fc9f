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
# folder made here, also after lmdd's if= and of=). ID.stdout, ID.stderr and ID.status are lmbench's.
# "todo:ID|..." marks a known difference (listed in doc/frontends.md): it is
# reported as a TAP TODO and does not fail the test. "busy:ID|..." marks an
# mhz run: whether mhz finds a clock (exit 0, "N MHz, X nanosec clock") or
# not (exit 1, "-1 System too busy") depends on the machine's load for
# lmbench and the front end alike, so exit status 0 and 1 count as equal
# and the filter turns both last lines into one.
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

# kernel_of NAME: set $kernel to the kernel behind front end NAME, to skip
# a case cleanly in a build without it.
kernel_of() {
	case $1 in
	lat_mem_rd) kernel=mem.lat ;; bw_mem) kernel=mem.bw ;; stream) kernel=mem.stream ;;
	lat_ops) kernel=cpu.ops ;; par_ops) kernel=cpu.par ;; mhz) kernel=cpu.mhz ;;
	lat_ctx) kernel=os.ctx ;; lat_syscall) kernel=os.syscall ;; lat_sig) kernel=os.signal ;;
	lat_proc) kernel=os.proc ;; lat_sem) kernel=os.sem ;; lat_pagefault) kernel=os.pagefault ;;
	lat_mmap) kernel=os.mmap ;; lat_pipe) kernel=os.pipe.lat ;; lat_unix) kernel=os.unix.lat ;;
	lat_tcp) kernel=os.tcp.lat ;; lat_udp) kernel=os.udp.lat ;; lat_connect) kernel=os.tcp.connect ;;
	lat_select) kernel=os.select ;; bw_pipe) kernel=os.pipe.bw ;; bw_unix) kernel=os.unix.bw ;;
	lat_fs) kernel=os.fs ;; bw_file_rd) kernel=os.file_rd ;; bw_mmap_rd) kernel=os.mmap_rd ;;
	lat_usleep) kernel=os.sleep ;; line) kernel=os.cacheline ;; par_mem) kernel=mem.par ;;
	lat_fcntl) kernel=os.fcntl ;; lat_cmd) kernel=os.proc ;; lmdd) kernel=blk.io ;;
	*) kernel= ;;
	esac
}

# normalize FILE: mask the measured figures, keep labels and sizes.
#   "LABEL: X unit"           -> "LABEL: # unit"  (micro(), nano(), mb(), par_ops)
#   "SIZE X"                  -> "SIZE #"         (lat_mem_rd, bw_mem, par_mem, bw_*_rd, lat_mmap, lat_ctx)
#   "SIZEk\tN\tX\tY"          -> "SIZEk\t#\t#\t#" (lat_fs)
#   "\"size=Sk ovr=X"         -> "\"size=Sk ovr=#" (lat_ctx)
#   "N MHz, X nanosec clock"  -> "# MHz, # nanosec clock" (mhz)
#   "X" alone                 -> "#"              (line, mhz -c)
#   "MB in X secs, Y MB/sec"  -> "MB in # secs, # MB/sec" (lmdd)
#   "X KB/sec", "X MB/sec"    -> "# KB/sec", "# MB/sec"   (lmdd print=3, 4)
#   "-1 System too busy"      -> "# MHz, # nanosec clock" (mhz: see busy: above)
#   mhz -d's table: the header's MHz, interval and overheads, and each
#   timing "{ /* X */ U, N}" -> "#"; the loop names and timing counts stay.
normalize() {
	sed -E \
		-e 's|^(/\* "CPU", "uname", "email", -1), -?[0-9]+, -?[0-9]+, -?[0-9.]+, -?[0-9.]+ \*/$|\1, #, #, #, # */|' \
		-e 's|^(\t\t\{ /\* )[0-9.]+( \*/ )[0-9]+, [0-9]+\}|\1#\2#, #}|' \
		-e 's/^-1 System too busy$/# MHz, # nanosec clock/' \
		-e 's/ovr=-?[0-9][0-9.]*/ovr=#/' \
		-e 's/^([^"].*): -?[0-9][0-9.]*( |$)/\1: #\2/' \
		-e 's/^(-?[0-9][0-9.]*k?)([ \t]+)-?[0-9][0-9.]*$/\1\2#/' \
		-e 's/^([0-9]+k)\t-?[0-9]+\t-?[0-9]+\t-?[0-9]+$/\1\t#\t#\t#/' \
		-e 's/^-?[0-9]+ MHz, -?[0-9.]+ nanosec clock$/# MHz, # nanosec clock/' \
		-e 's/^-?[0-9][0-9.]*$/#/' \
		-e 's@^([0-9.]+ MB in )[0-9.]+( secs, )[0-9.]+( MB/sec)$@\1#\2#\3@' \
		-e 's@^(.*[^0-9.])?[0-9][0-9.]* (KB|MB)/sec$@\1# \2/sec@' "$1"
}

# The kernels of this build, asked once.
kernels=$("$EMBPERF" list 2>/dev/null | awk '{ printf "%s ", $1 }')
[ -n "$kernels" ] || { echo "Bail out! '$EMBPERF list' gave no kernel"; exit 1; }


. "$(dirname "$0")/tap.sh"

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

# Run every case first (one process each: the machine may be loaded and
# forks are slow), then filter all outputs at once and compare per case.
G=$T/got
mkdir -p "$G" || exit 1
ids=()
while IFS='|' read -r id cmd; do
	[ -z "$id" ] && continue
	case $id in '#'*) continue ;; esac
	todo= busy=
	case $id in todo:*) id=${id#todo:} todo=1 ;; busy:*) id=${id#busy:} busy=1 ;; esac
	# shellcheck disable=SC2206
	words=($cmd)
	name=${words[0]}
	[ -e "$BIN/$name" ] || ln -s "$LMBENCH" "$BIN/$name" || exit 1
	for i in "${!words[@]}"; do
		case ${words[$i]} in
		FILE) words[i]=$T/file ;;
		DIR) words[i]=$T/dir ;;
		if=FILE) words[i]=if=$T/file ;;
		of=DIR/*) words[i]=of=$T/dir/${words[i]#of=DIR/} ;;
		esac
	done
	kernel_of "$name"
	read -r want <"$DATA/$id.status"
	if [ -n "$kernel" ] && [[ " $kernels " != *" $kernel "* ]] && [ "$want" = 0 ]; then
		skip "$cmd" "kernel $kernel not in this build"
		continue
	fi
	# On PATH, as lmbench was when recorded, so argv[0] (in the usage
	# line) is the bare program name.
	start=$EPOCHREALTIME
	(cd "$T" && PATH=$BIN:$PATH exec "${words[@]}" >"$G/$id.stdout" 2>"$G/$id.stderr" </dev/null)
	status=$?
	end=$EPOCHREALTIME
	# mhz: a clock found or not, as the load decides (see busy: above).
	if [ -n "$busy" ] && [ "$status" -le 1 ] && [ "$want" -le 1 ]; then
		status=$want
	fi
	ms=$(( (${end/./} - ${start/./}) / 1000 ))
	ids+=("$id")
	printf '%s|%s|%s|%s|%s|%s\n' "$id" "$todo" "$status" "$want" "$ms" "$cmd" >>"$G/index"
done <"$DATA/cases"

# concat DIR: every case's stderr then stdout, each after a line
# "\001ID STREAM".
concat() {
	awk -v dir="$1" '
	{
		for (s = 1; s <= 2; s++) {
			stream = s == 1 ? "stderr" : "stdout"
			f = dir "/" $0 "." stream
			printf "\001%s %s\n", $0, stream
			while ((getline line < f) > 0)
				print line
			close(f)
		}
	}' "$G/ids"
}

printf '%s\n' "${ids[@]}" >"$G/ids"
# Our outputs name the temporary file and folder; lmbench's say FILE, DIR.
concat "$DATA" | normalize /dev/stdin >"$T/want.txt"
concat "$G" | sed -e "s#$T/file#FILE#g" -e "s#$T/dir#DIR#g" | normalize /dev/stdin >"$T/got.txt"

# One awk compares case by case and prints the TAP lines.
awk -v n="$checks" -v want="$T/want.txt" -v got="$T/got.txt" -F'|' '
function load(file, text,   line, key) {
	key = ""
	while ((getline line < file) > 0) {
		if (substr(line, 1, 1) == "\001") { key = substr(line, 2); text[key] = ""; continue }
		text[key] = text[key] line "\n"
	}
	close(file)
}
function differ(a, b, label,   na, nb, la, lb, i, out, shown) {
	na = split(a, la, "\n"); nb = split(b, lb, "\n")
	out = ""; shown = 0
	for (i = 1; i <= (na > nb ? na : nb) && shown < 6; i++)
		if (la[i] != lb[i]) {
			out = out "\n#   " label " line " i ": lmbench \"" la[i] "\", front end \"" lb[i] "\""
			shown++
		}
	return out
}
BEGIN { load(want, W); load(got, O); failures = 0 }
{
	id = $1; todo = $2; status = $3; wstatus = $4; ms = $5; cmd = $6
	why = ""
	if (status != wstatus)
		why = why "\n#   exit status " status ", lmbench " wstatus
	for (s = 1; s <= 2; s++) {
		key = id " " (s == 1 ? "stderr" : "stdout")
		if (W[key] != O[key])
			why = why differ(W[key], O[key], s == 1 ? "stderr" : "stdout")
	}
	n++
	line = cmd " (" ms " ms)"
	if (todo != "") {
		# A known difference (doc/frontends.md): reported, not failed.
		if (why == "")
			print "ok " n " - " line " # TODO passes now: drop its todo: mark in cases"
		else
			print "not ok " n " - " line " # TODO known difference, see doc/frontends.md" why
	} else if (why == "") {
		print "ok " n " - " line
	} else {
		print "not ok " n " - " line why
		failures++
	}
}
END { print "1.." n; exit failures != 0 }' "$G/index" || failures=$((failures + 1))
[ "$failures" -eq 0 ]
