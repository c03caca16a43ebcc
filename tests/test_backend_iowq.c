/*
 * test_backend_iowq.c - the kernel's io-wq workers of a pinned process stay
 * inside its CPU set. sched_setaffinity() moves one thread; a uring reader
 * pins its ring's workers (io_uring_register_iowq_aff). IOSQE_ASYNC sends
 * every read through an io-wq worker so that there are workers to check.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "test_backend_util.h"

struct iowq_out {
	int old_tids[64];            /* tasks that existed before the pin */
	int nold;
	int old_outside;             /* of which still outside CPU 0 */
	int workers;                 /* iou-wrk-* tasks seen */
	int outside;                 /* tasks whose mask is not "0" */
	char bad[200];               /* one offender: comm and list */
	char skip[200];
};

/* Scan /proc/self/task: every task must have Cpus_allowed_list "0". */
static void scan_tasks(struct iowq_out *o)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[300], comm[64] = "", line[256], list[128] = "";
		FILE *f;

		bool old = false;

		if (e->d_name[0] == '.')
			continue;
		for (int i = 0; i < o->nold; i++)
			if (o->old_tids[i] == atoi(e->d_name))
				old = true;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
		snprintf(path, sizeof(path), "/proc/self/task/%s/status",
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "Cpus_allowed_list:", 18)) {
				sscanf(line + 18, " %127s", list);
				break;
			}
		fclose(f);
		if (!strncmp(comm, "iou-wrk-", 8))
			o->workers++;
		if (!strncmp(comm, "feedrate-psync", 14))
			o->workers++;
		if (old && strncmp(comm, "feedrate-psync", 14)) {
			/* io-wq workers started before the pin */
			o->old_outside += strcmp(list, "0") != 0;
		} else if (strcmp(list, "0")) {
			o->outside++;
			snprintf(o->bad, sizeof(o->bad), "%s: %s", comm, list);
		}
	}
	closedir(d);
}

FR_TEST(backend_iowq, io_wq_workers_of_a_pinned_process_stay_in_its_cpus)
{
	char *dir = fr_test_tmpdir();
	struct tb_file f[8];
	struct iowq_out o;
	int pipefd[2], status;
	pid_t pid;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fr_test_rmtree(dir);
		cr_skip_test("one CPU: nothing to stay out of");
	}
	if (!tb_backend_usable(STG_BACKEND_URING)) {
		fr_test_rmtree(dir);
		cr_skip_test("io_uring unusable here");
	}
	for (int i = 0; i < 8; i++)
		tb_make_file(dir, &f[i], (size_t)i, 256 * 1024, (uint32_t)i + 3);
	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct stg_reader_config cfg = {
			.backend = STG_BACKEND_URING,
			.depth = 16,
			.block_size = 32 * 1024,
			.force_async = true,
		};
		struct stg_completion c[16];
		struct stg_reader *r;
		cpu_set_t set;
		int done = 0, next = 0;

		memset(&o, 0, sizeof(o));
		close(pipefd[0]);
		CPU_ZERO(&set);
		CPU_SET(0, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			snprintf(o.skip, sizeof(o.skip), "cannot pin: %s",
				 strerror(errno));
		} else if (stg_reader_create(&cfg, &r)) {
			snprintf(o.skip, sizeof(o.skip), "no uring reader");
		} else {
			while (done < 8) {
				int n;

				while (next < 8 && !stg_reader_submit(r, &f[next].req))
					next++;
				n = stg_reader_reap(r, c, 16, 5000000000ll);
				if (n <= 0)
					break;
				for (int i = 0; i < n; i++)
					stg_buf_release(c[i].buf);
				done += n;
			}
			/* workers idle a while before they exit: look now */
			scan_tasks(&o);
			stg_reader_destroy(r);
		}
		if (write(pipefd[1], &o, sizeof(o)) != (ssize_t)sizeof(o))
			_exit(2);
		_exit(0);
	}
	close(pipefd[1]);
	cr_assert_eq(read(pipefd[0], &o, sizeof(o)), (ssize_t)sizeof(o));
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	fr_test_rmtree(dir);
	if (o.skip[0])
		cr_skip_test("%s", o.skip);
	cr_assert_gt(o.workers, 0, "IOSQE_ASYNC reads made no iou-wrk worker");
	cr_expect_eq(o.outside, 0, "a task runs outside CPU 0: %s", o.bad);
}

