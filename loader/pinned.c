/*
 * pinned.c - run a measurement in a fresh child pinned to its vCPUs.
 *
 * DESIGN
 * Processes: the caller (parent, single-threaded) forks one child per
 * measurement point. The child, before it allocates or creates any thread
 * or io_uring ring, (1) moves itself into the memory cgroup when one is
 * given, so everything it reads is charged there, and (2) pins itself with
 * sched_setaffinity, so every thread it creates inherits the mask (the
 * storage reader pins each ring's io-wq workers, which do not inherit it).
 * It then runs the work and writes one message to a pipe: a fixed header
 * and the OUT bytes (same binary on both ends: raw struct bytes).
 * The parent reads the pipe to EOF (the message may be larger than the
 * pipe's buffer, so it reads while the child writes), then reaps the
 * child. A child that dies leaves a short message and a wait status: the
 * parent says how it died instead of waiting.
 * Signals: while the child runs, the parent's SIGINT/SIGTERM handler
 * forwards the signal to the child, whose handler sets the stop flag the
 * work polls; the work ends and still sends its partial OUT. A second
 * signal in the parent (0.3 s or more after the first: the same signal
 * sent to the process group and forwarded by the supervisor is one)
 * kills the child (SIGKILL). The child asks for
 * SIGTERM when the parent dies (PR_SET_PDEATHSIG), so it never outlives it.
 * Deadlines: the parent never waits on the child without one. It polls
 * the pipe every 100 ms; when the watchdog (watchdog.c) saw the storage
 * stall, or LDR_CHILD_STOP_S after a forwarded signal, it SIGKILLs the
 * child, and a child not ended LDR_CHILD_END_S later (a thread in
 * uninterruptible sleep holds it) is left to the kernel unreaped
 * (REP->held_pid); its reads are dropped from the stall record, and a
 * result it had sent whole still stands (ldr_child_held_err).
 * Running totals: ldr_run_pinned maps a record (live.c) before the
 * fork; the child's engine publishes into it, so a child killed before it
 * sent its result still leaves its window's totals (marked partial).
 * Shared state: fwd_pid / fwd_sig / fwd_count, written by the parent's
 * handler and read by the parent only. fwd_pid is cleared, with the
 * signals blocked, after the child has exited (waitid WNOWAIT) and before
 * it is reaped, so the handler never kills a recycled pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"

#define MSG_MAGIC 0x66726368u   /* "frch" */
#define LDR_CHILD_EXIT_S 3.0    /* a child that closed its pipe has this
                                   long to end before SIGKILL */

enum { STAGE_CGROUP = 1, STAGE_AFFINITY, STAGE_DONE };

struct msg_head {
	uint32_t magic;
	uint32_t stage;         /* STAGE_DONE, or the set-up step that failed */
	int32_t err;            /* -errno of a failed set-up step */
	int32_t fn_result;
	uint64_t len;           /* OUT bytes that follow (STAGE_DONE) */
};

static volatile sig_atomic_t fwd_pid;
static volatile sig_atomic_t fwd_sig;
static volatile sig_atomic_t fwd_count;
static volatile int child_stop;

static void parent_on_signal(int sig)
{
	static struct timespec first;
	struct timespec now;
	int saved = errno;

	/* the same signal twice at once (a terminal's or timeout(1)'s to
	 * the process group, and the supervisor's forward) is one */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (fwd_count && (now.tv_sec - first.tv_sec) * 1000000000L +
	    (now.tv_nsec - first.tv_nsec) < 300000000L) {
		errno = saved;
		return;
	}
	if (!fwd_count)
		first = now;
	fwd_sig = sig;
	fwd_count++;
	if (fwd_pid > 0)
		kill((pid_t)fwd_pid, fwd_count > 1 ? SIGKILL : sig);
	errno = saved;
}

static void child_on_signal(int sig)
{
	child_stop = sig;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The parent's deadlines on its child: a stall seen by the watchdog or a
 * signal forwarded LDR_CHILD_STOP_S ago gets the child SIGKILLed; one
 * that has not ended LDR_CHILD_END_S after that is given up (a thread in
 * uninterruptible sleep keeps it, and its end of the pipe, alive).
 */
struct child_wait {
	pid_t pid;
	double t_sig;           /* first signal forwarded, 0 none */
	double t_kill;          /* SIGKILL sent, 0 not */
	bool gave_up;
};

static void child_wait_tick(struct child_wait *w)
{
	const double now = stg_now();

	if (fwd_count && !w->t_sig)
		w->t_sig = now;
	if (!w->t_kill && (ldr_watchdog_stall(NULL) ||
			   (w->t_sig && now - w->t_sig >= LDR_CHILD_STOP_S))) {
		kill(w->pid, SIGKILL);
		w->t_kill = now;
	}
	if (w->t_kill && now - w->t_kill >= LDR_CHILD_END_S)
		w->gave_up = true;
}

/* Wait until FD can be read (data or EOF). False: W gave up. */
static bool child_wait_readable(int fd, struct child_wait *w)
{
	while (!w->gave_up) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int n = poll(&pfd, 1, 100);

		if (n > 0 || (n < 0 && errno != EINTR))
			return true;
		child_wait_tick(w);
	}
	return false;
}

