/*
 * uring.c - the io_uring backend: one ring per reader, whole files read in
 * block-size chunks, several chunks of one file in flight at once.
 *
 * DESIGN: single-threaded; the ring, the issue queue, the chunk
 * descriptors and the name slots belong to the reader's thread. A file is
 * opened when it is queued: with openat() on this thread, or, once opens
 * proved slow here (FUSE), through the ring (see uring_setup_async_open),
 * then its chunks are prepared as SQEs while fewer than cfg.depth reads
 * are in flight; SQEs reach the kernel in one io_uring_enter per reap (or
 * flush). CQEs say by their user_data's low bits whether they end a
 * chunk, an open or a close.
 * A chunk that comes back short inside the file is re-issued for the rest;
 * when the last chunk of a file is back the file is closed, settled (shrank
 * / grew) and handed to the core. The buffer pool's region is registered
 * as fixed buffers (1 GiB pieces, the kernel's limit per buffer) unless
 * RLIMIT_MEMLOCK refuses; then reads go to the same memory unregistered.
 * The kernel's io-wq workers of the ring are pinned to the CPUs this
 * thread may use when the reader is created.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#include <liburing.h>

#include "reader_internal.h"

#define URING_REG_PIECE (1ull << 30)

struct chunk {
	struct chunk *next;       /* free list */
	struct stg_io *io;
	uint64_t off;
	uint64_t len;
	struct iovec iov[2];      /* a read that runs past the buffer into
	                             the request's probe page */
	bool busy;                /* in the kernel (exit cancels these) */
};

/*
 * What a CQE is for: the low bits of its user_data (pointers are 8-byte
 * aligned). OP_CANCEL is the whole user_data of the cancels exit sends.
 * Without IORING_FEAT_EXT_ARG (kernels before 5.11) liburing waits with a
 * timeout by queueing its own IORING_OP_TIMEOUT, whose CQE carries
 * LIBURING_UDATA_TIMEOUT (all ones): it is none of ours and is skipped.
 */
enum { OP_CHUNK = 0, OP_OPEN = 1, OP_CLOSE = 2, OP_CANCEL = 3, OP_MASK = 3 };

struct uring {
	struct io_uring ring;
	bool registered;
	bool async_ok;            /* the kernel has IORING_OP_OPENAT/CLOSE */
	bool async_open;          /* ... and files are opened through it */
	uint64_t open_ns;         /* time in openat() on this thread ... */
	unsigned opens;           /* ... over this many opens */
	bool exiting;             /* no more reads: opened files close */
	unsigned nreg;
	unsigned inflight;        /* chunks prepared or in the kernel */
	unsigned opening;         /* OPENATs prepared or in the kernel */
	unsigned closing;         /* CLOSEs prepared or in the kernel */
	unsigned cancelling;      /* ASYNC_CANCELs prepared or in the kernel */
	unsigned unsubmitted;     /* SQEs prepared since the last enter */
	struct stg_io *issue_head, *issue_tail;
	struct chunk *chunks;
	struct chunk *free_chunks;
	/* per request slot (io - r->ios): the name an OPENAT reads when it
	 * reaches the kernel, which may be after stg_reader_submit returns */
	char (*names)[PATH_MAX];
	int *dirfds;
};

bool stg_uring_test_no_ext_arg;
bool stg_uring_test_exit_no_cancel;

int stg_uring_try_ring(void)
{
	struct io_uring ring;
	int err = io_uring_queue_init(2, &ring, 0);

	if (err)
		return err;
	io_uring_queue_exit(&ring);
	return 0;
}

int stg_uring_ring_init(struct io_uring *ring, unsigned entries)
{
	static const unsigned flag_sets[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SUBMIT_ALL,
		IORING_SETUP_SUBMIT_ALL,
		0,
	};
	int err = -EINVAL;

	for (unsigned i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++) {
		struct io_uring_params p;

		memset(&p, 0, sizeof(p));
		p.flags = flag_sets[i];
		err = io_uring_queue_init_params(entries, ring, &p);
		if (err != -EINVAL)
			break;
	}
	return err;
}

