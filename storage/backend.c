/*
 * backend.c - the reader core: the backend table, `auto` resolution, and
 * the thin wrappers through which every backend is driven, so that all of
 * them are timed and counted the same way.
 *
 * DESIGN: a reader belongs to one thread. Requests (struct stg_io) are
 * preallocated, depth of them; a submit takes one from the free list and
 * a buffer from the pool, stamps the time and hands it to the backend. The
 * backend gives finished requests back through stg_io_done() on the reader
 * thread (psync's workers queue them to the reader under the backend's own
 * lock first). Reap stamps nothing: the backend stamped t_done when the
 * last byte arrived, so a late reap does not inflate latency percentiles.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reader_internal.h"

/* Every backend, checked in this order by name; auto picks below. */
static const struct stg_backend_ops *const backends[] = {
	&stg_uring_ops,
	&stg_psync_ops,
	&stg_null_ops,
};

static const char *const backend_names[] = {
	[STG_BACKEND_AUTO] = "auto",
	[STG_BACKEND_URING] = "uring",
	[STG_BACKEND_PSYNC] = "psync",
	[STG_BACKEND_NULL] = "null",
};

const char *stg_backend_name(enum stg_backend_id id)
{
	if ((unsigned)id < sizeof(backend_names) / sizeof(backend_names[0]))
		return backend_names[id];
	return "?";
}

int stg_backend_parse(const char *name, enum stg_backend_id *out)
{
	for (unsigned i = 0; i < sizeof(backend_names) / sizeof(backend_names[0]); i++)
		if (name && !strcmp(name, backend_names[i])) {
			*out = (enum stg_backend_id)i;
			return 0;
		}
	return -EINVAL;
}

static const struct stg_backend_ops *backend_find(enum stg_backend_id id)
{
	for (unsigned i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (backends[i]->id == id)
			return backends[i];
	return NULL;
}

const char *stg_strerror(int err)
{
	switch (-err) {
	case 0:
		return "ok";
	case STG_ETOOLARGE:
		return "file larger than --max-sample-bytes, not read";
	case STG_ESHRANK:
		return "file shorter than when it was listed";
	case STG_EGREW:
		return "file longer than when it was listed";
	default:
		return strerror(-err);
	}
}

const char *stg_errname(int err)
{
	switch (-err) {
	case 0: return "ok";
	case STG_ETOOLARGE: return "file_over_cap";
	case STG_ESHRANK: return "shrank";
	case STG_EGREW: return "grew";
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EIO: return "EIO";
	case EISDIR: return "EISDIR";
	case ENOTDIR: return "ENOTDIR";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case EMFILE: return "EMFILE";
	case ENFILE: return "ENFILE";
	case ELOOP: return "ELOOP";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ESTALE: return "ESTALE";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ENXIO: return "ENXIO";
	case EOVERFLOW: return "EOVERFLOW";
	default: return "other";
	}
}

void stg_reader_note(struct stg_reader *r, const char *fmt, ...)
{
	char line[256];
	size_t used = strlen(r->notes);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strstr(r->notes, line))
		return;
	snprintf(r->notes + used, sizeof(r->notes) - used, "%s%s",
		 used ? "; " : "", line);
}

static void done_push(struct stg_reader *r, struct stg_io *io)
{
	io->next = NULL;
	if (r->done_tail)
		r->done_tail->next = io;
	else
		r->done_head = io;
	r->done_tail = io;
}

/* ---- the stall watch (storage/watch.c): this reader's lane ---- */

static void watch_submit(struct stg_reader *r, struct stg_io *io,
			 const char *name)
{
	size_t n = strlen(name);

	if (r->wlane < 0)
		return;
	if (n >= sizeof(io->wname))     /* keep the end: the file's name */
		name += n - (sizeof(io->wname) - 1);
	memcpy(io->wname, name, strlen(name) + 1);
	io->watched = true;
	r->wcount++;
	if (!r->woldest) {
		r->woldest = io;
		stg_watch_lane_set(r->wlane, r->wcount, io->t_submit,
				   io->wname);
	} else {
		stg_watch_lane_set(r->wlane, r->wcount,
				   r->woldest->t_submit, NULL);
	}
}

