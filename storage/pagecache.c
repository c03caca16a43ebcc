/*
 * pagecache.c - evict, warm and measure the page cache of dataset files,
 * and check that each of those claims holds on the filesystem at hand.
 *
 * Residency is one cachestat(2) call where the kernel has it and allows
 * it, else mincore() over a read-only shared mapping, taken in windows so
 * that a 100 GB file needs no 25 MB vector. Neither faults anything in, so
 * measuring does not change what it measures - except on FUSE without
 * kernel_cache, where the open() before it drops the cache;
 * stg_cache_probe() finds that out by comparing residency on the warming
 * descriptor with residency after a re-open. Once cachestat is missing or
 * refused (old kernel, seccomp filter), the process stays on mincore.
 *
 * Nothing here is decided by filesystem type: eviction and warmth are
 * checked on a file by stg_cache_probe, and O_DIRECT by opening one
 * (measure/), on every filesystem. Network filesystems differ from a
 * disk only in what the checks find. The Linux NFS client (nfs, nfs4)
 * keeps file data in the client's page cache, so POSIX_FADV_DONTNEED
 * drops its clean pages as on a disk - the server's own cache is not
 * touched (a filer's RAM, or on a loopback fixture this machine's); with
 * close-to-open consistency an open() revalidates the file's attributes
 * with the server (GETATTR/ACCESS) and keeps the cached data while the
 * file is unchanged, so a warm file stays warm across opens, unlike FUSE
 * without kernel_cache (nfs(5), "Close-to-open cache consistency", from
 * nfs-utils 2.6.2); O_DIRECT is honoured, reads going to the server
 * without entering the page cache (fs/nfs/direct.c, "uncached I/O";
 * nfs(5): "open their files with the O_DIRECT flag to disable data
 * caching entirely"). A mount with -o fsc (FS-Cache) keeps a second
 * cache on local disk that no fadvise reaches; the probe cannot see it.
 *
 * DESIGN (threads). Any thread may call these functions at once: the
 * preparation's warming and verifying workers (cacheprep.c, one per CPU
 * of the point's set) and the engine's readers when they probe residency
 * (read_stage.c). Each call works on its own descriptor and mapping; the
 * only state shared between calls is process-wide and written without a
 * lock:
 *   - residency_method: which call measures residency (cachestat or
 *     mincore). A relaxed _Atomic int: the first measurement stores what it
 *     found, a refusal of cachestat (ENOSYS, EPERM from seccomp) stores
 *     mincore, and a thread that reads a stale value only makes one call
 *     that fails over to mincore itself: every value is a valid choice,
 *     so no ordering with other memory is needed;
 *   - page_size()'s cache: a relaxed _Atomic size_t; every writer stores
 *     the same sysconf value.
 * Nothing here blocks on another thread; a read that the storage does not
 * answer blocks its caller only (the caller's deadline covers it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "storage.h"
#include "cache_internal.h"

#define WARM_BUF (1u << 20)
#define MINCORE_WINDOW_PAGES 16384u   /* 64 MiB with 4 KiB pages */
#define FUSE_MAGIC 0x65735546u

#ifndef __NR_cachestat
#define __NR_cachestat 451      /* the same on every architecture */
#endif

/* cachestat(2)'s argument and result (Linux 6.5, linux/mman.h) */
struct cachestat_range {
	uint64_t off, len;
};

struct cachestat_out {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		 nr_recently_evicted;
};

/* STG_RESIDENCY_NONE until the first measurement picks one */
static _Atomic int residency_method;

/* Thresholds for the verdicts: "resident" and "gone" with some slack for
 * pages the kernel cannot drop (mapped elsewhere) or drops on its own. */
#define RESIDENT_MIN 0.9
#define REOPEN_KEPT_MIN 0.5
#define EVICTED_MAX 0.1

/* Any thread (the preparation's workers check residency at once): the
 * cached size is a relaxed atomic, every writer storing the same value. */
static size_t page_size(void)
{
	static _Atomic size_t pg;
	size_t v = atomic_load_explicit(&pg, memory_order_relaxed);

	if (!v) {
		long sz = sysconf(_SC_PAGESIZE);

		v = sz > 0 ? (size_t)sz : 4096;
		atomic_store_explicit(&pg, v, memory_order_relaxed);
	}
	return v;
}