static void uring_register(struct stg_reader *r, struct uring *u)
{
	struct iovec iov[64];
	unsigned n = 0;
	struct rlimit rl;
	int err;

	if (r->cfg.no_register) {
		stg_reader_note(r, "buffers not registered (asked)");
		return;
	}
	for (uint64_t off = 0; off < r->pool.size && n < 64;
	     off += URING_REG_PIECE) {
		uint64_t len = r->pool.size - off;

		iov[n].iov_base = r->pool.base + off;
		iov[n].iov_len = len > URING_REG_PIECE ? URING_REG_PIECE : len;
		n++;
	}
	err = io_uring_register_buffers(&u->ring, iov, n);
	if (!err) {
		u->registered = true;
		u->nreg = n;
		return;
	}
	if (err == -ENOMEM && !getrlimit(RLIMIT_MEMLOCK, &rl) &&
	    rl.rlim_cur != RLIM_INFINITY)
		stg_reader_note(r, "buffers not registered (ENOMEM): the "
				"locked-memory limit (ulimit -l) is %llu KiB, "
				"the buffer pool %llu KiB; raise ulimit -l to "
				"register them",
				(unsigned long long)rl.rlim_cur / 1024,
				(unsigned long long)r->pool.size / 1024);
	else
		stg_reader_note(r, "buffers not registered (%s)",
				strerror(-err));
}

static int uring_pin(struct stg_reader *r, const cpu_set_t *set)
{
	struct uring *u = r->be;
	int err = io_uring_register_iowq_aff(&u->ring, sizeof(*set), set);

	if (err)
		stg_reader_note(r, "io-wq workers not pinned (%s)",
				strerror(-err));
	return err;
}

static void uring_pin_workers(struct stg_reader *r)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		stg_reader_note(r, "io-wq workers not pinned (%s)",
				strerror(errno));
	else
		uring_pin(r, &set);
}

/*
 * Reads that cannot complete inline (every read of a FUSE file: FUSE does
 * not take IOCB_NOWAIT) are served by the kernel's io-wq workers, at most
 * min(SQ entries, 4 x CPUs) of them by default. Allow one per read in
 * flight, so that depth reads really are in flight on such filesystems.
 */
static void uring_size_workers(struct stg_reader *r, struct uring *u)
{
	unsigned vals[2] = { r->cfg.depth, r->cfg.depth };
	int err = io_uring_register_iowq_max_workers(&u->ring, vals);

	if (err)
		stg_reader_note(r, "io-wq worker limit not raised to the depth "
				"(%s)", strerror(-err));
}

/*
 * Opens and closes. A file is first opened with openat() on the reader's
 * thread: on a local filesystem that takes microseconds, and the read
 * follows in the same submit. On a FUSE mount (or NFS, ...) each open and
 * each close is a round trip to the daemon (s3fs: an HTTP request), which
 * on this thread serialises every file whatever the depth. So the time
 * spent in openat() is measured, and once the opens of a window of
 * STG_URING_OPEN_WINDOW files averaged STG_URING_OPEN_SLOW_NS or more
 * (stg_uring_open_slow), the reader opens and closes files through the
 * ring instead (IORING_OP_OPENAT /
 * CLOSE), where io-wq workers run them, up to depth at once. Those opens
 * carry IOSQE_ASYNC: tried inline, a FUSE open would block the submitting
 * thread all the same (it ignores O_NONBLOCK). The switch is one-way and
 * said in the notes. Ring opens cost an extra trip through the ring before
 * the first read, ~10 % of files/s from the page cache of a local disk,
 * hence the measurement rather than always.
 */
