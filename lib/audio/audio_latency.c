// SPDX-License-Identifier: MIT
/*
 * audio_latency.c - audio.latency: the round-trip latency of a loopback
 * (snd-aloop's hw:Loopback,0,N to hw:Loopback,1,N, or an output cabled to
 * an input on a board).
 *
 * One thread streams both ends: it waits for a capture period, reads every
 * whole period captured and looks for markers in it, then tops the playback
 * buffer up. The playback carries silence and, every 'interval', a marker:
 * 4 frames at +0.5 then 4 at -0.5 of full scale (-6 dBFS) on every channel.
 * A captured sample whose magnitude reaches 'threshold' is a marker's
 * arrival (the next one is looked for half an interval later).
 *
 * Both times come from the devices' own positions, on one clock: at every
 * wake-up the body reads each end's hardware position (from avail) between
 * two clock reads, and keeps the reading as that end's anchor (time,
 * position). A marker written at playback position P leaves the buffer at
 * anchor time + (P - anchor position) / rate; one found at capture position
 * C entered it at anchor time - (anchor position - C) / rate. Their
 * difference is the latency: the loop's own (DAC, cable, ADC, or the
 * loopback driver), without the application's buffering. Its resolution is
 * the devices' pointer granularity (a period on many DMA-driven cards).
 * 'roundtrip' adds the buffering the application sees: from snd_pcm_writei()
 * returning with the marker to snd_pcm_readi() returning with it.
 *
 * Markers are matched in order; one not back within 'interval' is lost. An
 * xrun on either end restarts both, and the markers in flight are dropped.
 */
#include <alsa/asoundlib.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/audio/audio.h"
#include "lib/core/clock.h"
#include "lib/core/run.h"
#include "lib/core/trial.h"
#include "lib/core/sched_fifo.h"
#include "lib/core/util.h"

#define LAT_MARKER_FRAMES 8
#define LAT_MARKER_LEVEL 0.5
#define LAT_MAX_PENDING 64
#define LAT_ANCHOR_TRIES 3
#define LAT_ANCHOR_SLACK_NS 100000 /* a position read inside 100 us is one instant */

enum { LAT_C_LOST, LAT_C_XRUNS };

/** struct lat_anchor - an end's hardware position and when it was read. */
struct lat_anchor {
	uint64_t pos;
	uint64_t ns;
};

/** struct lat_marker - a marker in flight: when it left the playback buffer, when written. */
struct lat_marker {
	double played_ns;
	uint64_t written_ns;
};

/**
 * struct lat_state - one run of audio.latency.
 * @pb, @cap:        the two ends (audio_pcm.c opens each).
 * @interval_frames: frames between two markers' starts.
 * @threshold:       linear level of an arrival.
 * @pb_pos, @cap_pos: frames written / read since the ends (re)started.
 * @rearm_pos:       capture position from which an arrival is looked for again.
 * @pb_at, @cap_at:  the ends' anchors.
 * @q, @q_head, @q_n: markers in flight, oldest at @q_head.
 * @found:           markers back in this trial (also in the ramp).
 * @expired:         markers of this trial not back within an interval.
 * @rt_sum_ns, @rt_n: this trial's measured round trips.
 * @label:           the case's labels.
 */
struct lat_state {
	struct ep_run *run;
	struct audio_state pb, cap;
	uint64_t interval_frames;
	double threshold;
	uint64_t pb_pos, cap_pos;
	uint64_t rearm_pos;
	struct lat_anchor pb_at, cap_at;
	struct lat_marker q[LAT_MAX_PENDING];
	int q_head, q_n;
	uint64_t found;
	uint64_t expired;
	double rt_sum_ns;
	uint64_t rt_n;
	char label[2 * AUDIO_LABEL_MAX];
};

/**
 * read_anchor() - @st's hardware position (@capture: frames read + avail;
 * playback: frames written + avail - buffer) with the instant it held: the
 * midpoint of two clock reads around snd_pcm_avail(), retried when they are
 * far apart (the thread was preempted in between).
 * Return: the whole periods of avail, at most the buffer (what one step
 * moves), or a negative errno.
 */
static long read_anchor(struct audio_state *st, uint64_t appl, struct lat_anchor *at)
{
	long avail = 0;

	for (int i = 0; i < LAT_ANCHOR_TRIES; i++) {
		uint64_t before = ep_now_ns(), after;

		avail = snd_pcm_avail(st->pcm);
		after = ep_now_ns();
		if (avail < 0)
			return avail;
		at->ns = before + (after - before) / 2;
		if (after - before <= LAT_ANCHOR_SLACK_NS)
			break;
	}
	at->pos = st->capture ? appl + (uint64_t)avail
			      : appl + (uint64_t)avail - st->buffer_frames;
	avail -= avail % (long)st->period_frames;
	return avail > (long)st->buffer_frames ? (long)st->buffer_frames : avail;
}

