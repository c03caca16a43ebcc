/*
 * test_pinned.c - the measurement child: its result comes back whole, its
 * death is reported instead of waited on, signals reach it, every one of
 * its tasks (io_uring's iou-wrk workers included) runs on the chosen CPUs,
 * and the CPU time outside the mask is measured.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "loader.h"

static double cpu_now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the message ---------------------------------------------------- */

#define BIG (1u << 20)  /* larger than a pipe's buffer */

static int fill_pattern(void *arg, volatile int *stop, void *out, size_t len)
{
	unsigned char *p = out;

	(void)arg;
	(void)stop;
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 31 + 7);
	return 7;
}

FR_TEST(child, sends_a_result_larger_than_a_pipe_back_whole)
{
	static unsigned char *buf;
	struct ldr_child_report rep;

	buf = calloc(1, BIG);
	cr_assert_not_null(buf);
	cr_assert_eq(ldr_child_run(NULL, fill_pattern, NULL, buf, BIG, &rep),
		     0, "%s", rep.why);
	cr_assert_eq(rep.fn_result, 7);
	cr_assert_eq(rep.signal, 0);
	cr_assert_eq(rep.cpu_outside_mask_s, -1, "no mask, no figure");
	for (size_t i = 0; i < BIG; i++)
		cr_assert_eq(buf[i], (unsigned char)(i * 31 + 7), "byte %zu", i);
	free(buf);
}

static int die_by_signal(void *arg, volatile int *stop, void *out, size_t len)
{
	(void)stop;
	/* half a message first: the parent must not take it */
	memset(out, 1, len);
	raise(*(int *)arg);
	return 0;
}

FR_TEST(child, death_by_signal_is_reported_not_waited_on)
{
	char out[64];
	struct ldr_child_report rep;
	int sig = SIGKILL;

	cr_assert_eq(ldr_child_run(NULL, die_by_signal, &sig, out, sizeof(out),
				   &rep), -ECHILD);
	cr_assert(strstr(rep.why, "killed by signal 9") != NULL, "%s", rep.why);
	/* (SIGABRT, not SIGSEGV: AddressSanitizer turns a SEGV into exit 1) */
	sig = SIGABRT;
	cr_assert_eq(ldr_child_run(NULL, die_by_signal, &sig, out, sizeof(out),
				   &rep), -ECHILD);
	cr_assert(strstr(rep.why, "signal 6") != NULL, "%s", rep.why);
}

static int exit_early(void *arg, volatile int *stop, void *out, size_t len)
{
	(void)arg;
	(void)stop;
	(void)out;
	(void)len;
	_exit(3);
}

FR_TEST(child, exit_without_a_result_is_an_error_in_words)
{
	char out[16];
	struct ldr_child_report rep;

	cr_assert_eq(ldr_child_run(NULL, exit_early, NULL, out, sizeof(out),
				   &rep), -ECHILD);
	cr_assert(strstr(rep.why, "exited with status 3") != NULL, "%s",
		  rep.why);
}

struct stop_out {
	int stop_seen;          /* the signal the child's flag got */
	long spins;
};

/* Signal the parent, then work until the forwarded signal stops us. */
static int work_until_stopped(void *arg, volatile int *stop, void *out,
			      size_t len)
{
	struct stop_out *o = out;
	int sig = *(int *)arg;
	double t0 = cpu_now(CLOCK_MONOTONIC);

	(void)len;
	kill(getppid(), sig);
	while (!*stop && cpu_now(CLOCK_MONOTONIC) - t0 < 20)
		o->spins++;
	o->stop_seen = *stop;
	return *stop ? 0 : -ETIMEDOUT;
}

FR_TEST(child, sigint_and_sigterm_are_forwarded_and_a_partial_result_sent)
{
	static const int sigs[] = { SIGTERM, SIGINT };

	for (size_t i = 0; i < 2; i++) {
		struct stop_out o = { 0 };
		struct ldr_child_report rep;
		int sig = sigs[i];

		cr_assert_eq(ldr_child_run(NULL, work_until_stopped, &sig, &o,
					   sizeof(o), &rep), 0, "%s", rep.why);
		cr_assert_eq(rep.signal, sig);
		cr_assert_eq(rep.fn_result, 0, "the child was not stopped");
		/* the partial result came back (the signal may have come
		 * before the first spin: spins can be 0) */
		cr_assert_eq(o.stop_seen, sig);
	}
	/* the parent's own disposition is back: SIGTERM is default again */
	{
		struct sigaction now;

		sigaction(SIGTERM, NULL, &now);
		cr_assert_eq(now.sa_handler, SIG_DFL);
	}
}