static void uring_setup_async_open(struct uring *u, unsigned depth)
{
	struct io_uring_probe *probe = io_uring_get_probe_ring(&u->ring);

	if (probe && io_uring_opcode_supported(probe, IORING_OP_OPENAT) &&
	    io_uring_opcode_supported(probe, IORING_OP_CLOSE)) {
		u->names = malloc((size_t)depth * sizeof(*u->names));
		u->dirfds = calloc(depth, sizeof(*u->dirfds));
		u->async_ok = u->names && u->dirfds;
	}
	if (probe)
		io_uring_free_probe(probe);
	if (!u->async_ok) {
		free(u->names);
		free(u->dirfds);
		u->names = NULL;
		u->dirfds = NULL;
	}
}

bool stg_uring_open_slow(unsigned opens, uint64_t open_ns)
{
	return opens >= STG_URING_OPEN_WINDOW &&
	       open_ns / opens >= STG_URING_OPEN_SLOW_NS;
}

/* Account one openat() of DT ns; switch to ring opens when they are slow. */
static void uring_open_timed(struct stg_reader *r, struct uring *u,
			     uint64_t dt)
{
	u->open_ns += dt;
	if (++u->opens < STG_URING_OPEN_WINDOW)
		return;
	if (u->async_ok && stg_uring_open_slow(u->opens, u->open_ns)) {
		u->async_open = true;
		stg_reader_note(r, "files opened and closed through the ring "
				"(openat took %.2f ms each on the reader "
				"thread)", (double)u->open_ns / u->opens / 1e6);
	}
	u->open_ns = 0;
	u->opens = 0;
}

static int uring_init(struct stg_reader *r)
{
	struct uring *u;
	unsigned entries = 8;
	int err;

	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->chunks = calloc(r->cfg.depth, sizeof(*u->chunks));
	if (!u->chunks) {
		err = -ENOMEM;
		goto err_u;
	}
	for (unsigned i = 0; i < r->cfg.depth; i++) {
		u->chunks[i].next = u->free_chunks;
		u->free_chunks = &u->chunks[i];
	}
	/* depth chunks, plus an open and a close per file in flight: the CQ
	 * ring (twice the entries) holds every completion there can be */
	while (entries < 2 * r->cfg.depth)
		entries <<= 1;
	err = stg_uring_ring_init(&u->ring, entries);
	if (err)
		goto err_chunks;
	if (stg_uring_test_no_ext_arg)
		u->ring.features &= ~(unsigned)IORING_FEAT_EXT_ARG;
	r->be = u;
	uring_register(r, u);
	uring_pin_workers(r);
	uring_size_workers(r, u);
	uring_setup_async_open(u, r->cfg.depth);
	return 0;
err_chunks:
	free(u->chunks);
err_u:
	free(u);
	return err;
}

static struct io_uring_sqe *uring_sqe(struct uring *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe) {
		/* cannot happen while inflight <= depth <= SQ entries, but a
		 * full SQ is no reason to fail: push it to the kernel */
		io_uring_submit(&u->ring);
		u->unsubmitted = 0;
		sqe = io_uring_get_sqe(&u->ring);
	}
	return sqe;
}

static void uring_prep_chunk(struct stg_reader *r, struct uring *u,
			     struct chunk *c)
{
	struct stg_io *io = c->io;
	const unsigned niov = stg_io_iov(r, io, c->off, c->len, c->iov);
	uint8_t *addr = c->iov[0].iov_base;
	struct io_uring_sqe *sqe = uring_sqe(u);
	uint64_t rel = (uint64_t)(addr - r->pool.base);

	if (!sqe) {
		/* no SQE even after a submit: fail the chunk, never hang */
		stg_io_chunk(io, c->off, c->len, -EBUSY);
		io->next_off = io->want;
		c->next = u->free_chunks;
		u->free_chunks = c;
		return;
	}
	if (niov == 2)          /* past the buffer: the probe page too */
		io_uring_prep_readv(sqe, io->fd, c->iov, 2, c->off);
	else if (addr != (uint8_t *)io->buf->data + c->off || !io->buf->pool)
		io_uring_prep_read(sqe, io->fd, addr, (unsigned)c->len, c->off);
	else if (u->registered && rel / URING_REG_PIECE ==
		 (rel + c->len - 1) / URING_REG_PIECE)
		io_uring_prep_read_fixed(sqe, io->fd, addr, (unsigned)c->len,
					 c->off, (int)(rel / URING_REG_PIECE));
	else
		io_uring_prep_read(sqe, io->fd, addr, (unsigned)c->len, c->off);
	if (r->cfg.force_async)
		sqe->flags |= IOSQE_ASYNC;
	io_uring_sqe_set_data(sqe, c);
	c->busy = true;
	io->inflight++;
	io->nreads++;
	u->inflight++;
	u->unsubmitted++;
}

