/*
 * gen_images.c - writes a synthetic image dataset in ImageFolder layout:
 * DIR/train/<class>/<class>_<n>.JPEG, file i in class i % C; the same
 * images go into shards through another sink (gen_shards.c).
 *
 * Safety: DIR must be empty (or absent: it is created), so the generator can
 * never write into a user's dataset. Each file is written to a hidden
 * temporary name in its class folder and renamed to its final name only
 * after every byte was written and close() succeeded; on any failure
 * (ENOSPC, EIO, a stop request) the temporary file is unlinked, so no
 * partial file ever sits under a final name. Durability: no fsync per file
 * (it would cost a disk flush per image for nothing a benchmark needs); one
 * syncfs() at the end flushes the set and reports late write-back errors.
 *
 * DESIGN (threads): opts->jobs workers, the caller's thread being one.
 * Each claims the next file index under `lock`, renders and encodes it
 * without the lock (its own renderer and buffer), then waits on `turn`
 * until commit_next equals its index and writes the file, so files reach
 * the disk in index order: the set, and where a --size run stops, do not
 * depend on the number of workers. The first error or a stop request sets
 * rc/done under the lock and wakes everyone; a worker that holds an
 * encoded image past the end drops it. Statistics and the progress
 * callback are updated under the lock. The sink's put() is called with
 * the lock released, by the one worker whose turn it is: one call at a
 * time, in index order, so a sink needs no lock of its own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage.h"
#include "gen_internal.h"

#define GEN_MAX_SIDE 2048u

int wl_gen_dir_prepare(const char *dir)
{
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			rc = -ENOTEMPTY;
			break;
		}
	}
	closedir(d);
	return rc;
}

/* Writes buf to dirfd/relpath via a temporary name; 0 or -errno, and no
 * file at either name on failure. */
static int write_file_atomic(int dirfd, const char *cls, const char *name,
			     const struct aug_membuf *buf)
{
	char tmp[96], fin[96];
	int fd, rc;

	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", cls, name);
	snprintf(fin, sizeof(fin), "%s/%s", cls, name);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0644);
	if (fd < 0)
		return -errno;
	rc = wl_write_all(fd, buf->data, buf->len);
	if (close(fd) && !rc)
		rc = errno == EINTR ? 0 : -errno;
	if (!rc && renameat(dirfd, tmp, dirfd, fin))
		rc = -errno;
	if (rc)
		unlinkat(dirfd, tmp, 0);
	return rc;
}

static void set_err_path(const struct wl_gen_opts *o, const char *dir,
			 const char *rel)
{
	if (o->err_path && o->err_path_len)
		snprintf(o->err_path, o->err_path_len, "%s/train%s%s", dir,
			 rel ? "/" : "", rel ? rel : "");
}

/* The ImageFolder sink: DIR/train/<class>/<name>. */
struct folder_sink {
	const struct wl_workload *w;
	const struct wl_gen_opts *o;
	const char *dir;
	int tfd;               /* DIR/train */
	uint32_t ncls;
};

/* State shared by the worker threads; every field below `lock` is
 * guarded by it. */
struct gen_run {
	const struct wl_workload *w;
	const struct wl_gen_opts *o;
	const struct wl_gen_sink *sink;
	uint32_t ncls;
	double t0;
	pthread_mutex_t lock;
	pthread_cond_t turn;   /* commit_next moved, or the run ended */
	uint64_t next;         /* next file index to claim */
	uint64_t commit_next;  /* next file index to write */
	bool done;             /* the request is met: claim nothing more */
	int rc;                /* first error; ends the run */
	struct wl_gen_stats *st;
};

static int folder_open(void *arg, int dfd, uint32_t ncls)
{
	struct folder_sink *f = arg;

	f->ncls = ncls;
	if (mkdirat(dfd, "train", 0755)) {
		const int rc = -errno;

		set_err_path(f->o, f->dir, NULL);
		return rc;
	}
	f->tfd = openat(dfd, "train", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->tfd < 0) {
		const int rc = -errno;

		set_err_path(f->o, f->dir, NULL);
		return rc;
	}
	return 0;
}

/* Writes file i (already encoded in buf) under its final name. */
static int folder_put(void *arg, uint64_t i, const struct wl_image_spec *spec,
		      const struct aug_membuf *buf)
{
	struct folder_sink *f = arg;
	char cls[16], name[64];
	int rc;

	(void)spec;
	wl_class_name((uint32_t)(i % f->ncls), cls);
	if (i < f->ncls && mkdirat(f->tfd, cls, 0755)) {
		rc = -errno;
		set_err_path(f->o, f->dir, cls);
		return rc;
	}
	snprintf(name, sizeof(name), "%s_%llu%s", cls,
		 (unsigned long long)(i / f->ncls), f->w->file_ext);
	rc = write_file_atomic(f->tfd, cls, name, buf);
	if (rc) {
		char rel[96];

		snprintf(rel, sizeof(rel), "%s/%s", cls, name);
		set_err_path(f->o, f->dir, rel);
		return rc;
	}
	return 0;
}

/* One syncfs() flushes the set and reports late write-back errors. */
static int folder_close(void *arg, int rc)
{
	struct folder_sink *f = arg;

	if (f->tfd < 0)
		return rc;
	if (!rc && syncfs(f->tfd)) {
		rc = -errno;
		set_err_path(f->o, f->dir, NULL);
	}
	close(f->tfd);
	f->tfd = -1;
	return rc;
}