/* mmap + mincore over the PAGES pages of FD, in windows. */
static int fd_mincore_pages(int fd, uint64_t pages, uint64_t *resident)
{
	unsigned char vec[MINCORE_WINDOW_PAGES];
	const size_t pg = page_size();
	uint64_t done = 0, res = 0;

	while (done < pages) {
		uint64_t n = pages - done;
		size_t len;
		void *map;

		if (n > MINCORE_WINDOW_PAGES)
			n = MINCORE_WINDOW_PAGES;
		len = (size_t)n * pg;
		map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd,
			   (off_t)(done * pg));
		if (map == MAP_FAILED)
			return -errno;
		if (mincore(map, len, vec) < 0) {
			int err = -errno;

			munmap(map, len);
			return err;
		}
		munmap(map, len);
		for (uint64_t i = 0; i < n; i++)
			res += vec[i] & 1;
		done += n;
	}
	*resident = res;
	return 0;
}

/* Errors of cachestat that mean "not here" rather than "this file": no
 * such syscall, refused by a seccomp filter or an LSM, not supported. */
static bool cachestat_unusable(int err)
{
	return err == -ENOSYS || err == -EPERM || err == -EOPNOTSUPP ||
	       err == -EINVAL;
}

/*
 * Resident pages of the regular file FD (*RESIDENT) out of its *TOTAL
 * pages, and the file's size; *METHOD says which call answered.
 */
static int fd_residency_m(int fd, uint64_t *resident, uint64_t *total,
			  uint64_t *size, enum stg_residency_method *method)
{
	const size_t pg = page_size();
	int how = atomic_load_explicit(&residency_method,
				       memory_order_relaxed);
	uint64_t pages;
	struct stat st;
	int err;

	*resident = *total = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	pages = ((uint64_t)st.st_size + pg - 1) / pg;
	if (size)
		*size = (uint64_t)st.st_size;
	if (how != STG_RESIDENCY_MINCORE) {
		struct cachestat_range range = { 0, 0 };   /* whole file */
		struct cachestat_out cs;

		if (syscall(__NR_cachestat, fd, &range, &cs, 0) == 0) {
			if (how != STG_RESIDENCY_CACHESTAT)
				atomic_store_explicit(&residency_method,
						      STG_RESIDENCY_CACHESTAT,
						      memory_order_relaxed);
			*resident = cs.nr_cache < pages ? cs.nr_cache : pages;
			*total = pages;
			if (method)
				*method = STG_RESIDENCY_CACHESTAT;
			return 0;
		}
		err = -errno;
		if (!cachestat_unusable(err))
			return err;
		atomic_store_explicit(&residency_method, STG_RESIDENCY_MINCORE,
				      memory_order_relaxed);
	}
	err = fd_mincore_pages(fd, pages, resident);
	if (err)
		return err;
	*total = pages;
	if (method)
		*method = STG_RESIDENCY_MINCORE;
	return 0;
}

static int fd_residency(int fd, uint64_t *resident, uint64_t *total)
{
	return fd_residency_m(fd, resident, total, NULL, NULL);
}

int stg_cache_fd_resident(int fd, uint64_t *resident_bytes,
			  uint64_t *size_bytes,
			  enum stg_residency_method *method)
{
	uint64_t res, tot, size = 0, bytes;
	int err = fd_residency_m(fd, &res, &tot, &size, method);

	*resident_bytes = 0;
	if (size_bytes)
		*size_bytes = size;
	if (err)
		return err;
	bytes = res * (uint64_t)page_size();
	*resident_bytes = bytes < size ? bytes : size;
	return 0;
}

static int fd_evict(int fd)
{
	int r;

	/* DONTNEED skips dirty pages: a dataset copied or generated moments
	 * ago would stay resident. Writing back what is already written
	 * changes no byte of the file; its errors (EINVAL, EROFS, a FUSE
	 * ENOSYS) only mean there is nothing this can do. */
	(void)fdatasync(fd);
	/* posix_fadvise returns the error number itself */
	r = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);

	return -r;
}

