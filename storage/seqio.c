/*
 * seqio.c - one large file written or read sequentially in big blocks, as
 * a checkpoint shard is saved and restored: through an io_uring ring of
 * its own with several blocks in flight, or with pwrite/pread where the
 * kernel refuses io_uring (or psync is asked).
 *
 * DESIGN: single-threaded; the ring, the slots and their buffers belong
 * to the calling thread for the length of one call (a checkpoint runs one
 * call per shard, each on its own thread). A slot is one block: filled
 * with the pattern (write), queued, and re-queued for its rest when the
 * kernel did part of it; a read slot's pages are checked when it is whole.
 * The stop flag is read before each block is issued; blocks in flight are
 * always waited for, so no buffer is freed under the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <liburing.h>

#include "reader_internal.h"
#include "stg_mix.h"

#define SEQ_PAGE 4096u
#define SEQ_MAGIC 0x666565647261746bull     /* "feedratk" */

/* The period SEED's files repeat, STG_SEQ_PERIOD bytes. */
static void seq_base(uint64_t *base, uint64_t seed)
{
	for (size_t i = 0; i < STG_SEQ_PERIOD / 8; i++)
		base[i] = stg_mix64(seed * 0x100000001b3ull + i);
}

/* BUF (LEN bytes) = the file's bytes from OFF (page aligned). */
static void seq_fill(const uint64_t *base, uint64_t seed, char *buf,
		     size_t len, uint64_t off)
{
	const char *b = (const char *)base;
	size_t done = 0;

	while (done < len) {
		const size_t at = (size_t)((off + done) % STG_SEQ_PERIOD);
		size_t n = STG_SEQ_PERIOD - at;

		if (n > len - done)
			n = len - done;
		memcpy(buf + done, b + at, n);
		done += n;
	}
	for (size_t p = 0; p + 16 <= len; p += SEQ_PAGE) {
		const uint64_t stamp[2] = { (off + p) ^ SEQ_MAGIC, seed };

		memcpy(buf + p, stamp, sizeof(stamp));
	}
}

/* Pages of BUF (LEN bytes from OFF) whose stamp is not theirs. */
static uint64_t seq_check(const char *buf, size_t len, uint64_t off,
			  uint64_t seed)
{
	uint64_t bad = 0;

	for (size_t p = 0; p + 16 <= len; p += SEQ_PAGE) {
		uint64_t stamp[2];

		memcpy(stamp, buf + p, sizeof(stamp));
		bad += stamp[0] != ((off + p) ^ SEQ_MAGIC) || stamp[1] != seed;
	}
	return bad;
}

int stg_seq_pattern(void *buf, size_t len, uint64_t seed, uint64_t off)
{
	uint64_t *base;

	if (off % SEQ_PAGE)
		return -EINVAL;
	base = malloc(STG_SEQ_PERIOD);
	if (!base)
		return -ENOMEM;
	seq_base(base, seed);
	seq_fill(base, seed, buf, len, off);
	free(base);
	return 0;
}

/* One call's state. */
struct seq {
	int fd;
	bool writing;
	uint64_t size, seed;
	uint32_t block;
	unsigned depth;
	volatile sig_atomic_t *stop;
	uint64_t *base;                 /* write: the pattern's period */
	char *bufs;                     /* depth x block, page aligned */
	struct stg_seq_stats *out;
};

struct slot {
	uint64_t off;
	uint32_t len, done;
	bool busy;
};

static bool seq_stopped(const struct seq *s)
{
	return s->stop && *s->stop;
}

/* Slot K's block is whole: check it (read) and count it. */
static void seq_block_done(struct seq *s, unsigned k, const struct slot *sl)
{
	if (!s->writing)
		s->out->bad_pages += seq_check(s->bufs + (size_t)k * s->block,
					       sl->len, sl->off, s->seed);
	s->out->bytes += sl->len;
}

static void seq_prep(struct io_uring *ring, struct seq *s, unsigned k,
		     const struct slot *sl)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	char *p = s->bufs + (size_t)k * s->block + sl->done;

	/* one SQE per slot, and the SQ holds depth of them */
	if (s->writing)
		io_uring_prep_write(sqe, s->fd, p, sl->len - sl->done,
				    sl->off + sl->done);
	else
		io_uring_prep_read(sqe, s->fd, p, sl->len - sl->done,
				   sl->off + sl->done);
	io_uring_sqe_set_data64(sqe, k);
}

