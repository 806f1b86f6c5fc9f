// SPDX-License-Identifier: MIT
/*
 * audio_kernels.c - audio.playback and audio.capture: stream to or from an
 * alsa-lib PCM for the engine's trial duration and report throughput (bit/s,
 * TI's alsa_perf_tests form), frames/s, the rate error against the
 * negotiated rate, xruns, each period's wake-up lateness and CPU load.
 *
 * This file holds what a build without ALSA keeps: the descriptions and the
 * kernels (which the engine then refuses with -EOPNOTSUPP, from .feature).
 * audio_pcm.c opens and configures the PCM, audio_stream.c is the trial
 * body; doc/methodology-audio.md says what is timed and counted.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "config.h"
#include "lib/audio/audio.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/sched_fifo.h"
#include "lib/core/util.h"

/* The format choices, in audio_pcm.c's order. */
#define AUDIO_FORMATS "S16_LE|S24_LE|S32_LE|FLOAT_LE|S24_3LE|U8"

/* The stream's parameters, after the device's name, in every audio kernel. */
#define AUDIO_STREAM_PARAMS \
	{ "rate", EP_PT_FREQ, "48000", { { 1, 1000000 } }, NULL, "Hz", \
	  "sample rate asked for; the device's nearest one is used and labelled" }, \
	{ "channels", EP_PT_INT, "2", { { 1, 256 } }, NULL, "", "channels per frame" }, \
	{ "format", EP_PT_ENUM, "S16_LE", { { 0, 0 } }, AUDIO_FORMATS, "", \
	  "sample format" }, \
	{ "period", EP_PT_INT, "64", { { 1, 1 << 20 } }, NULL, "frames", \
	  "frames per period (one wake-up); the device's nearest one is used and labelled" }, \
	{ "buffer", EP_PT_INT, "0", { { 0, 1 << 22 } }, NULL, "frames", \
	  "ring buffer in frames; 0: the whole periods nearest 20 ms (at least 2)" }, \
	{ "access", EP_PT_ENUM, "rw", { { 0, 0 } }, "rw|mmap", "", \
	  "rw: snd_pcm_writei/readi; mmap: snd_pcm_mmap_writei/readi (interleaved)" }, \
	{ "mode", EP_PT_ENUM, "blocking", { { 0, 0 } }, "blocking|poll", "", \
	  "blocking: snd_pcm_wait() on a blocking PCM; poll: non-blocking PCM, poll() on its " \
	  "descriptors" }, \
	{ "priority", EP_PT_INT, "0", { { 0, 99 } }, NULL, "", \
	  "0: the caller's scheduling; 1..99: SCHED_FIFO at that priority while streaming " \
	  "(needs CAP_SYS_NICE or RLIMIT_RTPRIO)" }

static const struct ep_param_desc audio_params[] = {
	{ "device", EP_PT_STRING, "default", { { 0, 0 } }, NULL, "",
	  "alsa-lib PCM name: hw:0,0, plughw:1, default, a name from the ALSA configuration" },
	AUDIO_STREAM_PARAMS,
	/* audio.capture's own (audio.playback stops before them). */
	{ "check", EP_PT_ENUM, "none", { { 0, 0 } }, "none|tone", "",
	  "none: count only; tone: the first channel must carry a clean tone of 'tone_freq' "
	  "(level, frequency, no discontinuity), else the run fails saying what was wrong" },
	{ "tone_freq", EP_PT_FREQ, "1000", { { 1, 1000000 } }, NULL, "Hz",
	  "check=tone: the tone expected" },
	{ "tone_level", EP_PT_DOUBLE, "-50", { .dmin = -200.0, .dmax = 0.0 }, NULL, "dBFS",
	  "check=tone: the lowest RMS level accepted (0 dBFS: a full-scale sine)" },
	{ "tone_tolerance", EP_PT_DOUBLE, "1%", { .dmin = 1e-6, .dmax = 0.5 }, NULL, "",
	  "check=tone: the largest relative frequency error accepted" },
};

#define AUDIO_N_COMMON_PARAMS 9 /* audio.playback's: the array up to 'priority' */
_Static_assert(EP_ARRAY_SIZE(audio_params) == AUDIO_N_COMMON_PARAMS + 4,
	       "audio.capture's own parameters follow the common ones");

