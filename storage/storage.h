/*
 * storage.h - public interface of feedrate's storage layer.
 *
 * The storage layer reads bytes: io_uring and pread backends behind one ops
 * table, the dataset listing, page-cache control and the detection of the
 * machine and the filesystem a dataset sits on. It depends on libc and
 * liburing only; nothing here knows about workloads, decoding or reports.
 *
 * Conventions: functions return 0 or -errno; create/destroy come in pairs and
 * destroy accepts NULL.
 */
#ifndef FEEDRATE_STORAGE_H
#define FEEDRATE_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>

/* ==== dataset, cache, detection ==== */

#include <sched.h>
#include <sys/types.h>

/* ---- settable root for /proc and /sys (storage/sysroot.c) ---- */

/*
 * The folder that stands for "/" when feedrate reads /proc and /sys: the
 * environment variable FEEDRATE_SYSROOT, read once on first use, else "/".
 * Tests point it at a fixture tree (tests/fixtures/sysroot/NAME). Returns a
 * string owned by the module, valid until the next stg_sysroot_set().
 * Any thread may call it; stg_sysroot_set() must not run concurrently.
 */
const char *stg_sysroot(void);

/*
 * Replace the sysroot (NULL: back to FEEDRATE_SYSROOT or "/"). Meant for
 * start-up and tests; not thread-safe against concurrent readers.
 * Returns 0, or -ENAMETOOLONG.
 */
int stg_sysroot_set(const char *root);

/*
 * Write sysroot + REL (an absolute path such as "/proc/meminfo") into BUF
 * of CAP bytes. Returns the length, or -ENAMETOOLONG (BUF then holds "").
 */
int stg_sysroot_path(const char *rel, char *buf, size_t cap);

/* open(2) of sysroot + REL with FLAGS (O_CLOEXEC added). fd or -errno. */
int stg_sysroot_open(const char *rel, int flags);

/*
 * Read the small file sysroot + REL into BUF (CAP bytes, NUL-terminated,
 * trailing whitespace kept). Returns the number of bytes read (short if the
 * file is larger than CAP - 1), or -errno.
 */
ssize_t stg_sysroot_read(const char *rel, char *buf, size_t cap);

/*
 * Like stg_sysroot_read() with surrounding whitespace trimmed: the whole
 * first line of files like /sys/.../model ("Amazon Elastic Block Store   ").
 * Returns the trimmed length or -errno (then BUF holds "").
 */
ssize_t stg_sysroot_read_line(const char *rel, char *buf, size_t cap);

/* ---- dataset listing (storage/dataset.c) ---- */

/*
 * A dataset is a list of regular files with stable ids 0..count-1. The
 * paths live in one arena (about 16 bytes per file plus the path's bytes);
 * nothing is allocated per file. Names are bytes: spaces, newlines in
 * walked names and non-UTF-8 bytes are kept as they are.
 *
 * Directory walk (stg_dataset_scan): uses each entry's d_type and falls back
 * to fstatat() where the filesystem returns DT_UNKNOWN. Symbolic links are
 * followed, as PyTorch's ImageFolder does (os.walk(followlinks=True)): a
 * link to a file lists the file under the link's name with the target's
 * size; a link to a folder is walked. Every folder is entered at most once
 * (tracked by device and inode), so symlink loops end; a folder met again
 * is counted as STG_DS_ERR_LOOP. Problems (unreadable folder, dangling
 * link, ...) are counted per kind with one example path and the walk goes
 * on. Ids are deterministic whatever order the filesystem returns entries
 * in: within a folder, entries are taken in bytewise order of their names,
 * the folder's files first, then each subfolder in turn (depth first).
 *
 * List file (stg_dataset_load_list): one entry per line, "\n"-terminated,
 * either "PATH" or "SIZE<TAB>PATH" (SIZE in decimal bytes); relative PATHs
 * are relative to the dataset root, absolute ones are taken as they are.
 * `find DIR -type f -printf '%s\t%P\n'` writes this format. Empty lines are
 * skipped; bytes are kept exactly (no trimming, no "\r" removal). A line
 * whose part before the first TAB is all digits is read as SIZE<TAB>PATH:
 * write "./NAME" for a file named like "123<TAB>x". Entries with a size are
 * trusted and not stat'ed (listing a FUSE mount costs no request per
 * file); a missing one shows up as an error when it is read. Entries
 * without a size are stat'ed now; missing or non-regular ones are counted
 * and dropped. Ids follow the order of the lines.
 */
struct stg_dataset;

/* Kinds of problems met while listing; each is counted with one example. */
enum stg_ds_err {
	STG_DS_ERR_OPENDIR,     /* folder could not be opened (EACCES, ...) */
	STG_DS_ERR_READDIR,     /* reading a folder's entries failed */
	STG_DS_ERR_STAT,        /* fstatat of an entry failed */
	STG_DS_ERR_DANGLING,    /* symbolic link to nothing, or a link loop */
	STG_DS_ERR_LOOP,        /* folder reached a second time (link loop) */
	STG_DS_ERR_SPECIAL,     /* not a regular file or folder (fifo, ...) */
	STG_DS_ERR_TOO_LONG,    /* path longer than PATH_MAX */
	STG_DS_ERR_MISSING,     /* list entry that does not exist */
	STG_DS_ERR_BAD_LINE,    /* list line that cannot be used */
	STG_DS_ERR_COUNT
};

/* Options for building a dataset; a zeroed struct (or NULL) is the default. */
struct stg_dataset_opts {
	/* Treat every d_type as DT_UNKNOWN (the fstatat path), for tests and
	 * for filesystems whose d_type is known to lie. */
	bool ignore_d_type;
	/* Do not descend through symbolic links to folders. */
	bool no_follow_dir_links;
	/* Threads that stat the files for their sizes (0:
	 * STG_DS_STAT_THREADS, 1: the calling thread alone) once at least
	 * STAT_PARALLEL_MIN files wait for one (0: STG_DS_STAT_PARALLEL_MIN);
	 * the result is the same for any count. */
	unsigned stat_threads, stat_parallel_min;
};

/* Cold inodes make a stat wait on the disk, so more stats in flight than
 * vCPUs pay (1.28 M files, 2 vCPUs, inodes dropped: 12.4 s on 1 thread,
 * 7.0 s on 2, 5.8 s on 4 and 8); below a few thousand files one thread
 * is done before others would start. */
#define STG_DS_STAT_THREADS 4
#define STG_DS_STAT_PARALLEL_MIN 4096

/*
 * Walk the folder ROOT (see above) and return a new dataset in *OUT.
 * Returns 0 (even with counted problems, and with zero files), or -errno
 * when ROOT itself cannot be opened as a folder or memory runs out.
 */
int stg_dataset_scan(const char *root, const struct stg_dataset_opts *opts,
		     struct stg_dataset **out);

/*
 * Read the list file LIST_PATH (see above); relative entries are taken
 * relative to ROOT, or to the folder holding LIST_PATH when ROOT is NULL.
 * Returns 0 or -errno (list file unreadable, ROOT not a folder, no memory).
 */
int stg_dataset_load_list(const char *list_path, const char *root,
			  const struct stg_dataset_opts *opts,
			  struct stg_dataset **out);

/*
 * A dataset of the N files NAMES (relative to ROOT, or absolute) with the
 * sizes SIZES, in that order, as a list file with SIZE<TAB>PATH lines
 * would give them: nothing is stat'ed (a missing file shows up when it is
 * read), any bytes but NUL may be in a name. Returns 0 or -errno (ROOT not
 * a folder, no memory).
 */
int stg_dataset_from_names(const char *root, const char *const *names,
			   const uint64_t *sizes, size_t n,
			   struct stg_dataset **out);

/* Listings made in this process so far: stg_dataset_scan and
 * stg_dataset_load_list calls (a command lists its dataset once). */
unsigned stg_dataset_listings(void);

/* Free a dataset (NULL allowed). */
void stg_dataset_destroy(struct stg_dataset *ds);

