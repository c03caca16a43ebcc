/*
 * psync.c - the psync backend: a pool of threads, each reading one whole
 * file at a time with pread in block-size chunks.
 *
 * DESIGN: threads: the reader's own thread plus cfg.psync_threads workers.
 * Queues, all under ps->lock:
 *   work  - files the reader committed, taken by workers in order;
 *   done  - files workers finished, taken by the reader in getevents.
 * `local` (files queued since the last commit) and the name copies belong
 * to the reader thread until commit moves the files to `work`; from then
 * a file, its buffer and its name slot belong to the worker that took it,
 * until it is on `done`. The mutex hand-offs order every access. A commit
 * of N files signals work_cv min(N, idle workers) times (work_waiters,
 * under the lock), not a broadcast that wakes every worker. On exit
 * the workers finish the file in hand and drop the rest.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader_internal.h"

struct psync {
	struct stg_reader *r;
	pthread_mutex_t lock;
	pthread_cond_t work_cv;
	pthread_cond_t done_cv;
	struct stg_io *work_head, *work_tail;
	struct stg_io *done_head, *done_tail;
	struct stg_io *local_head, *local_tail;
	unsigned nlocal;
	unsigned work_waiters;  /* workers asleep on work_cv */
	bool stop;
	unsigned nthreads;
	pthread_t *threads;
	char (*names)[PATH_MAX];  /* one per request slot */
	int *dirfds;
};

static void list_append(struct stg_io **head, struct stg_io **tail,
			struct stg_io *io)
{
	io->next = NULL;
	if (*tail)
		(*tail)->next = io;
	else
		*head = io;
	*tail = io;
}

static void psync_read_file(struct psync *ps, struct stg_io *io)
{
	struct stg_reader *r = ps->r;
	size_t slot = (size_t)(io - r->ios);
	uint64_t off = 0;
	int err;

	err = stg_io_open(r, io, ps->dirfds[slot], ps->names[slot]);
	if (err) {
		io->result = err;
		return;
	}
	while (off < io->want) {
		uint64_t len = io->want - off;
		struct iovec iov[2];
		unsigned niov;
		ssize_t n;

		if (len > r->cfg.block_size + STG_ALIGN)  /* see uring_pump */
			len = r->cfg.block_size;
		/* the bytes past the buffer, if any, go to the probe page */
		niov = stg_io_iov(r, io, off, len, iov);
		n = preadv(io->fd, iov, (int)niov, (off_t)off);
		io->nreads++;
		if (n < 0 && errno == EINTR)
			continue;
		if (stg_io_chunk(io, off, len, n < 0 ? -errno : n)) {
			off += (uint64_t)n;     /* short: ask for the rest */
			continue;
		}
		if (n < 0 || (uint64_t)n < len)
			break;
		off += len;
	}
	close(io->fd);
	io->fd = -1;
	stg_io_settle(io);
}

static void *psync_worker(void *arg)
{
	struct psync *ps = arg;

	for (;;) {
		struct stg_io *io;

		pthread_mutex_lock(&ps->lock);
		while (!ps->work_head && !ps->stop) {
			ps->work_waiters++;
			pthread_cond_wait(&ps->work_cv, &ps->lock);
			ps->work_waiters--;
		}
		if (ps->stop) {
			pthread_mutex_unlock(&ps->lock);
			return NULL;
		}
		io = ps->work_head;
		ps->work_head = io->next;
		if (!ps->work_head)
			ps->work_tail = NULL;
		pthread_mutex_unlock(&ps->lock);

		psync_read_file(ps, io);
		io->t_done = stg_now_ns();

		pthread_mutex_lock(&ps->lock);
		list_append(&ps->done_head, &ps->done_tail, io);
		pthread_cond_signal(&ps->done_cv);
		pthread_mutex_unlock(&ps->lock);
	}
}

static void psync_exit(struct stg_reader *r);

