/*
 * test_backend_refusal.c - io_uring refused for real, in child processes:
 * a seccomp filter failing io_uring_setup with EPERM (a container's default
 * profile), and a small RLIMIT_MEMLOCK after dropping CAP_IPC_LOCK (root
 * ignores the limit). `auto` must fall back to psync, say why in words a
 * user can act on, and read the same bytes; a limit that allows a ring but
 * not the registered buffers must still read through io_uring.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>
#include <sys/capability.h>

#include "harness.h"
#include "test_backend_util.h"

struct child_out {
	int setup_err;                /* stg_reader_create */
	int probe_err;                /* stg_uring_probe */
	enum stg_backend_id backend;
	int ok;                       /* files whose bytes matched */
	int bad;
	char reason[400];
	char notes[512];
	char skip[200];               /* non-empty: the child could not set up */
};

typedef int (*child_setup_fn)(struct child_out *out, void *arg);

#define NFILES 4

/* In a child: SETUP, then read FILES with backend auto and report. */
static void run_child(child_setup_fn setup, void *arg, struct tb_file *files,
		      struct child_out *out)
{
	int pipefd[2], status;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct child_out o;
		struct stg_reader_config cfg = { .backend = STG_BACKEND_AUTO,
						 .depth = 4,
						 .block_size = 64 * 1024 };
		struct stg_completion c[8];
		struct stg_reader *r;
		int next = 0, done = 0;

