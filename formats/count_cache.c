/*
 * count_cache.c - shard record counts walked before, kept outside the
 * dataset so the next open of the same shards reads one small file
 * instead of a header per record.
 *
 * One text file per dataset folder, named by a hash of the folder's
 * absolute path, under $XDG_CACHE_HOME/feedrate/counts (else
 * ~/.cache/feedrate/counts):
 *
 *   feedrate-counts 1 <root path>
 *   <format> <size> <mtime s>.<ns> <count> <raw bytes> <relative path>
 *
 * The path is the rest of the line (a name holding a newline is not
 * cached). The root in the first line tells a hash collision from the
 * folder's own file. A line that does not parse is skipped and counted;
 * a file whose first line is wrong is ignored whole. Saving re-reads the
 * file, keeps a concurrent writer's entries for shards this cache did not
 * count, writes a temporary file beside it and renames it over the old:
 * a reader sees the old file or the new, never half of one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "formats.h"

#define CACHE_MAGIC "feedrate-counts 1 "
#define CACHE_FILE_MAX (64u << 20)
#define CACHE_RACY_NS (2000000000ll)   /* mtimes this recent: not stored */

struct cc_entry {
	char *rel;
	uint64_t size, count, raw;
	int64_t mtime_ns;
};

struct cc_table {
	struct cc_entry *e;
	size_t n, cap;
};

struct wl_count_cache {
	char *root;
	char fmt[16];
	char *dir;              /* NULL: no place for a cache */
	char *file;
	struct cc_table old;    /* read at open, sorted by rel */
	struct cc_table add;    /* put since */
	unsigned bad_lines;
	char why[256];          /* the first problem */
};

static void cc_table_free(struct cc_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->e[i].rel);
	free(t->e);
	memset(t, 0, sizeof(*t));
}

/* Append a copy of E (its rel copied). 0 or -ENOMEM. */
static int cc_table_add(struct cc_table *t, const struct cc_entry *e)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct cc_entry *ne = realloc(t->e, cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		t->e = ne;
		t->cap = cap;
	}
	t->e[t->n] = *e;
	t->e[t->n].rel = strdup(e->rel);
	if (!t->e[t->n].rel)
		return -ENOMEM;
	t->n++;
	return 0;
}

static int cc_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cc_entry *)a)->rel,
		      ((const struct cc_entry *)b)->rel);
}

static const struct cc_entry *cc_find(const struct cc_table *t,
				      const char *rel)
{
	struct cc_entry key = { .rel = (char *)rel };

	return t->n ? bsearch(&key, t->e, t->n, sizeof(key), cc_cmp) : NULL;
}

static void cc_problem(struct wl_count_cache *c, const char *what,
		       const char *detail)
{
	if (!c->why[0])
		snprintf(c->why, sizeof(c->why), "%s%s", what, detail);
}

/* FNV-1a, 64 bits: the file name of a root. */
static uint64_t cc_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

/* One entry line (NUL-terminated, without its newline) of format FMT
 * into *E (rel pointing into LINE). 1 taken, 0 another format's, -1 bad. */
static int cc_parse_line(char *line, const char *fmt, struct cc_entry *e)
{
	char *sp = strchr(line, ' '), *end;
	unsigned long long size, sec, ns, count, raw;
	int used = 0;

	if (!sp)
		return -1;
	*sp = '\0';
	if (sscanf(sp + 1, "%llu %llu.%9llu %llu %llu %n", &size, &sec, &ns,
		   &count, &raw, &used) != 5 || !used)
		return -1;
	end = sp + 1 + used;
	if (!*end || ns >= 1000000000ull || sec > (unsigned long long)INT64_MAX /
	    1000000000ll - 1)
		return -1;
	e->rel = end;
	e->size = size;
	e->mtime_ns = (int64_t)sec * 1000000000ll + (int64_t)ns;
	e->count = count;
	e->raw = raw;
	return strcmp(line, fmt) ? 0 : 1;
}

/* Read the cache file (if any) into *T, sorted. Formats other than C's
 * are kept too when KEEP_ALL (to write them back). 0 or -ENOMEM; a
 * missing or bad file is an empty table (a problem noted). */
