/*
 * fault_testlib.h - helpers for the end-to-end hardening tests
 * (tests/test_faults_slow.c, tests/test_hardening_slow.c): run the real
 * binary ($FEEDRATE_BIN) in its own process group with an optional
 * capability drop, seccomp filter, environment or mid-run action, wait
 * for it with a hang limit, read its JSON report, and digest a dataset
 * before and after to prove that nothing in it changed. Header-only
 * (static functions marked unused) so each test file stays
 * self-contained.
 */
#ifndef FEEDRATE_FAULT_TESTLIB_H
#define FEEDRATE_FAULT_TESTLIB_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <seccomp.h>

#include "harness.h"

#define FT_UNUSED __attribute__((unused))

#define FIXTURES "tests/fixtures/jpeg/"

static FT_UNUSED const char *fault_bin(void)
{
	const char *b = getenv("FEEDRATE_BIN");

	if (!b || !*b)
		cr_skip_test("FEEDRATE_BIN is not set (make test sets it)");
	return b;
}

/*
 * fr_test_tmpdir() for a test that runs the binary: skips first (nothing
 * is created) when there is no binary to run.
 */
static FT_UNUSED char *fault_tmpdir(void)
{
	fault_bin();
	return fr_test_tmpdir();
}

/* fault_tmpdir() for a test that needs root: skips first when not root. */
static FT_UNUSED char *fault_tmpdir_root(const char *why)
{
	if (geteuid() != 0)
		cr_skip_test("%s", why);
	return fault_tmpdir();
}

/* ---- the dataset digest ---- */

static FT_UNUSED uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* Content of a regular file: its data extents (holes read as zeros). */
static FT_UNUSED uint64_t digest_file(uint64_t h, const char *path, off_t size)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t pos = 0;

	cr_assert_geq(fd, 0, "digest: open %s: %s", path, strerror(errno));
	while (pos < size) {
		off_t data = lseek(fd, pos, SEEK_DATA), hole;

		if (data < 0)
			break;          /* only a hole is left */
		hole = lseek(fd, data, SEEK_HOLE);
		cr_assert_geq(hole, data);
		h = fnv(h, &data, sizeof(data));
		for (off_t at = data; at < hole; ) {
			ssize_t n = pread(fd, buf, sizeof(buf), at);

			cr_assert_gt(n, 0, "digest: read %s", path);
			h = fnv(h, buf, (size_t)n);
			at += n;
		}
		pos = hole;
	}
	close(fd);
	return h;
}

static FT_UNUSED uint64_t tree_digest_value;
static FT_UNUSED size_t tree_root_len;

static FT_UNUSED int digest_entry(const char *path, const struct stat *st,
				  int flag, struct FTW *ftw)
{
	uint64_t h = tree_digest_value;
	char target[4096];

	(void)ftw;
	h = fnv(h, path + tree_root_len, strlen(path + tree_root_len) + 1);
	h = fnv(h, &flag, sizeof(flag));
	if (flag == FTW_NS) {
		tree_digest_value = h;
		return 0;
	}
	h = fnv(h, &st->st_mode, sizeof(st->st_mode));
	h = fnv(h, &st->st_size, sizeof(st->st_size));
	/* a folder's mtime moves when a test renames entries in and out */
	if (!S_ISDIR(st->st_mode))
		h = fnv(h, &st->st_mtim, sizeof(st->st_mtim));
	if (S_ISLNK(st->st_mode)) {
		ssize_t n = readlink(path, target, sizeof(target));

		cr_assert_geq(n, 0);
		h = fnv(h, target, (size_t)n);
	} else if (S_ISREG(st->st_mode)) {
		h = digest_file(h, path, st->st_size);
	}
	tree_digest_value = h;
	return 0;
}

/* Digest of everything under ROOT, links not followed. */
static FT_UNUSED uint64_t tree_digest(const char *root)
{
	tree_digest_value = 0xcbf29ce484222325ull;
	tree_root_len = strlen(root);
	cr_assert_eq(nftw(root, digest_entry, 16, FTW_PHYS), 0);
	return tree_digest_value;
}

