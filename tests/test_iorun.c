/*
 * test_iorun.c - `feedrate io` and `feedrate info` below the command line:
 * ms_io_run reads every file of a folder exactly once on each backend and
 * counts what fails; the io and info reports turn a result struct into
 * the text and JSON the commands print.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "measure.h"
#include "report.h"
#include "storage.h"

/* ---- ms_io_run ---- */

/*
 * File i holds 2^i bytes. Reads of N files whose sizes sum to 2^N - 1 can
 * only be each file once: a sum of N powers of two has N bits set only
 * when no two of them are equal.
 */
#define NFILES 19                       /* up to 256 KiB: several chunks */

static void make_files(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/sub", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	for (int i = 0; i < NFILES; i++) {
		size_t len = (size_t)1 << i;
		char *buf = malloc(len);
		int fd;

		cr_assert_not_null(buf);
		memset(buf, 'a' + i, len);
		snprintf(path, sizeof(path), "%s/%sf%02d", dir,
			 i % 2 ? "sub/" : "", i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		cr_assert_geq(fd, 0);
		cr_assert_eq(write(fd, buf, len), (ssize_t)len);
		close(fd);
		free(buf);
	}
}

struct events {
	int n;
	enum ms_io_event ev[4];
};

static void on_event(enum ms_io_event ev, const struct ms_io_result *sofar,
		     void *arg)
{
	struct events *e = arg;

	(void)sofar;
	if (e->n < 4)
		e->ev[e->n] = ev;
	e->n++;
}

static void config(struct ms_io_config *cfg, const struct stg_dataset *ds,
		   enum stg_backend_id b, unsigned threads)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->cache = MS_IO_CACHE_ASIS;
	cfg->ds = ds;
	cfg->rc.backend = b;
	cfg->rc.depth = 4;
	cfg->rc.block_size = 64 * 1024;
	cfg->rc.max_sample_bytes = 1 << 20;
	cfg->threads = threads;
}

static void read_once_on(enum stg_backend_id b, unsigned threads,
			 enum stg_cache_state cache)
{
	char *dir = fr_test_tmpdir();
	struct stg_dataset *ds;
	struct ms_io_config cfg;
	struct ms_io_result *res = malloc(sizeof(*res));
	struct events ev = { 0 };
	char why[400];

	cr_assert_not_null(res);
	if (b == STG_BACKEND_URING && stg_uring_probe(why, sizeof(why))) {
		fr_test_rmtree(dir);
		free(res);
		cr_skip_test("uring: %s", why);
	}
	make_files(dir);
	cr_assert_eq(stg_dataset_scan(dir, NULL, &ds), 0);
	cr_assert_eq(stg_dataset_count(ds), NFILES);
	config(&cfg, ds, b, threads);
	cfg.cache = cache;
	cfg.progress = on_event;
	cfg.progress_arg = &ev;
	cr_assert_eq(ms_io_run(&cfg, res), 0, "%s", res->err_text);
	cr_expect_eq(res->backend, b);
	cr_expect_eq(res->files_listed, NFILES);
	cr_expect_eq(res->st.files_ok, NFILES);
	cr_expect_eq(res->st.bytes, stg_dataset_total_bytes(ds));
	cr_expect_eq(res->st.bytes, ((uint64_t)1 << NFILES) - 1);
	cr_expect_eq(res->st.errors, 0);
	cr_expect_eq(res->nkinds, 0);
	cr_expect_eq(res->st.clat.count, NFILES);
	cr_expect_geq(res->seconds, 0);
	cr_expect_str_empty(res->cache_note);
	cr_expect_eq(ev.n, 2, "%d progress events", ev.n);
	cr_expect_eq(ev.ev[0], MS_IO_EV_CACHE);
	cr_expect_eq(ev.ev[1], MS_IO_EV_READING);
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
	free(res);
}

FR_TEST(measure_io, every_file_is_read_once_on_psync)
{
	read_once_on(STG_BACKEND_PSYNC, 1, MS_IO_CACHE_ASIS);
}

FR_TEST(measure_io, every_file_is_read_once_on_psync_by_three_threads)
{
	read_once_on(STG_BACKEND_PSYNC, 3, STG_CACHE_COLD);
}

