// SPDX-License-Identifier: MIT
/*
 * paced_pcm.c - a virtual PCM for the audio tests: an alsa-lib ioplug PCM
 * created inside the test process (snd_pcm_ioplug_create(), no plugin
 * module to dlopen) whose hardware pointer advances with CLOCK_MONOTONIC at
 * rate x speed frames per second. Playback discards what it is given,
 * capture delivers silence, or a sine of 'tone' Hz at 'amplitude' (of full
 * scale) on every channel, continuous over what was read since the PCM was
 * opened; 'dropout' frames of it from frame 'dropout_at' on are zeros.
 *
 * Loopback ('loop 1'): every paced PCM with it shares one wire, as
 * snd-aloop's two ends do. What a playback PCM plays goes onto the wire at
 * the moment its pointer passes it; a capture PCM captures what was on the
 * wire 'loop_delay' frames before the moment its pointer passes each frame,
 * and silence where nothing was playing. So a marker played reaches the
 * capture exactly loop_delay / rate later, whenever each stream started. Its poll descriptor is a timerfd that fires
 * once a period; a wake-up reports the PCM ready only when avail_min frames
 * are. Underrun (the clock passed what was queued) and overrun (more came
 * than the buffer holds) are reported as xruns by the pointer callback.
 *
 * Stalls provoke xruns on purpose: during a stall the pointer stands still,
 * and when it ends it jumps to where the clock says, so a stall longer than
 * the buffer gives exactly one xrun. Stall k (k < stall_count) begins at
 * stall_at + k x stall_every ms after the PCM's first start.
 *
 * 'exclusive 1' makes the PCM open once at a time, as a card's device does:
 * while one PCM with it is open, opening another fails with -EBUSY.
 *
 * 'prepare_delay' ms makes every prepare take that long, as a board's codec
 * powering up (ASoC DAPM) can.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "paced_pcm.h" /* alsa/asoundlib.h first: pcm_external.h needs it */

#include <alsa/pcm_external.h>

#define WIRE_FRAMES (1 << 16) /* 1.36 s at 48 kHz: more than any queue and delay */

/**
 * struct paced_wire - the loopback's wire: the first channel of every frame
 * the playback end was given since its prepare.
 * @ring:     frame k at [k % WIRE_FRAMES].
 * @written:  frames given.
 * @start_ns: CLOCK_MONOTONIC when frame 0 played (0: not running).
 * @fps:      the playback end's frames per second (rate x speed).
 */
struct paced_wire {
	float ring[WIRE_FRAMES];
	uint64_t written;
	int64_t start_ns;
	double fps;
};

static struct paced_wire paced_wire;
static atomic_ulong paced_xruns_total;
static atomic_ulong paced_stalls_total;
static atomic_long paced_open_now;
static atomic_int paced_exclusive_held;

/**
 * struct paced - one paced PCM.
 * @io:          the ioplug (first member: alsa-lib hands it back).
 * @timer_fd:    the poll descriptor, a timerfd firing once a period.
 * @start_ns:    CLOCK_MONOTONIC at the last start.
 * @epoch_ns:    CLOCK_MONOTONIC at the first start: stalls count from it.
 * @moved:       frames the "hardware" moved since the last start.
 * @boundary:    pointer modulus (SND_PCM_IOPLUG_FLAG_BOUNDARY_WA).
 * @avail_min:   from the software parameters.
 * @speed:       1.0: real time.
 * @stall_at_ns, @stall_ns, @stall_every_ns, @stall_count: the stalls.
 * @stalls_seen: stalls already counted into paced_stalls_total.
 * @tone_hz:     capture: a sine of this frequency (0: silence).
 * @amplitude:   its peak, of full scale.
 * @tone_pos:    frames of it delivered so far.
 * @dropout_at, @dropout: frames of it replaced by zeros.
 * @loop:        an end of the loopback wire.
 * @loop_delay:  capture end: frames between the wire and the capture.
 * @delivered:   capture end: frames delivered since the last prepare.
 * @exclusive:   opens once at a time.
 * @holds_exclusive: this PCM is the one open.
 * @prepare_delay_ns: how long each prepare takes.
 */