/* The datasets's accessors below are read-only and safe from any thread. */

/* Number of files. */
size_t stg_dataset_count(const struct stg_dataset *ds);

/* Root folder as given (bytes, NUL-terminated; owned by DS). */
const char *stg_dataset_root(const struct stg_dataset *ds);

/*
 * open(2) the root folder (O_RDONLY | O_DIRECTORY | O_CLOEXEC), watched
 * as a read in flight of "." (stg_watch_begin): a folder's open on
 * storage that stopped answering (FUSE asks its daemon) is a stall like
 * a read's. Returns an fd the caller closes, or -errno. Any thread.
 */
int stg_dataset_root_open(const struct stg_dataset *ds);

/*
 * Path of file ID relative to the root (or absolute, from a list file),
 * NUL-terminated, owned by DS; *LEN (optional) gets its length.
 * NULL when ID >= count.
 */
const char *stg_dataset_relpath(const struct stg_dataset *ds, size_t id,
				size_t *len);

/*
 * Full path of file ID (root + "/" + relpath, or the absolute path) into
 * BUF of CAP bytes. Returns its length or -ENAMETOOLONG.
 */
int stg_dataset_path(const struct stg_dataset *ds, size_t id, char *buf,
		     size_t cap);

/*
 * open(2) file ID relative to the dataset's root folder (one openat on a
 * folder descriptor DS keeps; no path rebuilding). FLAGS get O_CLOEXEC.
 * Returns an fd the caller closes, or -errno.
 */
int stg_dataset_open(const struct stg_dataset *ds, size_t id, int flags);

/* Size of file ID in bytes as listed, or -1 when the list gave none. */
int64_t stg_dataset_size(const struct stg_dataset *ds, size_t id);

/* Sum of the known sizes, and the largest one. */
uint64_t stg_dataset_total_bytes(const struct stg_dataset *ds);
uint64_t stg_dataset_max_size(const struct stg_dataset *ds);

/* Number of problems of KIND, and one example path (NULL when none). */
uint64_t stg_dataset_errors(const struct stg_dataset *ds, enum stg_ds_err kind);

/* Problems of every kind together: the files the listing dropped. */
uint64_t stg_dataset_errors_sum(const struct stg_dataset *ds);
const char *stg_dataset_error_example(const struct stg_dataset *ds,
				      enum stg_ds_err kind);

/* Short snake_case name of KIND ("opendir", "missing", ...) for reports. */
const char *stg_ds_err_name(enum stg_ds_err kind);

/*
 * A new dataset in *OUT holding N of DS's files spread evenly over its
 * ids (the k-th is id floor(k x count / N)), with their paths and listed
 * sizes and DS's root; its listing problems are not carried over. N
 * above the count takes every file. Nothing is read or stat'ed. Returns
 * 0 or -errno (no memory, the root folder no longer opens).
 */
int stg_dataset_sample(const struct stg_dataset *ds, size_t n,
		       struct stg_dataset **out);

/* ---- page-cache states of a measurement (storage/pagecache.c) ---- */

/*
 * The one cache-state enum, in the order a sweep measures and reports
 * them: cold (every file evicted; O_DIRECT where eviction fails), ram
 * (evicted, then run inside a memory cgroup that leaves SIZE of page
 * cache), warm (every file resident).
 */
enum stg_cache_state {
	STG_CACHE_COLD = 0,
	STG_CACHE_RAM,
	STG_CACHE_WARM,
	STG_CACHE_STATES
};

/* "cold", "ram", "warm" ("?" for anything else). */
const char *stg_cache_state_name(enum stg_cache_state c);

/* Parse one of those names into *OUT. Returns 0 or -EINVAL. */
int stg_cache_state_parse(const char *s, enum stg_cache_state *out);

/* ---- a dataset's page cache prepared in batches (storage/cacheprep.c) ---- */

/* One phase of preparing a point's page cache. */
enum stg_prep_op {
	STG_PREP_EVICT = 0,     /* POSIX_FADV_DONTNEED on every file */
	STG_PREP_WARM,          /* read every file once */
	STG_PREP_VERIFY,        /* residency of each file asked */
	STG_PREP_OPS
};

/* "evict", "warm", "verify" ("?" for anything else). */
const char *stg_prep_op_name(enum stg_prep_op op);

#define STG_PREP_WORKERS_MAX 256

/*
 * Progress of a phase: DONE of TOTAL files after ELAPSED_S, called in the
 * thread that called stg_prep_run about every 100 ms while the workers
 * run, and once at the end. A nonzero return asks the phase to stop: the
 * workers finish the batch each holds (up to 32 files) and return.
 */
typedef int (*stg_prep_progress_fn)(void *arg, enum stg_prep_op op,
				    uint64_t done, uint64_t total,
				    double elapsed_s);

/* How a phase runs; a zeroed struct (or NULL) is the default. */
struct stg_prep_opts {
	const cpu_set_t *cpus;  /* one worker per CPU of the set, pinned to
	                           it, and the ring's io-wq workers on the
	                           set (NULL: stg_cpus_usable() workers,
	                           unpinned) */
	const size_t *ids;      /* these files only, NIDS of them (NULL:
	                           every file) */
	size_t nids;
	bool no_uring;          /* each file by system calls, as where
	                           io_uring is refused */
	stg_prep_progress_fn progress;
	void *progress_arg;
};

/* What a phase did, its workers' results added up. */
struct stg_prep_result {
	uint64_t files;         /* files done without an error */
	uint64_t errors;        /* files that failed */
	int first_err;          /* -errno of one of them; 0 none */
	uint64_t bytes;         /* warm: bytes read; verify: sizes of the
	                           files checked */
	uint64_t resident_bytes;/* verify: resident bytes, capped at sizes */
	double resident_sum;    /* verify: each checked file's resident
	                           fraction (1 for an empty file), summed */
	bool uring;             /* every worker used its ring */
	bool stopped;           /* the progress callback stopped it */
	char why[200];          /* not by the ring: why ("" it was) */
	unsigned workers;
	double seconds;
};

/*
 * Run phase OP over DS's files (or the OPTS->ids): evict (one syncfs(2)
 * of the dataset's filesystem first, then openat + fadvise DONTNEED +
 * close each), warm (openat + read to the end + close) or verify (openat
 * + residency, cachestat else mincore + close). Eviction and warming go
 * through an io_uring per worker as linked chains into direct descriptors,
 * 32 files a submission; where a ring cannot be made the same workers
 * make the calls (OUT->why says why). Never writes to the dataset. Call
 * from one thread; blocks until the workers are done. Returns 0 (files
 * that failed are counted in *OUT), or -errno when the dataset's root
 * folder cannot be opened or no worker could start.
 */
int stg_prep_run(const struct stg_dataset *ds, enum stg_prep_op op,
		 const struct stg_prep_opts *opts, struct stg_prep_result *out);

/*
 * The sample that verifies a cache state: files to check so that the
 * mean of their resident fractions (each in [0, 1]) is within BOUND of
 * the whole dataset's with probability CONFIDENCE, by Hoeffding's
 * inequality, which holds for drawing without replacement too:
 * n = ceil(ln(2 / (1 - CONFIDENCE)) / (2 BOUND^2)) (26,492 for 0.01 at
 * 99 %). 0 for arguments out of range. Pure.
 */
size_t stg_sample_size(double bound, double confidence);

/*
 * The bound that N files drawn from POPULATION give at CONFIDENCE (the
 * inverse of stg_sample_size): 0 when N covers the population, at most
 * 1. Pure.
 */
double stg_sample_bound(size_t n, size_t population, double confidence);

/*
 * N distinct ids of [0, POPULATION) drawn uniformly by SEED (Floyd's
 * algorithm), ascending, into *IDS (the caller frees it); N above the
 * population takes every id. Returns 0 or -ENOMEM.
 */
int stg_sample_ids(size_t population, size_t n, uint64_t seed, size_t **ids);

/* ---- page cache (storage/pagecache.c) ---- */

