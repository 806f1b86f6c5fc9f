# SPDX-License-Identifier: MIT
# Sourced by the .ci scripts: make sure the Debian packages are there,
# build quietly (printing a failed build's errors), and the helpers every
# script shares (step headings, self-test comparisons).
# As root, missing packages are installed; otherwise the apt line is printed.

# apt_retry ARG... - apt-get ARG..., tried again when it fails on the
# network: a Debian mirror in the middle of its sync answers "File has
# unexpected size ... Mirror sync in progress?" for a while (a fresh-clone CI
# failed on it in musl.sh's update), which is no fault of the change under
# test. EMBPERF_APT_TRIES tries (3), EMBPERF_APT_WAIT seconds apart (15,
# doubled each time); other failures (a package apt cannot install) are not
# tried again. On failure the last output is on stderr and in $APT_OUT, and
# apt-get's status is returned.
APT_OUT=
APT_NET_ERRORS='Failed to fetch|unexpected size|Mirror sync|Hash Sum mismatch|Temporary failure|Could not connect|Connection (failed|timed out|reset)'
apt_retry() {
	local tries=${EMBPERF_APT_TRIES:-3} wait_s=${EMBPERF_APT_WAIT:-15} try=1 rc
	while :; do
		APT_OUT=$(apt-get "$@" 2>&1) && return 0
		rc=$?
		if [ "$try" -ge "$tries" ] || ! grep -qE "$APT_NET_ERRORS" <<<"$APT_OUT"; then
			printf '%s\n' "$APT_OUT" >&2
			echo "apt-get $*: failed $try time(s) (status $rc); giving up" >&2
			return "$rc"
		fi
		echo "apt-get $*: failed (status $rc, try $try of $tries): $(grep -m1 '^[EW]:' \
			<<<"$APT_OUT" || echo 'no message'); again in $wait_s s" >&2
		sleep "$wait_s"
		try=$((try + 1))
		wait_s=$((wait_s * 2))
	done
}

# update_lists - apt-get update. When it keeps failing on the index of some
# architectures (seen for hours: bookworm-security's armhf Packages.xz served
# with the wrong size), apt drops every new index of that repository, the
# good ones too; the update is then made again without the failing
# architectures, so that the others' packages can be installed (those of the
# failing ones may be refused then: ensure_arch_packages), and once more for
# all, which keeps them and brings back the failing ones' other lists. Otherwise it goes
# on with the lists there are: the install that follows fails if they lack
# something.
update_lists() {
	apt_retry update -qq && return 0
	local bad keep=() a opts=()
	bad=$(grep -oE 'binary-[a-z0-9]+/Packages' <<<"$APT_OUT" | sed 's/binary-//; s,/.*,,' |
		sort -u | paste -sd ' ')
	for a in $(dpkg --print-architecture) $(dpkg --print-foreign-architectures); do
		[[ " $bad " == *" $a "* ]] || keep+=("$a")
	done
	if [ -n "$bad" ] && [ ${#keep[@]} -gt 0 ]; then
		for a in "${keep[@]}"; do
			opts+=(-o "APT::Architectures::=$a")
		done
		echo "apt-get update failed on the index of: $bad; updating again for ${keep[*]} only" >&2
		if apt_retry "${opts[@]}" update -qq; then
			# That update dropped the lists of $bad; one more for all
			# brings back those of their repositories that do answer
			# (it fails again, keeping the lists already there).
			EMBPERF_APT_TRIES=1 apt_retry update -qq 2>/dev/null || true
			return 0
		fi
	fi
	echo "apt-get update failed (above); going on with the package lists there are" >&2
}

# ensure_packages PKG... - install what is missing, or say how to.
ensure_packages() {
	local missing=() p
	# Each answer read whole, then matched: "cmd | grep -q" under pipefail
	# fails when grep stops reading before cmd has written all (SIGPIPE).
	for p in "$@"; do
		case $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) in
		*'install ok installed'*) ;;
		*) missing+=("$p") ;;
		esac
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "missing Debian packages; install them with:" >&2
		echo "  sudo apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
	echo "installing: ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	update_lists
	apt_retry install -y -qq --no-install-recommends "${missing[@]}"
}