static int psync_init(struct stg_reader *r)
{
	struct psync *ps;
	pthread_condattr_t ca;
	int err;

	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	ps->r = r;
	r->be = ps;
	ps->names = malloc((size_t)r->cfg.depth * sizeof(*ps->names));
	ps->dirfds = calloc(r->cfg.depth, sizeof(*ps->dirfds));
	ps->threads = calloc(r->cfg.psync_threads, sizeof(*ps->threads));
	if (!ps->names || !ps->dirfds || !ps->threads) {
		err = -ENOMEM;
		goto err_free;
	}
	pthread_mutex_init(&ps->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ps->done_cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&ps->work_cv, NULL);
	for (unsigned i = 0; i < r->cfg.psync_threads; i++) {
		err = -pthread_create(&ps->threads[i], NULL, psync_worker, ps);
		if (err) {
			psync_exit(r);
			return err;
		}
		ps->nthreads++;
		pthread_setname_np(ps->threads[i], "feedrate-psync");
	}
	return 0;
err_free:
	free(ps->names);
	free(ps->dirfds);
	free(ps->threads);
	free(ps);
	r->be = NULL;
	return err;
}

static void psync_exit(struct stg_reader *r)
{
	struct psync *ps = r->be;

	if (!ps)
		return;
	pthread_mutex_lock(&ps->lock);
	ps->stop = true;
	pthread_cond_broadcast(&ps->work_cv);
	pthread_mutex_unlock(&ps->lock);
	for (unsigned i = 0; i < ps->nthreads; i++)
		pthread_join(ps->threads[i], NULL);
	pthread_cond_destroy(&ps->work_cv);
	pthread_cond_destroy(&ps->done_cv);
	pthread_mutex_destroy(&ps->lock);
	free(ps->names);
	free(ps->dirfds);
	free(ps->threads);
	free(ps);
	r->be = NULL;
}

static void psync_queue(struct stg_reader *r, struct stg_io *io, int dirfd,
			const char *name)
{
	struct psync *ps = r->be;
	size_t slot = (size_t)(io - r->ios);
	size_t n = strlen(name);

	if (n >= PATH_MAX) {
		io->result = -ENAMETOOLONG;
		io->t_done = stg_now_ns();
		stg_io_done(r, io);
		return;
	}
	memcpy(ps->names[slot], name, n + 1);
	ps->dirfds[slot] = dirfd;
	list_append(&ps->local_head, &ps->local_tail, io);
	ps->nlocal++;
}

static int psync_commit(struct stg_reader *r)
{
	struct psync *ps = r->be;

	if (!ps->local_head)
		return 0;
	pthread_mutex_lock(&ps->lock);
	if (ps->work_tail)
		ps->work_tail->next = ps->local_head;
	else
		ps->work_head = ps->local_head;
	ps->work_tail = ps->local_tail;
	/* one wake-up per file, at most one per idle worker */
	for (unsigned k = 0; k < ps->nlocal && k < ps->work_waiters; k++)
		pthread_cond_signal(&ps->work_cv);
	pthread_mutex_unlock(&ps->lock);
	ps->local_head = ps->local_tail = NULL;
	ps->nlocal = 0;
	return 0;
}

static int psync_getevents(struct stg_reader *r, uint64_t deadline_ns)
{
	struct psync *ps = r->be;
	struct stg_io *list;
	int err = 0;

	pthread_mutex_lock(&ps->lock);
	while (!ps->done_head && deadline_ns) {
		if (deadline_ns == UINT64_MAX) {
			pthread_cond_wait(&ps->done_cv, &ps->lock);
		} else {
			struct timespec ts = {
				.tv_sec = (time_t)(deadline_ns / 1000000000ull),
				.tv_nsec = (long)(deadline_ns % 1000000000ull),
			};

			if (pthread_cond_timedwait(&ps->done_cv, &ps->lock,
						   &ts) == ETIMEDOUT) {
				err = -ETIME;
				break;
			}
		}
	}
	list = ps->done_head;
	ps->done_head = ps->done_tail = NULL;
	pthread_mutex_unlock(&ps->lock);
	while (list) {
		struct stg_io *next = list->next;

		stg_io_done(r, list);
		list = next;
	}
	return err;
}

static int psync_pin(struct stg_reader *r, const cpu_set_t *set)
{
	struct psync *ps = r->be;
	int err = 0;

	for (unsigned i = 0; i < ps->nthreads; i++) {
		int e = pthread_setaffinity_np(ps->threads[i], sizeof(*set), set);

		if (e && !err)
			err = -e;
	}
	return err;
}

const struct stg_backend_ops stg_psync_ops = {
	.name = "psync",
	.id = STG_BACKEND_PSYNC,
	.init = psync_init,
	.exit = psync_exit,
	.queue = psync_queue,
	.commit = psync_commit,
	.getevents = psync_getevents,
	.pin = psync_pin,
};