/*
 * Page-cache control of one file, addressed as openat(DIRFD, PATH)
 * (DIRFD may be AT_FDCWD). None of these write to the file.
 *
 * stg_cache_evict: open O_RDONLY, fdatasync (pages still dirty, as in a
 *   file copied moments ago, are written back first: DONTNEED skips them;
 *   no byte of the file changes), posix_fadvise(POSIX_FADV_DONTNEED).
 * stg_cache_warm: read the whole file once, discarding the bytes.
 * stg_cache_residency: residency on a fresh open (cachestat, else mmap +
 *   mincore: see stg_cache_fd_resident); *RESIDENT and *TOTAL get counts
 *   of sysconf(_SC_PAGESIZE) pages (both 0 for an empty file). Note that
 *   on FUSE the open itself may drop the cache: stg_cache_probe() says
 *   whether it does.
 * Each returns 0 or -errno. Any thread may call them.
 */
int stg_cache_evict(int dirfd, const char *path);
int stg_cache_warm(int dirfd, const char *path);
int stg_cache_residency(int dirfd, const char *path, uint64_t *resident,
			uint64_t *total);

/* Which call measured residency. */
enum stg_residency_method {
	STG_RESIDENCY_NONE = 0,
	STG_RESIDENCY_CACHESTAT,    /* cachestat(2), Linux 6.5+ */
	STG_RESIDENCY_MINCORE,      /* mmap + mincore */
};

/*
 * Bytes of the open regular file FD in the page cache now (at most its
 * size) into *RESIDENT_BYTES, its size into *SIZE_BYTES (may be NULL), and
 * the call that answered into *METHOD (may be NULL). Uses cachestat(2)
 * (one call, no mapping); where the kernel lacks it or refuses it (ENOSYS,
 * EPERM from a seccomp filter, EOPNOTSUPP, EINVAL) it falls back to
 * mmap + mincore, and the whole process stays on mincore from then on.
 * Pages are counted in sysconf(_SC_PAGESIZE) units. stg_cache_residency()
 * and the dataset-level functions below measure through it. Nothing is
 * read or faulted in. Any thread may call it. Returns 0 or -errno
 * (-EINVAL for a file that is not regular).
 */
int stg_cache_fd_resident(int fd, uint64_t *resident_bytes,
			  uint64_t *size_bytes,
			  enum stg_residency_method *method);

/* What eviction does on a filesystem, as measured by stg_cache_probe(). */
enum stg_evict_result {
	STG_EVICT_UNKNOWN,       /* residency could not be measured */
	STG_EVICT_EFFECTIVE,     /* residency dropped after eviction */
	STG_EVICT_INEFFECTIVE,   /* pages stayed (tmpfs, ramfs, dirty pages) */
};

/* What warming does, measured through a second open of the file. */
enum stg_warm_result {
	STG_WARM_UNKNOWN,        /* residency could not be measured */
	STG_WARM_PERSISTS,       /* still resident after close and re-open */
	STG_WARM_REFETCH_ON_OPEN,/* resident, but a re-open drops it (FUSE
	                            without kernel_cache) */
	STG_WARM_NOT_CACHED,     /* reading does not fill the page cache */
};

struct stg_cache_probe {
	enum stg_evict_result evict;
	enum stg_warm_result warm;
	double resident_after_warm;   /* fraction, on the warming descriptor;
	                                 negative when unknown */
	double resident_after_reopen; /* fraction after close + re-open */
	double resident_after_evict;  /* fraction after eviction */
	int error;                    /* 0, or the -errno that made it unknown */
};

/*
 * Check, on the non-empty regular file openat(DIRFD, PATH), whether warming
 * and eviction really do what they claim: warm it, measure residency on the
 * same descriptor and after a re-open, evict it, measure again. Leaves the
 * file evicted where eviction works. Returns 0 (results in *OUT, possibly
 * UNKNOWN) or -errno when the file cannot be opened or is empty.
 */
int stg_cache_probe(int dirfd, const char *path, struct stg_cache_probe *out);

/* Words for reports: "effective", "ineffective (...)", "each open re-fetches". */
const char *stg_evict_result_text(enum stg_evict_result r);
const char *stg_warm_result_text(enum stg_warm_result r);

/* Dataset-level residency: bytes of the measured files that are resident. */
struct stg_ds_residency {
	bool known;              /* false: cannot be measured (see below) */
	uint64_t files;          /* files measured */
	uint64_t errors;         /* files that could not be measured */
	uint64_t resident_bytes; /* resident pages x page size, capped at size */
	uint64_t bytes;          /* total size of the measured files */
	double fraction;         /* resident_bytes / bytes (1 when bytes = 0);
	                            negative when unknown */
};

/*
 * Measure residency over DS: every file when MAX_FILES is 0 or >= count,
 * else MAX_FILES files spread evenly over the ids (a sample). PROBE (may be
 * NULL) is a stg_cache_probe() result for a file of DS: when it says a
 * re-open drops the cache, or residency is unmeasurable, the result is
 * unknown instead of a misleading 0. Without PROBE, a dataset on FUSE is
 * reported unknown. Returns 0 (results in *OUT).
 */
int stg_cache_dataset_residency(const struct stg_dataset *ds, size_t max_files,
				const struct stg_cache_probe *probe,
				struct stg_ds_residency *out);

/*
 * Evict or warm every file of DS with stg_prep_run's defaults (a ring per
 * worker, one syncfs(2) before eviction instead of fdatasync per file);
 * *ERRORS (optional) gets the number of files that failed. Returns 0, or
 * -errno of the first failure when every file failed.
 */
int stg_cache_dataset_evict(const struct stg_dataset *ds, uint64_t *errors);
int stg_cache_dataset_warm(const struct stg_dataset *ds, uint64_t *errors);

/* ---- machine and storage detection (storage/detect*.c) ---- */

#define STG_TEXT_MAX 128
#define STG_PATH_MAX 512
#define STG_MAX_GPUS 16

/*
 * What one vCPU is: a hyperthread (SMT siblings present) or a whole core.
 * Clouds sell both under the name "vCPU" (AWS, GCP GPU shapes: threads;
 * Azure ND A100 v4 / ND H100 v5: physical cores).
 */
enum stg_vcpu_kind {
	STG_VCPU_UNKNOWN = 0,
	STG_VCPU_THREAD,
	STG_VCPU_CORE,
};

/* "unknown", "thread", "core". */
const char *stg_vcpu_kind_name(enum stg_vcpu_kind k);

/* Numbers that could not be found are -1 (or a negative double). */
struct stg_cpu_info {
	int affinity_cpus;          /* CPUs in this process's affinity mask */
	double quota_cpus;          /* lowest cgroup CPU quota found, in CPUs;
	                               -1 when there is none */
	char quota_source[STG_PATH_MAX]; /* file the quota came from (under the
	                                    sysroot), "" when none */
	double usable_cpus;         /* stg_cpus_usable_from(affinity_cpus,
	                               quota_cpus): whole CPUs, at least 1 */
	int online_cpus;            /* "processor" entries in /proc/cpuinfo */
	char model[STG_TEXT_MAX];   /* "model name", "" when unknown */
	int cores;                  /* distinct SMT sibling groups */
	int threads_per_core;       /* largest sibling group (2 with SMT) */
	enum stg_vcpu_kind vcpu_kind; /* thread when threads_per_core > 1,
	                                 core when 1, unknown when unread */
	int numa_nodes;
	double steal_pct_boot;      /* steal share of CPU time since boot */
	double steal_pct_interval;  /* over the sampling interval */
	double steal_interval_s;    /* the interval used (0: not sampled) */
};

struct stg_mem_info {
	int64_t total_bytes;        /* MemTotal */
	int64_t available_bytes;    /* MemAvailable */
	int64_t cgroup_limit_bytes; /* lowest memory.max / limit_in_bytes;
	                               -1 when unlimited or unknown */
	char cgroup_source[STG_PATH_MAX];
};

struct stg_gpu {
	char model[STG_TEXT_MAX];   /* "NVIDIA A100-SXM4-40GB" */
	char bus[64];               /* "0000:10:1c.0" */
};

