/*
 * cacheprep.c - evict, warm and verify a whole dataset's page cache in
 * batches, spread over worker threads: the preparation of a measurement
 * point at ImageNet's size (1.28 M files), and the random sample that
 * verifies it with a stated error bound.
 *
 * Eviction per file is openat, POSIX_FADV_DONTNEED and close; warming is
 * openat, one read into a slot's buffer (the rest of a larger file by
 * pread) and close. On io_uring these go as linked chains into direct
 * descriptors (IORING_OP_OPENAT into a registered slot, FADVISE or READ
 * on that slot, CLOSE of the slot), B files a submission, so a file costs
 * no system call of its own; the ring's io-wq workers take what cannot
 * complete inline (fadvise DONTNEED always goes there) and are pinned to
 * the same CPUs. Where io_uring is refused (seccomp, io_uring_disabled,
 * an old kernel) the same workers make the calls themselves. Dirty pages
 * are written back once, by syncfs(2) on the dataset's filesystem before
 * eviction, instead of fdatasync per file: on ext4 each fdatasync of a
 * clean file still sends the disk a cache flush (blkdev_issue_flush), and
 * those flushes were most of the 50 us a file that eviction cost.
 *
 * Verification opens each sampled file, asks its residency (cachestat,
 * else mincore: pagecache.c) and closes it, on the same workers.
 *
 * DESIGN
 * Threads: the caller's thread starts W workers (one per CPU of the set
 * given, each pinned to its CPU, or stg_cpus_usable() unpinned), then
 * waits for them on a condition variable with a 100 ms deadline per wait,
 * calling the progress callback between waits; it joins them at the end.
 * Work: the ids are claimed in chunks of B by an atomic cursor; each
 * worker owns its ring, its slots' buffers and its result, which the
 * caller adds up after the join. Shared: cursor, done count and stop flag
 * (atomics), the count of workers still running (under the mutex).
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reader_internal.h"
#include "storage.h"
#include "cache_internal.h"

#define PREP_BATCH 32u                 /* files per ring submission */
#define PREP_SLOT_BYTES (128u << 10)   /* a warming slot's buffer */
#define PREP_WAIT_NS 100000000L        /* the caller's wait, each */

/* Rings are mapped and unmapped one at a time: liburing maps them with
 * raw system calls ThreadSanitizer does not see, and a ring mapped where
 * another thread's ring just was would read as a race. Once per worker
 * and phase: no cost worth a lock-free path. */
static pthread_mutex_t ring_map_lock = PTHREAD_MUTEX_INITIALIZER;

struct prep_worker {
	struct prep_ctx *ctx;
	pthread_t tid;
	int cpu;                /* pinned to it; -1 not pinned */
	bool started;
	/* out */
	struct stg_prep_result r;
};

struct prep_ctx {
	const struct stg_dataset *ds;
	enum stg_prep_op op;
	const struct stg_prep_opts *o;
	const size_t *ids;
	size_t total;
	int dirfd;
	cpu_set_t set;
	bool pin;
	_Atomic size_t cursor;
	_Atomic uint64_t done;
	_Atomic int stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned running;       /* under lock */
};

const char *stg_prep_op_name(enum stg_prep_op op)
{
	switch (op) {
	case STG_PREP_EVICT: return "evict";
	case STG_PREP_WARM: return "warm";
	case STG_PREP_VERIFY: return "verify";
	default: return "?";
	}
}

/* ---- the sample and its bound ---- */

size_t stg_sample_size(double bound, double confidence)
{
	double n;

	if (!(bound > 0) || !(confidence > 0) || !(confidence < 1))
		return 0;
	/* Hoeffding: P(|mean - mu| >= t) <= 2 exp(-2 n t^2) for values in
	 * [0, 1], and no larger when drawn without replacement (Hoeffding
	 * 1963, section 6) */
	n = ceil(log(2.0 / (1.0 - confidence)) / (2.0 * bound * bound));
	return n > (double)SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)n;
}