static const struct ep_param_desc latency_params[] = {
	{ "device", EP_PT_STRING, "hw:Loopback,0,0", { { 0, 0 } }, NULL, "",
	  "the playback end: an alsa-lib PCM looped back to 'capture_device' (snd-aloop's "
	  "hw:Loopback,0,N, or an output cabled to an input)" },
	{ "capture_device", EP_PT_STRING, "hw:Loopback,1,0", { { 0, 0 } }, NULL, "",
	  "the capture end (snd-aloop's hw:Loopback,1,N receives what hw:Loopback,0,N plays)" },
	AUDIO_STREAM_PARAMS,
	{ "interval", EP_PT_DURATION, "100ms", { { 10000000, 10000000000LL } }, NULL, "ns",
	  "one marker per interval; a marker not back within it is lost (the latency measured "
	  "must be below it)" },
	{ "threshold", EP_PT_DOUBLE, "-20", { .dmin = -90.0, .dmax = -6.1 }, NULL, "dBFS",
	  "a captured sample above this level is a marker's arrival (the marker is -6 dBFS)" },
};

static const struct ep_metric_desc latency_metrics[] = {
	[LAT_M_LATENCY] = { "latency", "us", EP_METRIC_TRIAL_LATENCY, 1000.0, EP_PRIMARY_MEDIAN,
			    EP_BETTER_LOWER,
			    "per marker, from the playback pointer passing it to the capture "
			    "pointer passing its arrival; percentiles of every marker" },
	[LAT_M_ROUNDTRIP] = { "roundtrip", "us", EP_METRIC_TRIAL_DERIVED, 1.0, EP_PRIMARY_MEDIAN,
			      EP_BETTER_LOWER,
			      "per trial, the mean over its markers of written (snd_pcm_writei "
			      "returned) to read back (snd_pcm_readi returned): with both buffers" },
	[LAT_M_LOST] = { "lost", "markers", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN,
			 EP_BETTER_LOWER, "markers not back within 'interval', per trial" },
	[LAT_M_XRUNS] = { "xruns", "xruns", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN,
			  EP_BETTER_LOWER, "xruns of either end, per trial (both restart)" },
};

static const struct ep_metric_desc audio_metrics[] = {
	[AUDIO_M_BITS] = { "throughput", "bit/s", EP_METRIC_TRIAL_BITS, 1.0, EP_PRIMARY_MEDIAN, 1,
			   "frames the device moved x channels x sample bits / measured time "
			   "(TI alsa_perf_tests)" },
	[AUDIO_M_FRAMES] = { "frames", "frames/s", EP_METRIC_TRIAL_OPS, 1.0, EP_PRIMARY_MEDIAN, 1,
			     "frames the device moved (hardware pointer) / measured time" },
	[AUDIO_M_RATE_ERROR] = { "rate_error", "ppm", EP_METRIC_TRIAL_DERIVED, 1.0,
				 EP_PRIMARY_MEDIAN, EP_BETTER_ZERO,
				 "per trial, (frames/s - negotiated rate) / negotiated rate x 10^6; "
				 "better nearer 0" },
	[AUDIO_M_XRUNS] = { "xruns", "xruns", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN, 0,
			    "underruns (playback) or overruns (capture) seen by the kernel before "
			    "it recovered, per trial" },
	[AUDIO_M_XRUN_TIME] = { "xrun_time", "us", EP_METRIC_TRIAL_COUNTER, 1.0, EP_PRIMARY_MEDIAN,
				0, "per trial, over its xruns: from the device last seen moving to the "
				   "restarted stream (at most the time the stream stood)" },
	[AUDIO_M_LATENESS] = { "lateness", "us", EP_METRIC_TRIAL_LATENCY, 1000.0,
			       EP_PRIMARY_MEDIAN, 0,
			       "how long after a period was complete the thread woke for it "
			       "(frames past the period / rate); percentiles of every wake-up" },
	[AUDIO_M_CPU_PROCESS] = EP_METRIC_CPU_PROCESS(EP_CPU_PROCESS_HELP),
	[AUDIO_M_CPU_SYSTEM] = EP_METRIC_CPU_SYSTEM("the whole system's CPU load, % (TI's "
						    "/proc/stat method)"),
	[AUDIO_M_TONE_ERROR] = { "tone_error", "ppm", EP_METRIC_TRIAL_DERIVED, 1.0,
				 EP_PRIMARY_MEDIAN, EP_BETTER_ZERO,
				 "check=tone: (tone frequency found - tone_freq) / tone_freq x 10^6, "
				 "per trial" },
	[AUDIO_M_TONE_LEVEL] = { "tone_level", "dBFS", EP_METRIC_TRIAL_DERIVED, 1.0,
				 EP_PRIMARY_MEDIAN, EP_BETTER_HIGHER,
				 "check=tone: RMS level of the first channel, dBFS of a full-scale "
				 "sine, per trial" },
	[AUDIO_M_GLITCHES] = { "glitches", "glitches", EP_METRIC_TRIAL_DERIVED, 1.0, EP_PRIMARY_MEDIAN,
			       EP_BETTER_LOWER,
			       "check=tone: discontinuities of the tone (dropouts, repeated or lost "
			       "samples), per trial" },
};

