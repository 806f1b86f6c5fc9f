#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/vm/blk-mtd.sh - blk.mtd against the kernel's own MTD drivers, and
# blk.fs on UBIFS and VFAT and blk.io's partition check, in a VM: boots
# Debian's kernel (linux-image-*-amd64, taken apart, never installed) under
# qemu-system-x86_64 (TCG) with a small initramfs holding busybox, the MTD
# modules and the embperf command with its libraries, loads mtdram and
# nandsim (with bad blocks) and runs blk.mtd there.
#
#   tests/vm/blk-mtd.sh BUILD_DIR
#
# Prints TAP. Skips ("1..0 # SKIP reason", exit 0) when qemu-system-x86_64,
# a static busybox or the kernel package is not available. The kernel
# package is looked for in $EMBPERF_VM_CACHE (~/.cache/embperf-vm) and,
# when missing, fetched there with `apt-get download` (EMBPERF_VM_FETCH=0:
# never). The VM is bounded by $EMBPERF_VM_TIMEOUT seconds (300). What the
# VM-tier scripts share (the package, the initramfs, the boot) is lib.sh.
#
# Checks, inside the VM:
#   - mtdram (8 MiB, 128 KiB eraseblocks): refused without destructive=1;
#     with it every pass of flash_speed's method runs, no bad blocks;
#   - nandsim (16 MiB NAND, 16 KiB eraseblocks, 512-byte pages) with
#     eraseblocks 3 and 17 marked bad: count=64 gives 62 eraseblocks per
#     pass and bad_blocks = 2 (MEMGETBADBLOCK through the real driver);
#   - mtdram mounted as JFFS2 through mtdblock0: refused even with
#     destructive=1;
#   - /dev/null on a kernel with MTD: refused as a character device that is
#     not MTD;
#   - UBIFS (when mtd-utils' ubiformat, ubiattach and ubimkvol are
#     installed): mtdram formatted for UBI, attached as ubi0 with one volume,
#     mounted as UBIFS; blk.mtd refuses mtd0 while UBI holds it, even with
#     destructive=1; blk.fs measures UBIFS (rows fs=ubifs), also with
#     remount=1, and leaves no file;
#   - a disk image with one VFAT partition (made here with mkfs.vfat, when
#     dosfstools is installed) on a loop device: blk.io refuses the whole
#     disk while the partition is mounted, even with destructive=1; blk.fs
#     measures the VFAT file system (rows fs=vfat), also with remount=1,
#     after which it is mounted again.
set -u

BUILD=${1:?usage: tests/vm/blk-mtd.sh BUILD_DIR}
. "$(dirname "$0")/lib.sh"

vm_need_tools
vm_kernel_deb

# The kernel and the modules the checks need (dependencies first).
vm_unpack './lib/modules/*/kernel/drivers/mtd/*' './lib/modules/*/kernel/lib/bch.ko' \
	'./lib/modules/*/kernel/fs/jffs2/*' './lib/modules/*/kernel/fs/fat/*' \
	'./lib/modules/*/kernel/fs/nls/nls_cp437.ko' './lib/modules/*/kernel/fs/nls/nls_ascii.ko' \
	'./lib/modules/*/kernel/drivers/block/loop.ko' './lib/modules/*/kernel/fs/ubifs/*' \
	'./lib/modules/*/kernel/lib/crc16.ko' './lib/modules/*/kernel/crypto/zstd.ko' \
	'./lib/modules/*/kernel/lib/zstd/*'
mkdir -p "$R/mnt"
for m in mtd mtdram bch nandcore nand nandsim mtd_blkdevs mtdblock jffs2; do
	vm_module "$m" || skip_all "$deb has no $m.ko"
done
for m in loop fat vfat nls_cp437 nls_ascii ubi crc16 zstd_compress zstd ubifs; do
	vm_module "$m" || true
done
# UBI's tools (mtd-utils), when installed; ubi_why says what UBIFS lacks.
ubi_why=""
for t in ubiformat ubiattach ubimkvol; do
	if command -v $t >/dev/null; then
		vm_copy_with_libs "$(command -v $t)"
		ln -sf "$(command -v $t)" "$R/bin/$t"
	else
		ubi_why="mtd-utils not installed (apt-get install mtd-utils)"
	fi
done
for m in ubi ubifs; do
	[ -f "$R/mod/$m.ko" ] || ubi_why="$deb has no $m.ko"
done

# A 16 MiB disk image: an MBR with one FAT partition from sector 2048.
if command -v mkfs.vfat >/dev/null && command -v python3 >/dev/null; then
	truncate -s 16M "$R/disk.img"
	python3 - "$R/disk.img" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(446)
    f.write(struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x0c, b"\0\0\0", 2048, 30720))
    f.seek(510)
    f.write(b"\x55\xaa")
