// SPDX-License-Identifier: MIT
/*
 * audio_stream.c - the trial body of audio.playback and audio.capture.
 *
 * One trial: prepare the PCM, fill the buffer with silence (playback, which
 * then starts on its own) or start it (capture), then, until the engine's
 * deadline, wait for a period, read the device's position, count the frames
 * it moved since the last wake-up and how late this wake-up is, and move
 * every whole period available. The frames counted are the device's
 * (hardware pointer) progress, not the application's transfers, so the
 * initial fill is not counted as played.
 *
 * Xruns: every -EPIPE (underrun/overrun) or -ESTRPIPE (suspend) from a
 * wait, a position read or a transfer is counted here, before
 * snd_pcm_recover() hides it; then the stream is restarted as at the trial's
 * start and the position count goes on from the restarted pointer.
 */
#include <alsa/asoundlib.h>
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "lib/audio/audio.h"
#include "lib/core/clock.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/sched_fifo.h"
#include "lib/core/util.h"

#define AUDIO_WAIT_MAX_MS 50 /* longest wait: cancel and the deadline are seen within it */
#define AUDIO_MAX_PFDS 16

/**
 * struct audio_pos - the stream's position within one start of the PCM.
 * @appl_frames: frames the body transferred since the (re)start.
 * @hw_frames:   the device's position when last counted.
 * @read_ns:     ep_now_ns() when the device was last seen moving (or started).
 * @counting:    the measured part has begun and @hw_frames is its baseline.
 */
struct audio_pos {
	uint64_t appl_frames;
	uint64_t hw_frames;
	uint64_t read_ns;
	int counting;
};

/**
 * transfer() - move @frames frames between the state's buffer and the PCM.
 * Return: frames moved, or a negative errno (-EAGAIN in poll mode).
 */
static snd_pcm_sframes_t transfer(struct audio_state *st, snd_pcm_uframes_t frames)
{
	if (st->capture)
		return st->access == AUDIO_ACCESS_MMAP ? snd_pcm_mmap_readi(st->pcm, st->buf, frames)
						       : snd_pcm_readi(st->pcm, st->buf, frames);
	return st->access == AUDIO_ACCESS_MMAP ? snd_pcm_mmap_writei(st->pcm, st->buf, frames)
					       : snd_pcm_writei(st->pcm, st->buf, frames);
}

/**
 * stream_start() - prepare the PCM and start it: playback by filling the
 * buffer with silence (the start threshold is the buffer), capture by
 * snd_pcm_start().
 * Return: 0 or a negative errno.
 */
static int stream_start(struct audio_state *st, struct audio_pos *pos)
{
	int rc = snd_pcm_prepare(st->pcm);

	pos->appl_frames = 0;
	pos->hw_frames = 0;
	if (st->check_tone)
		audio_tone_restart(&st->tone);
	if (rc < 0)
		return rc;
	if (st->capture)
		return snd_pcm_start(st->pcm);
	while (pos->appl_frames < st->buffer_frames) {
		snd_pcm_sframes_t n = transfer(st, st->buffer_frames - pos->appl_frames);

		if (n < 0)
			return (int)n;
		pos->appl_frames += (uint64_t)n;
	}
	return 0;
}

/** wait_ms() - how long one wait may last: AUDIO_WAIT_MAX_MS, or up to the trial's end. */
static int wait_ms(const struct ep_trial *t)
{
	uint64_t end_ns = ep_trial_end_ns(t), now_ns = ep_now_ns();
	uint64_t left_ms = end_ns > now_ns ? (end_ns - now_ns) / 1000000 + 1 : 1;

	return end_ns && left_ms < AUDIO_WAIT_MAX_MS ? (int)left_ms : AUDIO_WAIT_MAX_MS;
}

/**
 * poll_period() - mode=poll: poll() the PCM's descriptors.
 * Return: 1 when a period is ready, 0 on timeout, a negative errno (-EPIPE
 * on an xrun).
 */
