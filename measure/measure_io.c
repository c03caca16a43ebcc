/*
 * measure_io.c - the measurement behind `feedrate io`: every file of a
 * dataset read whole, with no decoding, through one backend, on one or
 * more reader threads; and the page-cache probe of `feedrate info`.
 *
 * DESIGN: ms_io_run's thread (the caller) prepares the page cache, runs
 * stg_backend_probe when the backend is auto (its reads are not counted)
 * and starts cfg->threads reader threads. Each creates its own
 * stg_reader, says so at the gate and waits there; the caller opens the
 * gate only when every reader was created (so ring and pool set-up is not
 * timed), or tells them all to leave when one failed. Then each thread
 * claims file ids from one shared atomic ticket counter (id = ticket mod
 * count: passes for --duration), keeps its reader full and releases every
 * buffer as soon as it is reaped. There is no other queue between
 * threads. Each thread owns its io_thread (counters, error kinds,
 * histogram); the caller reads them only after pthread_join and merges
 * them into the result. Shared while running: the ticket (atomic), the
 * gate (its mutex), and the read-only run fields and *cfg->stop (a
 * sig_atomic_t a signal handler may set: threads then claim no more
 * files and drain what is in flight).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"
#include "storage.h"

#define IO_BATCH 64
#define PROBE_SEARCH_MAX 10000   /* entries looked at to find a file */

struct io_kind {
	int code;
	uint64_t count;
	size_t example;             /* a file id */
};

struct io_run;

struct io_thread {                  /* owned by its thread until joined */
	pthread_t tid;
	struct io_run *run;
	struct stg_reader *r;
	int err;                    /* stg_reader_create's */
	struct stg_reader_stats st;
	struct io_kind kinds[MS_IO_MAX_KINDS];
	unsigned nkinds;
	uint64_t evict_errors;
	uint64_t submit_errors;     /* requests the reader refused */
	uint64_t t_end;
	enum stg_backend_id backend;
	char reason[400];
	char notes[512];
};

struct io_run {
	const struct ms_io_config *cfg;
	struct stg_reader_config rc;    /* cfg->rc as resolved for the run */
	int rootfd;
	size_t count;
	uint64_t limit;             /* tickets to hand out (one pass); 0 none */
	atomic_uint_fast64_t ticket;
	uint64_t t_deadline;        /* 0: none */
	pthread_mutex_t mu;         /* the gate: */
	pthread_cond_t cv;
	unsigned ready;             /* threads that created their reader */
	int go;                     /* 0 wait, 1 read, -1 leave */
};

static bool io_stopped(const struct io_run *run)
{
	return run->cfg->stop && *run->cfg->stop;
}

static void io_count_error(struct io_thread *t, int code, size_t id)
{
	for (unsigned i = 0; i < t->nkinds; i++)
		if (t->kinds[i].code == code) {
			t->kinds[i].count++;
			return;
		}
	if (t->nkinds < MS_IO_MAX_KINDS)
		t->kinds[t->nkinds++] = (struct io_kind){ code, 1, id };
}

/* Count and release N completions. */
static void io_handle(struct io_thread *t, const struct stg_completion *c,
		      int n)
{
	const struct io_run *run = t->run;
	const bool evict = run->cfg->cache == STG_CACHE_COLD &&
			   run->cfg->duration_s > 0;

	for (int i = 0; i < n; i++) {
		size_t id = (size_t)c[i].user_data;

		if (c[i].result)
			io_count_error(t, c[i].result, id);
		stg_buf_release(c[i].buf);
		/* passes after the first must find the file cold again */
		if (evict && stg_cache_evict(run->rootfd,
				stg_dataset_relpath(run->cfg->ds, id, NULL)))
			t->evict_errors++;
	}
}