#if EMBPERF_HAVE_ALSA

static const char *const audio_counters[] = {
	[AUDIO_C_XRUNS] = "xruns",
	[AUDIO_C_XRUN_TIME] = "xrun_time",
};

/** audio_teardown() - close the PCM and free its buffer (also of a partly built state). */
static void audio_teardown(void *state)
{
	struct audio_state *st = state;

	audio_pcm_close(st);
	free(st->buf);
}

/**
 * tone_derive() - check=tone's metrics of the trial just run (its capture,
 * which the body analysed).
 */
static double tone_derive(struct audio_state *st, int metric)
{
	switch (metric) {
	case AUDIO_M_TONE_ERROR:
		return (audio_tone_freq_hz(&st->tone) / st->tone.freq_hz - 1.0) * 1e6;
	case AUDIO_M_TONE_LEVEL:
		return audio_tone_level_dbfs(&st->tone);
	case AUDIO_M_GLITCHES:
		return (double)st->tone.glitches;
	default:
		return NAN;
	}
}

/**
 * audio_derive() - one trial's rate error: the frames the device moved over
 * the measured time against the negotiated rate, in ppm.
 * Return: the rate error, NaN for another metric or an empty trial.
 */
static double audio_derive(void *arg, int metric, const struct ep_tally *ta)
{
	struct audio_state *st = arg;
	double elapsed_s = (double)ep_tally_elapsed_ns(ta) / 1e9;

	if (metric != AUDIO_M_RATE_ERROR)
		return st->check_tone ? tone_derive(st, metric) : NAN;
	if (elapsed_s <= 0.0 || !st->rate_hz)
		return NAN;
	return ((double)ep_tally_ops(ta) / elapsed_s / st->rate_hz - 1.0) * 1e6;
}

/**
 * check_tone_freq() - check=tone needs 'tone_freq' below half the
 * negotiated rate (above it the samples cannot carry the tone).
 * Return: 0 or -EINVAL naming the parameter.
 */
static int check_tone_freq(struct ep_run *run, const struct audio_state *st)
{
	double freq_hz = ep_param_double(run, "tone_freq");

	if (freq_hz < st->rate_hz / 2.0)
		return 0;
	return ep_run_refuse(run, -EINVAL, "tone_freq", " is not below half the rate device '%s' "
			     "gave (%u Hz); accepted: 1 Hz to %u Hz", st->device, st->rate_hz,
			     (st->rate_hz - 1) / 2);
}

/**
 * audio_setup() - open and configure the PCM, add the one trial case.
 * @capture: 1 for audio.capture.
 * Return: 0 or a negative errno with the run's message.
 */
