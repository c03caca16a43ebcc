/*
 * test_backend.c - the reader on every backend: the bytes it hands over
 * are the file's bytes, and files that change under it, vanish or are too
 * large end in a counted error instead of a hang or a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "test_backend_util.h"

static const size_t sizes[] = {
	0, 1, 4095, 4096, 4097, 100000, 131072, 3 * 1048576 + 17, 8 * 1048576,
};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Bytes equal the file's (the null backend: its pattern) for every size,
 * buffered and O_DIRECT, with files split in many chunks. */
FR_TEST(backend, bytes_read_equal_file_bytes_on_every_backend)
{
	char *dir = fr_test_tmpdir();
	struct tb_file files[NSIZES];

	for (size_t i = 0; i < NSIZES; i++)
		tb_make_file(dir, &files[i], i, sizes[i], (uint32_t)i + 1);
	for (int b = 0; b < TB_NBACKENDS; b++) {
		for (int direct = 0; direct < 2; direct++) {
			struct stg_reader_config cfg = {
				.backend = tb_backends[b],
				.depth = 4,
				.block_size = 64 * 1024,
				.max_sample_bytes = 16 << 20,
				.direct = direct,
			};
			struct tb_result res[NSIZES];
			struct stg_reader *r;

			if (!tb_backend_usable(tb_backends[b]))
				continue;
			cr_assert_eq(stg_reader_create(&cfg, &r), 0);
			tb_read_all(r, files, NSIZES, res);
			for (size_t i = 0; i < NSIZES; i++) {
				cr_expect_eq(res[i].result, 0, "%s direct=%d size %zu: %s",
					     stg_backend_name(tb_backends[b]), direct,
					     sizes[i], stg_strerror(res[i].result));
				cr_expect_eq(res[i].len, sizes[i]);
				cr_expect_eq(res[i].sum, tb_expected_sum(tb_backends[b],
									 &files[i]),
					     "%s direct=%d size %zu: wrong bytes",
					     stg_backend_name(tb_backends[b]), direct,
					     sizes[i]);
			}
			stg_reader_destroy(r);
		}
	}
	fr_test_rmtree(dir);
}

/* Sizes unknown to the listing are taken with fstatat, same bytes. */
FR_TEST(backend, unknown_size_is_read_whole)
{
	char *dir = fr_test_tmpdir();
	struct tb_file f[2];

	tb_make_file(dir, &f[0], 0, 777777, 9);
	tb_make_file(dir, &f[1], 1, 5, 10);
	f[0].listed = f[1].listed = STG_SIZE_UNKNOWN;
	for (int b = 0; b < TB_NBACKENDS; b++) {
		struct stg_reader_config cfg = { .backend = tb_backends[b] };
		struct tb_result res[2];
		struct stg_reader *r;

		if (!tb_backend_usable(tb_backends[b]))
			continue;
		cr_assert_eq(stg_reader_create(&cfg, &r), 0);
		tb_read_all(r, f, 2, res);
		for (int i = 0; i < 2; i++) {
			cr_expect_eq(res[i].result, 0);
			cr_expect_eq(res[i].len, f[i].size);
			cr_expect_eq(res[i].sum, tb_expected_sum(tb_backends[b], &f[i]));
		}
		stg_reader_destroy(r);
	}
	fr_test_rmtree(dir);
}

/* A file deleted, truncated or extended after listing: a counted error
 * for that file, the right bytes for the others. */