struct paced {
	snd_pcm_ioplug_t io;
	int timer_fd;
	int64_t start_ns;
	int64_t epoch_ns;
	uint64_t moved;
	uint64_t boundary;
	snd_pcm_uframes_t avail_min;
	double speed;
	int64_t stall_at_ns, stall_ns, stall_every_ns;
	long stall_count;
	long stalls_seen;
	double tone_hz;
	double amplitude;
	uint64_t tone_pos;
	uint64_t dropout_at, dropout;
	int loop;
	uint64_t loop_delay;
	uint64_t delivered;
	int exclusive;
	int holds_exclusive;
	int64_t prepare_delay_ns;
};

/** mono_ns() - CLOCK_MONOTONIC in nanoseconds. */
static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/** frames_at() - frames the clock says have moved by @when_ns since the start. */
static uint64_t frames_at(const struct paced *p, int64_t when_ns)
{
	int64_t ns = when_ns - p->start_ns;

	return ns <= 0 ? 0 : (uint64_t)((double)ns * p->io.rate * p->speed / 1e9);
}

/**
 * stall_begin() - if @now_ns is inside a stall, when that stall began
 * (counting it once); else -1.
 */
static int64_t stall_begin(struct paced *p, int64_t now_ns)
{
	int64_t since, k, begin;

	if (!p->stall_count || !p->stall_ns || now_ns < p->epoch_ns + p->stall_at_ns)
		return -1;
	since = now_ns - p->epoch_ns - p->stall_at_ns;
	k = p->stall_every_ns ? since / p->stall_every_ns : 0;
	if (k >= p->stall_count)
		return -1;
	begin = p->epoch_ns + p->stall_at_ns + k * p->stall_every_ns;
	if (now_ns - begin >= p->stall_ns)
		return -1;
	if (k >= p->stalls_seen) {
		p->stalls_seen = k + 1;
		atomic_fetch_add(&paced_stalls_total, 1);
	}
	return begin;
}

/** arm_timer() - fire every period (at the paced speed), or stop when !@on. */
static int arm_timer(struct paced *p, int on)
{
	struct itimerspec its = { 0 };

	if (on) {
		uint64_t ns = (uint64_t)(1e9 * p->io.period_size / (p->io.rate * p->speed));

		its.it_interval.tv_sec = (time_t)(ns / 1000000000ULL);
		its.it_interval.tv_nsec = (long)(ns % 1000000000ULL);
		if (!ns)
			its.it_interval.tv_nsec = 1;
		its.it_value = its.it_interval;
	}
	return timerfd_settime(p->timer_fd, 0, &its, NULL) ? -errno : 0;
}

/** paced_start() - ioplug start: the pointer counts from now. */
static int paced_start(snd_pcm_ioplug_t *io)
{
	struct paced *p = io->private_data;

	p->start_ns = mono_ns();
	if (!p->epoch_ns)
		p->epoch_ns = p->start_ns;
	p->moved = 0;
	if (p->loop && io->stream == SND_PCM_STREAM_PLAYBACK) {
		paced_wire.start_ns = p->start_ns;
		paced_wire.fps = io->rate * p->speed;
	}
	return arm_timer(p, 1);
}

/** paced_stop() - ioplug stop: no more ticks; a playback end leaves the wire silent. */
static int paced_stop(snd_pcm_ioplug_t *io)
{
	struct paced *p = io->private_data;

	if (p->loop && io->stream == SND_PCM_STREAM_PLAYBACK)
		paced_wire.start_ns = 0;
	return arm_timer(p, 0);
}

/** paced_prepare() - ioplug prepare: playback may be written before it starts. */
static int paced_prepare(snd_pcm_ioplug_t *io)
{
	struct paced *p = io->private_data;
	struct timespec delay = { .tv_sec = p->prepare_delay_ns / 1000000000LL,
				  .tv_nsec = p->prepare_delay_ns % 1000000000LL };

	while (p->prepare_delay_ns && nanosleep(&delay, &delay) && errno == EINTR)
		;
	p->moved = 0;
	p->delivered = 0;
	if (p->loop && io->stream == SND_PCM_STREAM_PLAYBACK) {
		paced_wire.written = 0;
		paced_wire.start_ns = 0;
	}
	return arm_timer(p, io->stream == SND_PCM_STREAM_PLAYBACK);
}

