/*
 * watch.c - the stall watch: which reads are in flight, since when, on
 * which file, and when a read last completed; and the rule that calls
 * that a stall.
 *
 * DESIGN
 * One record in MAP_SHARED anonymous memory, made by stg_watch_init
 * before the first fork, so every process of the tree (the command and
 * its measurement children) writes into the same record and the parent
 * can watch a child stuck in the kernel. The record holds lanes: a lane
 * belongs to one thread of one process (PID) and says how many reads it
 * has in flight, the start of its oldest and that read's file. A thread
 * doing one blocking call at a time (listing, eviction) takes a lane at
 * its first stg_watch_begin and gives it back when it exits (a pthread
 * key's destructor); a reader with many reads in flight takes one per
 * reader (stg_watch_lane_get). Only the lane's owner writes it; watchers
 * (any thread, any process) only read. A lane's name is published with a
 * sequence count (odd while it is written), its bytes as relaxed atomics,
 * so a watcher never sees half a name and no data race exists. The last
 * completion is one atomic time, written by every completion.
 * fork: the child's copy of the forking thread's lane index is dropped
 * (pthread_atfork), so the child takes lanes of its own.
 * A test hook (FEEDRATE_TEST_SIGSTOP_AT=PHASE:PID, tests only) sends
 * SIGSTOP to PID when PHASE begins: the stall tests stop a storage server
 * exactly at the phase they test. PHASE+N:PID stops it at the Nth
 * completion in PHASE instead (HOOK_LEFT counts down, atomic: any
 * completing thread may fire it, one does), so the phase has numbers of
 * its own before the stall, whatever the machine's speed.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "storage.h"

#define WATCH_LANES 256

struct lane {
	_Atomic int pid;                /* owner process, 0 free */
	_Atomic unsigned inflight;
	_Atomic uint64_t oldest_ns;
	_Atomic unsigned seq;           /* odd while NAME is written */
	_Atomic char name[STG_WATCH_NAME];
};

struct watch {
	_Atomic uint64_t last_done_ns;
	_Atomic int phase;
	struct lane lanes[WATCH_LANES];
};

static struct watch *W;
static _Thread_local int tl_lane = -1;
static pthread_key_t tl_key;
static int hook_phase = -1;
static pid_t hook_pid;
static long hook_after;                 /* N of PHASE+N */
static _Atomic long hook_left;          /* armed: completions to go */

static const char *const phase_names[STG_PHASE_COUNT] = {
	[STG_PHASE_NONE] = "start",
	[STG_PHASE_LISTING] = "listing",
	[STG_PHASE_EVICTION] = "eviction",
	[STG_PHASE_WARMING] = "warming",
	[STG_PHASE_VERIFY] = "verify",
	[STG_PHASE_PROBE] = "probe",
	[STG_PHASE_WARMUP] = "warm-up",
	[STG_PHASE_WINDOW] = "window",
	[STG_PHASE_SAVE] = "save",
	[STG_PHASE_RESTORE] = "restore",
	[STG_PHASE_SOURCE] = "source",
	[STG_PHASE_ALONE] = "read alone",
};

const char *stg_phase_name(enum stg_phase ph)
{
	if ((unsigned)ph < STG_PHASE_COUNT && phase_names[ph])
		return phase_names[ph];
	return "?";
}

static void atfork_child(void)
{
	tl_lane = -1;
}

static void lane_free(void *arg)
{
	(void)arg;
	stg_watch_lane_put(tl_lane);
	tl_lane = -1;
}

/* FEEDRATE_TEST_SIGSTOP_AT=PHASE:PID (tests only). */
static void hook_parse(void)
{
	const char *v = getenv("FEEDRATE_TEST_SIGSTOP_AT");
	const char *colon = v ? strchr(v, ':') : NULL;
	const char *plus = v ? strchr(v, '+') : NULL;
	size_t len;

	if (!colon)
		return;
	if (plus && plus < colon) {
		hook_after = atol(plus + 1);
		len = (size_t)(plus - v);
	} else {
		len = (size_t)(colon - v);
	}
	for (int i = 0; i < STG_PHASE_COUNT; i++)
		if (strlen(phase_names[i]) == len &&
		    !strncmp(v, phase_names[i], len)) {
			hook_phase = i;
			hook_pid = (pid_t)atoi(colon + 1);
		}
}

