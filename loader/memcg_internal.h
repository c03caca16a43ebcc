/*
 * memcg_internal.h - the cgroup v2 delegation step of memcg.c, exposed to
 * the tests (which run it against a real cgroup2 mount with a controller
 * that is free on the host). Not part of loader's public interface.
 */
#ifndef FEEDRATE_MEMCG_INTERNAL_H
#define FEEDRATE_MEMCG_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * What ldr_cg2_delegate() changed, so that ldr_cg2_undo() can put it back:
 * cgroup v2 hands a controller to child groups only through the parent's
 * cgroup.subtree_control, and refuses that (-EBUSY) while the parent
 * holds processes (the no-internal-process rule), unless it is the root.
 */
struct ldr_cg2_delegation {
	char dir[PATH_MAX];     /* the group whose children get the controller */
	char leaf[PATH_MAX];    /* DIR/feedrate-<pid>-self, where this process
	                           moved; "" when it did not move */
	bool added;             /* the controller was enabled by us */
	bool moved;             /* this process moved into LEAF */
};

/*
 * Make CONTROLLER ("memory") available to the groups below the cgroup v2
 * folder DIR (a real path: this process's own cgroup). Nothing is changed
 * when DIR's cgroup.subtree_control already has it. Else "+CONTROLLER" is
 * written there; when the kernel refuses with -EBUSY and DIR holds no
 * process but this one, this process moves into a new leaf group
 * DIR/feedrate-<pid>-self and the write is retried on the emptied DIR.
 * When DIR holds other processes it fails with -EBUSY and a reason naming
 * the way out (a delegated scope). *D records what was changed (on
 * failure nothing stays changed). WHY (WHY_LEN bytes, may be NULL) gets
 * one line for a user on failure. Not thread-safe: the caller serialises.
 * Returns 0 or -errno.
 */
int ldr_cg2_delegate(const char *dir, const char *controller,
		     struct ldr_cg2_delegation *d, char *why, size_t why_len);

/*
 * Undo *D for CONTROLLER once no group below D->dir uses it any more:
 * "-CONTROLLER" when we added it, then this process back into D->dir and
 * the leaf removed when we moved. Returns 0 or the first -errno (the rest
 * is still attempted); *D is cleared.
 */
int ldr_cg2_undo(struct ldr_cg2_delegation *d, const char *controller);

/*
 * Does PROCS (the text of a cgroup.procs file: one pid per line) name
 * PID and no other process? Threads of PID do not appear in cgroup.procs.
 */
bool ldr_cg2_procs_only(const char *procs, pid_t pid);

#endif /* FEEDRATE_MEMCG_INTERNAL_H */