double stg_sample_bound(size_t n, size_t population, double confidence)
{
	if (n >= population)
		return 0;       /* every file checked: no sampling error */
	if (!n || !(confidence > 0) || !(confidence < 1))
		return 1;
	return fmin(1.0, sqrt(log(2.0 / (1.0 - confidence)) /
			      (2.0 * (double)n)));
}

/* xorshift64*: the sample's generator, seeded */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

int stg_sample_ids(size_t population, size_t n, uint64_t seed, size_t **ids)
{
	uint64_t *bits, s = seed * 0x9E3779B97F4A7C15ull + 1;
	size_t k = 0;

	*ids = NULL;
	if (n > population)
		n = population;
	bits = calloc(population / 64 + 1, sizeof(*bits));
	*ids = malloc((n ? n : 1) * sizeof(**ids));
	if (!bits || !*ids) {
		free(bits);
		free(*ids);
		*ids = NULL;
		return -ENOMEM;
	}
	/* Floyd's algorithm: n distinct ids, each subset equally likely */
	for (size_t j = population - n; j < population; j++) {
		size_t t = (size_t)(rng_next(&s) % (j + 1));

		if (bits[t / 64] >> (t % 64) & 1)
			t = j;
		bits[t / 64] |= 1ull << (t % 64);
	}
	for (size_t i = 0; i < population && k < n; i++)
		if (bits[i / 64] >> (i % 64) & 1)
			(*ids)[k++] = i;
	free(bits);
	return 0;
}

/* ---- one file, by system calls (the fallback, and verification) ---- */

static void note_err(struct stg_prep_result *r, int err)
{
	r->errors++;
	if (!r->first_err)
		r->first_err = err;
}

static void file_sync(struct prep_ctx *c, size_t id, char *buf,
		      struct stg_prep_result *r)
{
	const char *path = stg_dataset_relpath(c->ds, id, NULL);
	int fd, err = 0;

	stg_watch_begin(path);
	fd = openat(c->dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		note_err(r, -errno);
		stg_watch_end();
		return;
	}
	switch (c->op) {
	case STG_PREP_EVICT:
		err = -posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		break;
	case STG_PREP_WARM:
		err = stg_fd_read_rest(fd, buf, PREP_SLOT_BYTES, 0, &r->bytes);
		break;
	case STG_PREP_VERIFY: {
		uint64_t res = 0, size = 0;

		err = stg_cache_fd_resident(fd, &res, &size, NULL);
		if (!err) {
			r->bytes += size;
			r->resident_bytes += res;
			r->resident_sum += size ? (double)res / (double)size :
					   1.0;
		}
		break;
	}
	default:
		err = -EINVAL;
	}
	close(fd);
	stg_watch_end();
	if (err)
		note_err(r, err);
	else
		r->files++;
}

/* ---- B files, by the ring ---- */

struct prep_ring {
	struct io_uring ring;
	char *bufs;             /* warm: PREP_BATCH slots' buffers */
	bool up;
};

/* A ring with PREP_BATCH direct-descriptor slots, its io-wq workers on
 * the worker's CPUs. Returns 0 or -errno (then the caller makes the
 * calls itself). */
static int ring_setup(struct prep_ctx *c, struct prep_ring *pr)
{
	int err;

	memset(pr, 0, sizeof(*pr));
	pthread_mutex_lock(&ring_map_lock);
	err = io_uring_queue_init(4 * PREP_BATCH, &pr->ring, 0);
	if (!err) {
		err = io_uring_register_files_sparse(&pr->ring, PREP_BATCH);
		if (err)
			io_uring_queue_exit(&pr->ring);
	}
	pthread_mutex_unlock(&ring_map_lock);
	if (err)
		return err;
	if (c->pin)
		(void)io_uring_register_iowq_aff(&pr->ring, sizeof(c->set),
						 &c->set);
	if (c->op == STG_PREP_WARM) {
		pr->bufs = malloc((size_t)PREP_BATCH * PREP_SLOT_BYTES);
		if (!pr->bufs) {
			pthread_mutex_lock(&ring_map_lock);
			io_uring_queue_exit(&pr->ring);
			pthread_mutex_unlock(&ring_map_lock);
			return -ENOMEM;
		}
	}
	pr->up = true;
	return 0;
}