FR_TEST(backend, changed_files_are_counted_and_the_run_goes_on)
{
	for (int b = 0; b < TB_NBACKENDS; b++) {
		if (tb_backends[b] == STG_BACKEND_NULL) {
			cr_log_info("null backend skipped: it reads no disk, "
				    "so it cannot see files change");
			continue;
		}
		if (!tb_backend_usable(tb_backends[b]))
			continue;
		for (int direct = 0; direct < 2; direct++) {
			char *dir = fr_test_tmpdir();
			struct tb_file f[5];
			struct tb_result res[5];
			struct stg_reader_config cfg = {
				.backend = tb_backends[b],
				.depth = 8,
				.block_size = 64 * 1024,
				.direct = direct,
			};
			struct stg_reader_stats st;
			struct stg_reader *r;

			tb_make_file(dir, &f[0], 0, 300000, 1);
			tb_make_file(dir, &f[1], 1, 300000, 2);   /* vanishes */
			tb_make_file(dir, &f[2], 2, 1048576, 3);  /* shrinks */
			tb_make_file(dir, &f[3], 3, 100000, 4);   /* grows */
			tb_make_file(dir, &f[4], 4, 65536, 5);    /* grows, aligned */
			cr_assert_eq(unlink(f[1].path), 0);
			cr_assert_eq(truncate(f[2].path, 300001), 0);
			cr_assert_eq(truncate(f[3].path, 200000), 0);
			cr_assert_eq(truncate(f[4].path, 65537), 0);
			cr_assert_eq(stg_reader_create(&cfg, &r), 0);
			tb_read_all(r, f, 5, res);
			cr_expect_eq(res[0].result, 0);
			cr_expect_eq(res[0].sum, f[0].sum);
			cr_expect_eq(res[1].result, -ENOENT, "%s: %s",
				     stg_backend_name(tb_backends[b]),
				     stg_strerror(res[1].result));
			cr_expect_eq(res[2].result, -STG_ESHRANK, "%s direct=%d: %s",
				     stg_backend_name(tb_backends[b]), direct,
				     stg_strerror(res[2].result));
			cr_expect_eq(res[3].result, -STG_EGREW, "%s direct=%d: %s",
				     stg_backend_name(tb_backends[b]), direct,
				     stg_strerror(res[3].result));
			cr_expect_eq(res[4].result, -STG_EGREW, "%s direct=%d: %s",
				     stg_backend_name(tb_backends[b]), direct,
				     stg_strerror(res[4].result));
			stg_reader_stats(r, &st);
			cr_expect_eq(st.errors, 4);
			cr_expect_eq(st.files_ok, 1);
			cr_expect_eq(stg_reader_pending(r), 0);
			stg_reader_destroy(r);
			fr_test_rmtree(dir);
		}
	}
}

/* A file above max_sample_bytes completes at once, unread, counted. */
FR_TEST(backend, too_large_file_is_counted_and_not_read)
{
	char *dir = fr_test_tmpdir();
	struct tb_file f[2];

	tb_make_file(dir, &f[0], 0, 200000, 1);
	tb_make_file(dir, &f[1], 1, 1000, 2);
	for (int b = 0; b < TB_NBACKENDS; b++) {
		struct stg_reader_config cfg = {
			.backend = tb_backends[b],
			.max_sample_bytes = 64 * 1024,
		};
		struct tb_result res[2];
		struct stg_reader_stats st;
		struct stg_reader *r;

		if (!tb_backend_usable(tb_backends[b]))
			continue;
		cr_assert_eq(stg_reader_create(&cfg, &r), 0);
		tb_read_all(r, f, 2, res);
		cr_expect_eq(res[0].result, -STG_ETOOLARGE);
		cr_expect_eq(res[0].len, 0);
		cr_expect_eq(res[1].result, 0);
		cr_expect_eq(res[1].sum, tb_expected_sum(tb_backends[b], &f[1]));
		stg_reader_stats(r, &st);
		cr_expect_eq(st.too_large, 1);
		cr_expect_eq(st.errors, 1);
		/* the refused file issued no read */
		cr_expect_eq(st.reads, 1);
		stg_reader_destroy(r);
	}
	fr_test_rmtree(dir);
}

/* Depth and buffer memory bound what is in flight: submit says -EAGAIN
 * and works again once completions are reaped and buffers released. */
FR_TEST(backend, full_reader_refuses_with_eagain_until_room)
{
	char *dir = fr_test_tmpdir();
	struct tb_file f[4];

	for (int i = 0; i < 4; i++)
		tb_make_file(dir, &f[i], i, 60000, (uint32_t)i + 1);
	for (int b = 0; b < TB_NBACKENDS; b++) {
		/* each file takes a 64 KiB block; the pool holds two */
		struct stg_reader_config cfg = {
			.backend = tb_backends[b],
			.depth = 3,
			.max_sample_bytes = 60000,
			.max_inflight_bytes = 128 * 1024,
		};
		struct stg_completion c[4];
		struct stg_reader *r;
		int got = 0;

		if (!tb_backend_usable(tb_backends[b]))
			continue;
		cr_assert_eq(stg_reader_create(&cfg, &r), 0);
		cr_assert_eq(stg_reader_submit(r, &f[0].req), 0);
		cr_assert_eq(stg_reader_submit(r, &f[1].req), 0);
		cr_expect_eq(stg_reader_submit(r, &f[2].req), -EAGAIN,
			     "%s: a third buffer fits", stg_backend_name(tb_backends[b]));
		while (got < 2) {
			int n = stg_reader_reap(r, c + got, 4, -1);

			cr_assert_geq(n, 0);
			got += n;
		}
		/* reaped but still held: no room yet */
		cr_expect_eq(stg_reader_submit(r, &f[2].req), -EAGAIN);
		stg_buf_release(c[0].buf);
		cr_expect_eq(stg_reader_submit(r, &f[2].req), 0);
		stg_buf_release(c[1].buf);
		cr_expect_eq(stg_reader_submit(r, &f[3].req), 0);
		got = 0;
		while (got < 2) {
			int n = stg_reader_reap(r, c + got, 4, -1);

			cr_assert_geq(n, 0);
			got += n;
		}
		for (int i = 0; i < 2; i++) {
			cr_expect_eq(c[i].result, 0);
			stg_buf_release(c[i].buf);
		}
		/* nothing in flight: reap returns at once, even "forever" */
		cr_expect_eq(stg_reader_reap(r, c, 4, -1), 0);
		cr_expect_eq(stg_reader_reap(r, c, 4, 1000000), 0);
		stg_reader_destroy(r);
	}
	fr_test_rmtree(dir);
}