/** paced_sw_params() - keep the boundary and avail_min. */
static int paced_sw_params(snd_pcm_ioplug_t *io, snd_pcm_sw_params_t *params)
{
	struct paced *p = io->private_data;
	snd_pcm_uframes_t v = 0;

	if (!snd_pcm_sw_params_get_boundary(params, &v) && v)
		p->boundary = v;
	if (!snd_pcm_sw_params_get_avail_min(params, &v))
		p->avail_min = v;
	return 0;
}

/**
 * advance() - move the pointer by @delta frames, or report an xrun when
 * that passes what was queued (playback) or overfills the buffer (capture).
 * A draining playback (snd_pcm_drain(), as aplay ends) plays what was
 * queued and stops there: no xrun.
 * Return: 0 or -EPIPE.
 */
static int advance(struct paced *p, uint64_t delta)
{
	snd_pcm_ioplug_t *io = &p->io;
	uint64_t room = io->stream == SND_PCM_STREAM_PLAYBACK
				? snd_pcm_ioplug_hw_avail(io, io->hw_ptr, io->appl_ptr)
				: io->buffer_size - snd_pcm_ioplug_avail(io, io->hw_ptr, io->appl_ptr);

	if (delta > room && io->state == SND_PCM_STATE_DRAINING)
		delta = room;
	if (delta > room) {
		atomic_fetch_add(&paced_xruns_total, 1);
		return -EPIPE;
	}
	p->moved += delta;
	return 0;
}

/** paced_pointer() - ioplug pointer: the clock's position, modulo the boundary. */
static snd_pcm_sframes_t paced_pointer(snd_pcm_ioplug_t *io)
{
	struct paced *p = io->private_data;
	uint64_t bound = p->boundary ? p->boundary : io->buffer_size;

	if (io->state == SND_PCM_STATE_RUNNING || io->state == SND_PCM_STATE_DRAINING) {
		int64_t now_ns = mono_ns(), begin_ns = stall_begin(p, now_ns);
		uint64_t target = frames_at(p, begin_ns >= 0 ? begin_ns : now_ns);

		if (target > p->moved && advance(p, target - p->moved))
			return -EPIPE;
	}
	return (snd_pcm_sframes_t)(p->moved % bound);
}

/** put_sample() - @v (in [-1, 1]) into @p in @format, little-endian. */
static void put_sample(unsigned char *p, snd_pcm_format_t format, double v)
{
	int32_t s;
	float f = (float)v;

	switch (format) {
	case SND_PCM_FORMAT_S16_LE:
		s = (int32_t)lrint(v * 32767.0);
		p[0] = (unsigned char)s;
		p[1] = (unsigned char)(s >> 8);
		break;
	case SND_PCM_FORMAT_S24_LE:
	case SND_PCM_FORMAT_S24_3LE:
		s = (int32_t)lrint(v * 8388607.0);
		p[0] = (unsigned char)s;
		p[1] = (unsigned char)(s >> 8);
		p[2] = (unsigned char)(s >> 16);
		if (format == SND_PCM_FORMAT_S24_LE)
			p[3] = (unsigned char)(s < 0 ? 0xff : 0);
		break;
	case SND_PCM_FORMAT_S32_LE:
		s = (int32_t)lrint(v * 2147483647.0);
		memcpy(p, &s, sizeof(s)); /* the tests run on little-endian hosts */
		break;
	case SND_PCM_FORMAT_FLOAT_LE:
		memcpy(p, &f, sizeof(f));
		break;
	default: /* U8 */
		p[0] = (unsigned char)lrint(128.0 + v * 127.0);
		break;
	}
}

