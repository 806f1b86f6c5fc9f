# SPDX-License-Identifier: MIT
#
# tests/vm/lib.sh - what the VM-tier scripts (audio-alsa.sh, blk-mtd.sh)
# share; sourced, not run, after BUILD is set: the tools they need, Debian's
# kernel package (taken apart, never installed), the initramfs with busybox,
# the kernel's modules and the embperf command with its libraries, the qemu
# boot (TCG), and the reading of the console's log as TAP.
#
# Settings: $EMBPERF_VM_CACHE, where the kernel package is looked for and
# fetched to (~/.cache/embperf-vm; EMBPERF_VM_FETCH=0: never fetched);
# $EMBPERF_VM_TIMEOUT, the longest the VM may run in seconds (300);
# $EMBPERF_VM_MEM, the guest's memory in MiB (512); $EMBPERF_VM_SMP, its
# CPUs (1: the checks need no second one; with 2, under TCG on a loaded
# host, perf_event_open's first software event patches kernel text
# (static key, text_poke_bp_batch) and waits in smp_call_function_many_cond
# for the other vCPU, which did not answer for minutes: a soft lockup in
# blk.mtd, twice in CI and once in three runs here; the benchmarks that
# pin to the guest's CPU 1 ask for 2); $EMBPERF_VM_APPEND, more words for the guest
# kernel's command line; $EMBPERF_VM_TAR, a file for the package's files
# as a plain tar, made on first use and read by the next scripts (unset:
# each script decompresses the package, 5.7 CPU-s; from the plain tar the
# files are read in 0.04 s, as tar seeks past what it does not want: CI's
# VM tier sets it for its three scripts). A soft lockup panics the guest
# (softlockup_panic=1): the panic prints the stuck CPU's call trace, and the
# check fails at once instead of at the timeout. no_timer_check: the guest does not time its
# timer interrupt against the IO-APIC at boot, a check that a TCG vCPU on a
# loaded host can fail ("Kernel panic - not syncing: IO-APIC + timer
# doesn't work!", 0.06 s into the boot, once in a soak run beside the other
# CI jobs); virtual machines' kernels are booted with it for that reason.

CACHE=${EMBPERF_VM_CACHE:-$HOME/.cache/embperf-vm}
TIMEOUT=${EMBPERF_VM_TIMEOUT:-300}
VM_MEM=${EMBPERF_VM_MEM:-512}
VM_SMP=${EMBPERF_VM_SMP:-1}
VM_APPEND=${EMBPERF_VM_APPEND:-}
EMBPERF=$BUILD/bench/embperf

. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

# skip_all REASON: the whole script skips.
skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

# vm_need_tools: qemu-system-x86_64, a static busybox ($BUSYBOX) and the
# embperf command of BUILD, or skip.
vm_need_tools() {
	command -v qemu-system-x86_64 >/dev/null ||
		skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
	BUSYBOX=$(command -v busybox) || skip_all "busybox not installed (apt-get install busybox-static)"
	ldd "$BUSYBOX" >/dev/null 2>&1 && skip_all "$BUSYBOX is not static (apt-get install busybox-static)"
	[ -x "$EMBPERF" ] || skip_all "$EMBPERF not built"
}

# kernel_pkg: the package linux-image-amd64 depends on (the current kernel).
kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }'
}

# vm_kernel_deb: Debian's kernel package in $deb, from $CACHE, fetched there
# with `apt-get download` when it is missing; skip when there is none.
vm_kernel_deb() {
	local pkg
	mkdir -p "$CACHE"
	deb=$(ls "$CACHE"/linux-image-*-amd64_*_amd64.deb 2>/dev/null | grep -v -- '-dbg' | tail -1)
	if [ -z "$deb" ] && [ "${EMBPERF_VM_FETCH:-1}" != 0 ] && command -v apt-get >/dev/null; then
		pkg=$(kernel_pkg)
		# No package lists yet (a fresh machine): fetch them once, as root.
		if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
			apt-get update -qq >/dev/null 2>&1
			pkg=$(kernel_pkg)
		fi
		[ -n "$pkg" ] && (cd "$CACHE" && apt-get download "$pkg" >/dev/null 2>&1)
		deb=$(ls "$CACHE"/linux-image-*-amd64_*_amd64.deb 2>/dev/null | tail -1)
	fi
	[ -n "$deb" ] || skip_all "no Debian kernel package in $CACHE (apt-get download linux-image-amd64's dependency there)"
}

