/*
 * stress_storage.c - the reader under threads, for ThreadSanitizer: several
 * reader threads (one reader each) hand their buffers to worker threads
 * that check the bytes and release them, as the loader will; on each
 * backend. Also destroys readers with reads still in flight.
 *
 * DESIGN: threads: NREADERS readers claim file ids from one atomic counter;
 * NWORKERS workers take completions from one mutex-protected queue. A
 * buffer belongs to its reader until reaped, then to the queue, then to the
 * worker that took it, which releases it to the reader's pool.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage.h"
#include "stress.h"

#define NFILES 160
#define NREADERS 3
#define NWORKERS 2
#define QCAP 256

struct sfile {
	char path[256];
	uint64_t size;
	uint64_t sum;
};

struct squeue {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct stg_completion item[QCAP];
	unsigned head, count;
	bool closed;
};

struct sctx {
	enum stg_backend_id backend;
	struct sfile *files;
	atomic_uint next;
	atomic_uint ok, bad, errors;
	atomic_uint nreaders;
	struct stg_reader *readers[NREADERS];
	struct squeue q;
};

static uint64_t fnv(const uint8_t *p, uint64_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (uint64_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

static void q_push(struct squeue *q, const struct stg_completion *c)
{
	pthread_mutex_lock(&q->lock);
	while (q->count == QCAP)
		pthread_cond_wait(&q->cv, &q->lock);
	q->item[(q->head + q->count++) % QCAP] = *c;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->lock);
}

static bool q_pop(struct squeue *q, struct stg_completion *c)
{
	pthread_mutex_lock(&q->lock);
	while (!q->count && !q->closed)
		pthread_cond_wait(&q->cv, &q->lock);
	if (!q->count) {
		pthread_mutex_unlock(&q->lock);
		return false;
	}
	*c = q->item[q->head];
	q->head = (q->head + 1) % QCAP;
	q->count--;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->lock);
	return true;
}

static void *worker_main(void *arg)
{
	struct sctx *x = arg;
	struct stg_completion c;

	while (q_pop(&x->q, &c)) {
		const struct sfile *f = &x->files[c.user_data];
		uint64_t want = f->sum;

		if (x->backend == STG_BACKEND_NULL)
			want = 0;       /* bytes are synthetic: check size only */
		if (c.result)
			atomic_fetch_add(&x->errors, 1);
		else if (c.len == f->size &&
			 (x->backend == STG_BACKEND_NULL || fnv(c.data, c.len) == want))
			atomic_fetch_add(&x->ok, 1);
		else
			atomic_fetch_add(&x->bad, 1);
		stg_buf_release(c.buf);
	}
	return NULL;
}

static void *reader_main(void *arg)
{
	struct sctx *x = arg;
	struct stg_reader_config cfg = {
		.backend = x->backend,
		.depth = 8,
		.block_size = 32 * 1024,
		.psync_threads = 4,
		.max_inflight_bytes = 4 << 20,
	};
	struct stg_completion c[16];
	struct stg_reader *r;
	bool more = true;

	if (stg_reader_create(&cfg, &r)) {
		atomic_fetch_add(&x->errors, 1000);
		return NULL;
	}
	while (more || stg_reader_pending(r)) {
		int n;

		while (more) {
			unsigned id = atomic_fetch_add(&x->next, 1);
			struct stg_read_req req;
			int err;

			if (id >= NFILES) {
				more = false;
				break;
			}
			req = (struct stg_read_req){ AT_FDCWD, x->files[id].path,
						     x->files[id].size, id };
			while ((err = stg_reader_submit(r, &req)) == -EAGAIN) {
				n = stg_reader_reap(r, c, 16, 1000000);
				for (int i = 0; i < n; i++)
					q_push(&x->q, &c[i]);
			}
			if (err)
				atomic_fetch_add(&x->errors, 1);
			if (stg_reader_pending(r) >= cfg.depth)
				break;
		}
		n = stg_reader_reap(r, c, 16, -1);
		for (int i = 0; i < n; i++)
			q_push(&x->q, &c[i]);
	}
	/* workers may still hold buffers of this pool: the main thread
	 * destroys the reader once they are joined */
	x->readers[atomic_fetch_add(&x->nreaders, 1)] = r;
	return NULL;
}