static void ring_teardown(struct prep_ring *pr)
{
	if (pr->up) {
		pthread_mutex_lock(&ring_map_lock);
		io_uring_queue_exit(&pr->ring);
		pthread_mutex_unlock(&ring_map_lock);
	}
	free(pr->bufs);
	pr->up = false;
}

/* user_data: the slot, and which step of its chain */
enum { STEP_OPEN, STEP_OP, STEP_CLOSE };
#define UD(slot, step) ((uint64_t)(slot) << 2 | (step))

/*
 * The files IDS[0..N) through the ring: one chain each, open into its
 * slot -> fadvise or read on the slot (hard-linked, so that the close
 * runs whatever it returned) -> close the slot. Returns 0, or -errno when
 * the ring itself failed (the caller then does the chunk by calls).
 */
static int ring_batch(struct prep_ctx *c, struct prep_ring *pr,
		      const size_t *ids, unsigned n, char *spill,
		      struct stg_prep_result *r)
{
	int open_res[PREP_BATCH], op_res[PREP_BATCH];
	unsigned want = 0, got = 0;
	int err;

	for (unsigned s = 0; s < n; s++) {
		const char *path = stg_dataset_relpath(c->ds, ids[s], NULL);
		struct io_uring_sqe *sqe = io_uring_get_sqe(&pr->ring);

		io_uring_prep_openat_direct(sqe, c->dirfd, path,
					    O_RDONLY | O_NOCTTY, 0, s);
		sqe->flags |= IOSQE_IO_LINK;
		sqe->user_data = UD(s, STEP_OPEN);
		sqe = io_uring_get_sqe(&pr->ring);
		if (c->op == STG_PREP_EVICT)
			io_uring_prep_fadvise(sqe, (int)s, 0, 0,
					      POSIX_FADV_DONTNEED);
		else
			io_uring_prep_read(sqe, (int)s, pr->bufs +
					   (size_t)s * PREP_SLOT_BYTES,
					   PREP_SLOT_BYTES, 0);
		sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
		sqe->user_data = UD(s, STEP_OP);
		sqe = io_uring_get_sqe(&pr->ring);
		io_uring_prep_close_direct(sqe, s);
		sqe->user_data = UD(s, STEP_CLOSE);
		want += 3;
		open_res[s] = op_res[s] = -ECANCELED;
	}
	/* the batch is one wait for the stall watch, named by its first
	 * file (storage/watch.c) */
	stg_watch_begin(n ? stg_dataset_relpath(c->ds, ids[0], NULL) : NULL);
	err = io_uring_submit(&pr->ring);
	if (err < 0) {
		stg_watch_end();
		return err;
	}
	while (got < want) {
		struct io_uring_cqe *cqe;
		unsigned slot;

		err = io_uring_wait_cqe(&pr->ring, &cqe);
		if (err == -EINTR)
			continue;
		if (err < 0) {
			stg_watch_end();
			return err;
		}
		slot = (unsigned)(cqe->user_data >> 2);
		if ((cqe->user_data & 3) == STEP_OPEN)
			open_res[slot] = cqe->res;
		else if ((cqe->user_data & 3) == STEP_OP)
			op_res[slot] = cqe->res;
		io_uring_cqe_seen(&pr->ring, cqe);
		got++;
	}
	stg_watch_end();
	for (unsigned s = 0; s < n; s++) {
		if (open_res[s] < 0) {
			note_err(r, open_res[s]);
			continue;
		}
		if (op_res[s] < 0) {
			note_err(r, op_res[s]);
			continue;
		}
		if (c->op == STG_PREP_WARM) {
			r->bytes += (uint64_t)op_res[s];
			/* a larger file: the rest by calls */
			if ((unsigned)op_res[s] == PREP_SLOT_BYTES) {
				const char *path = stg_dataset_relpath(c->ds,
							ids[s], NULL);
				int fd;

				stg_watch_begin(path);
				fd = openat(c->dirfd, path, O_RDONLY |
					    O_CLOEXEC | O_NOCTTY);
				err = fd < 0 ? -errno : stg_fd_read_rest(fd, spill,
					PREP_SLOT_BYTES, PREP_SLOT_BYTES,
					&r->bytes);
				if (fd >= 0)
					close(fd);
				stg_watch_end();
				if (err) {
					note_err(r, err);
					continue;
				}
			}
		}
		r->files++;
	}
	return 0;
}