# vm_plain_tar: $EMBPERF_VM_TAR holds $deb's files as a plain tar; made
# again when it was made from another package ($EMBPERF_VM_TAR.from).
vm_plain_tar() {
	[ -s "$EMBPERF_VM_TAR" ] && [ "$(cat "$EMBPERF_VM_TAR.from" 2>/dev/null)" = "$deb" ] && return 0
	rm -f "$EMBPERF_VM_TAR" "$EMBPERF_VM_TAR.from"
	if dpkg-deb --fsys-tarfile "$deb" >"$EMBPERF_VM_TAR.tmp" &&
		mv "$EMBPERF_VM_TAR.tmp" "$EMBPERF_VM_TAR" && echo "$deb" >"$EMBPERF_VM_TAR.from"; then
		return 0
	fi
	rm -f "$EMBPERF_VM_TAR" "$EMBPERF_VM_TAR.tmp" "$EMBPERF_VM_TAR.from"
	return 1
}

# vm_unpack PATTERN...: a temporary folder $T (removed at exit) holding the
# package's kernel ($kernel) and its files that match PATTERN...; the
# initramfs's root $R with busybox and the folders every guest mounts.
vm_unpack() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/embperf-vm.XXXXXX") || exit 1
	trap 'rm -rf "$T"' EXIT
	# Without room for the plain tar (400 MB), from the package as before.
	if [ -n "${EMBPERF_VM_TAR:-}" ] && vm_plain_tar; then
		tar -x -f "$EMBPERF_VM_TAR" -C "$T" --wildcards './boot/vmlinuz-*' "$@" 2>/dev/null
	else
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$T" --wildcards './boot/vmlinuz-*' "$@" 2>/dev/null
	fi
	kernel=$(ls "$T"/boot/vmlinuz-* 2>/dev/null | head -1)
	[ -n "$kernel" ] || skip_all "$deb holds no vmlinuz"
	R=$T/root
	mkdir -p "$R/bin" "$R/mod" "$R/proc" "$R/sys" "$R/dev" "$R/tmp"
	cp "$BUSYBOX" "$R/bin/busybox"
}

# ext4 from Debian's kernel package, for the benchmarks: the paths to give
# vm_unpack, and the modules in load order (the guest loads $VM_EXT4_MODULES
# with insmod, in that order).
VM_EXT4_PATHS=('./lib/modules/*/kernel/fs/ext4/*' './lib/modules/*/kernel/fs/jbd2/*'
	'./lib/modules/*/kernel/fs/mbcache.ko' './lib/modules/*/kernel/lib/crc16.ko'
	'./lib/modules/*/kernel/crypto/crc32c_generic.ko')
VM_EXT4_MODULES="crc16 crc32c_generic mbcache jbd2 ext4"

# vm_ext4: ext4's modules (after vm_unpack "${VM_EXT4_PATHS[@]}") and
# mke2fs with its libraries into the initramfs; status 1, saying what is
# missing on stderr, when one is not there.
vm_ext4() {
	local m
	command -v mke2fs >/dev/null || { echo "mke2fs not found (apt-get install e2fsprogs)" >&2; return 1; }
	for m in $VM_EXT4_MODULES; do
		vm_module "$m" || { echo "$deb has no $m.ko" >&2; return 1; }
	done
	vm_copy_with_libs "$(command -v mke2fs)"
}

# vm_module NAME: NAME.ko from the package into the initramfs's /mod;
# status 1 when the package has none.
vm_module() {
	local f
	f=$(find "$T/lib/modules" -name "$1.ko" | head -1)
	[ -n "$f" ] || return 1
	cp "$f" "$R/mod/"
}

