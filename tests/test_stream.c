/*
 * test_stream.c - storage/stream.c, one file read front to back in blocks,
 * on io_uring and on psync: with the stream's own blocks, and with the
 * caller's (caller_blocks), where each block must land exactly where it
 * was fed and nowhere else, with several reads in flight; and its reads
 * on the stall watch.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "storage.h"

#define BLK 4096u
#define NBLK 13u
#define TAIL 1000u              /* the file's last block is short */
#define FSIZE ((size_t)NBLK * BLK + TAIL)

static const enum stg_backend_id backends[] = {
	STG_BACKEND_URING, STG_BACKEND_PSYNC,
};

static uint8_t byte_at(size_t off)
{
	return (uint8_t)(off * 131 + (off >> 12) * 7 + 1);
}

/* A file of FSIZE known bytes in a fresh folder (*DIR). */
static void make_file(char **dir)
{
	uint8_t *b = malloc(FSIZE);
	char path[4096];
	int fd;

	cr_assert_not_null(b);
	for (size_t i = 0; i < FSIZE; i++)
		b[i] = byte_at(i);
	*dir = fr_test_tmpdir();
	snprintf(path, sizeof(path), "%s/shard", *dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, b, FSIZE), (ssize_t)FSIZE);
	close(fd);
	free(b);
}

/* A stream on BACKEND, or a skip when this process may not make a ring. */
static struct stg_stream *stream_on(enum stg_backend_id backend,
				    unsigned depth, bool caller)
{
	struct stg_stream_config c = {
		.backend = backend, .block_size = BLK, .depth = depth,
		.caller_blocks = caller,
	};
	struct stg_stream *s;
	int err = stg_stream_create(&c, &s);

	if (err && backend == STG_BACKEND_URING)
		cr_skip_test("io_uring refused here (%s)", strerror(-err));
	cr_assert_eq(err, 0);
	return s;
}

static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	cr_assert(fd >= 0);
	return fd;
}

FR_TEST(stream, own_blocks_hand_out_the_file_in_order)
{
	for (unsigned b = 0; b < 2; b++) {
		struct stg_stream *s = stream_on(backends[b], 4, false);
		char *dir;
		int dfd;
		size_t at = 0;
		const uint8_t *d;
		size_t len;
		int ret;

		make_file(&dir);
		dfd = open_dir(dir);
		cr_assert_eq(stg_stream_open(s, dfd, "shard"), 0);
		cr_assert_eq(stg_stream_feed(s, NULL), -EINVAL,
			     "own blocks: nothing to feed");
		while ((ret = stg_stream_next(s, &d, &len, -1)) == 1) {
			for (size_t i = 0; i < len; i++)
				cr_assert_eq(d[i], byte_at(at + i), "byte %zu",
					     at + i);
			at += len;
		}
		cr_assert_eq(ret, 0);
		cr_assert_eq(at, FSIZE);
		cr_assert_eq(stg_stream_close(s), 0);
		stg_stream_destroy(s);
		close(dfd);
		fr_test_rmtree(dir);
	}
}

/*
 * Caller blocks: each block is fed into its own place of an arena, the
 * places out of file order and apart, with guard bytes between them;
 * every block must come back at the place it was fed, whole, and no byte
 * outside the places may change, with DEPTH reads in flight.
 */
FR_TEST(stream, caller_blocks_land_where_fed_and_nowhere_else)
{
	for (unsigned b = 0; b < 2; b++) {
		const size_t slot = BLK + 2 * BLK;      /* block + guard */
		const unsigned nslot = 5;
		struct stg_stream *s = stream_on(backends[b], 4, true);
		unsigned depth = stg_stream_depth(s), fed = 0, taken = 0;
		uint8_t *arena, *where[NBLK + 1];
		char *dir;
		int dfd, ret;
		size_t at = 0;

		cr_assert_eq(depth, backends[b] == STG_BACKEND_PSYNC ? 1u : 4u);
		cr_assert_eq(posix_memalign((void **)&arena, 4096,
					    nslot * slot), 0);
		memset(arena, 0xA5, nslot * slot);
		make_file(&dir);
		dfd = open_dir(dir);
		cr_assert_eq(stg_stream_open(s, dfd, "shard"), 0);
		cr_assert_eq(stg_stream_queued(s), 0, "nothing read unfed");
		{
			const uint8_t *d;
			size_t len;

			cr_assert_eq(stg_stream_next(s, &d, &len, -1),
				     -ENOBUFS);
		}
		for (;;) {
			const uint8_t *d;
			size_t len;

			/* feed up to DEPTH, each into the slot after the
			 * next (slots in use: at most DEPTH + 0) */
			while (stg_stream_queued(s) < depth) {
				uint8_t *dst = arena +
					(size_t)((fed * 3) % nslot) * slot;

				ret = stg_stream_feed(s, dst);
				if (ret == 0)
					break;
				cr_assert_eq(ret, 1);
				where[fed++] = dst;
			}
			if (stg_stream_queued(s) == depth)
				cr_assert_eq(stg_stream_feed(s, arena), -EBUSY);
			ret = stg_stream_next(s, &d, &len, -1);
			if (ret == 0)
				break;
			cr_assert_eq(ret, 1);
			cr_assert_eq(d, where[taken], "block %u landed at %p, "
				     "fed %p", taken, (void *)d,
				     (void *)where[taken]);
			cr_assert_eq(len, taken < NBLK ? BLK : TAIL);
			for (size_t i = 0; i < len; i++)
				cr_assert_eq(d[i], byte_at(at + i), "byte %zu",
					     at + i);
			/* past the block's end, up to the next slot: untouched */
			for (size_t i = len; i < slot; i++)
				cr_assert_eq(d[i], 0xA5, "block %u wrote %zu "
					     "bytes past its end", taken, i);
			/* the slot may be fed again: mark it */
			memset((uint8_t *)d, 0xA5, len);
			at += len;
			taken++;
		}
		cr_assert_eq(at, FSIZE);
		cr_assert_eq(taken, NBLK + 1);
		for (size_t i = 0; i < nslot * slot; i++)
			cr_assert_eq(arena[i], 0xA5, "arena byte %zu", i);
		cr_assert_eq(stg_stream_close(s), 0);
		stg_stream_destroy(s);
		free(arena);
		close(dfd);
		fr_test_rmtree(dir);
	}
}

