#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""buffer_runs.py PID BS [DEPTH] - in how many physically contiguous runs of
pages the first I/O block of fio's job process PID lies; BS as fio takes it
(bytes, or with k, m or g: binary multiples).

fio (--mem=malloc) takes a job's buffer, DEPTH blocks (its iodepth, default
1), from malloc(): for blocks of 1 MiB one anonymous mapping a few pages
longer than the blocks, the buffer starting at its second page (fio aligns
malloc's pointer up to a page). The frame
numbers come from /proc/PID/pagemap, which gives them to root only. Prints
the count, or nothing (exit 1) when no such mapping is found, a page is not
present or the frames read as 0 (not root): blk.io logs its own count (-v).
"""
import struct
import sys

PAGE_BYTES = 4096
PFN_MASK = (1 << 55) - 1


def block_mapping(pid, buffer_bytes):
    """The start of the first anonymous read-write mapping that holds the
    buffer from its second page on, and no more than 64 KiB beyond."""
    with open(f'/proc/{pid}/maps') as maps:
        for line in maps:
            fields = line.split()
            lo, hi = (int(x, 16) for x in fields[0].split('-'))
            anon = len(fields) == 5
            if anon and fields[1].startswith('rw') and \
                    buffer_bytes + PAGE_BYTES <= hi - lo <= buffer_bytes + (64 << 10):
                return lo
    return None


def runs_of(pid, start, block_bytes):
    pages = block_bytes // PAGE_BYTES
    with open(f'/proc/{pid}/pagemap', 'rb') as pagemap:
        pagemap.seek((start // PAGE_BYTES + 1) * 8)
        data = pagemap.read(pages * 8)
    runs, prev = 0, None
    for (entry,) in struct.iter_unpack('Q', data):
        pfn = entry & PFN_MASK
        if not entry >> 63 or not pfn:
            return None
        if prev is None or pfn != prev + 1:
            runs += 1
        prev = pfn
    return runs if len(data) == pages * 8 else None


def size_bytes(text):
    """fio's block size: 4k, 1M, 1m, 1MiB or bytes."""
    text = text.lower().removesuffix('ib').removesuffix('b')
    scale = {'k': 1 << 10, 'm': 1 << 20, 'g': 1 << 30}.get(text[-1:], 1)
    return int(text[:-1] if scale > 1 else text) * scale


def main():
    pid, block_bytes = sys.argv[1], size_bytes(sys.argv[2])
    depth = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    try:
        start = block_mapping(pid, block_bytes * depth)
        runs = runs_of(pid, start, block_bytes) if start is not None else None
    except OSError:
        runs = None
    if runs is None:
        return 1
    print(runs)
    return 0


if __name__ == '__main__':
    sys.exit(main())
