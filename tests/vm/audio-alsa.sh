#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/vm/audio-alsa.sh - the audio kernels against the kernel's own ALSA
# drivers: boots Debian's kernel (linux-image-*-amd64, taken apart, never
# installed) under qemu-system-x86_64 (TCG) with a small initramfs holding
# busybox, the sound modules, alsa-lib's configuration and the embperf
# command with its libraries, loads snd-dummy and snd-aloop and runs
# audio.playback, audio.capture and audio.latency there, once each.
#
#   tests/vm/audio-alsa.sh BUILD_DIR
#
# Prints TAP. Skips ("1..0 # SKIP reason", exit 0) when qemu-system-x86_64,
# a static busybox, alsa-lib's configuration or the kernel package is not
# available, or when BUILD_DIR's embperf was built without ALSA. The kernel
# package is looked for in $EMBPERF_VM_CACHE (~/.cache/embperf-vm) and,
# when missing, fetched there with `apt-get download` (EMBPERF_VM_FETCH=0:
# never). The VM is bounded by $EMBPERF_VM_TIMEOUT seconds (300).
#
# Checks, inside the VM (TCG: the guest is slow, so only what holds there):
#   - snd-dummy (hrtimer-paced) playback and capture at 48000 Hz, period
#     512, buffer 4096, SCHED_FIFO 50: they run, and frames/s is within 5 %
#     of 48000 when no xrun lost frames (never above it);
#   - snd-aloop: audio.latency from hw:Loopback,0,0 to hw:Loopback,1,0
#     finds its markers (none lost in most trials) at a latency between 0
#     and the interval; the labels name both ends' negotiated periods;
#   - audio.latency with the capture end on snd-dummy (not looped) fails
#     saying that no marker came back;
#   - audio.playback on a card that is not there names the device.
set -u

BUILD=${1:?usage: tests/vm/audio-alsa.sh BUILD_DIR}
CACHE=${EMBPERF_VM_CACHE:-$HOME/.cache/embperf-vm}
TIMEOUT=${EMBPERF_VM_TIMEOUT:-300}
EMBPERF=$BUILD/bench/embperf
ALSA_CONF=/usr/share/alsa

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

command -v qemu-system-x86_64 >/dev/null ||
	skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
BUSYBOX=$(command -v busybox) || skip_all "busybox not installed (apt-get install busybox-static)"
ldd "$BUSYBOX" >/dev/null 2>&1 && skip_all "$BUSYBOX is not static (apt-get install busybox-static)"
[ -x "$EMBPERF" ] || skip_all "$EMBPERF not built"
"$EMBPERF" describe audio.latency >/dev/null 2>&1 || skip_all "$EMBPERF has no audio.latency"
ldd "$EMBPERF" | grep -q libasound || skip_all "$EMBPERF was built without ALSA"
[ -f "$ALSA_CONF/alsa.conf" ] || skip_all "no $ALSA_CONF/alsa.conf (apt-get install libasound2-data)"

mkdir -p "$CACHE"
deb=$(ls "$CACHE"/linux-image-*-amd64_*_amd64.deb 2>/dev/null | grep -v -- '-dbg' | tail -1)
if [ -z "$deb" ] && [ "${EMBPERF_VM_FETCH:-1}" != 0 ] && command -v apt-get >/dev/null; then
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
	[ -n "$pkg" ] && (cd "$CACHE" && apt-get download "$pkg" >/dev/null 2>&1)
	deb=$(ls "$CACHE"/linux-image-*-amd64_*_amd64.deb 2>/dev/null | tail -1)
fi
[ -n "$deb" ] || skip_all "no Debian kernel package in $CACHE (apt-get download linux-image-amd64's dependency there)"