PY
	mkfs.vfat --offset=2048 "$R/disk.img" 15360 >/dev/null 2>&1 || rm -f "$R/disk.img"
fi

vm_install_embperf

{
	vm_init_head
	cat <<'INIT'
insmod mtd.ko; insmod mtdram.ko total_size=8192 erase_size=128
insmod bch.ko; insmod nandcore.ko; insmod nand.ko
insmod nandsim.ko id_bytes=0x20,0x33 badblocks=3,17
echo "@@ mtd"; cat /proc/mtd
run nodestructive run blk.mtd target=/dev/mtd0
run mtdram run blk.mtd target=/dev/mtd0 destructive=1 repetitions=1 --format=csv
run nandsim run blk.mtd target=/dev/mtd1 destructive=1 repetitions=1 count=64 multi=8 --format=csv
run notmtd run blk.mtd target=/dev/null destructive=1
insmod mtd_blkdevs.ko; insmod mtdblock.ko; insmod jffs2.ko
mount -t jffs2 /dev/mtdblock0 /mnt && echo "@@ mounted"
run mounted run blk.mtd target=/dev/mtd0 destructive=1 repetitions=1
umount /mnt
if [ -f ubi.ko ] && [ -f ubifs.ko ] && [ -x /bin/ubiformat ]; then
	for m in ubi crc16 zstd_compress zstd ubifs; do [ -f $m.ko ] && insmod $m.ko; done
	mkdir -p /ubifs
	if { ubiformat -q -y /dev/mtd0 && ubiattach -m 0 && ubimkvol /dev/ubi0 -N embperf -m &&
		mount -t ubifs ubi0:embperf /ubifs; } >/tmp/ubi.log 2>&1; then
		echo "@@ ubifs mounted"
		run ubiheld run blk.mtd target=/dev/mtd0 destructive=1 repetitions=1
		run ubifs run blk.fs folder=/ubifs size=2M bs=102400,1048576 repetitions=1 --format=csv
		run ubifsremount run blk.fs folder=/ubifs size=1M bs=1M repetitions=2 remount=1 --format=csv
		grep -q ' /ubifs ubifs ' /proc/mounts && echo "@@ ubifs still mounted"
		echo "@@ ubifs files: $(ls -A /ubifs | wc -l)"
	else
		sed 's/^/@@ ubi: /' /tmp/ubi.log
	fi
fi
if [ -f /disk.img ]; then
	insmod loop.ko; insmod fat.ko; insmod vfat.ko; insmod nls_cp437.ko; insmod nls_ascii.ko
	losetup -P /dev/loop0 /disk.img
	mkdir -p /vfat
	mount -t vfat /dev/loop0p1 /vfat && echo "@@ vfat mounted"
	run partmounted run blk.io target=/dev/loop0 destructive=1 rw=write size=1M duration=200ms repetitions=1
	run vfat run blk.fs folder=/vfat size=2M bs=102400,1048576 repetitions=1 --format=csv
	run vfatremount run blk.fs folder=/vfat size=2M bs=1M repetitions=2 remount=1 --format=csv
	grep -q ' /vfat vfat ' /proc/mounts && echo "@@ vfat still mounted"
	echo "@@ vfat files: $(ls -A /vfat | wc -l)"
fi
echo "@@ done"
poweroff -f
INIT
} >"$R/init"
vm_boot

value() { # value NAME METRIC LABEL-PREFIX: the row's value
	out "$1" | python3 -c 'import csv, sys
rows = [r for r in csv.reader(sys.stdin) if len(r) > 8]
h = rows[0] if rows and rows[0][0] == "title" else None
for r in rows:
    if h and r[h.index("metric")] == sys.argv[1] and r[h.index("labels")].startswith(sys.argv[2]):
        print(r[h.index(sys.argv[3])]); break' "$2" "$3" "$4"
}

vm_ran_to_the_end

# check_fs_rows FS NAME: blk.fs on the file system FS, mounted on /FS in the
# VM (run FS), gave rows labelled fs=FS in both directions, and with
# remount=1 (run FSremount) it ran, mounted it again and left no file.
check_fs_rows() {
	cur=$1
	if [ "$(rc "$1")" = 0 ] && out "$1" | grep -q ",op=write fs=$1 bs=102400 size=2M," &&
		out "$1" | grep -q ",op=read fs=$1 bs=1048576 size=2M,"; then
		pass "blk.fs on $2: rows labelled fs=$1, both directions"
	else
		fail "blk.fs on $2: rows labelled fs=$1, both directions"
	fi
	cur=${1}remount
	if [ "$(rc "$cur")" = 0 ] && grep -q "^@@ $1 still mounted" "$T/log" &&
		grep -q "^@@ $1 files: 0" "$T/log"; then
		pass "blk.fs remount=1 on $2: runs, the file system is mounted again, no file left"
	else
		fail "blk.fs remount=1 on $2: runs, the file system is mounted again, no file left" \
			"$(grep "^@@ $1" "$T/log")"
	fi
}