/** fill_tone() - @size frames of the tone at @offset of @areas. */
static void fill_tone(struct paced *p, const snd_pcm_channel_area_t *areas,
		      snd_pcm_uframes_t offset, snd_pcm_uframes_t size)
{
	snd_pcm_ioplug_t *io = &p->io;

	for (snd_pcm_uframes_t i = 0; i < size; i++, p->tone_pos++) {
		int quiet = p->tone_pos >= p->dropout_at && p->tone_pos < p->dropout_at + p->dropout;
		double v = quiet ? 0.0
				 : p->amplitude * sin(2.0 * M_PI * p->tone_hz * (double)p->tone_pos /
						      io->rate);

		for (unsigned int c = 0; c < io->channels; c++) {
			const snd_pcm_channel_area_t *a = &areas[c];

			put_sample((unsigned char *)a->addr + (a->first + (offset + i) * a->step) / 8,
				   io->format, v);
		}
	}
}

/** get_sample() - the sample at @p in @format, in [-1, 1]. */
static double get_sample(const unsigned char *p, snd_pcm_format_t format)
{
	int32_t s;
	float f;

	switch (format) {
	case SND_PCM_FORMAT_S16_LE:
		return (int16_t)(p[0] | p[1] << 8) / 32768.0;
	case SND_PCM_FORMAT_S24_LE:
	case SND_PCM_FORMAT_S24_3LE:
		s = (int32_t)((uint32_t)p[0] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 24);
		return (s >> 8) / 8388608.0;
	case SND_PCM_FORMAT_S32_LE:
		memcpy(&s, p, sizeof(s));
		return s / 2147483648.0;
	case SND_PCM_FORMAT_FLOAT_LE:
		memcpy(&f, p, sizeof(f));
		return f;
	default: /* U8 */
		return (p[0] - 128) / 128.0;
	}
}

/** area_at() - where frame @frame of channel @c is in @areas. */
static unsigned char *area_at(const snd_pcm_channel_area_t *areas, unsigned int c,
			      snd_pcm_uframes_t frame)
{
	return (unsigned char *)areas[c].addr + (areas[c].first + frame * areas[c].step) / 8;
}

/** wire_put() - the playback end: the first channel of @size frames onto the wire. */
static void wire_put(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
		     snd_pcm_uframes_t offset, snd_pcm_uframes_t size)
{
	for (snd_pcm_uframes_t i = 0; i < size; i++)
		paced_wire.ring[paced_wire.written++ % WIRE_FRAMES] =
			(float)get_sample(area_at(areas, 0, offset + i), io->format);
}

/**
 * wire_value() - the capture end: what the wire carried loop_delay frames
 * before capture frame @m passed (silence when nothing was playing).
 */
static double wire_value(const struct paced *p, uint64_t m)
{
	double fps = p->io.rate * p->speed;
	double at_ns = (double)p->start_ns + ((double)m - (double)p->loop_delay) * 1e9 / fps;
	double k;

	if (!paced_wire.start_ns || at_ns < (double)paced_wire.start_ns)
		return 0.0;
	k = floor((at_ns - (double)paced_wire.start_ns) * paced_wire.fps / 1e9 + 0.5);
	if (k >= (double)paced_wire.written || (double)paced_wire.written - k > WIRE_FRAMES)
		return 0.0;
	return paced_wire.ring[(uint64_t)k % WIRE_FRAMES];
}

/** wire_get() - the capture end: @size frames from the wire on every channel. */
static void wire_get(struct paced *p, const snd_pcm_channel_area_t *areas,
		     snd_pcm_uframes_t offset, snd_pcm_uframes_t size)
{
	for (snd_pcm_uframes_t i = 0; i < size; i++, p->delivered++) {
		double v = wire_value(p, p->delivered);

		for (unsigned int c = 0; c < p->io.channels; c++)
			put_sample(area_at(areas, c, offset + i), p->io.format, v);
	}
}

/** paced_transfer() - ioplug transfer: playback to the wire or nowhere; capture from
 * the wire, the tone or silence. */
