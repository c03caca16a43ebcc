/*
 * dataset.c - the list of files a run reads: a directory walk or a list
 * file, stored compactly (one byte arena for the paths, 16 bytes per file
 * for the offset and the size) with stable ids.
 *
 * The walk reads each folder completely with getdents64 into one reused
 * buffer, sorts the names bytewise, lists the regular files and pushes the
 * subfolders on an explicit stack, so deep trees cost no recursion and ids
 * do not depend on the order the filesystem returns entries in.
 *
 * DESIGN (sizes in parallel)
 * A file whose size is still to be learnt (a walked entry whose d_type
 * says regular, a list line without a size) is added with the size
 * SIZE_PENDING. Once the walk or the list is done, ds_stat_pending stats
 * them (fstatat from the root, as `find -printf %s` does): the calling
 * thread and up to stat_threads - 1 others, each claiming runs of
 * STAT_CHUNK ids from one atomic counter. While they run the arena and the
 * entries are only read, and each entry's size is written by the one
 * thread that claimed it; pthread_join orders those writes before the
 * calling thread's compaction, which drops the entries that failed
 * (counted with their example, in id order), sums the sizes and
 * renumbers. Each stat is watched (stg_watch_begin: a lane per thread), so
 * storage that stops answering is a stall the watchdog reports; a thread
 * that cannot be started leaves its share to the others.
 */
#include <stdatomic.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage.h"

struct ds_entry {
	uint64_t off;   /* into arena: the relative path, NUL-terminated */
	int64_t size;   /* bytes, -1 when unknown */
};

struct stg_dataset {
	char *root;
	int root_fd;
	char *arena;
	size_t arena_len, arena_cap;
	struct ds_entry *ent;
	size_t count, cap;
	uint64_t total_bytes, max_size;
	uint64_t err[STG_DS_ERR_COUNT];
	char *err_example[STG_DS_ERR_COUNT];
	size_t pending;                 /* entries at SIZE_PENDING */
};

/* An entry's size before ds_stat_pending, and after it where the stat
 * failed: SIZE_FAILED + the kind of problem. */
#define SIZE_PENDING INT64_MIN
#define SIZE_FAILED (INT64_MIN + 1)

static const char *const ds_err_names[STG_DS_ERR_COUNT] = {
	[STG_DS_ERR_OPENDIR] = "opendir",
	[STG_DS_ERR_READDIR] = "readdir",
	[STG_DS_ERR_STAT] = "stat",
	[STG_DS_ERR_DANGLING] = "dangling_link",
	[STG_DS_ERR_LOOP] = "folder_seen_twice",
	[STG_DS_ERR_SPECIAL] = "not_regular",
	[STG_DS_ERR_TOO_LONG] = "path_too_long",
	[STG_DS_ERR_MISSING] = "missing",
	[STG_DS_ERR_BAD_LINE] = "bad_line",
};

const char *stg_ds_err_name(enum stg_ds_err kind)
{
	if ((unsigned)kind >= STG_DS_ERR_COUNT)
		return "unknown";
	return ds_err_names[kind];
}

/* ---- the dataset object ---- */

static int ds_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

static int ds_add(struct stg_dataset *ds, const char *path, size_t len,
		  int64_t size)
{
	int err;

	err = ds_grow((void **)&ds->arena, &ds->arena_cap,
		      ds->arena_len + len + 1, 1);
	if (!err)
		err = ds_grow((void **)&ds->ent, &ds->cap, ds->count + 1,
			      sizeof(*ds->ent));
	if (err)
		return err;
	memcpy(ds->arena + ds->arena_len, path, len);
	ds->arena[ds->arena_len + len] = '\0';
	ds->ent[ds->count].off = ds->arena_len;
	ds->ent[ds->count].size = size;
	ds->arena_len += len + 1;
	ds->count++;
	if (size == SIZE_PENDING)
		ds->pending++;
	if (size > 0) {
		ds->total_bytes += (uint64_t)size;
		if ((uint64_t)size > ds->max_size)
			ds->max_size = (uint64_t)size;
	}
	return 0;
}

