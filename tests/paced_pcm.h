/* SPDX-License-Identifier: MIT */
/*
 * paced_pcm.h - a virtual alsa-lib PCM paced by CLOCK_MONOTONIC, for tests
 * of the audio kernels on machines without a sound card (tests/paced_pcm.c).
 */
#ifndef EMBPERF_TESTS_PACED_PCM_H
#define EMBPERF_TESTS_PACED_PCM_H

#include <alsa/asoundlib.h>

/**
 * paced_pcm_open() - create the paced PCM in this process (an ioplug PCM,
 * no plugin module), configured by the fields of @conf, a config node such
 * as `{ type paced speed 2.0 stall_at 50 stall 40 stall_every 100
 * stall_count 2 }` (times in ms from the PCM's first start); capture of a
 * sine: `tone 1000 amplitude 0.5` (Hz, of full scale), with zeros in it:
 * `dropout_at 4812 dropout 100` (frames of the tone delivered); an end of
 * the process's one loopback wire: `loop 1`, and for a capture end
 * `loop_delay 480` (frames from the wire to the capture); a slow prepare:
 * `prepare_delay 100` (ms); one open at a time: `exclusive 1`.
 * Return: 0 or a negative errno (-EINVAL for an unknown field).
 */
int paced_pcm_open(snd_pcm_t **pcm, const char *name, snd_config_t *conf,
		   snd_pcm_stream_t stream, int mode);

/** paced_pcm_xruns() - xruns every paced PCM of this process has reported. */
unsigned long paced_pcm_xruns(void);

/** paced_pcm_stalls() - stalls every paced PCM of this process has begun. */
unsigned long paced_pcm_stalls(void);

/** paced_pcm_open_now() - paced PCMs of this process open now. */
long paced_pcm_open_now(void);

#endif /* EMBPERF_TESTS_PACED_PCM_H */
