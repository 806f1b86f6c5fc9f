# SPDX-License-Identifier: MIT
#
# bench/fidelity/paced_device.sh - sourced by the audio comparisons: with no DEVICE
# set, build the tests' paced PCM (tests/paced_pcm.c) as an alsa-lib
# external plugin (tests/paced_plugin.c) in folder $1 and name it in a
# temporary ALSA configuration (ALSA_CONFIG_PATH, which includes the
# system's alsa.conf), so aplay, arecord and the embperf command all open
# the same CLOCK_MONOTONIC-paced device; sets DEVICE to its name.
# DEVICE=hw:0,0 (or any PCM name) uses that device instead.

# paced_device_setup DIR - as above; DIR is a scratch folder the caller removes.
paced_device_setup() {
	local dir=$1 src
	[ -n "${DEVICE:-}" ] && return 0
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	${CC:-cc} -O2 -DPIC -fPIC -shared -I "$src/tests" -o "$dir/libasound_module_pcm_paced.so" \
		"$src/tests/paced_plugin.c" "$src/tests/paced_pcm.c" \
		$(pkg-config --cflags --libs alsa) -lm
	cat >"$dir/asound.conf" <<-CONF
		</usr/share/alsa/alsa.conf>
		pcm_type.paced { lib "$dir/libasound_module_pcm_paced.so" }
		pcm.bench_paced { type paced }
	CONF
	export ALSA_CONFIG_PATH=$dir/asound.conf
	DEVICE=bench_paced
}
