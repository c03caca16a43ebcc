/*
 * stream.c - one file read front to back in large blocks, handed out in
 * file order: how a shard (a tar, TFRecord or MDS file of many samples) is
 * read, as WebDataset and DALI stream theirs.
 *
 * DESIGN: single-threaded; a stream belongs to the thread that created it
 * (a loader reader thread). io_uring: a ring of its own with DEPTH slots,
 * a ring buffer of reads queued in file order (HEAD: the next to hand
 * out, COUNT: queued and not yet handed out). Each slot reads one block
 * into memory given when it is queued: the stream's own DEPTH blocks, or
 * the caller's (caller_blocks: stg_stream_feed names where each block
 * lands, so that the bytes are written once, where the caller keeps
 * them). Own blocks: opening a file queues reads of the first DEPTH
 * blocks, and each block handed out is re-queued for the next unread
 * block when the caller asks for the one after it, so DEPTH reads stay in
 * flight ahead of the parser. A block that comes back short inside the
 * file is re-queued for its rest; a block is handed out only whole (or up
 * to the end of file). psync (io_uring refused, or asked): one pread per
 * block on the calling thread, with POSIX_FADV_SEQUENTIAL so the kernel
 * reads ahead. Every read in flight is waited for before a block is
 * handed out, and before the close returns: memory a read was queued into
 * is written by nobody once the close returned (except after a ring
 * failure, which the close reports).
 * The stall watch (watch.c): a stream holds a lane of its own, set by
 * its thread whenever a read goes in or comes back (how many are in
 * flight, the oldest's start, the file), so that a shard read from
 * storage that stopped answering is a stall, as a file read is; the
 * open and a psync read are watched on the thread's lane.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <liburing.h>

#include "reader_internal.h"

#define STREAM_MAX_DEPTH 64u

struct stream_slot {
	uint8_t *buf;
	uint64_t off;           /* file offset of the block */
	uint32_t want;          /* bytes asked (block, or to end of file) */
	uint32_t got;           /* bytes arrived so far */
	int result;             /* first error, 0 */
	bool inflight;
	uint64_t t_submit;
};

struct stg_stream {
	struct stg_stream_config cfg;
	bool uring;
	struct io_uring ring;
	struct stream_slot slot[STREAM_MAX_DEPTH];
	uint8_t *mem;           /* depth x block_size, 4096-aligned; NULL
	                           with caller_blocks */
	int fd;
	int wlane;              /* the stall watch's lane, -1 none */
	char wname[STG_WATCH_NAME];     /* the open file, for the watch */
	bool odirect;           /* this file was opened O_DIRECT */
	bool broken;            /* the ring failed with reads in flight: the
	                           buffers are never freed (the kernel may
	                           still write them) */
	uint64_t size;          /* file size (fstat at open) */
	uint64_t next_issue;    /* next block offset to queue */
	unsigned head;          /* slot of the next block to hand out */
	unsigned count;         /* slots queued, not yet handed out */
	uint8_t *out;           /* own blocks: the one handed out last */
	struct stg_stream_stats st;
};

static uint32_t block_len(const struct stg_stream *s, uint64_t off)
{
	uint64_t left = s->size - off;

	return left < s->cfg.block_size ? (uint32_t)left : s->cfg.block_size;
}