int stg_fd_read_rest(int fd, char *buf, size_t cap, off_t off,
		     uint64_t *bytes)
{
	for (;;) {
		ssize_t n = pread(fd, buf, cap, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		off += n;
		if (bytes)
			*bytes += (uint64_t)n;
	}
}

static int fd_warm(int fd, char *buf, size_t cap)
{
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return stg_fd_read_rest(fd, buf, cap, 0, NULL);
}

static int open_ro(int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int stg_cache_evict(int dirfd, const char *path)
{
	int fd, err;

	stg_watch_begin(path);
	fd = open_ro(dirfd, path);
	err = fd < 0 ? fd : fd_evict(fd);
	if (fd >= 0)
		close(fd);
	stg_watch_end();
	return err;
}

int stg_cache_warm(int dirfd, const char *path)
{
	char *buf = malloc(WARM_BUF);
	int fd, err;

	if (!buf)
		return -ENOMEM;
	stg_watch_begin(path);
	fd = open_ro(dirfd, path);
	err = fd < 0 ? fd : fd_warm(fd, buf, WARM_BUF);
	if (fd >= 0)
		close(fd);
	stg_watch_end();
	free(buf);
	return err;
}

int stg_cache_residency(int dirfd, const char *path, uint64_t *resident,
			uint64_t *total)
{
	int fd, err;

	*resident = *total = 0;
	stg_watch_begin(path);
	fd = open_ro(dirfd, path);
	err = fd < 0 ? fd : fd_residency(fd, resident, total);
	if (fd >= 0)
		close(fd);
	stg_watch_end();
	return err;
}

/* Residency of FD as a fraction, or -errno (as a negative double). */
static int fd_fraction(int fd, double *frac)
{
	uint64_t res, tot;
	int err = fd_residency(fd, &res, &tot);

	if (err)
		return err;
	*frac = tot ? (double)res / (double)tot : 1.0;
	return 0;
}

int stg_cache_probe(int dirfd, const char *path, struct stg_cache_probe *out)
{
	double before_evict = -1.0;
	struct stat st;
	char *buf = NULL;
	int fd, err;

	memset(out, 0, sizeof(*out));
	out->resident_after_warm = out->resident_after_reopen = -1.0;
	out->resident_after_evict = -1.0;
	fd = open_ro(dirfd, path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		err = st.st_size == 0 ? -ENODATA : -EINVAL;
		goto out;
	}
	buf = malloc(WARM_BUF);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}

	/* 1. warm, measured on the descriptor that read it */
	err = fd_warm(fd, buf, WARM_BUF);
	if (err)
		goto out;
	err = fd_fraction(fd, &out->resident_after_warm);
	if (err) {
		out->error = err;
		err = 0;
		goto out;   /* cannot measure here: both stay unknown */
	}
	/* 2. does it survive close + open? */
	close(fd);
	fd = open_ro(dirfd, path);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	err = fd_fraction(fd, &out->resident_after_reopen);
	if (err) {
		out->error = err;
		err = 0;
		goto out;
	}
	if (out->resident_after_warm < RESIDENT_MIN)
		out->warm = STG_WARM_NOT_CACHED;
	else if (out->resident_after_reopen >= REOPEN_KEPT_MIN)
		out->warm = STG_WARM_PERSISTS;
	else
		out->warm = STG_WARM_REFETCH_ON_OPEN;

	/* 3. evict, on a descriptor whose pages are resident right now */
	if (out->resident_after_reopen < RESIDENT_MIN) {
		err = fd_warm(fd, buf, WARM_BUF);
		if (!err)
			err = fd_fraction(fd, &before_evict);
		if (err) {
			out->error = err;
			err = 0;
			goto out;
		}
	} else {
		before_evict = out->resident_after_reopen;
	}
	err = fd_evict(fd);
	if (err)
		goto out;
	err = fd_fraction(fd, &out->resident_after_evict);
	if (err) {
		out->error = err;
		err = 0;
		goto out;
	}
	if (before_evict < RESIDENT_MIN)
		out->evict = STG_EVICT_UNKNOWN;   /* nothing there to evict */
	else if (out->resident_after_evict <= EVICTED_MAX)
		out->evict = STG_EVICT_EFFECTIVE;
	else
		out->evict = STG_EVICT_INEFFECTIVE;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return err;
}

const char *stg_evict_result_text(enum stg_evict_result r)
{
	switch (r) {
	case STG_EVICT_EFFECTIVE:
		return "effective";
	case STG_EVICT_INEFFECTIVE:
		return "ineffective: pages stay resident (tmpfs, ramfs or "
		       "unflushed writes); cold reads are impossible";
	case STG_EVICT_UNKNOWN:
		break;
	}
	return "unknown: residency cannot be measured here";
}

const char *stg_warm_result_text(enum stg_warm_result r)
{
	switch (r) {
	case STG_WARM_PERSISTS:
		return "kept across opens";
	case STG_WARM_REFETCH_ON_OPEN:
		return "each open re-fetches: the filesystem drops a file's "
		       "cache when it is opened (FUSE without kernel_cache)";
	case STG_WARM_NOT_CACHED:
		return "not cached: reading does not fill the page cache "
		       "(direct I/O filesystem)";
	case STG_WARM_UNKNOWN:
		break;
	}
	return "unknown: residency cannot be measured here";
}

int stg_cache_dataset_residency(const struct stg_dataset *ds, size_t max_files,
				const struct stg_cache_probe *probe,
				struct stg_ds_residency *out)
{
	const size_t n = stg_dataset_count(ds);
	size_t take = max_files && max_files < n ? max_files : n;

	memset(out, 0, sizeof(*out));
	out->fraction = -1.0;
	if (probe) {
		out->known = probe->warm == STG_WARM_PERSISTS ||
			     probe->warm == STG_WARM_NOT_CACHED;
	} else {
		struct statfs sf;
		int fd = stg_dataset_open(ds, 0, O_RDONLY);

		/* without a probe, trust every filesystem but FUSE, whose
		 * open() may have dropped what it is asked to measure (an
		 * NFS open revalidates and keeps an unchanged file's pages) */
		out->known = true;
		if (fd >= 0) {
			if (fstatfs(fd, &sf) == 0 && sf.f_type == FUSE_MAGIC)
				out->known = false;
			close(fd);
		}
	}
	if (!out->known)
		return 0;
	for (size_t i = 0; i < take; i++) {
		size_t id = take == n ? i : (size_t)((unsigned __int128)i * n / take);
		uint64_t bytes, size;
		int fd, err;

		stg_watch_begin(stg_dataset_relpath(ds, id, NULL));
		fd = stg_dataset_open(ds, id, O_RDONLY);
		if (fd < 0) {
			stg_watch_end();
			out->errors++;
			continue;
		}
		err = stg_cache_fd_resident(fd, &bytes, &size, NULL);
		close(fd);
		stg_watch_end();
		if (err) {
			out->errors++;
			continue;
		}
		out->files++;
		out->resident_bytes += bytes;
		out->bytes += size;
	}
	if (out->files)
		out->fraction = out->bytes ? (double)out->resident_bytes /
					     (double)out->bytes : 1.0;
	else
		out->known = false;
	return 0;
}

/* Run OP over every file of DS, in batches (cacheprep.c). */
static int dataset_each(const struct stg_dataset *ds, enum stg_prep_op op,
			uint64_t *errors)
{
	struct stg_prep_result r;
	int err = stg_prep_run(ds, op, NULL, &r);

	if (errors)
		*errors = err ? stg_dataset_count(ds) : r.errors;
	if (err)
		return err;
	return r.errors && !r.files ? r.first_err : 0;
}

int stg_cache_dataset_evict(const struct stg_dataset *ds, uint64_t *errors)
{
	return dataset_each(ds, STG_PREP_EVICT, errors);
}

int stg_cache_dataset_warm(const struct stg_dataset *ds, uint64_t *errors)
{
	return dataset_each(ds, STG_PREP_WARM, errors);
}

const char *stg_cache_state_name(enum stg_cache_state c)
{
	switch (c) {
	case STG_CACHE_COLD: return "cold";
	case STG_CACHE_RAM: return "ram";
	case STG_CACHE_WARM: return "warm";
	default: return "?";
	}
}

int stg_cache_state_parse(const char *s, enum stg_cache_state *out)
{
	for (int c = 0; c < STG_CACHE_STATES; c++)
		if (!strcmp(s, stg_cache_state_name((enum stg_cache_state)c))) {
			*out = (enum stg_cache_state)c;
			return 0;
		}
	return -EINVAL;
}