static int poll_period(struct audio_state *st, int timeout_ms)
{
	struct pollfd pfds[AUDIO_MAX_PFDS];
	int n = snd_pcm_poll_descriptors(st->pcm, pfds, AUDIO_MAX_PFDS), rc;
	unsigned short revents = 0;

	if (n < 0)
		return n;
	rc = poll(pfds, (nfds_t)n, timeout_ms);
	if (rc <= 0)
		return rc < 0 && errno != EINTR ? -errno : 0;
	rc = snd_pcm_poll_descriptors_revents(st->pcm, pfds, (unsigned int)n, &revents);
	if (rc < 0)
		return rc;
	if (revents & POLLERR) {
		snd_pcm_state_t s = snd_pcm_state(st->pcm);

		return s == SND_PCM_STATE_XRUN ? -EPIPE
		       : s == SND_PCM_STATE_SUSPENDED ? -ESTRPIPE : -EIO;
	}
	return (revents & (POLLIN | POLLOUT)) ? 1 : 0;
}

/**
 * wait_period() - wait until a period can be moved, or the wait's limit.
 * Return: 1 ready, 0 timeout, or a negative errno.
 */
static int wait_period(struct audio_state *st, const struct ep_trial *t)
{
	int timeout_ms = wait_ms(t);

	if (st->mode == AUDIO_MODE_POLL)
		return poll_period(st, timeout_ms);
	return snd_pcm_wait(st->pcm, timeout_ms);
}

/* hw_position() - the device's position in frames, from @avail_frames. */
static uint64_t hw_position(const struct audio_state *st, const struct audio_pos *pos,
			    uint64_t avail_frames)
{
	return st->capture ? pos->appl_frames + avail_frames
			   : pos->appl_frames + avail_frames - st->buffer_frames;
}

/**
 * count_position() - count the frames the device moved since the last
 * count, from @avail_frames (free room for playback, frames to read for
 * capture), and this wake-up's lateness: how long ago the period was
 * complete, from the frames beyond it.
 */
static void count_position(struct audio_state *st, struct ep_tally *ta, struct audio_pos *pos,
			   uint64_t avail_frames, int woke)
{
	uint64_t hw = hw_position(st, pos, avail_frames);

	if (hw > pos->hw_frames) {
		if (pos->counting)
			ep_tally_add(ta, hw - pos->hw_frames, (hw - pos->hw_frames) * st->frame_bytes);
		pos->read_ns = ep_now_ns();
	}
	pos->hw_frames = hw;
	pos->counting = 1;
	if (woke && avail_frames >= st->period_frames)
		ep_tally_latency(ta, (avail_frames - st->period_frames) * 1000000000ULL / st->rate_hz);
}

/**
 * recover() - count an xrun (or suspend) and restart the stream; count the
 * time from when the device was last seen moving to the restart (xrun_time).
 * Return: 0 when @err was one and the stream runs again, else @err or the
 * recovery's error.
 */
static int recover(struct audio_state *st, struct ep_tally *ta, struct audio_pos *pos, int err)
{
	uint64_t now_ns;
	int rc;

	if (err == -EAGAIN)
		return 0;
	if (err != -EPIPE && err != -ESTRPIPE)
		return err;
	ep_tally_count(ta, AUDIO_C_XRUNS, 1);
	rc = snd_pcm_recover(st->pcm, err, 1);
	if (rc >= 0)
		rc = stream_start(st, pos);
	now_ns = ep_now_ns();
	ep_tally_count(ta, AUDIO_C_XRUN_TIME, (double)(now_ns - pos->read_ns) / 1000.0);
	pos->read_ns = now_ns;
	return rc < 0 ? rc : 0;
}

/**
 * stream_step() - one wake-up: wait, count the position, move every whole
 * period available.
 * Return: 0 or a negative errno that is not an xrun.
 */
static int stream_step(struct audio_state *st, const struct ep_trial *t, struct ep_tally *ta,
		       struct audio_pos *pos)
{
	int woke = wait_period(st, t);
	snd_pcm_sframes_t avail, n;

	if (woke < 0)
		return recover(st, ta, pos, woke);
	avail = snd_pcm_avail(st->pcm);
	if (avail < 0)
		return recover(st, ta, pos, (int)avail);
	count_position(st, ta, pos, (uint64_t)avail, woke);
	avail -= avail % (snd_pcm_sframes_t)st->period_frames;
	if (!avail)
		return 0;
	if ((snd_pcm_uframes_t)avail > st->buffer_frames)
		avail = (snd_pcm_sframes_t)st->buffer_frames;
	n = transfer(st, (snd_pcm_uframes_t)avail);
	if (n < 0)
		return recover(st, ta, pos, (int)n);
	if (st->check_tone)
		audio_tone_feed(&st->tone, st->buf, st->format, st->frame_bytes, (uint64_t)n);
	pos->appl_frames += (uint64_t)n;
	return 0;
}