# vm_copy_with_libs FILE: FILE and every library it loads into the
# initramfs, at the same paths.
vm_copy_with_libs() {
	local f
	mkdir -p "$R$(dirname "$1")"
	cp -L "$1" "$R$1"
	for f in $(ldd "$1" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'); do
		mkdir -p "$R$(dirname "$f")"
		cp -L "$f" "$R$f"
	done
}

# vm_install_embperf: the embperf command (its libraries too) as /bin/embperf.
vm_install_embperf() {
	vm_copy_with_libs "$(readlink -f "$EMBPERF")"
	ln -s "$(readlink -f "$EMBPERF")" "$R/bin/embperf"
}

# vm_init_head: the start of the guest's /init: busybox's commands, /proc,
# /sys and /dev mounted, in /mod (where the modules are), and run NAME
# ARGS..., which prints embperf's output and exit code between markers.
vm_init_head() {
	cat <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
cd /mod
run() { # run NAME ARGS...: embperf's output and exit code between markers
	name=$1; shift
	echo "@@ begin $name"
	echo "@@ cmd embperf -q $*"
	embperf -q "$@" 2>&1
	echo "@@ rc $name $?"
}
INIT
}

# vm_init_interleave: for the benchmarks' /init, after vm_init_head, the
# guest functions
#   interleave ROUND CASE "FIRST SECOND": runs run_tool TOOL (the script's
#     own function) for both tools, FIRST first in odd rounds and SECOND
#     first in even ones, each run's output between "@@ run CASE TOOL ROUND
#     LOAD1" and "@@ end STATUS" (vm_boot_runs splits them), then
#     after_tool TOOL when the script defines it;
#   run_rounds ROUNDS "CASES" "FIRST SECOND": the benchmark's end: for each
#     round r from 1 to ROUNDS and each word c of CASES, set_case c (the
#     script's own function: it sets what run_tool reads, and $label, the
#     case's name in the "@@ run" lines), then interleave r "$label"
#     "FIRST SECOND"; then "@@ done" (vm_boot_runs waits for it) and the
#     guest powers off. $r and $c stay set for run_tool and after_tool.
vm_init_interleave() {
	cat <<'INIT'
interleave() {
	order=$3
	[ $(($1 % 2)) -eq 0 ] && order="${3#* } ${3% *}"
	for tool in $order; do
		echo "@@ run $2 $tool $1 $(cut -d' ' -f1 /proc/loadavg)"
		run_tool "$tool"
		echo "@@ end $?"
		command -v after_tool >/dev/null && after_tool "$tool"
	done
}
run_rounds() {
	for r in $(seq 1 "$1"); do
		for c in $2; do
			set_case "$c"
			interleave "$r" "$label" "$3"
		done
	done
	echo "@@ done"
	poweroff -f
}
INIT
}

# vm_boot: pack $R (its /init written) and boot it under qemu for at most
# $TIMEOUT s; the console's lines in $T/log, qemu's exit code in $qrc.
vm_boot() {
	local start
	chmod +x "$R/init"
	(cd "$R" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null | gzip -1 >"$T/initrd.gz")
	start=$(date +%s)
	timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg -m "$VM_MEM" -smp "$VM_SMP" -nographic -no-reboot -nic none \
		-kernel "$kernel" -initrd "$T/initrd.gz" \
		-append "console=ttyS0 quiet panic=-1 softlockup_panic=1 no_timer_check loglevel=3 $VM_APPEND" >"$T/console" 2>&1
	qrc=$?
	tr -d '\r' <"$T/console" >"$T/log"
	echo "# $(basename "$deb"), qemu exit $qrc after $(($(date +%s) - start)) s"
}

# vm_boot_runs: for the benchmarks (bench/fidelity/compare-*-vm.sh): vm_boot, the
# console kept in $LOG when it is set, exit 1 unless the guest said
# "@@ done"; then each run's output, which the guest printed between
# "@@ run FIELDS..." and "@@ end STATUS", in a file of its own, listed in
# $T/runs as "FIELDS... FILE".
vm_boot_runs() {
	vm_boot
	[ -n "${LOG:-}" ] && cp "$T/log" "$LOG"
	if ! grep -q '^@@ done' "$T/log"; then
		echo "the VM did not finish (qemu exit $qrc): $(tail -5 "$T/log" | tr '\n' ' ')" >&2
		exit 1
	fi
	: >"$T/runs"
	awk -v dir="$T" '
	/^@@ run / { head = $3; for (i = 4; i <= NF; i++) head = head " " $i
		file = dir "/run." NR; print head, file > (dir "/runs"); next }
	/^@@ end / { if ($3 != 0) print "failed:", head > "/dev/stderr"; file = ""; next }
	file != "" { print > file }' "$T/log"
}

# After a failure, the output of the run being checked ($cur).
tap_fail_extra() { sed -n "/@@ begin $cur/,/@@ rc $cur/p" "$T/log" | head -40 | sed 's/^/#   /'; }

# out NAME: the output of run NAME; rc NAME: its exit code.
out() { sed -n "/^@@ begin $1\$/,/^@@ rc $1 /p" "$T/log"; }
rc() { sed -n "s/^@@ rc $1 \([0-9]*\)\$/\1/p" "$T/log"; }

# vm_check_refused NAME PATTERN CHECK: the check CHECK passes when run NAME
# failed (exit code not 0) and its output says PATTERN (grep's).
vm_check_refused() {
	cur=$1
	if [ "$(rc "$1")" != 0 ] && out "$1" | grep -q "$2"; then
		pass "$3"
	else
		fail "$3"
	fi
}

# vm_ran_to_the_end: the first check, that the guest reached "@@ done";
# when it did not, the script ends there (exit 1).
vm_ran_to_the_end() {
	if ! grep -q '^@@ done' "$T/log"; then
		cur=none
		# The run in progress (begun, no exit code) and the console from
		# its start: a kernel's soft-lockup report carries its call trace.
		local open_run
		open_run=$(awk '/^@@ begin /{n=$3} /^@@ rc /{if ($3==n) n=""} END{print n}' "$T/log")
		fail "the VM ran the checks to the end" \
			"qemu exit $qrc; the run in progress: ${open_run:-none}; the console from its start:"
		if [ -n "$open_run" ]; then sed -n "/^@@ begin $open_run\$/,\$p" "$T/log"; else cat "$T/log"; fi |
			tail -80 | sed 's/^/#   /'
		echo "1..$checks"
		exit 1
	fi
	pass "the VM booted $(basename "$kernel") and ran the checks"
}