FR_TEST(measure_io, every_file_is_read_once_on_null)
{
	read_once_on(STG_BACKEND_NULL, 1, MS_IO_CACHE_ASIS);
}

FR_TEST(measure_io, every_file_is_read_once_on_uring_warm)
{
	read_once_on(STG_BACKEND_URING, 2, STG_CACHE_WARM);
}

/* A file gone after listing is an error of its kind with its name; the
 * run goes on and reads the others. */
FR_TEST(measure_io, file_removed_after_listing_counts_as_enoent)
{
	char *dir = fr_test_tmpdir();
	char path[4096];
	struct stg_dataset *ds;
	struct ms_io_config cfg;
	struct ms_io_result *res = malloc(sizeof(*res));

	cr_assert_not_null(res);
	make_files(dir);
	cr_assert_eq(stg_dataset_scan(dir, NULL, &ds), 0);
	snprintf(path, sizeof(path), "%s/sub/f03", dir);
	cr_assert_eq(unlink(path), 0);
	config(&cfg, ds, STG_BACKEND_PSYNC, 1);
	cr_assert_eq(ms_io_run(&cfg, res), 0, "%s", res->err_text);
	cr_expect_eq(res->st.files_ok, NFILES - 1);
	cr_expect_eq(res->st.errors, 1);
	cr_assert_eq(res->nkinds, 1);
	cr_expect_eq(res->kinds[0].code, -ENOENT);
	cr_expect_eq(res->kinds[0].count, 1);
	cr_expect_str_eq(res->kinds[0].example, "sub/f03");
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
	free(res);
}

/* A stop asked before the run: nothing is claimed, the run still ends
 * with a result. */
FR_TEST(measure_io, stop_before_start_reads_nothing)
{
	char *dir = fr_test_tmpdir();
	struct stg_dataset *ds;
	struct ms_io_config cfg;
	struct ms_io_result *res = malloc(sizeof(*res));
	volatile sig_atomic_t stop = 1;

	cr_assert_not_null(res);
	make_files(dir);
	cr_assert_eq(stg_dataset_scan(dir, NULL, &ds), 0);
	config(&cfg, ds, STG_BACKEND_PSYNC, 2);
	cfg.stop = &stop;
	cr_assert_eq(ms_io_run(&cfg, res), 0, "%s", res->err_text);
	cr_expect_eq(res->st.files_ok, 0);
	cr_expect_eq(res->files_listed, NFILES);
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
	free(res);
}

FR_TEST(measure_io, vanished_dataset_folder_is_an_error_in_words)
{
	char *dir = fr_test_tmpdir();
	char path[4096];
	int fd;
	struct stg_dataset *ds;
	struct ms_io_config cfg;
	struct ms_io_result *res = malloc(sizeof(*res));
	struct events ev = { 0 };

	cr_assert_not_null(res);
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(stg_dataset_scan(dir, NULL, &ds), 0);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(rmdir(dir), 0);
	config(&cfg, ds, STG_BACKEND_PSYNC, 1);
	cfg.progress = on_event;
	cfg.progress_arg = &ev;
	cr_expect_eq(ms_io_run(&cfg, res), -ENOENT);
	cr_expect_not_null(strstr(res->err_text,
				  "cannot open the dataset folder"), "%s",
			   res->err_text);
	cr_expect_eq(ev.n, 0);
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
	free(res);
}