/**
 * resync() - at the measured part's start (after a ramp): take the device's
 * position as the baseline, counting nothing.
 * Return: 0 or a negative errno that is not an xrun.
 */
static int resync(struct audio_state *st, struct ep_tally *ta, struct audio_pos *pos)
{
	snd_pcm_sframes_t avail = snd_pcm_avail(st->pcm);

	pos->counting = 0;
	if (avail < 0)
		return recover(st, ta, pos, (int)avail);
	count_position(st, ta, pos, (uint64_t)avail, 0);
	return 0;
}

/**
 * check_tone() - check=tone: after a trial, is what was captured the tone?
 * Return: 0, or -EBADMSG with a message saying what was wrong.
 */
static int check_tone(struct audio_state *st, const struct ep_trial *t)
{
	char why[256];

	if (!audio_tone_verdict(&st->tone, st->tone_level_dbfs, st->tone_tolerance, why,
				sizeof(why)))
		return 0;
	return ep_run_fail(st->run, -EBADMSG, "parameter 'check': value 'tone': device '%s', "
			   "trial %d: %s; accepted: a clean tone of %s Hz on the first channel",
			   st->device, ep_trial_index(t) + 1, why,
			   ep_param_text(st->run, "tone_freq"));
}

/**
 * count_final() - once the trial has ended: the frames the device moved
 * since the last wake-up's count. The trial's time runs until the loop saw
 * the deadline, and a wake-up that comes late (the thread preempted near the
 * end) puts that well past the last count: without this, those frames were
 * missing from the time (a capture read 46 207 frames/s of 48 000 with no
 * xrun on a busy machine). An xrun in that gap counts nothing.
 */
static void count_final(struct audio_state *st, struct ep_tally *ta, const struct audio_pos *pos)
{
	snd_pcm_sframes_t avail = snd_pcm_avail(st->pcm);
	uint64_t hw;

	if (avail < 0 || !pos->counting)
		return;
	hw = hw_position(st, pos, (uint64_t)avail);
	if (hw > pos->hw_frames)
		ep_tally_add_after(ta, hw - pos->hw_frames, (hw - pos->hw_frames) * st->frame_bytes);
}

/**
 * stream_trial() - start the stream and step it until the engine says stop.
 * Return: 0 or a negative errno.
 */
static int stream_trial(struct audio_state *st, struct ep_trial *t)
{
	struct ep_tally *ta = ep_trial_tally(t);
	struct audio_pos pos = { 0 };
	int rc;

	if (st->check_tone)
		audio_tone_init(&st->tone, ep_param_double(st->run, "tone_freq"), st->rate_hz);
	rc = stream_start(st, &pos);
	/* Without a ramp the trial's clock started before the prepare and the
	 * fill; the frames are counted from here. */
	ep_trial_started(t);
	pos.read_ns = ep_now_ns();
	while (!rc && ep_trial_running(t)) {
		if (!pos.counting && ep_trial_start_ns(t))
			rc = resync(st, ta, &pos);
		if (!rc)
			rc = stream_step(st, t, ta, &pos);
	}
	if (!rc)
		count_final(st, ta, &pos);
	snd_pcm_drop(st->pcm);
	if (rc < 0)
		return ep_run_fail(st->run, rc, "device '%s': streaming failed: %s",
				   st->device, snd_strerror(rc));
	return st->check_tone ? check_tone(st, t) : 0;
}

int audio_body(void *arg, struct ep_trial *t)
{
	struct audio_state *st = arg;
	struct ep_sched_saved saved;
	int rc = ep_sched_enter(st->priority, &saved);

	if (rc)
		return ep_run_fail(st->run, rc, "parameter 'priority': value '%d': %s",
				   st->priority, strerror(-rc));
	rc = stream_trial(st, t);
	ep_sched_leave(&saved);
	return rc;
}

long audio_transfer(struct audio_state *st, unsigned long frames)
{
	return transfer(st, frames);
}

int audio_wait_period(struct audio_state *st, const struct ep_trial *t)
{
	return wait_period(st, t);
}