/* Count a problem; the first path of each kind is kept as the example. */
static void ds_note(struct stg_dataset *ds, enum stg_ds_err kind,
		    const char *path, size_t len)
{
	ds->err[kind]++;
	if (!ds->err_example[kind])
		ds->err_example[kind] = strndup(path, len);
}

static struct stg_dataset *ds_new(const char *root)
{
	struct stg_dataset *ds = calloc(1, sizeof(*ds));

	if (!ds)
		return NULL;
	ds->root_fd = -1;
	ds->root = strdup(root);
	if (!ds->root) {
		free(ds);
		return NULL;
	}
	return ds;
}

void stg_dataset_destroy(struct stg_dataset *ds)
{
	if (!ds)
		return;
	if (ds->root_fd >= 0)
		close(ds->root_fd);
	for (int k = 0; k < STG_DS_ERR_COUNT; k++)
		free(ds->err_example[k]);
	free(ds->ent);
	free(ds->arena);
	free(ds->root);
	free(ds);
}

/* Give back the slack of the growth doubling. */
static void ds_shrink(struct stg_dataset *ds)
{
	void *p;

	if (ds->arena_len && ds->arena_len < ds->arena_cap) {
		p = realloc(ds->arena, ds->arena_len);
		if (p) {
			ds->arena = p;
			ds->arena_cap = ds->arena_len;
		}
	}
	if (ds->count && ds->count < ds->cap) {
		p = realloc(ds->ent, ds->count * sizeof(*ds->ent));
		if (p) {
			ds->ent = p;
			ds->cap = ds->count;
		}
	}
}

/* ---- sizes in parallel (see DESIGN) ---- */

#define STAT_CHUNK 256          /* ids a thread claims at once */

struct stat_pass {
	struct stg_dataset *ds;
	int flags;                      /* fstatat's: AT_SYMLINK_NOFOLLOW */
	enum stg_ds_err gone;           /* the kind of an ENOENT */
	_Atomic size_t next;            /* the next id to claim */
};

static void *stat_run(void *arg)
{
	struct stat_pass *sp = arg;
	struct stg_dataset *ds = sp->ds;
	struct stat st;

	for (;;) {
		size_t i = atomic_fetch_add_explicit(&sp->next, STAT_CHUNK,
						     memory_order_relaxed);
		const size_t end = i + STAT_CHUNK < ds->count ?
				   i + STAT_CHUNK : ds->count;

		if (i >= ds->count)
			return NULL;
		for (; i < end; i++) {
			struct ds_entry *e = &ds->ent[i];
			int r;

			if (e->size != SIZE_PENDING)
				continue;
			stg_watch_begin(ds->arena + e->off);
			r = fstatat(ds->root_fd, ds->arena + e->off, &st,
				    sp->flags) < 0 ? errno : 0;
			stg_watch_end();
			e->size = r ? SIZE_FAILED + (r == ENOENT ? sp->gone :
						     STG_DS_ERR_STAT) :
				  !S_ISREG(st.st_mode) ?
				  SIZE_FAILED + STG_DS_ERR_SPECIAL : st.st_size;
		}
	}
}

/*
 * Stat every entry at SIZE_PENDING (FLAGS for fstatat; an ENOENT counted
 * as GONE, another failure as STG_DS_ERR_STAT, what is not a regular file
 * as STG_DS_ERR_SPECIAL), on up to OPTS' threads; then drop the entries
 * that failed, keeping the others' order.
 */
