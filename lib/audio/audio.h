/* SPDX-License-Identifier: MIT */
/*
 * audio.h - what the audio kernels' files share: the run's state, the PCM
 * set-up (audio_pcm.c) and the trial body (audio_stream.c).
 */
#ifndef EMBPERF_AUDIO_AUDIO_H
#define EMBPERF_AUDIO_AUDIO_H

#include <stdint.h>

#include "lib/core/run.h"
#include "lib/core/trial.h"

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
	AUDIO_M_COMMON, /* the metrics above are both kernels'; audio.capture's own follow */
	AUDIO_M_TONE_ERROR = AUDIO_M_COMMON,
	AUDIO_M_TONE_LEVEL,
	AUDIO_M_GLITCHES,
};

/* The 'format' parameter's choices, in its order. */
enum audio_format {
	AUDIO_FMT_S16_LE,
	AUDIO_FMT_S24_LE,
	AUDIO_FMT_S32_LE,
	AUDIO_FMT_FLOAT_LE,
	AUDIO_FMT_S24_3LE,
	AUDIO_FMT_U8,
};

/**
 * struct audio_tone - check=tone's analysis of one trial's capture
 * (audio_tone.c), fed frame by frame.
 * @freq_hz, @rate_hz: the tone expected and the negotiated rate.
 * @cos2:           2 cos(2 pi freq / rate), the sine's recurrence.
 * @x1, @x2:        the last two samples; @have of them are valid (0..2).
 * @armed:          the signal went below the hysteresis since the last crossing.
 * @peak:           the largest magnitude so far.
 * @sum_sq:         sum of the squared samples.
 * @frames:         samples analysed; @since_start since the last (re)start.
 * @longest_run:    the most frames of any earlier (re)start, @since_start
 *                  aside: what a check needs two whole cycles of.
 * @settle_frames:  a tone period: no discontinuity is judged before it.
 * @run_crossings, @first_cross, @last_cross: crossings of the current run.
 * @cycles, @cycle_frames: whole cycles and their frames over closed runs.
 * @clean:          residuals in a row below the threshold.
 * @glitches:       discontinuities; @first_glitch_frame where the first was.
 */
struct audio_tone {
	double freq_hz;
	unsigned int rate_hz;
	double cos2;
	double x1, x2;
	int have;
	int armed;
	double peak;
	double sum_sq;
	uint64_t frames, since_start, settle_frames;
	uint64_t longest_run;
	uint64_t run_crossings;
	double first_cross, last_cross;
	double cycles, cycle_frames;
	uint64_t clean;
	uint64_t glitches, first_glitch_frame;
};

/** audio_tone_init() - expect a tone of @freq_hz at @rate_hz; nothing seen yet. */
void audio_tone_init(struct audio_tone *tn, double freq_hz, unsigned int rate_hz);

/** audio_tone_restart() - the stream (re)started: what follows is not continuous. */
void audio_tone_restart(struct audio_tone *tn);

/** audio_tone_feed() - analyse the first channel of @frames frames of @buf. */
void audio_tone_feed(struct audio_tone *tn, const void *buf, enum audio_format format,
		     unsigned int frame_bytes, uint64_t frames);

/** audio_tone_level_dbfs() - RMS level, dBFS of a full-scale sine (-inf: silence). */
double audio_tone_level_dbfs(const struct audio_tone *tn);

/** audio_tone_freq_hz() - the frequency from the zero crossings (NaN: no tone). */
double audio_tone_freq_hz(struct audio_tone *tn);

/**
 * audio_tone_verdict() - is it the tone: level at least @min_level_dbfs,
 * frequency within @tolerance (relative), no discontinuity?
 * Return: 0, or -1 with what is wrong in @why.
 */
int audio_tone_verdict(struct audio_tone *tn, double min_level_dbfs, double tolerance,
		       char *why, size_t size);

/* Metrics of audio.latency. */
enum { LAT_M_LATENCY, LAT_M_ROUNDTRIP, LAT_M_LOST, LAT_M_XRUNS };

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
 * @device_param: the parameter naming the device ("device", "capture_device").
 * @device:       its value.
 * @open_hint:    appended to the message when the device cannot be opened, or NULL.
 * @access:       rw or mmap transfers.
 * @mode:         how the body waits for a period.
 * @priority:     SCHED_FIFO priority of the body's thread, 0: unchanged.
 * @format:       the 'format' parameter.
 * @check_tone:   audio.capture check=tone: analyse what is captured.
 * @tone_level_dbfs, @tone_tolerance: check=tone's thresholds.
 * @tone:         check=tone's analysis of the current (or last) trial.
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
	const char *device_param;
	const char *device;
	const char *open_hint;
	enum audio_access access;
	enum audio_mode mode;
	int priority;
	enum audio_format format;
	int check_tone;
	double tone_level_dbfs;
	double tone_tolerance;
	struct audio_tone tone;
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
 * audio_latency_setup() - setup() of audio.latency (audio_latency.c): open
 * both ends, add the trial case. Return: 0 or a negative errno.
 */
int audio_latency_setup(struct ep_run *run, void **state);

/** audio_latency_teardown() - close both ends, free the state. */
void audio_latency_teardown(void *state);

/**
 * audio_transfer() - move @frames frames between @st's buffer and its PCM.
 * Return: frames moved, or a negative errno (-EAGAIN in poll mode).
 */
long audio_transfer(struct audio_state *st, unsigned long frames);

/**
 * audio_wait_period() - wait until @st's PCM can move a period, or at most
 * until the trial's end (50 ms at most).
 * Return: 1 ready, 0 timeout, or a negative errno (-EPIPE: an xrun).
 */
int audio_wait_period(struct audio_state *st, const struct ep_trial *t);

/** audio_sample_get() - sample @i of the first channel of @buf, in [-1, 1). */
double audio_sample_get(const void *buf, enum audio_format format, unsigned int frame_bytes,
			uint64_t i);

/** audio_frame_put() - frame @i of @buf: @v (in [-1, 1]) on every channel. */
void audio_frame_put(void *buf, enum audio_format format, unsigned int channels, uint64_t i,
		     double v);

/**
 * audio_body() - one trial: stream until the engine says stop, counting
 * the frames the device moved, each period's wake-up lateness and xruns.
 * Return: 0 or a negative errno.
 */
int audio_body(void *arg, struct ep_trial *t);

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