/* The cache probe looks past empty files and into folders. */
FR_TEST(measure_io, cache_probe_finds_a_non_empty_file_below_the_path)
{
	char *dir = fr_test_tmpdir();
	char path[4096], *file = NULL;
	struct stg_cache_probe probe;
	int fd;

	snprintf(path, sizeof(path), "%s/empty", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_expect_eq(ms_io_cache_probe(path, &file, &probe), -ENODATA);
	cr_expect_null(file);
	cr_expect_eq(ms_io_cache_probe(dir, &file, &probe), -ENOENT);
	cr_expect_null(file);
	make_files(dir);
	unlink(path);
	cr_expect_eq(ms_io_cache_probe(dir, &file, &probe), 0);
	cr_assert_not_null(file);
	cr_expect_eq(strncmp(file, dir, strlen(dir)), 0, "%s", file);
	free(file);
	fr_test_rmtree(dir);
}

/* ---- the io report ---- */

/* A result as ms_io_run would leave it: 3 of 5 files, 2 MB in 0.5 s. */
static void io_fixture(struct ms_io_config *cfg, struct ms_io_result *res)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->rc.backend = STG_BACKEND_PSYNC;
	cfg->rc.depth = 8;
	cfg->rc.block_size = 256 * 1024;
	cfg->rc.max_sample_bytes = 1 << 20;
	cfg->rc.direct = true;
	cfg->threads = 2;
	cfg->cache = STG_CACHE_COLD;
	memset(res, 0, sizeof(*res));
	res->backend = STG_BACKEND_PSYNC;
	snprintf(res->reason, sizeof(res->reason), "chosen with --backend");
	res->files_listed = 5;
	res->st.files_ok = 3;
	res->st.bytes = 2000000;
	res->st.reads = 5;
	res->st.errors = 2;
	stg_histo_init(&res->st.clat);
	for (int i = 0; i < 5; i++)
		stg_histo_record(&res->st.clat, 2000000);
	res->kinds[0] = (struct ms_io_error_kind){ -ENOENT, 2, "a/b\xff.bin" };
	res->nkinds = 1;
	res->listing[STG_DS_ERR_DANGLING].count = 4;
	res->listing[STG_DS_ERR_DANGLING].example = "c/link";
	res->evict_errors = 7;
	res->seconds = 0.5;
}

static char *io_text(const char *dataset, const struct ms_io_config *cfg,
		     const struct ms_io_result *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	rpt_iorun_print(f, &(struct rpt_setup){ .dataset = dataset }, cfg,
			res);
	fclose(f);
	return buf;
}

FR_TEST(report_iorun, text_shows_counts_speed_latency_and_errors)
{
	static struct ms_io_config cfg;
	static struct ms_io_result res;
	char *t;

	io_fixture(&cfg, &res);
	t = io_text("/data/x", &cfg, &res);
	cr_expect_str_eq(t,
		"feedrate io: /data/x\n"
		"  backend   psync (chosen with --backend)\n"
		"  setup     2 threads, depth 8, block 256 KiB, cache cold, "
		"O_DIRECT\n"
		"  read      3 of 5 files, 2.0 MB in 0.500 s\n"
		"  speed     4.0 MB/s, 6 files/s, 10 IOPS\n"
		"  clat      p50 2.00 ms, p90 2.00 ms, p99 2.00 ms, "
		"p99.9 2.00 ms\n"
		"  errors    2\n"
		"    ENOENT     2  No such file or directory, e.g. "
		"a/b\\xff.bin\n"
		"  listing   4 dangling_link, e.g. c/link\n"
		"  cache     7 files could not be evicted\n");
	free(t);
}

FR_TEST(report_iorun, text_of_an_empty_run_has_no_rates_and_no_errors)
{
	static struct ms_io_config cfg;
	static struct ms_io_result res;
	char *t;

	io_fixture(&cfg, &res);
	memset(&res, 0, sizeof(res));
	stg_histo_init(&res.st.clat);
	res.backend = STG_BACKEND_NULL;
	snprintf(res.notes, sizeof(res.notes), "a note");
	cfg.threads = 1;
	cfg.cache = MS_IO_CACHE_ASIS;
	cfg.rc.direct = false;
	t = io_text("d", &cfg, &res);
	cr_expect_str_eq(t,
		"feedrate io: d\n"
		"  backend   null ()\n"
		"  notes     a note\n"
		"  setup     1 thread, depth 8, block 256 KiB, cache as found\n"
		"  read      0 of 0 files, 0.0 MB in 0.000 s\n"
		"  speed     0.0 MB/s, 0 files/s, 0 IOPS\n"
		"  clat      p50 0 ns, p90 0 ns, p99 0 ns, p99.9 0 ns\n"
		"  errors    none\n");
	free(t);
}