/* ---- building datasets ---- */

static FT_UNUSED void put_bytes(const char *path, const void *data,
				size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	/* written back now: the run's cold-cache eviction needs clean pages */
	cr_assert_eq(fsync(fd), 0);
	close(fd);
}

static FT_UNUSED void copy_fixture(const char *name, const char *dst)
{
	static char buf[1 << 16];
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	cr_assert_geq(fd, 0, "fixture %s: %s (run from the source tree)", name,
		      strerror(errno));
	n = read(fd, buf, sizeof(buf));
	cr_assert_gt(n, 0);
	close(fd);
	put_bytes(dst, buf, (size_t)n);
}

/*
 * A fresh dataset DIR/ds with a class folder c1 holding six valid JPEGs
 * (baseline copies), where a test adds its faulty entries. Returns the
 * dataset's path (malloc'd).
 */
static FT_UNUSED char *make_dataset(const char *dir)
{
	char *ds, path[4096];

	cr_assert_geq(asprintf(&ds, "%s/ds", dir), 0);
	cr_assert_eq(mkdir(ds, 0755), 0);
	snprintf(path, sizeof(path), "%s/c1", ds);
	cr_assert_eq(mkdir(path, 0755), 0);
	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s/c1/good_%d.JPEG", ds, i);
		copy_fixture(FIXTURES "baseline.jpg", path);
	}
	return ds;
}

static FT_UNUSED void add_fixture(const char *ds, const char *fixture,
				  const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/c1/%s", ds, name);
	copy_fixture(fixture, path);
}

/* ---- running the binary ---- */

struct fault_run {
	int status;             /* exit status (-1 when killed by a signal) */
	int termsig;            /* the signal that killed it, else 0 */
	double stop_s;          /* seconds from the first signal to the exit */
	double fired_s, total_s;/* when the mid-run action or signal came,
	                           and the exit, in seconds from the start */
	json_t *json;           /* the --json report, NULL when none */
	char out[4096], err[4096];
	char fired_on[4200];    /* the open file that set off the mid-run
	                           action or signal, and whose it was */
};

/* What to take away from the child before exec (bits). */
enum fault_as {
	FAULT_AS_ROOT = 0,
	FAULT_NO_DAC = 1,       /* without CAP_DAC_OVERRIDE/_READ_SEARCH */
	FAULT_NO_URING = 2,     /* io_uring_setup fails with EPERM (seccomp) */
	FAULT_MEMLOCK_64K = 4,  /* RLIMIT_MEMLOCK 64 KiB, CAP_IPC_LOCK gone */
	FAULT_NOBODY = 8,       /* uid/gid 65534 (no cgroup may be made) */
};

/* Called once the run is reading the dataset, e.g. to pull a folder. */
typedef void (*fault_midrun_fn)(const char *ds);

struct fault_opts {
	unsigned as;                    /* enum fault_as bits */
	const char *watch;              /* folder whose files being open
	                                   means "running" (midrun, signal) */
	fault_midrun_fn midrun;
	const char *const *env;         /* "NAME=value" to add, NULL-ended */
	int signal, signal2;            /* sent once running; signal2 0.2 s
	                                   after signal (0: none) */
	bool may_die;                   /* death by a signal is not a failure */
	int min_procs;                  /* "running" also needs this many
	                                   processes in the group (a child) */
};

/* The processes of a command whose measuring child is up: the supervisor
 * (ldr_supervise), the command itself and its pinned child. */
#define FAULT_MEASURING_PROCS 3

static FT_UNUSED void drop_caps(const cap_value_t *drop, int n)
{
	cap_t caps = cap_get_proc();

	/* from the bounding set too: exec as uid 0 would grant them again */
	for (int i = 0; i < n; i++)
		if (prctl(PR_CAPBSET_DROP, drop[i], 0, 0, 0))
			_exit(126);
	if (!caps ||
	    cap_set_flag(caps, CAP_EFFECTIVE, n, drop, CAP_CLEAR) ||
	    cap_set_flag(caps, CAP_PERMITTED, n, drop, CAP_CLEAR) ||
	    cap_set_flag(caps, CAP_INHERITABLE, n, drop, CAP_CLEAR) ||
	    cap_set_proc(caps))
		_exit(126);
	cap_free(caps);
}