int stg_stream_create(const struct stg_stream_config *cfg,
		      struct stg_stream **out)
{
	struct stg_stream *s;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cfg = *cfg;
	if (!s->cfg.block_size)
		s->cfg.block_size = STG_STREAM_BLOCK_DEFAULT;
	if (s->cfg.block_size % STG_ALIGN || s->cfg.block_size > (1u << 30)) {
		free(s);
		return -EINVAL;
	}
	if (!s->cfg.depth)
		s->cfg.depth = STG_STREAM_DEPTH_DEFAULT;
	if (s->cfg.depth > STREAM_MAX_DEPTH)
		s->cfg.depth = STREAM_MAX_DEPTH;
	s->fd = -1;
	s->wlane = -1;
	stg_histo_init(&s->st.lat);
	if (s->cfg.backend == STG_BACKEND_NULL) {
		free(s);
		return -EINVAL;
	}
	s->uring = s->cfg.backend != STG_BACKEND_PSYNC;
	if (s->uring) {
		err = stg_uring_ring_init(&s->ring, s->cfg.depth);
		if (err) {
			if (s->cfg.backend == STG_BACKEND_URING) {
				free(s);
				return err;
			}
			s->uring = false;   /* auto: refused, read with pread */
		}
	}
	if (!s->uring)
		s->cfg.depth = 1;
	s->st.backend = s->uring ? STG_BACKEND_URING : STG_BACKEND_PSYNC;
	if (s->cfg.caller_blocks) {
		s->wlane = stg_watch_lane_get();
		*out = s;
		return 0;
	}
	if (posix_memalign((void **)&s->mem, STG_ALIGN,
			   (size_t)s->cfg.depth * s->cfg.block_size)) {
		if (s->uring)
			io_uring_queue_exit(&s->ring);
		free(s);
		return -ENOMEM;
	}
	s->wlane = stg_watch_lane_get();
	*out = s;
	return 0;
}

unsigned stg_stream_depth(const struct stg_stream *s)
{
	return s->cfg.depth;
}

/* The stream's lane after a read went in or (DONE) came back. */
static void watch_sync(struct stg_stream *s, bool done)
{
	unsigned n = 0;
	uint64_t oldest = 0;

	if (done)
		stg_watch_beat();
	if (s->wlane < 0)
		return;
	for (unsigned i = 0; i < s->cfg.depth; i++)
		if (s->slot[i].inflight) {
			n++;
			if (!oldest || s->slot[i].t_submit < oldest)
				oldest = s->slot[i].t_submit;
		}
	stg_watch_lane_set(s->wlane, n, oldest, n ? s->wname : "");
}

/* Queue slot I's read of [off + got, off + want). */
static int slot_queue(struct stg_stream *s, unsigned i)
{
	struct stream_slot *sl = &s->slot[i];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	uint32_t len;

	if (!sqe)
		return -EBUSY;      /* cannot happen: one sqe per slot */
	len = sl->want - sl->got;
	/* O_DIRECT takes whole pages: the last block of a file asks for its
	 * page-rounded length and gets the bytes up to the end (GOT is a
	 * page multiple here: see direct_short) */
	if (s->odirect)
		len = (len + STG_ALIGN - 1) / STG_ALIGN * STG_ALIGN;
	io_uring_prep_read(sqe, s->fd, sl->buf + sl->got, len,
			   sl->off + sl->got);
	io_uring_sqe_set_data64(sqe, i);
	sl->inflight = true;
	watch_sync(s, false);
	return 0;
}

/* A short O_DIRECT read that stopped off a page boundary: its rest
 * cannot be asked for (O_DIRECT reads start on pages). */
static bool direct_short(const struct stg_stream *s,
			 const struct stream_slot *sl)
{
	return s->odirect && sl->got % STG_ALIGN;
}

/* Queue the next unread block's read into BUF (not submitted). 1, 0
 * when every block is queued already, or -errno. */
static int queue_one(struct stg_stream *s, uint8_t *buf)
{
	unsigned i = (s->head + s->count) % s->cfg.depth;
	struct stream_slot *sl = &s->slot[i];
	int err;

	assert(s->count < s->cfg.depth);
	if (s->next_issue >= s->size)
		return 0;
	sl->buf = buf;
	sl->inflight = false;
	sl->got = 0;
	sl->result = 0;
	sl->off = s->next_issue;
	sl->want = block_len(s, sl->off);
	s->next_issue += sl->want;
	sl->t_submit = stg_now_ns();
	s->st.reads++;
	s->count++;
	if (!s->uring)
		return 1;
	err = slot_queue(s, i);
	return err ? err : 1;
}

