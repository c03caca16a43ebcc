/*
 * harness.h - what every Criterion test file includes.
 *
 * FR_TEST(suite, name) declares a test like Test(), and runs LeakSanitizer
 * in the test's own process at the end of its body when the binary is built
 * with SANITIZE=address: Criterion would otherwise count a test whose
 * process reports a leak at exit as passing (a failed assertion in a .fini
 * does not count either). Memory a test frees in its .fini must stay
 * reachable (a static pointer) until then.
 */
#ifndef FEEDRATE_TEST_HARNESS_H
#define FEEDRATE_TEST_HARNESS_H

#include <sys/types.h>

#include <criterion/criterion.h>

/* Fails the current test when LeakSanitizer finds unreachable memory. */
void fr_test_leak_check(void);

#define FR_TEST(suite, name, ...) \
	static void suite##__##name##__body(void); \
	Test(suite, name, ##__VA_ARGS__) \
	{ \
		suite##__##name##__body(); \
		fr_test_leak_check(); \
	} \
	static void suite##__##name##__body(void)

/*
 * A fresh folder on a disk-backed filesystem (not tmpfs), for files a test
 * writes. Returns a malloc'd path; fr_test_rmtree() removes it and frees it.
 */
char *fr_test_tmpdir(void);
void fr_test_rmtree(char *dir);

/*
 * End-to-end tests run the real binary: $FEEDRATE_BIN, which `make test`
 * sets. fr_test_bin() skips the test (saying why) when it is unset.
 */
const char *fr_test_bin(void);

/* Start ARGV (argv[0] = the binary) with stdout and stderr going to
 * DIR/stdout and DIR/stderr. Returns the pid. */
pid_t fr_test_spawn(const char *dir, char *const argv[]);

/* The exit code of PID; kills it and fails the test after LIMIT_S, and
 * fails it when PID dies by a signal. */
int fr_test_wait(pid_t pid, double limit_s);

/* fr_test_spawn then fr_test_wait. */
int fr_test_run(const char *dir, char *const argv[], double limit_s);

#endif /* FEEDRATE_TEST_HARNESS_H */