static void watch_done(struct stg_reader *r, struct stg_io *io)
{
	if (!io->watched)
		return;
	io->watched = false;
	r->wcount--;
	stg_watch_beat();
	if (io == r->woldest) {
		r->woldest = NULL;
		for (unsigned i = 0; i < r->cfg.depth; i++)
			if (r->ios[i].watched && (!r->woldest ||
			    r->ios[i].t_submit < r->woldest->t_submit))
				r->woldest = &r->ios[i];
		stg_watch_lane_set(r->wlane, r->wcount, r->woldest ?
				   r->woldest->t_submit : 0, r->woldest ?
				   r->woldest->wname : "");
	} else {
		stg_watch_lane_set(r->wlane, r->wcount, r->woldest ?
				   r->woldest->t_submit : 0, NULL);
	}
}

void stg_io_done(struct stg_reader *r, struct stg_io *io)
{
	watch_done(r, io);
	r->in_backend--;
	done_push(r, io);
}

bool stg_io_chunk(struct stg_io *io, uint64_t off, uint64_t len, int64_t res)
{
	uint64_t end;

	stg_watch_beat();       /* a chunk came back: the storage answers */
	if (res < 0) {
		if (!io->result)
			io->result = (int)res;
		return false;
	}
	end = off + (uint64_t)res;
	if (end > io->max_end)
		io->max_end = end;
	if ((uint64_t)res >= len)
		return false;
	/* A short read inside the file is legal (signals, some filesystems):
	 * ask again for the rest; an O_DIRECT one may stop mid-block only at
	 * the end of the file. */
	if (res > 0 && end < io->size && !io->result &&
	    (!io->direct || end % STG_ALIGN == 0))
		return true;
	if (end < io->short_end)
		io->short_end = end;
	return false;
}

void stg_io_settle(struct stg_io *io)
{
	if (io->result)
		return;
	if (io->max_end > io->size)
		io->result = -STG_EGREW;
	else if (io->short_end < io->size || io->max_end < io->size)
		io->result = -STG_ESHRANK;
}

unsigned stg_io_iov(const struct stg_reader *r, const struct stg_io *io,
		    uint64_t off, uint64_t len, struct iovec iov[2])
{
	const uint64_t cap = io->buf->cap;
	uint8_t *probe = r->probe + (size_t)(io - r->ios) * STG_ALIGN;
	unsigned n = 0;

	assert(off + len <= cap + STG_ALIGN);
	if (off < cap) {
		iov[n].iov_base = (uint8_t *)io->buf->data + off;
		iov[n].iov_len = (size_t)(off + len <= cap ? len : cap - off);
		n++;
	}
	if (off + len > cap) {
		uint64_t from = off > cap ? off - cap : 0;

		iov[n].iov_base = probe + from;
		iov[n].iov_len = (size_t)(off + len - cap - from);
		n++;
	}
	return n;
}

int stg_io_open(struct stg_reader *r, struct stg_io *io, int dirfd,
		const char *name)
{
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY;
	int fd;

	io->direct = r->cfg.direct;
	fd = openat(dirfd, name, flags | (io->direct ? O_DIRECT : 0));
	if (fd < 0 && errno == EINVAL && io->direct) {
		/* the filesystem refuses O_DIRECT: read through the cache */
		io->direct = false;
		__atomic_fetch_add(&r->st.direct_refused, 1, __ATOMIC_RELAXED);
		fd = openat(dirfd, name, flags);
	}
	if (fd < 0)
		return -errno;
	io->fd = fd;
	return 0;
}

void stg_uring_refusal_text(int err, int disabled, char *buf, size_t len)
{
	switch (-err) {
	case 0:
		snprintf(buf, len, "io_uring available");
		break;
	case EPERM:
		if (disabled == 2)
			snprintf(buf, len, "io_uring refused (EPERM): "
				 "kernel.io_uring_disabled=2 turns it off for "
				 "every process; an administrator can run "
				 "'sysctl kernel.io_uring_disabled=0'");
		else if (disabled == 1)
			snprintf(buf, len, "io_uring refused (EPERM): "
				 "kernel.io_uring_disabled=1 allows it only to "
				 "processes with CAP_SYS_ADMIN or in the group "
				 "kernel.io_uring_group; run with that "
				 "capability or set kernel.io_uring_disabled=0");
		else
			snprintf(buf, len, "io_uring refused (EPERM) by a "
				 "seccomp filter, e.g. a container runtime's "
				 "default profile; allow io_uring_setup, "
				 "io_uring_enter and io_uring_register in the "
				 "container's seccomp profile");
		break;
	case ENOSYS:
		snprintf(buf, len, "io_uring not implemented (ENOSYS): the "
			 "kernel is built without it or a sandbox such as "
			 "gVisor does not provide it");
		break;
	case ENOMEM:
		snprintf(buf, len, "io_uring refused (ENOMEM): the locked-memory "
			 "limit is too small for a ring; raise it (ulimit -l, "
			 "memlock in /etc/security/limits.conf, or docker "
			 "--ulimit memlock=-1)");
		break;
	default:
		snprintf(buf, len, "io_uring refused (%s)", strerror(-err));
		break;
	}
}