/* ---- pinning --------------------------------------------------------- */

struct task_scan {
	int tasks;              /* tasks of the child */
	int iou_wrk;            /* of which io_uring workers */
	int mismatched;         /* tasks whose Cpus_allowed_list differs */
	char example[160];      /* one mismatch: "comm: list" */
	int reads_ok;
	int err;                /* set-up failure in the child */
	char backend[16];
	/* control: workers of a ring started before the child re-pinned */
	int raw_wrk_mismatched;
	int raw_wrk;
	char example2[160];
};

static void scan_tasks(const char *want, struct task_scan *s, bool only_wrk,
		       int *total, int *wrk, int *bad, char *ex, size_t exlen)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	*total = *wrk = *bad = 0;
	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[300], buf[4096], comm[64] = "", list[256] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status",
			 e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;       /* the task ended meanwhile */
		while (fgets(buf, sizeof(buf), f)) {
			if (!strncmp(buf, "Name:", 5))
				sscanf(buf + 5, " %63s", comm);
			else if (!strncmp(buf, "Cpus_allowed_list:", 18))
				sscanf(buf + 18, " %255s", list);
		}
		fclose(f);
		if (only_wrk && strncmp(comm, "iou-wrk", 7))
			continue;
		(*total)++;
		if (!strncmp(comm, "iou-wrk", 7))
			(*wrk)++;
		if (strcmp(list, want)) {
			(*bad)++;
			snprintf(ex, exlen, "%s: %s", comm, list);
		}
	}
	closedir(d);
	(void)s;
}

struct pin_arg {
	const char *dir;
	int nfiles;
	char want[64];          /* the expected Cpus_allowed_list */
	cpu_set_t wide;         /* the parent's mask, for the control */
};

/* See the control in read_files_and_scan. */
struct control_arg {
	const struct pin_arg *a;
	struct task_scan *s;
};

static void *control_thread(void *arg)
{
	const struct control_arg *c = arg;
	const struct pin_arg *a = c->a;
	struct task_scan *s = c->s;
	struct io_uring ring;
	char name[300], *buf = malloc(65536);
	cpu_set_t pinned;
	int fd;

	sched_getaffinity(0, sizeof(pinned), &pinned);
	snprintf(name, sizeof(name), "%s/f1", a->dir);
	fd = open(name, O_RDONLY);
	sched_setaffinity(0, sizeof(a->wide), &a->wide);
	if (buf && fd >= 0 && io_uring_queue_init(4, &ring, 0) == 0) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;

		io_uring_prep_read(sqe, fd, buf, 65536, 0);
		sqe->flags |= IOSQE_ASYNC;
		io_uring_submit(&ring);
		if (io_uring_wait_cqe(&ring, &cqe) == 0)
			io_uring_cqe_seen(&ring, cqe);
		sched_setaffinity(0, sizeof(pinned), &pinned);
		/* scan while this thread, and so its io-wq, lives */
		int total;

		scan_tasks(a->want, s, true, &total, &s->raw_wrk,
			   &s->raw_wrk_mismatched, s->example2,
			   sizeof(s->example2));
		io_uring_queue_exit(&ring);
	}
	sched_setaffinity(0, sizeof(pinned), &pinned);
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static int read_files_and_scan(void *arg, volatile int *stop, void *out,
			       size_t len)
{
	const struct pin_arg *a = arg;
	struct task_scan *s = out;
	struct stg_reader_config cfg = {
		.backend = STG_BACKEND_URING, .force_async = true, .depth = 8,
	};
	struct stg_reader *r = NULL;
	int done = 0, submitted = 0;

	(void)stop;
	(void)len;
	s->err = stg_reader_create(&cfg, &r);
	if (s->err < 0)
		return s->err;
	snprintf(s->backend, sizeof(s->backend), "%s",
		 stg_backend_name(stg_reader_backend(r)));
	while (done < a->nfiles) {
		struct stg_completion c[8];
		int n;

		while (submitted < a->nfiles) {
			char name[300];
			struct stg_read_req q = {
				.dirfd = AT_FDCWD, .name = name,
				.size = STG_SIZE_UNKNOWN,
				.user_data = (uint64_t)submitted,
			};

			snprintf(name, sizeof(name), "%s/f%d", a->dir,
				 submitted);
			if (stg_reader_submit(r, &q) < 0)
				break;
			submitted++;
		}
		stg_reader_flush(r);
		n = stg_reader_reap(r, c, 8, -1);
		if (n < 0) {
			s->err = n;
			break;
		}
		for (int i = 0; i < n; i++) {
			if (c[i].result == 0)
				s->reads_ok++;
			stg_buf_release(c[i].buf);
		}
		done += n;
	}
	/* the io-wq workers stay a few seconds after their work: scan now */
	scan_tasks(a->want, s, false, &s->tasks, &s->iou_wrk, &s->mismatched,
		   s->example, sizeof(s->example));
	stg_reader_destroy(r);

	/*
	 * Control, to show the scan can see a wrong mask: io-wq is per
	 * thread (shared by that thread's rings), so a fresh thread widens
	 * its mask, starts a worker with a bare ring, and pins itself again;
	 * its worker keeps the wide mask (io_uring_register_iowq_aff(3):
	 * the affinity applies to the ring's io-wq workers, and
	 * sched_setaffinity moves the calling thread only) unless the kernel
	 * moves it.
	 */
	{
		struct control_arg c = { a, s };
		pthread_t t;

		if (pthread_create(&t, NULL, control_thread, &c) == 0)
			pthread_join(t, NULL);
	}
	return 0;
}

