/*
 * test_stall.c - the stall watch: the rule (stg_watch_assess) on injected
 * clocks, what the shared record shows of reads in flight (blocking
 * calls and a reader's lane), and the watchdog ending a measurement child
 * whose read never completes. No assertion on how long anything took.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "engine_internal.h"
#include "harness.h"
#include "loader.h"
#include "measure.h"
#include "report.h"

#define S(x) ((uint64_t)((x) * 1e9))

/* ---- the rule, with injected times ---- */

struct assess_case {
	const char *what;
	unsigned inflight;
	double oldest, last_done, now, timeout;   /* seconds */
	bool stalled;
	double idle;                    /* expected idle_s */
};

static const struct assess_case cases[] = {
	{ "nothing in flight is never a stall, however quiet",
	  0, 0, 10, 1000, 30, false, 0 },
	{ "a completion within the timeout: not stalled",
	  8, 100, 990, 1000, 30, false, 10 },
	{ "no completion for the timeout with reads in flight: stalled",
	  8, 100, 970, 1000, 30, true, 30 },
	{ "one past the timeout: stalled",
	  1, 100, 900, 1000, 30, true, 100 },
	{ "a read started after a quiet spell gets the whole timeout",
	  1, 990, 10, 1000, 30, false, 10 },
	{ "... and is a stall once it has waited the timeout",
	  1, 960, 10, 1000, 30, true, 40 },
	{ "no completion ever, the oldest older than the timeout",
	  4, 500, 0, 1000, 30, true, 500 },
	{ "a timeout of 0 never fires",
	  4, 0, 0, 1000, 0, false, 1000 },
};

FR_TEST(stall_rule, decides_from_the_last_completion_and_the_oldest_read)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct assess_case *c = &cases[i];
		struct stg_watch_snap s;
		struct stg_stall out;
		bool got;

		memset(&s, 0, sizeof(s));
		s.phase = STG_PHASE_WINDOW;
		s.inflight = c->inflight;
		s.oldest_ns = c->inflight ? S(c->oldest) : 0;
		s.last_done_ns = S(c->last_done);
		snprintf(s.oldest, sizeof(s.oldest), "train/x%zu.jpg", i);
		got = stg_watch_assess(&s, S(c->now), S(c->timeout), &out);
		cr_expect_eq(got, c->stalled, "%s", c->what);
		cr_expect_eq(out.stalled, c->stalled, "%s", c->what);
		cr_expect_eq(out.inflight, c->inflight, "%s", c->what);
		cr_expect_eq(out.phase, STG_PHASE_WINDOW, "%s", c->what);
		if (c->inflight) {
			cr_expect_float_eq(out.idle_s, c->idle, 1e-6, "%s: %f",
					   c->what, out.idle_s);
			cr_expect_float_eq(out.oldest_age_s, c->now - c->oldest,
					   1e-6, "%s", c->what);
			cr_expect_str_eq(out.oldest, s.oldest, "%s", c->what);
		}
	}
}

FR_TEST(stall_rule, phases_have_names)
{
	cr_expect_str_eq(stg_phase_name(STG_PHASE_LISTING), "listing");
	cr_expect_str_eq(stg_phase_name(STG_PHASE_EVICTION), "eviction");
	cr_expect_str_eq(stg_phase_name(STG_PHASE_PROBE), "probe");
	cr_expect_str_eq(stg_phase_name(STG_PHASE_WINDOW), "window");
	cr_expect_str_eq(stg_phase_name(STG_PHASE_ALONE), "read alone");
	cr_expect_str_eq(stg_phase_name(STG_PHASE_COUNT), "?");
}

/* ---- what the shared record shows ---- */

FR_TEST(stall_record, a_blocking_call_is_in_flight_until_it_ends)
{
	struct stg_watch_snap s;

	cr_assert_eq(stg_watch_init(), 0);
	stg_watch_phase(STG_PHASE_EVICTION);
	cr_assert(stg_watch_snapshot(&s));
	cr_expect_eq(s.inflight, 0);
	stg_watch_begin("train/n01/a.jpg");
	cr_assert(stg_watch_snapshot(&s));
	cr_expect_eq(s.inflight, 1);
	cr_expect_str_eq(s.oldest, "train/n01/a.jpg");
	cr_expect_eq(s.phase, STG_PHASE_EVICTION);
	cr_expect_neq(s.oldest_ns, 0);
	stg_watch_end();
	cr_assert(stg_watch_snapshot(&s));
	cr_expect_eq(s.inflight, 0);
	cr_expect_geq(s.last_done_ns, s.oldest_ns);
}

