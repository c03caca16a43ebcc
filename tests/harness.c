/*
 * harness.c - helpers shared by the Criterion tests.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
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
