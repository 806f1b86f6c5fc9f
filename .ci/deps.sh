# SPDX-License-Identifier: MIT
# Sourced by the .ci scripts: make sure the Debian packages are there,
# build quietly (printing a failed build's errors), and the helpers every
# script shares (step headings, self-test comparisons).
# As root, missing packages are installed; otherwise the apt line is printed.

# ensure_packages PKG... - install what is missing, or say how to.
ensure_packages() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "missing Debian packages; install them with:" >&2
		echo "  sudo apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
	echo "installing: ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

BUILD_PACKAGES=(gcc libc6-dev meson ninja-build pkg-config libjson-c-dev
	libasound2-dev libpcap-dev libnl-3-dev libnl-route-3-dev liburing-dev python3)
TEST_PACKAGES=(libcriterion-dev abigail-tools clang libclang-rt-14-dev binutils iproute2
	python3-yaml qemu-system-x86 busybox-static dosfstools mtd-utils)

# ensure_foreign_arch ARCH... - let dpkg install packages of ARCH.
ensure_foreign_arch() {
	local a added=0
	for a in "$@"; do
		dpkg --print-foreign-architectures | grep -qx "$a" && continue
		if [ "$(id -u)" -ne 0 ]; then
			echo "cross builds need: sudo dpkg --add-architecture $a && sudo apt-get update" >&2
			exit 1
		fi
		dpkg --add-architecture "$a"
		added=1
	done
	if [ "$added" = 1 ]; then
		apt-get update -qq >/dev/null
	fi
}

# target_packages ARCH - the -dev packages of ARCH the library builds with.
target_packages() {
	local p
	for p in libc6-dev libjson-c-dev libasound2-dev libpcap-dev libnl-3-dev libnl-route-3-dev; do
		printf '%s:%s\n' "$p" "$1"
	done
}

# The cross builds' (cross.sh) and the musl self-test's (musl.sh).
CROSS_PACKAGES=(gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf qemu-user-static binutils
	$(target_packages arm64) $(target_packages armhf))
MUSL_PACKAGES=(musl-tools musl-dev:arm64 musl-dev:armhf gcc-aarch64-linux-gnu
	gcc-arm-linux-gnueabihf qemu-user-static cmake dpkg-dev binutils)

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