/* Read up to LEN bytes; fewer only at EOF. Returns the count or -errno
 * (-ETIMEDOUT: W gave up on the child). */
static ssize_t read_full(int fd, void *buf, size_t len,
			 struct child_wait *w)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n;

		if (w && !child_wait_readable(fd, w))
			return -ETIMEDOUT;
		n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static __attribute__((noreturn)) void
child_main(int wfd, pid_t parent, const struct ldr_child_opts *opts,
	   ldr_child_fn fn, void *arg, void *out, size_t out_len,
	   const sigset_t *oldmask)
{
	struct msg_head h = { .magic = MSG_MAGIC };
	struct sigaction sa;

	/* first, before anything allocates: the cgroup, then the CPUs */
	if (opts && opts->memcg) {
		h.err = ldr_memcg_enter(opts->memcg, 0);
		if (h.err < 0) {
			h.stage = STAGE_CGROUP;
			goto send;
		}
	}
	if (opts && opts->cpus &&
	    sched_setaffinity(0, sizeof(cpu_set_t), opts->cpus) < 0) {
		h.err = -errno;
		h.stage = STAGE_AFFINITY;
		goto send;
	}
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(1);       /* the parent is already gone */

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = child_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	child_stop = 0;
	sigprocmask(SIG_SETMASK, oldmask, NULL);

	h.fn_result = fn(arg, &child_stop, out, out_len);
	h.stage = STAGE_DONE;
	h.len = out_len;
send:
	if (write_all(wfd, &h, sizeof(h)) == 0 && h.stage == STAGE_DONE)
		write_all(wfd, out, out_len);
	close(wfd);
	/* _exit: no atexit handlers or stdio buffers of the parent's */
	_exit(h.stage == STAGE_DONE ? 0 : 1);
}

static void describe_status(int status, const struct ldr_child_opts *opts,
			    char *why, size_t len)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		snprintf(why, len, "the measurement child was killed by "
			 "signal %d (%s)%s", sig, strsignal(sig),
			 sig == SIGKILL && opts && opts->memcg ?
			 "; the memory cgroup's limit may be too small for "
			 "the run's own buffers" : "");
	} else if (WIFEXITED(status)) {
		snprintf(why, len, "the measurement child exited with status "
			 "%d before sending its result", WEXITSTATUS(status));
	} else {
		snprintf(why, len, "the measurement child ended without "
			 "sending its result (wait status 0x%x)", status);
	}
}

int ldr_child_held_err(int err, const struct ldr_child_report *rep)
{
	if (err)
		return err;
	if (rep->stalled)
		return -ETIMEDOUT;
	return rep->got_out ? 0 : -EINTR;
}

int ldr_child_run(const struct ldr_child_opts *opts, ldr_child_fn fn,
		  void *arg, void *out, size_t out_len,
		  struct ldr_child_report *rep)
{
	struct ldr_cpu_times *before = NULL, *after = NULL;
	struct sigaction sa, old_int, old_term;
	sigset_t block, oldmask;
	struct msg_head h;
	struct child_wait w;
	bool exit_killed = false;
	double t_eof;
	int fds[2], status = 0, err = 0;
	ssize_t got;
	pid_t pid, parent = getpid();
	double t0;

