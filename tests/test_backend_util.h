/*
 * test_backend_util.h - helpers the backend tests share (header-only, so
 * it links into the one Criterion binary without new objects): test files
 * with known bytes, and a loop that reads a set of files through a reader.
 */
#ifndef FEEDRATE_TEST_BACKEND_UTIL_H
#define FEEDRATE_TEST_BACKEND_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "storage.h"
#include "reader_internal.h"

static const enum stg_backend_id tb_backends[] = {
	STG_BACKEND_URING, STG_BACKEND_PSYNC, STG_BACKEND_NULL,
};
#define TB_NBACKENDS ((int)(sizeof(tb_backends) / sizeof(tb_backends[0])))

struct tb_file {
	char path[512];
	uint64_t size;            /* real size when made */
	uint64_t listed;          /* what the test tells the reader */
	uint64_t sum;             /* FNV-1a of the bytes */
	struct stg_read_req req;
};

struct tb_result {
	int result;
	uint64_t len;
	uint64_t sum;
};

static inline uint64_t tb_fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

#define TB_FNV0 14695981039346656037ull

/* Write SIZE pseudo-random bytes (from SEED) to DIR/fIDX. */
static inline void tb_make_file(const char *dir, struct tb_file *f, size_t idx,
				uint64_t size, uint32_t seed)
{
	uint8_t chunk[65536];
	uint64_t x = seed * 2654435761u + 1, left = size;
	int fd;

	snprintf(f->path, sizeof(f->path), "%s/f%zu", dir, idx);
	fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "cannot create %s", f->path);
	f->sum = TB_FNV0;
	while (left) {
		size_t n = left < sizeof(chunk) ? (size_t)left : sizeof(chunk);

		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			chunk[i] = (uint8_t)x;
		}
		cr_assert_eq(write(fd, chunk, n), (ssize_t)n);
		f->sum = tb_fnv(f->sum, chunk, n);
		left -= n;
	}
	cr_assert_eq(close(fd), 0);
	f->size = f->listed = size;
	f->req = (struct stg_read_req){
		.dirfd = AT_FDCWD, .name = f->path, .size = size,
		.user_data = idx,
	};
}

/* What a backend must hand over for F: its bytes, or null's pattern. */
static inline uint64_t tb_expected_sum(enum stg_backend_id b,
				       const struct tb_file *f)
{
	uint64_t h = TB_FNV0;

	if (b != STG_BACKEND_NULL)
		return f->sum;
	for (uint64_t i = 0; i < f->size; i++) {
		uint8_t c = stg_null_byte(i);

		h = tb_fnv(h, &c, 1);
	}
	return h;
}

/* uring only where this machine lets a process create a ring. */
static inline bool tb_backend_usable(enum stg_backend_id b)
{
	char why[400];

	if (b != STG_BACKEND_URING || !stg_uring_probe(why, sizeof(why)))
		return true;
	cr_log_warn("uring backend skipped: %s", why);
	return false;
}

/* Read N files through R, filling RES by user_data (= index in F). */
static inline void tb_read_all(struct stg_reader *r, struct tb_file *f,
			       size_t n, struct tb_result *res)
{
	struct stg_completion c[16];
	size_t next = 0, done = 0;

	for (size_t i = 0; i < n; i++) {
		f[i].req.size = f[i].listed;
		f[i].req.user_data = i;
		res[i].result = 1;      /* not completed */
	}
	while (done < n) {
		int got;

		while (next < n) {
			int err = stg_reader_submit(r, &f[next].req);

			if (err == -EAGAIN)
				break;
			cr_assert_eq(err, 0, "submit: %s", stg_strerror(err));
			next++;
		}
		got = stg_reader_reap(r, c, 16, 5000000000ll);
		cr_assert_geq(got, 0, "reap: %s", stg_strerror(got));
		cr_assert(got > 0 || next < n, "no completion within 5 s");
		for (int i = 0; i < got; i++) {
			struct tb_result *t = &res[c[i].user_data];

			cr_assert_eq(t->result, 1, "completed twice");
			t->result = c[i].result;
			t->len = c[i].len;
			t->sum = c[i].data ? tb_fnv(TB_FNV0, c[i].data, c[i].len)
					   : 0;
			if (c[i].data)
				cr_assert_eq((uintptr_t)c[i].data % 4096, 0);
			stg_buf_release(c[i].buf);
			done++;
		}
	}
}

#endif /* FEEDRATE_TEST_BACKEND_UTIL_H */