/* Fill the reader with claimed files; returns false when none are left. */
static bool io_fill(struct io_thread *t)
{
	struct io_run *run = t->run;

	for (;;) {
		struct stg_read_req req = { 0 };
		uint64_t tk;
		size_t id;
		int64_t size;
		int err;

		if (io_stopped(run) ||
		    (run->t_deadline && stg_now_ns() >= run->t_deadline))
			return false;
		tk = atomic_fetch_add_explicit(&run->ticket, 1,
					       memory_order_relaxed);
		if (run->limit && tk >= run->limit)
			return false;
		id = (size_t)(tk % run->count);
		size = stg_dataset_size(run->cfg->ds, id);
		req.dirfd = run->rootfd;
		req.name = stg_dataset_relpath(run->cfg->ds, id, NULL);
		req.size = size < 0 ? STG_SIZE_UNKNOWN : (uint64_t)size;
		req.user_data = id;
		err = stg_reader_submit(t->r, &req);
		while (err == -EAGAIN && stg_reader_pending(t->r)) {
			/* full (buffers): this ticket is ours, so make room
			 * and submit it again */
			struct stg_completion c[IO_BATCH];
			int n = stg_reader_reap(t->r, c, IO_BATCH, -1);

			if (n < 0)
				break;
			io_handle(t, c, n);
			err = stg_reader_submit(t->r, &req);
		}
		if (err) {
			io_count_error(t, err, id);
			t->submit_errors++;
			continue;
		}
		if (stg_reader_pending(t->r) >= run->rc.depth)
			return true;
	}
}

static void io_drain(struct io_thread *t)
{
	struct stg_completion c[IO_BATCH];
	int n;

	do {
		n = stg_reader_reap(t->r, c, IO_BATCH, -1);
		if (n > 0)
			io_handle(t, c, n);
	} while (n == IO_BATCH);
}

/* Say the reader is made, then wait for the gate. Returns its answer. */
static int io_gate_wait(struct io_run *run)
{
	int go;

	pthread_mutex_lock(&run->mu);
	run->ready++;
	pthread_cond_broadcast(&run->cv);
	while (!run->go)
		pthread_cond_wait(&run->cv, &run->mu);
	go = run->go;
	pthread_mutex_unlock(&run->mu);
	return go;
}

static void *io_thread_main(void *arg)
{
	struct io_thread *t = arg;
	struct io_run *run = t->run;

	t->err = stg_reader_create(&run->rc, &t->r);
	if (io_gate_wait(run) < 0 || t->err) {
		stg_reader_destroy(t->r);
		t->r = NULL;
		return NULL;
	}
	t->backend = stg_reader_backend(t->r);
	snprintf(t->reason, sizeof(t->reason), "%s",
		 stg_reader_backend_reason(t->r));
	for (;;) {
		bool more = io_fill(t);

		if (!more && !stg_reader_pending(t->r))
			break;
		io_drain(t);
		if (!more) {
			while (stg_reader_pending(t->r))
				io_drain(t);
			break;
		}
	}
	t->t_end = stg_now_ns();
	stg_reader_stats(t->r, &t->st);
	snprintf(t->notes, sizeof(t->notes), "%s", stg_reader_notes(t->r));
	stg_reader_destroy(t->r);
	t->r = NULL;
	return NULL;
}

/* Add thread T's results into OUT; *T_END gets the latest end. */
static void io_merge(struct ms_io_result *out, const struct io_run *run,
		     const struct io_thread *t, uint64_t *t_end)
{
	out->st.files_ok += t->st.files_ok;
	out->st.bytes += t->st.bytes;
	out->st.reads += t->st.reads;
	out->st.errors += t->st.errors + t->submit_errors;
	out->st.too_large += t->st.too_large;
	out->st.direct_refused += t->st.direct_refused;
	stg_histo_merge(&out->st.clat, &t->st.clat);
	out->evict_errors += t->evict_errors;
	for (unsigned i = 0; i < t->nkinds; i++) {
		unsigned j;

		for (j = 0; j < out->nkinds; j++)
			if (out->kinds[j].code == t->kinds[i].code)
				break;
		if (j == out->nkinds) {
			if (out->nkinds == MS_IO_MAX_KINDS)
				continue;
			out->kinds[out->nkinds++] = (struct ms_io_error_kind){
				t->kinds[i].code, 0, stg_dataset_relpath(
					run->cfg->ds, t->kinds[i].example,
					NULL) };
		}
		out->kinds[j].count += t->kinds[i].count;
	}
	if (t->t_end > *t_end)
		*t_end = t->t_end;
}

