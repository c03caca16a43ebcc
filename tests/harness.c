/*
 * harness.c - helpers shared by the Criterion tests.
 */
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#if defined(__SANITIZE_ADDRESS__)
#define FR_HAVE_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FR_HAVE_LSAN 1
#endif
#endif

#ifdef FR_HAVE_LSAN
#include <sanitizer/lsan_interface.h>
#endif

void fr_test_leak_check(void)
{
#ifdef FR_HAVE_LSAN
	if (__lsan_do_recoverable_leak_check())
		cr_assert_fail("LeakSanitizer found leaks (report above)");
#endif
}

#define TMPFS_MAGIC_ 0x01021994

char *fr_test_tmpdir(void)
{
	/* Prefer a disk: eviction and O_DIRECT mean nothing on tmpfs. */
	static const char *const bases[] = { "/var/tmp", ".", "/tmp" };

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		struct statfs sf;
		char *dir;

		if (statfs(bases[i], &sf) || sf.f_type == TMPFS_MAGIC_)
			continue;
		if (asprintf(&dir, "%s/feedrate-test.XXXXXX", bases[i]) < 0)
			return NULL;
		if (mkdtemp(dir))
			return dir;
		free(dir);
	}
	cr_assert_fail("no disk-backed folder for temporary files");
	return NULL;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		chmod(path, 0700), rmdir(path);
	else
		unlink(path);
	return 0;
}

void fr_test_rmtree(char *dir)
{
	if (!dir)
		return;
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	rmdir(dir);
	free(dir);
}

const char *fr_test_bin(void)
{
	const char *b = getenv("FEEDRATE_BIN");

	if (!b || !*b)
		cr_skip_test("FEEDRATE_BIN is not set (make test sets it)");
	return b;
}

pid_t fr_test_spawn(const char *dir, char *const argv[])
{
	char out[4096], err[4096];
	pid_t pid;

	snprintf(out, sizeof(out), "%s/stdout", dir);
	snprintf(err, sizeof(err), "%s/stderr", dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0)
			_exit(127);
		dup2(o, 1);
		dup2(e, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

int fr_test_wait(pid_t pid, double limit_s)
{
	struct timespec ts = { 0, 50000000 };
	int status;

	for (double t = 0; t < limit_s; t += 0.05) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			cr_assert(WIFEXITED(status), "died by signal %d",
				  WTERMSIG(status));
			return WEXITSTATUS(status);
		}
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	cr_assert_fail("feedrate did not exit within %.0f s", limit_s);
	return -1;
}

int fr_test_run(const char *dir, char *const argv[], double limit_s)
{
	return fr_test_wait(fr_test_spawn(dir, argv), limit_s);
}