/* The block loop through RING. Returns 0, -EINTR or -errno. */
static int seq_uring_loop(struct seq *s, struct io_uring *ring,
			  struct slot *slots)
{
	uint64_t next = 0;
	unsigned inflight = 0;
	int err = 0;

	for (;;) {
		struct io_uring_cqe *cqe;
		unsigned head, seen = 0;

		for (unsigned k = 0; k < s->depth && !err && next < s->size;
		     k++) {
			struct slot *sl = &slots[k];

			if (sl->busy)
				continue;
			if (seq_stopped(s)) {
				err = -EINTR;
				break;
			}
			sl->off = next;
			sl->len = (uint32_t)(s->size - next < s->block ?
					     s->size - next : s->block);
			sl->done = 0;
			sl->busy = true;
			if (s->writing)
				seq_fill(s->base, s->seed,
					 s->bufs + (size_t)k * s->block,
					 sl->len, sl->off);
			seq_prep(ring, s, k, sl);
			next += sl->len;
			inflight++;
		}
		if (!inflight)
			break;
		{
			int r;

			stg_watch_begin(NULL);  /* blocks of one file */
			r = io_uring_submit_and_wait(ring, 1);
			stg_watch_end();

			if (r < 0 && r != -EINTR && r != -EAGAIN &&
			    r != -EBUSY) {
				/* in-flight blocks still belong to the
				 * kernel: io_uring_queue_exit waits */
				return r;
			}
		}
		io_uring_for_each_cqe(ring, head, cqe) {
			const unsigned k = (unsigned)cqe->user_data;
			struct slot *sl = &slots[k];
			const int res = cqe->res;

			seen++;
			if (res == -EINTR || res == -EAGAIN) {
				seq_prep(ring, s, k, sl);
				continue;
			}
			if (res <= 0) {
				/* 0: the file ended early (read) or the
				 * device took nothing (write) */
				if (!err)
					err = res < 0 ? res : -EIO;
				sl->busy = false;
				inflight--;
				continue;
			}
			sl->done += (uint32_t)res;
			if (sl->done < sl->len) {
				seq_prep(ring, s, k, sl);
				continue;
			}
			seq_block_done(s, k, sl);
			sl->busy = false;
			inflight--;
		}
		io_uring_cq_advance(ring, seen);
	}
	return err;
}

static int seq_uring(struct seq *s)
{
	struct io_uring ring;
	struct slot *slots = calloc(s->depth, sizeof(*slots));
	unsigned entries = 1;
	int err;

	if (!slots)
		return -ENOMEM;
	while (entries < s->depth)
		entries <<= 1;
	err = stg_uring_ring_init(&ring, entries);
	if (!err) {
		err = seq_uring_loop(s, &ring, slots);
		io_uring_queue_exit(&ring);
	}
	free(slots);
	return err;
}

static int seq_psync(struct seq *s)
{
	struct slot sl = { 0 };

	while (sl.off < s->size) {
		ssize_t n;

		if (seq_stopped(s))
			return -EINTR;
		sl.len = (uint32_t)(s->size - sl.off < s->block ?
				    s->size - sl.off : s->block);
		if (s->writing)
			seq_fill(s->base, s->seed, s->bufs, sl.len, sl.off);
		for (sl.done = 0; sl.done < sl.len; sl.done += (uint32_t)n) {
			char *p = s->bufs + sl.done;
			const size_t want = sl.len - sl.done;
			const off_t at = (off_t)(sl.off + sl.done);

			stg_watch_begin(NULL);
			n = s->writing ? pwrite(s->fd, p, want, at) :
					 pread(s->fd, p, want, at);
			stg_watch_end();
			if (n < 0 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n <= 0)
				return n < 0 ? -errno : -EIO;
		}
		seq_block_done(s, 0, &sl);
		sl.off += sl.len;
	}
	return 0;
}

/* Which backend CFG's call runs, with why, into OUT. */
static void seq_backend(const struct stg_seq_config *cfg,
			struct stg_seq_stats *out)
{
	char why[sizeof(out->reason) - 8];