FR_TEST(stall_record, a_readers_lane_counts_its_reads_and_names_the_oldest)
{
	const struct stg_reader_config rc = {
		.backend = STG_BACKEND_NULL,
		.depth = 4,
		.null_delay_ns = 20000000ull,   /* 20 ms: still in flight */
	};
	static const char *const names[] = { "d/first", "d/second",
					     "d/third" };
	struct stg_completion c[4];
	struct stg_watch_snap s;
	struct stg_reader *r;
	unsigned got = 0;

	cr_assert_eq(stg_watch_init(), 0);
	cr_assert_eq(stg_reader_create(&rc, &r), 0);
	for (unsigned i = 0; i < 3; i++) {
		const struct stg_read_req req = {
			.dirfd = AT_FDCWD, .name = names[i], .size = 4096,
			.user_data = i,
		};

		cr_assert_eq(stg_reader_submit(r, &req), 0);
	}
	cr_assert(stg_watch_snapshot(&s));
	cr_expect_eq(s.inflight, 3);
	cr_expect_str_eq(s.oldest, "d/first");
	while (got < 3) {
		int n = stg_reader_reap(r, c, 4, -1);

		cr_assert_geq(n, 0);
		for (int k = 0; k < n; k++)
			stg_buf_release(c[k].buf);
		got += (unsigned)n;
	}
	cr_assert(stg_watch_snapshot(&s));
	cr_expect_eq(s.inflight, 0, "every read completed: none in flight");
	cr_expect_neq(s.last_done_ns, 0);
	stg_reader_destroy(r);
}