static int check(bool ok, const char *what, const char *backend)
{
	printf("%s %s (%s)\n", ok ? "ok  " : "FAIL", what, backend);
	return ok ? 0 : 1;
}

static int rm_entry(const char *p, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

static int run_backend(enum stg_backend_id b, struct sfile *files)
{
	const char *name = stg_backend_name(b);
	pthread_t rd[NREADERS], wk[NWORKERS];
	struct sctx *x = calloc(1, sizeof(*x));
	int failed = 0;

	if (!x)
		return check(false, "memory", name);
	x->backend = b;
	x->files = files;
	pthread_mutex_init(&x->q.lock, NULL);
	pthread_cond_init(&x->q.cv, NULL);
	for (int i = 0; i < NWORKERS; i++)
		pthread_create(&wk[i], NULL, worker_main, x);
	for (int i = 0; i < NREADERS; i++)
		pthread_create(&rd[i], NULL, reader_main, x);
	for (int i = 0; i < NREADERS; i++)
		pthread_join(rd[i], NULL);
	pthread_mutex_lock(&x->q.lock);
	x->q.closed = true;
	pthread_cond_broadcast(&x->q.cv);
	pthread_mutex_unlock(&x->q.lock);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(wk[i], NULL);
	for (unsigned i = 0; i < atomic_load(&x->nreaders); i++)
		stg_reader_destroy(x->readers[i]);
	failed += check(atomic_load(&x->ok) == NFILES,
			"every file read whole by threaded readers", name);
	failed += check(!atomic_load(&x->bad) && !atomic_load(&x->errors),
			"no wrong bytes, no errors", name);
	pthread_cond_destroy(&x->q.cv);
	pthread_mutex_destroy(&x->q.lock);
	free(x);
	return failed;
}

/* A progress callback that counts its calls (the caller's thread only). */
static int prep_tick(void *arg, enum stg_prep_op op, uint64_t done,
		     uint64_t total, double elapsed_s)
{
	(void)op;
	(void)elapsed_s;
	if (done > total)
		return 1;
	(*(unsigned *)arg)++;
	return 0;
}

/* Eviction, warming and verification of DIR's files by one pinned
 * worker per CPU, through their rings and by calls: every file done,
 * none failed. */
static int stress_cacheprep(const char *dir)
{
	struct stg_dataset *ds;
	int failed = 0;

	if (stg_dataset_scan(dir, NULL, &ds))
		return check(false, "list the stress files", "cacheprep");
	for (int calls = 0; calls < 2; calls++) {
		cpu_set_t set;
		unsigned ticks = 0;
		struct stg_prep_opts o = { .no_uring = calls,
					   .progress = prep_tick,
					   .progress_arg = &ticks };
		const char *how = calls ? "calls" : "ring";

		CPU_ZERO(&set);
		if (sched_getaffinity(0, sizeof(set), &set) == 0)
			o.cpus = &set;
		for (int op = 0; op < STG_PREP_OPS; op++) {
			struct stg_prep_result r;
			int err = stg_prep_run(ds, (enum stg_prep_op)op, &o,
					       &r);

			failed += check(!err && r.files == NFILES &&
					!r.errors, stg_prep_op_name(op), how);
		}
		failed += check(ticks >= STG_PREP_OPS, "progress told", how);
	}
	stg_dataset_destroy(ds);
	return failed;
}

/* The listing's sizes stat'ed by several threads (storage/dataset.c's
 * pass): the same files, in the same order, with the same sizes as one
 * thread gives, and the sizes written. */
static int stress_listing(const char *dir, const struct sfile *files)
{
	const struct stg_dataset_opts one = { .stat_threads = 1 };
	const struct stg_dataset_opts many = { .stat_threads = 4,
					       .stat_parallel_min = 1 };
	struct stg_dataset *a = NULL, *b = NULL;
	uint64_t sum = 0;
	bool same;

	for (int i = 0; i < NFILES; i++)
		sum += files[i].size;
	if (stg_dataset_scan(dir, &one, &a) || stg_dataset_scan(dir, &many, &b)) {
		stg_dataset_destroy(a);
		return check(false, "list the stress files", "listing");
	}
	same = stg_dataset_count(a) == NFILES &&
	       stg_dataset_count(b) == NFILES &&
	       stg_dataset_total_bytes(b) == sum &&
	       stg_dataset_max_size(a) == stg_dataset_max_size(b);
	for (size_t i = 0; same && i < NFILES; i++)
		same = !strcmp(stg_dataset_relpath(a, i, NULL),
			       stg_dataset_relpath(b, i, NULL)) &&
		       stg_dataset_size(a, i) == stg_dataset_size(b, i);
	stg_dataset_destroy(a);
	stg_dataset_destroy(b);
	return check(same, "sizes stat'ed by 4 threads as by one", "listing");
}

/* Destroy readers with reads in flight, from several threads at once. */
static void *destroy_busy(void *arg)
{
	struct sfile *files = ((void **)arg)[0];
	enum stg_backend_id b = *(enum stg_backend_id *)((void **)arg)[1];
	struct stg_reader_config cfg = { .backend = b, .depth = 16 };
	struct stg_reader *r;

	for (int round = 0; round < 5; round++) {
		if (stg_reader_create(&cfg, &r))
			return (void *)1;
		for (unsigned id = 0; id < 16; id++) {
			struct stg_read_req req = { AT_FDCWD, files[id].path,
						    files[id].size, id };

			stg_reader_submit(r, &req);
		}
		stg_reader_flush(r);
		stg_reader_destroy(r);
	}
	return NULL;
}

int stress_storage(void)
{
	static const enum stg_backend_id ids[] = {
		STG_BACKEND_URING, STG_BACKEND_PSYNC, STG_BACKEND_NULL,
	};
	char dir[] = "/var/tmp/feedrate-stress.XXXXXX";
	struct sfile *files = calloc(NFILES, sizeof(*files));
	uint8_t *buf = malloc(1 << 20);
	uint64_t x = 88172645463325252ull;
	int failed = 0;

	if (!files || !buf || !mkdtemp(dir)) {
		free(files);
		free(buf);
		return check(false, "temporary folder", "setup");
	}
	for (int i = 0; i < NFILES; i++) {
		int fd;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		files[i].size = i % 7 == 0 ? 0 : x % (i % 10 == 1 ? 1000000 : 70000);
		for (uint64_t k = 0; k < files[i].size; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			buf[k] = (uint8_t)x;
		}
		files[i].sum = fnv(buf, files[i].size);
		snprintf(files[i].path, sizeof(files[i].path), "%s/f%d", dir, i);
		fd = open(files[i].path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, files[i].size) != (ssize_t)files[i].size)
			failed += check(false, "write test file", "setup");
		if (fd >= 0)
			close(fd);
	}
	for (size_t b = 0; b < sizeof(ids) / sizeof(ids[0]); b++) {
		char why[400];
		pthread_t t[2];
		void *arg[2] = { files, (void *)&ids[b] };
		void *res[2];

		if (ids[b] == STG_BACKEND_URING && stg_uring_probe(why, sizeof(why))) {
			printf("skip uring: %s\n", why);
			continue;
		}
		failed += run_backend(ids[b], files);
		/*
		 * uring rings one after the other: liburing maps a ring with
		 * raw system calls that ThreadSanitizer does not see, so a
		 * ring mapped at the address another thread's ring just left
		 * reads as a race between the two threads.
		 */
		for (int i = 0; i < 2; i++) {
			pthread_create(&t[i], NULL, destroy_busy, arg);
			if (ids[b] == STG_BACKEND_URING)
				pthread_join(t[i], &res[i]);
		}
		for (int i = 0; ids[b] != STG_BACKEND_URING && i < 2; i++)
			pthread_join(t[i], &res[i]);
		failed += check(!res[0] && !res[1],
				"readers destroyed with reads in flight",
				stg_backend_name(ids[b]));
	}
	failed += stress_listing(dir, files);
	failed += stress_cacheprep(dir);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(files);
	free(buf);
	return failed;
}
