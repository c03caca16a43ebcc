/*
 * fixture_testlib.h - the shell side of tests/storage_fixtures/fixtures.sh
 * for the slow tests that drive it (test_ckpt_slow.c, test_ram_axis_slow.c):
 * the run's state folder, a shell command with its output, and one
 * KEY=VALUE of the script's output. Header-only: each test file gets its
 * own static copies. Criterion asserts; test threads only.
 */
#ifndef FEEDRATE_FIXTURE_TESTLIB_H
#define FEEDRATE_FIXTURE_TESTLIB_H

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

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

#endif /* FEEDRATE_FIXTURE_TESTLIB_H */
