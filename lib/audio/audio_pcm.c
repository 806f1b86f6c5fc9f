// SPDX-License-Identifier: MIT
/*
 * audio_pcm.c - open an alsa-lib PCM for audio.playback/audio.capture and
 * negotiate its parameters. Format and channels must be exactly what was
 * asked; rate, period and buffer are the device's nearest, and the case's
 * labels carry what was negotiated (a log message at warning level says
 * when it differs from what was asked). Each refusal names the parameter,
 * the value and what the device accepts, read from its hardware parameters.
 */
#include <alsa/asoundlib.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/audio/audio.h"
#include "lib/core/run.h"
#include "lib/core/util.h"

#define AUDIO_DEFAULT_BUFFER_NS 20000000ULL /* 'buffer=0': whole periods nearest 20 ms */

/* In the order of the 'format' parameter's choices. */
static const snd_pcm_format_t audio_formats[] = {
	SND_PCM_FORMAT_S16_LE, SND_PCM_FORMAT_S24_LE, SND_PCM_FORMAT_S32_LE,
	SND_PCM_FORMAT_FLOAT_LE, SND_PCM_FORMAT_S24_3LE, SND_PCM_FORMAT_U8,
};

/**
 * accepted_formats() - the formats of @hw the device offers, "S16_LE S32_LE".
 */
static void accepted_formats(snd_pcm_t *pcm, snd_pcm_hw_params_t *hw, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < EP_ARRAY_SIZE(audio_formats) && len < size; i++) {
		if (snd_pcm_hw_params_test_format(pcm, hw, audio_formats[i]))
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "",
					snd_pcm_format_name(audio_formats[i]));
	}
	if (!buf[0])
		snprintf(buf, size, "none of %s", "S16_LE S24_LE S32_LE FLOAT_LE S24_3LE U8");
}

/**
 * set_format() - the asked format, exactly.
 * Return: 0, or an error naming the formats the device offers.
 */
static int set_format(struct ep_run *run, struct audio_state *st, snd_pcm_hw_params_t *hw)
{
	snd_pcm_t *pcm = st->pcm;
	snd_pcm_format_t fmt = audio_formats[ep_param_int(run, "format")];
	char list[128];
	int err = snd_pcm_hw_params_set_format(pcm, hw, fmt);

	if (!err)
		return 0;
	accepted_formats(pcm, hw, list, sizeof(list));
	return ep_run_fail(run, -EINVAL, "parameter 'format': value '%s' is refused by device '%s'; "
			   "accepted: %s", snd_pcm_format_name(fmt), st->device,
			   list);
}

/**
 * set_channels() - the asked channel count, exactly.
 * Return: 0, or an error naming the device's range.
 */
static int set_channels(struct ep_run *run, struct audio_state *st, snd_pcm_hw_params_t *hw)
{
	snd_pcm_t *pcm = st->pcm;
	unsigned int want = (unsigned int)ep_param_int(run, "channels"), lo = 0, hi = 0;

	if (!snd_pcm_hw_params_set_channels(pcm, hw, want))
		return 0;
	snd_pcm_hw_params_get_channels_min(hw, &lo);
	snd_pcm_hw_params_get_channels_max(hw, &hi);
	return ep_run_fail(run, -EINVAL, "parameter 'channels': value '%u' is refused by device "
			   "'%s'; accepted: %u..%u", want, st->device, lo, hi);
}

/**
 * set_rate() - the device's rate nearest the asked one, refused outside the
 * device's range; resampling in alsa-lib's plug layers is left as configured.
 * Return: 0, or an error naming the device's range.
 */
static int set_rate(struct ep_run *run, struct audio_state *st, snd_pcm_hw_params_t *hw,
		    unsigned int *rate_hz)
{
	snd_pcm_t *pcm = st->pcm;
	unsigned int want = (unsigned int)ep_param_int(run, "rate"), lo = 0, hi = 0;
	int dir = 0;

	snd_pcm_hw_params_get_rate_min(hw, &lo, &dir);
	snd_pcm_hw_params_get_rate_max(hw, &hi, &dir);
	*rate_hz = want;
	if (want >= lo && want <= hi && !snd_pcm_hw_params_set_rate_near(pcm, hw, rate_hz, &dir))
		return 0;
	return ep_run_fail(run, -EINVAL, "parameter 'rate': value '%u' is refused by device '%s'; "
			   "accepted: %u..%u Hz", want, st->device, lo, hi);
}

/**
 * buffer_wanted() - 'buffer' in frames; 0 gives the whole periods nearest
 * AUDIO_DEFAULT_BUFFER_NS, at least two.
 */
static unsigned long buffer_wanted(struct ep_run *run, unsigned int rate_hz,
				   unsigned long period_frames)
{
	unsigned long want = (unsigned long)ep_param_int(run, "buffer"), periods;

	if (want)
		return want;
	want = (unsigned long)(AUDIO_DEFAULT_BUFFER_NS * rate_hz / 1000000000ULL);
	periods = (want + period_frames / 2) / period_frames;
	return (periods < 2 ? 2 : periods) * period_frames;
}

