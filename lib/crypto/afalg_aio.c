// SPDX-License-Identifier: MIT
/*
 * afalg_aio.c - the AF_ALG cipher paths of OpenSSL's afalg engine
 * (crypto.speed io=aio, io=aio-splice): the system calls it makes per
 * buffer, so that crypto.speed's figures can be set beside `openssl speed
 * -engine afalg`.
 *
 * Per buffer, on the operation socket, the data goes in
 *   io=aio         by one sendmsg() carrying ALG_SET_OP, ALG_SET_IV and the
 *                  data: the engine as built by default (Debian's
 *                  engines-3/afalg.so calls sendmsg(), syscall() and read(),
 *                  and no vmsplice() or splice());
 *   io=aio-splice  by sendmsg() of the control messages alone, with
 *                  MSG_MORE, then vmsplice() of the buffer into a pipe and
 *                  splice() from the pipe into the socket (the pages handed
 *                  over, not copied): the engine built with ALG_ZERO_COPY;
 * and the result comes back in both by
 *   io_submit() of one IOCB_CMD_PREAD into the buffer, its completion
 *   signalled on an eventfd (IOCB_FLAG_RESFD); read() of the eventfd, which
 *   blocks until the operation completed; io_getevents() of the completion,
 *   whose result is the bytes read.
 * The engine waits in read() of its eventfd when openssl speed runs without
 * -async_jobs (no ASYNC job: its pause returns at once); with jobs, its
 * caller polls the eventfd instead. Linux AIO through syscall(2): no
 * libaio.
 *
 * The zero-copy engine puts MSG_MORE in the msghdr's msg_flags, which
 * sendmsg() ignores, so its control messages end a request with no data
 * (newer kernels log "sent an empty control message without MSG_MORE"
 * once); here MSG_MORE is sendmsg()'s flag, and the last splice() of a
 * buffer, the one without SPLICE_F_MORE, ends the request.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/core/util.h"
#include "lib/crypto/crypto.h"

static long aio_submit(aio_context_t ctx, struct iocb *cb)
{
	struct iocb *cbs[1] = { cb };

	return syscall(__NR_io_submit, ctx, 1L, cbs);
}

/*
 * One completion, waiting without a timeout (it is there: the eventfd said
 * so); no timespec, so no 32- or 64-bit time_t question on 32-bit systems.
 */
static long aio_getevent(aio_context_t ctx, struct io_event *ev)
{
#if defined(__NR_io_getevents)
	return syscall(__NR_io_getevents, ctx, 1L, 1L, ev, NULL);
#elif defined(__NR_io_pgetevents_time64)
	return syscall(__NR_io_pgetevents_time64, ctx, 1L, 1L, ev, NULL, NULL);
#else
	(void)ctx;
	(void)ev;
	errno = ENOSYS;
	return -1;
#endif
}

/* io=aio: the control messages and the data; never blocks, as afalg.c's sendmsg(). */
static int send_all(struct cr_op *op, unsigned char *buf, size_t len)
{
	struct iovec iov = { buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = op->msg_ctl.bytes,
			      .msg_controllen = op->msg_ctl_len };
	ssize_t n = sendmsg(op->fd, &msg, MSG_DONTWAIT);

	if (n != (ssize_t)len)
		return n < 0 ? -errno : -EMSGSIZE;
	return 0;
}

/* io=aio-splice: the control messages, the data to follow. */
static int send_ctl(struct cr_op *op)
{
	struct msghdr msg = { .msg_control = op->msg_ctl.bytes, .msg_controllen = op->msg_ctl_len };

	return sendmsg(op->fd, &msg, MSG_MORE) < 0 ? -errno : 0;
}

/*
 * io=aio-splice: @len bytes of @buf into the socket through the pipe, as
 * much as the pipe holds at a time (64 KiB, less when the buffer straddles
 * more pages than it has slots); every splice() but the last says more
 * follows.
 */