FR_TEST(stall_record, a_dead_childs_reads_are_dropped)
{
	struct stg_watch_snap s;
	int status;
	pid_t pid;

	cr_assert_eq(stg_watch_init(), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		stg_watch_begin("held/by/the/child");
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(stg_watch_snapshot(&s));
	cr_expect_eq(s.inflight, 1, "the child's read shows in the parent");
	cr_expect_str_eq(s.oldest, "held/by/the/child");
	stg_watch_release_pid(pid);
	cr_assert(stg_watch_snapshot(&s));
	cr_expect_eq(s.inflight, 0);
}

static void *probe_waits(void *rc)
{
	ldr_probe_residency(rc, "waits", 0);
	return NULL;
}

/* The engine's residency probe opens a file before the file's read: on
 * storage that stopped answering that open waits as long as a read, so
 * it is a read in flight too. A FIFO's open waits for a writer. */
FR_TEST(stall_record, a_residency_probe_waiting_in_its_open_is_in_flight)
{
	static struct ldr_engine e;
	static struct ldr_reader_ctx rc;
	const struct timespec ms10 = { 0, 10000000L };
	char *dir = fr_test_tmpdir(), path[PATH_MAX];
	struct stg_watch_snap s;
	pthread_t t;
	int fd;

	cr_assert_eq(stg_watch_init(), 0);
	snprintf(path, sizeof(path), "%s/waits", dir);
	cr_assert_eq(mkfifo(path, 0600), 0, "%s", strerror(errno));
	e.root_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(e.root_fd, 0);
	rc.e = &e;
	cr_assert_eq(pthread_create(&t, NULL, probe_waits, &rc), 0);
	/* a hang guard, not a time limit: the open waits until a writer */
	for (int k = 0; k < 1000; k++) {
		cr_assert(stg_watch_snapshot(&s));
		if (s.inflight)
			break;
		nanosleep(&ms10, NULL);
	}
	cr_expect_eq(s.inflight, 1, "the probe's open is not in flight");
	cr_expect_str_eq(s.oldest, "waits");
	/* a writer lets it return */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	pthread_join(t, NULL);
	close(fd);
	cr_assert(stg_watch_snapshot(&s));
	cr_expect_eq(s.inflight, 0, "the probe ended: nothing in flight");
	cr_expect_eq(ldr_ctr_get(&rc.probed_reads) +
		     ldr_ctr_get(&rc.probe_errors), 1, "one probe counted");
	close(e.root_fd);
	fr_test_rmtree(dir);
}

/* ---- the watchdog ends a child whose read never completes ---- */

static int read_forever(void *arg, volatile int *stop, void *out,
			size_t len)
{
	(void)arg;
	(void)stop;
	(void)out;
	(void)len;
	stg_watch_phase(STG_PHASE_WINDOW);
	stg_watch_begin("never/answers.jpg");
	for (;;)
		pause();        /* even SIGTERM would not end a FUSE wait */
	return 0;
}

FR_TEST(stall_watchdog, kills_a_stalled_child_and_says_where_it_stalled)
{
	const struct ldr_watchdog_opts o = { .stall_timeout_s = 0.3 };
	struct ldr_child_report rep;
	char out[16];
	int err;

	cr_assert_eq(stg_watch_init(), 0);
	cr_assert_eq(ldr_watchdog_start(&o), 0);
	cr_expect_float_eq(ldr_watchdog_timeout(), 0.3, 1e-9);
	err = ldr_child_run(NULL, read_forever, NULL, out, sizeof(out), &rep);
	/* the report is this thread's to write */
	cr_assert(ldr_watchdog_claim());
	ldr_watchdog_stop();
	cr_expect_eq(err, -ETIMEDOUT, "%d: %s", err, rep.why);
	cr_expect(rep.stalled);
	cr_expect(rep.stall.stalled);
	cr_expect_eq(rep.stall.phase, STG_PHASE_WINDOW);
	cr_expect_eq(rep.stall.inflight, 1);
	cr_expect_str_eq(rep.stall.oldest, "never/answers.jpg");
	cr_expect_geq(rep.stall.idle_s, 0.3);
	cr_expect_eq(rep.held_pid, 0, "pause() ends on SIGKILL: reaped");
	cr_expect(ldr_watchdog_stall(NULL));
}

static int busy_without_reads(void *arg, volatile int *stop, void *out,
			      size_t len)
{
	const struct timespec t = { 0, 400000000L };

	(void)arg;
	(void)stop;
	(void)out;
	(void)len;
	nanosleep(&t, NULL);
	return 5;
}

FR_TEST(stall_watchdog, a_child_that_reads_nothing_is_not_a_stall)
{
	const struct ldr_watchdog_opts o = { .stall_timeout_s = 0.1 };
	struct ldr_child_report rep;
	char out[16];

	cr_assert_eq(stg_watch_init(), 0);
	cr_assert_eq(ldr_watchdog_start(&o), 0);
	/* a child busy without reads for longer than the timeout */
	cr_assert_eq(ldr_child_run(NULL, busy_without_reads, NULL, out,
				   sizeof(out), &rep), 0, "%s", rep.why);
	cr_assert(ldr_watchdog_claim());
	ldr_watchdog_stop();
	cr_expect_eq(rep.fn_result, 5);
	cr_expect(!rep.stalled);
}

/* A signal's take-over, on injected times: after the grace, unless the
 * storage still answers (the command drains its last I/O, then ends). */
FR_TEST(stall_watchdog, a_signal_is_taken_over_only_where_the_storage_no_longer_answers)
{
	const uint64_t s = 1000000000ull, sig = 100 * s;
	const uint64_t grace = (uint64_t)(LDR_SIGNAL_END_S * 1e9);
	struct stg_watch_snap snap;

	memset(&snap, 0, sizeof(snap));
	/* before the grace: never */
	cr_expect_not(ldr_signal_takeover(sig + grace - 1, sig, NULL));
	cr_expect_not(ldr_signal_takeover(sig, sig, &snap));
	/* after it: no record, or nothing completed */
	cr_expect(ldr_signal_takeover(sig + grace, sig, NULL));
	cr_expect(ldr_signal_takeover(sig + grace, sig, &snap));
	/* nothing in flight, the last completion just now: drained, the
	 * command cleans up (the checkpoint that CI saw lose its shards to
	 * an early take-over under AddressSanitizer) */
	snap.last_done_ns = sig + grace - 1;
	cr_expect_not(ldr_signal_takeover(sig + grace, sig, &snap));
	/* ... and a grace after that completion it is taken over */
	cr_expect(ldr_signal_takeover(sig + 2 * grace - 1, sig, &snap));
	/* I/O in flight, one completed just now: draining, not stuck */
	snap.inflight = 4;
	cr_expect_not(ldr_signal_takeover(sig + grace, sig, &snap));
	cr_expect_not(ldr_signal_takeover(sig + 30 * s, sig,
		&(struct stg_watch_snap){ .inflight = 1,
					  .last_done_ns = sig + 30 * s - 1 }));
	/* in flight, the last completion a grace ago or never: stuck */
	snap.last_done_ns = sig + 2 * grace;
	cr_expect(ldr_signal_takeover(sig + 3 * grace, sig, &snap));
	snap.last_done_ns = 0;
	cr_expect(ldr_signal_takeover(sig + grace, sig, &snap));
	/* a clock read before the signal's never takes over */
	cr_expect_not(ldr_signal_takeover(sig - 1, sig, &snap));
}

/* ---- the watchdog's report: what the command opened before ---- */

FR_TEST(stall_report, the_watchdogs_report_names_the_dataset_and_machine)
{
	json_t *root = json_object(), *ds, *m;
	struct ms_opened op;
	struct stg_dataset *sds;
	struct ms_dataset md;
	static const char *const names[] = { "a.jpg", "b.jpg" };
	static const uint64_t sizes[] = { 1000, 24 };

	cr_assert_not_null(root);
	ms_opened_reset();
	ms_opened_get(&op);
	rpt_stall_partial_opened(root, &op);
	cr_expect(json_is_null(json_object_get(root, "dataset")),
		  "nothing opened: null");
	/* stuck in the listing: the folder and its filesystem only */
	ms_opened_dataset("/data/train", NULL);
	ms_opened_fs("/elsewhere", "nfs", "");
	ms_opened_fs("/data/train", "fuse.s3fs", "");
	ms_opened_get(&op);
	rpt_stall_partial_opened(root, &op);
	ds = json_object_get(root, "dataset");
	cr_assert(json_is_object(ds));
	cr_expect_str_eq(json_string_value(json_object_get(ds, "path")),
			 "/data/train");
	cr_expect(json_is_false(json_object_get(ds, "listed")));
	cr_expect(json_is_null(json_object_get(ds, "files")));
	cr_expect_str_eq(json_string_value(json_object_get(ds, "fs_type")),
			 "fuse.s3fs", "another folder's filesystem is not it");
	m = json_object_get(root, "machine");
	cr_assert(json_is_object(m));
	cr_expect(json_is_string(json_object_get(m, "vcpu_kind")));
	cr_expect_geq(json_integer_value(json_object_get(m, "vcpus")), 1);
	cr_expect_gt(json_integer_value(json_object_get(m, "ram_bytes")), 0);
	/* listed: its files and bytes */
	cr_assert_eq(stg_dataset_from_names("/", names, sizes, 2, &sds), 0);
	memset(&md, 0, sizeof(md));
	md.ds = sds;
	md.format = WL_FORMAT_FOLDER;
	ms_opened_dataset(NULL, &md);
	ms_opened_get(&op);
	rpt_stall_partial_opened(root, &op);
	ds = json_object_get(root, "dataset");
	cr_expect(json_is_true(json_object_get(ds, "listed")));
	cr_expect_eq(json_integer_value(json_object_get(ds, "files")), 2);
	cr_expect_eq(json_integer_value(json_object_get(ds, "bytes")), 1024);
	cr_expect_str_eq(json_string_value(json_object_get(ds, "fs_type")),
			 "fuse.s3fs");
	/* another folder forgets what was known of the first */
	ms_opened_dataset("/data/val", NULL);
	ms_opened_get(&op);
	cr_expect_not(op.listed);
	cr_expect_str_eq(op.fs_type, "");
	ms_opened_reset();
	stg_dataset_destroy(sds);
	json_decref(root);
}