static int cc_load(struct wl_count_cache *c, struct cc_table *t,
		   bool keep_all, struct cc_table *others)
{
	FILE *f = fopen(c->file, "re");
	char *line = NULL;
	size_t cap = 0, total = 0;
	ssize_t len;
	bool first = true;
	int err = 0;

	if (!f) {
		/* no file (or no folder) yet: nothing cached */
		if (errno != ENOENT && errno != ENOTDIR)
			cc_problem(c, "count cache unreadable: ",
				   strerror(errno));
		return 0;
	}
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		struct cc_entry e;
		int r;

		total += (size_t)len;
		if (total > CACHE_FILE_MAX) {
			cc_problem(c, "", "count cache over 64 MiB: ignored");
			cc_table_free(t);
			break;
		}
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!first) {              /* a cut last line */
			c->bad_lines++;
			cc_problem(c, "", "count cache: a cut line ignored");
			continue;
		}
		if (first) {
			first = false;
			if (strncmp(line, CACHE_MAGIC, strlen(CACHE_MAGIC)) ||
			    strcmp(line + strlen(CACHE_MAGIC), c->root)) {
				cc_problem(c, "", "count cache: not this "
					   "folder's or not a cache; ignored");
				break;
			}
			continue;
		}
		if (keep_all && others) {
			/* another format's good line is written back whole */
			char *copy = strdup(line);

			if (!copy) {
				err = -ENOMEM;
				break;
			}
			r = cc_parse_line(copy, c->fmt, &e);
			free(copy);
			if (r == 0) {
				e.rel = line;
				err = cc_table_add(others, &e);
				continue;
			}
		}
		r = cc_parse_line(line, c->fmt, &e);
		if (r < 0) {
			c->bad_lines++;
			cc_problem(c, "", "count cache: a corrupt line "
				   "ignored");
		} else if (r > 0) {
			err = cc_table_add(t, &e);
		}
	}
	free(line);
	fclose(f);
	if (t->n)
		qsort(t->e, t->n, sizeof(*t->e), cc_cmp);
	return err;
}

int wl_count_cache_open(const char *root, const char *fmt, const char *dir,
			struct wl_count_cache **out)
{
	struct wl_count_cache *c = calloc(1, sizeof(*c));
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int err = -ENOMEM;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	snprintf(c->fmt, sizeof(c->fmt), "%s", fmt);
	c->root = strdup(root);
	if (!c->root)
		goto err;
	/* XDG base directories: a relative $XDG_CACHE_HOME is ignored */
	if (dir)
		err = asprintf(&c->dir, "%s", dir);
	else if (xdg && xdg[0] == '/')
		err = asprintf(&c->dir, "%s/feedrate/counts", xdg);
	else if (home && home[0] == '/')
		err = asprintf(&c->dir, "%s/.cache/feedrate/counts", home);
	else
		err = 0;
	if (err < 0) {
		c->dir = NULL;
		err = -ENOMEM;
		goto err;
	}
	if (!c->dir) {
		cc_problem(c, "", "no count cache: neither XDG_CACHE_HOME "
			   "nor HOME is set");
		*out = c;
		return 0;
	}
	if (asprintf(&c->file, "%s/%016llx", c->dir,
		     (unsigned long long)cc_hash(root)) < 0) {
		c->file = NULL;
		err = -ENOMEM;
		goto err;
	}
	err = cc_load(c, &c->old, false, NULL);
	if (err)
		goto err;
	*out = c;
	return 0;
err:
	wl_count_cache_free(c);
	return err;
}

bool wl_count_cache_get(const struct wl_count_cache *c, const char *rel,
			uint64_t size, int64_t mtime_ns, uint64_t *count,
			uint64_t *raw)
{
	const struct cc_entry *e = c ? cc_find(&c->old, rel) : NULL;

	if (!e || e->size != size || e->mtime_ns != mtime_ns)
		return false;
	*count = e->count;
	*raw = e->raw;
	return true;
}

