# SPDX-License-Identifier: MIT
# bench/fidelity/quiet.sh - sourced: the fidelity protocol's guard against a
# busy machine. A figure taken while builds or tests share the 2 CPUs is not
# evidence (a load of 6 to 24 hides a 30 % difference), so before each round
# the harness waits until the machine is quiet, or stops with a message:
#
#   quiet_wait            wait (up to QUIET_WAIT_S, 300) until the 1-minute
#                         load average is below QUIET_LOAD (1.0) and the CPUs
#                         were busy less than QUIET_BUSY_PCT (5) % over the
#                         last QUIET_WINDOW_S (2) seconds, while this script
#                         itself slept; on timeout exit 3 naming the load and
#                         the busiest processes.
#   quiet_state           "load 0.12, busy 0.8 %": printed beside each round.
#   quiet_round R         quiet_wait, then "# round R: load ..., busy ... %"
#                         on stderr: the compare-*.sh scripts' rounds.
#
# QUIET=0 in the environment turns the guard off (say so in the figures:
# they are then not evidence).

QUIET_LOAD=${QUIET_LOAD:-1.0}
QUIET_BUSY_PCT=${QUIET_BUSY_PCT:-5}
QUIET_WINDOW_S=${QUIET_WINDOW_S:-2}
QUIET_WAIT_S=${QUIET_WAIT_S:-300}
quiet_last_busy=

# quiet_busy_pct - % of all CPUs busy over the window ((total - idle - iowait) / total).
quiet_busy_pct() {
	local a b
	a=$(awk '/^cpu /{print $2+$3+$4+$5+$6+$7+$8+$9, $5+$6}' /proc/stat)
	sleep "$QUIET_WINDOW_S"
	b=$(awk '/^cpu /{print $2+$3+$4+$5+$6+$7+$8+$9, $5+$6}' /proc/stat)
	echo "$a $b" | awk '{ t = $3 - $1; i = $4 - $2; printf "%.1f", (t > 0 ? 100 * (t - i) / t : 0) }'
}

quiet_load() { cut -d' ' -f1 /proc/loadavg; }

quiet_state() {
	printf 'load %s, busy %s %%' "$(quiet_load)" "${quiet_last_busy:-?}"
}

quiet_wait() {
	local waited=0
	[ "${QUIET:-1}" = 0 ] && { quiet_last_busy=off; return 0; }
	while :; do
		quiet_last_busy=$(quiet_busy_pct)
		if awk -v l="$(quiet_load)" -v b="$quiet_last_busy" -v ml="$QUIET_LOAD" \
			-v mb="$QUIET_BUSY_PCT" 'BEGIN { exit !(l < ml && b < mb) }'; then
			return 0
		fi
		waited=$((waited + QUIET_WINDOW_S))
		if [ "$waited" -ge "$QUIET_WAIT_S" ]; then
			echo "the machine is not quiet: $(quiet_state) after waiting ${waited} s" \
				"(wanted load < $QUIET_LOAD and busy < $QUIET_BUSY_PCT %); busiest:" >&2
			ps -eo pcpu,comm --sort=-pcpu | sed -n 2,6p >&2
			echo "no figure taken: a busy machine's figures are not evidence (QUIET=0 overrides)" >&2
			exit 3
		fi
	done
}

quiet_round() {
	quiet_wait
	echo "# round $1: $(quiet_state)" >&2
}
