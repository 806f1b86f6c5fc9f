# SPDX-License-Identifier: MIT
#
# bench/fidelity/dd_tables.sh - sourced by compare-dd.sh and compare-dd-vm.sh:
# blk.fs's figures from its report; and from the per-run lines ("bs tool
# round load1 write_MB/s read_MB/s src_MB/s", tool blk, dd or ref, the order
# alternating by round) each tool's medians per buffer size, blk.fs over
# the other tool, and the same by position in the round; and the rounds'
# pairs for paired.sh.

# blk_fs_figures JSON: "write_MB/s read_MB/s" from blk.fs's JSON report.
blk_fs_figures() {
	python3 - "$1" <<-'PY'
	import json, sys
	r = {x["labels"]["op"]: x["value"] for x in json.load(open(sys.argv[1]))["results"]
	     if x["metric"] == "throughput"}
	print("%.1f %.1f" % (r["write"], r["read"]))
	PY
}

# dd_tables ROUNDS ALL OTHER: the tables, OTHER naming the other tool.
dd_tables() {
	local med
	med=$(mktemp)
	echo "# median of $1 rounds"
	echo "bs tool load1 write_MB/s read_MB/s src_MB/s"
	sort -k1,1n -k2,2 "$2" | awk '
	function med(col,   n, i, j, t, v) {
		n = cnt
		for (i = 1; i <= n; i++) v[i] = val[i, col]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function flush() { if (cnt) printf "%s %s %.1f %.1f %.1f %s\n", key1, key2, med(4), med(5), med(6), key2 == "dd" ? sprintf("%.1f", med(7)) : "-" }
	{ if ($1 != key1 || $2 != key2) { flush(); key1 = $1; key2 = $2; cnt = 0 }
	  cnt++; for (c = 4; c <= 7; c++) val[cnt, c] = $c }
	END { flush() }' | tee "$med"
	echo "# blk.fs / $3, medians; dd's write predicted from blk.fs's write and dd's source read"
	echo "bs write_ratio read_ratio dd_write_predicted_MB/s dd_write_measured_MB/s"
	awk '$2 == "dd" || $2 == "ref" { dw[$1] = $4; dr[$1] = $5; ds[$1] = $6 }
	$2 == "blk" { bw[$1] = $4; br[$1] = $5 }
	END { for (k in bw) printf "%s %.3f %.3f %s %.1f\n", k, bw[k] / dw[k], br[k] / dr[k],
		(ds[k] > 0 ? sprintf("%.1f", 1 / (1 / bw[k] + 1 / ds[k])) : "-"), dw[k] }' "$med" | sort -n
	# The order in a round can favour one position (on tmpfs in a VM the file
	# read second was read faster in one series and slower in another): blk.fs
	# over the other tool with each compared only to the runs in its own
	# position, and the geometric mean of the two, in which a factor that
	# depends on the position alone cancels.
	echo "# blk.fs / $3 by position in the round (medians): first, second, geometric mean"
	echo "bs write_first write_second write_balanced read_first read_second read_balanced"
	python3 - "$2" <<-'PY'
	import math, statistics, sys
	runs = {}
	for line in open(sys.argv[1]):
	    bs, tool, rnd, _, w, r = line.split()[:6]
	    first = (int(rnd) % 2 == 1) == (tool != "blk")
	    runs.setdefault((int(bs), tool == "blk", first), []).append((float(w), float(r)))
	for bs in sorted({k[0] for k in runs}):
	    out = [str(bs)]
	    for col in (0, 1):
	        try:
	            q = [statistics.median(x[col] for x in runs[(bs, True, p)]) /
	                 statistics.median(x[col] for x in runs[(bs, False, p)]) for p in (True, False)]
	            out += ["%.3f" % q[0], "%.3f" % q[1], "%.3f" % math.sqrt(q[0] * q[1])]
	        except (KeyError, ZeroDivisionError):
	            out += ["-", "-", "-"]
	    print(" ".join(out))
	PY
	rm -f "$med"
}

# dd_pairs ALL OTHER: paired.sh's "KEY ROUND TOOL VALUE" lines from ALL's
# per-run lines, blk.fs the embperf side and OTHER (dd or ref) the reference:
# per buffer size, write and read MB/s (dd's source read has no blk.fs
# counterpart).
dd_pairs() {
	awk -v other="$2" '$2 == "blk" || $2 == other {
		t = $2 == "blk" ? "embperf" : "reference"
		print $1 "-write-MB/s", $3, t, $5
		print $1 "-read-MB/s", $3, t, $6
	}' "$1"
}
