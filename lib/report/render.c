// SPDX-License-Identifier: MIT
/*
 * render.c - a report as text: the rendering of a format (json.c, table.c,
 * farm.c), and saving it to a file atomically. Above the renderings and the
 * report object (report.c), which call nothing here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/report/report.h"

/**
 * embperf_report_render() - render a report as text.
 * @report: report.
 * @format: an enum embperf_format value.
 *
 * Return: text the caller frees with embperf_free(); NULL with errno EINVAL
 * (NULL report, unknown format), ENODATA (JUnit or LAVA of a report without
 * results: a farm must not take an empty file for a run) or ENOMEM.
 */
char *embperf_report_render(const embperf_report *report, enum embperf_format format)
{
	char *text;

	if (!report) {
		errno = EINVAL;
		return NULL;
	}
	if ((format == EMBPERF_FORMAT_JUNIT || format == EMBPERF_FORMAT_LAVA) &&
	    report->n_results == 0) {
		errno = ENODATA;
		return NULL;
	}
	switch (format) {
	case EMBPERF_FORMAT_TEXT:
	case EMBPERF_FORMAT_MARKDOWN:
		text = ep_report_render_table(report, format == EMBPERF_FORMAT_MARKDOWN);
		break;
	case EMBPERF_FORMAT_JSON:
		text = ep_report_render_json(report);
		break;
	case EMBPERF_FORMAT_CSV:
		text = ep_report_render_csv(report);
		break;
	case EMBPERF_FORMAT_JUNIT:
		text = ep_report_render_junit(report);
		break;
	case EMBPERF_FORMAT_LAVA:
		text = ep_report_render_lava(report);
		break;
	default:
		errno = EINVAL;
		return NULL;
	}
	if (!text)
		errno = ENOMEM;
	return text;
}

/* Write all of @text to @fd. Return: 0 or a negative errno. */
static int write_all(int fd, const char *text, size_t len)
{
	while (len) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Create a new file next to @path for the rendering. Its mode is 0666 less
 * the umask, as for a file created directly (mkstemp() would give 0600).
 * Return: the descriptor (name in *@tmp_path), or a negative errno.
 */
static int create_temp(const char *path, char **tmp_path)
{
	for (int attempt = 0; attempt < 100; attempt++) {
		char *tmp = ep_asprintf("%s.tmp-%ld-%d", path, (long)getpid(), attempt);
		int fd, err;

		if (!tmp)
			return -ENOMEM;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			*tmp_path = tmp;
			return fd;
		}
		err = -errno;
		free(tmp);
		if (err != -EEXIST)
			return err;
	}
	return -EEXIST;
}

/* Write @text to @tmp through @fd and flush it to disk. */
static int write_temp(struct embperf_report *report, int fd, const char *tmp, const char *path,
		      const char *text)
{
	char why[128];
	int err = write_all(fd, text, strlen(text));

	if (err)
		return ep_report_fail(report, err, "cannot save the report to '%s': writing '%s': %s",
				      path, tmp, ep_strerror(err, why, sizeof(why)));
	/* Without the flush a crash after the rename could leave an empty file. */
	if (fsync(fd))
		return ep_report_fail(report, -errno, "cannot save the report to '%s': flushing '%s': %s",
				      path, tmp, ep_strerror(errno, why, sizeof(why)));
	return 0;
}

/**
 * embperf_report_save() - write a rendering to a file, atomically.
 * @report: report.
 * @format: an enum embperf_format value.
 * @path:   file to create or replace.
 *
 * The text goes to "@path.tmp-PID-N" in the same folder, is flushed, then
 * renamed over @path; on any failure the temporary file is removed and
 * @path is left as it was.
 *
 * Return: 0, or a negative errno (detail in embperf_report_errmsg()).
 */
int embperf_report_save(embperf_report *report, enum embperf_format format, const char *path)
{
	char why[128], *text, *tmp = NULL;
	int fd, err;

	if (!report)
		return -EINVAL;
	if (!path || !*path)
		return ep_report_fail(report, -EINVAL, "path: value '' is empty; accepted: a file name");
	if ((unsigned)format > EMBPERF_FORMAT_LAVA)
		return ep_report_fail(report, -EINVAL,
				      "format: value '%d' is not a report format; accepted: 0 (text), 1 (markdown), 2 (json), 3 (csv), 4 (junit), 5 (lava)",
				      (int)format);
	text = embperf_report_render(report, format);
	if (!text && errno == ENODATA)
		return ep_report_fail(report, -ENODATA,
				      "cannot save the report to '%s': it has no results, and an empty %s file would read as a run that found nothing wrong",
				      path, format == EMBPERF_FORMAT_JUNIT ? "JUnit" : "LAVA");
	if (!text)
		return ep_report_fail(report, -ENOMEM, "cannot render the report: out of memory");
	fd = create_temp(path, &tmp);
	if (fd < 0) {
		free(text);
		return ep_report_fail(report, fd,
				      "cannot save the report to '%s': creating a temporary file in its folder: %s",
				      path, ep_strerror(fd, why, sizeof(why)));
	}
	err = write_temp(report, fd, tmp, path, text);
	if (close(fd) && !err)
		err = ep_report_fail(report, -errno, "cannot save the report to '%s': closing '%s': %s",
				     path, tmp, ep_strerror(errno, why, sizeof(why)));
	if (!err && rename(tmp, path))
		err = ep_report_fail(report, -errno,
				     "cannot save the report to '%s': renaming '%s' to it: %s", path,
				     tmp, ep_strerror(errno, why, sizeof(why)));
	if (err)
		unlink(tmp);
	free(tmp);
	free(text);
	return err;
}