struct stg_gpu_info {
	int count;                  /* GPUs found (may exceed STG_MAX_GPUS) */
	struct stg_gpu gpu[STG_MAX_GPUS];
	char driver[STG_TEXT_MAX];  /* driver version ("535.104.05"), else the
	                               first line of /proc/driver/nvidia/version */
};

struct stg_dmi_info {
	char product_name[STG_TEXT_MAX]; /* "m5.large", "Google Compute Engine" */
	char sys_vendor[STG_TEXT_MAX];   /* "Amazon EC2" */
};

/* One line of /proc/self/mountinfo, octal escapes decoded. */
struct stg_mount {
	unsigned major, minor;      /* st_dev of the mounted filesystem */
	char mount_point[STG_PATH_MAX];
	char fstype[64];            /* "ext4", "fuse.s3fs", "cgroup2" */
	char source[STG_PATH_MAX];  /* "/dev/nvme0n1p1", "s3fs", "srv:/x" */
	char root[STG_PATH_MAX];    /* root of the mount within its fs */
	char options[STG_TEXT_MAX]; /* per-mount options ("rw,relatime") */
	char super_options[STG_TEXT_MAX]; /* filesystem options ("rw,cpu") */
};

struct stg_blockdev {
	unsigned major, minor;      /* of the device the filesystem is on */
	char name[64];              /* the whole disk: "nvme0n1", "loop0" */
	char partition[64];         /* "nvme0n1p1", "" if the whole disk */
	char model[STG_TEXT_MAX];   /* "Amazon Elastic Block Store" */
	char vendor[STG_TEXT_MAX];
	char backing_file[STG_PATH_MAX]; /* loop devices */
	char via[STG_TEXT_MAX];     /* device-mapper name it was reached from */
	int rotational;             /* 1, 0, or -1 unknown */
	int nr_requests;            /* queue/nr_requests, -1 unknown */
};

struct stg_fs_info {
	char path[STG_PATH_MAX];    /* the resolved path that was examined */
	uint64_t statfs_magic;      /* f_type, 0 when statfs failed */
	char fs_family[32];         /* name from the magic: "ext4", "fuse" */
	bool have_mount;
	struct stg_mount mount;     /* the mount the path is on */
	bool have_blockdev;
	struct stg_blockdev blockdev;
	bool network;               /* nfs, lustre, cifs, fuse, ... */
	bool page_cache_volatile;   /* tmpfs/ramfs: nothing can be cold */
	/* network filesystems whose source names their server
	 * (stg_fs_server): the mount source as mountinfo gives it
	 * ("10.0.0.5:/export", "[fd00::1]:/data", "10.0.0.1@tcp:/fs",
	 * "//host/share", "s3fs"), "" for other filesystems */
	char server[STG_PATH_MAX];
	char server_host[STG_TEXT_MAX]; /* the first host it names
	                               ("10.0.0.5", "fd00::1"), "" where
	                               it names none (s3fs) */
};

/*
 * Detect the CPU side: affinity of the real process, cgroup v1/v2 quotas
 * (stg_cgroup_cpu_quota), the usable CPUs (stg_cpus_usable_from), model,
 * SMT, NUMA, steal. STEAL_INTERVAL_S > 0 samples /proc/stat twice that far
 * apart (the call sleeps that long); 0 skips the interval sample. Files
 * that are missing leave their fields unknown. Returns 0.
 */
int stg_detect_cpu(double steal_interval_s, struct stg_cpu_info *out);

/* RAM from /proc/meminfo and the cgroup memory limit
 * (stg_cgroup_mem_limit). Returns 0. */
int stg_detect_mem(struct stg_mem_info *out);

/* NVIDIA GPUs from /proc/driver/nvidia/gpus/ * /information. Returns 0. */
int stg_detect_gpus(struct stg_gpu_info *out);

/* DMI product name and vendor from /sys/class/dmi/id. Returns 0. */
int stg_detect_dmi(struct stg_dmi_info *out);

/*
 * Describe the block device MAJOR:MINOR from the sysroot's
 * /sys/dev/block: the whole disk behind a partition, its model, vendor,
 * rotational flag, queue size; a loop device's backing file; the first
 * underlying disk of a device-mapper device. Returns 0 or -ENOENT.
 */
int stg_blockdev_describe(unsigned major, unsigned minor,
			  struct stg_blockdev *out);

/*
 * Filesystem type, mount and block device under PATH (which must exist;
 * statfs/stat use the real path, mountinfo and sysfs the sysroot).
 * Returns 0 or -errno when PATH cannot be resolved.
 */
int stg_detect_fs(const char *path, struct stg_fs_info *out);

/* Name of a statfs f_type ("ext4", "xfs", "fuse", ...), "unknown" else. */
const char *stg_fs_magic_name(uint64_t magic);

/*
 * The server of a network filesystem, from a mountinfo line's FSTYPE and
 * SOURCE fields: into SERVER (SERVER_CAP bytes) the source as given, into
 * HOST (HOST_CAP bytes) the first host it names, without brackets, port,
 * LNet network or share: "nfs4" "[fd00::1]:/data" -> "fd00::1";
 * "lustre" "10.0.0.1@tcp:/fs" -> "10.0.0.1"; "cifs" "//fs1/share" ->
 * "fs1"; "ceph" "10.0.0.1:6789,10.0.0.2:6789:/" -> "10.0.0.1". An
 * object-store FUSE mount ("fuse.s3fs") gives its source ("s3fs", or
 * the bucket) and an empty HOST: the source names no host. Pure; any
 * thread. Returns 0, or -ENOENT (both "") when FSTYPE is not a network
 * filesystem with a server in its source (ext4, tmpfs, 9p, virtiofs).
 */
int stg_fs_server(const char *fstype, const char *source, char *server,
		  size_t server_cap, char *host, size_t host_cap);

/* ---- the stall watch: reads in flight and the last completion
 *      (storage/watch.c) ---- */

/*
 * One record per process tree, in shared memory made before the first
 * fork (stg_watch_init), so that a measurement child's reads are seen by
 * its parent: every read (reader files and chunks, listing, eviction,
 * warming, residency checks) says when it starts and ends, every
 * completion is a heartbeat, and the protocol names the phase. A watcher
 * takes a snapshot and asks stg_watch_assess whether the storage stalled.
 * Without stg_watch_init every call here does nothing.
 */
enum stg_phase {
	STG_PHASE_NONE = 0,
	STG_PHASE_LISTING,
	STG_PHASE_EVICTION,
	STG_PHASE_WARMING,
	STG_PHASE_VERIFY,       /* residency checks */
	STG_PHASE_PROBE,        /* auto's backend probe, O_DIRECT probe */
	STG_PHASE_WARMUP,       /* the run before its measured window */
	STG_PHASE_WINDOW,       /* the measured window */
	STG_PHASE_SAVE,         /* ckpt: writing */
	STG_PHASE_RESTORE,      /* ckpt: reading back */
	STG_PHASE_SOURCE,       /* gen --from: reading the source */
	STG_PHASE_ALONE,        /* under mpirun: a rank's read alone, the
	                           others waiting (its eviction, probe and
	                           reads alike) */
	STG_PHASE_COUNT
};

#define STG_WATCH_NAME 160      /* bytes of a file name kept (truncated) */

/* What a watcher sees at one instant. */
struct stg_watch_snap {
	enum stg_phase phase;
	unsigned inflight;            /* reads started and not ended */
	uint64_t oldest_ns;           /* start of the oldest in flight
	                                 (CLOCK_MONOTONIC); 0 none */
	uint64_t last_done_ns;        /* the last completion; 0 none yet */
	char oldest[STG_WATCH_NAME];  /* its file, "" unknown */
};

/* A stall, as the reports word it. */
struct stg_stall {
	bool stalled;
	enum stg_phase phase;
	unsigned inflight;
	double oldest_age_s;          /* the oldest read in flight's age */
	double idle_s;                /* since a read last completed (or
	                                 since the oldest began, when none
	                                 completed after it began) */
	double timeout_s;             /* --stall-timeout */
	char oldest[STG_WATCH_NAME];
};