	if (cfg->backend == STG_BACKEND_PSYNC) {
		out->backend = STG_BACKEND_PSYNC;
		snprintf(out->reason, sizeof(out->reason), "chosen with "
			 "--backend");
		return;
	}
	if (cfg->backend == STG_BACKEND_URING) {
		out->backend = STG_BACKEND_URING;
		snprintf(out->reason, sizeof(out->reason), "chosen with "
			 "--backend");
		return;
	}
	if (stg_uring_probe(why, sizeof(why))) {
		out->backend = STG_BACKEND_PSYNC;
		snprintf(out->reason, sizeof(out->reason), "auto: %s", why);
	} else {
		out->backend = STG_BACKEND_URING;
		snprintf(out->reason, sizeof(out->reason), "auto: io_uring "
			 "available");
	}
}

/* Set up S for CFG; the buffers (and the pattern for a write). */
static int seq_init(struct seq *s, const struct stg_seq_config *cfg,
		    struct stg_seq_stats *out, bool writing, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	memset(out, 0, sizeof(*out));
	s->fd = -1;
	s->writing = writing;
	s->seed = seed;
	s->out = out;
	s->stop = cfg->stop;
	s->block = cfg->block_size ? cfg->block_size : STG_SEQ_BLOCK_DEFAULT;
	s->depth = cfg->depth ? cfg->depth : STG_SEQ_DEPTH_DEFAULT;
	if (s->block % SEQ_PAGE || cfg->backend == STG_BACKEND_NULL)
		return -EINVAL;
	seq_backend(cfg, out);
	if (out->backend == STG_BACKEND_PSYNC)
		s->depth = 1;
	if (posix_memalign((void **)&s->bufs, SEQ_PAGE,
			   (size_t)s->depth * s->block))
		return -ENOMEM;
	if (writing) {
		s->base = malloc(STG_SEQ_PERIOD);
		if (!s->base)
			return -ENOMEM;
		seq_base(s->base, seed);
	}
	return 0;
}

static void seq_fini(struct seq *s)
{
	free(s->bufs);
	free(s->base);
	if (s->fd >= 0)
		close(s->fd);
}

/* Run S's blocks on the backend chosen; auto falls back to psync when
 * this ring cannot be made after all. */
static int seq_run(struct seq *s, const struct stg_seq_config *cfg)
{
	int err;

	if (s->out->backend == STG_BACKEND_PSYNC)
		return seq_psync(s);
	err = seq_uring(s);
	if (cfg->backend == STG_BACKEND_AUTO && s->out->bytes == 0 &&
	    (err == -EPERM || err == -ENOSYS || err == -ENOMEM ||
	     err == -EACCES)) {
		s->out->backend = STG_BACKEND_PSYNC;
		snprintf(s->out->reason, sizeof(s->out->reason), "auto: the "
			 "ring could not be made (%s)", strerror(-err));
		return seq_psync(s);
	}
	return err;
}

int stg_seq_write(int dirfd, const char *name, uint64_t size, uint64_t seed,
		  const struct stg_seq_config *cfg, bool *created,
		  struct stg_seq_stats *out)
{
	struct seq s;
	double t0, t1;
	int err = seq_init(&s, cfg, out, true, seed);

	*created = false;
	if (err)
		goto out;
	s.size = size;
	t0 = stg_now();
	s.fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
		      (cfg->direct ? O_DIRECT : 0), 0644);
	if (s.fd < 0) {
		err = -errno;
		goto out;
	}
	*created = true;
	err = seq_run(&s, cfg);
	if (err)
		goto out;
	t1 = stg_now();
	/* durable before the caller may say "saved" */
	if (fsync(s.fd)) {
		err = -errno;
		goto out;
	}
	out->sync_s = stg_now() - t1;
	out->seconds = stg_now() - t0;
out:
	seq_fini(&s);
	return err;
}

int stg_seq_read(int dirfd, const char *name, uint64_t seed,
		 const struct stg_seq_config *cfg, struct stg_seq_stats *out)
{
	struct seq s;
	struct stat st;
	double t0;
	int err = seq_init(&s, cfg, out, false, seed);

	if (err)
		goto out;
	t0 = stg_now();
	s.fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC |
		      (cfg->direct ? O_DIRECT : 0));
	if (s.fd < 0 || fstat(s.fd, &st)) {
		err = -errno;
		goto out;
	}
	s.size = (uint64_t)st.st_size;
	err = seq_run(&s, cfg);
	out->seconds = stg_now() - t0;
out:
	seq_fini(&s);
	return err;
}