/* kernel.io_uring_disabled under the settable sysroot; -1 unknown. */
static int uring_disabled_value(void)
{
	char text[32];

	if (stg_sysroot_read("/proc/sys/kernel/io_uring_disabled", text,
			     sizeof(text)) <= 0)
		return -1;
	return atoi(text);
}

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static bool probe_done;
static int probe_err;
static char probe_why[320];

void stg_uring_probe_forget(void)
{
	pthread_mutex_lock(&probe_lock);
	probe_done = false;
	pthread_mutex_unlock(&probe_lock);
}

int stg_uring_probe(char *why, size_t len)
{
	int err;

	pthread_mutex_lock(&probe_lock);
	if (!probe_done) {
		int disabled = -1;

		probe_err = stg_uring_try_ring();
		if (probe_err == -EPERM)
			disabled = uring_disabled_value();
		stg_uring_refusal_text(probe_err, disabled, probe_why,
				       sizeof(probe_why));
		probe_done = true;
	}
	err = probe_err;
	if (why && len)
		snprintf(why, len, "%s", probe_why);
	pthread_mutex_unlock(&probe_lock);
	return err;
}

static void config_defaults(struct stg_reader_config *c)
{
	uint64_t floor;

	if (!c->depth)
		c->depth = STG_DEFAULT_DEPTH;
	if (!c->block_size)
		c->block_size = STG_DEFAULT_BLOCK_SIZE;
	c->block_size = (c->block_size + STG_ALIGN - 1) & ~(STG_ALIGN - 1);
	if (!c->max_sample_bytes)
		c->max_sample_bytes = STG_DEFAULT_MAX_SAMPLE_BYTES;
	if (!c->max_inflight_bytes)
		c->max_inflight_bytes = 4ull * c->block_size * c->depth;
	/* the pool must hold the largest readable file; the byte (block)
	 * past it that shows a grown file is read into the request's probe
	 * page, so a 64 MiB limit needs a 64 MiB pool, not 128 */
	floor = c->max_sample_bytes;
	if (c->max_inflight_bytes < floor)
		c->max_inflight_bytes = floor;
	if (!c->psync_threads)
		c->psync_threads = c->depth;
}

