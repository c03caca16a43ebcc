/*
 * fixture_testlib.h - the shell side of tests/storage_fixtures/fixtures.sh
 * for the slow tests that drive it (test_ckpt_slow.c, test_ram_axis_slow.c,
 * test_stall_slow.c, test_cluster_mpi_slow.c): the run's state folder, a
 * shell command with its output, one KEY=VALUE of the script's output,
 * and the processes a command leaves behind when its storage stalls.
 * Header-only: each test file gets its own static copies. Criterion
 * asserts; test threads only.
 */
#ifndef FEEDRATE_FIXTURE_TESTLIB_H
#define FEEDRATE_FIXTURE_TESTLIB_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <jansson.h>

#define FIXTURE_SCRIPT "tests/storage_fixtures/fixtures.sh"
#define FIXTURE_STATE_BASE "/var/tmp/feedrate-fixtures"

/*
 * The state folder of this test run (its runner is the test process's
 * parent), exported as FEEDRATE_FIXTURE_DIR so that every fixtures.sh
 * call finds it; an exported one wins.
 */
static inline const char *fixture_state(void)
{
	static char buf[PATH_MAX];
	const char *s = getenv("FEEDRATE_FIXTURE_DIR");

	if (s && *s)
		return s;
	snprintf(buf, sizeof(buf), "%s-run%d", FIXTURE_STATE_BASE,
		 (int)getppid());
	setenv("FEEDRATE_FIXTURE_DIR", buf, 1);
	return buf;
}

/*
 * The PID whose exit ends the fixtures a test starts: the test runner (the
 * test process's parent), or $FEEDRATE_FIXTURE_OWNER, which
 * tests/run_tests.sh sets to its own PID so that its runners one after
 * the other share one fixture set (it stops it at its end).
 */
static inline int fixture_owner(void)
{
	const char *o = getenv("FEEDRATE_FIXTURE_OWNER");

	return o && atoi(o) > 0 ? atoi(o) : (int)getppid();
}

/* A shell command's exit status (-1: it did not exit); its stdout and
 * stderr together into *OUT (malloc'd; may be NULL). */