/*
 * After warming: does a fresh open still find a warmed file resident? A
 * FUSE mount without kernel_cache (s3fs's default) drops a file's pages at
 * every open, so "warm" there re-fetches every file; say so rather than
 * let the numbers pass for page-cache reads.
 */
static bool io_warm_refetched(const struct io_run *run)
{
	const struct stg_dataset *ds = run->cfg->ds;

	for (size_t id = 0; id < run->count && id < 8; id++) {
		uint64_t res, total;

		if (stg_dataset_size(ds, id) <= 0 ||
		    stg_cache_residency(run->rootfd,
					stg_dataset_relpath(ds, id, NULL),
					&res, &total) || !total)
			continue;
		return res * 2 < total;
	}
	return false;
}

/* The phase the stall watch names: a rank's read alone is one phase
 * (cfg->alone), whatever step of it stalls. */
static void io_phase(const struct ms_io_config *cfg, enum stg_phase ph)
{
	stg_watch_phase(cfg->alone ? STG_PHASE_ALONE : ph);
}

/* Make the page cache what cfg->cache asks, noting a problem in OUT. */
static void io_prepare_cache(const struct io_run *run,
			     struct ms_io_result *out)
{
	const struct ms_io_config *cfg = run->cfg;
	int err = 0;

	if (!run->count || cfg->rc.backend == STG_BACKEND_NULL ||
	    cfg->cache == MS_IO_CACHE_ASIS)
		return;
	io_phase(cfg, cfg->cache == STG_CACHE_COLD ? STG_PHASE_EVICTION :
		 STG_PHASE_WARMING);
	if (cfg->cache == STG_CACHE_COLD)
		err = stg_cache_dataset_evict(cfg->ds, &out->evict_errors);
	else
		err = stg_cache_dataset_warm(cfg->ds, &out->evict_errors);
	if (err < 0)
		snprintf(out->cache_note, sizeof(out->cache_note),
			 "the page cache could not be made %s for any file",
			 cfg->cache == STG_CACHE_COLD ? "cold" : "warm");
	else if (cfg->cache == STG_CACHE_WARM && io_warm_refetched(run))
		snprintf(out->cache_note, sizeof(out->cache_note),
			 "--cache warm: a warmed file is not resident after "
			 "a re-open; this filesystem drops a file's page "
			 "cache at every open (FUSE without kernel_cache), so "
			 "every read below fetches from the storage");
}

static void io_progress(const struct io_run *run, enum ms_io_event ev,
			const struct ms_io_result *out)
{
	if (run->cfg->progress)
		run->cfg->progress(ev, out, run->cfg->progress_arg);
}

/*
 * Resolve the reader configuration: the pool needs room for the largest
 * file that will be read; auto is decided by measuring here, at this
 * depth and cache state. PROBE holds the reason the readers copy.
 */
static void io_resolve(struct io_run *run, struct stg_probe_result *probe)
{
	const struct ms_io_config *cfg = run->cfg;
	const uint64_t largest = stg_dataset_max_size(cfg->ds);

	run->rc = cfg->rc;
	if (run->count && largest < run->rc.max_sample_bytes)
		run->rc.max_sample_bytes = largest;
	if (!run->rc.max_sample_bytes)
		run->rc.max_sample_bytes = 4096;
	if (run->rc.backend == STG_BACKEND_AUTO && run->count) {
		const struct stg_probe_opts po = {
			.evict = cfg->cache == STG_CACHE_COLD,
			.stop = (volatile int *)cfg->stop,
		};

		io_phase(cfg, STG_PHASE_PROBE);
		stg_backend_probe(cfg->ds, &run->rc, &po, probe);
		run->rc.backend = probe->chosen;
		run->rc.reason = probe->reason;
	}
	run->limit = cfg->duration_s > 0 ? 0 : run->count;
	if (!run->count)
		run->t_deadline = 1;    /* nothing to read: stop at once */
}