BUILD_PACKAGES=(gcc libc6-dev meson ninja-build pkg-config libjson-c-dev
	libasound2-dev libpcap-dev libnl-3-dev libnl-route-3-dev liburing-dev python3)
TEST_PACKAGES=(libcriterion-dev abigail-tools clang libclang-rt-14-dev binutils iproute2
	python3-yaml qemu-system-x86 busybox-static dosfstools mtd-utils)

# ensure_foreign_arch ARCH... - let dpkg install packages of ARCH.
ensure_foreign_arch() {
	local a added=0 foreign
	# Read whole before grep (see ensure_packages): a CI job once took an
	# architecture it had for a new one, and updated the lists again.
	foreign=$(dpkg --print-foreign-architectures)
	for a in "$@"; do
		grep -qx "$a" <<<"$foreign" && continue
		if [ "$(id -u)" -ne 0 ]; then
			echo "cross builds need: sudo dpkg --add-architecture $a && sudo apt-get update" >&2
			exit 1
		fi
		dpkg --add-architecture "$a"
		added=1
	done
	if [ "$added" = 1 ]; then
		update_lists
	fi
}

# target_packages ARCH - the -dev packages of ARCH the library builds with.
target_packages() {
	local p
	for p in libc6-dev libjson-c-dev libasound2-dev libpcap-dev libnl-3-dev libnl-route-3-dev; do
		printf '%s:%s\n' "$p" "$1"
	done
}

# arch_packages ARCH - the packages of ARCH's cross build and musl self-test.
arch_packages() {
	case $1 in
	arm64) echo gcc-aarch64-linux-gnu musl-dev:arm64 $(target_packages arm64) ;;
	armhf) echo gcc-arm-linux-gnueabihf musl-dev:armhf $(target_packages armhf) ;;
	*) echo "arch_packages: no architecture '$1'; accepted: arm64, armhf" >&2; return 2 ;;
	esac
}

arch_unavailable_file() { echo "${BUILD_ROOT:-build-ci}/unavailable-$1"; }

# arch_host_packages ARCH / arch_target_packages ARCH - arch_packages ARCH
# split: the build machine's own (the cross compiler) and ARCH's (":ARCH").
arch_host_packages() { arch_packages "$1" | tr ' ' '\n' | grep -v ":$1\$" | paste -sd ' '; }
arch_target_packages() { arch_packages "$1" | tr ' ' '\n' | grep ":$1\$" | paste -sd ' '; }

# ensure_arch_packages ARCH - arch_packages ARCH installed (status 0). As
# root, when this machine's package mirror cannot give them (a stale index
# of ARCH: update_lists; then ARCH's multiarch "same" packages cannot be
# installed beside the build machine's newer ones), ARCH's packages are
# unpacked in a sysroot instead (ensure_arch_sysroot; status 0, and
# arch_sysroot names it); when that fails too, status 1 and the reason in
# the file arch_unavailable_file names, which ARCH's jobs read to skip and
# say why (arch_skip): what this machine lacks is no fault of the change
# under test. Not root: ensure_packages's message and exit. ARCHs named in
# EMBPERF_ARCH_SYSROOT ("armhf arm64") go to the sysroot without trying
# the install, root or not (a sysroot needs no root).
ensure_arch_packages() {
	local marker pkgs reason why
	marker=$(arch_unavailable_file "$1")
	pkgs=$(arch_packages "$1") || exit 2
	mkdir -p "$(dirname "$marker")"
	rm -f "$marker" "$(arch_sysroot_dir "$1")/reason"
	if [[ " ${EMBPERF_ARCH_SYSROOT:-} " == *" $1 "* ]]; then
		why="EMBPERF_ARCH_SYSROOT names $1"
		reason="  $why"
	elif [ "$(id -u)" -ne 0 ]; then
		ensure_packages $pkgs
		return 0
	elif (ensure_packages $pkgs) 2>"$marker.log"; then
		rm -f "$marker.log"
		return 0
	else
		reason=$(grep -E '^E:|unmet|Depends:' "$marker.log" | head -n 6 | sed 's/^ */  /')
		# The jobs' line names the first unmet dependency.
		why="multiarch packages not installable here ($({ grep -m1 'Depends:' <<<"$reason" ||
			grep -m1 . <<<"$reason"; } | tr -s ' ' | sed 's/^ //'))"
	fi
	# The cross compiler is the build machine's: installed as usual (it
	# failed above only with ARCH's packages in the same apt-get).
	# shellcheck disable=SC2046
	if (ensure_packages $(arch_host_packages "$1")) 2>"$marker.log" &&
		ensure_arch_sysroot "$1" "$why" 2>>"$marker.log"; then
		rm -f "$marker.log"
		return 0
	fi
	{
		echo "the packages of $1 cannot be installed from this machine's package mirror:"
		echo "$reason"
		echo "  nor unpacked in a sysroot:"
		grep -vE '^(Get|Fetched|Reading|Building)' "$marker.log" | tail -n 4 | sed 's/^ */  /'
	} >"$marker"
	rm -f "$marker.log"
	cat "$marker" >&2
	return 1
}

