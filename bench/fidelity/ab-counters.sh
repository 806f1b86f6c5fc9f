#!/bin/bash
# SPDX-License-Identifier: MIT
# ab-counters.sh BUILD [ROUNDS] - do the engine's perf counters (counters=1,
# the engine's default) move a figure? os.timer (bench/probes/timer-bench)
# beside plain cyclictest -p 80, and blk.io beside fio (1 MiB sequential
# O_DIRECT writes, pinned to CPU 1, a 512 MiB file in /var/tmp), each
# embperf side with counters=1 and counters=0, the order flipped every
# round. Prints "ROUND TOOL VALUE [P50]" lines; doc/fidelity/README.md
# holds what it printed. Run on a quiet machine only.
B=$1; R=${2:-5}; F=/var/tmp/ab.dat; T=$(mktemp -d)
fio --name=lay --filename=$F --size=512M --rw=write --bs=1M --direct=1 --end_fsync=1 >/dev/null
fio_w() { setsid -w taskset -c 1 fio --name=w --filename=$F --size=512M --rw=write --bs=1M --direct=1 \
	--time_based --runtime=5 --norandommap --output-format=json >$T/f.json
	python3 -c "import json;j=json.load(open('$T/f.json'))['jobs'][0]['write'];print('%.1f %.1f'%(j['bw_bytes']/1e6,j['clat_ns']['percentile']['50.000000']/1e3))"; }
ep_w() { setsid -w taskset -c 1 $B/bench/embperf run blk.io target=$F size=512M rw=write bs=1M direct=1 \
	time_based=1 duration=5s repetitions=1 counters=$1 --format=json >$T/e.json
	python3 -c "import json;rs=json.load(open('$T/e.json'))['results'];bw=[r['value'] for r in rs if r['metric']=='bandwidth'][0];p=[x['value'] for r in rs if r['metric']=='latency' for x in r['percentiles'] if x['pct']==50][0];print('%.1f %.1f'%(bw,p))"
}
ct() { cyclictest -q -p 80 -i 1000 -D 5 -h 20000 --histfile=$T/h >/dev/null 2>&1
	awk '/^# Histogram Overflows:/{o=$4+0} /^[0-9]/{c[$1+0]=$2+0;n+=$2;if($1+0>t)t=$1+0} END{w=0.5*(n+o);for(b=0;b<=t;b++){s+=c[b];if(s>=w){printf "%.1f\n",b+0.5;exit}}}' $T/h; }
tb() { $B/bench/probes/timer-bench interval=1ms priority=80 duration=5s repetitions=1 counters=$1 | tr ' ' '\n' | sed -n 's/^p50=//p'; }
for r in $(seq $R); do
	echo "# round $r $(cut -d' ' -f1-3 /proc/loadavg)"
	if [ $((r % 2)) = 1 ]; then
		echo "$r fio $(fio_w)"; echo "$r ep1 $(ep_w 1)"; echo "$r ep0 $(ep_w 0)"
		echo "$r ct $(ct)"; echo "$r tb1 $(tb 1)"; echo "$r tb0 $(tb 0)"
	else
		echo "$r ep0 $(ep_w 0)"; echo "$r ep1 $(ep_w 1)"; echo "$r fio $(fio_w)"
		echo "$r tb0 $(tb 0)"; echo "$r tb1 $(tb 1)"; echo "$r ct $(ct)"
	fi
done
rm -rf $T $F