/*
 * Map the shared record (once per process; children forked after it
 * share it). Call before the first fork and before any thread reads.
 * Returns 0 or -errno (then every watch call stays a no-op).
 */
int stg_watch_init(void);

/* Set the phase (any thread, any process of the tree). */
void stg_watch_phase(enum stg_phase ph);
enum stg_phase stg_watch_phase_get(void);
const char *stg_phase_name(enum stg_phase ph);

/*
 * One blocking operation on NAME (a path, relative or not; NULL ok) by
 * the calling thread: begin before the syscall, end after it. Not
 * nested. Any thread; the thread's lane is taken at its first begin and
 * given back when it exits. end also counts as a completion.
 */
void stg_watch_begin(const char *name);
void stg_watch_end(void);

/* A completion that carries no begin (a chunk of a larger read). */
void stg_watch_beat(void);

/* A lane for a reader with many reads in flight (storage/backend.c):
 * -1 when none is free or the watch is off. */
int stg_watch_lane_get(void);
void stg_watch_lane_put(int lane);
/* The lane's in-flight count, oldest start and its file: set by its
 * owner thread after each change. */
void stg_watch_lane_set(int lane, unsigned inflight, uint64_t oldest_ns,
			const char *oldest);

/* Forget every lane of process PID (a child that was killed or left to
 * the kernel): its reads no longer count. */
void stg_watch_release_pid(int pid);

/* The record now into *OUT. False when the watch is off. */
bool stg_watch_snapshot(struct stg_watch_snap *out);

/*
 * The rule alone, pure: the storage is stalled when reads are in flight
 * and none completed for TIMEOUT_NS, counting from the later of the last
 * completion and the oldest read's start (a read started after a quiet
 * spell gets the whole timeout). Fills *OUT (stalled or not) from S at
 * NOW_NS. Returns OUT->stalled.
 */
bool stg_watch_assess(const struct stg_watch_snap *s, uint64_t now_ns,
		      uint64_t timeout_ns, struct stg_stall *out);

/* ---- system facts: clock, mounts, cgroups, CPUs (storage/sysfacts.c) ---- */

/*
 * The one reader of each of these facts for every module above storage
 * (loader, workloads, measure, cli): /proc and /sys are read under the
 * sysroot, so fixtures can stand in for another machine; the affinity
 * mask is always the real process's. Every function here may be called
 * from any thread (the sysroot must not change meanwhile).
 */

/* Seconds on CLOCK_MONOTONIC (unaffected by changes of the wall clock). */
double stg_now(void);

/* CLOCK_MONOTONIC in nanoseconds (a vDSO read: tens of ns). */
uint64_t stg_now_ns(void);

/*
 * Call FN for each line of the sysroot's /proc/self/mountinfo, in file
 * order, with its fields decoded (octal escapes such as "\040" undone).
 * Lines that do not parse are skipped. FN returns 0 to go on, anything
 * else to stop; that value is returned. Returns 0 after the last line,
 * or -errno when mountinfo cannot be opened.
 */
int stg_mountinfo_each(int (*fn)(const struct stg_mount *m, void *arg),
		       void *arg);

/*
 * Find the mount that holds the absolute path ABS_PATH in the sysroot's
 * /proc/self/mountinfo: the longest matching mount point, preferring
 * mounts whose major:minor is DEV (pass DEV 0 to match by path only).
 * Returns 0, -EINVAL for a relative path, -ENOENT when no mount matches,
 * or -errno reading mountinfo.
 */
int stg_mount_find(const char *abs_path, dev_t dev, struct stg_mount *out);

/* This process's place in one cgroup hierarchy. Paths are as the machine
 * names them, not under the sysroot (stg_sysroot_path() gives those). */
struct stg_cgroup {
	int version;                    /* 1 or 2 */
	char mount_point[STG_PATH_MAX]; /* where the hierarchy is mounted */
	char self[STG_PATH_MAX];        /* path from /proc/self/cgroup */
	char dir[STG_PATH_MAX];         /* this process's folder: the mount
	                                   point plus SELF below the mount's
	                                   root; the mount point itself when
	                                   SELF lies outside that root (a
	                                   container shown its own subtree) */
};

/*
 * This process's path in one hierarchy from the sysroot's
 * /proc/self/cgroup into BUF (CAP bytes): VERSION 1, the line whose
 * controller list holds CONTROLLER ("4:cpu,cpuacct:/x" for "cpu");
 * VERSION 2, the line "0::/x" (CONTROLLER is ignored). Returns 0,
 * -ENOENT when no line matches, -EINVAL for a bad VERSION or a v1 query
 * without CONTROLLER, -ENAMETOOLONG, or -errno reading the file.
 */
int stg_cgroup_self_path(int version, const char *controller, char *buf,
			 size_t cap);

/*
 * Find this process's cgroup of VERSION 1 for CONTROLLER (a "cgroup"
 * mount with CONTROLLER among its options), or of VERSION 2 (a "cgroup2"
 * mount; with CONTROLLER not NULL only one whose root cgroup.controllers
 * lists it), from the sysroot's mountinfo (the first such mount), or where
 * mountinfo names none, the usual folders under /sys/fs/cgroup. Returns 0
 * and *OUT; -ENOENT when no such hierarchy is mounted; -ENODATA when
 * /proc/self/cgroup cannot be read or names no group in it; -EINVAL;
 * -ENAMETOOLONG.
 */
int stg_cgroup_find(int version, const char *controller,
		    struct stg_cgroup *out);

/*
 * The lowest CPU quota over this process's cgroup and every ancestor up
 * to the mount, in both hierarchies (v2 cpu.max, v1 cpu.cfs_quota_us over
 * cpu.cfs_period_us), in CPUs (150000/100000 = 1.5) into *CPUS, and the
 * file it came from (as the machine names it, without the sysroot) into
 * SOURCE (CAP bytes; may be NULL). Returns 0, or -ENOENT when no quota is
 * set anywhere (then *CPUS is -1 and SOURCE "").
 */
int stg_cgroup_cpu_quota(double *cpus, char *source, size_t cap);

/*
 * The lowest memory limit over this process's cgroup and its ancestors,
 * in both hierarchies (v2 memory.max, v1 memory.limit_in_bytes; "max" and
 * v1's huge "unlimited" number are no limit), in bytes into *BYTES, and
 * its file (without the sysroot) into SOURCE (CAP bytes; may be NULL).
 * Returns 0, or -ENOENT when there is no limit (then *BYTES is -1 and
 * SOURCE "").
 */
int stg_cgroup_mem_limit(int64_t *bytes, char *source, size_t cap);

/*
 * Parse a kernel CPU list ("0-3,8,10-11", "" or "\n" = empty, stride
 * ranges "0-7:2" as in the kernel's own syntax) into *OUT. Whitespace
 * around the list is ignored. Returns 0, -EINVAL for a malformed list, or
 * -ERANGE for a CPU number >= CPU_SETSIZE.
 */
int stg_cpulist_parse(const char *s, cpu_set_t *out);

/*
 * Write SET as a CPU list ("0-3,8") into BUF of CAP bytes ("" when
 * empty). Returns the length, or -ENAMETOOLONG when it does not fit (BUF
 * then holds a truncated list ending in "...").
 */
int stg_cpulist_format(const cpu_set_t *set, char *buf, size_t cap);

/*
 * The SMT siblings of CPU, CPU itself included, from the sysroot's
 * /sys/devices/system/cpu/cpuCPU/topology/thread_siblings_list into *OUT
 * (one CPU alone on a machine without SMT). Returns 0, -errno when the
 * file cannot be read, -EINVAL when it does not parse or does not hold
 * CPU, -ERANGE for CPU >= CPU_SETSIZE.
 */
int stg_cpu_siblings(unsigned cpu, cpu_set_t *out);