static void write_file(const char *path, size_t size)
{
	char *b = malloc(size);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_not_null(b);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	memset(b, 'x', size);
	cr_assert_eq(write(fd, b, size), (ssize_t)size);
	close(fd);
	free(b);
}

FR_TEST(child, vcpus_1_restricts_every_task_including_iou_wrk)
{
	static char *dir;
	struct pin_arg a = { .nfiles = 16 };
	struct ldr_cpu_choice choice;
	struct task_scan s = { 0 };
	struct ldr_child_report rep;
	cpu_set_t mine;
	char why[256];

	sched_getaffinity(0, sizeof(mine), &mine);
	if (CPU_COUNT(&mine) < 2)
		cr_skip_test("one usable CPU: pinning to 1 of 1 restricts "
			     "nothing that could be checked");
	if (stg_uring_probe(why, sizeof(why)) < 0)
		cr_skip_test("%s", why);
	dir = fr_test_tmpdir();
	for (int i = 0; i < a.nfiles; i++) {
		char p[300];

		snprintf(p, sizeof(p), "%s/f%d", dir, i);
		write_file(p, 256 * 1024);
	}
	a.dir = dir;
	a.wide = mine;
	cr_assert_eq(ldr_cpus_choose(1, NULL, &choice), 0, "%s", choice.how);
	stg_cpulist_format(&choice.set, a.want, sizeof(a.want));
	/* a CPU other than the lowest shows more than the default would */
	if (CPU_ISSET(0, &choice.set) && CPU_COUNT(&mine) > 1) {
		int last = -1;

		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &mine))
				last = c;
		CPU_ZERO(&choice.set);
		CPU_SET(last, &choice.set);
		stg_cpulist_format(&choice.set, a.want, sizeof(a.want));
	}
	{
		const struct ldr_child_opts o = { .cpus = &choice.set };

		cr_assert_eq(ldr_child_run(&o, read_files_and_scan, &a, &s,
					   sizeof(s), &rep), 0, "%s", rep.why);
	}
	cr_assert_eq(rep.fn_result, 0, "child set-up: %s",
		     strerror(-rep.fn_result));
	cr_assert_str_eq(s.backend, "uring");
	cr_assert_eq(s.reads_ok, a.nfiles);
	cr_assert_geq(s.iou_wrk, 1, "force_async made no io-wq worker");
	cr_assert_eq(s.mismatched, 0, "%d of %d tasks not on CPU %s, e.g. %s",
		     s.mismatched, s.tasks, a.want, s.example);
	cr_log_info("pinned to %s: %d tasks, %d iou-wrk, all on the mask; "
		    "control (a worker started before re-pinning): %d of %d "
		    "workers off the mask (%s)",
		    a.want, s.tasks, s.iou_wrk, s.raw_wrk_mismatched,
		    s.raw_wrk, s.example2);
	fr_test_rmtree(dir);
}