/**
 * set_period_buffer() - period, then buffer, each the device's nearest.
 * Return: 0, or an error naming the parameter and the device's range.
 */
static int set_period_buffer(struct ep_run *run, struct audio_state *st, snd_pcm_hw_params_t *hw)
{
	snd_pcm_uframes_t period = (snd_pcm_uframes_t)ep_param_int(run, "period"), buffer;
	snd_pcm_uframes_t asked_buffer = (snd_pcm_uframes_t)ep_param_int(run, "buffer");
	snd_pcm_uframes_t lo = 0, hi = 0;
	int dir = 0;

	if (asked_buffer && asked_buffer < 2 * period)
		return ep_run_fail(run, -EINVAL, "parameter 'period': value '%lu' is above half of "
				   "'buffer' (%lu frames); accepted: period <= buffer / 2",
				   (unsigned long)period, (unsigned long)asked_buffer);
	if (snd_pcm_hw_params_set_period_size_near(st->pcm, hw, &period, &dir)) {
		snd_pcm_hw_params_get_period_size_min(hw, &lo, &dir);
		snd_pcm_hw_params_get_period_size_max(hw, &hi, &dir);
		return ep_run_refuse(run, -EINVAL, "period", " is refused by device '%s'; "
				     "accepted: %lu..%lu frames", st->device, (unsigned long)lo,
				     (unsigned long)hi);
	}
	buffer = buffer_wanted(run, st->rate_hz, period);
	if (!snd_pcm_hw_params_set_buffer_size_near(st->pcm, hw, &buffer))
		return 0;
	snd_pcm_hw_params_get_buffer_size_min(hw, &lo);
	snd_pcm_hw_params_get_buffer_size_max(hw, &hi);
	return ep_run_fail(run, -EINVAL, "parameter 'buffer': value '%lu' frames is refused by "
			   "device '%s' with period %lu; accepted: %lu..%lu frames",
			   (unsigned long)buffer, st->device, (unsigned long)period,
			   (unsigned long)lo, (unsigned long)hi);
}

/**
 * set_access() - interleaved read/write or mmap access.
 * Return: 0, or an error naming the parameter.
 */
static int set_access(struct ep_run *run, struct audio_state *st, snd_pcm_hw_params_t *hw)
{
	snd_pcm_access_t acc = st->access == AUDIO_ACCESS_MMAP ? SND_PCM_ACCESS_MMAP_INTERLEAVED
							      : SND_PCM_ACCESS_RW_INTERLEAVED;

	if (!snd_pcm_hw_params_set_access(st->pcm, hw, acc))
		return 0;
	return ep_run_refuse(run, -EINVAL, "access", " is refused by device '%s' (interleaved "
			     "only); accepted: %s", st->device,
			     st->access == AUDIO_ACCESS_MMAP ? "rw" : "mmap");
}

/**
 * read_negotiated() - what the device gave, into @st.
 */
static void read_negotiated(struct audio_state *st, snd_pcm_hw_params_t *hw)
{
	snd_pcm_uframes_t period = 0, buffer = 0;
	snd_pcm_format_t fmt = SND_PCM_FORMAT_S16_LE;
	int dir = 0;

	snd_pcm_hw_params_get_rate(hw, &st->rate_hz, &dir);
	snd_pcm_hw_params_get_channels(hw, &st->channels);
	snd_pcm_hw_params_get_period_size(hw, &period, &dir);
	snd_pcm_hw_params_get_buffer_size(hw, &buffer);
	snd_pcm_hw_params_get_format(hw, &fmt);
	st->period_frames = period;
	st->buffer_frames = buffer;
	st->sample_bits = (unsigned int)snd_pcm_format_physical_width(fmt);
	st->frame_bytes = st->sample_bits / 8 * st->channels;
}

/**
 * set_hw_params() - negotiate and install the hardware parameters.
 * Return: 0, or an error naming the parameter.
 */
static int set_hw_params(struct ep_run *run, struct audio_state *st)
{
	snd_pcm_hw_params_t *hw;
	int rc;

	snd_pcm_hw_params_alloca(&hw);
	rc = snd_pcm_hw_params_any(st->pcm, hw);
	if (rc < 0)
		return ep_run_fail(run, rc, "device '%s': cannot read its hardware parameters: %s",
				   st->device, snd_strerror(rc));
	rc = set_access(run, st, hw);
	if (!rc)
		rc = set_format(run, st, hw);
	if (!rc)
		rc = set_channels(run, st, hw);
	if (!rc)
		rc = set_rate(run, st, hw, &st->rate_hz);
	if (!rc)
		rc = set_period_buffer(run, st, hw);
	if (rc)
		return rc;
	rc = snd_pcm_hw_params(st->pcm, hw);
	if (rc < 0)
		return ep_run_fail(run, rc, "device '%s': the hardware parameters were refused: %s",
				   st->device, snd_strerror(rc));
	read_negotiated(st, hw);
	return 0;
}