/* ---- the workers ---- */

static void *prep_worker_main(void *arg)
{
	struct prep_worker *w = arg;
	struct prep_ctx *c = w->ctx;
	struct stg_prep_result *r = &w->r;
	struct prep_ring pr = { .up = false };
	size_t chunk[PREP_BATCH];
	char *spill = malloc(PREP_SLOT_BYTES);

	if (w->cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(w->cpu, &one);
		(void)pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	}
	if (!spill) {
		note_err(r, -ENOMEM);
		goto out;
	}
	/* verification has no ring step: cachestat is a call */
	if (c->op != STG_PREP_VERIFY && !c->o->no_uring) {
		int err = ring_setup(c, &pr);

		if (err) {
			char why[140];

			stg_uring_refusal_text(err, -1, why, sizeof(why));
			snprintf(r->why, sizeof(r->why), "%.140s: each file by "
				 "system calls on the same workers", why);
		}
	} else if (c->op != STG_PREP_VERIFY) {
		snprintf(r->why, sizeof(r->why), "io_uring not asked for: "
			 "each file by system calls");
	}
	r->uring = pr.up;
	while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		size_t a = atomic_fetch_add(&c->cursor, PREP_BATCH);
		unsigned n;

		if (a >= c->total)
			break;
		n = (unsigned)(c->total - a < PREP_BATCH ? c->total - a :
			       PREP_BATCH);
		for (unsigned k = 0; k < n; k++)
			chunk[k] = c->ids ? c->ids[a + k] : a + k;
		if (pr.up && ring_batch(c, &pr, chunk, n, spill, r) < 0) {
			/* the ring broke mid-way: this chunk again, by calls
			 * (eviction and warming bear a repeat) */
			ring_teardown(&pr);
			r->uring = false;
			snprintf(r->why, sizeof(r->why), "the ring failed "
				 "mid-way: the rest by system calls");
		}
		if (!pr.up)
			for (unsigned k = 0; k < n; k++)
				file_sync(c, chunk[k], spill, r);
		atomic_fetch_add_explicit(&c->done, n, memory_order_relaxed);
	}
out:
	ring_teardown(&pr);
	free(spill);
	pthread_mutex_lock(&c->lock);
	c->running--;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Report progress; true when the callback asks to stop. */
static bool prep_tick(struct prep_ctx *c, double t0)
{
	const struct stg_prep_opts *o = c->o;

	if (!o->progress)
		return false;
	return o->progress(o->progress_arg, c->op,
			   atomic_load_explicit(&c->done,
						memory_order_relaxed),
			   c->total, stg_now() - t0) != 0;
}

/* The workers' CPUs: the set given, else none pinned. */
static unsigned prep_workers(struct prep_ctx *c, int *cpus, unsigned cap)
{
	unsigned n = 0;

	if (c->o->cpus && CPU_COUNT(c->o->cpus) > 0) {
		c->set = *c->o->cpus;
		c->pin = true;
		for (int k = 0; k < CPU_SETSIZE && n < cap; k++)
			if (CPU_ISSET(k, &c->set))
				cpus[n++] = k;
		return n;
	}
	n = stg_cpus_usable();
	if (n < 1)
		n = 1;
	if (n > cap)
		n = cap;
	for (unsigned k = 0; k < n; k++)
		cpus[k] = -1;
	return n;
}