/* Depth bounds files accepted at once, whatever the memory. */
FR_TEST(backend, depth_bounds_files_in_flight)
{
	char *dir = fr_test_tmpdir();
	struct tb_file f[3];

	for (int i = 0; i < 3; i++)
		tb_make_file(dir, &f[i], i, 1000, (uint32_t)i + 1);
	for (int b = 0; b < TB_NBACKENDS; b++) {
		struct stg_reader_config cfg = {
			.backend = tb_backends[b],
			.depth = 2,
		};
		struct tb_result res[3];
		struct stg_reader *r;

		if (!tb_backend_usable(tb_backends[b]))
			continue;
		cr_assert_eq(stg_reader_create(&cfg, &r), 0);
		cr_assert_eq(stg_reader_submit(r, &f[0].req), 0);
		cr_assert_eq(stg_reader_submit(r, &f[1].req), 0);
		cr_expect_eq(stg_reader_submit(r, &f[2].req), -EAGAIN);
		cr_expect_eq(stg_reader_pending(r), 2);
		stg_reader_destroy(r);  /* with reads in flight: no leak, no hang */
		cr_assert_eq(stg_reader_create(&cfg, &r), 0);
		tb_read_all(r, f, 3, res);
		for (int i = 0; i < 3; i++)
			cr_expect_eq(res[i].result, 0);
		stg_reader_destroy(r);
	}
	fr_test_rmtree(dir);
}

/* Read F into DST (F->listed bytes) through R; its completion in *C. */
static void read_into(struct stg_reader *r, struct tb_file *f, void *dst,
		      struct stg_completion *c)
{
	struct stg_read_req req = f->req;
	int got;

	req.size = f->listed;
	req.dst = dst;
	cr_assert_eq(stg_reader_submit(r, &req), 0);
	got = stg_reader_reap(r, c, 1, 5000000000ll);
	cr_assert_eq(got, 1, "no completion within 5 s (%d)", got);
}

/* A request with DST: the file's bytes land in the caller's memory, not
 * a byte past them (a file that grew shows on the probe page), and the
 * completion hands no pool buffer. */
FR_TEST(backend, reads_into_the_callers_memory_on_every_backend)
{
	char *dir = fr_test_tmpdir();
	struct tb_file files[NSIZES + 1];
	const size_t grown = NSIZES;

	for (size_t i = 0; i < NSIZES; i++)
		tb_make_file(dir, &files[i], i, sizes[i], (uint32_t)i + 7);
	tb_make_file(dir, &files[grown], grown, 70000, 3);
	files[grown].listed = 69990;
	for (int b = 0; b < 2 * TB_NBACKENDS; b++) {
		/* buffered, then O_DIRECT (buffered where refused): DST
		 * 4096-aligned, its size rounded up to 4096 */
		const bool direct = b >= TB_NBACKENDS;
		struct stg_reader_config cfg = {
			.backend = tb_backends[b % TB_NBACKENDS],
			.depth = 4,
			.block_size = 64 * 1024,
			.max_sample_bytes = 4 << 20,
			.direct = direct,
		};
		const char *bn = stg_backend_name(tb_backends[b % TB_NBACKENDS]);
		struct stg_reader *r;

		if (!tb_backend_usable(tb_backends[b % TB_NBACKENDS]))
			continue;
		cr_assert_eq(stg_reader_create(&cfg, &r), 0);
		for (size_t i = 0; i <= NSIZES; i++) {
			struct stg_completion c;
			size_t n = (size_t)files[i].listed;
			size_t room = direct ? (n + 4095) & ~(size_t)4095 : n;
			/* buffered: 16-byte aligned, as a staging area
			 * gives it */
			size_t memsz = (room + 8192 + 4095) & ~(size_t)4095;
			uint8_t *mem = aligned_alloc(4096, memsz);
			uint8_t *dst = mem + (direct ? 4096 : 16);

			cr_assert_not_null(mem);
			if (i == grown && tb_backends[b % TB_NBACKENDS] == STG_BACKEND_NULL) {
				free(mem);      /* null reads no file */
				continue;
			}
			memset(mem, 0xa5, memsz);
			read_into(r, &files[i], dst, &c);
			cr_expect(dst[room] == 0xa5 && dst[-1] == 0xa5,
				  "%s direct=%d size %zu: written outside the "
				  "memory", bn, direct, n);
			if (i == grown) {
				cr_expect_eq(c.result, -STG_EGREW, "%s: %s", bn,
					     stg_strerror(c.result));
			} else if (n > cfg.max_sample_bytes) {
				cr_expect_eq(c.result, -STG_ETOOLARGE);
				cr_expect_eq(dst[0], 0xa5, "read anyway");
			} else {
				cr_expect_eq(c.result, 0, "%s direct=%d size "
					     "%zu: %s", bn, direct, n,
					     stg_strerror(c.result));
				cr_expect_null(c.buf);
				cr_expect_eq(c.data, (const void *)dst);
				cr_expect_eq(c.len, n);
				cr_expect_eq(tb_fnv(TB_FNV0, dst, n),
					     tb_expected_sum(tb_backends[b % TB_NBACKENDS],
							     &files[i]),
					     "%s direct=%d size %zu: wrong "
					     "bytes", bn, direct, n);
			}
			stg_buf_release(c.buf);
			free(mem);
		}
		cr_expect_eq(stg_reader_pending(r), 0);
		stg_reader_destroy(r);
	}
	fr_test_rmtree(dir);
}

