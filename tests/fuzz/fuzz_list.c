/*
 * fuzz_list.c - libFuzzer target for the dataset list-file parser
 * (stg_dataset_load_list). The input is the list file, written to a memfd;
 * entries are resolved against a small folder made once under /var/tmp
 * (a file, a file in a subfolder, a folder, a fifo, a dangling link).
 * Checks that every listed entry reads back as a path of the length the
 * dataset reports and that the sizes add up.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64] = "/var/tmp/feedrate-fuzz-list-XXXXXX";
static char list_path[64];
static int list_fd = -1;

static void fz_put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

static void fz_cleanup(void)
{
	static const char *const rel[] = { "a.jpg", "sub/b.jpg", "fifo",
					   "dangling", "sub", "" };
	char p[PATH_MAX];

	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, rel[i]);
		if (remove(p) && errno != ENOENT)
			continue;
	}
}

static void fz_setup(void)
{
	char p[PATH_MAX];

	if (!mkdtemp(root))
		abort();
	atexit(fz_cleanup);
	fz_put("a.jpg", "0123456789");
	snprintf(p, sizeof(p), "%s/sub", root);
	if (mkdir(p, 0755))
		abort();
	fz_put("sub/b.jpg", "abc");
	snprintf(p, sizeof(p), "%s/fifo", root);
	if (mkfifo(p, 0644))
		abort();
	snprintf(p, sizeof(p), "%s/dangling", root);
	if (symlink("nowhere", p))
		abort();
	list_fd = memfd_create("fuzz-list", MFD_CLOEXEC);
	if (list_fd < 0)
		abort();
	snprintf(list_path, sizeof(list_path), "/proc/self/fd/%d", list_fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stg_dataset *ds;
	uint64_t total = 0;
	char path[PATH_MAX + 64];
	int err;

	if (list_fd < 0)
		fz_setup();
	if (ftruncate(list_fd, 0) ||
	    (size && pwrite(list_fd, data, size, 0) != (ssize_t)size))
		abort();
	err = stg_dataset_load_list(list_path, root, NULL, &ds);
	if (err) {
		if (err != -ENOMEM)
			abort();    /* the list file and root are fine */
		return 0;
	}
	for (size_t id = 0; id < stg_dataset_count(ds); id++) {
		size_t len = 0;
		const char *rel = stg_dataset_relpath(ds, id, &len);
		int64_t sz = stg_dataset_size(ds, id);

		if (!rel || strlen(rel) != len || !len || len >= PATH_MAX)
			abort();
		if (sz >= 0)
			total += (uint64_t)sz;
		if (stg_dataset_path(ds, id, path, sizeof(path)) < 0)
			abort();
	}
	if (stg_dataset_relpath(ds, stg_dataset_count(ds), NULL))
		abort();
	if (total != stg_dataset_total_bytes(ds))
		abort();
	for (int k = 0; k < STG_DS_ERR_COUNT; k++) {
		const char *ex = stg_dataset_error_example(ds, (enum stg_ds_err)k);

		if (!stg_dataset_errors(ds, (enum stg_ds_err)k) != !ex)
			abort();
		if (ex)
			(void)strlen(ex);
	}
	stg_dataset_destroy(ds);
	return 0;
}
