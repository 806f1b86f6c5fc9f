#!/bin/bash
# SPDX-License-Identifier: MIT
# test_ci_deps.sh - the package handling of .ci/deps.sh on a made-up apt-get
# first in PATH, whose answers are known:
#   - a network failure (a mirror's sync) is tried again, and a command that
#     fails twice and then works succeeds, saying why it tried again; one
#     that always fails is given up after EMBPERF_APT_TRIES tries with its
#     own message and status; one that works runs once, silently; a failure
#     that is not the network's (a package apt cannot install) is not tried
#     again;
#   - an update failing on one architecture's index is made again without
#     that architecture;
#   - ensure_foreign_arch, with a dpkg that writes its architectures a line
#     at a time, takes the ones it has for had (a "dpkg | grep -q" pipe
#     under pipefail did not, 46 times in 500 here, and updated the lists);
#   - as root: ensure_packages goes on to the install past a failing update
#     and fails when the install does; ensure_arch_packages, when the
#     install fails, returns 1 and leaves the reason, which arch_skip prints.
# Usage: test_ci_deps.sh SRCDIR
src=${1:?usage: test_ci_deps.sh SRCDIR}
. "$(dirname "$0")/tap.sh"
echo "1..10"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The fake: updates fail until it has been called $FAILS times (on armhf's
# index, or every update when ARCH_FAILS=0 with FAILS set); an update that
# names its architectures (-o APT::Architectures::=X) without armhf works;
# installs fail when INSTALL_FAILS=1. Each call's subcommand and
# architectures go to $CALLS.log. ALL_FAIL=1: every update fails.
cat >"$tmp/apt-get" <<'FAKE'
#!/bin/bash
n=$(($(cat "$CALLS" 2>/dev/null || echo 0) + 1))
echo "$n" >"$CALLS"
cmd= archs=
while [ $# -gt 0 ]; do
	case $1 in
	-o) case $2 in APT::Architectures::=*) archs="$archs+${2#*=}" ;; esac; shift ;;
	-*) ;;
	*) [ -n "$cmd" ] || cmd=$1 ;;
	esac
	shift
done
echo "$cmd$archs" >>"$CALLS.log"
if [ "$cmd" = install ] && [ "${INSTALL_FAILS:-0}" = 1 ]; then
	echo "E: Unable to correct problems, you have held broken packages."
	exit 100
fi
if [ "$cmd" = update ] && [ "$n" -le "$FAILS" ] &&
	[[ "$archs" != *+* || "$archs" == *armhf* || "${ALL_FAIL:-0}" = 1 ]]; then
	echo "E: Failed to fetch http://deb.debian.org/debian-security/dists/bookworm-security/main/binary-armhf/Packages.xz  File has unexpected size (1 != 2). Mirror sync in progress?"
	exit 100
fi
echo "fetched"
FAKE
chmod +x "$tmp/apt-get"