/* Prepare chunks of queued files while fewer than depth are in flight. */
static void uring_pump(struct stg_reader *r, struct uring *u)
{
	while (u->issue_head && u->free_chunks) {
		struct stg_io *io = u->issue_head;
		struct chunk *c;

		if (io->next_off >= io->want) {
			u->issue_head = io->next;
			if (!u->issue_head)
				u->issue_tail = NULL;
			io->queued = false;
			continue;
		}
		c = u->free_chunks;
		u->free_chunks = c->next;
		c->io = io;
		c->off = io->next_off;
		c->len = io->want - io->next_off;
		/* the 4 KiB that only shows a grown file rides on the last
		 * chunk instead of costing a read of its own */
		if (c->len > r->cfg.block_size + STG_ALIGN)
			c->len = r->cfg.block_size;
		io->next_off += c->len;
		uring_prep_chunk(r, u, c);
	}
}

static void uring_file_finish(struct stg_reader *r, struct stg_io *io)
{
	struct uring *u = r->be;

	if (io->fd >= 0) {
		struct io_uring_sqe *sqe = u->async_open ? uring_sqe(u) : NULL;

		if (sqe) {
			/* the reader does not wait for it: the file is done */
			io_uring_prep_close(sqe, io->fd);
			io_uring_sqe_set_data64(sqe, OP_CLOSE);
			u->closing++;
			u->unsubmitted++;
		} else {
			close(io->fd);
		}
	}
	io->fd = -1;
	stg_io_settle(io);
	io->t_done = stg_now_ns();
	stg_io_done(r, io);
}

/* Put an opened file on the issue queue. */
static void uring_issue(struct stg_reader *r, struct uring *u,
			struct stg_io *io)
{
	io->next = NULL;
	io->queued = true;
	if (u->issue_tail)
		u->issue_tail->next = io;
	else
		u->issue_head = io;
	u->issue_tail = io;
	uring_pump(r, u);
}

/* A file that ends before any read: its error is the completion. */
static void uring_fail_file(struct stg_reader *r, struct stg_io *io, int err)
{
	io->result = err;
	uring_file_finish(r, io);
}

/* Prepare the OPENAT of IO's slot (O_DIRECT as io->direct says). */
static void uring_prep_open(struct stg_reader *r, struct uring *u,
			    struct stg_io *io)
{
	const size_t slot = (size_t)(io - r->ios);
	struct io_uring_sqe *sqe = uring_sqe(u);

	if (!sqe) {
		uring_fail_file(r, io, -EBUSY);
		return;
	}
	io_uring_prep_openat(sqe, u->dirfds[slot], u->names[slot],
			     O_RDONLY | O_CLOEXEC | O_NOCTTY |
			     (io->direct ? O_DIRECT : 0), 0);
	sqe->flags |= IOSQE_ASYNC;
	io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)io | OP_OPEN);
	u->opening++;
	u->unsubmitted++;
}

/* The OPENAT of IO came back with RES (an fd or -errno). */
static void uring_opened(struct stg_reader *r, struct uring *u,
			 struct stg_io *io, int res)
{
	u->opening--;
	if (res == -EINVAL && io->direct && !u->exiting) {
		/* the filesystem refuses O_DIRECT: read through the cache */
		io->direct = false;
		__atomic_fetch_add(&r->st.direct_refused, 1, __ATOMIC_RELAXED);
		uring_prep_open(r, u, io);
		return;
	}
	if (res < 0) {
		uring_fail_file(r, io, res);
		return;
	}
	io->fd = res;
	if (u->exiting) {
		io->next_off = io->want;
		uring_file_finish(r, io);
		return;
	}
	uring_issue(r, u, io);
}