/* ---- CPU time outside the mask --------------------------------------- */

struct spin_out {
	double cpu_s;           /* the child's own CPU time */
};

static int spin_for(void *arg, volatile int *stop, void *out, size_t len)
{
	struct spin_out *o = out;
	double want = *(double *)arg, t0 = cpu_now(CLOCK_PROCESS_CPUTIME_ID);
	volatile unsigned long x = 0;

	(void)len;
	while (!*stop && cpu_now(CLOCK_PROCESS_CPUTIME_ID) - t0 < want)
		x++;
	o->cpu_s = cpu_now(CLOCK_PROCESS_CPUTIME_ID) - t0;
	return 0;
}

static bool two_cpus(int *a, int *b)
{
	cpu_set_t mine;

	*a = *b = -1;
	sched_getaffinity(0, sizeof(mine), &mine);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &mine))
			continue;
		if (*a < 0)
			*a = c;
		else if (*b < 0)
			*b = c;
	}
	return *b >= 0;
}

FR_TEST(cpu_outside, busy_sibling_counts_and_the_childs_own_work_does_not)
{
	struct ldr_cpu_times t0, t1;
	struct ldr_child_report rep;
	struct spin_out o = { 0 };
	struct rusage ru;
	cpu_set_t mask, other;
	double want = 1.0, sib_cpu, all;
	pid_t sib;
	int a, b, st;

	if (!two_cpus(&a, &b))
		cr_skip_test("one usable CPU: nothing lies outside the mask");
	stg_sysroot_set("/");
	CPU_ZERO(&mask);
	CPU_SET(a, &mask);
	CPU_ZERO(&other);
	CPU_SET(b, &other);

	/* a busy sibling on the other CPU for longer than the child runs */
	sib = fork();
	cr_assert_geq(sib, 0);
	if (sib == 0) {
		double t = cpu_now(CLOCK_MONOTONIC);
		volatile unsigned long x = 0;

		sched_setaffinity(0, sizeof(other), &other);
		while (cpu_now(CLOCK_MONOTONIC) - t < 30)
			x++;
		_exit(0);
	}
	{
		const struct ldr_child_opts opt = { .cpus = &mask };

		cr_assert_eq(ldr_cpu_times_read(&t0), 0);
		cr_assert_eq(ldr_child_run(&opt, spin_for, &want, &o,
					   sizeof(o), &rep), 0, "%s", rep.why);
		cr_assert_eq(ldr_cpu_times_read(&t1), 0);
	}
	/* the sibling's CPU time while the child ran: stop it now and take
	 * its whole CPU time, less what it used before (it started spinning
	 * at once, so bound it by the child's wall time instead) */
	kill(sib, SIGKILL);
	cr_assert_eq(wait4(sib, &st, 0, &ru), sib);
	sib_cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
		  (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
	if (sib_cpu > rep.wall_s)
		sib_cpu = rep.wall_s;
	all = ldr_cpu_times_busy_outside(&t0, &t1, NULL);
	cr_log_info("child on CPU %d spun %.2f s CPU in %.2f s; sibling on "
		    "CPU %d: %.2f s CPU; outside the mask: %.2f s; all CPUs: "
		    "%.2f s", a, o.cpu_s, rep.wall_s, b, sib_cpu,
		    rep.cpu_outside_mask_s, all);
	cr_assert_geq(o.cpu_s, 0.9 * want);
	/* the sibling's time is in the figure (ticks are sampled: 80 %);
	 * a loaded machine only adds to it */
	cr_assert_geq(rep.cpu_outside_mask_s, 0.8 * sib_cpu - 0.05,
		      "outside %.2f s, sibling %.2f s", rep.cpu_outside_mask_s,
		      sib_cpu);
	/* the child's own CPU time is not: outside <= all - inside */
	cr_assert_leq(rep.cpu_outside_mask_s, all - 0.8 * o.cpu_s + 0.05,
		      "outside %.2f s, all %.2f s, child %.2f s",
		      rep.cpu_outside_mask_s, all, o.cpu_s);
}

/* ---- ldr_run in the pinned child ------------------------------------- */

static atomic_int interrupts_sent;

/* A transform that interrupts the parent once, from inside the run. */
static int interrupt_parent_once(void *ctx, const void *data, size_t len,
				 uint64_t seed, uint64_t epoch, uint64_t id,
				 void *out, struct ldr_step_times *st)
{
	if (atomic_fetch_add(&interrupts_sent, 1) == 0)
		kill(getppid(), SIGINT);
	return ldr_transform_noop.apply(ctx, data, len, seed, epoch, id, out,
					st);
}

FR_TEST(child, run_pinned_stops_on_sigint_with_a_partial_result)
{
	static char *dir;
	static struct ldr_result *res;
	struct stg_dataset *ds;
	struct ldr_config cfg = { 0 };
	struct ldr_cpu_choice choice;
	struct ldr_child_report rep;
	volatile int stop = 0;
	char list[4096];
	FILE *f;
	int err;

	dir = fr_test_tmpdir();
	res = calloc(1, sizeof(*res));
	cr_assert_not_null(res);
	snprintf(list, sizeof(list), "%s/list", dir);
	f = fopen(list, "w");
	cr_assert_not_null(f);
	for (int i = 0; i < 1000; i++)
		fprintf(f, "4096\tf%d\n", i);
	fclose(f);
	cr_assert_eq(stg_dataset_load_list(list, NULL, NULL, &ds), 0);
	stg_sysroot_set("/");
	cr_assert_eq(ldr_cpus_choose(1, NULL, &choice), 0, "%s", choice.how);

	cfg.ds = ds;
	cfg.reader.backend = STG_BACKEND_NULL;
	cfg.workers = 1;
	cfg.batch = 16;
	cfg.transform = ldr_transform_noop;
	cfg.transform.apply = interrupt_parent_once;
	cfg.world = 1;
	cfg.warmup_s = -1;
	cfg.stop = &stop;       /* no epoch, duration or sample limit */
	err = ldr_run_pinned(&cfg, &choice.set, NULL, res, &rep);
	cr_assert_eq(rep.signal, SIGINT);
	cr_assert_eq(stop, SIGINT, "the caller's stop flag was not set");
	if (err == -ECHILD && strstr(rep.why, "killed by signal 9")) {
		/* a busy machine: the child took longer than LDR_CHILD_STOP_S
		 * to send its result after the signal and was killed, as
		 * designed; what it published stands in, marked partial */
		cr_log_warn("the child was killed LDR_CHILD_STOP_S after the "
			    "signal: %s", rep.why);
		cr_assert(res->window_partial || !res->samples,
			  "a killed child's totals not marked partial");
		goto out;
	}
	cr_assert_eq(err, 0, "%s", rep.why);
	cr_assert(!res->window_partial);
	cr_assert(res->stopped_by_signal, "the run did not say it was "
		  "stopped");
	cr_assert_geq(rep.cpu_outside_mask_s, 0);
	cr_log_info("stopped after %llu samples, %.2f s outside the mask",
		    (unsigned long long)res->samples, rep.cpu_outside_mask_s);
out:
	stg_dataset_destroy(ds);
	free(res);
	fr_test_rmtree(dir);
}

/* A child left to the kernel after its SIGKILL: a result it had sent
 * whole stands (only its exit hangs); a stall's or a missing result's
 * run failed. */
FR_TEST(child, held_child_keeps_a_result_sent_whole_but_not_a_stall)
{
	struct ldr_child_report rep;

	memset(&rep, 0, sizeof(rep));
	rep.held_pid = 4242;
	rep.got_out = true;
	cr_expect_eq(ldr_child_held_err(0, &rep), 0);
	/* an earlier failure is kept */
	cr_expect_eq(ldr_child_held_err(-EPROTO, &rep), -EPROTO);
	rep.stalled = true;
	cr_expect_eq(ldr_child_held_err(0, &rep), -ETIMEDOUT);
	rep.stalled = false;
	rep.got_out = false;
	cr_expect_eq(ldr_child_held_err(0, &rep), -EINTR);
	cr_expect_eq(ldr_child_held_err(-ECHILD, &rep), -ECHILD);
}
