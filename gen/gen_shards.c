/*
 * gen_shards.c - `feedrate gen` into shards: the synthetic generator's
 * images through a shard sink, and a user's ImageFolder converted byte
 * for byte (fmt_write.h).
 *
 * Safety: the output folder must be empty or new, and must not be the
 * source folder or inside it; the source is only opened read-only.
 *
 * DESIGN (threads, conversion): opts->jobs readers, the caller's thread
 * being one. Each claims the next file under `lock`, reads it whole
 * without the lock (into its own buffer), then waits on `turn` until
 * commit_next equals its index and hands it to the writer with the lock
 * released: the writer sees one call at a time, in listing order, so the
 * shards do not depend on the number of readers, and the first error in
 * listing order is the one reported. The first error or a stop request
 * sets rc under the lock and wakes everyone; statistics and the progress
 * callback are updated under the lock. (The generator's own pool does the
 * same for synthetic images: gen_images.c.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage.h"
#include "gen_internal.h"

/* "DIR/NAME" of the file the writer failed on into O's err_path. */
static void writer_err_path(const struct wl_gen_opts *o, const char *dir,
			    const struct wl_shard_writer *w)
{
	const char *name = w ? wl_shard_writer_failed_name(w) : "";

	if (o->err_path && o->err_path_len && name[0])
		snprintf(o->err_path, o->err_path_len, "%s/%s", dir, name);
}

/* ---- the generator's sink ---- */

struct gen_sink {
	const struct wl_shard_opts *so;
	const struct wl_gen_opts *o;
	const char *dir;
	struct wl_shard_writer *w;
	struct wl_shard_stats *sst;
	uint32_t ncls;
};

static int gen_sink_open(void *arg, int dfd, uint32_t ncls)
{
	struct gen_sink *g = arg;
	struct wl_shard_opts so = *g->so;

	g->ncls = ncls;
	so.image_kind = WL_IMAGE_JPEG;
	return wl_shard_writer_create(dfd, &so, &g->w);
}

static int gen_sink_put(void *arg, uint64_t i, const struct wl_image_spec *spec,
			const struct aug_membuf *buf)
{
	struct gen_sink *g = arg;
	const uint32_t c = (uint32_t)(i % g->ncls);
	char cls[16], key[64];
	struct wl_shard_sample s = {
		.key = key, .kind = WL_IMAGE_JPEG, .label = c,
		.data = buf->data, .len = buf->len,
		.width = spec->width, .height = spec->height,
	};

	wl_class_name(c, cls);
	snprintf(key, sizeof(key), "%s/%s_%llu", cls, cls,
		 (unsigned long long)(i / g->ncls));
	return wl_shard_writer_add(g->w, &s);
}

/* A stop request keeps the open shard: its samples are whole. */
static int gen_sink_close(void *arg, int rc)
{
	struct gen_sink *g = arg;
	const int r = wl_shard_writer_close(g->w, !rc || rc == -EINTR);

	if (!rc)
		rc = r;
	if (rc)
		writer_err_path(g->o, g->dir, g->w);
	wl_shard_writer_stats(g->w, g->sst);
	return rc;
}

int wl_gen_shards(const struct wl_workload *w, const char *dir,
		  const struct wl_gen_opts *o, const struct wl_shard_opts *so,
		  struct wl_gen_stats *st, struct wl_shard_stats *sst)
{
	struct gen_sink g = { .so = so, .o = o, .dir = dir, .sst = sst };
	const struct wl_gen_sink sink = {
		.open = gen_sink_open, .put = gen_sink_put,
		.close = gen_sink_close, .arg = &g,
	};
	int rc;

	memset(sst, 0, sizeof(*sst));
	if (!w->image_spec) {
		memset(st, 0, sizeof(*st));
		return -ENOTSUP;
	}
	rc = wl_gen_images_run(w, dir, o, st, &sink);
	wl_shard_writer_destroy(g.w);
	sst->classes = st->classes;
	return rc;
}

/* ---- image headers: the sizes TFRecord's features carry ---- */

/* Width and height from a JPEG's SOF marker or a PNG's IHDR; false when
 * the header does not give them (the features are then left out). */
