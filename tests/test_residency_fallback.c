/*
 * test_residency_fallback.c - page-cache residency of an open file
 * (stg_cache_fd_resident) answers with cachestat where the kernel allows
 * it and falls back to mincore where cachestat is missing or refused
 * (a seccomp filter answering EPERM, ENOSYS or EOPNOTSUPP), and the
 * engine's residency probing does the same instead of counting every
 * probe as an error.
 *
 * The filters are installed in a child (ldr_child_run): a seccomp filter
 * cannot be removed once loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "loader.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

/* A file of SIZE bytes just written (so resident), at DIR/NAME. */
static void write_file(const char *dir, const char *name, size_t size)
{
	char path[4096];
	char *buf = malloc(size);
	int fd;

	cr_assert_not_null(buf);
	for (size_t i = 0; i < size; i++)
		buf[i] = (char)(i * 13 + 1);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, buf, size), (ssize_t)size);
	close(fd);
	free(buf);
}

/* Make cachestat fail with ERR in this process (0 on success). */
static int refuse_cachestat(int err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (!ctx)
		return -ENOMEM;
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)err),
			     __NR_cachestat, 0);
	if (!r)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}

struct fd_out {
	int err;
	int method;
	uint64_t resident, size;
};

struct fd_arg {
	const char *path;
	int refuse;             /* errno for cachestat, 0: leave it */
};

static int measure_fd(void *arg, volatile int *stop, void *out, size_t len)
{
	const struct fd_arg *a = arg;
	struct fd_out *o = out;
	enum stg_residency_method how = STG_RESIDENCY_NONE;
	int fd, r;

	(void)stop;
	(void)len;
	if (a->refuse && (r = refuse_cachestat(a->refuse)) != 0)
		return r < 0 ? r : -r;
	fd = open(a->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	o->err = stg_cache_fd_resident(fd, &o->resident, &o->size, &how);
	o->method = (int)how;
	close(fd);
	return 0;
}

static void check_fd_fallback(int refuse, int want_method)
{
	char *dir = fr_test_tmpdir(), path[4096];
	struct fd_arg a = { path, refuse };
	struct fd_out o = { 0 };
	struct ldr_child_report rep;

	/* not a multiple of any page size: the last page is partial */
	write_file(dir, "f", 3 * 65536 + 1000);
	snprintf(path, sizeof(path), "%s/f", dir);
	cr_assert_eq(ldr_child_run(NULL, measure_fd, &a, &o, sizeof(o), &rep),
		     0, "%s", rep.why);
	cr_assert_eq(rep.fn_result, 0, "seccomp: %s",
		     strerror(-rep.fn_result));
	cr_assert_eq(o.err, 0, "residency failed: %s", strerror(-o.err));
	cr_assert_eq(o.size, 3 * 65536 + 1000);
	/* just written: all of it resident, counted in bytes, not beyond
	 * the size */
	cr_assert_eq(o.resident, o.size, "%llu of %llu bytes resident",
		     (unsigned long long)o.resident,
		     (unsigned long long)o.size);
	if (want_method)
		cr_assert_eq(o.method, want_method, "method %d", o.method);
	else
		cr_assert(o.method == STG_RESIDENCY_CACHESTAT ||
			  o.method == STG_RESIDENCY_MINCORE);
	fr_test_rmtree(dir);
}

FR_TEST(residency, open_file_is_measured_in_bytes_up_to_its_size)
{
	check_fd_fallback(0, 0);
}

FR_TEST(residency, cachestat_refused_by_seccomp_falls_back_to_mincore)
{
	check_fd_fallback(EPERM, STG_RESIDENCY_MINCORE);
}

FR_TEST(residency, cachestat_missing_falls_back_to_mincore)
{
	check_fd_fallback(ENOSYS, STG_RESIDENCY_MINCORE);
}

FR_TEST(residency, cachestat_unsupported_falls_back_to_mincore)
{
	check_fd_fallback(EOPNOTSUPP, STG_RESIDENCY_MINCORE);
}

FR_TEST(residency, a_directory_is_an_error_not_a_residency)
{
	char *dir = fr_test_tmpdir();
	uint64_t res = 1, size = 1;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	cr_assert_eq(stg_cache_fd_resident(fd, &res, &size, NULL), -EINVAL);
	cr_assert_eq(res, 0);
	close(fd);
	fr_test_rmtree(dir);
}

/* ---- the engine's probing ---- */

struct run_out {
	int err;
	uint64_t probed_reads, probe_errors, probed_bytes, probed_hit;
	char method[16];
};

struct run_arg {
	const char *dir;
	int refuse;
};

static int run_probed(void *arg, volatile int *stop, void *out, size_t len)
{
	const struct run_arg *a = arg;
	struct run_out *o = out;
	struct stg_dataset *ds = NULL;
	struct ldr_result *res;
	struct ldr_config cfg;
	int r;

	(void)stop;
	(void)len;
	if (a->refuse && (r = refuse_cachestat(a->refuse)) != 0)
		return r < 0 ? r : -r;
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	o->err = stg_dataset_scan(a->dir, NULL, &ds);
	if (o->err) {
		free(res);
		return 0;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.ds = ds;
	cfg.reader.backend = STG_BACKEND_PSYNC;
	cfg.reader.depth = 8;
	cfg.reader.max_sample_bytes = 1 << 20;
	cfg.transform = ldr_transform_noop;
	cfg.seed = 7;
	cfg.world = 1;
	cfg.warmup_s = -1;
	cfg.workers = 2;
	cfg.batch = 4;
	cfg.epochs = 1;
	cfg.probe_fraction = 1;
	o->err = ldr_run(&cfg, res);
	o->probed_reads = res->probed_reads;
	o->probe_errors = res->probe_errors;
	o->probed_bytes = res->probed_bytes;
	o->probed_hit = res->probed_hit_bytes;
	snprintf(o->method, sizeof(o->method), "%s", res->probe_method);
	free(res);
	stg_dataset_destroy(ds);
	return 0;
}

FR_TEST(residency, engine_probes_through_mincore_when_cachestat_is_refused)
{
	char *dir = fr_test_tmpdir(), name[32];
	struct run_arg a = { dir, EPERM };
	struct run_out o = { 0 };
	struct ldr_child_report rep;

	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "f%02d", i);
		write_file(dir, name, 5000 + 100 * (size_t)i);
	}
	cr_assert_eq(ldr_child_run(NULL, run_probed, &a, &o, sizeof(o), &rep),
		     0, "%s", rep.why);
	cr_assert_eq(rep.fn_result, 0, "seccomp: %s",
		     strerror(-rep.fn_result));
	cr_assert_eq(o.err, 0, "ldr_run: %s", strerror(-o.err));
	cr_assert_eq(o.probe_errors, 0, "%llu probes failed",
		     (unsigned long long)o.probe_errors);
	cr_assert_eq(o.probed_reads, 16);
	cr_assert_str_eq(o.method, "mincore");
	/* just written: every probed byte is resident */
	cr_assert_eq(o.probed_hit, o.probed_bytes);
	fr_test_rmtree(dir);
}
