# SPDX-License-Identifier: MIT
#
# bench/fidelity/fio_tables.sh - sourced by compare-fio.sh and compare-fio-vm.sh:
# the cases, one run's figures from fio's or blk.io's JSON report, the tables of
# medians and ratios from the per-run lines, and the rounds' pairs for
# paired.sh.

# fio_cases: the cases, "name:rw:bs:engine:iodepth" each, that $CASES
# names (all when it is empty or unset).
fio_cases() {
	local c
	for c in seqread:read:1M:psync:1 seqwrite:write:1M:psync:1 \
		randread:randread:4k:psync:1 randwrite:randwrite:4k:psync:1 \
		uring1-randread:randread:4k:io_uring:1 uring1-randwrite:randwrite:4k:io_uring:1 \
		uring32-randread:randread:4k:io_uring:32 uring32-randwrite:randwrite:4k:io_uring:32 \
		uring-seqread:read:1M:io_uring:8; do
		if [ -z "${CASES:-}" ] || echo " $CASES " | grep -q " ${c%%:*} "; then
			echo "$c"
		fi
	done
}

# summary TOOL JSON: "mbps iops p50_us p99_us cpu_pct" from a tool's JSON report.
summary() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
tool, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
if tool == "fio":
    j = d["jobs"][0]
    io = j["read"] if j["read"]["io_bytes"] else j["write"]
    pct = io["clat_ns"]["percentile"]
    out = (io["bw_bytes"] / 1e6, io["iops"], pct["50.000000"] / 1e3, pct["99.000000"] / 1e3,
           j["usr_cpu"] + j["sys_cpu"])
else:
    r = {x["metric"]: x for x in d["results"]}
    pct = {p["pct"]: p["value"] for p in r["latency"]["percentiles"]}
    out = (r["bandwidth"]["value"], r["iops"]["value"], pct[50], pct[99],
           r["cpu_process"]["value"])
print("%.1f %.0f %.1f %.1f %.1f %.2f" % (out + (out[4] * 1e4 / out[1] if out[1] else 0,)))
EOF
}

# fio_tables ROUNDS ALL: from ALL's per-run lines ("case tool round load1 MB/s
# IOPS p50_us p99_us cpu_pct cpu_us_per_io"), each tool's medians per case,
# then blk.io's over fio's.
fio_tables() {
	local med
	med=$(mktemp)
	echo "# median of $1 rounds"
	echo "case tool load1 MB/s IOPS p50_us p99_us cpu_pct cpu_us_per_io"
	sort -k1,1 -k2,2 "$2" | awk '
	function med(col,   n, i, j, t, v) {
		n = cnt
		for (i = 1; i <= n; i++) v[i] = val[i, col]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function flush() { if (cnt) printf "%s %s %.1f %.1f %.0f %.1f %.1f %.1f %.2f\n", key1, key2, med(4), med(5), med(6), med(7), med(8), med(9), med(10) }
	{ if ($1 != key1 || $2 != key2) { flush(); key1 = $1; key2 = $2; cnt = 0 }
	  cnt++; for (c = 4; c <= 10; c++) val[cnt, c] = $c }
	END { flush() }' | tee "$med"
	echo "# blk.io / fio, medians"
	echo "case MB/s IOPS p50 p99 cpu_us_per_io"
	awk '$2 == "fio" { for (c = 4; c <= 9; c++) f[$1, c] = $c }
	$2 == "blk" { for (c = 4; c <= 9; c++) b[$1, c] = $c; names[$1] = 1 }
	function r(n, c) { return f[n, c] > 0 ? sprintf("%.3f", b[n, c] / f[n, c]) : "-" }
	END { for (n in names) printf "%s %s %s %s %s %s\n", n, r(n, 4), r(n, 5), r(n, 6), r(n, 7), r(n, 9) }' "$med" | sort
	rm -f "$med"
}

# fio_pairs ALL: paired.sh's "KEY ROUND TOOL VALUE" lines from ALL's per-run
# lines, blk.io the embperf side and fio the reference: per case the figures
# of the "blk.io / fio" table (MB/s, IOPS, p50 and p99 in us, CPU us per I/O).
fio_pairs() {
	awk '$2 == "blk" || $2 == "fio" {
		t = $2 == "blk" ? "embperf" : "reference"
		print $1 "-MB/s", $3, t, $5
		print $1 "-IOPS", $3, t, $6
		print $1 "-p50-us", $3, t, $7
		print $1 "-p99-us", $3, t, $8
		print $1 "-cpu-us/io", $3, t, $10
	}' "$1"
}
