// SPDX-License-Identifier: MIT
/*
 * paced_plugin.c - the tests' paced PCM (tests/paced_pcm.c) as an alsa-lib
 * external plugin (libasound_module_pcm_paced.so), so that programs that
 * are not linked with it (aplay, arecord, the embperf command) can open it
 * through an ALSA configuration: bench/fidelity/compare-aplay.sh builds it and runs
 * them side by side on the same device.
 *
 * Build as the plugin loader needs it: -DPIC -fPIC -shared (without -DPIC,
 * SND_PCM_PLUGIN_SYMBOL() emits the static-link variant, which does not load).
 */
#include "paced_pcm.h" /* alsa/asoundlib.h first: pcm_external.h needs it */

#include <alsa/pcm_external.h>

/* The plugin's open function: the node's fields as paced_pcm_open() reads them. */
SND_PCM_PLUGIN_DEFINE_FUNC(paced)
{
	(void)root;
	return paced_pcm_open(pcmp, name, conf, stream, mode);
}

SND_PCM_PLUGIN_SYMBOL(paced);
