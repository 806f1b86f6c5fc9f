// SPDX-License-Identifier: MIT
/*
 * error.c - version queries, error names, build features.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "embperf.h"
#include "util.h"

unsigned embperf_version_number(void)
{
	return EMBPERF_VERSION_NUMBER;
}

const char *embperf_version_string(void)
{
	return EMBPERF_VERSION_STRING;
}

struct ep_errname {
	int code;
	const char *text;
};

/* The codes the library returns, each with what it means here. */
static const struct ep_errname ep_errnames[] = {
	{ 0, "success" },
	{ EPERM, "EPERM: operation not permitted" },
	{ ENOENT, "ENOENT: no such kernel, parameter, file or entry" },
	{ EINTR, "EINTR: interrupted" },
	{ EIO, "EIO: input/output error" },
	{ E2BIG, "E2BIG: argument list too long" },
	{ EBADF, "EBADF: bad file descriptor" },
	{ EAGAIN, "EAGAIN: resource temporarily unavailable" },
	{ ENOMEM, "ENOMEM: not enough memory" },
	{ EACCES, "EACCES: permission denied" },
	{ EBUSY, "EBUSY: device or resource busy" },
	{ EEXIST, "EEXIST: already exists" },
	{ ENODEV, "ENODEV: no such device" },
	{ ENOTDIR, "ENOTDIR: not a directory" },
	{ EISDIR, "EISDIR: is a directory" },
	{ EINVAL, "EINVAL: invalid argument" },
	{ EMFILE, "EMFILE: too many open files" },
	{ ENOSPC, "ENOSPC: no space left on device" },
	{ EROFS, "EROFS: read-only file system" },
	{ EPIPE, "EPIPE: broken pipe" },
	{ ERANGE, "ERANGE: value out of range" },
	{ ENODATA, "ENODATA: no data" },
	{ ETIME, "ETIME: time budget exhausted" },
	{ EBADMSG, "EBADMSG: malformed data" },
	{ EOVERFLOW, "EOVERFLOW: value too large" },
	{ EOPNOTSUPP, "EOPNOTSUPP: not supported by this build or system" },
	{ EADDRINUSE, "EADDRINUSE: address in use" },
	{ ECONNREFUSED, "ECONNREFUSED: connection refused" },
	{ ETIMEDOUT, "ETIMEDOUT: timed out" },
	{ ECANCELED, "ECANCELED: cancelled" },
	{ ECHILD, "ECHILD: no child process" },
	{ ESRCH, "ESRCH: no such process" },
	{ ENXIO, "ENXIO: no such device or address" },
	{ EFAULT, "EFAULT: bad address" },
	{ EILSEQ, "EILSEQ: validation failed" },
};

const char *embperf_strerror(int err)
{
	int code = err < 0 ? -err : err;

	for (size_t i = 0; i < EP_ARRAY_SIZE(ep_errnames); i++)
		if (ep_errnames[i].code == code)
			return ep_errnames[i].text;
	return "unknown error";
}

int embperf_has_feature(const char *name)
{
	static const struct {
		const char *name;
		int present;
	} features[] = {
		{ "json", 1 },
		{ "alsa", EMBPERF_HAVE_ALSA },
		{ "pcap", EMBPERF_HAVE_PCAP },
		{ "libnl", EMBPERF_HAVE_LIBNL },
		{ "perf", EMBPERF_HAVE_PERF },
		{ "io_uring", EMBPERF_HAVE_IO_URING },
	};

	if (!name)
		return 0;
	for (size_t i = 0; i < EP_ARRAY_SIZE(features); i++)
		if (!strcmp(features[i].name, name))
			return features[i].present;
	return 0;
}

void embperf_free(void *ptr)
{
	free(ptr);
}