int wl_count_cache_put(struct wl_count_cache *c, const char *rel,
		       uint64_t size, int64_t mtime_ns, uint64_t count,
		       uint64_t raw)
{
	struct cc_entry e = { .rel = (char *)rel, .size = size,
			      .mtime_ns = mtime_ns, .count = count,
			      .raw = raw };
	struct timespec now;

	if (!c || !c->dir || strchr(rel, '\n') || !rel[0])
		return 0;
	/* a write later in the same timestamp tick would keep this mtime */
	clock_gettime(CLOCK_REALTIME, &now);
	if (mtime_ns > (int64_t)now.tv_sec * 1000000000ll + now.tv_nsec -
	    CACHE_RACY_NS)
		return 0;
	return cc_table_add(&c->add, &e);
}

/* mkdir -p DIR (mode 0700: the names of someone's dataset). */
static int cc_mkdirs(const char *dir)
{
	char *p = strdup(dir);
	int err = 0;

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; !err; s++) {
		bool last = *s == '\0';

		if (*s != '/' && !last)
			continue;
		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST)
			err = -errno;
		if (last)
			break;
		*s = '/';
	}
	free(p);
	return err;
}

static int cc_write_entry(FILE *f, const char *fmt, const struct cc_entry *e)
{
	return fprintf(f, "%s %llu %lld.%09lld %llu %llu %s\n", fmt,
		       (unsigned long long)e->size,
		       (long long)(e->mtime_ns / 1000000000ll),
		       (long long)(e->mtime_ns % 1000000000ll),
		       (unsigned long long)e->count,
		       (unsigned long long)e->raw, e->rel) < 0 ? -EIO : 0;
}

int wl_count_cache_save(struct wl_count_cache *c, char *why, size_t cap)
{
	struct wl_count_cache now = { 0 };
	struct cc_table others = { 0 };
	char *tmp = NULL;
	FILE *f = NULL;
	int fd = -1, err;

	why[0] = '\0';
	if (!c || !c->dir || !c->add.n)
		return 0;
	qsort(c->add.e, c->add.n, sizeof(*c->add.e), cc_cmp);
	err = cc_mkdirs(c->dir);
	if (err) {
		snprintf(why, cap, "count cache not written: cannot make %s: "
			 "%s", c->dir, strerror(-err));
		return err;
	}
	/* what is there now: a concurrent writer's entries are kept */
	now.root = c->root;
	now.file = c->file;
	snprintf(now.fmt, sizeof(now.fmt), "%s", c->fmt);
	err = cc_load(&now, &now.old, true, &others);
	if (err)
		goto out;
	if (asprintf(&tmp, "%s.tmp.XXXXXX", c->file) < 0) {
		tmp = NULL;
		err = -ENOMEM;
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		goto out;
	}
	fd = -1;
	err = fprintf(f, "%s%s\n", CACHE_MAGIC, c->root) < 0 ? -EIO : 0;
	for (size_t i = 0; !err && i < others.n; i++)
		err = fprintf(f, "%s\n", others.e[i].rel) < 0 ? -EIO : 0;
	for (size_t i = 0; !err && i < now.old.n; i++)
		if (!cc_find(&c->add, now.old.e[i].rel))
			err = cc_write_entry(f, c->fmt, &now.old.e[i]);
	for (size_t i = 0; !err && i < c->add.n; i++)
		err = cc_write_entry(f, c->fmt, &c->add.e[i]);
	if (!err && fflush(f))
		err = -errno;
	if (!err && fsync(fileno(f)))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	f = NULL;
	if (!err && rename(tmp, c->file))
		err = -errno;
out:
	if (err && !why[0])
		snprintf(why, cap, "count cache not written to %s: %s",
			 c->dir, strerror(-err));
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (err && tmp)
		unlink(tmp);
	free(tmp);
	cc_table_free(&now.old);
	cc_table_free(&others);
	return err;
}

unsigned wl_count_cache_problems(const struct wl_count_cache *c, char *why,
				 size_t cap)
{
	if (cap)
		snprintf(why, cap, "%s", c ? c->why : "");
	return c ? c->bad_lines + (c->why[0] && !c->bad_lines) : 0;
}

void wl_count_cache_free(struct wl_count_cache *c)
{
	if (!c)
		return;
	cc_table_free(&c->old);
	cc_table_free(&c->add);
	free(c->root);
	free(c->dir);
	free(c->file);
	free(c);
}