/* Remember every task that exists now. */
static void note_tids(struct iowq_out *o)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && o->nold < 64)
			o->old_tids[o->nold++] = atoi(e->d_name);
	if (d)
		closedir(d);
}

/* Read F through R until all 8 are back. */
static void read_eight(struct stg_reader *r, struct tb_file *f)
{
	struct stg_completion c[16];
	int done = 0, next = 0;

	while (done < 8) {
		int n;

		while (next < 8 && !stg_reader_submit(r, &f[next].req))
			next++;
		n = stg_reader_reap(r, c, 16, 5000000000ll);
		if (n <= 0)
			break;
		for (int i = 0; i < n; i++)
			stg_buf_release(c[i].buf);
		done += n;
	}
}

/*
 * Threads started before the pin keep their CPUs (sched_setaffinity moves
 * the calling thread only). stg_reader_pin_workers moves psync's pool
 * threads, and makes every io-wq worker the kernel starts later stay in
 * the set. io-wq workers that already run keep their CPUs on Linux 6.18
 * (io_uring_register_iowq_aff only sets the mask new workers get): that is
 * logged, not failed, and is why readers are created after the pin.
 */
FR_TEST(backend_iowq, repin_moves_workers_started_before_the_pin)
{
	const enum stg_backend_id ids[] = { STG_BACKEND_URING, STG_BACKEND_PSYNC };
	char *dir = fr_test_tmpdir();
	struct tb_file f[8];

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fr_test_rmtree(dir);
		cr_skip_test("one CPU: nothing to stay out of");
	}
	for (int i = 0; i < 8; i++)
		tb_make_file(dir, &f[i], (size_t)i, 256 * 1024, (uint32_t)i + 3);
	for (int b = 0; b < 2; b++) {
		struct iowq_out o;
		int pipefd[2], status;
		pid_t pid;

		if (!tb_backend_usable(ids[b]))
			continue;
		cr_assert_eq(pipe(pipefd), 0);
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			struct stg_reader_config cfg = {
				.backend = ids[b],
				.depth = 16,
				.block_size = 32 * 1024,
				.force_async = true,
			};
			struct stg_reader *r;
			cpu_set_t set;

			memset(&o, 0, sizeof(o));
			close(pipefd[0]);
			if (stg_reader_create(&cfg, &r)) {
				snprintf(o.skip, sizeof(o.skip), "no reader");
			} else {
				read_eight(r, f);       /* workers on all CPUs */
				note_tids(&o);
				CPU_ZERO(&set);
				CPU_SET(0, &set);
				if (sched_setaffinity(0, sizeof(set), &set))
					snprintf(o.skip, sizeof(o.skip),
						 "cannot pin: %s", strerror(errno));
				else if (stg_reader_pin_workers(r))
					snprintf(o.bad, sizeof(o.bad),
						 "stg_reader_pin_workers failed");
				read_eight(r, f);
				scan_tasks(&o);
				stg_reader_destroy(r);
			}
			if (write(pipefd[1], &o, sizeof(o)) != (ssize_t)sizeof(o))
				_exit(2);
			_exit(0);
		}
		close(pipefd[1]);
		cr_assert_eq(read(pipefd[0], &o, sizeof(o)), (ssize_t)sizeof(o));
		close(pipefd[0]);
		waitpid(pid, &status, 0);
		if (o.skip[0]) {
			cr_log_warn("%s: %s", stg_backend_name(ids[b]), o.skip);
			continue;
		}
		cr_expect_gt(o.workers, 0, "%s: no worker seen",
			     stg_backend_name(ids[b]));
		if (o.old_outside)
			cr_log_info("%s: %d io-wq workers started before the "
				    "pin kept their CPUs", stg_backend_name(ids[b]),
				    o.old_outside);
		cr_expect_eq(o.outside, 0, "%s: a task runs outside CPU 0: %s",
			     stg_backend_name(ids[b]), o.bad);
	}
	fr_test_rmtree(dir);
}