FR_TEST(report_iorun, json_has_fio_like_keys_and_values)
{
	static struct ms_io_config cfg;
	static struct ms_io_result res;
	json_t *j, *o, *k;

	io_fixture(&cfg, &res);
	j = rpt_iorun_json(&(struct rpt_setup){ .dataset = "/data/\xfe" },
			   &cfg, &res);
	cr_assert_not_null(j);
	cr_expect_str_eq(json_string_value(json_object_get(j, "command")),
			 "io");
	cr_expect_str_eq(json_string_value(json_object_get(j, "dataset")),
			 "/data/\\xfe");
	cr_expect_str_eq(json_string_value(json_object_get(j, "backend")),
			 "psync");
	o = json_object_get(j, "options");
	cr_expect_eq(json_integer_value(json_object_get(o, "threads")), 2);
	cr_expect_eq(json_integer_value(json_object_get(o, "block_size")),
		     256 * 1024);
	cr_expect_str_eq(json_string_value(json_object_get(o, "cache")),
			 "cold");
	cr_expect(json_is_true(json_object_get(o, "direct")));
	cr_expect_eq(json_integer_value(json_object_get(o,
		     "max_sample_bytes")), 1 << 20);
	cr_expect_eq(json_integer_value(json_object_get(j, "files_listed")), 5);
	cr_expect_eq(json_integer_value(json_object_get(j, "files")), 3);
	cr_expect_eq(json_integer_value(json_object_get(j, "io_bytes")),
		     2000000);
	cr_expect_eq(json_integer_value(json_object_get(j, "total_ios")), 5);
	cr_expect_float_eq(json_real_value(json_object_get(j, "runtime_s")),
			   0.5, 1e-12);
	cr_expect_eq(json_integer_value(json_object_get(j, "bw_bytes")),
		     4000000);
	cr_expect_float_eq(json_real_value(json_object_get(j, "iops")), 10,
			   1e-9);
	cr_expect_float_eq(json_real_value(json_object_get(j, "files_per_s")),
			   6, 1e-9);
	o = json_object_get(j, "clat_ns");
	cr_expect_eq(json_integer_value(json_object_get(o, "min")), 2000000);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(o,
		     "percentile"), "99.900000")), 2000000);
	o = json_object_get(j, "errors");
	cr_expect_eq(json_integer_value(json_object_get(o, "total")), 2);
	k = json_object_get(json_object_get(o, "kinds"), "ENOENT");
	cr_expect_eq(json_integer_value(json_object_get(k, "count")), 2);
	cr_expect_str_eq(json_string_value(json_object_get(k, "example")),
			 "a/b\\xff.bin");
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(j,
		     "listing_errors"), "dangling_link")), 4);
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j,
			 "listing_error_examples"), "dangling_link")),
			 "c/link");
	json_decref(j);
}

/* ---- the info report ---- */

static void info_fixture(struct rpt_info *in)
{
	memset(in, 0, sizeof(*in));
	in->version = "9.9";
	in->cpu.affinity_cpus = 4;
	in->cpu.quota_cpus = 0.5;
	snprintf(in->cpu.quota_source, sizeof(in->cpu.quota_source),
		 "/sys/fs/cgroup/cpu.max");
	in->cpu.usable_cpus = 0.5;
	in->cpu.online_cpus = 4;
	snprintf(in->cpu.model, sizeof(in->cpu.model), "Test CPU");
	in->cpu.cores = 2;
	in->cpu.threads_per_core = 2;
	in->cpu.vcpu_kind = STG_VCPU_THREAD;
	in->cpu.numa_nodes = -1;
	in->cpu.steal_pct_boot = -1;
	in->cpu.steal_pct_interval = -1;
	in->mem.total_bytes = 16ll << 30;
	in->mem.available_bytes = -1;
	in->mem.cgroup_limit_bytes = -1;
	in->gpus.count = 1;
	snprintf(in->gpus.gpu[0].model, sizeof(in->gpus.gpu[0].model),
		 "NVIDIA A100");
	snprintf(in->gpus.gpu[0].bus, sizeof(in->gpus.gpu[0].bus),
		 "0000:10:1c.0");
	snprintf(in->uring_why, sizeof(in->uring_why), "io_uring available");
}