vm_check_refused nodestructive "parameter 'destructive'" \
	"mtdram without destructive=1 is refused naming 'destructive'"

cur=mtdram
ops="eb_write eb_read page_write page_read erase multi_erase"
missing=""
for op in $ops; do
	[ -n "$(value mtdram bandwidth "op=$op " value)" ] || missing="$missing $op"
done
if [ "$(rc mtdram)" = 0 ] && [ -z "$missing" ] && [ "$(value mtdram bad_blocks op=eb_write value)" = 0 ]; then
	pass "mtdram: every pass of flash_speed's method, no bad block ($(value mtdram bandwidth 'op=eb_write ' value | cut -c1-7) MB/s eraseblock write)"
else
	fail "mtdram: every pass of flash_speed's method, no bad block" "missing:$missing"
fi

cur=nandsim
w=$(value nandsim latency "op=eb_write " dist_n)
p=$(value nandsim latency "op=page_write " dist_n)
bad=$(value nandsim bad_blocks "op=eb_read " value)
if [ "$(rc nandsim)" = 0 ] && [ "$w" = 62 ] && [ "$p" = $((62 * 32)) ] && [ "$bad" = 2 ]; then
	pass "nandsim with eraseblocks 3 and 17 bad: 62 eraseblocks, 1984 pages per pass, bad_blocks 2"
else
	fail "nandsim with eraseblocks 3 and 17 bad: 62 eraseblocks, 1984 pages per pass, bad_blocks 2" \
		"rc $(rc nandsim), eraseblocks '$w', pages '$p', bad '$bad'"
fi

vm_check_refused notmtd "a character device that is not MTD" \
	"/dev/null is refused as a character device that is not MTD"

cur=mounted
if ! grep -q '^@@ mounted' "$T/log"; then
	skip "a mounted MTD is refused" "JFFS2 could not be mounted on mtdblock0 in the VM"
else
	vm_check_refused mounted "is mounted as /dev/mtdblock0 on /mnt" \
		"mtdram mounted as JFFS2 is refused even with destructive=1"
fi

cur=ubiheld
if [ -n "$ubi_why" ]; then
	skip "an MTD held by UBI is refused" "$ubi_why"
	skip "blk.fs on UBIFS" "$ubi_why"
	skip "blk.fs remount=1 on UBIFS" "$ubi_why"
elif ! grep -q '^@@ ubifs mounted' "$T/log"; then
	fail "UBIFS made and mounted on mtdram" "ubiformat, ubiattach, ubimkvol or the mount failed:" \
		"$(grep '^@@ ubi: ' "$T/log" | tail -8 | sed 's/^@@ ubi: //; 2,$s/^/# /')"
else
	vm_check_refused ubiheld "attached to UBI as ubi0" \
		"mtdram attached to UBI is refused even with destructive=1"
	check_fs_rows ubifs UBIFS
fi

cur=partmounted
if ! grep -q '^@@ vfat mounted' "$T/log"; then
	skip "a disk with a mounted partition is refused" "no VFAT disk image (mkfs.vfat missing) or it did not mount"
	skip "blk.fs on VFAT" "no VFAT disk image"
	skip "blk.fs remount=1 on VFAT" "no VFAT disk image"
else
	vm_check_refused partmounted "its partition loop0p1 is mounted on /vfat (vfat)" \
		"a disk whose partition is mounted is refused even with destructive=1"
	check_fs_rows vfat VFAT
fi

# The figures, for doc/benchmarks-blk.md.
for n in mtdram nandsim ubifs vfat; do
	out "$n" | python3 -c 'import csv, sys
rows = [r for r in csv.reader(sys.stdin) if len(r) > 8]
h = rows[0]
for r in rows[1:]:
    if r[h.index("metric")] in ("bandwidth", "speed", "throughput"):
        print("# %s %s %s %s" % (sys.argv[1], r[h.index("labels")].split(" dev=")[0] +
              (" " + r[h.index("labels")].split(" ")[-1] if "blocks=" in r[h.index("labels")] else ""),
              r[h.index("value")][:9], r[h.index("unit")]))' "$n"
done

echo "1..$checks"
[ "$failures" -eq 0 ]
