/*
 * reader_internal.h - what the reader core (backend.c) shares with its
 * backends (uring.c, psync.c, null.c) and with the tests. Not part of the
 * storage module's public interface.
 */
#ifndef FEEDRATE_READER_INTERNAL_H
#define FEEDRATE_READER_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/uio.h>

#include "storage.h"

#define STG_ALIGN 4096u

/*
 * Buffer pool: one 4096-aligned region cut by a buddy allocator into
 * power-of-two blocks (4 KiB .. the region). Alloc and release take the
 * pool's mutex: release comes from any thread, alloc from the reader's.
 */
struct stg_buf {
	struct stg_pool *pool;
	void *data;
	uint64_t cap;
	int next;                 /* free list link (block index), -1 = end */
	int prev;
	uint8_t order;
	uint8_t free;             /* block heads only */
};

struct stg_pool {
	pthread_mutex_t lock;
	uint8_t *base;
	uint64_t size;            /* 4096 << max_order */
	unsigned max_order;
	int free_head[48];        /* per order, block index or -1 */
	struct stg_buf *blk;      /* one per 4 KiB block; a block's head */
	uint64_t used;            /* bytes handed out */
};

int stg_pool_init(struct stg_pool *p, uint64_t min_size);
void stg_pool_fini(struct stg_pool *p);
/* A block of at least SIZE bytes, or NULL when none is free. */
struct stg_buf *stg_pool_get(struct stg_pool *p, uint64_t size);

/* One accepted file. Preallocated, depth of them per reader. */
struct stg_io {
	struct stg_io *next;      /* free / queue / done list link */
	uint64_t user_data;
	uint64_t size;            /* expected (listing) size */
	uint64_t want;            /* bytes to ask for: > size, so that a
	                             grown file shows; what lies past the
	                             buffer's cap goes to the probe page */
	uint64_t next_off;        /* next chunk to issue */
	uint64_t short_end;       /* lowest end of a chunk that stopped
	                             early; UINT64_MAX when none */
	uint64_t max_end;         /* highest byte end received */
	uint64_t t_submit, t_done;
	struct stg_buf *buf;      /* a pool's, or EXT */
	struct stg_buf ext;       /* the request's DST (pool NULL) */
	int fd;
	int result;               /* first error, 0 */
	unsigned inflight;        /* chunks in the kernel */
	unsigned nreads;          /* read operations issued */
	bool direct;
	bool queued;              /* uring: on the issue queue */
	bool watched;             /* counted in the reader's watch lane */
	char wname[STG_WATCH_NAME]; /* its file, for a stall report */
};

struct stg_backend_ops {
	const char *name;
	enum stg_backend_id id;
	/* Start the backend's state in r->be. 0 or -errno. */
	int (*init)(struct stg_reader *r);
	/* Wait for everything in flight, free r->be. */
	void (*exit)(struct stg_reader *r);
	/*
	 * Start reading IO (buffer, want set; dirfd/name valid during the
	 * call only). Errors become completions through stg_io_done().
	 */
	void (*queue)(struct stg_reader *r, struct stg_io *io, int dirfd,
		      const char *name);
	/* Hand queued work to the kernel / threads. 0 or -errno. */
	int (*commit)(struct stg_reader *r);
	/*
	 * Move finished files to the reader's done list (stg_io_done).
	 * DEADLINE_NS: 0 = do not wait, UINT64_MAX = until one finishes,
	 * else an absolute CLOCK_MONOTONIC time. 0 or -errno (-ETIME ok).
	 */
	int (*getevents)(struct stg_reader *r, uint64_t deadline_ns);
	/* Move the backend's threads to cpu set SET (may be NULL: none). */
	int (*pin)(struct stg_reader *r, const cpu_set_t *set);
};

extern const struct stg_backend_ops stg_uring_ops;
extern const struct stg_backend_ops stg_psync_ops;
extern const struct stg_backend_ops stg_null_ops;