		memset(&o, 0, sizeof(o));
		close(pipefd[0]);
		stg_uring_probe_forget();
		if (setup(&o, arg) == 0) {
			o.probe_err = stg_uring_probe(NULL, 0);
			o.setup_err = stg_reader_create(&cfg, &r);
		} else {
			o.setup_err = -1;
		}
		if (!o.setup_err) {
			o.backend = stg_reader_backend(r);
			snprintf(o.reason, sizeof(o.reason), "%s",
				 stg_reader_backend_reason(r));
			while (done < NFILES) {
				int n;

				while (next < NFILES &&
				       !stg_reader_submit(r, &files[next].req))
					next++;
				n = stg_reader_reap(r, c, 8, 5000000000ll);
				if (n <= 0)
					break;
				for (int i = 0; i < n; i++) {
					const struct tb_file *f =
						&files[c[i].user_data];

					if (!c[i].result && c[i].len == f->size &&
					    tb_fnv(TB_FNV0, c[i].data, c[i].len) ==
					    f->sum)
						o.ok++;
					else
						o.bad++;
					stg_buf_release(c[i].buf);
					done++;
				}
			}
			snprintf(o.notes, sizeof(o.notes), "%s",
				 stg_reader_notes(r));
			stg_reader_destroy(r);
		}
		if (write(pipefd[1], &o, sizeof(o)) != (ssize_t)sizeof(o))
			_exit(2);
		_exit(0);
	}
	close(pipefd[1]);
	cr_assert_eq(read(pipefd[0], out, sizeof(*out)), (ssize_t)sizeof(*out),
		     "the child died before reporting");
	close(pipefd[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void make_files(const char *dir, struct tb_file *f)
{
	static const uint64_t sz[NFILES] = { 0, 4097, 300001, 2 << 20 };

	for (int i = 0; i < NFILES; i++)
		tb_make_file(dir, &f[i], (size_t)i, sz[i], (uint32_t)i + 7);
}

static int seccomp_eperm(struct child_out *o, void *arg)
{
	const char *sysroot = arg;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int err;

	if (!ctx) {
		snprintf(o->skip, sizeof(o->skip), "seccomp_init failed");
		return -1;
	}
	err = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
			       SCMP_SYS(io_uring_setup), 0);
	if (!err)
		err = seccomp_load(ctx);
	seccomp_release(ctx);
	if (err) {
		snprintf(o->skip, sizeof(o->skip), "seccomp filter not "
			 "loaded: %s", strerror(-err));
		return -1;
	}
	if (sysroot)
		stg_sysroot_set(sysroot);
	return 0;
}

static bool uring_here(void)
{
	char why[400];

	if (stg_uring_probe(why, sizeof(why))) {
		cr_log_warn("io_uring unusable here already: %s", why);
		return false;
	}
	return true;
}

FR_TEST(backend_refusal, seccomp_eperm_falls_back_to_psync_with_reason)
{
	char *dir = fr_test_tmpdir();
	struct tb_file f[NFILES];
	struct child_out o;

	make_files(dir, f);
	run_child(seccomp_eperm, NULL, f, &o);
	if (o.skip[0]) {
		fr_test_rmtree(dir);
		cr_skip_test("%s", o.skip);
	}
	cr_expect_eq(o.probe_err, -EPERM);
	cr_assert_eq(o.setup_err, 0, "auto did not start: %s",
		     stg_strerror(o.setup_err));
	cr_expect_eq(o.backend, STG_BACKEND_PSYNC);
	cr_expect(strstr(o.reason, "seccomp") && strstr(o.reason, "psync"),
		  "reason: %s", o.reason);
	cr_expect_eq(o.ok, NFILES, "reason %s", o.reason);
	cr_expect_eq(o.bad, 0);
	fr_test_rmtree(dir);
}

/* The same EPERM on a machine whose sysctl says io_uring_disabled=2: the
 * reason names the sysctl, read through FEEDRATE_SYSROOT's fixture. */
FR_TEST(backend_refusal, disabled_sysctl_is_named_in_the_reason)
{
	char *dir = fr_test_tmpdir();
	char root[600], p[700];
	struct tb_file f[NFILES];
	struct child_out o;
	FILE *fp;

	make_files(dir, f);
	snprintf(root, sizeof(root), "%s/sysroot", dir);
	snprintf(p, sizeof(p), "%s/proc/sys/kernel", root);
	for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	cr_assert_eq(mkdir(p, 0755), 0);
	strcat(p, "/io_uring_disabled");
	fp = fopen(p, "w");
	cr_assert(fp);
	fputs("2\n", fp);
	fclose(fp);
	run_child(seccomp_eperm, root, f, &o);
	if (o.skip[0]) {
		fr_test_rmtree(dir);
		cr_skip_test("%s", o.skip);
	}
	cr_expect_eq(o.backend, STG_BACKEND_PSYNC);
	cr_expect(strstr(o.reason, "io_uring_disabled=2") != NULL,
		  "reason: %s", o.reason);
	cr_expect_eq(o.ok, NFILES);
	fr_test_rmtree(dir);
}

/* Drop CAP_IPC_LOCK (root ignores RLIMIT_MEMLOCK) and set the limit. */
static int memlock_limit(struct child_out *o, void *arg)
{
	rlim_t lim = *(const rlim_t *)arg;
	struct rlimit rl = { lim, lim };
	cap_value_t v = CAP_IPC_LOCK;
	cap_t caps = cap_get_proc();

	if (!caps || cap_set_flag(caps, CAP_EFFECTIVE, 1, &v, CAP_CLEAR) ||
	    cap_set_flag(caps, CAP_PERMITTED, 1, &v, CAP_CLEAR) ||
	    cap_set_proc(caps)) {
		snprintf(o->skip, sizeof(o->skip), "cannot drop CAP_IPC_LOCK: %s",
			 strerror(errno));
		cap_free(caps);
		return -1;
	}
	cap_free(caps);
	if (setrlimit(RLIMIT_MEMLOCK, &rl)) {
		snprintf(o->skip, sizeof(o->skip), "setrlimit: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Kernels since 6.x account the ring's own pages to RLIMIT_MEMLOCK again
 * (io_uring memory regions): with 4 KiB io_uring_setup fails with ENOMEM
 * (measured on 6.18). Older kernels (5.12 .. 6.x) charge the memory cgroup
 * instead and create the ring: then only the buffers are refused, which
 * the next test checks.
 */
FR_TEST(backend_refusal, memlock_too_small_for_a_ring_falls_back_with_reason)
{
	char *dir = fr_test_tmpdir();
	struct tb_file f[NFILES];
	rlim_t lim = 4096;
	struct child_out o;

	if (!uring_here()) {
		fr_test_rmtree(dir);
		cr_skip_test("io_uring refused before any limit");
	}
	make_files(dir, f);
	run_child(memlock_limit, &lim, f, &o);
	if (o.skip[0]) {
		fr_test_rmtree(dir);
		cr_skip_test("%s", o.skip);
	}
	cr_assert_eq(o.setup_err, 0);
	if (o.probe_err == 0) {
		cr_log_warn("this kernel creates a ring under a 4 KiB memlock "
			    "limit (ring memory not charged to it)");
		cr_expect_eq(o.backend, STG_BACKEND_URING);
		cr_expect(strstr(o.notes, "not registered") != NULL,
			  "notes: %s", o.notes);
	} else {
		cr_expect_eq(o.probe_err, -ENOMEM);
		cr_expect_eq(o.backend, STG_BACKEND_PSYNC);
		cr_expect(strstr(o.reason, "ENOMEM") &&
			  strstr(o.reason, "ulimit -l"), "reason: %s", o.reason);
	}
	cr_expect_eq(o.ok, NFILES);
	cr_expect_eq(o.bad, 0);
	fr_test_rmtree(dir);
}

FR_TEST(backend_refusal, memlock_too_small_for_buffers_reads_unregistered)
{
	char *dir = fr_test_tmpdir();
	struct tb_file f[NFILES];
	rlim_t lim = 256 * 1024;   /* a ring, not a 4 MiB buffer pool */
	struct child_out o;

	if (!uring_here()) {
		fr_test_rmtree(dir);
		cr_skip_test("io_uring refused before any limit");
	}
	make_files(dir, f);
	run_child(memlock_limit, &lim, f, &o);
	if (o.skip[0]) {
		fr_test_rmtree(dir);
		cr_skip_test("%s", o.skip);
	}
	cr_assert_eq(o.setup_err, 0);
	cr_expect_eq(o.probe_err, 0);
	cr_expect_eq(o.backend, STG_BACKEND_URING, "reason: %s", o.reason);
	cr_expect(strstr(o.notes, "not registered (ENOMEM)") &&
		  strstr(o.notes, "ulimit -l"), "notes: %s", o.notes);
	cr_expect_eq(o.ok, NFILES);
	cr_expect_eq(o.bad, 0);
	fr_test_rmtree(dir);
}

/* The words for each refusal, table-driven. */
FR_TEST(backend_refusal, refusal_texts_tell_what_to_do)
{
	static const struct {
		int err, disabled;
		const char *must[2];
	} cases[] = {
		{ -EPERM, 2, { "io_uring_disabled=2", "sysctl" } },
		{ -EPERM, 1, { "io_uring_disabled=1", "CAP_SYS_ADMIN" } },
		{ -EPERM, 0, { "seccomp", "profile" } },
		{ -EPERM, -1, { "seccomp", "profile" } },
		{ -ENOSYS, -1, { "ENOSYS", "gVisor" } },
		{ -ENOMEM, -1, { "ENOMEM", "ulimit -l" } },
		{ -EINVAL, -1, { "io_uring refused", "Invalid" } },
		{ 0, -1, { "available", "io_uring" } },
	};
	char buf[400];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		stg_uring_refusal_text(cases[i].err, cases[i].disabled, buf,
				       sizeof(buf));
		for (int k = 0; k < 2; k++)
			cr_expect(strstr(buf, cases[i].must[k]) != NULL,
				  "case %zu: '%s' lacks '%s'", i, buf,
				  cases[i].must[k]);
	}
}