/* Start N threads; returns how many started, with *ERR the error. */
static unsigned io_start(struct io_run *run, struct io_thread *th,
			 unsigned n, int *err)
{
	unsigned i;

	*err = 0;
	for (i = 0; i < n; i++) {
		th[i].run = run;
		*err = -pthread_create(&th[i].tid, NULL, io_thread_main,
				       &th[i]);
		if (*err)
			break;
	}
	pthread_mutex_lock(&run->mu);
	while (run->ready < i)
		pthread_cond_wait(&run->cv, &run->mu);
	pthread_mutex_unlock(&run->mu);
	return i;
}

/* Open or shut the gate for the started threads. */
static void io_gate_open(struct io_run *run, int go)
{
	if (go > 0)
		io_phase(run->cfg, STG_PHASE_WINDOW);
	pthread_mutex_lock(&run->mu);
	run->go = go;
	pthread_cond_broadcast(&run->cv);
	pthread_mutex_unlock(&run->mu);
}

/* Words for a reader that could not be created. */
static void io_reader_error(const struct io_run *run, int err,
			    struct ms_io_result *out)
{
	int n = snprintf(out->err_text, sizeof(out->err_text),
			 "cannot start the %s backend: %s",
			 stg_backend_name(run->rc.backend), strerror(-err));

	if (run->rc.backend == STG_BACKEND_URING && n > 0 &&
	    (size_t)n < sizeof(out->err_text)) {
		char why[400];

		stg_uring_probe(why, sizeof(why));
		snprintf(out->err_text + n, sizeof(out->err_text) - (size_t)n,
			 "\n  %s", why);
	}
}

/* Run the started threads to the end and merge them into OUT. */
static void io_collect(struct io_run *run, struct io_thread *th,
		       struct ms_io_result *out)
{
	const struct ms_io_config *cfg = run->cfg;
	uint64_t t_start = stg_now_ns(), t_end = 0;

	if (cfg->duration_s > 0)
		run->t_deadline = t_start + (uint64_t)(cfg->duration_s * 1e9);
	io_gate_open(run, 1);
	io_progress(run, MS_IO_EV_READING, out);
	for (unsigned i = 0; i < cfg->threads; i++) {
		pthread_join(th[i].tid, NULL);
		io_merge(out, run, &th[i], &t_end);
	}
	out->backend = run->count ? th[0].backend : run->rc.backend;
	memcpy(out->reason, th[0].reason, sizeof(out->reason));
	memcpy(out->notes, th[0].notes, sizeof(out->notes));
	out->seconds = t_end > t_start ? (double)(t_end - t_start) / 1e9 : 0.0;
}

/* The threads' part of ms_io_run: RUN resolved, ROOTFD open. */
static int io_threads_run(struct io_run *run, struct ms_io_result *out)
{
	const unsigned n = run->cfg->threads;
	struct io_thread *th = calloc(n, sizeof(*th));
	unsigned started;
	int err;

	if (!th) {
		snprintf(out->err_text, sizeof(out->err_text), "out of memory");
		return -ENOMEM;
	}
	started = io_start(run, th, n, &err);
	if (err)
		snprintf(out->err_text, sizeof(out->err_text),
			 "cannot start a thread: %s", strerror(-err));
	for (unsigned i = 0; i < started && !err; i++)
		if (th[i].err) {
			err = th[i].err;
			io_reader_error(run, err, out);
		}
	if (err) {
		io_gate_open(run, -1);
		for (unsigned i = 0; i < started; i++)
			pthread_join(th[i].tid, NULL);
	} else {
		io_collect(run, th, out);
	}
	free(th);
	return err;
}

