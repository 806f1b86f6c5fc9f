/* SPDX-License-Identifier: MIT */
/*
 * audio.h - what the audio kernels' files share: the run's state, the PCM
 * set-up (audio_pcm.c) and the trial body (audio_stream.c).
 */
#ifndef EMBPERF_AUDIO_AUDIO_H
#define EMBPERF_AUDIO_AUDIO_H

#include <stdint.h>

#include "lib/core/kernel.h"

/* Metrics of both kernels, in this order. */
enum {
	AUDIO_M_BITS,
	AUDIO_M_FRAMES,
	AUDIO_M_RATE_ERROR,
	AUDIO_M_XRUNS,
	AUDIO_M_XRUN_TIME,
	AUDIO_M_LATENESS,
	AUDIO_M_CPU_PROCESS,
	AUDIO_M_CPU_SYSTEM,
};

/* Kernel counters of the trial case, in this order. */
enum { AUDIO_C_XRUNS, AUDIO_C_XRUN_TIME };

enum audio_access { AUDIO_ACCESS_RW, AUDIO_ACCESS_MMAP };
enum audio_mode { AUDIO_MODE_BLOCKING, AUDIO_MODE_POLL };

#define AUDIO_LABEL_MAX 320

struct _snd_pcm;

/**
 * struct audio_state - one run of audio.playback or audio.capture.
 * @run:          the run (failure messages, log).
 * @capture:      1 for audio.capture.
 * @pcm:          the open PCM, or NULL.
 * @access:       rw or mmap transfers.
 * @mode:         how the body waits for a period.
 * @priority:     SCHED_FIFO priority of the body's thread, 0: unchanged.
 * @rate_hz:      negotiated rate.
 * @channels:     negotiated channels.
 * @frame_bytes:  bytes of one frame (all channels).
 * @sample_bits:  bits of one sample as the format stores it (S24_LE: 32).
 * @period_frames: negotiated period.
 * @buffer_frames: negotiated buffer.
 * @buf:          one buffer of silence (playback) or room for it (capture).
 * @label:        the case's labels, with the negotiated values.
 */
struct audio_state {
	struct ep_run *run;
	int capture;
	struct _snd_pcm *pcm;
	enum audio_access access;
	enum audio_mode mode;
	int priority;
	unsigned int rate_hz;
	unsigned int channels;
	unsigned int frame_bytes;
	unsigned int sample_bits;
	unsigned long period_frames;
	unsigned long buffer_frames;
	void *buf;
	char label[AUDIO_LABEL_MAX];
};

/**
 * audio_pcm_open() - open 'device' for the state's direction and set the
 * hardware and software parameters from the run's parameters.
 * Return: 0, or a negative errno with the run's message naming the
 * parameter, the value and what the device accepts.
 */
int audio_pcm_open(struct ep_run *run, struct audio_state *st);

/** audio_pcm_close() - close the state's PCM, if open. */
void audio_pcm_close(struct audio_state *st);

/**
 * audio_body() - one trial: stream until the engine says stop, counting
 * the frames the device moved, each period's wake-up lateness and xruns.
 * Return: 0 or a negative errno.
 */
int audio_body(void *arg, struct ep_trial *t);

/**
 * audio_check_priority() - can the body's thread take 'priority'?
 * Return: 0, or an error naming the parameter and what is needed.
 */
int audio_check_priority(struct ep_run *run, const struct audio_state *st);

/**
 * ep_audio_test_pcm_open() - the tests' PCM opener (tests/paced_pcm.c),
 * a weak symbol: NULL in the library and every program but the tests,
 * which link the static archive and define it to open their paced
 * virtual PCM through an in-memory config. Same contract as
 * snd_pcm_open(); -ENOENT sends the name on to snd_pcm_open().
 */
int ep_audio_test_pcm_open(struct _snd_pcm **pcm, const char *device, int capture, int mode)
	__attribute__((weak, visibility("hidden")));

#endif /* EMBPERF_AUDIO_AUDIO_H */