int stg_reader_create(const struct stg_reader_config *cfg,
		      struct stg_reader **out)
{
	struct stg_reader *r;
	enum stg_backend_id want;
	char why[320];
	int err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	if (cfg)
		r->cfg = *cfg;
	config_defaults(&r->cfg);
	if (r->cfg.depth > 65536) {
		err = -EINVAL;
		goto err_r;
	}
	want = r->cfg.backend;
	if (want == STG_BACKEND_AUTO) {
		err = stg_uring_probe(why, sizeof(why));
		if (err) {
			want = STG_BACKEND_PSYNC;
			snprintf(r->reason, sizeof(r->reason),
				 "auto: %s; using psync", why);
		} else {
			want = STG_BACKEND_URING;
			snprintf(r->reason, sizeof(r->reason),
				 "auto: io_uring available");
		}
	} else {
		snprintf(r->reason, sizeof(r->reason), "%s", r->cfg.reason ?
			 r->cfg.reason : "chosen with --backend");
	}
	r->cfg.reason = NULL;   /* copied: the caller's string may go */
	r->ops = backend_find(want);
	if (!r->ops) {
		err = -EINVAL;
		goto err_r;
	}
	stg_histo_init(&r->st.clat);
	r->ios = calloc(r->cfg.depth, sizeof(*r->ios));
	if (!r->ios) {
		err = -ENOMEM;
		goto err_r;
	}
	for (unsigned i = 0; i < r->cfg.depth; i++) {
		r->ios[i].next = r->free_ios;
		r->free_ios = &r->ios[i];
	}
	/* mapped, so that only the pages a probe touches cost memory */
	r->probe = mmap(NULL, (size_t)r->cfg.depth * STG_ALIGN,
			PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (r->probe == MAP_FAILED) {
		err = -errno;
		goto err_ios;
	}
	err = stg_pool_init(&r->pool, r->cfg.max_inflight_bytes);
	if (err)
		goto err_probe;
	err = r->ops->init(r);
	if (err)
		goto err_pool;
	r->wlane = stg_watch_lane_get();
	*out = r;
	return 0;
err_pool:
	stg_pool_fini(&r->pool);
err_probe:
	munmap(r->probe, (size_t)r->cfg.depth * STG_ALIGN);
err_ios:
	free(r->ios);
err_r:
	free(r);
	return err;
}

void stg_reader_destroy(struct stg_reader *r)
{
	if (!r)
		return;
	r->ops->exit(r);
	stg_watch_lane_put(r->wlane);
	/* whatever finished but was never reaped gives its buffer back */
	for (struct stg_io *io = r->done_head; io; io = io->next)
		stg_buf_release(io->buf);
	stg_pool_fini(&r->pool);
	munmap(r->probe, (size_t)r->cfg.depth * STG_ALIGN);
	free(r->ios);
	free(r);
}

/* A completion that needs no backend: too large, or a failed fstat. */
static void complete_now(struct stg_reader *r, struct stg_io *io, int result)
{
	io->result = result;
	io->buf = NULL;
	io->t_done = io->t_submit;
	done_push(r, io);
}

int stg_reader_submit(struct stg_reader *r, const struct stg_read_req *req)
{
	struct stg_io *io;
	uint64_t size, want;

	if (!req || !req->name || !*req->name)
		return -EINVAL;
	/* the caller's memory: a known size; O_DIRECT: 4096-aligned */
	if (req->dst && (req->size == STG_SIZE_UNKNOWN || (r->cfg.direct &&
			 (uintptr_t)req->dst % STG_ALIGN)))
		return -EINVAL;
	io = r->free_ios;
	if (!io)
		return -EAGAIN;
	size = req->size;
	if (size == STG_SIZE_UNKNOWN) {
		struct stat st;

		int bad;

		stg_watch_begin(req->name);
		bad = fstatat(req->dirfd, req->name, &st, 0) ? -errno : 0;
		stg_watch_end();
		if (bad) {
			r->free_ios = io->next;
			memset(io, 0, sizeof(*io));
			io->user_data = req->user_data;
			io->t_submit = stg_now_ns();
			r->pending++;
			complete_now(r, io, bad);
			return 0;
		}
		size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	}
	/* one byte (O_DIRECT: one block) past the listed size shows a file
	 * that grew; the buffer holds the file only, the rest goes to the
	 * probe page (stg_io_iov), so a file of 64 KiB takes 64 KiB */
	want = r->cfg.direct ? ((size + STG_ALIGN) & ~(uint64_t)(STG_ALIGN - 1))
			     : size + 1;
	if (req->dst) {
		r->free_ios = io->next;
		memset(io, 0, sizeof(*io));
		io->ext.data = req->dst;
		io->ext.cap = r->cfg.direct ? (size + STG_ALIGN - 1) &
			      ~(uint64_t)(STG_ALIGN - 1) : size;
		io->buf = size <= r->cfg.max_sample_bytes ? &io->ext : NULL;
	} else if (size <= r->cfg.max_sample_bytes) {
		struct stg_buf *buf = stg_pool_get(&r->pool, r->cfg.direct ?
			(size + STG_ALIGN - 1) & ~(uint64_t)(STG_ALIGN - 1) :
			size);

		if (!buf)
			return -EAGAIN;
		r->free_ios = io->next;
		memset(io, 0, sizeof(*io));
		io->buf = buf;
	} else {
		r->free_ios = io->next;
		memset(io, 0, sizeof(*io));
	}
	io->user_data = req->user_data;
	io->size = size;
	io->want = want;
	io->short_end = UINT64_MAX;
	io->fd = -1;
	io->t_submit = stg_now_ns();
	r->pending++;
	if (!io->buf) {
		complete_now(r, io, -STG_ETOOLARGE);
		return 0;
	}
	r->in_backend++;
	watch_submit(r, io, req->name);
	r->ops->queue(r, io, req->dirfd, req->name);
	return 0;
}

int stg_reader_flush(struct stg_reader *r)
{
	return r->ops->commit(r);
}

static void reap_one(struct stg_reader *r, struct stg_io *io,
		     struct stg_completion *c)
{
	c->user_data = io->user_data;
	c->result = io->result;
	c->clat_ns = io->t_done > io->t_submit ? io->t_done - io->t_submit : 0;
	/* a file refused unread took no time worth a percentile */
	if (io->result != -STG_ETOOLARGE)
		stg_histo_record(&r->st.clat, c->clat_ns);
	r->st.reads += io->nreads;
	if (io->result) {
		stg_buf_release(io->buf);
		c->buf = NULL;
		c->data = NULL;
		c->len = 0;
		r->st.errors++;
		if (io->result == -STG_ETOOLARGE)
			r->st.too_large++;
	} else {
		c->buf = io->buf == &io->ext ? NULL : io->buf;
		c->data = io->buf->data;
		c->len = io->size;
		r->st.files_ok++;
		r->st.bytes += io->size;
	}
	io->buf = NULL;
	io->next = r->free_ios;
	r->free_ios = io;
	r->pending--;
}

int stg_reader_reap(struct stg_reader *r, struct stg_completion *out,
		    unsigned max, int64_t timeout_ns)
{
	unsigned n = 0;
	uint64_t deadline;
	int err;

	if (!max)
		return 0;
	if (timeout_ns < 0)
		deadline = UINT64_MAX;
	else if (timeout_ns == 0)
		deadline = 0;
	else
		deadline = stg_now_ns() + (uint64_t)timeout_ns;
	for (;;) {
		uint64_t dl = (r->done_head || !r->in_backend) ? 0 : deadline;

		if (r->in_backend) {
			err = r->ops->commit(r);
			if (err)
				return err;
			err = r->ops->getevents(r, dl);
			if (err && err != -ETIME && err != -EINTR &&
			    err != -EAGAIN)
				return err;
		}
		while (r->done_head && n < max) {
			struct stg_io *io = r->done_head;

			r->done_head = io->next;
			if (!r->done_head)
				r->done_tail = NULL;
			reap_one(r, io, &out[n++]);
		}
		if (n || !r->in_backend || deadline == 0)
			break;
		if (deadline != UINT64_MAX && stg_now_ns() >= deadline)
			break;
	}
	return (int)n;
}

unsigned stg_reader_pending(const struct stg_reader *r)
{
	return r->pending;
}

int stg_reader_pin_workers(struct stg_reader *r)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	return r->ops->pin ? r->ops->pin(r, &set) : 0;
}