/**
 * set_sw_params() - wake up per period; playback starts when the buffer is
 * full, capture when the body starts it; xruns stop the stream (so that
 * the body sees and counts them).
 * Return: 0, or an error naming the device.
 */
static int set_sw_params(struct ep_run *run, struct audio_state *st)
{
	snd_pcm_sw_params_t *sw;
	snd_pcm_uframes_t start = st->capture ? 1 : st->buffer_frames;
	int rc;

	snd_pcm_sw_params_alloca(&sw);
	rc = snd_pcm_sw_params_current(st->pcm, sw);
	if (!rc)
		rc = snd_pcm_sw_params_set_avail_min(st->pcm, sw, st->period_frames);
	if (!rc)
		rc = snd_pcm_sw_params_set_start_threshold(st->pcm, sw, start);
	if (!rc)
		rc = snd_pcm_sw_params_set_stop_threshold(st->pcm, sw, st->buffer_frames);
	if (!rc)
		rc = snd_pcm_sw_params(st->pcm, sw);
	if (rc < 0)
		return ep_run_fail(run, rc, "device '%s': the software parameters were refused: %s",
				   st->device, snd_strerror(rc));
	return 0;
}

/**
 * open_device() - open 'device' (through the tests' opener when one is
 * linked in and knows the name).
 * Return: 0, or an error naming the device and the direction.
 */
static int open_device(struct ep_run *run, struct audio_state *st)
{
	const char *name = st->device;
	snd_pcm_stream_t dir = st->capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK;
	int mode = st->mode == AUDIO_MODE_POLL ? SND_PCM_NONBLOCK : 0;
	int rc = -ENOENT;

	if (ep_audio_test_pcm_open)
		rc = ep_audio_test_pcm_open(&st->pcm, name, st->capture, mode);
	if (rc == -ENOENT)
		rc = snd_pcm_open(&st->pcm, name, dir, mode);
	if (rc >= 0)
		return 0;
	st->pcm = NULL;
	return ep_run_fail(run, rc, "parameter '%s': value '%s': cannot open it for %s: %s; "
			   "accepted: an alsa-lib PCM name (hw:CARD,DEV, plughw:..., default, a PCM "
			   "of the ALSA configuration) that can %s%s", st->device_param, name,
			   st->capture ? "capture" : "playback", snd_strerror(rc),
			   st->capture ? "capture" : "play", st->open_hint ? st->open_hint : "");
}

/** make_label() - the case's labels: what was negotiated. */
static void make_label(struct ep_run *run, struct audio_state *st)
{
	snprintf(st->label, sizeof(st->label),
		 "device=%s rate=%u channels=%u format=%s period=%lu buffer=%lu access=%s mode=%s",
		 st->device, st->rate_hz, st->channels,
		 ep_param_text(run, "format"), st->period_frames, st->buffer_frames,
		 ep_param_text(run, "access"), ep_param_text(run, "mode"));
	if (st->check_tone)
		snprintf(st->label + strlen(st->label), sizeof(st->label) - strlen(st->label),
			 " check=tone tone_freq=%s", ep_param_text(run, "tone_freq"));
}

/** log_changes() - a warning naming each value the device changed. */
static void log_changes(struct ep_run *run, const struct audio_state *st)
{
	unsigned long rate = (unsigned long)ep_param_int(run, "rate");
	unsigned long period = (unsigned long)ep_param_int(run, "period");
	unsigned long buffer = (unsigned long)ep_param_int(run, "buffer");

	if (rate != st->rate_hz || period != st->period_frames ||
	    (buffer && buffer != st->buffer_frames))
		ep_run_log(run, EMBPERF_LOG_WARNING,
			   "device '%s' gave rate=%u period=%lu buffer=%lu for rate=%lu period=%lu "
			   "buffer=%lu", st->device, st->rate_hz,
			   st->period_frames, st->buffer_frames, rate, period, buffer);
}

int audio_pcm_open(struct ep_run *run, struct audio_state *st)
{
	int rc = open_device(run, st);

	if (!rc)
		rc = set_hw_params(run, st);
	if (!rc)
		rc = set_sw_params(run, st);
	if (rc)
		return rc;
	st->buf = calloc(st->buffer_frames, st->frame_bytes);
	if (!st->buf)
		return -ENOMEM;
	snd_pcm_format_set_silence(audio_formats[ep_param_int(run, "format")], st->buf,
				   (unsigned int)(st->buffer_frames * st->channels));
	make_label(run, st);
	log_changes(run, st);
	return 0;
}

void audio_pcm_close(struct audio_state *st)
{
	if (!st->pcm)
		return;
	snd_pcm_drop(st->pcm);
	snd_pcm_close(st->pcm);
	st->pcm = NULL;
}