/*
 * Markers start at playback positions buffer + k x interval (k >= 0): the
 * first one after the buffer filled with silence at the start.
 */

/** marker_offset() - where position @pos is in its interval (-1: before the first marker). */
static int64_t marker_offset(const struct lat_state *ls, uint64_t pos)
{
	uint64_t first = ls->pb.buffer_frames;

	return pos < first ? -1 : (int64_t)((pos - first) % ls->interval_frames);
}

/** marker_value() - the playback sample at position @pos: a marker's, or silence. */
static double marker_value(const struct lat_state *ls, uint64_t pos)
{
	int64_t in = marker_offset(ls, pos);

	if (in < 0 || in >= LAT_MARKER_FRAMES)
		return 0.0;
	return in < LAT_MARKER_FRAMES / 2 ? LAT_MARKER_LEVEL : -LAT_MARKER_LEVEL;
}

/** fill() - @frames frames of playback from position ls->pb_pos into the playback buffer. */
static void fill(struct lat_state *ls, uint64_t frames)
{
	struct audio_state *pb = &ls->pb;

	for (uint64_t i = 0; i < frames; i++)
		audio_frame_put(pb->buf, pb->format, pb->channels, i,
				marker_value(ls, ls->pb_pos + i));
}

/**
 * queue_written() - the markers that start among the @frames frames just
 * written from ls->pb_pos go in flight: when each will leave the buffer
 * (from the playback anchor) and when it was written (@now_ns).
 */
static void queue_written(struct lat_state *ls, uint64_t frames, uint64_t now_ns)
{
	for (uint64_t pos = ls->pb_pos; pos < ls->pb_pos + frames; pos++) {
		struct lat_marker *m;

		if (marker_offset(ls, pos) != 0 || ls->q_n == LAT_MAX_PENDING)
			continue;
		m = &ls->q[(ls->q_head + ls->q_n++) % LAT_MAX_PENDING];
		m->played_ns = (double)ls->pb_at.ns +
			       ((double)pos - (double)ls->pb_at.pos) * 1e9 / ls->pb.rate_hz;
		m->written_ns = now_ns;
	}
}

/**
 * start_ends() - (re)start both ends: prepare, the playback buffer filled
 * with silence (it starts when full), the capture started; no marker in
 * flight. Return: 0 or a negative errno.
 */
static int start_ends(struct lat_state *ls)
{
	struct audio_state *pb = &ls->pb;
	int rc = snd_pcm_prepare(pb->pcm);

	if (rc >= 0)
		rc = snd_pcm_prepare(ls->cap.pcm);
	if (rc < 0)
		return rc;
	ls->pb_pos = 0;
	ls->cap_pos = 0;
	ls->q_n = 0;
	ls->rearm_pos = 0;
	fill(ls, pb->buffer_frames);
	while (ls->pb_pos < pb->buffer_frames) {
		long n = audio_transfer(pb, pb->buffer_frames - ls->pb_pos);

		if (n < 0)
			return (int)n;
		ls->pb_pos += (uint64_t)n;
	}
	return snd_pcm_start(ls->cap.pcm);
}

/** expire() - markers in flight longer than an interval are lost. */
static void expire(struct lat_state *ls, struct ep_tally *ta, uint64_t now_ns)
{
	double limit_ns = (double)ls->interval_frames * 1e9 / ls->pb.rate_hz;

	while (ls->q_n && (double)now_ns - ls->q[ls->q_head].played_ns > limit_ns) {
		ls->q_head = (ls->q_head + 1) % LAT_MAX_PENDING;
		ls->q_n--;
		ls->expired++;
		ep_tally_count(ta, LAT_C_LOST, 1);
	}
}

/**
 * arrived() - a marker's arrival at capture position @pos: match it with the
 * oldest marker in flight and count its latency and round trip.
 */
static void arrived(struct lat_state *ls, struct ep_trial *t, uint64_t pos, uint64_t read_ns)
{
	double entered_ns = (double)ls->cap_at.ns -
			    ((double)ls->cap_at.pos - (double)pos) * 1e9 / ls->cap.rate_hz;
	struct lat_marker *m;
	double lat_ns;

	ls->rearm_pos = pos + ls->interval_frames / 2;
	if (!ls->q_n)
		return; /* nothing in flight: noise, or a marker from before a restart */
	m = &ls->q[ls->q_head];
	ls->q_head = (ls->q_head + 1) % LAT_MAX_PENDING;
	ls->q_n--;
	ls->found++;
	lat_ns = entered_ns - m->played_ns;
	ep_tally_latency(ep_trial_tally(t), lat_ns > 0 ? (uint64_t)lat_ns : 0);
	ep_tally_add(ep_trial_tally(t), 1, 0);
	if (ep_trial_start_ns(t) && read_ns < ep_trial_end_ns(t)) {
		ls->rt_sum_ns += (double)(read_ns - m->written_ns);
		ls->rt_n++;
	}
}

