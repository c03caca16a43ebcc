/*
 * watchdog.c - a command never hangs on storage that stops answering,
 * nor on a signal that a thread stuck in the kernel cannot see.
 *
 * DESIGN
 * Threads: one watchdog thread per command (ldr_watchdog_start), besides
 * the command's own thread (main). Every WD_TICK_NS the watchdog takes a
 * snapshot of the shared stall record (storage/watch.c: the reads in
 * flight of every process of the command, its measurement child's
 * included) and asks stg_watch_assess. On a stall it records it (FIRED,
 * STALL under LOCK) and SIGKILLs the current measurement child (CHILD,
 * set by ldr_child_run under LOCK, so a reaped pid is never killed).
 * main, waiting on that child with a deadline, sees the stall, returns,
 * and writes the report after ldr_watchdog_claim. Where main cannot (its
 * thread is in uninterruptible sleep in a listing or an eviction, or in
 * a join of a stuck reader), the watchdog claims the report itself
 * LDR_STALL_END_S after the stall (LDR_SIGNAL_END_S after a signal,
 * unless the storage is still answering: ldr_signal_takeover), calls the
 * command's report function and _exits: the process leaves the stuck
 * thread to the kernel (under mpirun that function speaks for the rank
 * to rank 0, or on rank 0 writes the cluster's report: measure/
 * cluster.c, ms_cluster_stalled). OWNER (atomic) decides once who
 * writes: 0 nobody yet, 1 main, 2 the watchdog.
 * Signals: SIGINT/SIGTERM handed to a thread stuck in the kernel stay
 * pending; the watchdog takes them over (ldr_signals_take_pending), so the
 * command's handler runs and its stop flag is set all the same.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"

#define WD_TICK_NS 100000000L

enum { OWNER_NONE, OWNER_MAIN, OWNER_WATCHDOG };

static struct {
	pthread_t tid;
	bool running;
	_Atomic int quit;
	_Atomic int fired;
	_Atomic int owner;
	pthread_mutex_t lock;           /* STALL, CHILD */
	struct stg_stall stall;
	int child;
	struct ldr_watchdog_opts o;
	uint64_t timeout_ns;
} wd = { .lock = PTHREAD_MUTEX_INITIALIZER };

static _Atomic uint64_t wd_timeout_ns;

void ldr_watchdog_child(int pid)
{
	pthread_mutex_lock(&wd.lock);
	wd.child = pid;
	pthread_mutex_unlock(&wd.lock);
}

bool ldr_watchdog_stall(struct stg_stall *out)
{
	if (!atomic_load(&wd.fired))
		return false;
	if (out) {
		pthread_mutex_lock(&wd.lock);
		*out = wd.stall;
		pthread_mutex_unlock(&wd.lock);
	}
	return true;
}

bool ldr_watchdog_claim(void)
{
	int none = OWNER_NONE;

	return atomic_compare_exchange_strong(&wd.owner, &none, OWNER_MAIN) ||
	       none == OWNER_MAIN;
}

void ldr_watchdog_park(void)
{
	for (;;)
		pause();
}

double ldr_watchdog_timeout(void)
{
	return (double)atomic_load(&wd_timeout_ns) / 1e9;
}

/* The watchdog writes the report and ends the process. */
static void take_over(const struct stg_stall *stall, int sig)
{
	int none = OWNER_NONE, rc;

	if (!atomic_compare_exchange_strong(&wd.owner, &none,
					    OWNER_WATCHDOG))
		return;         /* main writes it */
	rc = wd.o.report ? wd.o.report(wd.o.arg, stall, sig) :
	     sig ? 128 + sig : 1;
	_exit(rc);
}

/*
 * A signal sent to the process is handed to one thread, often main; when
 * main waits in the kernel (uninterruptible), it never runs the handler
 * and the signal stays pending for the process. A change of this
 * thread's mask makes the kernel look again, and hand it here.
 * (sigpending(2) cannot tell: it shows blocked signals only.)
 */
void ldr_signals_take_pending(void)
{
	sigset_t one;

	sigemptyset(&one);
	sigaddset(&one, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &one, NULL);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
}

static void *wd_main(void *arg)
{
	uint64_t t_fired = 0, t_sig = 0;
	struct stg_stall stall;

	(void)arg;
	memset(&stall, 0, sizeof(stall));
	while (!atomic_load(&wd.quit)) {
		const struct timespec tick = { 0, WD_TICK_NS };
		struct stg_watch_snap snap;
		uint64_t now;
		bool have;
		int sig;

		nanosleep(&tick, NULL);
		ldr_signals_take_pending();
		now = stg_now_ns();
		have = stg_watch_snapshot(&snap);
		if (!atomic_load(&wd.fired) && have &&
		    stg_watch_assess(&snap, now, wd.timeout_ns, &stall)) {
			pthread_mutex_lock(&wd.lock);
			wd.stall = stall;
			atomic_store(&wd.fired, 1);
			if (wd.child > 0)
				kill(wd.child, SIGKILL);
			pthread_mutex_unlock(&wd.lock);
			t_fired = now;
		}
		sig = wd.o.stop ? *wd.o.stop : 0;
		if (sig && !t_sig)
			t_sig = now;
		if (t_fired && now - t_fired >= (uint64_t)(LDR_STALL_END_S * 1e9))
			take_over(&stall, 0);
		if (t_sig && !wd.o.no_signal_takeover &&
		    ldr_signal_takeover(now, t_sig, have && !t_fired ? &snap :
					NULL))
			take_over(t_fired ? &stall : NULL, sig);
	}
	return NULL;
}

bool ldr_signal_takeover(uint64_t now_ns, uint64_t sig_ns,
			 const struct stg_watch_snap *s)
{
	const uint64_t grace = (uint64_t)(LDR_SIGNAL_END_S * 1e9);

	if (now_ns < sig_ns || now_ns - sig_ns < grace)
		return false;
	/* a completion within the grace: draining, or just drained and
	 * cleaning up (a checkpoint removes its shards after its last write
	 * completes, with nothing in flight); not stuck */
	return !(s && s->last_done_ns && now_ns >= s->last_done_ns &&
		 now_ns - s->last_done_ns < grace);
}

int ldr_watchdog_start(const struct ldr_watchdog_opts *o)
{
	int err;

	if (wd.running)
		return -EBUSY;
	wd.o = *o;
	wd.timeout_ns = (uint64_t)((o->stall_timeout_s > 0 ?
				    o->stall_timeout_s :
				    LDR_DEFAULT_STALL_TIMEOUT_S) * 1e9);
	atomic_store(&wd_timeout_ns, wd.timeout_ns);
	atomic_store(&wd.quit, 0);
	atomic_store(&wd.fired, 0);
	atomic_store(&wd.owner, OWNER_NONE);
	err = -pthread_create(&wd.tid, NULL, wd_main, NULL);
	if (!err)
		wd.running = true;
	return err;
}

void ldr_watchdog_stop(void)
{
	if (!wd.running)
		return;
	atomic_store(&wd.quit, 1);
	pthread_join(wd.tid, NULL);
	wd.running = false;
	atomic_store(&wd_timeout_ns, 0);
}
