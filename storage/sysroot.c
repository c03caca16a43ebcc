/*
 * sysroot.c - the folder that stands for "/" when feedrate reads /proc and
 * /sys, so that tests can describe a machine with a fixture tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage.h"

static char sysroot_buf[PATH_MAX];
static int sysroot_ready;       /* 0: not read yet, 1: sysroot_buf set */

static int sysroot_store(const char *root)
{
	size_t len;

	if (!root || !*root)
		root = "/";
	len = strlen(root);
	/* "/x/" and "/x" are the same root; "/" stays "/" */
	while (len > 1 && root[len - 1] == '/')
		len--;
	if (len >= sizeof(sysroot_buf))
		return -ENAMETOOLONG;
	memcpy(sysroot_buf, root, len);
	sysroot_buf[len] = '\0';
	sysroot_ready = 1;
	return 0;
}

const char *stg_sysroot(void)
{
	if (!sysroot_ready && sysroot_store(getenv("FEEDRATE_SYSROOT")) < 0)
		sysroot_store("/");
	return sysroot_buf;
}

int stg_sysroot_set(const char *root)
{
	if (!root)
		root = getenv("FEEDRATE_SYSROOT");
	return sysroot_store(root);
}

int stg_sysroot_path(const char *rel, char *buf, size_t cap)
{
	const char *root = stg_sysroot();
	int n;

	if (!rel)
		rel = "";
	/* "/" + "/proc/x" must not become "//proc/x"; a relative REL is
	 * taken from the root too */
	n = snprintf(buf, cap, "%s%s%s", strcmp(root, "/") ? root : "",
		     rel[0] == '/' ? "" : "/", rel);
	if (n < 0 || (size_t)n >= cap) {
		if (cap)
			buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return n;
}

int stg_sysroot_open(const char *rel, int flags)
{
	char path[PATH_MAX];
	int fd, n = stg_sysroot_path(rel, path, sizeof(path));

	if (n < 0)
		return n;
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

ssize_t stg_sysroot_read(const char *rel, char *buf, size_t cap)
{
	size_t got = 0;
	int fd;

	if (!cap)
		return -EINVAL;
	buf[0] = '\0';
	fd = stg_sysroot_open(rel, O_RDONLY);
	if (fd < 0)
		return fd;
	while (got + 1 < cap) {
		ssize_t n = read(fd, buf + got, cap - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			buf[0] = '\0';
			return err;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	close(fd);
	return (ssize_t)got;
}

ssize_t stg_sysroot_read_line(const char *rel, char *buf, size_t cap)
{
	ssize_t n = stg_sysroot_read(rel, buf, cap);
	size_t start = 0, end;
	char *nl;

	if (n < 0)
		return n;
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	end = strlen(buf);
	while (end > 0 && (buf[end - 1] == ' ' || buf[end - 1] == '\t' ||
			   buf[end - 1] == '\r'))
		end--;
	while (start < end && (buf[start] == ' ' || buf[start] == '\t'))
		start++;
	memmove(buf, buf + start, end - start);
	buf[end - start] = '\0';
	return (ssize_t)(end - start);
}