struct stg_reader {
	const struct stg_backend_ops *ops;
	void *be;                 /* backend state */
	struct stg_reader_config cfg;
	struct stg_pool pool;
	uint8_t *probe;           /* depth pages of STG_ALIGN: request i's
	                             bytes past its buffer (never read) */
	struct stg_io *ios;       /* depth of them */
	struct stg_io *free_ios;
	struct stg_io *done_head, *done_tail;
	unsigned pending;         /* accepted, not reaped */
	unsigned in_backend;      /* handed to the backend, not done */
	int wlane;                /* stall watch lane, -1 none */
	unsigned wcount;          /* reads in that lane */
	struct stg_io *woldest;   /* the oldest of them */
	struct stg_reader_stats st;
	char reason[400];
	char notes[512];
};

/* A backend finished IO (reader thread only; psync hands them over). */
void stg_io_done(struct stg_reader *r, struct stg_io *io);

/*
 * Settle a file whose chunks all came back: sets io->result from what the
 * chunks showed (shrank, grew) unless an error is already there.
 */
void stg_io_settle(struct stg_io *io);

/*
 * Account one chunk [OFF, OFF+LEN) that returned RES. Returns true when the
 * caller should re-issue [OFF+RES, OFF+LEN) (a short read inside the file).
 */
bool stg_io_chunk(struct stg_io *io, uint64_t off, uint64_t len, int64_t res);

/*
 * Where bytes [OFF, OFF+LEN) of IO's read land: at most two pieces, the
 * buffer and, past its cap, the request's probe page (the byte or block
 * asked for only to see whether the file grew). Returns how many pieces.
 */
unsigned stg_io_iov(const struct stg_reader *r, const struct stg_io *io,
		    uint64_t off, uint64_t len, struct iovec iov[2]);

/* Open NAME for IO, falling back to buffered when O_DIRECT is refused. */
int stg_io_open(struct stg_reader *r, struct stg_io *io, int dirfd,
		const char *name);

/* Append a note (deduplicated) to r->notes. */
void stg_reader_note(struct stg_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The null backend's byte at offset OFF of any file. */
uint8_t stg_null_byte(uint64_t off);

/*
 * Set up RING with ENTRIES entries, with the newest setup flags this
 * kernel takes (COOP_TASKRUN and SUBMIT_ALL where known, else fewer).
 * The reader's rings and the sequential writer's (seqio.c) are made
 * alike. Returns 0 or io_uring_setup's -errno.
 */
struct io_uring;
int stg_uring_ring_init(struct io_uring *ring, unsigned entries);

/* Create and destroy a tiny ring: 0 or io_uring_setup's -errno. */
int stg_uring_try_ring(void);

/*
 * Tests only: when set before stg_reader_create, a uring reader clears
 * IORING_FEAT_EXT_ARG from its ring's features after setup, so liburing
 * waits with a timeout the way it must on kernels older than 5.11 (its own
 * IORING_OP_TIMEOUT request, whose completion carries
 * LIBURING_UDATA_TIMEOUT).
 */
extern bool stg_uring_test_no_ext_arg;

/* Tests only: uring's destroy sends no cancels and waits for in-flight
 * reads to finish (so that signals reach that wait). */
extern bool stg_uring_test_exit_no_cancel;

/*
 * When uring's reader stops calling openat() on its own thread and opens
 * files through the ring (uring.c says why): a window of
 * STG_URING_OPEN_WINDOW opens whose mean is STG_URING_OPEN_SLOW_NS or more.
 * A local disk opens in microseconds, a FUSE mount in a round trip to its
 * daemon (s3fs: an HTTP request, milliseconds).
 */
#define STG_URING_OPEN_WINDOW 16
#define STG_URING_OPEN_SLOW_NS 100000ull

/*
 * The rule alone: OPENS openat() calls of one window took OPEN_NS in all.
 * True when the window is full (OPENS >= STG_URING_OPEN_WINDOW) and they
 * averaged STG_URING_OPEN_SLOW_NS or more. Pure; any thread.
 */
bool stg_uring_open_slow(unsigned opens, uint64_t open_ns);

/* Forget the remembered io_uring probe (tests, after fork). */
void stg_uring_probe_forget(void);

/* The words for an io_uring_setup refusal ERR (negative), given the value
 * of kernel.io_uring_disabled (-1 unknown). */
void stg_uring_refusal_text(int err, int disabled, char *buf, size_t len);

#endif /* FEEDRATE_READER_INTERNAL_H */