/*
 * With async opens the name is copied into the request's slot and the
 * OPENAT goes to the kernel with the next submit; without them the file
 * is opened here with openat(). Either way an open that fails becomes the
 * file's completion.
 */
static void uring_queue(struct stg_reader *r, struct stg_io *io, int dirfd,
			const char *name)
{
	struct uring *u = r->be;
	const size_t slot = (size_t)(io - r->ios);
	uint64_t t0;
	size_t len;
	int err;

	io->fd = -1;
	if (u->async_open) {
		len = strlen(name);
		if (len >= PATH_MAX) {
			uring_fail_file(r, io, -ENAMETOOLONG);
			return;
		}
		memcpy(u->names[slot], name, len + 1);
		u->dirfds[slot] = dirfd;
		io->direct = r->cfg.direct;
		uring_prep_open(r, u, io);
		return;
	}
	t0 = stg_now_ns();
	err = stg_io_open(r, io, dirfd, name);
	uring_open_timed(r, u, stg_now_ns() - t0);
	if (err) {
		uring_fail_file(r, io, err);
		return;
	}
	uring_issue(r, u, io);
}

static int uring_commit(struct stg_reader *r)
{
	struct uring *u = r->be;
	int ret;

	if (!u->unsubmitted)
		return 0;
	ret = io_uring_submit(&u->ring);
	if (ret < 0)
		return ret;
	u->unsubmitted = 0;
	return 0;
}

/* Handle every CQE there is; returns how many. */
static unsigned uring_drain(struct stg_reader *r, struct uring *u)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&u->ring, head, cqe) {
		const uint64_t tag = io_uring_cqe_get_data64(cqe);
		struct chunk *c;
		struct stg_io *io;
		bool again;

		n++;
		if (tag == LIBURING_UDATA_TIMEOUT)
			continue;
		if (tag == OP_CANCEL) {
			u->cancelling--;
			continue;
		}
		if ((tag & OP_MASK) == OP_CLOSE) {
			u->closing--;
			continue;
		}
		if ((tag & OP_MASK) == OP_OPEN) {
			uring_opened(r, u, (struct stg_io *)(uintptr_t)
				     (tag & ~(uint64_t)OP_MASK), cqe->res);
			continue;
		}
		c = (struct chunk *)(uintptr_t)tag;
		c->busy = false;
		io = c->io;
		io->inflight--;
		u->inflight--;
		again = stg_io_chunk(io, c->off, c->len, cqe->res);
		if (again && !u->exiting) {
			c->off += (uint64_t)cqe->res;
			c->len -= (uint64_t)cqe->res;
			uring_prep_chunk(r, u, c);
		} else {
			/* end, error, or exit (no more reads, even for the
			 * rest of a short one: it may block for good) */
			if (again || cqe->res < 0 || (uint64_t)cqe->res < c->len)
				io->next_off = io->want;
			c->next = u->free_chunks;
			u->free_chunks = c;
		}
		if (!io->inflight && io->next_off >= io->want && !io->queued)
			uring_file_finish(r, io);
		else if (!io->inflight && io->next_off >= io->want &&
			 io->queued) {
			/* still on the issue queue: drop it from there */
			struct stg_io **pp = &u->issue_head, *prev = NULL;

			while (*pp && *pp != io) {
				prev = *pp;
				pp = &(*pp)->next;
			}
			if (*pp) {
				*pp = io->next;
				if (u->issue_tail == io)
					u->issue_tail = prev;
			}
			io->queued = false;
			uring_file_finish(r, io);
		}
	}
	io_uring_cq_advance(&u->ring, n);
	return n;
}