	memset(rep, 0, sizeof(*rep));
	rep->cpu_outside_mask_s = -1;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		err = -errno;
		snprintf(rep->why, sizeof(rep->why), "pipe: %s",
			 strerror(-err));
		return err;
	}
	if (opts && opts->cpus) {
		before = malloc(sizeof(*before));
		after = malloc(sizeof(*after));
		if (before && after && ldr_cpu_times_read(before) < 0) {
			free(before);
			before = NULL;
		}
	}

	/* handlers first, signals blocked across fork: none is lost */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &oldmask);
	fwd_pid = 0;
	fwd_sig = 0;
	fwd_count = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = parent_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	t0 = stg_now();
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child_main(fds[1], parent, opts, fn, arg, out, out_len,
			   &oldmask);
	}
	if (pid < 0) {
		err = -errno;
		snprintf(rep->why, sizeof(rep->why), "fork: %s",
			 strerror(-err));
		close(fds[0]);
		close(fds[1]);
		goto restore;
	}
	fwd_pid = pid;
	ldr_watchdog_child(pid);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	close(fds[1]);
	memset(&w, 0, sizeof(w));
	w.pid = pid;

	got = read_full(fds[0], &h, sizeof(h), &w);
	if (got == (ssize_t)sizeof(h) && h.magic == MSG_MAGIC &&
	    h.stage == STAGE_DONE) {
		if (h.len != out_len)
			err = -EPROTO;
		else if (read_full(fds[0], out, out_len, &w) !=
			 (ssize_t)out_len)
			err = -ECHILD;
		else
			rep->got_out = true;
		rep->fn_result = h.fn_result;
	} else if (got == (ssize_t)sizeof(h) && h.magic == MSG_MAGIC) {
		err = h.err < 0 ? h.err : -EIO;
		snprintf(rep->why, sizeof(rep->why), "%s: %s",
			 h.stage == STAGE_CGROUP ?
			 "the child could not enter the memory cgroup" :
			 "the child could not pin itself to its CPUs",
			 strerror(-err));
	} else {
		err = got < 0 ? (int)got : -ECHILD;
	}
	/* drain: the child may still be writing after a bad header */
	{
		char sink[4096];

		while (read_full(fds[0], sink, sizeof(sink), &w) > 0)
			;
	}
	close(fds[0]);
	t_eof = stg_now();
	/* wait for the exit without reaping: until the reap the pid stays
	 * the child's, so the handler may still forward to it; then stop
	 * forwarding (signals blocked) before the pid can be recycled. A
	 * child that sent its result may still hang in its exit (io_uring
	 * waits for a stuck read): the same deadlines hold */
	while (!w.gave_up) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT |
			   WNOHANG) < 0 && errno != EINTR)
			break;
		if (si.si_pid == pid)
			break;
		{
			const struct timespec ms10 = { 0, 10000000L };

			nanosleep(&ms10, NULL);
		}
		child_wait_tick(&w);
		if (!w.t_kill && stg_now() - t_eof >= LDR_CHILD_EXIT_S) {
			/* it closed its pipe and does not end */
			kill(pid, SIGKILL);
			w.t_kill = stg_now();
			exit_killed = true;
		}
	}
	rep->wall_s = stg_now() - t0;
	sigprocmask(SIG_BLOCK, &block, NULL);
	fwd_pid = 0;
	ldr_watchdog_child(0);
	rep->stalled = ldr_watchdog_stall(&rep->stall);
	if (w.gave_up) {
		/* left to the kernel: not reaped (its pid stays its own), its
		 * reads no longer count */
		rep->held_pid = pid;
		stg_watch_release_pid(pid);
		err = ldr_child_held_err(err, rep);
		snprintf(rep->why, sizeof(rep->why), "the measurement child "
			 "(pid %d)%s did not end %.1f s after SIGKILL: a "
			 "thread of it waits in the kernel (uninterruptible "
			 "sleep) and it is left to the kernel", (int)pid,
			 err ? "" : " sent its result but", LDR_CHILD_END_S);
		goto restore;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	stg_watch_release_pid(pid);
	if (rep->stalled && err != -EPROTO) {
		err = -ETIMEDOUT;
		snprintf(rep->why, sizeof(rep->why), "the storage stalled: "
			 "the measurement child was killed");
	} else if (err == -ECHILD || (err == 0 && !exit_killed &&
				      !(WIFEXITED(status) &&
					     WEXITSTATUS(status) == 0))) {
		err = -ECHILD;
		describe_status(status, opts, rep->why, sizeof(rep->why));
	} else if (err == -EPROTO) {
		snprintf(rep->why, sizeof(rep->why), "the measurement child "
			 "sent %llu bytes where %zu were expected",
			 (unsigned long long)h.len, out_len);
	}
	if (before && after && ldr_cpu_times_read(after) == 0)
		rep->cpu_outside_mask_s =
			ldr_cpu_times_busy_outside(before, after, opts->cpus);
restore:
	rep->signal = fwd_sig;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	free(before);
	free(after);
	return err;
}

struct pinned_arg {
	const struct ldr_config *cfg;
};

static int pinned_fn(void *arg, volatile int *stop, void *out, size_t len)
{
	const struct pinned_arg *a = arg;
	struct ldr_config cfg = *a->cfg;

	(void)len;
	cfg.stop = stop;
	return ldr_run(&cfg, out);
}

int ldr_run_pinned(const struct ldr_config *cfg, const cpu_set_t *cpus,
		   const struct ldr_memcg *memcg, struct ldr_result *res,
		   struct ldr_child_report *rep)
{
	const struct ldr_child_opts opts = { .cpus = cpus, .memcg = memcg };
	struct ldr_config c = *cfg;
	struct pinned_arg a = { .cfg = &c };
	struct ldr_live live;
	int err;

	/* mapped before the fork: what the child's engine publishes
	 * outlives a SIGKILL (a caller's own record is kept) */
	if (!c.live)
		c.live = ldr_live_create();
	err = ldr_child_run(&opts, pinned_fn, &a, res, sizeof(*res), rep);
	/* no result came back (killed on a stall, after a signal, or dead):
	 * the running totals it published stand in, marked partial */
	if (err < 0 && !rep->got_out && ldr_live_read(c.live, &live))
		ldr_live_to_result(&live, res);
	if (c.live != cfg->live)
		ldr_live_destroy(c.live);
	if (rep->signal && cfg->stop)
		*cfg->stop = rep->signal;
	return err < 0 ? err : rep->fn_result;
}
