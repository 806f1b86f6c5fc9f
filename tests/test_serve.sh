#!/bin/bash
# SPDX-License-Identifier: MIT
# test_serve.sh EMBPERF - `embperf serve` from the command line: it serves
# for --for's time and exits 0, refuses a port in use naming the address,
# refuses bad options naming them, and a kernel measures against it.
# Loopback only; every server started here is bounded by --for.
set -u
embperf=$1
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
echo "1..6"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT

# A free TCP port on 127.0.0.1 (bound by the kernel, then released).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

"$embperf" serve -q --listen "127.0.0.1:$port" --for 20s &
pids+=($!)
for _ in $(seq 50); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.1
done

out=$("$embperf" run net.udp.stream "peer=127.0.0.1:$port" pps=1000 size=100 duration=200ms \
	repetitions=1 --format=csv 2>&1)
if echo "$out" | grep -q '^,net.udp.stream/kpps'; then
	pass "a kernel measures against embperf serve"
else
	fail "a kernel measures against embperf serve" "$out"
fi

out=$("$embperf" serve -q --listen "127.0.0.1:$port" --for 5s 2>&1)
rc=$?
if [ "$rc" -eq 3 ] && echo "$out" | grep -q "127.0.0.1:$port" && echo "$out" | grep -qi "in use"; then
	pass "a port in use is refused, naming the address (exit 3)"
else
	fail "a port in use is refused, naming the address (exit 3)" "rc=$rc" "$out"
fi

out=$("$embperf" serve --allow 10.0.0.0/99 --for 1s 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && echo "$out" | grep -q -- "--allow" && echo "$out" | grep -q "10.0.0.0/99"; then
	pass "a bad --allow is refused, naming it (exit 2)"
else
	fail "a bad --allow is refused, naming it (exit 2)" "rc=$rc" "$out"
fi

out=$("$embperf" serve now 2>&1)
rc=$?
[ "$rc" -eq 2 ] && pass "operands are refused (exit 2)" || fail "operands are refused (exit 2)" "rc=$rc" "$out"

out=$("$embperf" run net.udp.stream --listen 1.2.3.4:5 2>&1)
rc=$?
[ "$rc" -eq 2 ] && echo "$out" | grep -q "does not apply" &&
	pass "serve's options are refused by other commands" ||
	fail "serve's options are refused by other commands" "rc=$rc" "$out"

start=$(date +%s%N)
"$embperf" serve -q --listen 127.0.0.1:0 --for 1s
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
if [ "$rc" -eq 0 ] && [ "$ms" -ge 900 ] && [ "$ms" -lt 10000 ]; then
	pass "--for 1s serves about a second and exits 0 (${ms} ms)"
else
	fail "--for 1s serves about a second and exits 0" "rc=$rc after $ms ms"
fi
exit $((failures > 0))