static int uring_getevents(struct stg_reader *r, uint64_t deadline_ns)
{
	struct uring *u = r->be;
	int ret;

	for (;;) {
		uring_drain(r, u);
		uring_pump(r, u);
		if (r->done_head || (!u->inflight && !u->opening) ||
		    deadline_ns == 0)
			return uring_commit(r);
		if (deadline_ns == UINT64_MAX) {
			ret = io_uring_submit_and_wait(&u->ring, 1);
		} else {
			uint64_t now = stg_now_ns();
			struct __kernel_timespec ts;
			struct io_uring_cqe *cqe;

			if (now >= deadline_ns) {
				uring_commit(r);
				return -ETIME;
			}
			ts.tv_sec = (long long)((deadline_ns - now) / 1000000000ull);
			ts.tv_nsec = (long long)((deadline_ns - now) % 1000000000ull);
			ret = io_uring_submit_and_wait_timeout(&u->ring, &cqe, 1,
							       &ts, NULL);
		}
		if (ret >= 0)
			u->unsubmitted = 0;
		else if (ret != -ETIME && ret != -EINTR)
			return ret;
	}
}

/*
 * Exit wants no more bytes: ask the kernel to cancel every read and open
 * still in flight, so that one that may never finish (an empty FIFO, a
 * hung network filesystem) does not hold destroy. Each by its user_data:
 * IORING_ASYNC_CANCEL_ANY needs 5.19. A request past cancelling finishes
 * normally; either way its CQE comes and is handled as usual.
 */
static void uring_cancel_one(struct uring *u, uint64_t user_data)
{
	struct io_uring_sqe *sqe = uring_sqe(u);

	if (!sqe)
		return;
	io_uring_prep_cancel64(sqe, user_data, 0);
	io_uring_sqe_set_data64(sqe, OP_CANCEL);
	u->cancelling++;
	u->unsubmitted++;
}

static void uring_cancel_all(struct stg_reader *r, struct uring *u)
{
	for (unsigned i = 0; i < r->cfg.depth; i++)
		if (u->chunks[i].busy)
			uring_cancel_one(u, (uint64_t)(uintptr_t)&u->chunks[i]);
	if (u->opening)
		for (unsigned i = 0; i < r->cfg.depth; i++)
			uring_cancel_one(u, (uint64_t)(uintptr_t)&r->ios[i] |
					 OP_OPEN);
}

static void uring_exit(struct stg_reader *r)
{
	struct uring *u = r->be;

	if (!u)
		return;
	/* issue nothing more; files with no chunk in flight close now,
	 * files still opening close when their open comes back */
	u->exiting = true;
	while (u->issue_head) {
		struct stg_io *io = u->issue_head;

		u->issue_head = io->next;
		io->queued = false;
		io->next_off = io->want;
		if (!io->inflight)
			uring_file_finish(r, io);
	}
	u->issue_tail = NULL;
	if (!stg_uring_test_exit_no_cancel)
		uring_cancel_all(r, u);
	/* let the kernel finish with our buffers (and names, and the
	 * descriptors it opens) before they go away: a signal (-EINTR) or a
	 * full ring (-EAGAIN, -EBUSY) is no reason to stop waiting, leaving
	 * reads writing into a pool about to be unmapped and their files
	 * open */
	while (u->inflight || u->opening || u->closing || u->cancelling) {
		int ret = io_uring_submit_and_wait(&u->ring, 1);

		if (ret >= 0)
			u->unsubmitted = 0;
		else if (ret != -EINTR && ret != -EAGAIN && ret != -EBUSY &&
			 !io_uring_cq_ready(&u->ring))
			break;
		uring_drain(r, u);
	}
	io_uring_queue_exit(&u->ring);
	free(u->names);
	free(u->dirfds);
	free(u->chunks);
	free(u);
	r->be = NULL;
}

const struct stg_backend_ops stg_uring_ops = {
	.name = "uring",
	.id = STG_BACKEND_URING,
	.init = uring_init,
	.exit = uring_exit,
	.queue = uring_queue,
	.commit = uring_commit,
	.getevents = uring_getevents,
	.pin = uring_pin,
};