static char *info_text(const struct rpt_info *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	rpt_info_print(f, in);
	fclose(f);
	return buf;
}

FR_TEST(report_info, text_names_the_machine_and_says_unknown)
{
	static struct rpt_info in;
	char *t;

	info_fixture(&in);
	t = info_text(&in);
	cr_expect_str_eq(t,
		"Machine\n"
		"  product           unknown\n"
		"  CPU model         Test CPU\n"
		"  usable vCPUs      0.50 (affinity mask 4, cgroup quota 0.50 "
		"from\n"
		"                    /sys/fs/cgroup/cpu.max)\n"
		"  online CPUs       4\n"
		"  SMT               2 cores x 2 threads per core\n"
		"  vCPU kind         thread (SMT siblings present: 2 threads "
		"per core)\n"
		"  NUMA nodes        unknown\n"
		"  steal time        unknown\n"
		"  RAM               16.0 GiB\n"
		"  cgroup memory     no limit found\n"
		"  GPUs              1 NVIDIA GPU\n"
		"                    NVIDIA A100 at 0000:10:1c.0\n"
		"  io_uring          io_uring available\n");
	free(t);
}

FR_TEST(report_info, storage_part_comes_with_a_path_and_escapes_it)
{
	static struct rpt_info in;
	char *t;

	info_fixture(&in);
	in.path = "/mnt/\xff";
	in.fs_err = -ENOENT;
	t = info_text(&in);
	cr_expect_not_null(strstr(t, "\nStorage under /mnt/\\xff\n"
				  "  error             No such file or "
				  "directory\n"), "%s", t);
	free(t);
}

FR_TEST(report_info, json_has_nulls_for_unknown_values)
{
	static struct rpt_info in;
	json_t *j, *m, *cpu, *st, *bd;

	info_fixture(&in);
	in.path = "/data";
	snprintf(in.fs.path, sizeof(in.fs.path), "/data");
	snprintf(in.fs.fs_family, sizeof(in.fs.fs_family), "ext4");
	in.fs.have_blockdev = true;
	snprintf(in.fs.blockdev.name, sizeof(in.fs.blockdev.name), "nvme1n1");
	snprintf(in.fs.blockdev.model, sizeof(in.fs.blockdev.model),
		 "Amazon Elastic Block Store");
	in.fs.blockdev.rotational = -1;
	in.fs.blockdev.nr_requests = -1;
	j = rpt_info_json(&in);
	cr_assert_not_null(j);
	cr_expect_str_eq(json_string_value(json_object_get(j,
			 "feedrate_version")), "9.9");
	m = json_object_get(j, "machine");
	cpu = json_object_get(m, "cpu");
	cr_expect_float_eq(json_real_value(json_object_get(cpu, "quota_cpus")),
			   0.5, 1e-12);
	cr_expect_eq(json_integer_value(json_object_get(cpu,
		     "threads_per_core")), 2);
	cr_expect(json_is_null(json_object_get(cpu, "numa_nodes")));
	cr_expect(json_is_null(json_object_get(cpu, "steal_pct_boot")));
	cr_expect(json_is_null(json_object_get(json_object_get(m, "memory"),
					       "available_bytes")));
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(m,
		     "gpus"), "count")), 1);
	cr_expect(json_is_true(json_object_get(json_object_get(m, "io_uring"),
					       "available")));
	st = json_object_get(j, "storage");
	cr_expect_str_eq(json_string_value(json_object_get(st, "fs_family")),
			 "ext4");
	cr_expect(json_is_null(json_object_get(st, "mount")));
	cr_expect(json_is_null(json_object_get(st, "cache_probe")));
	bd = json_object_get(st, "blockdev");
	cr_expect_str_eq(json_string_value(json_object_get(bd, "model")),
			 "Amazon Elastic Block Store");
	cr_expect(json_is_null(json_object_get(bd, "rotational")));
	json_decref(j);
	in.path = NULL;
	j = rpt_info_json(&in);
	cr_expect_null(json_object_get(j, "storage"));
	json_decref(j);
}