/* A close with reads in flight waits for them: the memory they were fed
 * is the caller's again, and written by nobody after the close. */
FR_TEST(stream, a_close_waits_for_the_reads_it_was_fed)
{
	for (unsigned b = 0; b < 2; b++) {
		struct stg_stream *s = stream_on(backends[b], 8, true);
		unsigned depth = stg_stream_depth(s);
		uint8_t *arena;
		char *dir;
		int dfd;

		cr_assert_eq(posix_memalign((void **)&arena, 4096,
					    (size_t)depth * BLK), 0);
		make_file(&dir);
		dfd = open_dir(dir);
		for (int round = 0; round < 20; round++) {
			cr_assert_eq(stg_stream_open(s, dfd, "shard"), 0);
			for (unsigned i = 0; i < depth; i++)
				cr_assert_eq(stg_stream_feed(s, arena +
						(size_t)i * BLK), 1);
			cr_assert_eq(stg_stream_close(s), 0);
			cr_assert_eq(stg_stream_queued(s), 0);
			/* nothing lands after the close */
			memset(arena, 0x5A, (size_t)depth * BLK);
			usleep(1000);
			for (size_t i = 0; i < (size_t)depth * BLK; i++)
				cr_assert_eq(arena[i], 0x5A, "round %d byte %zu",
					     round, i);
		}
		cr_assert_eq(stg_stream_feed(s, arena), -EBADF);
		stg_stream_destroy(s);
		free(arena);
		close(dfd);
		fr_test_rmtree(dir);
	}
}

/* A shard's reads count for the stall watch as a file's do: in flight
 * from their submission until the stream takes their completion, under
 * the shard's name; each completion is one. */
FR_TEST(stream, its_reads_in_flight_are_on_the_stall_watch)
{
	struct stg_stream *s;
	struct stg_watch_snap snap;
	uint8_t *mem;
	char *dir;
	int dfd;

	cr_assert_eq(stg_watch_init(), 0);
	s = stream_on(STG_BACKEND_URING, 4, true);
	make_file(&dir);
	dfd = open_dir(dir);
	cr_assert_eq(posix_memalign((void **)&mem, BLK, 3 * BLK), 0);
	cr_assert(stg_watch_snapshot(&snap));
	cr_assert_eq(snap.inflight, 0);
	cr_assert_eq(stg_stream_open(s, dfd, "shard"), 0);
	for (unsigned i = 0; i < 3; i++)
		cr_assert_eq(stg_stream_feed(s, mem + (size_t)i * BLK), 1);
	/* fed and submitted, not yet taken: three in flight, on the shard */
	cr_assert(stg_watch_snapshot(&snap));
	cr_expect_eq(snap.inflight, 3);
	cr_expect_gt(snap.oldest_ns, 0);
	cr_expect_str_eq(snap.oldest, "shard");
	for (unsigned i = 0; i < 3; i++) {
		const uint8_t *data;
		size_t len;

		cr_assert_eq(stg_stream_next(s, &data, &len, -1), 1);
		cr_assert_eq(len, BLK);
	}
	cr_assert(stg_watch_snapshot(&snap));
	cr_expect_eq(snap.inflight, 0);
	cr_expect_gt(snap.last_done_ns, 0);
	cr_assert_eq(stg_stream_close(s), 0);
	stg_stream_destroy(s);
	close(dfd);
	free(mem);
	fr_test_rmtree(dir);
}