static int splice_in(struct cr_op *op, unsigned char *buf, size_t len)
{
	while (len) {
		struct iovec iov = { buf, len };
		ssize_t in = vmsplice(op->pipe_fd[1], &iov, 1, SPLICE_F_GIFT);

		if (in <= 0)
			return in < 0 ? -errno : -EIO;
		for (ssize_t left = in; left;) {
			unsigned more = (size_t)left < len ? SPLICE_F_MORE : 0;
			ssize_t out = splice(op->pipe_fd[0], NULL, op->fd, NULL, (size_t)left, more);

			if (out <= 0)
				return out < 0 ? -errno : -EIO;
			left -= out;
			len -= (size_t)out;
		}
		buf += in;
	}
	return 0;
}

/* Both: the result into @buf by an AIO read; its bytes, or a negative errno. */
static long aio_read(struct cr_op *op, unsigned char *buf, size_t len)
{
	struct iocb cb = { .aio_fildes = (uint32_t)op->fd, .aio_lio_opcode = IOCB_CMD_PREAD,
			   .aio_buf = (uint64_t)(uintptr_t)buf, .aio_nbytes = len,
			   .aio_flags = IOCB_FLAG_RESFD, .aio_resfd = (uint32_t)op->event_fd };
	struct io_event ev = { 0 };
	uint64_t done;
	ssize_t n;
	long r = aio_submit(op->aio_ctx, &cb);

	if (r != 1)
		return r < 0 ? -errno : -EIO;
	while ((n = read(op->event_fd, &done, sizeof(done))) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(done))
		return n < 0 ? -errno : -EIO;
	r = aio_getevent(op->aio_ctx, &ev);
	if (r != 1)
		return r < 0 ? -errno : -EIO;
	return (long)ev.res;
}

/* The AIO read of @len bytes into @buf, which must give them all. */
static int read_result(struct cr_op *op, unsigned char *buf, size_t len)
{
	long got = aio_read(op, buf, len);

	if (got < 0)
		return (int)got;
	return got == (long)len ? 0 : -EIO;
}

static int aio_encrypt(struct cr_op *op, unsigned char *buf, size_t len)
{
	int rc = send_all(op, buf, len);

	return rc ? rc : read_result(op, buf, len);
}

static int aio_splice_encrypt(struct cr_op *op, unsigned char *buf, size_t len)
{
	int rc = send_ctl(op);

	if (!rc)
		rc = splice_in(op, buf, len);
	return rc ? rc : read_result(op, buf, len);
}

/* System call @call failed: the reason in @why; its negative errno. */
static int call_failed(const char *call, char *why, size_t why_size)
{
	int err = errno;

	return ep_say(why, why_size, -err, "%s(): %s", call, strerror(err));
}

int cr_afalg_aio_open(struct cr_op *op, char *why, size_t why_size)
{
	aio_context_t ctx = 0;

	/* a failed pipe2() leaves pipe_fd as cr_op_open() set it, -1 */
	if (op->io == CR_IO_AIO_SPLICE && pipe2(op->pipe_fd, O_CLOEXEC))
		return call_failed("pipe", why, why_size);
	op->event_fd = eventfd(0, EFD_CLOEXEC);
	if (op->event_fd < 0)
		return call_failed("eventfd", why, why_size);
	if (syscall(__NR_io_setup, 1L, &ctx)) {
		if (errno == ENOSYS)
			return ep_say(why, why_size, -EOPNOTSUPP, "io_setup(): %s (the kernel has "
				      "no Linux AIO: CONFIG_AIO)", strerror(ENOSYS));
		return call_failed("io_setup", why, why_size);
	}
	op->aio_ctx = ctx;
	op->run = op->io == CR_IO_AIO_SPLICE ? aio_splice_encrypt : aio_encrypt;
	return 0;
}

void cr_afalg_aio_close(struct cr_op *op)
{
	if (op->aio_ctx)
		syscall(__NR_io_destroy, (aio_context_t)op->aio_ctx);
	if (op->event_fd >= 0)
		close(op->event_fd);
	for (int i = 0; i < 2; i++)
		if (op->pipe_fd[i] >= 0)
			close(op->pipe_fd[i]);
	op->aio_ctx = 0;
	op->event_fd = op->pipe_fd[0] = op->pipe_fd[1] = -1;
}