# try FAILS TRIES INSTALL_FAILS [FUNCTION ARG...] - in a subshell with
# errexit, FUNCTION ARG... (default: apt_retry update -qq) with the fake;
# sets rc, calls, log (the subcommands in order), err and out.
try() {
	local fails=$1 tries=$2 install_fails=$3
	shift 3
	[ $# -gt 0 ] || set -- apt_retry update -qq
	rm -f "$tmp/calls" "$tmp/calls.log"
	rc=0
	(PATH=$tmp:$PATH CALLS=$tmp/calls FAILS=$fails INSTALL_FAILS=$install_fails
	 EMBPERF_APT_TRIES=$tries EMBPERF_APT_WAIT=0 BUILD_ROOT=$tmp/build
	 export CALLS FAILS INSTALL_FAILS BUILD_ROOT ALL_FAIL
	 set -e
	 . "$src/.ci/deps.sh"
	 # A package no system has, so that the install is always wanted.
	 arch_packages() { echo embperf-test-no-such-package; }
	 "$@") >"$tmp/out" 2>"$tmp/err" || rc=$?
	calls=$(cat "$tmp/calls" 2>/dev/null || echo 0)
	log=$(tr '\n' ' ' 2>/dev/null <"$tmp/calls.log")
	err=$(cat "$tmp/err")
	out=$(cat "$tmp/out")
}

try 2 3 0
if [ "$rc" = 0 ] && [ "$calls" = 3 ] && grep -q 'try 1 of 3.*Mirror sync' <<<"$err" &&
	grep -q 'try 2 of 3' <<<"$err"; then
	pass "two network failures, then success: 3 calls, status 0, each retry said why"
else
	fail "two network failures, then success" "rc=$rc calls=$calls" "$err"
fi

try 9 2 0
if [ "$rc" = 100 ] && [ "$calls" = 2 ] && grep -q 'giving up' <<<"$err" &&
	grep -q '^E: Failed to fetch' <<<"$err"; then
	pass "always failing: given up after 2 tries with apt's status (100) and message"
else
	fail "always failing" "rc=$rc calls=$calls" "$err"
fi

try 0 3 0
if [ "$rc" = 0 ] && [ "$calls" = 1 ] && [ -z "$err" ] && [ -z "$out" ]; then
	pass "working at once: one call, nothing printed"
else
	fail "working at once" "rc=$rc calls=$calls" "$err"
fi

try 0 3 1 apt_retry install -y embperf-test-no-such-package
if [ "$rc" = 100 ] && [ "$calls" = 1 ] && grep -q 'held broken packages' <<<"$err"; then
	pass "an install apt refuses is not tried again"
else
	fail "an install apt refuses" "rc=$rc calls=$calls" "$err"
fi

# The made-up update fails on armhf's index; the second update leaves out
# exactly the architectures that failed and keeps the machine's own.
native=$(dpkg --print-architecture 2>/dev/null)
try 2 2 0 update_lists
if [ "$rc" = 0 ] && [[ "$log" == "update update update+$native"* ]] && [[ "$log" != *armhf* ]] &&
	grep -q 'failed on the index of: armhf' <<<"$err"; then
	pass "an update failing on armhf's index is made again without armhf ($log)"
else
	fail "an update failing on armhf's index" "rc=$rc calls: $log" "$err"
fi

# A dpkg that writes its foreign architectures a line at a time, slowly:
# a reader that stops at the first line leaves it writing into a closed pipe.
mkdir -p "$tmp/slowdpkg"
cat >"$tmp/slowdpkg/dpkg" <<'FAKE'
#!/bin/bash
case $1 in
--print-foreign-architectures) echo arm64; sleep 0.2; echo armhf ;;
--print-architecture) echo amd64 ;;
--add-architecture) echo "add-architecture $2" >>"$CALLS.log" ;;
esac
FAKE
chmod +x "$tmp/slowdpkg/dpkg"
rm -f "$tmp/calls" "$tmp/calls.log"
rc=0
(PATH=$tmp/slowdpkg:$tmp:$PATH CALLS=$tmp/calls FAILS=0 EMBPERF_APT_WAIT=0
 export CALLS FAILS
 set -euo pipefail
 . "$src/.ci/deps.sh"
 for _ in 1 2 3; do ensure_foreign_arch arm64 armhf; done) >"$tmp/out" 2>"$tmp/err" || rc=$?
if [ "$rc" = 0 ] && [ ! -s "$tmp/calls.log" ]; then
	pass "ensure_foreign_arch: architectures dpkg has, written a line at a time, are not added again"
else
	fail "ensure_foreign_arch with a slow dpkg" "rc=$rc calls: $(cat "$tmp/calls.log" 2>/dev/null)" \
		"$(cat "$tmp/err")"
fi

if [ "$(id -u)" -ne 0 ]; then
	for t in "ensure_packages past a failing update" "ensure_packages with a failing install" \
		"ensure_arch_packages with a failing install" "arch_skip names the reason"; do
		skip "$t" "not root (ensure_packages installs only as root)"
	done
else
	ALL_FAIL=1 try 99 2 0 ensure_packages embperf-test-no-such-package
	if [ "$rc" = 0 ] && [[ "$log" == *install* ]] &&
		grep -q 'going on with the package lists there are' <<<"$err"; then
		pass "ensure_packages: an update failing every try is reported, and the install goes on"
	else
		fail "ensure_packages past a failing update" "rc=$rc calls: $log" "$err"
	fi
	try 0 2 1 ensure_packages embperf-test-no-such-package
	if [ "$rc" != 0 ] && grep -q "held broken packages" <<<"$err"; then
		pass "ensure_packages: a failing install fails the script (status $rc)"
	else
		fail "ensure_packages with a failing install" "rc=$rc calls: $log" "$err"
	fi
	try 0 2 1 ensure_arch_packages armhf
	marker=$tmp/build/unavailable-armhf
	if [ "$rc" = 1 ] && [ -f "$marker" ] && grep -q 'held broken packages' "$marker"; then
		pass "ensure_arch_packages: a failing install gives status 1 and its reason"
	else
		fail "ensure_arch_packages with a failing install" "rc=$rc calls: $log" "$err"
	fi
	try 0 2 0 arch_skip armhf "the armhf cross build"
	if [ "$rc" = 0 ] && grep -q '^SKIP: the armhf cross build: the packages of armhf cannot' <<<"$out" &&
		grep -q 'held broken packages' <<<"$out"; then
		pass "arch_skip: what is skipped, and why"
	else
		fail "arch_skip names the reason" "rc=$rc" "$out"
	fi
fi
[ "$failures" = 0 ]