static bool image_dims(const uint8_t *p, size_t n, uint32_t *w, uint32_t *h)
{
	size_t i = 2;

	if (n >= 24 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8) &&
	    !memcmp(p + 12, "IHDR", 4)) {
		*w = (uint32_t)p[16] << 24 | (uint32_t)p[17] << 16 |
		     (uint32_t)p[18] << 8 | p[19];
		*h = (uint32_t)p[20] << 24 | (uint32_t)p[21] << 16 |
		     (uint32_t)p[22] << 8 | p[23];
		return *w && *h;
	}
	if (n < 4 || p[0] != 0xff || p[1] != 0xd8)
		return false;
	while (i + 4 <= n) {
		const uint8_t m = p[i + 1];
		size_t len;

		if (p[i] != 0xff)
			return false;
		if (m == 0xff) {                 /* fill byte */
			i++;
			continue;
		}
		if (m == 0x01 || (m >= 0xd0 && m <= 0xd8)) {
			i += 2;                  /* markers without a length */
			continue;
		}
		if (m == 0xd9 || m == 0xda)      /* EOI, SOS before a SOF */
			return false;
		len = (size_t)p[i + 2] << 8 | p[i + 3];
		if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 &&
		    m != 0xcc) {
			if (i + 9 > n)
				return false;
			*h = (uint32_t)p[i + 5] << 8 | p[i + 6];
			*w = (uint32_t)p[i + 7] << 8 | p[i + 8];
			return *w && *h;
		}
		if (len < 2)
			return false;
		i += 2 + len;
	}
	return false;
}

/* ---- the ImageFolder's classes and files ---- */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* SRC's folders (symbolic links to folders too), sorted bytewise: the
 * classes, as torchvision's find_classes lists them. */
static int class_list(const char *src, char ***out, size_t *n)
{
	DIR *d = opendir(src);
	struct dirent *e;
	char **v = NULL;
	size_t cap = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, 0) || !S_ISDIR(st.st_mode))
			continue;
		if (*n == cap) {
			char **p = realloc(v, (cap ? 2 * cap : 64) * sizeof(*p));

			if (!p) {
				rc = -ENOMEM;
				break;
			}
			v = p;
			cap = cap ? 2 * cap : 64;
		}
		if (!(v[*n] = strdup(e->d_name))) {
			rc = -ENOMEM;
			break;
		}
		(*n)++;
	}
	closedir(d);
	if (rc) {
		names_free(v, *n);
		*n = 0;
		return rc;
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_name);
	*out = v;
	return 0;
}

/* The image kind of a file name by its extension, UNKNOWN when it is
 * not one the formats' readers name. */
static enum wl_image_kind kind_of(const char *rel)
{
	const char *base = strrchr(rel, '/'), *dot;

	dot = strrchr(base ? base + 1 : rel, '.');
	if (!dot)
		return WL_IMAGE_UNKNOWN;
	if (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg"))
		return WL_IMAGE_JPEG;
	if (!strcasecmp(dot, ".png"))
		return WL_IMAGE_PNG;
	if (!strcasecmp(dot, ".webp"))
		return WL_IMAGE_WEBP;
	return WL_IMAGE_UNKNOWN;
}

struct conv_item {
	size_t id;              /* in the listing */
	uint32_t label;
	enum wl_image_kind kind;
};

/* The images of DS in class folders, with their labels; the rest is
 * counted in SST. */
static int conv_plan(const struct stg_dataset *ds, char **cls, size_t ncls,
		     struct conv_item **out, size_t *n,
		     struct wl_shard_stats *sst, uint64_t *bytes)
{
	const size_t count = stg_dataset_count(ds);
	struct conv_item *v = malloc((count ? count : 1) * sizeof(*v));
	bool *used = calloc(ncls ? ncls : 1, sizeof(*used));

	*n = 0;
	*bytes = 0;
	if (!v || !used) {
		free(v);
		free(used);
		return -ENOMEM;
	}
	for (size_t id = 0; id < count; id++) {
		const char *rel = stg_dataset_relpath(ds, id, NULL);
		const char *slash = strchr(rel, '/');
		const enum wl_image_kind k = kind_of(rel);
		char name[NAME_MAX + 1], *key = name;
		char **hit;

		if (!slash || k == WL_IMAGE_UNKNOWN ||
		    (size_t)(slash - rel) > NAME_MAX) {
			sst->skipped++;
			continue;
		}
		memcpy(name, rel, (size_t)(slash - rel));
		name[slash - rel] = '\0';
		hit = bsearch(&key, cls, ncls, sizeof(*cls), cmp_name);
		if (!hit) {               /* a folder made after the listing */
			sst->skipped++;
			continue;
		}
		v[*n] = (struct conv_item){ .id = id, .kind = k,
					    .label = (uint32_t)(hit - cls) };
		used[hit - cls] = true;
		*bytes += (uint64_t)stg_dataset_size(ds, id);
		(*n)++;
	}
	for (size_t c = 0; c < ncls; c++)
		sst->empty_classes += !used[c];
	free(used);
	*out = v;
	return 0;
}

/* State shared by the readers; every field below `lock` is guarded. */
struct conv_run {
	const struct stg_dataset *ds;
	const struct conv_item *items;
	size_t n;
	const struct wl_gen_opts *o;
	struct wl_shard_writer *w;
	bool dims;              /* TFRecord: parse image sizes */
	double t0;
	pthread_mutex_t lock;
	pthread_cond_t turn;
	size_t next, commit_next;
	int rc;
	size_t err_item;        /* a read failed on item err_item - 1 */
	struct wl_gen_stats *st;
};

struct conv_buf {
	uint8_t *p;
	size_t len, cap;
};

/* File `id` of the listing, whole, into B. */
static int conv_read(const struct stg_dataset *ds, size_t id,
		     struct conv_buf *b)
{
	struct stat st;
	int fd, rc = 0;