int stg_prep_run(const struct stg_dataset *ds, enum stg_prep_op op,
		 const struct stg_prep_opts *opts, struct stg_prep_result *out)
{
	static const struct stg_prep_opts none;
	struct prep_ctx c = { .ds = ds, .op = op, .o = opts ? opts : &none,
			      .dirfd = -1 };
	struct prep_worker *w = NULL;
	int cpus[STG_PREP_WORKERS_MAX];
	const double t0 = stg_now();
	unsigned nw, started = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (op < 0 || op >= STG_PREP_OPS)
		return -EINVAL;
	c.ids = c.o->ids;
	c.total = c.o->ids ? c.o->nids : stg_dataset_count(ds);
	atomic_init(&c.cursor, 0);
	atomic_init(&c.done, 0);
	atomic_init(&c.stop, 0);
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.cond, NULL);
	stg_watch_begin(stg_dataset_root(ds));
	c.dirfd = open(stg_dataset_root(ds), O_RDONLY | O_DIRECTORY |
		       O_CLOEXEC);
	if (c.dirfd < 0) {
		err = -errno;
		stg_watch_end();
		goto out;
	}
	/* dirty pages stay put under DONTNEED: write them back once, for
	 * the whole filesystem (ENOSYS, EROFS: nothing to write) */
	if (op == STG_PREP_EVICT && c.total)
		(void)syncfs(c.dirfd);
	stg_watch_end();
	nw = prep_workers(&c, cpus, STG_PREP_WORKERS_MAX);
	if ((size_t)nw * PREP_BATCH > c.total)
		nw = (unsigned)((c.total + PREP_BATCH - 1) / PREP_BATCH);
	if (!nw)
		goto out;
	w = calloc(nw, sizeof(*w));
	if (!w) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned k = 0; k < nw; k++) {
		w[k].ctx = &c;
		w[k].cpu = cpus[k];
		pthread_mutex_lock(&c.lock);
		c.running++;
		pthread_mutex_unlock(&c.lock);
		err = -pthread_create(&w[k].tid, NULL, prep_worker_main,
				      &w[k]);
		if (err) {
			pthread_mutex_lock(&c.lock);
			c.running--;
			pthread_mutex_unlock(&c.lock);
			break;
		}
		w[k].started = true;
		started++;
	}
	if (!started)
		goto out;
	err = 0;
	/* wait, 100 ms at a time, telling progress between waits */
	pthread_mutex_lock(&c.lock);
	while (c.running) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += PREP_WAIT_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&c.cond, &c.lock, &ts);
		if (!c.running)
			break;
		pthread_mutex_unlock(&c.lock);
		if (prep_tick(&c, t0))
			atomic_store(&c.stop, 1);
		pthread_mutex_lock(&c.lock);
	}
	pthread_mutex_unlock(&c.lock);
	for (unsigned k = 0; k < nw; k++) {
		const struct stg_prep_result *r = &w[k].r;

		if (!w[k].started)
			continue;
		pthread_join(w[k].tid, NULL);
		out->files += r->files;
		out->errors += r->errors;
		if (!out->first_err)
			out->first_err = r->first_err;
		out->bytes += r->bytes;
		out->resident_bytes += r->resident_bytes;
		out->resident_sum += r->resident_sum;
		if (k == 0)
			out->uring = r->uring;
		out->uring = out->uring && r->uring;
		if (!out->why[0] && r->why[0])
			memcpy(out->why, r->why, sizeof(out->why));
	}
	out->workers = started;
	out->stopped = atomic_load(&c.stop) != 0;
	(void)prep_tick(&c, t0);
out:
	free(w);
	if (c.dirfd >= 0)
		close(c.dirfd);
	pthread_cond_destroy(&c.cond);
	pthread_mutex_destroy(&c.lock);
	out->seconds = stg_now() - t0;
	return err;
}