__attribute__((format(printf, 2, 3)))
static inline int fixture_sh(char **out, const char *fmt, ...)
{
	char cmd[8192], *text = NULL;
	size_t len = 0;
	FILE *p, *m;
	va_list ap;
	int c, st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	m = open_memstream(&text, &len);
	while ((c = fgetc(p)) != EOF)
		fputc(c, m);
	fclose(m);
	st = pclose(p);
	if (out)
		*out = text;
	else
		free(text);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The value of KEY=VALUE in TEXT (up to the line's end) into BUF; ""
 * when KEY is not there. */
static inline void fixture_env(const char *text, const char *key, char *buf,
			       size_t cap)
{
	const char *p = strstr(text, key);

	buf[0] = '\0';
	if (p && p[strlen(key)] == '=')
		snprintf(buf, cap, "%.*s", (int)strcspn(p + strlen(key) + 1,
						       "\n"),
			 p + strlen(key) + 1);
}


/* Skip the test with fixtures.sh's reason when its exit status RC is 77
 * (OUT: its output, freed then). */
static inline void fixture_skip_on_77(int rc, char *out)
{
	const char *why;
	char reason[512];

	if (rc != 77)
		return;
	why = strstr(out, "skip: ");
	snprintf(reason, sizeof(reason), "%s", why ? why + 6 : out);
	reason[strcspn(reason, "\n")] = '\0';
	free(out);
	cr_skip_test("%s", reason);
}

/*
 * Start fixture KIND for this test run (owned by the runner: it stops it),
 * holding the run's test lock in *LOCK_FD (the fixtures are shared by
 * every suite: one test at a time; the caller closes it), taken only once
 * the machine is known to have what KIND needs, so that a skip leaves no
 * lock file. Returns the script's output (KEY=VALUE lines, malloc'd), or
 * skips the test with the script's reason.
 */
__attribute__((noinline, unused))
static char *fixture_start_locked(const char *kind, int *lock_fd)
{
	char path[PATH_MAX + 16], *check, *out = NULL;
	const char *bin = getenv("FEEDRATE_BIN");
	int rc;

	if (access(FIXTURE_SCRIPT, X_OK))
		cr_skip_test("%s not found: run from the repository root",
			     FIXTURE_SCRIPT);
	rc = fixture_sh(&check, "%s check %s", FIXTURE_SCRIPT, kind);
	fixture_skip_on_77(rc, check);
	free(check);
	if (*lock_fd < 0) {
		snprintf(path, sizeof(path), "%s.testlock", fixture_state());
		*lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (*lock_fd >= 0)
			while (flock(*lock_fd, LOCK_EX) < 0 && errno == EINTR)
				;
	}
	rc = fixture_sh(&out, "FEEDRATE_BIN='%s' %s start --owner %d %s",
			bin ? bin : "", FIXTURE_SCRIPT, fixture_owner(), kind);
	fixture_skip_on_77(rc, out);
	cr_assert_eq(rc, 0, "fixtures.sh start %s failed (%d):\n%s", kind, rc,
		     out);
	return out;
}


/* `feedrate FMT --json DIR/NAME.json PATH` (FEEDRATE_BIN), which must
 * exit 0; its JSON report. */
__attribute__((unused))
static json_t *fixture_json(const char *dir, const char *name,
			    const char *fmt, const char *path)
{
	char js[PATH_MAX], *out;
	json_error_t jerr;
	json_t *j;
	int rc;

	snprintf(js, sizeof(js), "%s/%s.json", dir, name);
	rc = fixture_sh(&out, "'%s' %s --json '%s' '%s'",
			getenv("FEEDRATE_BIN"), fmt, js, path);
	cr_assert_eq(rc, 0, "feedrate %s failed (%d):\n%s", fmt, rc, out);
	free(out);
	j = json_load_file(js, 0, &jerr);
	cr_assert_not_null(j, "bad JSON in %s: %s", js, jerr.text);
	return j;
}

/* PID's state letter from /proc (0: gone) and, WCHAN non-NULL, its wait
 * channel (what a thread held by the kernel waits in). */
__attribute__((unused))
static char fixture_proc_state(pid_t pid, char *wchan, size_t len)
{
	char path[64], buf[512], *p;
	char st = 0;
	FILE *f;

	if (wchan)
		wchan[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		st = p[2];
	fclose(f);
	if (wchan) {
		snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
		f = fopen(path, "re");
		if (f) {
			wchan[fread(wchan, 1, len - 1, f)] = '\0';
			fclose(f);
		}
	}
	return st;
}

/* Whether PID is on its way out (PF_EXITING in /proc/PID/stat's flags):
 * a killed process whose exit waits in the kernel (an io_uring's reads
 * cancelled on storage that stopped answering) may show R meanwhile. */
__attribute__((unused))
static bool fixture_proc_exiting(pid_t pid)
{
	char path[64], buf[512], *p;
	unsigned flags = 0;
	bool exiting = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	/* after the name: state ppid pgrp session tty_nr tpgid flags */
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %u", &flags) == 1)
		exiting = flags & 0x4;          /* PF_EXITING */
	fclose(f);
	return exiting;
}

/* The pids whose command line holds MARK (a test's report path: the
 * processes of one command) into OUT, at most MAX; the fixture script's
 * own left out. */
__attribute__((unused))
static int fixture_procs_with(const char *mark, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while (n < max && (e = readdir(d))) {
		char path[300], buf[8192];
		size_t len;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		for (size_t i = 0; i < len; i++)
			if (!buf[i])
				buf[i] = ' ';
		buf[len] = '\0';
		if (strstr(buf, mark) && !strstr(buf, "fixtures.sh"))
			out[n++] = (pid_t)atoi(e->d_name);
	}
	closedir(d);
	return n;
}

/*
 * What is left of a command whose processes' command lines hold MARK:
 * each named on stdout as "[stall]   left to the kernel: ...", and each
 * must be held by the kernel (D, Z, or in its exit) or gone. One still
 * running gets FIXTURE_LEFTOVER_S first: a rank's supervisor reaping its
 * command after mpirun has ended is on its way out, not left running.
 */
#define FIXTURE_LEFTOVER_S 5
__attribute__((unused))
static void fixture_leftovers_expect(const char *mark)
{
	pid_t left[32];
	int n = fixture_procs_with(mark, left, 32);

	for (int i = 0; i < n; i++) {
		const struct timespec tick = { 0, 100 * 1000 * 1000 };
		char wchan[128];
		char s = fixture_proc_state(left[i], wchan, sizeof(wchan));
		bool exiting = fixture_proc_exiting(left[i]);

		for (int t = 0; t < FIXTURE_LEFTOVER_S * 10 && s && s != 'D' &&
		     s != 'Z' && !exiting; t++) {
			nanosleep(&tick, NULL);
			s = fixture_proc_state(left[i], wchan, sizeof(wchan));
			exiting = fixture_proc_exiting(left[i]);
		}

		printf("[stall]   left to the kernel: pid %d, state %c%s, "
		       "waiting in %s\n", (int)left[i], s ? s : '-',
		       exiting ? " (exiting)" : "", wchan[0] ? wchan : "?");
		cr_expect(s == 0 || s == 'D' || s == 'Z' || exiting, "pid %d "
			  "of the command is left running (state %c, %s)",
			  (int)left[i], s, wchan);
	}
	fflush(stdout);
}

/* Once the storage answers again: MARK's processes get 30 s to end, and
 * any still there is killed. */
__attribute__((unused))
static void fixture_leftovers_reap(const char *mark)
{
	pid_t left[32];
	int n;

	for (int k = 0; k < 300 && fixture_procs_with(mark, left, 32); k++) {
		const struct timespec ms100 = { 0, 100000000L };

		nanosleep(&ms100, NULL);
	}
	n = fixture_procs_with(mark, left, 32);
	for (int i = 0; i < n; i++)
		kill(left[i], SIGKILL);
}

/* fixture_leftovers_expect, then STOPPED (a stopped server, 0 none)
 * resumed and fixture_leftovers_reap. */
__attribute__((unused))
static void fixture_leftovers_check(const char *mark, pid_t stopped)
{
	fixture_leftovers_expect(mark);
	if (stopped > 0)
		kill(stopped, SIGCONT);
	fixture_leftovers_reap(mark);
}

#endif /* FEEDRATE_FIXTURE_TESTLIB_H */
