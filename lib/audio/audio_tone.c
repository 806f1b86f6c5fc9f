// SPDX-License-Identifier: MIT
/*
 * audio_tone.c - audio.capture's check=tone: is what the device delivered a
 * clean tone of the expected frequency?
 *
 * The first channel of every frame the body reads is analysed as it
 * arrives, in O(1) per sample:
 *
 * - level: the RMS, in dBFS referred to a full-scale sine (AES17: a sine
 *   whose peaks reach full scale is 0 dBFS, so a half-scale sine is -6 dBFS);
 * - frequency: rising zero crossings with a hysteresis of -60 dBFS, each
 *   placed between its two samples by linear interpolation; the frequency
 *   is the whole cycles between the first and the last crossing over the
 *   frames between them, summed over the stream's runs (an xrun restarts
 *   the stream, and the frames lost in it are no part of any run; a
 *   discontinuity ends a run too);
 * - discontinuities: a sampled sine obeys x[n+1] + x[n-1] = 2 cos(w) x[n]
 *   for its w = 2 pi f / rate, so the residual x[n+1] + x[n-1] - 2 cos(w)
 *   x[n] stays at the quantisation noise; a dropout, a repeated or a lost
 *   block makes it jump to the order of the amplitude. A residual above a
 *   tenth of the peak seen so far is a discontinuity; one run of such
 *   residuals (a jump disturbs two or three) counts once. The first tone
 *   period after each (re)start is not judged: the peak is not known yet.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/audio/audio.h"

#define TONE_HYSTERESIS 0.001   /* -60 dBFS: crossings below it are noise */
#define TONE_JUMP_OF_PEAK 0.1   /* a residual above peak / 10 is a discontinuity */
#define TONE_RUN_GAP_FRAMES 3   /* clean frames that end one discontinuity */

double audio_sample_get(const void *buf, enum audio_format format, unsigned int frame_bytes,
			uint64_t i)
{
	const unsigned char *p = (const unsigned char *)buf + i * frame_bytes;
	uint32_t u;
	float f;

	switch (format) {
	case AUDIO_FMT_S16_LE:
		return (double)(int16_t)(p[0] | p[1] << 8) / 32768.0;
	case AUDIO_FMT_S24_LE: /* 24 bits in the low bytes of 32 */
		u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
		return (double)((int32_t)(u << 8) >> 8) / 8388608.0;
	case AUDIO_FMT_S32_LE:
		u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		return (double)(int32_t)u / 2147483648.0;
	case AUDIO_FMT_FLOAT_LE:
		u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		memcpy(&f, &u, sizeof(f));
		return (double)f;
	case AUDIO_FMT_S24_3LE:
		u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
		return (double)((int32_t)(u << 8) >> 8) / 8388608.0;
	case AUDIO_FMT_U8:
	default:
		return ((double)p[0] - 128.0) / 128.0;
	}
}

/** bytes_of() - bytes of one sample in @format. */
static unsigned int bytes_of(enum audio_format format)
{
	static const unsigned char bytes[] = { 2, 4, 4, 4, 3, 1 }; /* enum audio_format's order */

	return (unsigned int)format < sizeof(bytes) ? bytes[format] : 1;
}

/** put_one() - @v (in [-1, 1]) into @p in @format, little-endian. */
static void put_one(unsigned char *p, enum audio_format format, double v)
{
	uint32_t u;
	float f = (float)v;

	switch (format) {
	case AUDIO_FMT_S16_LE:
		u = (uint32_t)(int32_t)lrint(v * 32767.0);
		break;
	case AUDIO_FMT_S24_LE:
	case AUDIO_FMT_S24_3LE:
		u = (uint32_t)(int32_t)lrint(v * 8388607.0);
		break;
	case AUDIO_FMT_S32_LE:
		u = (uint32_t)(int32_t)lrint(v * 2147483647.0);
		break;
	case AUDIO_FMT_FLOAT_LE:
		memcpy(&u, &f, sizeof(u));
		break;
	default: /* U8 */
		p[0] = (unsigned char)lrint(128.0 + v * 127.0);
		return;
	}
	for (unsigned int b = 0; b < bytes_of(format); b++)
		p[b] = (unsigned char)(u >> (8 * b)); /* S24_LE's fourth byte: the sign */
}

void audio_frame_put(void *buf, enum audio_format format, unsigned int channels, uint64_t i,
		     double v)
{
	unsigned char *p = (unsigned char *)buf + i * channels * bytes_of(format);

	for (unsigned int c = 0; c < channels; c++)
		put_one(p + c * bytes_of(format), format, v);
}

void audio_tone_init(struct audio_tone *tn, double freq_hz, unsigned int rate_hz)
{
	memset(tn, 0, sizeof(*tn));
	tn->freq_hz = freq_hz;
	tn->rate_hz = rate_hz;
	tn->cos2 = 2.0 * cos(2.0 * M_PI * freq_hz / rate_hz);
	tn->settle_frames = (uint64_t)ceil(rate_hz / freq_hz) + 2;
}

/** end_run() - close the current run's crossings into the totals. */
static void end_run(struct audio_tone *tn)
{
	if (tn->run_crossings >= 2) {
		tn->cycles += (double)(tn->run_crossings - 1);
		tn->cycle_frames += tn->last_cross - tn->first_cross;
	}
	tn->run_crossings = 0;
}