/*
 * The machine's online CPUs, from the sysroot's
 * /sys/devices/system/cpu/online, into *OUT. Returns 0, -errno when the
 * file cannot be read, -EINVAL when it does not parse (*OUT then empty).
 */
int stg_cpus_online(cpu_set_t *out);

/* CPUs in this process's affinity mask (masks of any size), or -errno. */
int stg_cpus_affinity(void);

/*
 * The rule of stg_cpus_usable(), on given numbers: AFFINITY CPUs (<= 0:
 * unknown) lowered to the quota QUOTA_CPUS (<= 0: none) rounded down to
 * whole CPUs, at least 1. Pure.
 */
unsigned stg_cpus_usable_from(int affinity, double quota_cpus);

/*
 * Every CPU this process may use: its affinity mask (stg_cpus_affinity)
 * lowered to the cgroup CPU quota (stg_cgroup_cpu_quota), whole CPUs, at
 * least 1. The one definition of "usable CPUs" for every module.
 */
unsigned stg_cpus_usable(void);

/* ==== end dataset ==== */

/* ==== reader and backends ==== */

/*
 * Latency histogram: log-bucketed (every power of two split into
 * 2^STG_HISTO_SUB_BITS linear steps, so a percentile is within 1/32 = 3.1 %
 * of the true value), a plain value type that records without allocating,
 * merges across threads by adding, and holds values up to 2^63.
 * A histogram is not thread-safe: keep one per thread, merge at the end.
 */
#define STG_HISTO_SUB_BITS 5
#define STG_HISTO_SUB (1u << STG_HISTO_SUB_BITS)
#define STG_HISTO_BUCKETS ((64 - STG_HISTO_SUB_BITS + 1) * STG_HISTO_SUB)

struct stg_histo {
	uint64_t count;
	uint64_t sum;
	uint64_t min;           /* UINT64_MAX while empty */
	uint64_t max;
	uint64_t bucket[STG_HISTO_BUCKETS];
};

/* Empty H. */
void stg_histo_init(struct stg_histo *h);

/* Count one value V (e.g. nanoseconds) in H. Never allocates. */
void stg_histo_record(struct stg_histo *h, uint64_t v);

/* Add every count of SRC into DST (DST may already hold values). */
void stg_histo_merge(struct stg_histo *dst, const struct stg_histo *src);

/*
 * The value below which PCT percent (0..100) of the recorded values lie,
 * as the middle of its bucket clamped to [min, max]; 0 when H is empty.
 */
uint64_t stg_histo_percentile(const struct stg_histo *h, double pct);

/* Mean of the recorded values; 0 when H is empty. */
double stg_histo_mean(const struct stg_histo *h);

/*
 * Backends. `auto` given to stg_reader_create resolves once per process:
 * io_uring when the kernel lets this process create a ring, else psync,
 * with the reason kept in words. stg_backend_probe (below) resolves it by
 * measuring instead; `run`, `sweep` and `io` use that.
 */
enum stg_backend_id {
	STG_BACKEND_AUTO = 0,
	STG_BACKEND_URING,      /* io_uring: one ring per reader */
	STG_BACKEND_PSYNC,      /* a pthread pool doing pread */
	STG_BACKEND_NULL,       /* synthetic bytes of the right size, no disk */
};

/* "auto", "uring", "psync", "null"; "?" for anything else. */
const char *stg_backend_name(enum stg_backend_id id);

/* Parse a backend name as above. Returns 0 or -EINVAL. */
int stg_backend_parse(const char *name, enum stg_backend_id *out);

/*
 * Can this process use io_uring? Probes once (a tiny ring, created and
 * destroyed) and remembers the answer for the life of the process; thread
 * safe. Returns 0, or the -errno io_uring_setup gave. When WHY is not NULL
 * it receives one line a user can act on ("io_uring available", or e.g.
 * "io_uring refused (EPERM): kernel.io_uring_disabled=2 blocks it for every
 * process; set it to 0 ..."). /proc is read under $FEEDRATE_SYSROOT.
 */
int stg_uring_probe(char *why, size_t len);

/* Own error codes, returned negated like -errno; see stg_strerror(). */
enum {
	STG_ETOOLARGE = 2001,   /* file bigger than max_sample_bytes: not read */
	STG_ESHRANK,            /* file shorter than its listed size */
	STG_EGREW,              /* file longer than its listed size */
};

/* Text for a negative code: -errno or -STG_E*. Static string. */
const char *stg_strerror(int err);

/* Short stable key for an error code ("file_over_cap", "ENOENT", ...),
 * named for what the user must change: "file_over_cap" is a file over
 * --max-sample-bytes ("too_large" in older reports). */
const char *stg_errname(int err);

/* Reads in flight per reader, and the size of one read, when the caller
 * names none (loader.h's LDR_DEFAULT_DEPTH is this depth). */
#define STG_DEFAULT_DEPTH 32u
#define STG_DEFAULT_BLOCK_SIZE (128u * 1024)
#define STG_DEFAULT_MAX_SAMPLE_BYTES (64ull << 20) /* max_sample_bytes 0 */

/* The size to pass when the listing does not know it (read via fstat). */
#define STG_SIZE_UNKNOWN UINT64_MAX

struct stg_reader_config {
	enum stg_backend_id backend;  /* AUTO: uring if usable, else psync */
	unsigned depth;               /* reads (block-size chunks) in flight;
	                                 also the most files accepted at once.
	                                 0 = STG_DEFAULT_DEPTH (32) */
	uint32_t block_size;          /* chunk size of one read; multiple of
	                                 4096. 0 = STG_DEFAULT_BLOCK_SIZE
	                                 (128 KiB) */
	uint64_t max_sample_bytes;    /* larger files complete with
	                                 -STG_ETOOLARGE unread. 0 = 64 MiB
	                                 (STG_DEFAULT_MAX_SAMPLE_BYTES) */
	uint64_t max_inflight_bytes;  /* buffer memory of the reader: buffers
	                                 in flight plus those the caller still
	                                 holds. Rounded up to a power of two,
	                                 at least the bucket of max_sample_bytes.
	                                 0 = 4 x block_size x depth */
	unsigned psync_threads;       /* psync pool size. 0 = depth */
	bool direct;                  /* O_DIRECT where the filesystem takes
	                                 it; buffered (and noted) where not */
	bool no_register;             /* uring: do not register the buffers */
	bool force_async;             /* uring: IOSQE_ASYNC on every read, so
	                                 io-wq workers serve them (tests) */
	uint64_t null_delay_ns;       /* null: each file completes this long
	                                 after it was queued (emulated storage
	                                 latency; up to depth files overlap,
	                                 so depth / delay files/s). 0 = at
	                                 once */
	const char *reason;           /* words for why BACKEND was chosen
	                                 (stg_reader_backend_reason), e.g.
	                                 stg_backend_probe's; copied at
	                                 create. NULL: "chosen with
	                                 --backend", or auto's own */
};

/*
 * A whole-file read request. The fields are read during stg_reader_submit
 * only, except DIRFD, which must stay open until the completion (psync
 * opens on its own threads).
 */
struct stg_read_req {
	int dirfd;                    /* AT_FDCWD, or a folder NAME is under */
	const char *name;             /* path, relative to DIRFD when not
	                                 absolute */
	uint64_t size;                /* size from the listing, or
	                                 STG_SIZE_UNKNOWN */
	uint64_t user_data;           /* returned in the completion */
	void *dst;                    /* NULL: a buffer of the reader's pool.
	                                 Else the caller's memory the file is
	                                 read into (SIZE bytes; a direct
	                                 reader's: 4096-aligned, SIZE rounded
	                                 up to 4096), the reader's until the
	                                 completion, whose buf is then NULL
	                                 and data DST. SIZE must be known
	                                 (-EINVAL otherwise) */
};

/* A buffer from a reader's pool; hold it until stg_buf_release(). */
struct stg_buf;