static void ds_stat_pending(struct stg_dataset *ds,
			    const struct stg_dataset_opts *opts, int flags,
			    enum stg_ds_err gone)
{
	struct stat_pass sp = { .ds = ds, .flags = flags, .gone = gone };
	const size_t min = opts && opts->stat_parallel_min ?
			   opts->stat_parallel_min : STG_DS_STAT_PARALLEL_MIN;
	unsigned want = opts && opts->stat_threads ? opts->stat_threads :
			STG_DS_STAT_THREADS, n = 0;
	pthread_t t[64];
	size_t j = 0;

	if (!ds->pending)
		return;
	if (want > 64)
		want = 64;
	if (ds->pending < min)
		want = 1;
	while (n + 1 < want && !pthread_create(&t[n], NULL, stat_run, &sp))
		n++;
	stat_run(&sp);
	while (n)
		pthread_join(t[--n], NULL);
	for (size_t i = 0; i < ds->count; i++) {
		const struct ds_entry e = ds->ent[i];

		if (e.size >= SIZE_FAILED &&
		    e.size < SIZE_FAILED + STG_DS_ERR_COUNT) {
			const char *p = ds->arena + e.off;

			ds_note(ds, (enum stg_ds_err)(e.size - SIZE_FAILED), p,
				strlen(p));
			continue;
		}
		if (e.size > 0) {
			ds->total_bytes += (uint64_t)e.size;
			if ((uint64_t)e.size > ds->max_size)
				ds->max_size = (uint64_t)e.size;
		}
		ds->ent[j++] = e;
	}
	ds->count = j;
	ds->pending = 0;
}

/* ---- the directory walk ---- */

/* Open-addressing set of (dev, ino) of the folders already entered. */
struct dir_set {
	struct { dev_t dev; ino_t ino; bool used; } *slot;
	size_t cap, used;
};

static uint64_t dir_hash(dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9E3779B97F4A7C15ull;

	return h ^ ((uint64_t)dev * 0xC2B2AE3D27D4EB4Full) ^ (h >> 29);
}

/* Insert; returns 1 when new, 0 when already there, -ENOMEM. */
static int dir_set_add(struct dir_set *s, dev_t dev, ino_t ino)
{
	size_t i;

	if ((s->used + 1) * 2 > s->cap) {
		struct dir_set big = { .cap = s->cap ? s->cap * 2 : 256 };

		big.slot = calloc(big.cap, sizeof(*big.slot));
		if (!big.slot)
			return -ENOMEM;
		for (i = 0; i < s->cap; i++)
			if (s->slot[i].used)
				dir_set_add(&big, s->slot[i].dev,
					    s->slot[i].ino);
		free(s->slot);
		*s = big;
	}
	for (i = dir_hash(dev, ino) & (s->cap - 1); s->slot[i].used;
	     i = (i + 1) & (s->cap - 1))
		if (s->slot[i].dev == dev && s->slot[i].ino == ino)
			return 0;
	s->slot[i].dev = dev;
	s->slot[i].ino = ino;
	s->slot[i].used = true;
	s->used++;
	return 1;
}

/* The record layout getdents64 fills. */
struct ds_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct walk {
	struct stg_dataset *ds;
	const struct stg_dataset_opts *opts;
	struct dir_set seen;
	/* stack of folders still to walk: their relative paths, packed */
	char *stack;
	size_t stack_len, stack_cap;
	size_t *frame;          /* offsets into stack */
	size_t nframe, frame_cap;
	/* one folder's entries: raw getdents64 records, and their offsets */
	char *dbuf;
	size_t dbuf_cap;
	uint32_t *order;
	size_t order_cap;
	/* subfolders of the current folder, offsets into dbuf */
	uint32_t *sub;
	size_t sub_cap;
};

static int walk_push(struct walk *w, const char *path, size_t len)
{
	int err = ds_grow((void **)&w->stack, &w->stack_cap,
			  w->stack_len + len + 1, 1);

	if (!err)
		err = ds_grow((void **)&w->frame, &w->frame_cap, w->nframe + 1,
			      sizeof(*w->frame));
	if (err)
		return err;
	memcpy(w->stack + w->stack_len, path, len);
	w->stack[w->stack_len + len] = '\0';
	w->frame[w->nframe++] = w->stack_len;
	w->stack_len += len + 1;
	return 0;
}