static snd_pcm_sframes_t paced_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
					snd_pcm_uframes_t offset, snd_pcm_uframes_t size)
{
	struct paced *p = io->private_data;

	if (p->loop && io->stream == SND_PCM_STREAM_PLAYBACK)
		wire_put(io, areas, offset, size);
	else if (p->loop)
		wire_get(p, areas, offset, size);
	else if (io->stream == SND_PCM_STREAM_CAPTURE && p->tone_hz > 0)
		fill_tone(p, areas, offset, size);
	else if (io->stream == SND_PCM_STREAM_CAPTURE)
		snd_pcm_areas_silence(areas, offset, io->channels, size, io->format);
	return (snd_pcm_sframes_t)size;
}

/** paced_poll_revents() - drain the timer; ready only with avail_min frames. */
static int paced_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *pfd, unsigned int nfds,
			      unsigned short *revents)
{
	struct paced *p = io->private_data;
	uint64_t ticks;
	snd_pcm_sframes_t avail;

	*revents = 0;
	if (pfd[0].revents & (POLLERR | POLLNVAL))
		*revents = POLLERR;
	if (!(pfd[0].revents & POLLIN))
		return 0;
	while (read(p->timer_fd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks))
		;
	avail = snd_pcm_avail_update(io->pcm);
	if (avail < 0)
		*revents = POLLERR;
	else if ((snd_pcm_uframes_t)avail >= (p->avail_min ? p->avail_min : 1))
		*revents = io->stream == SND_PCM_STREAM_PLAYBACK ? POLLOUT : POLLIN;
	return 0;
}

/** paced_close() - ioplug close: free everything. */
static int paced_close(snd_pcm_ioplug_t *io)
{
	struct paced *p = io->private_data;

	close(p->timer_fd);
	if (p->holds_exclusive)
		atomic_store(&paced_exclusive_held, 0);
	free(p);
	atomic_fetch_sub(&paced_open_now, 1);
	return 0;
}

static const snd_pcm_ioplug_callback_t paced_callbacks = {
	.start = paced_start,
	.stop = paced_stop,
	.pointer = paced_pointer,
	.transfer = paced_transfer,
	.prepare = paced_prepare,
	.sw_params = paced_sw_params,
	.poll_revents = paced_poll_revents,
	.close = paced_close,
};

/**
 * read_field() - one field of the config node into @p.
 * Return: 0, or -EINVAL for an unknown field or a bad value.
 */
static int read_field(struct paced *p, snd_config_t *n)
{
	const char *id;
	long v = 0;

	if (snd_config_get_id(n, &id) < 0)
		return -EINVAL;
	if (!strcmp(id, "type") || !strcmp(id, "comment"))
		return 0;
	if (!strcmp(id, "speed"))
		return snd_config_get_ireal(n, &p->speed) < 0 || p->speed <= 0 ? -EINVAL : 0;
	if (!strcmp(id, "tone"))
		return snd_config_get_ireal(n, &p->tone_hz) < 0 || p->tone_hz < 0 ? -EINVAL : 0;
	if (!strcmp(id, "amplitude"))
		return snd_config_get_ireal(n, &p->amplitude) < 0 || p->amplitude < 0 ||
			       p->amplitude > 1 ? -EINVAL : 0;
	if (snd_config_get_integer(n, &v) < 0 || v < 0)
		return -EINVAL;
	if (!strcmp(id, "stall_at"))
		p->stall_at_ns = v * 1000000LL;
	else if (!strcmp(id, "stall"))
		p->stall_ns = v * 1000000LL;
	else if (!strcmp(id, "stall_every"))
		p->stall_every_ns = v * 1000000LL;
	else if (!strcmp(id, "stall_count"))
		p->stall_count = v;
	else if (!strcmp(id, "dropout_at"))
		p->dropout_at = (uint64_t)v;
	else if (!strcmp(id, "dropout"))
		p->dropout = (uint64_t)v;
	else if (!strcmp(id, "loop"))
		p->loop = v != 0;
	else if (!strcmp(id, "loop_delay"))
		p->loop_delay = (uint64_t)v;
	else if (!strcmp(id, "exclusive"))
		p->exclusive = v != 0;
	else if (!strcmp(id, "prepare_delay"))
		p->prepare_delay_ns = v * 1000000LL;
	else
		return -EINVAL;
	return 0;
}