enum stg_backend_id stg_reader_backend(const struct stg_reader *r)
{
	return r->ops->id;
}

const char *stg_reader_backend_reason(const struct stg_reader *r)
{
	return r->reason;
}

const char *stg_reader_notes(const struct stg_reader *r)
{
	if (__atomic_load_n(&r->st.direct_refused, __ATOMIC_RELAXED) &&
	    !strstr(r->notes, "O_DIRECT")) {
		/* cast: the note is cached text, the reader is logically
		 * unchanged */
		stg_reader_note((struct stg_reader *)r, "O_DIRECT refused by "
				"the filesystem for some files: read through "
				"the page cache");
	}
	return r->notes;
}

void stg_reader_stats(const struct stg_reader *r, struct stg_reader_stats *out)
{
	const size_t at = offsetof(struct stg_reader_stats, direct_refused);
	const size_t past = at + sizeof(r->st.direct_refused);

	/* psync's workers add to direct_refused atomically: copy around it,
	 * never reading it plainly (a struct copy would) */
	memcpy(out, &r->st, at);
	out->direct_refused = __atomic_load_n(&r->st.direct_refused,
					      __ATOMIC_RELAXED);
	memcpy((uint8_t *)out + past, (const uint8_t *)&r->st + past,
	       sizeof(*out) - past);
}