void audio_tone_restart(struct audio_tone *tn)
{
	end_run(tn);
	if (tn->since_start > tn->longest_run)
		tn->longest_run = tn->since_start;
	tn->have = 0;
	tn->armed = 0;
	tn->since_start = 0;
	tn->clean = TONE_RUN_GAP_FRAMES;
}

/** crossing() - a rising zero crossing between x1 (at @n - 1) and @x (at @n)? */
static void crossing(struct audio_tone *tn, double x)
{
	double at;

	if (x < -TONE_HYSTERESIS) {
		tn->armed = 1;
		return;
	}
	if (!tn->armed || x < 0.0 || !tn->have)
		return;
	tn->armed = 0;
	at = (double)tn->frames - 1.0 + -tn->x1 / (x - tn->x1);
	if (!tn->run_crossings)
		tn->first_cross = at;
	tn->last_cross = at;
	tn->run_crossings++;
}

/** jump() - does the residual at the middle of x2, x1, @x say the tone jumped? */
static void jump(struct audio_tone *tn, double x)
{
	double residual = fabs(x + tn->x2 - tn->cos2 * tn->x1);

	if (tn->have < 2 || tn->since_start < tn->settle_frames || tn->peak < TONE_HYSTERESIS)
		return;
	if (residual <= TONE_JUMP_OF_PEAK * tn->peak) {
		tn->clean++;
		return;
	}
	if (tn->clean >= TONE_RUN_GAP_FRAMES) {
		if (!tn->glitches)
			tn->first_glitch_frame = tn->frames - 1;
		tn->glitches++;
	}
	tn->clean = 0;
	/* Frames across a discontinuity do not measure the frequency: a
	 * dropout of zeros hides the crossings in it, so counting over it
	 * reads the tone low by those cycles (1 % for a 2-cycle dropout in a
	 * 200-cycle run). The run ends here, as at an xrun. */
	end_run(tn);
}

void audio_tone_feed(struct audio_tone *tn, const void *buf, enum audio_format format,
		     unsigned int frame_bytes, uint64_t frames)
{
	for (uint64_t i = 0; i < frames; i++) {
		double x = audio_sample_get(buf, format, frame_bytes, i);

		crossing(tn, x);
		jump(tn, x);
		if (fabs(x) > tn->peak)
			tn->peak = fabs(x);
		tn->sum_sq += x * x;
		tn->x2 = tn->x1;
		tn->x1 = x;
		tn->have += tn->have < 2;
		tn->frames++;
		tn->since_start++;
	}
}

double audio_tone_level_dbfs(const struct audio_tone *tn)
{
	return tn->frames ? 10.0 * log10(2.0 * tn->sum_sq / (double)tn->frames) : -INFINITY;
}

double audio_tone_freq_hz(struct audio_tone *tn)
{
	end_run(tn);
	return tn->cycle_frames > 0.0 ? tn->cycles / tn->cycle_frames * tn->rate_hz : NAN;
}

/*
 * Frames one stretch without a restart needs to hold two rising crossings
 * whatever the phase it starts at: two periods and the two samples around
 * a crossing.
 */
static uint64_t frames_to_judge(const struct audio_tone *tn)
{
	return 2 * (uint64_t)ceil(tn->rate_hz / tn->freq_hz) + 2;
}

int audio_tone_verdict(struct audio_tone *tn, double min_level_dbfs, double tolerance,
		       char *why, size_t size)
{
	double level = audio_tone_level_dbfs(tn), freq = audio_tone_freq_hz(tn);
	uint64_t longest = tn->since_start > tn->longest_run ? tn->since_start : tn->longest_run;

	if (!tn->frames)
		/* The body was kept from the device for the whole trial. */
		snprintf(why, size, "too short to check: nothing was captured; a tone of %g Hz "
			 "needs %llu frames", tn->freq_hz, (unsigned long long)frames_to_judge(tn));
	else if (!(level >= min_level_dbfs))
		snprintf(why, size, "the level is %.1f dBFS, below 'tone_level' (%.1f dBFS): silence "
			 "or a signal too weak to check", level, min_level_dbfs);
	else if (isnan(freq) && longest < frames_to_judge(tn))
		/* A body kept from the device for most of the trial (an xrun, a
		 * stall up to the trial's end) captured too little: that says
		 * nothing of the signal, and "no tone" would mislead. */
		snprintf(why, size, "too short to check: the longest capture without an xrun "
			 "was %llu frames (%llu in all); a tone of %g Hz needs %llu",
			 (unsigned long long)longest, (unsigned long long)tn->frames, tn->freq_hz,
			 (unsigned long long)frames_to_judge(tn));
	else if (isnan(freq))
		snprintf(why, size, "no tone: fewer than two zero crossings in %llu frames",
			 (unsigned long long)tn->frames);
	else if (fabs(freq - tn->freq_hz) > tolerance * tn->freq_hz)
		snprintf(why, size, "the frequency is %.2f Hz, not 'tone_freq' %.2f Hz within "
			 "'tone_tolerance' %g %%", freq, tn->freq_hz, tolerance * 100.0);
	else if (tn->glitches)
		snprintf(why, size, "%llu discontinuities (dropouts, repeated or lost samples), the "
			 "first at frame %llu (%.3f s into the trial's capture)",
			 (unsigned long long)tn->glitches, (unsigned long long)tn->first_glitch_frame,
			 (double)tn->first_glitch_frame / tn->rate_hz);
	else
		return 0;
	return -1;
}