struct stg_completion {
	uint64_t user_data;
	int result;                   /* 0, -errno, or -STG_E* */
	const void *data;             /* the file's bytes (NULL on error);
	                                 4096-aligned, or the request's DST */
	uint64_t len;                 /* bytes read = the file's size */
	struct stg_buf *buf;          /* owner of DATA; NULL on error */
	uint64_t clat_ns;             /* submit -> completion */
};

struct stg_reader_stats {
	uint64_t files_ok;
	uint64_t bytes;               /* bytes of files read whole */
	uint64_t reads;               /* read operations issued (chunks) */
	uint64_t errors;              /* completions with result != 0 */
	uint64_t too_large;           /* of which -STG_ETOOLARGE */
	uint64_t direct_refused;      /* files read buffered because the
	                                 filesystem refused O_DIRECT */
	struct stg_histo clat;        /* completion latency, ns, of every
	                                 completion but too-large ones */
};

struct stg_reader;

/*
 * Create a reader: one per thread that reads; a reader and its completions
 * belong to the thread that created it (stg_buf_release is the exception).
 * CFG may be NULL (defaults). Resolves the backend (auto probes io_uring
 * once per process), creates the ring or the thread pool and the buffer
 * pool (one 4096-aligned region; uring registers it as a fixed buffer where
 * RLIMIT_MEMLOCK allows, else reads into it unregistered and says so in
 * stg_reader_notes). Returns 0 and *OUT, or -errno (-ENOMEM, or the
 * backend's error when a backend was named explicitly and cannot start).
 */
int stg_reader_create(const struct stg_reader_config *cfg,
		      struct stg_reader **out);

/*
 * Stop and free R. Waits for reads still in flight and drops their bytes;
 * buffers the caller still holds must have been released before. NULL ok.
 */
void stg_reader_destroy(struct stg_reader *r);

/*
 * Queue a whole-file read. Does not wait for data (uring opens the file
 * here, and its SQEs are batched: they reach the kernel at the next
 * stg_reader_reap or stg_reader_flush; psync hands the request to its
 * threads at that point). Returns 0 when accepted: exactly one
 * completion will follow, which may be an error (-ENOENT for a vanished
 * file, -STG_ESHRANK, -STG_EGREW, -STG_ETOOLARGE for a file above
 * max_sample_bytes, completed at once and not read). Returns -EAGAIN when
 * the reader is full (depth files accepted, or no buffer left: reap, and
 * release buffers, then retry); -EINVAL for a bad request. With
 * STG_SIZE_UNKNOWN the size is taken with fstatat now.
 */
int stg_reader_submit(struct stg_reader *r, const struct stg_read_req *req);

/* Hand queued reads to the kernel / pool now. Returns 0 or -errno. */
int stg_reader_flush(struct stg_reader *r);

/*
 * Collect up to MAX completions into OUT. Waits up to TIMEOUT_NS for the
 * first one (0: do not wait; <0: wait until one comes, returns 0 at once
 * when nothing is in flight). Returns the number stored (0..MAX) or -errno.
 * Each successful completion hands its buffer to the caller.
 */
int stg_reader_reap(struct stg_reader *r, struct stg_completion *out,
		    unsigned max, int64_t timeout_ns);

/* Files accepted and not yet reaped. */
unsigned stg_reader_pending(const struct stg_reader *r);

/*
 * Give a completion's buffer back to its reader's pool. Any thread may
 * call it (workers release what the reader thread handed them); NULL ok.
 */
void stg_buf_release(struct stg_buf *buf);

/*
 * Put the threads that read for R on the CPUs the calling thread may use
 * now (sched_getaffinity): psync's pool threads move at once; for uring,
 * every io-wq worker the kernel starts from now on (io_uring_register_
 * iowq_aff). Workers already running keep their CPUs (Linux 6.18 applies
 * the mask to new workers only), so pin the thread BEFORE creating the
 * reader where it matters; a reader pins its ring's workers at creation.
 * Reader thread only. Returns 0 or -errno.
 */
int stg_reader_pin_workers(struct stg_reader *r);

/* The backend that really runs (never AUTO). */
enum stg_backend_id stg_reader_backend(const struct stg_reader *r);

/* Why that backend runs, in words ("io_uring available", "auto: ..."). */
const char *stg_reader_backend_reason(const struct stg_reader *r);

/*
 * Notes about how the reads are done, "" when nothing worth saying
 * (e.g. "buffers not registered: RLIMIT_MEMLOCK ...; raise ulimit -l").
 * Valid until stg_reader_destroy; reader thread only.
 */
const char *stg_reader_notes(const struct stg_reader *r);

/* Counters and histogram so far; reader thread only. */
void stg_reader_stats(const struct stg_reader *r,
		      struct stg_reader_stats *out);

/* ---- auto's choice by a short probe (storage/backend_probe.c) ---- */

/*
 * Costs differ between machines (a hypervisor's io_uring overhead, a FUSE
 * daemon's threads), so `auto` can be resolved by measuring: read a small
 * sample of the dataset through each backend and take psync only when it
 * is clearly faster; io_uring otherwise (it costs less CPU per read).
 */
#define STG_PROBE_PSYNC_MARGIN 1.2  /* psync needs >= 1.2x uring's files/s */
#define STG_PROBE_MIN_FILES 4       /* fewer read by psync: no comparison */

struct stg_probe_opts {
	double budget_s;        /* reading time per backend, at most
	                           (in-flight reads are finished after it);
	                           0 = 0.5 s */
	unsigned files;         /* files per backend, at most; 0 = 2 x depth,
	                           at least 8; two disjoint samples, so at
	                           most half the dataset each */
	bool evict;             /* cold state: evict each sampled file before
	                           it is read and every one after the probe,
	                           so the run finds them cold again */
	volatile int *stop;     /* non-zero: stop reading (then choose on
	                           what was read); NULL = none */
};

/* What one backend did with its sample. */
struct stg_probe_side {
	uint64_t files;         /* files read whole */
	uint64_t errors;        /* files that failed */
	double seconds;         /* wall time reading */
	double files_per_s;     /* files / seconds; 0 when nothing was read */
};

struct stg_probe_result {
	enum stg_backend_id chosen; /* STG_BACKEND_URING or STG_BACKEND_PSYNC */
	bool measured;          /* both backends read their samples */
	struct stg_probe_side uring, psync;
	char reason[400];       /* one line: "auto: probe at depth 32, cold:
	                           uring 167 files/s, psync 327 files/s ->
	                           psync (1.96x)" */
};

/*
 * The decision alone, from two sides' numbers: psync when it read at least
 * STG_PROBE_MIN_FILES files and its files/s is at least
 * STG_PROBE_PSYNC_MARGIN x uring's (uring having read nothing counts as
 * 0 files/s), else uring. WHY (LEN bytes, may be NULL) gets the words,
 * e.g. "uring 167 files/s, psync 327 files/s -> psync (1.96x)".
 * Pure; any thread.
 */
enum stg_backend_id stg_backend_decide(const struct stg_probe_side *uring,
				       const struct stg_probe_side *psync,
				       char *why, size_t len);

/*
 * Resolve `auto` for reading DS with CFG (depth, block size, O_DIRECT,
 * sizes; CFG->backend is ignored) on this machine, now: when io_uring is
 * refused, psync with the refusal's words (no reading); when DS has too
 * few files for two samples of STG_PROBE_MIN_FILES, uring unmeasured;
 * else two disjoint samples spread over the ids, one read through each
 * backend in the order uring, psync, psync, uring (half a sample each
 * time, so that a cache or a server warming up favours neither) with
 * depth files in flight, and stg_backend_decide(). Reads nothing into the
 * caller's counters; the readers it makes are gone when it returns.
 * OPTS may be NULL (defaults). Call it from the thread (and CPU mask)
 * that will read, before the measurement. Returns 0 and *OUT, or -errno
 * when DS's folder cannot be opened or a reader cannot be made (then
 * *OUT still holds uring, unmeasured, with the reason).
 */
int stg_backend_probe(const struct stg_dataset *ds,
		      const struct stg_reader_config *cfg,
		      const struct stg_probe_opts *opts,
		      struct stg_probe_result *out);

