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

# ensure_arch_packages ARCH - arch_packages ARCH installed (status 0); or, as
# root, when this machine's package mirror cannot give them (a stale index
# of ARCH: update_lists), status 1 and the reason in the file
# arch_unavailable_file names, which ARCH's jobs read to skip and say why
# (arch_skip): what this machine lacks is no fault of the change under
# test. Not root: ensure_packages's message and exit.
ensure_arch_packages() {
	local marker pkgs
	marker=$(arch_unavailable_file "$1")
	pkgs=$(arch_packages "$1") || exit 2
	if [ "$(id -u)" -ne 0 ]; then
		ensure_packages $pkgs
		return 0
	fi
	mkdir -p "$(dirname "$marker")"
	rm -f "$marker"
	if (ensure_packages $pkgs) 2>"$marker.log"; then
		rm -f "$marker.log"
		return 0
	fi
	{
		echo "the packages of $1 cannot be installed from this machine's package mirror:"
		grep -E '^E:|unmet|Depends:' "$marker.log" | head -n 6 | sed 's/^ */  /'
	} >"$marker"
	rm -f "$marker.log"
	cat "$marker" >&2
	return 1
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

# step TITLE - a step's heading, with the seconds its job has run so far.
step() { printf '\n=== %s  [%d s]\n' "$*" "$SECONDS"; }

# compare_only OUT SELFTEST... - run a self-test comparison, its output in
# OUT: exit 0 (pass) and 1 (regressed) both mean it ran; 2 is an error.
compare_only() {
	local out=$1 rc=0
	shift
	"$@" >"$out" || rc=$?
	tail -n 1 "$out"
	[ "$rc" -le 1 ] || { cat "$out"; exit 1; }
}