int ms_io_run(const struct ms_io_config *cfg, struct ms_io_result *out)
{
	struct io_run run;
	struct stg_probe_result probe;
	int err;

	memset(out, 0, sizeof(*out));
	stg_histo_init(&out->st.clat);
	if (!cfg->ds || !cfg->threads) {
		snprintf(out->err_text, sizeof(out->err_text),
			 "no dataset or no reader thread");
		return -EINVAL;
	}
	memset(&run, 0, sizeof(run));
	run.cfg = cfg;
	run.count = stg_dataset_count(cfg->ds);
	out->files_listed = run.count;
	for (int k = 0; k < STG_DS_ERR_COUNT; k++) {
		out->listing[k].count = stg_dataset_errors(cfg->ds,
							   (enum stg_ds_err)k);
		out->listing[k].example = stg_dataset_error_example(cfg->ds,
							(enum stg_ds_err)k);
	}
	run.rootfd = stg_dataset_root_open(cfg->ds);
	if (run.rootfd < 0) {
		err = run.rootfd;
		snprintf(out->err_text, sizeof(out->err_text),
			 "cannot open the dataset folder: %s", strerror(-err));
		return err;
	}
	io_prepare_cache(&run, out);
	io_progress(&run, MS_IO_EV_CACHE, out);
	io_resolve(&run, &probe);
	atomic_init(&run.ticket, 0);
	pthread_mutex_init(&run.mu, NULL);
	pthread_cond_init(&run.cv, NULL);
	err = io_threads_run(&run, out);
	pthread_cond_destroy(&run.cv);
	pthread_mutex_destroy(&run.mu);
	close(run.rootfd);
	return err;
}

/* ---- the page-cache probe of `feedrate info` ---- */

/*
 * A non-empty regular file at or under PATH, breadth first, looking at no
 * more than PROBE_SEARCH_MAX entries (a huge dataset is not listed for
 * this). Returns a malloc'd path, or NULL with *ERR set.
 */
static char *probe_file_find(const char *path, int *err)
{
	char **queue = NULL, *found = NULL;
	size_t head = 0, tail = 0, cap = 0, seen = 0;
	struct stat st;

	if (stat(path, &st) < 0) {
		*err = -errno;
		return NULL;
	}
	if (S_ISREG(st.st_mode)) {
		if (!st.st_size) {
			*err = -ENODATA;
			return NULL;
		}
		return strdup(path);
	}
	*err = -ENOENT;
	queue = malloc(sizeof(*queue) * 16);
	if (!queue || !(queue[tail++] = strdup(path))) {
		*err = -ENOMEM;
		goto out;
	}
	cap = 16;
	while (head < tail && !found && seen < PROBE_SEARCH_MAX) {
		char *dir = queue[head++];
		struct dirent *d;
		DIR *dh = opendir(dir);

		while (dh && !found && (d = readdir(dh)) &&
		       seen++ < PROBE_SEARCH_MAX) {
			char *child;

			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (asprintf(&child, "%s/%s", dir, d->d_name) < 0)
				break;
			if (lstat(child, &st) < 0) {
				free(child);
			} else if (S_ISREG(st.st_mode) && st.st_size > 0) {
				found = child;
			} else if (S_ISDIR(st.st_mode) && tail < 4096) {
				if (tail == cap) {
					char **nq = realloc(queue, sizeof(*queue) *
							    cap * 2);
					if (!nq) {
						free(child);
						break;
					}
					queue = nq;
					cap *= 2;
				}
				queue[tail++] = child;
			} else {
				free(child);
			}
		}
		if (dh)
			closedir(dh);
	}
out:
	for (size_t i = 0; queue && i < tail; i++)
		free(queue[i]);
	free(queue);
	if (found)
		*err = 0;
	return found;
}

int ms_io_cache_probe(const char *path, char **file,
		      struct stg_cache_probe *out)
{
	int err = -ENOMEM;     /* strdup's failure sets nothing */

	*file = probe_file_find(path, &err);
	if (!*file)
		return err;
	return stg_cache_probe(AT_FDCWD, *file, out);
}