int stg_watch_init(void)
{
	void *m;

	if (W)
		return 0;
	m = mmap(NULL, sizeof(struct watch), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	if (pthread_key_create(&tl_key, lane_free)) {
		munmap(m, sizeof(struct watch));
		return -EAGAIN;
	}
	pthread_atfork(NULL, NULL, atfork_child);
	hook_parse();
	W = m;          /* zeroed by mmap: every lane free */
	return 0;
}

void stg_watch_phase(enum stg_phase ph)
{
	if (!W)
		return;
	atomic_store(&W->phase, (int)ph);
	if ((int)ph == hook_phase && hook_pid > 0) {
		if (hook_after > 0)
			atomic_store(&hook_left, hook_after);
		else
			kill(hook_pid, SIGSTOP);
		hook_phase = -1;        /* once */
	}
}

enum stg_phase stg_watch_phase_get(void)
{
	return W ? (enum stg_phase)atomic_load(&W->phase) : STG_PHASE_NONE;
}

int stg_watch_lane_get(void)
{
	const int me = (int)getpid();

	if (!W)
		return -1;
	for (int i = 0; i < WATCH_LANES; i++) {
		int free_pid = 0;

		if (atomic_compare_exchange_strong(&W->lanes[i].pid,
						   &free_pid, me)) {
			atomic_store(&W->lanes[i].inflight, 0);
			return i;
		}
	}
	return -1;
}

void stg_watch_lane_put(int lane)
{
	if (!W || lane < 0 || lane >= WATCH_LANES)
		return;
	atomic_store(&W->lanes[lane].inflight, 0);
	atomic_store(&W->lanes[lane].pid, 0);
}

void stg_watch_lane_set(int lane, unsigned inflight, uint64_t oldest_ns,
			const char *oldest)
{
	struct lane *l;

	if (!W || lane < 0 || lane >= WATCH_LANES)
		return;
	l = &W->lanes[lane];
	if (oldest) {
		size_t i = 0;

		atomic_fetch_add(&l->seq, 1);
		for (; oldest[i] && i < STG_WATCH_NAME - 1; i++)
			atomic_store_explicit(&l->name[i], oldest[i],
					      memory_order_relaxed);
		atomic_store_explicit(&l->name[i], '\0',
				      memory_order_relaxed);
		atomic_fetch_add(&l->seq, 1);
	}
	atomic_store(&l->oldest_ns, oldest_ns);
	atomic_store(&l->inflight, inflight);
}

void stg_watch_beat(void)
{
	long left;

	if (!W)
		return;
	atomic_store_explicit(&W->last_done_ns, stg_now_ns(),
			      memory_order_relaxed);
	left = atomic_load_explicit(&hook_left, memory_order_relaxed);
	while (left > 0 &&
	       !atomic_compare_exchange_weak(&hook_left, &left, left - 1))
		;
	if (left == 1)
		kill(hook_pid, SIGSTOP);
}

void stg_watch_begin(const char *name)
{
	if (!W)
		return;
	if (tl_lane < 0) {
		tl_lane = stg_watch_lane_get();
		if (tl_lane < 0)
			return;
		pthread_setspecific(tl_key, &tl_lane);
	}
	stg_watch_lane_set(tl_lane, 1, stg_now_ns(), name ? name : "");
}

void stg_watch_end(void)
{
	if (!W || tl_lane < 0)
		return;
	stg_watch_beat();
	atomic_store(&W->lanes[tl_lane].inflight, 0);
}

void stg_watch_release_pid(int pid)
{
	if (!W || pid <= 0)
		return;
	for (int i = 0; i < WATCH_LANES; i++)
		if (atomic_load(&W->lanes[i].pid) == pid)
			stg_watch_lane_put(i);
}

/* LANE's name into BUF (STG_WATCH_NAME bytes); "" when it kept
 * changing while read. */
static void lane_name(struct lane *l, char *buf)
{
	for (int tries = 0; tries < 4; tries++) {
		const unsigned s0 = atomic_load(&l->seq);
		size_t i = 0;

		if (s0 & 1)
			continue;
		for (; i < STG_WATCH_NAME - 1; i++) {
			buf[i] = atomic_load_explicit(&l->name[i],
						      memory_order_relaxed);
			if (!buf[i])
				break;
		}
		buf[i] = '\0';
		if (atomic_load(&l->seq) == s0)
			return;
	}
	buf[0] = '\0';
}

bool stg_watch_snapshot(struct stg_watch_snap *out)
{
	int oldest = -1;

	memset(out, 0, sizeof(*out));
	if (!W)
		return false;
	out->phase = (enum stg_phase)atomic_load(&W->phase);
	out->last_done_ns = atomic_load(&W->last_done_ns);
	for (int i = 0; i < WATCH_LANES; i++) {
		struct lane *l = &W->lanes[i];
		unsigned n;
		uint64_t t;

		if (!atomic_load(&l->pid))
			continue;
		n = atomic_load(&l->inflight);
		t = atomic_load(&l->oldest_ns);
		if (!n)
			continue;
		out->inflight += n;
		if (oldest < 0 || t < out->oldest_ns) {
			out->oldest_ns = t;
			oldest = i;
		}
	}
	if (oldest >= 0)
		lane_name(&W->lanes[oldest], out->oldest);
	return true;
}

bool stg_watch_assess(const struct stg_watch_snap *s, uint64_t now_ns,
		      uint64_t timeout_ns, struct stg_stall *out)
{
	uint64_t from;

	memset(out, 0, sizeof(*out));
	out->phase = s->phase;
	out->inflight = s->inflight;
	out->timeout_s = (double)timeout_ns / 1e9;
	memcpy(out->oldest, s->oldest, sizeof(out->oldest));
	out->oldest[sizeof(out->oldest) - 1] = '\0';
	if (!s->inflight)
		return false;
	from = s->last_done_ns > s->oldest_ns ? s->last_done_ns :
	       s->oldest_ns;
	out->oldest_age_s = now_ns > s->oldest_ns ?
			    (double)(now_ns - s->oldest_ns) / 1e9 : 0;
	out->idle_s = now_ns > from ? (double)(now_ns - from) / 1e9 : 0;
	out->stalled = timeout_ns > 0 && now_ns > from &&
		       now_ns - from >= timeout_ns;
	return out->stalled;
}
