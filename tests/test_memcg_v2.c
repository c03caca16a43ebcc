/*
 * test_memcg_v2.c - the cgroup v2 step of --ram: a controller can be
 * handed to child groups only by a group without processes, so a process
 * alone in its group moves itself into a leaf beside the measurement
 * groups, enables the controller on the emptied group and puts everything
 * back afterwards; a group shared with other processes is refused with a
 * reason that names the way out.
 *
 * The delegation runs against a real cgroup2 mount (made by the test)
 * with the hugetlb controller: on a cgroup v1 host the memory controller
 * belongs to v1 and cannot be used in v2, while hugetlb (unbound in v1)
 * follows the same kernel rules. Skipped without root, without a free
 * controller, or where the host's v2 tree has the memory controller
 * (then the memcg tests run the real thing).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "loader.h"
#include "memcg_internal.h"

/* ---- the "only this process" check, table-driven ---- */

FR_TEST(memcg_v2, procs_only_accepts_this_pid_alone)
{
	static const struct {
		const char *procs;
		pid_t pid;
		bool only;
	} cases[] = {
		{ "42\n", 42, true },
		{ "42", 42, true },
		{ "\n42\n\n", 42, true },
		{ "", 42, false },              /* nobody: not ours either */
		{ "\n", 42, false },
		{ "42\n43\n", 42, false },
		{ "43\n42\n", 42, false },
		{ "4\n", 42, false },
		{ "420\n", 42, false },
		{ "42x\n", 42, false },         /* garbage is not us */
		{ "x\n", 42, false },
		{ "42\n42\n", 42, true },       /* listed twice (a race) */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(ldr_cg2_procs_only(cases[i].procs, cases[i].pid),
			     cases[i].only, "\"%s\" for %d", cases[i].procs,
			     (int)cases[i].pid);
}

/* ---- against a real cgroup2 mount ---- */

#define CTL "hugetlb"

static char *mnt;               /* the cgroup2 mount point */
static char group[4096];        /* our test group in it */
static bool root_added;         /* we enabled CTL at the v2 root */
static int lock_fd = -1;        /* serialises the tests that mount: every
                                   cgroup2 mount shows the same tree */

static bool read_text(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

static int write_text(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		err = -errno;
	close(fd);
	return err;
}

static int write_pid_to(const char *dir, pid_t pid)
{
	char file[4200], num[24];

	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	snprintf(num, sizeof(num), "%d", (int)pid);
	return write_text(file, num);
}

static void v2_teardown(void)
{
	const struct timespec step = { 0, 10 * 1000 * 1000 };
	char file[4200];

	if (group[0]) {
		/* the children have exited; their exit may still be
		 * settling in the group */
		for (int i = 0; i < 100 && rmdir(group) < 0 &&
		     errno == EBUSY; i++)
			nanosleep(&step, NULL);
		group[0] = '\0';
	}
	if (root_added && mnt) {
		snprintf(file, sizeof(file), "%s/cgroup.subtree_control", mnt);
		write_text(file, "-" CTL);
		root_added = false;
	}
	if (mnt) {
		umount2(mnt, MNT_DETACH);
		rmdir(mnt);
		free(mnt);
		mnt = NULL;
	}
	if (lock_fd >= 0) {
		close(lock_fd);
		lock_fd = -1;
	}
}

/* Mount cgroup2, give CTL to the root's children, make our group. */
static void v2_setup_or_skip(void)
{
	char file[4200], buf[512];

	if (geteuid() != 0)
		cr_skip_test("not root: cannot mount cgroup2");
	/* the test binary itself: shared by every test process, and
	 * nothing is left behind */
	lock_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(lock_fd, 0);
	cr_assert_eq(flock(lock_fd, LOCK_EX), 0);
	mnt = strdup("/var/tmp/feedrate-cg2-XXXXXX");
	cr_assert_not_null(mnt);
	cr_assert_not_null(mkdtemp(mnt));
	if (mount("none", mnt, "cgroup2", 0, NULL) < 0) {
		int e = errno;

		rmdir(mnt);
		free(mnt);
		mnt = NULL;
		cr_skip_test("cannot mount cgroup2: %s", strerror(e));
	}
	snprintf(file, sizeof(file), "%s/cgroup.controllers", mnt);
	cr_assert(read_text(file, buf, sizeof(buf)));
	/* every cgroup2 mount shows the one tree: where it is the host's
	 * memory tree, leave it alone (the memcg tests run there) */
	if (strstr(buf, "memory"))
		cr_skip_test("this host's cgroup v2 tree has the memory "
			     "controller: the memcg tests cover it");
	if (!strstr(buf, CTL))
		cr_skip_test("no free v2 controller (" CTL ") on this host");
	snprintf(file, sizeof(file), "%s/cgroup.subtree_control", mnt);
	cr_assert(read_text(file, buf, sizeof(buf)));
	if (!strstr(buf, CTL)) {
		/* the root may hold processes and still give controllers */
		cr_assert_eq(write_text(file, "+" CTL), 0);
		root_added = true;
	}
	snprintf(group, sizeof(group), "%s/feedrate-test-%d", mnt,
		 (int)getpid());
	cr_assert_eq(mkdir(group, 0755), 0, "%s: %s", group, strerror(errno));
}

struct deleg_out {
	int err, undo_err;
	bool added, moved;
	char why[512];
	char cg_during[512];    /* our 0:: line while delegated */
	char cg_after[512];     /* and after the undo */
	char ctl_during[256];   /* GROUP's subtree_control while delegated */
	char ctl_after[256];
	char procs_during[256]; /* GROUP's cgroup.procs while delegated */
	bool leaf_during, leaf_after;
};

static void own_v2_line(char *out, size_t cap)
{
	char buf[4096];

	out[0] = '\0';
	if (!read_text("/proc/self/cgroup", buf, sizeof(buf)))
		return;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (!strncmp(l, "0::", 3))
			snprintf(out, cap, "%s", l + 3);
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void group_file(const char *name, char *out, size_t cap)
{
	char file[4200];

	snprintf(file, sizeof(file), "%s/%s", group, name);
	if (!read_text(file, out, cap))
		snprintf(out, cap, "(unreadable)");
}

/* In the child: join GROUP (with a companion process when ARG says so),
 * delegate CTL, look around, undo, look again. */
static int delegate_in_child(void *arg, volatile int *stop, void *out,
			     size_t len)
{
	const bool shared = *(const bool *)arg;
	struct deleg_out *o = out;
	struct ldr_cg2_delegation d;
	pid_t buddy = 0;

	(void)stop;
	(void)len;
	if (shared) {
		buddy = fork();
		if (buddy < 0)
			return -errno;
		if (buddy == 0) {
			pause();
			_exit(0);
		}
		if (write_pid_to(group, buddy) < 0)
			goto fail;
	}
	if (write_pid_to(group, getpid()) < 0)
		goto fail;
	o->err = ldr_cg2_delegate(group, CTL, &d, o->why, sizeof(o->why));
	o->added = d.added;
	o->moved = d.moved;
	own_v2_line(o->cg_during, sizeof(o->cg_during));
	group_file("cgroup.subtree_control", o->ctl_during,
		   sizeof(o->ctl_during));
	group_file("cgroup.procs", o->procs_during, sizeof(o->procs_during));
	o->leaf_during = d.leaf[0] && is_dir(d.leaf);
	{
		char leaf[sizeof(d.leaf)];

		memcpy(leaf, d.leaf, sizeof(leaf));
		o->undo_err = o->err ? 0 : ldr_cg2_undo(&d, CTL);
		o->leaf_after = leaf[0] && is_dir(leaf);
	}
	own_v2_line(o->cg_after, sizeof(o->cg_after));
	group_file("cgroup.subtree_control", o->ctl_after,
		   sizeof(o->ctl_after));
	if (buddy > 0) {
		kill(buddy, SIGKILL);
		waitpid(buddy, NULL, 0);
	}
	return 0;
fail:
	if (buddy > 0) {
		kill(buddy, SIGKILL);
		waitpid(buddy, NULL, 0);
	}
	return -errno;
}

FR_TEST(memcg_v2, alone_in_its_group_moves_to_a_leaf_and_undoes_it_all,
	.fini = v2_teardown)
{
	const bool shared = false;
	struct deleg_out o = { 0 };
	struct ldr_child_report rep;
	const char *rel;
	char want[600];

	v2_setup_or_skip();
	rel = group + strlen(mnt);
	cr_assert_eq(ldr_child_run(NULL, delegate_in_child, (void *)&shared,
				   &o, sizeof(o), &rep), 0, "%s", rep.why);
	cr_assert_eq(rep.fn_result, 0, "%s", strerror(-rep.fn_result));
	cr_assert_eq(o.err, 0, "%s", o.why);
	cr_assert(o.added && o.moved);
	/* while delegated: we sit in the leaf, the group is empty and gives
	 * the controller to its children */
	cr_assert(o.leaf_during);
	snprintf(want, sizeof(want), "%s/feedrate-", rel);
	cr_assert(!strncmp(o.cg_during, want, strlen(want)) &&
		  strstr(o.cg_during, "-self") != NULL,
		  "in \"%s\", not in a leaf of %s", o.cg_during, rel);
	cr_assert(strstr(o.ctl_during, CTL) != NULL, "subtree_control \"%s\"",
		  o.ctl_during);
	cr_assert_str_eq(o.procs_during, "", "the group still holds \"%s\"",
			 o.procs_during);
	/* after the undo: back in the group, controller off, leaf gone */
	cr_assert_eq(o.undo_err, 0, "%s", strerror(-o.undo_err));
	cr_assert_str_eq(o.cg_after, rel);
	cr_assert_null(strstr(o.ctl_after, CTL), "subtree_control \"%s\"",
		       o.ctl_after);
	cr_assert_not(o.leaf_after, "the leaf is still there");
}

FR_TEST(memcg_v2, group_shared_with_others_is_refused_with_the_way_out,
	.fini = v2_teardown)
{
	const bool shared = true;
	struct deleg_out o = { 0 };
	struct ldr_child_report rep;

	v2_setup_or_skip();
	cr_assert_eq(ldr_child_run(NULL, delegate_in_child, (void *)&shared,
				   &o, sizeof(o), &rep), 0, "%s", rep.why);
	cr_assert_eq(rep.fn_result, 0, "%s", strerror(-rep.fn_result));
	cr_assert_eq(o.err, -EBUSY, "got %d: %s", o.err, o.why);
	cr_assert(strstr(o.why, "holds other processes") != NULL, "%s", o.why);
	cr_assert(strstr(o.why, "systemd-run --scope -p Delegate=yes") !=
		  NULL, "%s", o.why);
	cr_assert(strstr(o.why, group) != NULL, "%s", o.why);
	/* nothing changed: no leaf, no controller, nobody moved */
	cr_assert_not(o.added || o.moved);
	cr_assert_not(o.leaf_during);
	cr_assert_null(strstr(o.ctl_during, CTL));
	cr_assert_str_eq(o.cg_during, group + strlen(mnt));
}

FR_TEST(memcg_v2, controller_already_given_changes_nothing,
	.fini = v2_teardown)
{
	struct ldr_cg2_delegation d;
	char why[256] = "", root_ctl[256], file[4200];

	v2_setup_or_skip();
	/* the mount's root already gives CTL to its children (setup) */
	cr_assert_eq(ldr_cg2_delegate(mnt, CTL, &d, why, sizeof(why)), 0,
		     "%s", why);
	cr_assert_not(d.added || d.moved);
	cr_assert_eq(ldr_cg2_undo(&d, CTL), 0);
	snprintf(file, sizeof(file), "%s/cgroup.subtree_control", mnt);
	cr_assert(read_text(file, root_ctl, sizeof(root_ctl)));
	cr_assert(strstr(root_ctl, CTL) != NULL, "undo removed what it did "
		  "not add: \"%s\"", root_ctl);
}
