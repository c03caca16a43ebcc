/*
 * test_live.c - the running totals a measurement child publishes into
 * shared memory (loader/live.c): the latest whole publication is read,
 * across processes, and a child's engine killed by SIGKILL in its window
 * still leaves its window's numbers. No assertion on how long anything
 * took: the tests wait for counts, with generous hang limits.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "loader.h"

FR_TEST(stall_live, the_latest_whole_publication_is_read_across_a_fork)
{
	struct ldr_live_rec *rec = ldr_live_create();
	struct ldr_live v, got;
	int status;
	pid_t pid;

	cr_assert_not_null(rec);
	cr_expect_not(ldr_live_read(rec, &got), "nothing published yet");
	memset(&v, 0, sizeof(v));
	v.window = true;
	v.samples = 10;
	ldr_live_publish(rec, &v);
	v.samples = 20;
	v.measured_s = 2.5;
	ldr_live_publish(rec, &v);
	cr_assert(ldr_live_read(rec, &got));
	cr_expect_eq(got.samples, 20);
	cr_expect_float_eq(got.measured_s, 2.5, 1e-12);
	/* a child's publications show in the parent after its death */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		v.samples = 30;
		ldr_live_publish(rec, &v);
		v.samples = 40;
		ldr_live_publish(rec, &v);
		raise(SIGKILL);
		_exit(1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	cr_assert(ldr_live_read(rec, &got));
	cr_expect_eq(got.samples, 40, "%llu", (unsigned long long)got.samples);
	cr_expect_not(ldr_live_read(NULL, &got));
	ldr_live_destroy(rec);
}

FR_TEST(stall_live, a_result_from_totals_says_it_is_partial)
{
	struct ldr_live v;
	struct ldr_result *res = malloc(sizeof(*res));

	cr_assert_not_null(res);
	memset(res, 0x5a, sizeof(*res));        /* what a torn read leaves */
	memset(&v, 0, sizeof(v));
	v.window = true;
	v.gpus = 2;
	v.batch = 32;
	v.samples = 640;
	v.batches = 20;
	v.measured_s = 4;
	v.read_bytes = 4000;
	v.gpu_compute_s = 6;
	v.gpu_wait_s = 2;
	v.published_realtime = 1234.5;
	ldr_live_to_result(&v, res);
	cr_expect(res->window_partial);
	cr_expect_not(res->warmup_incomplete);
	cr_expect_eq(res->samples, 640);
	cr_expect_float_eq(res->samples_per_s, 160, 1e-9);
	cr_expect_float_eq(res->read_bytes_per_s, 1000, 1e-9);
	cr_expect_float_eq(res->au, 0.75, 1e-9);
	cr_expect_float_eq(res->window_end_realtime, 1234.5, 1e-9);
	cr_expect_eq(res->series_len, 0, "no series is carried");
	cr_expect_eq(res->err_kinds, 0);
	cr_expect_eq(res->read_lat.count, 0);
	cr_expect_eq(res->bottleneck, LDR_BOTTLENECK_UNKNOWN);
	/* still in the warm-up: the whole run, said so */
	v.window = false;
	v.warmup_s = 3;
	ldr_live_to_result(&v, res);
	cr_expect(res->warmup_incomplete);
	cr_expect_float_eq(res->warmup_s, 0, 0);
	free(res);
}

/* A child's engine runs on the null backend until it is killed. */
static void engine_until_killed(struct ldr_live_rec *rec)
{
	static const char *const names[] = { "a", "b", "c", "d", "e", "f",
					     "g", "h" };
	static const uint64_t sizes[] = { 4096, 4096, 4096, 4096, 4096,
					  4096, 4096, 4096 };
	struct ldr_result *res = malloc(sizeof(*res));
	struct stg_dataset *ds;
	struct ldr_config cfg;

	if (!res || stg_dataset_from_names("/", names, sizes, 8, &ds))
		_exit(2);
	memset(&cfg, 0, sizeof(cfg));
	cfg.ds = ds;
	cfg.reader.backend = STG_BACKEND_NULL;
	cfg.reader.depth = 4;
	cfg.reader.max_sample_bytes = 1 << 20;
	cfg.transform = ldr_transform_noop_sized(64);
	cfg.workers = 1;
	cfg.batch = 8;
	cfg.world = 1;
	cfg.warmup_s = -1;              /* the window opens at once */
	cfg.duration_s = 3600;
	cfg.live = rec;
	ldr_run(&cfg, res);
	_exit(3);                       /* never: it is killed first */
}

FR_TEST(stall_live, an_engine_killed_in_its_window_leaves_its_totals,
	.timeout = 300)
{
	struct ldr_live_rec *rec = ldr_live_create();
	struct ldr_live v, again;
	const struct timespec ms50 = { 0, 50000000L };
	int status, polls = 0;
	pid_t pid;

	cr_assert_not_null(rec);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		engine_until_killed(rec);
	/* until the window has samples (a hang limit, not a rate: 240 s) */
	memset(&v, 0, sizeof(v));
	while (polls++ < 4800 && !(ldr_live_read(rec, &v) && v.window &&
				   v.samples >= 256 && v.process_cpu_s > 0))
		nanosleep(&ms50, NULL);
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status), "the engine ended by itself: %d",
		  status);
	cr_assert(ldr_live_read(rec, &v), "nothing was published");
	cr_expect(v.window);
	cr_expect_geq(v.samples, 256, "%llu", (unsigned long long)v.samples);
	cr_expect_gt(v.measured_s, 0);
	cr_expect_gt(v.read_bytes, 0);
	cr_expect_eq(v.batch, 8);
	cr_expect_geq(v.batches * v.batch, v.samples,
		      "%llu batches of 8 for %llu samples",
		      (unsigned long long)v.batches,
		      (unsigned long long)v.samples);
	cr_expect_gt(v.worker_busy_s + v.worker_wait_s, 0);
	/* the record of a dead writer does not change */
	cr_assert(ldr_live_read(rec, &again));
	cr_expect_eq(memcmp(&v, &again, sizeof(v)), 0);
	ldr_live_destroy(rec);
}
