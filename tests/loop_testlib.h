/*
 * loop_testlib.h - a real block device for tests: a 1 MiB image of known
 * bytes attached to a free loop device (as `losetup -f` does, autoclear
 * set in the same call), its digest, and its detach. Static functions:
 * include in one test file each; use loop_detach as the test's .fini.
 */
#ifndef FEEDRATE_LOOP_TESTLIB_H
#define FEEDRATE_LOOP_TESTLIB_H

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "harness.h"

#define LOOP_IMG_BYTES (1 << 20)

/* The loop device the test attaches; loop_detach (the .fini) always
 * detaches it, after a failed assertion too. */
static struct {
	char *dir;
	char dev[64];
	int fd;                         /* held open, autoclear set */
} loop = { .fd = -1 };

static void loop_detach(void)
{
	if (loop.fd >= 0) {
		/* with the device still open elsewhere (udev probing it)
		 * the kernel detaches it at the last close */
		ioctl(loop.fd, LOOP_CLR_FD, 0);
		close(loop.fd);
		loop.fd = -1;
	}
	if (loop.dir)
		fr_test_rmtree(loop.dir);
	loop.dir = NULL;
}

/*
 * Attach a 1 MiB image of known bytes to a free loop device, as
 * `losetup -f` does (LOOP_CTL_GET_FREE, then LOOP_CONFIGURE), or skip.
 * Autoclear is set in the same call that attaches, so the device goes
 * away at the last close even if the test dies before its .fini.
 */
static void loop_attach(void)
{
	struct loop_config cfg = { .info.lo_flags = LO_FLAGS_AUTOCLEAR };
	unsigned char *pattern;
	int ctl, img_fd, err = 0;
	char *img;
	FILE *f;

	if (geteuid() != 0)
		cr_skip_test("attaching a loop device needs root");
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		cr_skip_test("no /dev/loop-control (%s): loop driver missing, "
			     "or a container without loop devices",
			     strerror(errno));
	loop.dir = fr_test_tmpdir();
	img = malloc(strlen(loop.dir) + sizeof("/disk.img"));
	cr_assert_not_null(img);
	strcpy(img, loop.dir);
	strcat(img, "/disk.img");
	pattern = malloc(LOOP_IMG_BYTES);
	cr_assert_not_null(pattern);
	for (size_t i = 0; i < LOOP_IMG_BYTES; i++)
		pattern[i] = (unsigned char)(i * 131 + (i >> 9));
	f = fopen(img, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(pattern, 1, LOOP_IMG_BYTES, f), LOOP_IMG_BYTES);
	cr_assert_eq(fclose(f), 0);
	free(pattern);
	img_fd = open(img, O_RDWR | O_CLOEXEC);
	free(img);
	cr_assert_geq(img_fd, 0, "%s", strerror(errno));
	cfg.fd = (__u32)img_fd;

	/* another process may take the free device first: try again */
	for (int tries = 0; tries < 16 && loop.fd < 0; tries++) {
		int nr = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (nr < 0) {
			err = errno;
			break;
		}
		snprintf(loop.dev, sizeof(loop.dev), "/dev/loop%d", nr);
		/* read-write, or the kernel makes the device read-only and
		 * a writer could not have harmed it anyway */
		loop.fd = open(loop.dev, O_RDWR | O_CLOEXEC);
		if (loop.fd < 0) {
			err = errno;
			continue;
		}
		if (ioctl(loop.fd, LOOP_CONFIGURE, &cfg) == 0)
			break;
		err = errno;
		close(loop.fd);
		loop.fd = -1;
		if (err != EBUSY)
			break;
	}
	close(img_fd);
	close(ctl);
	if (loop.fd < 0)
		cr_skip_test("could not attach a loop device (%s: %s)", loop.dev,
			     strerror(err));
}

/* FNV-1a over every byte of the device, read through its page cache (the
 * one a write would have gone into). */
static uint64_t loop_digest(void)
{
	static unsigned char buf[65536];
	uint64_t h = 0xcbf29ce484222325ull, total = 0;
	ssize_t n;

	while ((n = pread(loop.fd, buf, sizeof(buf), (off_t)total)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
		total += (uint64_t)n;
	}
	cr_assert_eq(n, 0, "reading %s: %s", loop.dev, strerror(errno));
	cr_assert_eq(total, LOOP_IMG_BYTES, "%s holds %llu bytes", loop.dev,
		     (unsigned long long)total);
	return h;
}

#endif /* FEEDRATE_LOOP_TESTLIB_H */