	stg_watch_begin(stg_dataset_relpath(ds, id, NULL));
	fd = stg_dataset_open(ds, id, O_RDONLY);
	if (fd < 0) {
		stg_watch_end();
		return fd;
	}
	b->len = 0;
	if (fstat(fd, &st)) {
		rc = -errno;
		goto out;
	}
	for (;;) {
		ssize_t k;

		if (b->cap - b->len < 65536 ||
		    b->cap < (size_t)st.st_size + 1) {
			size_t cap = b->cap ? b->cap : 1 << 20;
			uint8_t *p;

			while (cap < b->len + 65536 || cap < (size_t)st.st_size + 1)
				cap *= 2;
			if (!(p = realloc(b->p, cap))) {
				rc = -ENOMEM;
				break;
			}
			b->p = p;
			b->cap = cap;
		}
		k = read(fd, b->p + b->len, b->cap - b->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = -errno;
			break;
		}
		if (k == 0)
			break;
		b->len += (size_t)k;
	}
out:
	close(fd);
	stg_watch_end();
	return rc;
}

/* Item I's sample (its key is its path without the extension). */
static int conv_put(struct conv_run *g, size_t i, const struct conv_buf *b)
{
	const struct conv_item *it = &g->items[i];
	const char *rel = stg_dataset_relpath(g->ds, it->id, NULL);
	char key[PATH_MAX];
	struct wl_shard_sample s = {
		.key = key, .kind = it->kind, .label = it->label,
		.data = b->p, .len = b->len,
	};

	snprintf(key, sizeof(key), "%s", rel);
	*strrchr(key, '.') = '\0';   /* kind_of found an extension */
	if (g->dims && !image_dims(b->p, b->len, &s.width, &s.height))
		s.width = s.height = 0;
	return wl_shard_writer_add(g->w, &s);
}

static void *conv_worker(void *arg)
{
	struct conv_run *g = arg;
	const struct wl_gen_opts *o = g->o;
	struct conv_buf b = { 0 };
	int rc = 0;

	pthread_mutex_lock(&g->lock);
	while (!g->rc) {
		size_t i;

		if (o->stop && *o->stop) {
			rc = -EINTR;
			break;
		}
		if (g->next >= g->n)
			break;
		i = g->next++;
		pthread_mutex_unlock(&g->lock);
		rc = conv_read(g->ds, g->items[i].id, &b);
		pthread_mutex_lock(&g->lock);
		while (g->commit_next != i && !g->rc)
			pthread_cond_wait(&g->turn, &g->lock);
		if (g->rc)
			break;
		if (rc) {
			g->err_item = i + 1;
			break;
		}
		if (o->stop && *o->stop) {
			rc = -EINTR;
			break;
		}
		pthread_mutex_unlock(&g->lock);
		rc = conv_put(g, i, &b);
		pthread_mutex_lock(&g->lock);
		if (rc)
			break;
		g->st->files++;
		g->st->bytes += b.len;
		g->commit_next = i + 1;
		g->st->elapsed_s = stg_now() - g->t0;
		if (o->progress)
			o->progress(o->progress_arg, g->st, false);
		pthread_cond_broadcast(&g->turn);
	}
	if (rc && !g->rc)
		g->rc = rc;
	pthread_cond_broadcast(&g->turn);
	pthread_mutex_unlock(&g->lock);
	free(b.p);
	return NULL;
}

/* Runs the readers over the plan into W; returns the first error. */
static int conv_pool(struct conv_run *g)
{
	pthread_t tids[WL_GEN_MAX_JOBS];
	unsigned jobs = g->o->jobs ? g->o->jobs : 1, started = 0;

	if (jobs > WL_GEN_MAX_JOBS)
		jobs = WL_GEN_MAX_JOBS;
	for (unsigned j = 1; j < jobs; j++) {
		if (pthread_create(&tids[started], NULL, conv_worker, g))
			break;  /* fewer readers; the result is the same */
		started++;
	}
	conv_worker(g);
	for (unsigned j = 0; j < started; j++)
		pthread_join(tids[j], NULL);
	return g->rc;
}

static void set_path(const struct wl_gen_opts *o, const char *path)
{
	if (o->err_path && o->err_path_len)
		snprintf(o->err_path, o->err_path_len, "%s", path);
}

int wl_shards_from_folder(const char *src, const char *dir,
			  const struct wl_gen_opts *o,
			  const struct wl_shard_opts *so,
			  struct wl_gen_stats *st, struct wl_shard_stats *sst)
{
	struct conv_run g = {
		.o = o, .st = st, .lock = PTHREAD_MUTEX_INITIALIZER,
		.turn = PTHREAD_COND_INITIALIZER,
		.dims = so->format == WL_FORMAT_TFRECORD,
	};
	struct stg_dataset *ds = NULL;
	struct conv_item *items = NULL;
	struct wl_shard_opts wo = *so;
	char **cls = NULL;
	size_t ncls = 0, nitems = 0;
	uint64_t bytes;
	bool all_png = true;
	int dfd = -1, rc, r;