static void gen_count(struct wl_gen_stats *st, const struct wl_image_spec *s,
		      size_t len)
{
	st->files++;
	st->bytes += len;
	st->pixels += (uint64_t)s->width * s->height;
	st->gray += s->fmt == AUG_ENC_GRAY;
	st->cmyk += s->fmt == AUG_ENC_CMYK;
	st->progressive += s->progressive;
	if (s->fmt == AUG_ENC_RGB) {
		st->sub444 += s->subsamp == AUG_ENC_444;
		st->sub420 += s->subsamp == AUG_ENC_420;
	}
}

/*
 * One worker: claims the next file index, renders and encodes it on its
 * own, then waits for its turn and writes it. Files are written in index
 * order, so the set (and, with --size, where it stops) is the same for any
 * number of workers; an image encoded past the end is dropped.
 */
static void *gen_worker(void *arg)
{
	struct gen_run *g = arg;
	const struct wl_gen_opts *o = g->o;
	struct wl_synth *syn = wl_synth_create(GEN_MAX_SIDE, GEN_MAX_SIDE);
	struct aug_membuf buf = { 0 };
	int rc = syn ? 0 : -ENOMEM;

	pthread_mutex_lock(&g->lock);
	while (!rc && !g->done && !g->rc) {
		struct wl_image_spec spec;
		uint64_t i;

		if (o->stop && *o->stop) {
			rc = -EINTR;
			break;
		}
		if (o->files && g->next >= o->files)
			break;
		i = g->next++;
		pthread_mutex_unlock(&g->lock);

		g->w->image_spec(o->seed, i, &spec);
		if (spec.width > GEN_MAX_SIDE || spec.height > GEN_MAX_SIDE)
			rc = -EINVAL;
		else
			rc = wl_synth_jpeg(syn, &spec, &buf);

		pthread_mutex_lock(&g->lock);
		while (g->commit_next != i && !g->done && !g->rc)
			pthread_cond_wait(&g->turn, &g->lock);
		if (g->done || g->rc || rc)
			break;
		if (o->stop && *o->stop) {
			rc = -EINTR;
			break;
		}
		if (!o->files && g->st->bytes >= o->size_bytes) {
			g->done = true;  /* the request was met before file i */
			break;
		}
		pthread_mutex_unlock(&g->lock);
		rc = g->sink->put(g->sink->arg, i, &spec, &buf);
		pthread_mutex_lock(&g->lock);
		if (rc)
			break;
		gen_count(g->st, &spec, buf.len);
		g->commit_next = i + 1;
		if (o->files && g->commit_next >= o->files)
			g->done = true;
		g->st->elapsed_s = stg_now() - g->t0;
		if (o->progress)
			o->progress(o->progress_arg, g->st, false);
		pthread_cond_broadcast(&g->turn);
	}
	if (rc && !g->rc)
		g->rc = rc;
	pthread_cond_broadcast(&g->turn);
	pthread_mutex_unlock(&g->lock);
	wl_synth_destroy(syn);
	aug_membuf_free(&buf);
	return NULL;
}

int wl_gen_images_run(const struct wl_workload *w, const char *dir,
		      const struct wl_gen_opts *o, struct wl_gen_stats *st,
		      const struct wl_gen_sink *sink)
{
	struct gen_run g = {
		.w = w, .o = o, .sink = sink, .st = st,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.turn = PTHREAD_COND_INITIALIZER,
	};
	pthread_t tids[WL_GEN_MAX_JOBS];
	unsigned jobs = o->jobs ? o->jobs : 1, started = 0;
	bool opened = false;
	int dfd = -1, rc;
	uint64_t target;

	memset(st, 0, sizeof(*st));
	if (!w->image_spec || (o->files == 0) == (o->size_bytes == 0))
		return -EINVAL;
	if (jobs > WL_GEN_MAX_JOBS)
		jobs = WL_GEN_MAX_JOBS;
	g.t0 = stg_now();
	target = o->files ? o->files :
		(uint64_t)((double)o->size_bytes / w->mean_file_bytes + 0.5);
	if (target == 0)
		target = 1;
	g.ncls = wl_class_count(target);
	st->files_target = target;
	st->bytes_target = o->size_bytes;
	st->classes = g.ncls;

	rc = wl_gen_dir_prepare(dir);
	if (rc) {
		if (o->err_path && o->err_path_len)
			snprintf(o->err_path, o->err_path_len, "%s", dir);
		return rc;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		rc = -errno;
		goto err;
	}
	rc = sink->open(sink->arg, dfd, g.ncls);
	if (rc)
		goto err;
	opened = true;

	/* the caller's thread is worker 0 */
	for (unsigned j = 1; j < jobs; j++) {
		if (pthread_create(&tids[started], NULL, gen_worker, &g))
			break;  /* fewer workers; the result is the same */
		started++;
	}
	gen_worker(&g);
	for (unsigned j = 0; j < started; j++)
		pthread_join(tids[j], NULL);
	rc = g.rc;
err:
	if (opened)
		rc = sink->close(sink->arg, rc);
	st->elapsed_s = stg_now() - g.t0;
	if (o->progress)
		o->progress(o->progress_arg, st, true);
	if (dfd >= 0)
		close(dfd);
	pthread_mutex_destroy(&g.lock);
	pthread_cond_destroy(&g.turn);
	return rc;
}

static int gen_imagefolder(const struct wl_workload *w, const char *dir,
			   const struct wl_gen_opts *o, struct wl_gen_stats *st)
{
	struct folder_sink f = { .w = w, .o = o, .dir = dir, .tfd = -1 };
	const struct wl_gen_sink sink = {
		.open = folder_open, .put = folder_put, .close = folder_close,
		.arg = &f,
	};

	return wl_gen_images_run(w, dir, o, st, &sink);
}

const struct wl_gen_ops wl_gen_imagefolder = {
	.layout = "imagefolder-jpeg",
	.generate = gen_imagefolder,
};