/** scan() - look for arrivals in the @frames frames just read. */
static void scan(struct lat_state *ls, struct ep_trial *t, uint64_t frames, uint64_t read_ns)
{
	struct audio_state *cap = &ls->cap;

	for (uint64_t i = 0; i < frames; i++) {
		uint64_t pos = ls->cap_pos + i;

		if (pos < ls->rearm_pos)
			continue;
		if (fabs(audio_sample_get(cap->buf, cap->format, cap->frame_bytes, i)) >=
		    ls->threshold)
			arrived(ls, t, pos, read_ns);
	}
}

/** capture_step() - read every whole period captured, looking for arrivals. */
static int capture_step(struct lat_state *ls, struct ep_trial *t)
{
	struct audio_state *cap = &ls->cap;
	long avail = read_anchor(cap, ls->cap_pos, &ls->cap_at), n;

	if (avail <= 0)
		return (int)avail;
	n = audio_transfer(cap, (unsigned long)avail);
	if (n < 0)
		return n == -EAGAIN ? 0 : (int)n;
	scan(ls, t, (uint64_t)n, ep_now_ns());
	ls->cap_pos += (uint64_t)n;
	return 0;
}

/** playback_step() - top the playback buffer up with whole periods. */
static int playback_step(struct lat_state *ls)
{
	struct audio_state *pb = &ls->pb;
	long avail = read_anchor(pb, ls->pb_pos, &ls->pb_at), n;

	if (avail <= 0)
		return (int)avail;
	fill(ls, (uint64_t)avail);
	n = audio_transfer(pb, (unsigned long)avail);
	if (n < 0)
		return n == -EAGAIN ? 0 : (int)n;
	queue_written(ls, (uint64_t)n, ep_now_ns()); /* frames not taken are filled again */
	ls->pb_pos += (uint64_t)n;
	return 0;
}

/**
 * step() - one wake-up: wait for a capture period, read, write; an xrun on
 * either end is counted and both restart.
 * Return: 0 or a negative errno that is not an xrun.
 */
static int step(struct lat_state *ls, struct ep_trial *t)
{
	int rc = audio_wait_period(&ls->cap, t);

	if (rc >= 0)
		rc = capture_step(ls, t);
	if (rc >= 0)
		rc = playback_step(ls);
	expire(ls, ep_trial_tally(t), ep_now_ns());
	if (rc != -EPIPE && rc != -ESTRPIPE)
		return rc < 0 ? rc : 0;
	ep_tally_count(ep_trial_tally(t), LAT_C_XRUNS, 1);
	snd_pcm_drop(ls->pb.pcm);
	snd_pcm_drop(ls->cap.pcm);
	return start_ends(ls);
}

/**
 * nothing_back() - markers were lost and none came back in a trial: the
 * ends are not looped, or the level is below 'threshold'.
 */
static int nothing_back(struct lat_state *ls, const struct ep_trial *t)
{
	return ep_run_fail(ls->run, -ENOLINK, "parameter 'capture_device': value '%s': no marker "
			   "played on '%s' came back in trial %d (threshold %s dBFS); accepted: the "
			   "capture end of a loopback from 'device' (snd-aloop: device=hw:Loopback,0,N "
			   "capture_device=hw:Loopback,1,N; or an output cabled to an input), with "
			   "'interval' above the latency and 'duration' holding several intervals",
			   ls->cap.device, ls->pb.device, ep_trial_index(t) + 1,
			   ep_param_text(ls->run, "threshold"));
}

/**
 * lat_body() - one trial: start both ends, step until the engine says stop.
 * Return: 0 or a negative errno.
 */
static int lat_body(void *arg, struct ep_trial *t)
{
	struct lat_state *ls = arg;
	struct ep_sched_saved saved;
	int rc = ep_sched_enter(ls->pb.priority, &saved);

	if (rc)
		return ep_run_fail(ls->run, rc, "parameter 'priority': value '%d': %s",
				   ls->pb.priority, strerror(-rc));
	ls->found = 0;
	ls->expired = 0;
	ls->rt_sum_ns = 0;
	ls->rt_n = 0;
	rc = start_ends(ls);
	ep_trial_started(t); /* without a ramp: the clock starts with both ends running */
	while (!rc && ep_trial_running(t))
		rc = step(ls, t);
	snd_pcm_drop(ls->pb.pcm);
	snd_pcm_drop(ls->cap.pcm);
	ep_sched_leave(&saved);
	if (rc < 0)
		return ep_run_fail(ls->run, rc, "devices '%s' and '%s': streaming failed: %s",
				   ls->pb.device, ls->cap.device, snd_strerror(rc));
	/* Nothing back although a marker had its whole interval: the ends are not looped. */
	return ls->found || !ls->expired ? 0 : nothing_back(ls, t);
}