/* Wait for every read in flight (a close, or an error). */
static void drain(struct stg_stream *s)
{
	unsigned left = 0;

	s->count = 0;
	if (!s->uring)
		return;
	for (unsigned i = 0; i < s->cfg.depth; i++)
		left += s->slot[i].inflight;
	io_uring_submit(&s->ring);
	while (left) {
		struct io_uring_cqe *cqe;
		int err = io_uring_wait_cqe(&s->ring, &cqe);

		if (err == -EINTR)
			continue;
		if (err) {
			s->broken = true;
			break;
		}
		s->slot[io_uring_cqe_get_data64(cqe)].inflight = false;
		io_uring_cqe_seen(&s->ring, cqe);
		watch_sync(s, true);
		left--;
	}
}

int stg_stream_close(struct stg_stream *s)
{
	if (!s || s->fd < 0)
		return s && s->broken ? -EIO : 0;
	drain(s);
	close(s->fd);
	s->fd = -1;
	return s->broken ? -EIO : 0;
}

int stg_stream_open(struct stg_stream *s, int dirfd, const char *name)
{
	struct stat stb;
	int flags = O_RDONLY | O_CLOEXEC, fd, err;

	stg_stream_close(s);
	s->odirect = s->cfg.direct;
	{       /* the watch keeps the end of a long name: the file's */
		const size_t n = strlen(name);

		snprintf(s->wname, sizeof(s->wname), "%s", n >=
			 sizeof(s->wname) ? name + n - (sizeof(s->wname) - 1) :
			 name);
	}
	stg_watch_begin(s->wname);
	fd = openat(dirfd, name, flags | (s->cfg.direct ? O_DIRECT : 0));
	if (fd < 0 && s->cfg.direct && errno == EINVAL) {
		s->odirect = false;
		fd = openat(dirfd, name, flags);     /* the filesystem refuses
		                                        O_DIRECT: buffered */
		if (fd >= 0)
			s->st.direct_refused++;
	}
	stg_watch_end();
	if (fd < 0)
		return -errno;
	if (fstat(fd, &stb)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(stb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (!s->uring)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	s->fd = fd;
	s->size = (uint64_t)stb.st_size;
	s->next_issue = 0;
	s->head = 0;
	s->count = 0;
	s->out = NULL;
	for (unsigned i = 0; i < s->cfg.depth && !s->cfg.caller_blocks;
	     i++) {
		err = queue_one(s, s->mem + (size_t)i * s->cfg.block_size);
		if (err < 0) {
			stg_stream_close(s);
			return err;
		}
	}
	if (s->uring && s->count) {
		int n = io_uring_submit(&s->ring);

		if (n < 0) {
			/* nothing reached the kernel: nothing to wait for */
			for (unsigned i = 0; i < s->cfg.depth; i++)
				s->slot[i].inflight = false;
			watch_sync(s, false);
			stg_stream_close(s);
			return n;
		}
	}
	s->st.files++;
	return 0;
}

uint64_t stg_stream_size(const struct stg_stream *s)
{
	return s->fd < 0 ? 0 : s->size;
}

/* uring: take completions until slot I is whole or failed. */
static int wait_slot(struct stg_stream *s, unsigned i, int64_t timeout_ns)
{
	struct stream_slot *sl = &s->slot[i];

	while (sl->inflight) {
		struct io_uring_cqe *cqe;
		struct __kernel_timespec ts = {
			.tv_sec = timeout_ns / 1000000000,
			.tv_nsec = timeout_ns % 1000000000,
		};
		struct stream_slot *c;
		int err;

		/* a submission refused before (-EAGAIN, -EINTR) is still
		 * queued: it goes now, or the wait would never end */
		if (io_uring_sq_ready(&s->ring))
			io_uring_submit(&s->ring);
		err = timeout_ns < 0 ?
			io_uring_wait_cqe(&s->ring, &cqe) :
			io_uring_wait_cqe_timeout(&s->ring, &cqe, &ts);
		if (err == -EINTR)
			continue;
		if (err)
			return err;     /* -ETIME: the caller looks at its stop
			                   flag and asks again */
		c = &s->slot[io_uring_cqe_get_data64(cqe)];
		c->inflight = false;
		watch_sync(s, true);
		if (cqe->res < 0) {
			if (!c->result)
				c->result = cqe->res;
		} else if (cqe->res == 0) {
			if (!c->result)     /* the file shrank under us */
				c->result = -ENODATA;
		} else {
			c->got += (uint32_t)cqe->res;
			if (c->got > c->want)   /* the file grew: its size at
			                           open is what is read */
				c->got = c->want;
			if (c->got < c->want && !c->result &&
			    direct_short(s, c))
				c->result = -EIO;
			else if (c->got < c->want && !c->result)
				slot_queue(s, (unsigned)(c - s->slot));
		}
		io_uring_cqe_seen(&s->ring, cqe);
		if (c->inflight)
			io_uring_submit(&s->ring);
	}
	return 0;
}

/* psync: read slot I whole on this thread. */
static int read_slot(struct stg_stream *s, unsigned i)
{
	struct stream_slot *sl = &s->slot[i];

	while (sl->got < sl->want) {
		size_t len = sl->want - sl->got;
		ssize_t n;

		if (direct_short(s, sl))
			return sl->result = -EIO;
		if (s->odirect)
			len = (len + STG_ALIGN - 1) / STG_ALIGN * STG_ALIGN;
		stg_watch_begin(s->wname);
		n = pread(s->fd, sl->buf + sl->got, len,
			  (off_t)(sl->off + sl->got));
		stg_watch_end();

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sl->result = -errno;
		if (n == 0)
			return sl->result = -ENODATA;
		sl->got += (uint32_t)n;
		if (sl->got > sl->want)
			sl->got = sl->want;
	}
	return 0;
}

int stg_stream_feed(struct stg_stream *s, uint8_t *dst)
{
	int ret;

	if (s->fd < 0)
		return -EBADF;
	if (!s->cfg.caller_blocks)
		return -EINVAL;
	if (s->count == s->cfg.depth)
		return -EBUSY;
	ret = queue_one(s, dst);
	if (ret == 1 && s->uring) {
		int n = io_uring_submit(&s->ring);

		if (n < 0)
			return n;   /* the sqe stays queued: the next wait
			               or the close submits it */
	}
	return ret;
}

int stg_stream_next(struct stg_stream *s, const uint8_t **data, size_t *len,
		    int64_t timeout_ns)
{
	struct stream_slot *sl;
	int err;

	*data = NULL;
	*len = 0;
	if (s->fd < 0)
		return -EBADF;
	if (s->out) {
		/* own blocks: the one handed out last is done with, and
		 * reads the next unread block */
		err = queue_one(s, s->out);
		if (err < 0)
			return err;
		s->out = NULL;
		if (err && s->uring)
			io_uring_submit(&s->ring);
	}
	if (!s->count)      /* end of file, or nothing fed */
		return s->next_issue >= s->size ? 0 : -ENOBUFS;
	sl = &s->slot[s->head];
	err = s->uring ? wait_slot(s, s->head, timeout_ns) : read_slot(s, s->head);
	if (err)
		return err;
	if (sl->result)
		return sl->result;
	s->st.bytes += sl->got;
	stg_histo_record(&s->st.lat, stg_now_ns() - sl->t_submit);
	*data = sl->buf;
	*len = sl->got;
	s->head = (s->head + 1) % s->cfg.depth;
	s->count--;
	if (!s->cfg.caller_blocks)
		s->out = sl->buf;
	return 1;
}

unsigned stg_stream_queued(const struct stg_stream *s)
{
	return s->fd < 0 ? 0 : s->count;
}

void stg_stream_stats(const struct stg_stream *s, struct stg_stream_stats *out)
{
	*out = s->st;
}

void stg_stream_destroy(struct stg_stream *s)
{
	if (!s)
		return;
	stg_stream_close(s);
	if (s->broken)
		return;         /* leaked: the kernel may still write them */
	if (s->uring)
		io_uring_queue_exit(&s->ring);
	stg_watch_lane_put(s->wlane);
	free(s->mem);
	free(s);
}