/* In the child, before exec: take away what AS says. */
static FT_UNUSED void fault_restrict(unsigned as)
{
	if (as & FAULT_NO_DAC) {
		static const cap_value_t dac[] = { CAP_DAC_OVERRIDE,
						   CAP_DAC_READ_SEARCH };

		drop_caps(dac, 2);
	}
	if (as & FAULT_MEMLOCK_64K) {
		static const cap_value_t lock[] = { CAP_IPC_LOCK };
		struct rlimit rl = { 64 << 10, 64 << 10 };

		if (setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(126);
		drop_caps(lock, 1);
	}
	if (as & FAULT_NO_URING) {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

		/* kept across exec (no_new_privs is set by seccomp_load) */
		if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
					     SCMP_SYS(io_uring_setup), 0) ||
		    seccomp_load(ctx))
			_exit(126);
		seccomp_release(ctx);
	}
	if (as & FAULT_NOBODY) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(126);
	}
}

/*
 * Does any process of process group PGID hold a regular file under PREFIX
 * open?
 */
static FT_UNUSED bool group_has_open(pid_t pgid, const char *prefix,
				     char *which, size_t which_len)
{
	size_t plen = strlen(prefix);
	struct dirent *p;
	bool found = false;
	DIR *proc = opendir("/proc");

	if (!proc)
		return false;
	while (!found && (p = readdir(proc))) {
		char fdpath[64], link[320], target[4096];
		struct stat st;
		struct dirent *f;
		pid_t pid = (pid_t)atoi(p->d_name);
		DIR *fds;

		if (pid <= 0 || getpgid(pid) != pgid)
			continue;
		snprintf(fdpath, sizeof(fdpath), "/proc/%d/fd", pid);
		fds = opendir(fdpath);
		if (!fds)
			continue;
		while (!found && (f = readdir(fds))) {
			ssize_t n;

			snprintf(link, sizeof(link), "%s/%s", fdpath, f->d_name);
			n = readlink(link, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			/* a file being read, not a folder held open */
			found = !strncmp(target, prefix, plen) &&
				target[plen] == '/' &&
				!stat(target, &st) && S_ISREG(st.st_mode);
			if (found && which)
				snprintf(which, which_len, "%s, open in pid "
					 "%d (%s)", target, (int)pid,
					 pid == pgid ? "the command's first "
					 "process" : "a process it started");
		}
		closedir(fds);
	}
	closedir(proc);
	return found;
}

/*
 * A sanitizer build of the binary reports into its stderr, which these
 * tests keep in a file the test runner never sees: look there.
 */
static FT_UNUSED void fault_no_sanitizer_report(const char *err_path)
{
	char line[1024];
	FILE *f = fopen(err_path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		cr_expect(!strstr(line, "Sanitizer") &&
			  !strstr(line, "runtime error:"),
			  "sanitizer report in %s: %s", err_path, line);
	fclose(f);
}

/* Processes in process group PGID. */
static FT_UNUSED int group_size(pid_t pgid)
{
	struct dirent *p;
	int n = 0;
	DIR *proc = opendir("/proc");

	if (!proc)
		return 0;
	while ((p = readdir(proc))) {
		pid_t pid = (pid_t)atoi(p->d_name);

		if (pid > 0 && getpgid(pid) == pgid)
			n++;
	}
	closedir(proc);
	return n;
}

static FT_UNUSED double ft_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Run the binary with ARGS (NULL-terminated, without argv[0]) in its own
 * process group and wait up to 120 s (a hang fails the test). DIR holds
 * stdout/stderr; the report is read from JSON_PATH when not NULL. O may
 * be NULL (run as root, nothing else).
 */
static FT_UNUSED void fault_exec2(const char *dir, const char *const *args,
				  const char *json_path,
				  const struct fault_opts *o,
				  struct fault_run *r)
{
	static const struct fault_opts none;
	const char *argv[64];
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	size_t n = 0;
	bool fired = false;
	double t_sig = 0, t_start;
	int status = 0;
	pid_t pid;

	if (!o)
		o = &none;
	memset(r, 0, sizeof(*r));
	argv[n++] = fault_bin();
	for (; *args; args++) {
		cr_assert_lt(n, 62);
		argv[n++] = *args;
	}
	argv[n] = NULL;
	snprintf(r->out, sizeof(r->out), "%s/stdout", dir);
	snprintf(r->err, sizeof(r->err), "%s/stderr", dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fo = open(r->out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int fe = open(r->err, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(127);
		setpgid(0, 0);
		for (const char *const *e = o->env; e && *e; e++)
			putenv((char *)*e);
		fault_restrict(o->as);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	setpgid(pid, pid);
	t_start = ft_now();
	for (int i = 0;; i++) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if ((o->midrun || o->signal) && !fired &&
		    group_size(pid) >= o->min_procs &&
		    group_has_open(pid, o->watch, r->fired_on,
				   sizeof(r->fired_on))) {
			/* let it get into its stride first */
			struct timespec settle = { 0, 300 * 1000 * 1000 };

			nanosleep(&settle, NULL);
			r->fired_s = ft_now() - t_start;
			if (o->midrun)
				o->midrun(o->watch);
			if (o->signal) {
				t_sig = ft_now();
				kill(pid, o->signal);
			}
			if (o->signal2) {
				struct timespec gap = { 0, 200 * 1000 * 1000 };

				nanosleep(&gap, NULL);
				kill(pid, o->signal2);
			}
			fired = true;
		}
		nanosleep(&tick, NULL);
		if (i == 120 * 50) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			cr_assert_fail("feedrate %s did not exit within 120 s",
				       argv[1]);
		}
	}
	r->total_s = ft_now() - t_start;
	if (fired && o->signal)
		r->stop_s = ft_now() - t_sig;
	/* nothing of its group may outlive it (a pinned child, a worker);
	 * a child it killed or left on its way out may take a moment to
	 * end and be reaped (seconds under a sanitizer's exit checks on a
	 * loaded machine): what is still there after 10 s was left running */
	for (int i = 0; kill(-pid, 0) == 0; i++) {
		if (i == 500) {
			kill(-pid, SIGKILL);
			cr_expect_fail("processes of feedrate %s outlived it "
				       "by 10 s", argv[1]);
			break;
		}
		nanosleep(&tick, NULL);
	}
	if (o->midrun || o->signal)
		cr_assert(fired, "the command never opened a file of %s",
			  o->watch);
	if (WIFSIGNALED(status)) {
		r->status = -1;
		r->termsig = WTERMSIG(status);
		cr_assert(o->may_die, "feedrate %s died by signal %d (stderr "
			  "in %s)", argv[1], r->termsig, r->err);
	} else {
		r->status = WEXITSTATUS(status);
	}
	cr_assert_neq(r->status, 127, "could not exec %s", argv[0]);
	cr_assert_neq(r->status, 126, "could not restrict the child");
	fault_no_sanitizer_report(r->err);
	if (json_path) {
		json_error_t jerr;

		r->json = json_load_file(json_path, 0, &jerr);
	}
}

/* fault_exec2 as root with an optional mid-run action on DS. */
static FT_UNUSED void fault_exec(const char *dir, const char *const *args,
				 const char *json_path, unsigned as,
				 const char *ds, fault_midrun_fn midrun,
				 struct fault_run *r)
{
	/* mid-run means while the measurement's pinned child reads (not
	 * while the parent lists or evicts the dataset) */
	struct fault_opts o = { .as = as, .watch = ds, .midrun = midrun,
				.min_procs = midrun ? FAULT_MEASURING_PROCS :
				0 };

	fault_exec2(dir, args, json_path, &o, r);
}

/*
 * The arguments of a short `feedrate run` over DS: 3 epochs (every file
 * is read, however slow the machine) unless EXTRA gives --duration or
 * --epochs, no warm-up, batch 4, no emulated GPU (the raw feed rate), one
 * vCPU, JSON into DIR/report.json (written to JSON), then EXTRA
 * (NULL-terminated, may be NULL) and DS. ARGS needs 48 slots.
 */
static FT_UNUSED void fault_run_args(const char *dir, const char *ds,
				     const char *const *extra,
				     char json[4096], const char **args)
{
	static const char *const base[] = {
		"run", "--warmup", "0", "--batch", "4", "--gpus", "0",
		"--vcpus", "1", "--json" };
	bool how_long = false;
	size_t n = 0;

	snprintf(json, 4096, "%s/report.json", dir);
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		args[n++] = base[i];
	args[n++] = json;
	for (const char *const *e = extra; e && *e; e++)
		how_long |= !strcmp(*e, "--duration") || !strcmp(*e, "--epochs");
	if (!how_long) {
		args[n++] = "--epochs";
		args[n++] = "3";
	}
	for (; extra && *extra && n < 45; extra++)
		args[n++] = *extra;
	args[n++] = ds;
	args[n] = NULL;
}

static FT_UNUSED void fault_run_cmd(const char *dir, const char *ds,
				    const char *const *extra, unsigned as,
				    fault_midrun_fn midrun,
				    struct fault_run *r)
{
	const char *args[48];
	char json[4096];

	fault_run_args(dir, ds, extra, json, args);
	fault_exec(dir, args, json, as, ds, midrun, r);
}

static FT_UNUSED void fault_io_cmd(const char *dir, const char *ds,
				   const char *const *extra, unsigned as,
				   struct fault_run *r)
{
	char json[4096];
	const char *args[32] = { "io", "--json", json };
	size_t n = 3;

	snprintf(json, sizeof(json), "%s/report.json", dir);
	for (; extra && *extra && n < 29; extra++)
		args[n++] = *extra;
	args[n++] = ds;
	args[n] = NULL;
	fault_exec(dir, args, json, as, ds, NULL, r);
}

static FT_UNUSED void fault_run_free(struct fault_run *r)
{
	json_decref(r->json);
	r->json = NULL;
}

/* errors.kinds.KIND.count (0 when absent), and its example in *EXAMPLE. */
static FT_UNUSED json_int_t error_count(const struct fault_run *r,
					const char *kind,
					const char **example)
{
	json_t *k;

	cr_assert_not_null(r->json, "no JSON report (exit %d, stderr in %s)",
			   r->status, r->err);
	k = json_object_get(json_object_get(json_object_get(r->json, "errors"),
					    "kinds"), kind);
	if (example)
		*example = json_string_value(json_object_get(k, "example"));
	return json_integer_value(json_object_get(k, "count"));
}

static FT_UNUSED json_int_t error_total(const struct fault_run *r)
{
	cr_assert_not_null(r->json, "no JSON report (exit %d)", r->status);
	return json_integer_value(json_object_get(
		json_object_get(r->json, "errors"), "total"));
}

/* The run counted KIND at least once, with an example ending in NAME. */
static FT_UNUSED void expect_kind(const struct fault_run *r,
				  const char *kind, const char *name)
{
	const char *ex = NULL;
	json_int_t n = error_count(r, kind, &ex);
	size_t el, nl = strlen(name);

	cr_assert_gt(n, 0, "no '%s' error counted (stderr in %s)", kind,
		     r->err);
	cr_assert_not_null(ex, "'%s' has no example path", kind);
	el = strlen(ex);
	cr_assert(el >= nl && !strcmp(ex + el - nl, name),
		  "'%s' example is %s, expected .../%s", kind, ex, name);
}

#endif /* FEEDRATE_FAULT_TESTLIB_H */
