/*
 * fixture_testlib.h - the shell side of tests/storage_fixtures/fixtures.sh
 * for the slow tests that drive it (test_ckpt_slow.c, test_ram_axis_slow.c):
 * the run's state folder, a shell command with its output, and one
 * KEY=VALUE of the script's output. Header-only: each test file gets its
 * own static copies. Criterion asserts; test threads only.
 */
#ifndef FEEDRATE_FIXTURE_TESTLIB_H
#define FEEDRATE_FIXTURE_TESTLIB_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
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

#endif /* FEEDRATE_FIXTURE_TESTLIB_H */