/**
 * read_config() - every field of @conf into @p (speed 1, no stalls by default).
 * Return: 0 or -EINVAL.
 */
static int read_config(struct paced *p, snd_config_t *conf)
{
	snd_config_iterator_t i, next;

	p->speed = 1.0;
	p->amplitude = 0.5;
	snd_config_for_each(i, next, conf) {
		if (read_field(p, snd_config_iterator_entry(i)))
			return -EINVAL;
	}
	if (p->stall_ns && !p->stall_count)
		p->stall_count = 1;
	return 0;
}

/**
 * set_constraints() - what the paced PCM accepts: interleaved rw and mmap,
 * S16/S24/S32/FLOAT/S24_3LE/U8, 1..32 channels, 8..384 kHz.
 * Return: 0 or a negative errno.
 */
static int set_constraints(snd_pcm_ioplug_t *io)
{
	static const unsigned int access[] = { SND_PCM_ACCESS_RW_INTERLEAVED,
					       SND_PCM_ACCESS_MMAP_INTERLEAVED };
	static const unsigned int formats[] = { SND_PCM_FORMAT_S16_LE, SND_PCM_FORMAT_S24_LE,
						SND_PCM_FORMAT_S32_LE, SND_PCM_FORMAT_FLOAT_LE,
						SND_PCM_FORMAT_S24_3LE, SND_PCM_FORMAT_U8 };
	int rc = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_ACCESS, 2, access);

	if (!rc)
		rc = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_FORMAT, 6, formats);
	if (!rc)
		rc = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_CHANNELS, 1, 32);
	if (!rc)
		rc = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_RATE, 8000, 384000);
	if (!rc)
		rc = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 16, 1 << 20);
	if (!rc)
		rc = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIODS, 2, 1024);
	if (!rc)
		rc = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_BUFFER_BYTES, 64, 4 << 20);
	return rc;
}

int paced_pcm_open(snd_pcm_t **pcm, const char *name, snd_config_t *conf,
		   snd_pcm_stream_t stream, int mode)
{
	struct paced *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return -ENOMEM;
	p->timer_fd = -1;
	rc = read_config(p, conf);
	if (!rc && p->exclusive) {
		/* A second open of a device already open: what a card's says. */
		p->holds_exclusive = !atomic_exchange(&paced_exclusive_held, 1);
		rc = p->holds_exclusive ? 0 : -EBUSY;
	}
	if (!rc) {
		p->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		rc = p->timer_fd < 0 ? -errno : 0;
	}
	if (rc) {
		if (p->timer_fd >= 0)
			close(p->timer_fd);
		if (p->holds_exclusive)
			atomic_store(&paced_exclusive_held, 0);
		free(p);
		return rc;
	}
	atomic_fetch_add(&paced_open_now, 1);
	p->io.version = SND_PCM_IOPLUG_VERSION;
	p->io.name = "paced: CLOCK_MONOTONIC-paced virtual PCM (tests)";
	p->io.callback = &paced_callbacks;
	p->io.private_data = p;
	p->io.poll_fd = p->timer_fd;
	p->io.poll_events = POLLIN;
	p->io.flags = SND_PCM_IOPLUG_FLAG_BOUNDARY_WA | SND_PCM_IOPLUG_FLAG_MONOTONIC;
	rc = snd_pcm_ioplug_create(&p->io, name, stream, mode);
	if (rc < 0) {
		paced_close(&p->io);
		return rc;
	}
	rc = set_constraints(&p->io);
	if (rc < 0) {
		snd_pcm_ioplug_delete(&p->io); /* calls paced_close() */
		return rc;
	}
	*pcm = p->io.pcm;
	return 0;
}

unsigned long paced_pcm_xruns(void)
{
	return atomic_load(&paced_xruns_total);
}

unsigned long paced_pcm_stalls(void)
{
	return atomic_load(&paced_stalls_total);
}

long paced_pcm_open_now(void)
{
	return atomic_load(&paced_open_now);
}