/* ==== end reader ==== */

/* ==== sequential whole-file writes and reads (storage/seqio.c) ==== */

/*
 * Large files written and read back in large sequential blocks, several in
 * flight, as a checkpoint's shards are: through one io_uring ring per
 * file (the caller's thread), or with pwrite/pread on that thread where
 * io_uring is refused or psync is asked. A file's bytes are a fixed
 * function of a seed and the offset (stg_seq_pattern): random-looking
 * bytes that repeat every STG_SEQ_PERIOD, with every 4 KiB page stamped
 * with its own offset and the seed, so that no two pages of a file are
 * alike and a read can check where each page came from.
 */
#define STG_SEQ_PERIOD (1u << 20)
#define STG_SEQ_BLOCK_DEFAULT (4u << 20)   /* bytes per write or read */
#define STG_SEQ_DEPTH_DEFAULT 4u           /* blocks in flight per file */

struct stg_seq_config {
	enum stg_backend_id backend;  /* AUTO: uring where this process may
	                                 make a ring, else psync; URING;
	                                 PSYNC (NULL is refused) */
	uint32_t block_size;          /* multiple of 4096; 0: the default */
	unsigned depth;               /* uring: blocks in flight; 0: the
	                                 default; psync does one at a time */
	bool direct;                  /* O_DIRECT (-EINVAL where the
	                                 filesystem refuses it) */
	volatile sig_atomic_t *stop;  /* non-zero: issue no more blocks,
	                                 finish those in flight, -EINTR */
};

struct stg_seq_stats {
	enum stg_backend_id backend;  /* the one that ran */
	char reason[200];             /* why, in words */
	uint64_t bytes;               /* written / read */
	double seconds;               /* write: open to fsync done; read:
	                                 open to the last block */
	double sync_s;                /* write: the fsync alone */
	uint64_t bad_pages;           /* read: pages whose stamp is not the
	                                 one written at their offset */
};

/*
 * The bytes of a file written with SEED, from offset OFF (a multiple of
 * 4096) for LEN bytes, into BUF. Allocates 1 MiB for the time of the
 * call. Returns 0 or -ENOMEM / -EINVAL (OFF not aligned). Any thread.
 */
int stg_seq_pattern(void *buf, size_t len, uint64_t seed, uint64_t off);

/*
 * Create NAME under DIRFD (O_EXCL: an existing file is never touched,
 * -EEXIST) and write SIZE bytes of SEED's pattern in CFG's blocks, then
 * fsync it. The folder is not synced (the caller syncs it once for
 * every file). On failure or stop the partial file is left for the
 * caller to remove (it knows which files it made): *CREATED says whether
 * this call made NAME. Fills *OUT. Returns 0, -EINTR (stopped), or
 * -errno (-ENOSPC, -EDQUOT, -EIO ...). Any thread; one file per call.
 */
int stg_seq_write(int dirfd, const char *name, uint64_t size, uint64_t seed,
		  const struct stg_seq_config *cfg, bool *created,
		  struct stg_seq_stats *out);

/*
 * Read NAME under DIRFD whole in CFG's blocks, checking each page's stamp
 * against SEED (mismatches counted in OUT->bad_pages; the bytes are
 * dropped). Returns 0, -EINTR (stopped), or -errno. Any thread.
 */
int stg_seq_read(int dirfd, const char *name, uint64_t seed,
		 const struct stg_seq_config *cfg, struct stg_seq_stats *out);

/* ==== end sequential files ==== */

/* ==== one file streamed in large blocks (storage/stream.c) ==== */

/*
 * A shard read front to back: DEPTH blocks of BLOCK_SIZE in flight through
 * an io_uring ring of the stream's own, handed to the caller whole and in
 * file order (psync: one pread per block on the caller's thread, with
 * the kernel's sequential read-ahead). One stream per thread; it reads
 * one file at a time. The blocks are the stream's own, or the caller's
 * (caller_blocks): then the caller names where each block lands
 * (stg_stream_feed) and the bytes are written there once, by the read.
 */
#define STG_STREAM_BLOCK_DEFAULT (1u << 20)   /* --read-size's default */
#define STG_STREAM_DEPTH_DEFAULT 4u

struct stg_stream_config {
	enum stg_backend_id backend;  /* AUTO: uring where this process may
	                                 make a ring, else psync; URING (its
	                                 refusal is returned); PSYNC. NULL
	                                 is refused (-EINVAL) */
	uint32_t block_size;          /* multiple of 4096; 0: the default */
	unsigned depth;               /* uring: blocks in flight (at most
	                                 64); 0: the default */
	bool direct;                  /* O_DIRECT; buffered (and counted in
	                                 direct_refused) where refused */
	bool caller_blocks;           /* no blocks of its own: each read
	                                 lands where stg_stream_feed says */
};

struct stg_stream_stats {
	enum stg_backend_id backend;  /* the one that runs */
	uint64_t files;               /* opened */
	uint64_t bytes;               /* handed out */
	uint64_t reads;               /* blocks issued */
	uint64_t direct_refused;      /* files opened buffered */
	struct stg_histo lat;         /* block: issue -> whole, ns */
};

struct stg_stream;

/* Create a stream (its ring, and DEPTH blocks of memory unless
 * caller_blocks). 0 or -errno. */
int stg_stream_create(const struct stg_stream_config *cfg,
		      struct stg_stream **out);

/* Close any file the stream has, waiting for its reads; free it. NULL ok. */
void stg_stream_destroy(struct stg_stream *s);

/* Reads the stream keeps in flight (1 on psync): how many blocks a
 * caller_blocks caller may have fed and not yet taken. */
unsigned stg_stream_depth(const struct stg_stream *s);

/*
 * Open NAME under DIRFD (a regular file: else -EINVAL) and queue the
 * reads of its first blocks (caller_blocks: none, the caller feeds them);
 * a file open before is closed first. The file's size at this call is
 * what will be read. 0 or -errno.
 */
int stg_stream_open(struct stg_stream *s, int dirfd, const char *name);

/* The open file's size (0 when none is open). */
uint64_t stg_stream_size(const struct stg_stream *s);

/*
 * caller_blocks: queue the read of the next unread block into DST
 * (block_size bytes, 4096-aligned; the last block of a file may be
 * shorter). DST belongs to the stream until stg_stream_next hands the
 * block out or the close returns 0: the caller neither reads nor writes
 * it, nor frees it, before then. Returns 1 (queued), 0 when every block
 * of the file is queued already, -EBUSY when depth blocks are queued and
 * not yet taken, -EINVAL without caller_blocks, -EBADF with no file open,
 * or -errno of the submission. The stream's thread only.
 */
int stg_stream_feed(struct stg_stream *s, uint8_t *dst);

/* Blocks queued and not yet handed out (0 with no file open). */
unsigned stg_stream_queued(const struct stg_stream *s);

/*
 * The next block in file order, waiting up to TIMEOUT_NS (<0: no limit)
 * for it. Returns 1 with *DATA, *LEN, 0 at the end of the file, -ETIME
 * when the time ran out (ask again), -ENOBUFS (caller_blocks) when no
 * block was fed, or -errno of the read (-ENODATA: the file shrank). Own
 * blocks: *DATA is valid until the next call, the close or the destroy;
 * the block handed out before this call goes back to reading.
 * caller_blocks: *DATA is the DST the block was fed with, the caller's
 * again.
 */
int stg_stream_next(struct stg_stream *s, const uint8_t **data, size_t *len,
		    int64_t timeout_ns);

/*
 * Stop reading the open file, waiting for its reads in flight. 0, or
 * -EIO when the ring failed with reads in flight: the memory they were
 * queued into may still be written (caller_blocks: never reuse it).
 * NULL ok.
 */
int stg_stream_close(struct stg_stream *s);

void stg_stream_stats(const struct stg_stream *s,
		      struct stg_stream_stats *out);

/* ==== end stream ==== */

#endif /* FEEDRATE_STORAGE_H */