	memset(st, 0, sizeof(*st));
	memset(sst, 0, sizeof(*sst));
	g.t0 = stg_now();
	rc = wl_path_inside(dir, src);
	if (rc) {
		set_path(o, src);
		return rc < 0 ? rc : -EINVAL;
	}
	if ((rc = class_list(src, &cls, &ncls)) ||
	    (rc = stg_dataset_scan(src, NULL, &ds))) {
		set_path(o, src);
		goto out;
	}
	sst->list_errors = stg_dataset_errors_sum(ds);
	sst->classes = st->classes = (uint32_t)ncls;
	if ((rc = conv_plan(ds, cls, ncls, &items, &nitems, sst, &bytes)))
		goto out;
	if (!nitems) {
		set_path(o, src);
		rc = -ENODATA;
		goto out;
	}
	for (size_t i = 0; i < nitems; i++)
		all_png &= items[i].kind == WL_IMAGE_PNG;
	wo.image_kind = all_png ? WL_IMAGE_PNG : WL_IMAGE_JPEG;
	st->files_target = nitems;
	st->bytes_target = bytes;

	if ((rc = wl_gen_dir_prepare(dir))) {
		set_path(o, dir);
		goto out;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		rc = -errno;
		set_path(o, dir);
		goto out;
	}
	if ((rc = wl_shard_writer_create(dfd, &wo, &g.w)))
		goto out;
	g.ds = ds;
	g.items = items;
	g.n = nitems;
	rc = conv_pool(&g);
	r = wl_shard_writer_close(g.w, !rc || rc == -EINTR);
	if (!rc)
		rc = r;
	if (rc && g.err_item) {
		char p[PATH_MAX];

		if (stg_dataset_path(ds, items[g.err_item - 1].id, p,
				     sizeof(p)) >= 0)
			set_path(o, p);
	} else if (rc) {
		writer_err_path(o, dir, g.w);
	}
	{
		const struct wl_shard_stats listing = *sst;

		wl_shard_writer_stats(g.w, sst);
		sst->classes = listing.classes;
		sst->empty_classes = listing.empty_classes;
		sst->skipped = listing.skipped;
		sst->list_errors = listing.list_errors;
	}
out:
	st->elapsed_s = stg_now() - g.t0;
	if (o->progress && st->files_target)
		o->progress(o->progress_arg, st, true);
	wl_shard_writer_destroy(g.w);
	if (dfd >= 0)
		close(dfd);
	free(items);
	names_free(cls, ncls);
	stg_dataset_destroy(ds);
	pthread_mutex_destroy(&g.lock);
	pthread_cond_destroy(&g.turn);
	return rc;
}

int wl_path_inside(const char *path, const char *dir)
{
	struct stat d, s;
	char *p, *real = NULL, *slash;
	int rc = 0;

	if (stat(dir, &d))
		return -errno;
	if (!(p = strdup(path[0] ? path : ".")))
		return -ENOMEM;
	/* the deepest part of PATH that exists, resolved */
	while (!(real = realpath(p, NULL))) {
		if ((errno != ENOENT && errno != ENOTDIR) || !strcmp(p, ".")) {
			rc = -errno;
			free(p);
			return rc;
		}
		slash = strrchr(p, '/');
		if (!slash)
			strcpy(p, ".");
		else if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
	}
	free(p);
	/* its ancestors: real ones, so cutting the string walks up */
	for (;;) {
		if (!stat(real, &s) && s.st_dev == d.st_dev &&
		    s.st_ino == d.st_ino) {
			rc = 1;
			break;
		}
		if (!strcmp(real, "/"))
			break;
		slash = strrchr(real, '/');
		if (slash == real)
			real[1] = '\0';
		else
			*slash = '\0';
	}
	free(real);
	return rc;
}
