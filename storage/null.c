/*
 * null.c - the null backend: no disk, no system call; every file "reads"
 * as SIZE synthetic bytes (a fixed 4 KiB pattern repeated), completed at
 * once. It lets the pipeline above the reader be measured and tested
 * without storage, and shows the reader core's own cost.
 *
 * With cfg.null_delay_ns, a file completes that long after it was queued
 * instead: queued files wait in a FIFO (the delay is the same for all, so
 * it is in deadline order) and getevents moves the due ones to the done
 * list, sleeping until the first is due when asked to wait.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reader_internal.h"

static uint8_t pattern[STG_ALIGN];
static pthread_once_t pattern_once = PTHREAD_ONCE_INIT;

static void pattern_fill(void)
{
	for (unsigned i = 0; i < STG_ALIGN; i++)
		pattern[i] = (uint8_t)((i * 131u) ^ (i >> 4) ^ 0x5a);
}

uint8_t stg_null_byte(uint64_t off)
{
	pthread_once(&pattern_once, pattern_fill);
	return pattern[off % STG_ALIGN];
}

/* Files waiting out their delay, oldest first (linked by io->next). */
struct null_delayed {
	struct stg_io *head, *tail;
};

static int null_init(struct stg_reader *r)
{
	pthread_once(&pattern_once, pattern_fill);
	r->be = NULL;
	if (r->cfg.null_delay_ns) {
		r->be = calloc(1, sizeof(struct null_delayed));
		if (!r->be)
			return -ENOMEM;
	}
	return 0;
}

/* Complete the delayed files due by NOW (all of them: UINT64_MAX). */
static unsigned null_complete_due(struct stg_reader *r, uint64_t now)
{
	struct null_delayed *d = r->be;
	unsigned n = 0;

	while (d && d->head && d->head->t_done <= now) {
		struct stg_io *io = d->head;

		d->head = io->next;
		if (!d->head)
			d->tail = NULL;
		stg_io_done(r, io);
		n++;
	}
	return n;
}

static void null_exit(struct stg_reader *r)
{
	null_complete_due(r, UINT64_MAX);
	free(r->be);
	r->be = NULL;
}

static void null_queue(struct stg_reader *r, struct stg_io *io, int dirfd,
		       const char *name)
{
	uint8_t *dst = io->buf->data;

	(void)dirfd;
	(void)name;
	for (uint64_t off = 0; off < io->size; off += STG_ALIGN) {
		uint64_t n = io->size - off < STG_ALIGN ? io->size - off
						       : STG_ALIGN;

		memcpy(dst + off, pattern, n);
	}
	io->max_end = io->size;
	io->nreads = 1;
	io->t_done = stg_now_ns();
	if (r->be) {
		struct null_delayed *d = r->be;

		io->t_done += r->cfg.null_delay_ns;
		io->next = NULL;
		if (d->tail)
			d->tail->next = io;
		else
			d->head = io;
		d->tail = io;
		return;
	}
	stg_io_done(r, io);
}

static int null_commit(struct stg_reader *r)
{
	(void)r;
	return 0;
}

static int null_getevents(struct stg_reader *r, uint64_t deadline_ns)
{
	struct null_delayed *d = r->be;
	uint64_t until;
	struct timespec ts;

	if (!d || null_complete_due(r, stg_now_ns()) || !d->head ||
	    deadline_ns == 0)
		return 0;
	until = d->head->t_done < deadline_ns ? d->head->t_done : deadline_ns;
	ts.tv_sec = (time_t)(until / 1000000000u);
	ts.tv_nsec = (long)(until % 1000000000u);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return null_complete_due(r, stg_now_ns()) ? 0 : -ETIME;
}

const struct stg_backend_ops stg_null_ops = {
	.name = "null",
	.id = STG_BACKEND_NULL,
	.init = null_init,
	.exit = null_exit,
	.queue = null_queue,
	.commit = null_commit,
	.getevents = null_getevents,
};
