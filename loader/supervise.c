/*
 * supervise.c - the command runs in a child of the process the shell
 * started, so that the shell gets its exit status when the report is
 * written, even while a thread of the command waits in the kernel on
 * storage that stopped answering (a process with a thread in
 * uninterruptible sleep cannot finish exiting; its parent can).
 *
 * DESIGN
 * Processes: the supervisor (the one the shell waits for) forks the
 * command's process once, before any thread, and does nothing else: it
 * forwards SIGINT/SIGTERM/SIGHUP sent to it alone (kill(1), timeout(1):
 * si_code SI_USER/SI_QUEUE; a terminal's signal reaches the whole
 * process group already) and reads one int, the exit status, from a
 * pipe. The command writes it (ldr_supervised_done) once its report is
 * written, from whichever thread writes the report; the supervisor then
 * exits with it at once, reaping the command only if it has already
 * ended. EOF without a status (the command crashed or was killed): the
 * supervisor reaps it and ends the same way (128 + signal, or its exit
 * status). A rank of mpirun is supervised the same way: mpirun waits
 * for the pid it started, which the kernel never holds, and its kill of
 * that pid kills the command too (PR_SET_PDEATHSIG SIGKILL). Shared
 * state: CHILD_PID, written before the handlers are installed, read by
 * them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"

static volatile sig_atomic_t child_pid;
static int status_fd = -1;      /* the command's end of the pipe */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (child_pid > 0 && si && si->si_code <= 0)   /* SI_USER, SI_QUEUE */
		kill((pid_t)child_pid, sig);
}

void ldr_supervised_done(int status)
{
	int fd = status_fd;

	status_fd = -1;
	if (fd < 0)
		return;
	while (write(fd, &status, sizeof(status)) < 0 && errno == EINTR)
		;
	close(fd);
}

int ldr_supervise(int parent_death_sig)
{
	struct sigaction sa;
	int fds[2], status = 0, got = 0;
	pid_t pid;
	ssize_t n;

	if (getenv("FEEDRATE_NO_SUPERVISOR") || pipe2(fds, O_CLOEXEC) < 0)
		return 0;               /* run unsupervised */
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		close(fds[0]);
		status_fd = fds[1];
		/* the supervisor gone (killed): the command ends too */
		prctl(PR_SET_PDEATHSIG, parent_death_sig);
		return 0;
	}
	close(fds[1]);
	child_pid = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	do
		n = read(fds[0], &got, sizeof(got));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(got)) {
		/* reported: reap only a command that already ended (a
		 * thread in the kernel may hold it a long time) */
		for (int i = 0; i < 20; i++) {
			const struct timespec ms10 = { 0, 10000000L };

			if (waitpid(pid, &status, WNOHANG) != 0)
				break;
			nanosleep(&ms10, NULL);
		}
		_exit(got);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status))
		_exit(128 + WTERMSIG(status));
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}