# arch_sysroot_dir ARCH - the folder of ARCH's sysroot: its .debs (debs/),
# apt's private state for ARCH alone (apt/), the unpacked tree (root/), and
# while the jobs are to use it, why (reason). Absolute: the compiler and
# qemu are given it from other folders.
arch_sysroot_dir() { echo "$(realpath -m "${BUILD_ROOT:-build-ci}")/sysroot-$1"; }

# arch_apt_opts ARCH - apt-get and apt-cache options that see ARCH's
# packages alone, as if nothing were installed (an empty dpkg status of
# its own, its own cache, no lock: the system's dpkg and apt state is only
# read, never taken), and no Essential set (a sysroot is no system).
arch_apt_opts() {
	local dir
	dir=$(arch_sysroot_dir "$1")/apt
	mkdir -p "$dir/cache/archives/partial"
	: >>"$dir/status"
	printf '%s\n' -o "APT::Architecture=$1" -o "APT::Architectures::=$1" \
		-o "Dir::State::status=$dir/status" -o "Dir::Cache=$dir/cache" \
		-o Debug::NoLocking=1 -o pkgCacheGen::Essential=none \
		-o APT::Install-Recommends=false -o APT::Sandbox::User=root
}

# sysroot_resolve ARCH PKG... - print "name=version" for PKG... and every
# package of ARCH they need, one a line, as apt resolves them from the
# package lists this machine has for ARCH (a simulated install into an
# empty system). Left out, as a multiarch install would take them from the
# build machine: tools and data (Multi-Arch: foreign, Architecture: all) and
# dependencies the build machine's installed packages satisfy for any
# architecture (Multi-Arch: foreign, as musl-dev's on the cross compiler;
# apt resolved those with ARCH's gcc, cpp and binutils: 32 MB of 49).
sysroot_resolve() {
	local arch=$1 dir opts out
	shift
	mapfile -t opts < <(arch_apt_opts "$arch")
	dir=$(arch_sysroot_dir "$arch")/apt
	out=$(apt-get "${opts[@]}" -s install "$@" 2>&1) || {
		printf '%s\n' "$out" | grep -E '^E:|Depends:' >&2
		return 1
	}
	awk '/^Inst /{ v = $3; sub(/^\(/, "", v); print $2 "=" v }' <<<"$out" >"$dir/chosen"
	dpkg-query -W -f='${Package}\t${Architecture}\t${Multi-Arch}\n' |
		awk -F'\t' '$2 == "all" || $3 == "foreign" { print $1 }' >"$dir/native"
	# shellcheck disable=SC2046
	apt-cache "${opts[@]}" show $(cat "$dir/chosen") |
		awk '/^Package:/ { p = $2 } /^Version:/ { v = $2 } /^Architecture:/ { a = $2 }
			/^Multi-Arch:/ { m = $2 } /^(Pre-)?Depends:/ { sub(/^[^:]*: /, ""); d = d ", " $0 }
			/^Provides:/ { sub(/^[^:]*: /, ""); pr = $0 }
			/^$/ && p != "" { print p "\t" v "\t" a "\t" m "\t" substr(d, 3) "\t" pr
				p = v = a = m = d = pr = "" }' >"$dir/fields"
	# The walk from PKG...: each dependency's first alternative that the
	# build machine satisfies (stop), or that apt chose (by name or what it
	# provides).
	awk -F'\t' -v roots="$*" '
		FILENAME ~ /native$/ { native[$1] = 1; next }
		{ ver[$1] = $2; arch[$1] = $3; ma[$1] = $4; deps[$1] = $5
		  n = split($6, pv, /, */)
		  for (i = 1; i <= n; i++) { sub(/ .*/, "", pv[i]); if (!(pv[i] in by)) by[pv[i]] = $1 } }
		END {
			tail = split(roots, q, " ")
			for (head = 1; head <= tail; head++) {
				p = q[head]; sub(/:.*/, "", p)
				if (p in seen) continue
				seen[p] = 1
				if (!(p in ver)) { print "sysroot: apt did not choose " p > "/dev/stderr"; bad = 1; continue }
				print p "=" ver[p]
				ng = split(deps[p], g, /, */)
				for (j = 1; j <= ng; j++) {
					na = split(g[j], alt, / *\| */); pick = ""
					for (k = 1; k <= na && pick == ""; k++) {
						a = alt[k]; sub(/[ (].*/, "", a); sub(/:.*/, "", a)
						if (a in native) pick = "-"
						else if (a in ver) pick = a
						else if (a in by) pick = by[a]
					}
					if (pick == "") { print "sysroot: nothing chosen for " p "'"'"'s " g[j] > "/dev/stderr"; bad = 1 }
					else if (pick != "-" && ma[pick] != "foreign" && arch[pick] != "all") q[++tail] = pick
				}
			}
			exit bad
		}' "$dir/native" "$dir/fields"
}

# ensure_arch_sysroot ARCH WHY - arch_target_packages ARCH and what they
# need (sysroot_resolve), downloaded (apt-get download, into debs/: kept
# for the next run) and unpacked (dpkg-deb --fsys-tarfile) in a sysroot
# for the cross compiler (--sysroot) and qemu-user (-L): its loader and C
# library are then a matched pair (see arch_sysroot_cross_file). WHY (the
# multiarch install failed, in a line) is kept for the jobs' message.
# Nothing is installed: no root needed, no lock of dpkg or apt taken.
ensure_arch_sysroot() {
	local arch=$1 dir pkgs opts missing=() p f link target
	dir=$(arch_sysroot_dir "$arch")
	# shellcheck disable=SC2046
	pkgs=$(sysroot_resolve "$arch" $(arch_target_packages "$arch")) || return 1
	if [ "$(cat "$dir/root/.packages" 2>/dev/null)" != "$pkgs" ]; then
		mapfile -t opts < <(arch_apt_opts "$arch")
		mkdir -p "$dir/debs"
		# File names as apt-get download writes them (an epoch's ':' as %3a).
		for p in $pkgs; do
			f="${p%%=*}_${p#*=}_$arch.deb"
			[ -s "$dir/debs/${f//:/%3a}" ] || missing+=("$p")
		done
		if [ ${#missing[@]} -gt 0 ]; then
			(cd "$dir/debs" && apt_retry "${opts[@]}" download "${missing[@]}") || return 1
		fi
		rm -rf "$dir/root" "$dir/root.tmp"
		# Merged /usr, as on the build machine (Debian 12): musl's libc.so,
		# for one, is in /lib and found by the linker in /usr/lib.
		mkdir -p "$dir/root.tmp/usr/lib" "$dir/root.tmp/usr/bin" "$dir/root.tmp/usr/sbin"
		ln -s usr/lib "$dir/root.tmp/lib"
		ln -s usr/bin "$dir/root.tmp/bin"
		ln -s usr/sbin "$dir/root.tmp/sbin"
		for p in $pkgs; do
			f="${p%%=*}_${p#*=}_$arch.deb"
			dpkg-deb --fsys-tarfile "$dir/debs/${f//:/%3a}" |
				tar -x --keep-directory-symlink -C "$dir/root.tmp" || return 1
		done
		# Absolute links (libfoo.so -> /lib/...) would leave the sysroot:
		# made relative, inside it.
		while IFS= read -r -d '' link; do
			target=$(readlink "$link")
			ln -sfn "$(realpath -m -s --relative-to="$(dirname "$link")" "$dir/root.tmp$target")" "$link"
		done < <(find "$dir/root.tmp" -type l -lname '/*' -print0)
		# musl-gcc.specs names its headers, libraries and start files by
		# absolute paths: those of the sysroot (the loader's stays /lib).
		for f in "$dir"/root.tmp/usr/lib/*-linux-musl*/musl-gcc.specs; do
			[ -f "$f" ] || continue
			sed -i "s#/usr/\(include\|lib\)/#$dir/root/usr/\1/#g" "$f"
		done
		printf '%s\n' "$pkgs" >"$dir/root.tmp/.packages"
		mv "$dir/root.tmp" "$dir/root"
	fi
	printf '%s\n' "$2" >"$dir/reason"
}

# arch_sysroot ARCH - print ARCH's sysroot (status 0) when ARCH's jobs are to
# build against it (ensure_arch_packages made it); otherwise status 1.
arch_sysroot() {
	local dir
	dir=$(arch_sysroot_dir "$1")
	[ -f "$dir/reason" ] && [ -f "$dir/root/.packages" ] || return 1
	echo "$dir/root"
}

# arch_sysroot_note ARCH - the line a job prints when it builds ARCH against
# the sysroot, saying why.
arch_sysroot_note() {
	local dir suite
	dir=$(arch_sysroot_dir "$1")
	# shellcheck disable=SC1091
	suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
	echo "$1: $(head -n 1 "$dir/reason"); building against a sysroot of $suite's $1 .debs in $dir/root"
}

# arch_sysroot_cross_file INI SYSROOT OUT - the cross file INI made to build
# against SYSROOT, in OUT: the compiler given --sysroot, its absolute paths
# ('/usr/...': .pc folders, musl's specs) moved inside SYSROOT, pkg-config's
# results too (sys_root: meson sets PKG_CONFIG_SYSROOT_DIR; not where
# pkg_config_libdir is empty, the musl files, whose json-c another machine
# file adds from outside the sysroot), and qemu-user given -L SYSROOT: the
# loader and C library from the same libc6 (the -L of a mismatched pair
# makes fork() crash: arm-linux-gnueabihf.ini).
arch_sysroot_cross_file() {
	local ini=$1 sysroot=$2 out=$3 props=
	grep -q "^pkg_config_libdir = \['" "$ini" && props="sys_root = '$sysroot'"
	{
		echo "# Made by .ci/deps.sh (arch_sysroot_cross_file) from $ini for the sysroot $sysroot."
		sed -e "s#'/usr/#'$sysroot/usr/#g" \
			-e "/^c = /{s#^c = '\([^']*\)'\$#c = ['\1']#; s#\]\$#, '--sysroot=$sysroot']#}" \
			-e "/^exe_wrapper = /s#\]\$#, '-L', '$sysroot']#" \
			-e "/^\[properties\]/{p; s#.*#$props#; /^\$/d}" "$ini"
	} >"$out"
}

# arch_skip ARCH WHAT - when ARCH's packages could not be installed, say that
# WHAT is skipped and why, and return 0 (the caller skips); else return 1.
arch_skip() {
	local marker
	marker=$(arch_unavailable_file "$1")
	[ -f "$marker" ] || return 1
	echo "SKIP: $2: $(head -n 1 "$marker")"
	tail -n +2 "$marker"
	return 0
}

# arch_ready ARCH WHAT - status 0 when ARCH's packages are there (installed
# now if need be); otherwise print that WHAT is skipped and why, and return
# 1. test.sh installs them once for all its jobs and exports
# EMBPERF_ARCH_CHECKED=1: its jobs then only read what it found.
arch_ready() {
	if [ "${EMBPERF_ARCH_CHECKED:-0}" != 1 ]; then
		ensure_arch_packages "$1" || true
	fi
	! arch_skip "$1" "$2"
}

# The tools the cross builds (cross.sh) and the musl self-test (musl.sh)
# need on the build machine; each architecture's own: arch_packages.
CROSS_PACKAGES=(qemu-user-static binutils)
MUSL_PACKAGES=(musl-tools qemu-user-static cmake dpkg-dev binutils)

# build DIR [TARGET...] - ninja, quiet when it succeeds; when it fails, the
# end of its output (the compiler's errors), which would otherwise be lost.
build() {
	local dir=$1
	shift
	if ! ninja -C "$dir" "$@" >"$dir/ninja.log" 2>&1; then
		if grep -q '^FAILED' "$dir/ninja.log"; then
			grep -A20 '^FAILED' "$dir/ninja.log" | head -n 60
		else
			tail -n 40 "$dir/ninja.log"
		fi
		echo "build of $dir failed (the whole output: $dir/ninja.log)" >&2
		return 1
	fi
}

# step TITLE - a step's heading, with the seconds its job has run so far
# and the CPU seconds its commands that have ended used.
step() {
	local f="${TMPDIR:-/tmp}/embperf-cpu.$BASHPID"
	times >"$f" # here, not in $(...): a subshell reports its own children
	printf '\n=== %s  [%d s, %d CPU-s]\n' "$*" "$SECONDS" "$(cpu_seconds "$f")"
	rm -f "$f"
}

# cpu_seconds FILE - the user and system CPU seconds of the second line of
# bash's times (the shell's children that have ended), written to FILE by
# the shell whose children count (times inside $(...) would report that
# subshell's own).
cpu_seconds() {
	awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1"
}

# The self-test's time budget in CI's runs (cross.sh and musl.sh, most under
# qemu-user), in seconds. They check that it measures, writes, reads back and
# compares, not how fast. An armhf run used up a budget of 60 s in a CI run
# beside three builds, at load 16 ("budget of 60.0 s exhausted at int-add",
# 2026-12-06): the same run takes 2-3 s quietly and 42-46 s beside 14 busy
# loops, for the same 1.8 CPU-s.
SELFTEST_BUDGET_S=600

# compare_only OUT SELFTEST... - run a self-test comparison, its output in
# OUT: exit 0 (pass) and 1 (regressed) both mean it ran; 2 is an error.
compare_only() {
	local out=$1 rc=0
	shift
	"$@" >"$out" || rc=$?
	tail -n 1 "$out"
	[ "$rc" -le 1 ] || { cat "$out"; exit 1; }
}

# The suites only the gcc job runs (tests/meson.build): 'slow', the slowest
# real-clock and shell tests, which a sanitizer or a variant build would run
# the same way; 'source', the tests that read the source tree, not the build.
# The other builds' meson test gets these options.
GCC_JOB_ONLY=(--no-suite slow --no-suite source)

# pyenv's python3 is a shim, a bash script that finds the interpreter on each
# start: 0.42 s of CPU a start against 0.06 for the interpreter itself (this
# machine kind, 2026-12-06), and every Python test and many shell tests start
# it. The interpreter it finds goes first on PATH, so the same python3 runs
# without the shim. Nothing changes where python3 is not a shim.
python3_direct() {
	local py
	py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || return 0
	[ -n "$py" ] && [ -x "$py" ] || return 0
	[ "$(command -v python3)" = "$(dirname "$py")/python3" ] && return 0
	PATH=$(dirname "$py"):$PATH
	export PATH
}
python3_direct