static int name_cmp(const void *a, const void *b, void *arg)
{
	const char *buf = arg;
	const struct ds_dirent64 *da = (const void *)(buf + *(const uint32_t *)a);
	const struct ds_dirent64 *db = (const void *)(buf + *(const uint32_t *)b);

	/* strcmp compares as unsigned char: bytewise order */
	return strcmp(da->d_name, db->d_name);
}

/* Read all of folder FD into w->dbuf; *LEN gets the bytes used. */
static int walk_read_dir(struct walk *w, int fd, size_t *len)
{
	size_t used = 0;

	for (;;) {
		ssize_t n;

		if (w->dbuf_cap - used < 65536) {
			int err = ds_grow((void **)&w->dbuf, &w->dbuf_cap,
					  used + 65536 > 131072 ?
					  used + 65536 : 131072, 1);
			if (err)
				return err;
		}
		n = getdents64(fd, w->dbuf + used, w->dbuf_cap - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*len = used;
			return -errno;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	*len = used;
	return 0;
}

static bool is_dot(const char *name)
{
	return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
}

/*
 * List folder PATH (relative to the root; "" is the root): its files go
 * into the dataset, its subfolders onto the stack. Problems are counted.
 * Returns 0, or -ENOMEM.
 */
static int walk_dir(struct walk *w, const char *path, size_t plen)
{
	struct stg_dataset *ds = w->ds;
	char child[PATH_MAX];
	size_t len = 0, n = 0, nsub = 0, off;
	struct stat st;
	int fd, err;

	stg_watch_begin(plen ? path : ".");     /* ends after getdents */
	fd = openat(ds->root_fd, plen ? path : ".",
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		stg_watch_end();
		ds_note(ds, STG_DS_ERR_OPENDIR, path, plen);
		return 0;
	}
	if (fstat(fd, &st) < 0) {
		stg_watch_end();
		ds_note(ds, STG_DS_ERR_STAT, path, plen);
		close(fd);
		return 0;
	}
	err = dir_set_add(&w->seen, st.st_dev, st.st_ino);
	if (err <= 0) {
		stg_watch_end();
		close(fd);
		if (err == 0)
			ds_note(ds, STG_DS_ERR_LOOP, path, plen);
		return err;
	}
	err = walk_read_dir(w, fd, &len);
	stg_watch_end();
	if (err == -ENOMEM)
		goto out;
	if (err < 0)
		ds_note(ds, STG_DS_ERR_READDIR, path, plen);

	for (off = 0; off < len;) {
		const struct ds_dirent64 *d = (const void *)(w->dbuf + off);

		if (!is_dot(d->d_name)) {
			err = ds_grow((void **)&w->order, &w->order_cap, n + 1,
				      sizeof(*w->order));
			if (err)
				goto out;
			w->order[n++] = (uint32_t)off;
		}
		off += d->d_reclen;
	}
	if (n)  /* an empty folder has no order array to sort */
		qsort_r(w->order, n, sizeof(*w->order), name_cmp, w->dbuf);

	if (plen) {
		memcpy(child, path, plen);
		child[plen] = '/';
	}
	for (size_t i = 0; i < n; i++) {
		const struct ds_dirent64 *d = (const void *)(w->dbuf + w->order[i]);
		size_t nlen = strlen(d->d_name);
		size_t clen = plen ? plen + 1 + nlen : nlen;
		unsigned char type = w->opts->ignore_d_type ? DT_UNKNOWN
							     : d->d_type;

		if (clen >= sizeof(child)) {
			ds_note(ds, STG_DS_ERR_TOO_LONG, path, plen);
			continue;
		}
		memcpy(child + (plen ? plen + 1 : 0), d->d_name, nlen + 1);
		if (type == DT_DIR) {
			goto subfolder;
		} else if (type != DT_REG && type != DT_LNK &&
			   type != DT_UNKNOWN) {
			ds_note(ds, STG_DS_ERR_SPECIAL, child, clen);
			continue;
		} else if (type == DT_REG) {
			/* its size: ds_stat_pending, after the walk */
			err = ds_add(ds, child, clen, SIZE_PENDING);
			if (err)
				goto out;
			continue;
		}
		/* a symlink's size is its target's; DT_UNKNOWN learns the type */
		stg_watch_begin(child);
		err = fstatat(fd, d->d_name, &st,
			      type == DT_LNK ? 0 : AT_SYMLINK_NOFOLLOW) < 0 ?
		      errno : 0;
		stg_watch_end();
		if (err) {
			bool gone = err == ENOENT || err == ELOOP;

			ds_note(ds, type == DT_LNK && gone ? STG_DS_ERR_DANGLING
							    : STG_DS_ERR_STAT,
				child, clen);
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			/* DT_UNKNOWN that is a link: look through it */
			type = DT_LNK;
			if (fstatat(fd, d->d_name, &st, 0) < 0) {
				ds_note(ds, errno == ENOENT || errno == ELOOP ?
					STG_DS_ERR_DANGLING : STG_DS_ERR_STAT,
					child, clen);
				continue;
			}
		}
		if (S_ISREG(st.st_mode)) {
			err = ds_add(ds, child, clen, st.st_size);
			if (err)
				goto out;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			ds_note(ds, STG_DS_ERR_SPECIAL, child, clen);
			continue;
		}
		if (type == DT_LNK && w->opts->no_follow_dir_links)
			continue;
subfolder:
		err = ds_grow((void **)&w->sub, &w->sub_cap, nsub + 1,
			      sizeof(*w->sub));
		if (err)
			goto out;
		w->sub[nsub++] = w->order[i];
	}
	/* pushed in reverse so that they are walked in bytewise order */
	while (nsub--) {
		const struct ds_dirent64 *d =
			(const void *)(w->dbuf + w->sub[nsub]);
		size_t nlen = strlen(d->d_name);
		size_t clen = plen ? plen + 1 + nlen : nlen;

		memcpy(child + (plen ? plen + 1 : 0), d->d_name, nlen + 1);
		err = walk_push(w, child, clen);
		if (err)
			goto out;
	}
	err = 0;
out:
	close(fd);
	return err;
}

/* The folder ROOT opened, watched as a read of "." (the dataset's own
 * folder): on storage that stopped answering even this open waits. */
static int root_open(const char *root)
{
	int fd;

	stg_watch_begin(".");
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	stg_watch_end();
	return fd;
}

static int ds_open_root(struct stg_dataset *ds)
{
	const int fd = root_open(ds->root);

	ds->root_fd = fd < 0 ? -1 : fd;
	return fd < 0 ? fd : 0;
}

int stg_dataset_root_open(const struct stg_dataset *ds)
{
	return root_open(ds->root);
}

/* listings made in this process (scans and list files) */
static _Atomic unsigned listings;

unsigned stg_dataset_listings(void)
{
	return atomic_load_explicit(&listings, memory_order_relaxed);
}

int stg_dataset_scan(const char *root, const struct stg_dataset_opts *opts,
		     struct stg_dataset **out)
{
	static const struct stg_dataset_opts defaults;
	struct walk w = { .opts = opts ? opts : &defaults };
	char path[PATH_MAX];
	int err;

	atomic_fetch_add_explicit(&listings, 1, memory_order_relaxed);
	*out = NULL;
	w.ds = ds_new(root);
	if (!w.ds)
		return -ENOMEM;
	err = ds_open_root(w.ds);
	if (err)
		goto err;
	err = walk_push(&w, "", 0);
	while (!err && w.nframe) {
		size_t off = w.frame[--w.nframe];
		size_t plen = strlen(w.stack + off);

		/* the top frame's path is the last one in the stack arena:
		 * copy it out, then its children may overwrite it */
		memcpy(path, w.stack + off, plen + 1);
		w.stack_len = off;
		err = walk_dir(&w, path, plen);
	}
	if (err)
		goto err;
	ds_stat_pending(w.ds, w.opts, AT_SYMLINK_NOFOLLOW, STG_DS_ERR_STAT);
	ds_shrink(w.ds);
	*out = w.ds;
	w.ds = NULL;
err:
	stg_dataset_destroy(w.ds);
	free(w.seen.slot);
	free(w.stack);
	free(w.frame);
	free(w.dbuf);
	free(w.order);
	free(w.sub);
	return err;
}

/* ---- the list file ---- */

/* "123\tpath": 1 and the size when LINE starts with digits and a TAB. */
static int parse_size_prefix(const char *line, size_t len, int64_t *size,
			     size_t *skip)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len && line[i] >= '0' && line[i] <= '9'; i++) {
		if (v > (uint64_t)INT64_MAX / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(line[i] - '0');
		if (v > (uint64_t)INT64_MAX)
			return -ERANGE;
	}
	if (i == 0 || i >= len || line[i] != '\t')
		return 0;
	*size = (int64_t)v;
	*skip = i + 1;
	return 1;
}

static int list_line(struct stg_dataset *ds, char *line, size_t len)
{
	int64_t size = -1;
	size_t skip = 0;
	int r;

	r = parse_size_prefix(line, len, &size, &skip);
	if (r < 0) {
		ds_note(ds, STG_DS_ERR_BAD_LINE, line, len);
		return 0;
	}
	line += skip;
	len -= skip;
	if (!len || memchr(line, '\0', len)) {
		ds_note(ds, STG_DS_ERR_BAD_LINE, line, len);
		return 0;
	}
	if (len >= PATH_MAX) {
		ds_note(ds, STG_DS_ERR_TOO_LONG, line, len);
		return 0;
	}
	/* no size given: stat'ed after the list (ds_stat_pending), which
	 * drops what is missing or not a file */
	return ds_add(ds, line, len, r == 0 ? SIZE_PENDING : size);
}

int stg_dataset_load_list(const char *list_path, const char *root,
			  const struct stg_dataset_opts *opts,
			  struct stg_dataset **out)
{
	struct stg_dataset *ds = NULL;
	char *line = NULL, *dir = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int err;

	atomic_fetch_add_explicit(&listings, 1, memory_order_relaxed);
	*out = NULL;
	f = fopen(list_path, "re");
	if (!f)
		return -errno;
	if (!root) {
		const char *slash = strrchr(list_path, '/');

		dir = slash ? strndup(list_path, slash == list_path ? 1 :
				      (size_t)(slash - list_path))
			    : strdup(".");
		if (!dir) {
			err = -ENOMEM;
			goto err;
		}
		root = dir;
	}
	ds = ds_new(root);
	if (!ds) {
		err = -ENOMEM;
		goto err;
	}
	err = ds_open_root(ds);
	if (err)
		goto err;
	while ((n = getline(&line, &cap, f)) >= 0) {
		size_t len = (size_t)n;

		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!len)
			continue;
		err = list_line(ds, line, len);
		if (err)
			goto err;
	}
	if (ferror(f)) {
		err = -EIO;
		goto err;
	}
	ds_stat_pending(ds, opts, 0, STG_DS_ERR_MISSING);
	ds_shrink(ds);
	*out = ds;
	ds = NULL;
	err = 0;
err:
	stg_dataset_destroy(ds);
	free(line);
	free(dir);
	fclose(f);
	return err;
}