static int audio_setup(struct ep_run *run, void **state, int capture)
{
	struct audio_state *st = *state;
	struct ep_trial_case tc = {
		.body = audio_body,
		.counters = audio_counters,
		.n_counters = (int)EP_ARRAY_SIZE(audio_counters),
		.derive = audio_derive,
	};
	int rc;

	st->run = run;
	st->capture = capture;
	st->device_param = "device";
	st->device = ep_param_text(run, "device");
	st->access = (enum audio_access)ep_param_int(run, "access");
	st->mode = (enum audio_mode)ep_param_int(run, "mode");
	st->priority = (int)ep_param_int(run, "priority");
	st->format = (enum audio_format)ep_param_int(run, "format");
	if (capture) {
		st->check_tone = ep_param_int(run, "check") == 1;
		st->tone_level_dbfs = ep_param_double(run, "tone_level");
		st->tone_tolerance = ep_param_double(run, "tone_tolerance");
	}
	rc = ep_sched_check(run, st->priority);
	if (!rc)
		rc = audio_pcm_open(run, st);
	if (!rc && st->check_tone)
		rc = check_tone_freq(run, st);
	if (rc)
		return rc;
	tc.labels = st->label;
	tc.arg = st;
	return ep_run_add_trial(run, &tc);
}

/** audio_setup_playback() - setup() of audio.playback. */
static int audio_setup_playback(struct ep_run *run, void **state)
{
	return audio_setup(run, state, 0);
}

/** audio_setup_capture() - setup() of audio.capture. */
static int audio_setup_capture(struct ep_run *run, void **state)
{
	return audio_setup(run, state, 1);
}

#else /* !EMBPERF_HAVE_ALSA: the engine refuses the kernels before setup. */

/** audio_setup_none() - never called (.feature "alsa" is missing). */
static int audio_setup_none(struct ep_run *run, void **state)
{
	return -EOPNOTSUPP;
}

#define audio_setup_playback audio_setup_none
#define audio_setup_capture audio_setup_none
#define audio_latency_setup audio_setup_none
#define audio_teardown NULL
#define audio_latency_teardown NULL

#endif /* EMBPERF_HAVE_ALSA */

/*
 * counters=0: an audio kernel's CPU load is one of its figures, and the
 * engine's perf events, attached to the streaming thread, cost the kernel
 * work at each of its context switches (two a period: 1 500/s at 48000 Hz,
 * period 64) and 2 ms to open and close; with them the load read 1.4 to
 * 4.4 ms higher per 3 s run (doc/methodology-audio.md, "The perf counters").
 * counters=1 brings them back.
 */
static const struct ep_default audio_defaults[] = {
	{ "repetitions", "3" },
	{ "counters", "0" },
	{ NULL, NULL },
};

const struct ep_kernel ep_kernel_audio_playback = {
	.name = "audio.playback",
	.summary = "ALSA playback: bit/s, frames/s, rate error, xruns, wake-up lateness, CPU load",
	.feature = "alsa",
	.params = audio_params,
	.n_params = AUDIO_N_COMMON_PARAMS,
	.metrics = audio_metrics,
	.n_metrics = AUDIO_M_COMMON,
	.engine_defaults = audio_defaults,
	.setup = audio_setup_playback,
	.teardown = audio_teardown,
	.state_bytes = sizeof(struct audio_state),
	.trials = 1,
};

const struct ep_kernel ep_kernel_audio_capture = {
	.name = "audio.capture",
	.summary = "ALSA capture: bit/s, frames/s, rate error, xruns, wake-up lateness, CPU load; "
		   "check=tone validates the signal",
	.feature = "alsa",
	EP_PARAMS(audio_params),
	EP_METRICS(audio_metrics),
	.engine_defaults = audio_defaults,
	.setup = audio_setup_capture,
	.teardown = audio_teardown,
	.state_bytes = sizeof(struct audio_state),
	.trials = 1,
};

static const struct ep_default latency_defaults[] = {
	{ "repetitions", "3" },
	{ "ramp", "200ms" }, /* both ends running and the first markers in flight */
	{ "counters", "0" }, /* as audio_defaults */
	{ NULL, NULL },
};

const struct ep_kernel ep_kernel_audio_latency = {
	.name = "audio.latency",
	.summary = "ALSA round-trip latency through a loopback (snd-aloop or a cable): a marker "
		   "played, found in the capture; percentiles, lost markers, xruns",
	.feature = "alsa",
	EP_PARAMS(latency_params),
	EP_METRICS(latency_metrics),
	.engine_defaults = latency_defaults,
	.setup = audio_latency_setup,
	.teardown = audio_latency_teardown,
	.trials = 1,
};