T=$(mktemp -d "${TMPDIR:-/tmp}/embperf-vm.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

# The kernel and the sound modules (loaded in dependency order below).
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$T" --wildcards './boot/vmlinuz-*' \
	'./lib/modules/*/kernel/sound/soundcore.ko' './lib/modules/*/kernel/sound/core/*' \
	'./lib/modules/*/kernel/sound/drivers/*' 2>/dev/null
kernel=$(ls "$T"/boot/vmlinuz-* 2>/dev/null | head -1)
[ -n "$kernel" ] || skip_all "$deb holds no vmlinuz"
R=$T/root
mkdir -p "$R/bin" "$R/mod" "$R/proc" "$R/sys" "$R/dev" "$R/tmp" "$R/usr/share"
for m in soundcore snd snd-timer snd-pcm snd-dummy snd-aloop; do
	f=$(find "$T/lib/modules" -name "$m.ko" | head -1)
	[ -n "$f" ] || skip_all "$deb has no $m.ko"
	cp "$f" "$R/mod/"
done
cp "$BUSYBOX" "$R/bin/busybox"
cp -r "$ALSA_CONF" "$R/usr/share/alsa"

# embperf and every library it loads, at the same paths.
copy_with_libs() {
	local f
	mkdir -p "$R$(dirname "$1")"
	cp -L "$1" "$R$1"
	for f in $(ldd "$1" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'); do
		mkdir -p "$R$(dirname "$f")"
		cp -L "$f" "$R$f"
	done
}
copy_with_libs "$(readlink -f "$EMBPERF")"
ln -s "$(readlink -f "$EMBPERF")" "$R/bin/embperf"

cat >"$R/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
cd /mod
insmod soundcore.ko; insmod snd.ko; insmod snd-timer.ko; insmod snd-pcm.ko
insmod snd-dummy.ko; insmod snd-aloop.ko
echo "@@ cards"; cat /proc/asound/cards
run() { # run NAME ARGS...: embperf's output and exit code between markers
	name=$1; shift
	echo "@@ begin $name"
	embperf -q "$@" 2>&1
	echo "@@ rc $name $?"
}
S="rate=48000 channels=2 format=S16_LE period=512 buffer=4096 priority=50 repetitions=1 --format=csv"
run dummy_play run audio.playback device=hw:Dummy duration=2s $S
run dummy_cap run audio.capture device=hw:Dummy duration=2s $S
run aloop_lat run audio.latency device=hw:Loopback,0,0 capture_device=hw:Loopback,1,0 \
	duration=3s interval=100ms repetitions=3 percentiles=1,50,99 rate=48000 channels=2 \
	format=S16_LE period=256 buffer=2048 priority=50 --format=csv
run not_looped run audio.latency device=hw:Loopback,0,0 capture_device=hw:Dummy \
	duration=1s interval=100ms repetitions=1 period=256 buffer=1024
run no_card run audio.playback device=hw:9 duration=100ms
echo "@@ done"
poweroff -f
INIT
chmod +x "$R/init"
(cd "$R" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null | gzip -1 >"$T/initrd.gz")

start=$(date +%s)
timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg -m 512 -smp 2 -nographic -no-reboot -nic none \
	-kernel "$kernel" -initrd "$T/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1 loglevel=3" >"$T/console" 2>&1
qrc=$?
tr -d '\r' <"$T/console" >"$T/log"
echo "# $(basename "$deb"), qemu exit $qrc after $(( $(date +%s) - start )) s"

. "$(dirname "$0")/../tap.sh"
tap_fail_extra() { sed -n "/@@ begin $cur/,/@@ rc $cur/p" "$T/log" | head -40 | sed 's/^/#   /'; }

# out NAME: the output of run NAME; rc NAME: its exit code.
out() { sed -n "/^@@ begin $1\$/,/^@@ rc $1 /p" "$T/log"; }
rc() { sed -n "s/^@@ rc $1 \([0-9]*\)\$/\1/p" "$T/log"; }
field() { # field NAME METRIC COLUMN: that column of the row of METRIC
	out "$1" | python3 -c 'import csv, sys
rows = [r for r in csv.reader(sys.stdin) if len(r) > 8]
h = rows[0] if rows and rows[0][0] == "title" else None
for r in rows:
    if h and r is not h and r[h.index("metric")] == sys.argv[1]:
        print(r[h.index(sys.argv[2])]); break' "$2" "$3"
}
within() { # within VALUE LO HI
	python3 -c 'import sys; v = float(sys.argv[1] or "nan"); sys.exit(0 if float(sys.argv[2]) <= v <= float(sys.argv[3]) else 1)' "$1" "$2" "$3" 2>/dev/null
}

if ! grep -q '^@@ done' "$T/log"; then
	cur=none
	fail "the VM ran the checks to the end" "qemu exit $qrc; last lines:" "$(tail -5 "$T/log")"
	echo "1..$checks"
	exit 1
fi
pass "the VM booted $(basename "$kernel") and ran the checks"

# An xrun loses frames (the guest is emulated and the host shared): without
# one, frames/s is within 5 % of 48000; with some, it may only be lower.
for n in dummy_play dummy_cap; do
	cur=$n
	fps=$(field "$n" frames value)
	xruns=$(field "$n" xruns value)
	lo=45600
	[ "$xruns" = 0 ] || lo=0
	if [ "$(rc "$n")" = 0 ] && [ -n "$xruns" ] && within "$fps" "$lo" 50400; then
		pass "$n: snd-dummy at 48000 Hz: $fps frames/s, $xruns xruns, rate error $(field "$n" rate_error value) ppm, lateness $(field "$n" lateness percentiles)"
	else
		fail "$n: snd-dummy streams at 48000 Hz within 5 % (lower only with xruns)" \
			"rc $(rc "$n"), frames/s '$fps', xruns '$xruns'"
	fi
done

cur=aloop_lat
lat=$(field aloop_lat latency value)
labels=$(field aloop_lat latency labels)
if [ "$(rc aloop_lat)" = 0 ] && within "$lat" 0 100000 &&
	echo "$labels" | grep -q "capture_device=hw:Loopback,1,0 capture_period=" ; then
	pass "snd-aloop: audio.latency finds its markers, latency $lat us (p1..p99: $(field aloop_lat latency percentiles)), lost $(field aloop_lat lost value), roundtrip $(field aloop_lat roundtrip value) us"
else
	fail "snd-aloop: audio.latency finds its markers within the interval" \
		"rc $(rc aloop_lat), latency '$lat', labels '$labels'"
fi

cur=not_looped
if [ "$(rc not_looped)" != 0 ] && out not_looped | grep -q "no marker played"; then
	pass "ends that are not looped (snd-aloop to snd-dummy): no marker came back, said so"
else
	fail "ends that are not looped (snd-aloop to snd-dummy): no marker came back, said so"
fi

cur=no_card
if [ "$(rc no_card)" != 0 ] && out no_card | grep -q "parameter 'device': value 'hw:9'"; then
	pass "a card that is not there is named"
else
	fail "a card that is not there is named"
fi

echo "1..$checks"
[ "$failures" -eq 0 ]