/** lat_derive() - the trial's mean round trip, in us (NaN: none measured). */
static double lat_derive(void *arg, int metric, const struct ep_tally *ta)
{
	const struct lat_state *ls = arg;

	if (metric != LAT_M_ROUNDTRIP || !ls->rt_n)
		return NAN;
	return ls->rt_sum_ns / (double)ls->rt_n / 1000.0;
}

/** init_end() - one end's state from the run's parameters. */
static void init_end(struct ep_run *run, struct audio_state *st, int capture)
{
	static const char hint[] = "; audio.latency needs a loopback: load snd-aloop (modprobe "
				   "snd-aloop: hw:Loopback,0,N plays into hw:Loopback,1,N), or "
				   "name a cabled output and input";

	st->run = run;
	st->capture = capture;
	st->device_param = capture ? "capture_device" : "device";
	st->device = ep_param_text(run, st->device_param);
	st->open_hint = hint;
	st->access = (enum audio_access)ep_param_int(run, "access");
	st->mode = (enum audio_mode)ep_param_int(run, "mode");
	st->priority = (int)ep_param_int(run, "priority");
	st->format = (enum audio_format)ep_param_int(run, "format");
}

/** same_rate() - both ends at one rate, or an error naming 'rate'. */
static int same_rate(struct lat_state *ls)
{
	if (ls->pb.rate_hz == ls->cap.rate_hz)
		return 0;
	return ep_run_refuse(ls->run, -EINVAL, "rate", ": device '%s' gave %u Hz and "
			     "capture_device '%s' %u Hz; accepted: a rate both ends run at",
			     ls->pb.device, ls->pb.rate_hz, ls->cap.device, ls->cap.rate_hz);
}

/** make_label() - both ends' labels (what each negotiated) and the interval. */
static void make_label(struct lat_state *ls)
{
	snprintf(ls->label, sizeof(ls->label), "%s capture_device=%s capture_period=%lu "
		 "capture_buffer=%lu interval=%s", ls->pb.label, ls->cap.device,
		 ls->cap.period_frames, ls->cap.buffer_frames, ep_param_text(ls->run, "interval"));
}

int audio_latency_setup(struct ep_run *run, void **state)
{
	static const char *const counters[] = { [LAT_C_LOST] = "lost", [LAT_C_XRUNS] = "xruns" };
	struct lat_state *ls = calloc(1, sizeof(*ls));
	struct ep_trial_case tc = {
		.body = lat_body,
		.counters = counters,
		.n_counters = (int)EP_ARRAY_SIZE(counters),
		.derive = lat_derive,
	};
	int rc;

	if (!ls)
		return -ENOMEM;
	*state = ls;
	ls->run = run;
	init_end(run, &ls->pb, 0);
	init_end(run, &ls->cap, 1);
	ls->threshold = pow(10.0, ep_param_double(run, "threshold") / 20.0);
	rc = ep_sched_check(run, ls->pb.priority);
	if (!rc)
		rc = audio_pcm_open(run, &ls->pb);
	if (!rc)
		rc = audio_pcm_open(run, &ls->cap);
	if (!rc)
		rc = same_rate(ls);
	if (rc)
		return rc;
	ls->interval_frames = (uint64_t)((double)ep_param_int(run, "interval") * ls->pb.rate_hz / 1e9);
	if (ls->interval_frames < 4 * LAT_MARKER_FRAMES)
		return ep_run_refuse(run, -EINVAL, "interval", " holds %llu frames at %u Hz; "
				     "accepted: at least %d frames (a marker is %d)",
				     (unsigned long long)ls->interval_frames, ls->pb.rate_hz,
				     4 * LAT_MARKER_FRAMES, LAT_MARKER_FRAMES);
	make_label(ls);
	tc.labels = ls->label;
	tc.arg = ls;
	return ep_run_add_trial(run, &tc);
}

void audio_latency_teardown(void *state)
{
	struct lat_state *ls = state;

	if (!ls)
		return;
	audio_pcm_close(&ls->pb);
	audio_pcm_close(&ls->cap);
	free(ls->pb.buf);
	free(ls->cap.buf);
	free(ls);
}