/* ---- accessors ---- */

int stg_dataset_from_names(const char *root, const char *const *names,
			   const uint64_t *sizes, size_t n,
			   struct stg_dataset **out)
{
	struct stg_dataset *ds = ds_new(root);
	int err = ds ? ds_open_root(ds) : -ENOMEM;

	*out = NULL;
	for (size_t i = 0; !err && i < n; i++)
		err = ds_add(ds, names[i], strlen(names[i]),
			     sizes[i] > INT64_MAX ? -1 : (int64_t)sizes[i]);
	if (err) {
		stg_dataset_destroy(ds);
		return err;
	}
	ds_shrink(ds);
	*out = ds;
	return 0;
}

size_t stg_dataset_count(const struct stg_dataset *ds)
{
	return ds->count;
}

const char *stg_dataset_root(const struct stg_dataset *ds)
{
	return ds->root;
}

const char *stg_dataset_relpath(const struct stg_dataset *ds, size_t id,
				size_t *len)
{
	const char *p;

	if (id >= ds->count)
		return NULL;
	p = ds->arena + ds->ent[id].off;
	if (len)
		*len = strlen(p);
	return p;
}

int stg_dataset_path(const struct stg_dataset *ds, size_t id, char *buf,
		     size_t cap)
{
	const char *rel = stg_dataset_relpath(ds, id, NULL);
	size_t rlen = strlen(ds->root);
	int n;

	if (!rel)
		return -EINVAL;
	if (rel[0] == '/')
		n = snprintf(buf, cap, "%s", rel);
	else
		n = snprintf(buf, cap, "%s%s%s", ds->root,
			     rlen && ds->root[rlen - 1] == '/' ? "" : "/", rel);
	if (n < 0 || (size_t)n >= cap) {
		if (cap)
			buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return n;
}

int stg_dataset_open(const struct stg_dataset *ds, size_t id, int flags)
{
	const char *rel = stg_dataset_relpath(ds, id, NULL);
	int fd;

	if (!rel)
		return -EINVAL;
	fd = openat(ds->root_fd, rel, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int64_t stg_dataset_size(const struct stg_dataset *ds, size_t id)
{
	return id < ds->count ? ds->ent[id].size : -1;
}

uint64_t stg_dataset_total_bytes(const struct stg_dataset *ds)
{
	return ds->total_bytes;
}

uint64_t stg_dataset_max_size(const struct stg_dataset *ds)
{
	return ds->max_size;
}

uint64_t stg_dataset_errors(const struct stg_dataset *ds, enum stg_ds_err kind)
{
	return (unsigned)kind < STG_DS_ERR_COUNT ? ds->err[kind] : 0;
}

uint64_t stg_dataset_errors_sum(const struct stg_dataset *ds)
{
	uint64_t n = 0;

	for (int k = 0; k < STG_DS_ERR_COUNT; k++)
		n += ds->err[k];
	return n;
}

const char *stg_dataset_error_example(const struct stg_dataset *ds,
				      enum stg_ds_err kind)
{
	return (unsigned)kind < STG_DS_ERR_COUNT ? ds->err_example[kind] : NULL;
}

/* ---- a sample of a dataset ---- */

int stg_dataset_sample(const struct stg_dataset *ds, size_t n,
		       struct stg_dataset **out)
{
	struct stg_dataset *s;
	int err = 0;

	*out = NULL;
	if (n > ds->count)
		n = ds->count;
	s = ds_new(ds->root);
	if (!s)
		return -ENOMEM;
	for (size_t k = 0; k < n && !err; k++) {
		/* evenly spread: the k-th of n strides over the ids */
		const size_t id = (size_t)((double)k * (double)ds->count /
					   (double)n);
		const char *rel = ds->arena + ds->ent[id].off;

		err = ds_add(s, rel, strlen(rel), ds->ent[id].size);
	}
	if (!err)
		err = ds_open_root(s);
	if (err) {
		stg_dataset_destroy(s);
		return err;
	}
	ds_shrink(s);
	*out = s;
	return 0;
}