/* DST needs a listed size, and a 4096-aligned DST for O_DIRECT:
 * anything else is refused before it takes a place in the reader. */
FR_TEST(backend, callers_memory_needs_a_known_size_and_direct_alignment)
{
	struct stg_reader_config cfg = { .direct = true };
	struct stg_read_req req = { .dirfd = AT_FDCWD, .name = "x",
				    .size = STG_SIZE_UNKNOWN };
	_Alignas(4096) static char mem[8192];
	struct stg_reader *r;

	req.dst = mem + 16;
	cr_assert_eq(stg_reader_create(NULL, &r), 0);
	cr_expect_eq(stg_reader_submit(r, &req), -EINVAL);
	cr_expect_eq(stg_reader_pending(r), 0);
	stg_reader_destroy(r);
	req.size = 10;
	cr_assert_eq(stg_reader_create(&cfg, &r), 0);
	cr_expect_eq(stg_reader_submit(r, &req), -EINVAL);
	cr_expect_eq(stg_reader_pending(r), 0);
	stg_reader_destroy(r);
}

FR_TEST(backend, bad_requests_are_refused)
{
	struct stg_reader *r;
	struct stg_read_req req = { .dirfd = AT_FDCWD, .name = "", .size = 1 };

	cr_assert_eq(stg_reader_create(NULL, &r), 0);
	cr_expect_eq(stg_reader_submit(r, NULL), -EINVAL);
	cr_expect_eq(stg_reader_submit(r, &req), -EINVAL);
	req.name = NULL;
	cr_expect_eq(stg_reader_submit(r, &req), -EINVAL);
	cr_expect_eq(stg_reader_pending(r), 0);
	stg_reader_destroy(r);
	stg_reader_destroy(NULL);
	stg_buf_release(NULL);
}

FR_TEST(backend, names_parse_and_print)
{
	enum stg_backend_id id;

	cr_expect_eq(stg_backend_parse("uring", &id), 0);
	cr_expect_eq(id, STG_BACKEND_URING);
	cr_expect_eq(stg_backend_parse("psync", &id), 0);
	cr_expect_eq(id, STG_BACKEND_PSYNC);
	cr_expect_eq(stg_backend_parse("null", &id), 0);
	cr_expect_eq(id, STG_BACKEND_NULL);
	cr_expect_eq(stg_backend_parse("auto", &id), 0);
	cr_expect_eq(id, STG_BACKEND_AUTO);
	cr_expect_eq(stg_backend_parse("aio", &id), -EINVAL);
	cr_expect_eq(stg_backend_parse(NULL, &id), -EINVAL);
	cr_expect_str_eq(stg_backend_name(STG_BACKEND_PSYNC), "psync");
	cr_expect_str_eq(stg_errname(-STG_ETOOLARGE), "file_over_cap");
	cr_expect_str_eq(stg_errname(-ENOENT), "ENOENT");
	cr_expect(strstr(stg_strerror(-STG_ESHRANK), "shorter") != NULL);
}
