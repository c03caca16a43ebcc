/*
 * test_cluster.c - the cluster protocol (measure/cluster.c) over an
 * in-process transport: ranks are threads, messages go through one
 * mailbox; a lost rank is a thread that stops taking part, a skewed clock
 * an offset added to its reading.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "cluster.h"

#define MAXR 4
#define TIMEOUT_S 1.0           /* a live rank in-process answers in us */

struct msg {
	struct msg *next;
	unsigned from, to;
	int tag;
	size_t len;
	unsigned char data[];
};

struct world {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct msg *head;
	unsigned n;
};

struct rank_comm {
	struct ms_comm c;
	struct world *w;
	int sends_left;                 /* > 0: dies after this many sends */
	bool dead;
	volatile sig_atomic_t *stop_when_waiting; /* set to SIGTERM when a
	                                   receive from stop_from finds
	                                   nothing yet */
	unsigned stop_from;
};

static int fake_send(struct ms_comm *c, unsigned to, int tag,
		     const void *buf, size_t len, double deadline)
{
	struct rank_comm *rc = (struct rank_comm *)c;
	struct world *w = rc->w;
	struct msg *m, **tail;

	(void)deadline;
	if (rc->dead)
		return -EPIPE;
	if (rc->sends_left > 0 && --rc->sends_left == 0)
		rc->dead = true;        /* this one still goes out */
	m = malloc(sizeof(*m) + len);
	if (!m)
		return -ENOMEM;
	m->next = NULL;
	m->from = c->rank;
	m->to = to;
	m->tag = tag;
	m->len = len;
	memcpy(m->data, buf, len);
	pthread_mutex_lock(&w->lock);
	for (tail = &w->head; *tail; tail = &(*tail)->next)
		;
	*tail = m;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static int fake_recv(struct ms_comm *c, unsigned from, int tag, void *buf,
		     size_t len, double deadline)
{
	struct rank_comm *rc = (struct rank_comm *)c;
	struct world *w = rc->w;
	int err = 0;

	if (rc->dead)
		return -EPIPE;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct msg **pp;

		for (pp = &w->head; *pp; pp = &(*pp)->next)
			if ((*pp)->to == c->rank && (*pp)->from == from &&
			    (*pp)->tag == tag)
				break;
		if (*pp) {
			struct msg *m = *pp;

			*pp = m->next;
			if (m->len != len)
				err = -EMSGSIZE;
			else
				memcpy(buf, m->data, len);
			free(m);
			break;
		}
		if (stg_now() >= deadline) {
			err = -ETIMEDOUT;
			break;
		}
		if (rc->stop_when_waiting && from == rc->stop_from)
			*rc->stop_when_waiting = SIGTERM;
		{
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 5000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&w->cv, &w->lock, &ts);
		}
	}
	pthread_mutex_unlock(&w->lock);
	return err;
}

static void fake_close(struct ms_comm *c, bool failed)
{
	(void)c;
	(void)failed;
}

static const struct ms_comm_ops fake_ops = {
	.send = fake_send, .recv = fake_recv, .close = fake_close,
};

/* What one rank does, and what it saw. */
struct rank_run {
	struct rank_comm rc;
	struct ms_cluster cl;
	const char *host;
	double clock_offset;            /* added to its CLOCK_REALTIME */
	int lost_at;                    /* 0 never; 1 before hello, 2 before
	                                   the gate, 3 before the result */
	volatile sig_atomic_t stop;
	double gather_s;                /* rank 0's wait for results (0: the
	                                   timeout) */
	int stop_in_gather;             /* > 0: a stop signal comes while it
	                                   waits for this rank's result */
	int open_err, gate_err, gather_err, alone_err;
	double start;                   /* the gate's, in its clock */
	bool do_alone;
	bool two_points;                /* a second gate and gather */
	bool point1_fails;              /* its first gate says not ok */
	int stalled_at;                 /* 0 never; 2: its storage stalls
	                                   before the gate, its thread stuck
	                                   (its watchdog speaks) */
	struct ms_cluster_result stalled_res; /* rank 0 stalled: its view */
	int gate2_err;
	double solo[MAXR];
	/* rank 0's gather */
	double result[MAXR];
	bool got[MAXR];
};

static double skewed_clock(void *arg)
{
	const struct rank_run *r = arg;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9 + r->clock_offset;
}

static pthread_mutex_t alone_lock = PTHREAD_MUTEX_INITIALIZER;
static int alone_running, alone_overlap;

static double alone_fn(void *arg)
{
	struct rank_run *r = arg;
	struct timespec ts = { 0, 20000000 };

	pthread_mutex_lock(&alone_lock);
	if (alone_running++)
		alone_overlap = 1;
	pthread_mutex_unlock(&alone_lock);
	nanosleep(&ts, NULL);
	pthread_mutex_lock(&alone_lock);
	alone_running--;
	pthread_mutex_unlock(&alone_lock);
	return 10.0 * r->rc.c.rank + 1;
}

static void *rank_main(void *arg)
{
	struct rank_run *r = arg;
	char why[256];
	double mine;

	r->open_err = r->gate_err = r->gather_err = 1;
	if (r->lost_at == 1)
		return NULL;
	r->open_err = ms_cluster_open(&r->cl, &r->rc.c, TIMEOUT_S, &r->stop,
				      why, sizeof(why));
	if (r->open_err)
		return NULL;
	r->cl.realtime = skewed_clock;
	r->cl.realtime_arg = r;
	if (r->do_alone)
		r->alone_err = ms_cluster_each_alone(&r->cl, alone_fn, r, 0.1,
						     r->solo);
	if (r->lost_at == 2)
		return NULL;
	if (r->stalled_at == 2) {
		struct rpt_cluster_rank rec;

		ms_cluster_rank_init(&r->cl, &rec);
		rec.stalled = true;
		snprintf(rec.fail_text, sizeof(rec.fail_text), "lost: STALLED: "
			 "rank %u during the listing", r->rc.c.rank);
		r->rc.c.any_thread = true;
		r->stop = 1;            /* the job's end: no wait for it */
		ms_cluster_stalled(&r->cl, rec.fail_text + 6, &rec,
				   stg_now() + TIMEOUT_S, "no result: rank 0 "
				   "stalled", &r->stalled_res);
		return NULL;
	}
	r->gate_err = ms_cluster_gate(&r->cl, !r->point1_fails, 0.05,
				      &r->start);
	if (r->two_points) {
		r->gate2_err = ms_cluster_gate(&r->cl, true, 0.05, &r->start);
		if (r->gate2_err)
			return NULL;
	}
	if (r->gate_err || r->lost_at == 3)
		return NULL;
	mine = 100.0 + r->rc.c.rank;
	if (r->stop_in_gather > 0) {
		r->rc.stop_when_waiting = &r->stop;
		r->rc.stop_from = (unsigned)r->stop_in_gather;
	}
	r->gather_err = ms_cluster_gather(&r->cl, &mine, sizeof(mine),
					  r->result, r->got, stg_now() +
					  (r->gather_s > 0 ? r->gather_s :
					   TIMEOUT_S));
	return NULL;
}

static struct world W;
static struct rank_run R[MAXR];

/* Run N ranks (R[] set up by the test: host, offset, lost_at) to the end. */
static void run_ranks(unsigned n)
{
	pthread_t t[MAXR];

	memset(&W, 0, sizeof(W));
	pthread_mutex_init(&W.lock, NULL);
	pthread_cond_init(&W.cv, NULL);
	W.n = n;
	for (unsigned k = 0; k < n; k++) {
		R[k].rc.c.ops = &fake_ops;
		R[k].rc.c.rank = k;
		R[k].rc.c.world = n;
		snprintf(R[k].rc.c.host, sizeof(R[k].rc.c.host), "%s",
			 R[k].host ? R[k].host : "h");
		R[k].rc.w = &W;
	}
	for (unsigned k = 0; k < n; k++)
		cr_assert_eq(pthread_create(&t[k], NULL, rank_main, &R[k]), 0);
	for (unsigned k = 0; k < n; k++)
		pthread_join(t[k], NULL);
	while (W.head) {
		struct msg *m = W.head;

		W.head = m->next;
		free(m);
	}
}

static void free_ranks(unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		free(R[k].cl.peers);
		R[k].cl.peers = NULL;
	}
	memset(R, 0, sizeof(R));
}

FR_TEST(cluster, hosts_numbered_as_nodes_with_local_ranks)
{
	R[0].host = "a";
	R[1].host = "b";
	R[2].host = "a";
	run_ranks(3);
	for (unsigned k = 0; k < 3; k++)
		cr_assert_eq(R[k].open_err, 0, "rank %u", k);
	cr_assert_eq(R[0].cl.nodes, 2);
	cr_assert_eq(R[1].cl.node, 1);
	cr_assert_eq(R[1].cl.local_size, 1);
	cr_assert_eq(R[2].cl.node, 0);
	cr_assert_eq(R[2].cl.local_rank, 1);
	cr_assert_eq(R[2].cl.local_size, 2);
	cr_assert_eq(R[0].cl.local_rank, 0);
	cr_assert_eq(R[0].cl.local_size, 2);
	free_ranks(3);
}

FR_TEST(cluster, gate_gives_one_start_whatever_the_clocks_say)
{
	R[1].clock_offset = 100.0;      /* a node whose clock is far ahead */
	R[2].clock_offset = -37.5;
	run_ranks(3);
	for (unsigned k = 0; k < 3; k++) {
		cr_assert_eq(R[k].gate_err, 0, "rank %u", k);
		/* the same instant, told in each rank's own clock */
		cr_assert_float_eq(R[k].start - R[k].clock_offset,
				   R[0].start, 0.05, "rank %u: %f vs %f", k,
				   R[k].start - R[k].clock_offset, R[0].start);
	}
	cr_assert_float_eq(R[0].cl.peers[1].clock_offset_s, 100.0, 0.05);
	free_ranks(3);
}

FR_TEST(cluster, results_reach_rank_0)
{
	run_ranks(3);
	for (unsigned k = 0; k < 3; k++) {
		cr_assert_eq(R[0].got[k], true, "rank %u", k);
		cr_assert_float_eq(R[0].result[k], 100.0 + k, 1e-9);
	}
	cr_assert_eq(R[0].cl.lost_any, false);
	free_ranks(3);
}

FR_TEST(cluster, rank_lost_before_hello_is_named_and_others_go_on)
{
	R[2].lost_at = 1;
	run_ranks(3);
	cr_assert_eq(R[0].open_err, 0);
	cr_assert_eq(R[0].cl.peers[2].alive, false);
	cr_assert(strstr(R[0].cl.peers[2].why, "rank 2"),
		  "%s", R[0].cl.peers[2].why);
	cr_assert_eq(R[0].gate_err, 0);
	cr_assert_eq(R[1].gate_err, 0);
	cr_assert_eq(R[0].got[1], true);
	cr_assert_eq(R[0].got[2], false);
	cr_assert_eq(R[0].cl.lost_any, true);
	free_ranks(3);
}

FR_TEST(cluster, rank_killed_in_the_window_sends_no_result)
{
	R[1].lost_at = 3;
	R[1].host = "node-b";
	run_ranks(3);
	cr_assert_eq(R[0].gate_err, 0);
	cr_assert_eq(R[0].got[1], false);
	cr_assert_eq(R[0].got[2], true);
	cr_assert(strstr(R[0].cl.peers[1].why, "no result from rank 1 "
			 "(node-b)"), "%s", R[0].cl.peers[1].why);
	free_ranks(3);
}

/*
 * mpirun's SIGTERM after a rank's death comes while rank 0 waits for that
 * rank's result, and its SIGKILL follows: the wait is cut to the stop's
 * grace, not left to run to its deadline (120 s here; 0.3 s once cut).
 */
FR_TEST(cluster, stop_while_waiting_for_a_dead_ranks_result_cuts_the_wait)
{
	double t0;

	R[2].lost_at = 3;
	R[0].gather_s = 120.0;
	R[0].stop_in_gather = 2;
	t0 = stg_now();
	run_ranks(3);
	cr_assert_eq(R[0].gate_err, 0);
	cr_assert_eq(R[0].got[1], true);
	cr_assert_eq(R[0].got[2], false);
	cr_assert(strstr(R[0].cl.peers[2].why, "no result from rank 2"),
		  "%s", R[0].cl.peers[2].why);
	cr_assert_lt(stg_now() - t0, 60.0, "rank 0 waited %.1f s for a "
		     "dead rank after the stop", stg_now() - t0);
	free_ranks(3);
}

FR_TEST(cluster, rank_0_silent_ends_the_others_with_a_timeout)
{
	R[0].lost_at = 1;
	run_ranks(2);
	cr_assert_eq(R[1].open_err, -ETIMEDOUT);
	free_ranks(2);
}

FR_TEST(cluster, stop_on_rank_0_calls_the_window_off_everywhere)
{
	R[0].stop = SIGTERM;
	run_ranks(3);
	for (unsigned k = 0; k < 3; k++)
		cr_assert_eq(R[k].gate_err, -ECANCELED, "rank %u: %d", k,
			     R[k].gate_err);
	free_ranks(3);
}

FR_TEST(cluster, each_rank_reads_alone_in_turn)
{
	alone_overlap = 0;
	for (unsigned k = 0; k < 3; k++)
		R[k].do_alone = true;
	run_ranks(3);
	for (unsigned k = 0; k < 3; k++)
		cr_assert_eq(R[k].alone_err, 0, "rank %u", k);
	for (unsigned k = 0; k < 3; k++)
		cr_assert_float_eq(R[0].solo[k], 10.0 * k + 1, 1e-9);
	cr_assert_eq(alone_overlap, 0, "two ranks read at once");
	free_ranks(3);
}

FR_TEST(cluster, rank_that_failed_a_point_runs_the_next)
{
	for (unsigned k = 0; k < 2; k++)
		R[k].two_points = true;
	R[1].point1_fails = true;
	run_ranks(2);
	cr_assert_eq(R[1].gate_err, 0, "%d", R[1].gate_err);
	cr_assert_eq(R[1].gate2_err, 0, "%d", R[1].gate2_err);
	cr_assert_eq(R[0].gate2_err, 0);
	cr_assert_eq(R[0].cl.peers[1].alive, true);
	cr_assert_eq(R[0].cl.peers[1].failed, false);
	cr_assert_eq(R[0].got[1], true);
	free_ranks(2);
}

FR_TEST(cluster, rank_dead_after_ready_loses_only_itself)
{
	R[1].rc.sends_left = 2;         /* hello, ready; then silence */
	run_ranks(3);
	cr_assert_eq(R[0].cl.peers[1].alive, false);
	cr_assert(strstr(R[0].cl.peers[1].why, "no clock answer"), "%s",
		  R[0].cl.peers[1].why);
	cr_assert_eq(R[0].cl.peers[2].alive, true, "%s",
		     R[0].cl.peers[2].why);
	cr_assert_eq(R[2].gate_err, 0);
	cr_assert_eq(R[0].got[2], true);
	free_ranks(3);
}

static void *bcast_main(void *arg)
{
	struct rank_run *r = arg;
	char why[256];
	int plan[4] = { 0 };

	r->open_err = ms_cluster_open(&r->cl, &r->rc.c, TIMEOUT_S, &r->stop,
				      why, sizeof(why));
	if (r->open_err)
		return NULL;
	if (r->rc.c.rank == 0) {
		plan[0] = 7;
		plan[3] = 42;
	}
	r->gate_err = ms_cluster_bcast(&r->cl, plan, sizeof(plan));
	r->result[0] = plan[0] + plan[3];
	return NULL;
}

FR_TEST(cluster, bcast_gives_every_rank_rank_0s_plan)
{
	pthread_t t[3];

	memset(&W, 0, sizeof(W));
	pthread_mutex_init(&W.lock, NULL);
	pthread_cond_init(&W.cv, NULL);
	for (unsigned k = 0; k < 3; k++) {
		R[k].rc.c.ops = &fake_ops;
		R[k].rc.c.rank = k;
		R[k].rc.c.world = 3;
		snprintf(R[k].rc.c.host, sizeof(R[k].rc.c.host), "h");
		R[k].rc.w = &W;
		cr_assert_eq(pthread_create(&t[k], NULL, bcast_main, &R[k]), 0);
	}
	for (unsigned k = 0; k < 3; k++)
		pthread_join(t[k], NULL);
	for (unsigned k = 0; k < 3; k++) {
		cr_assert_eq(R[k].gate_err, 0);
		cr_assert_float_eq(R[k].result[0], 49.0, 1e-9, "rank %u", k);
	}
	free_ranks(3);
}

/* What a rank reads alone, with the reader left at the engine's defaults
 * (depth, block size, sample cap 0), as a run hands it. */
FR_TEST(cluster, read_alone_reads_with_the_engines_defaults)
{
	char *dir = fr_test_tmpdir(), path[4096];
	static char block[65536];
	struct ms_cluster_alone a;
	struct stg_dataset *ds = NULL;

	memset(block, 7, sizeof(block));
	for (int i = 0; i < 8; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		f = fopen(path, "w");
		cr_assert_not_null(f);
		cr_assert_eq(fwrite(block, 1, sizeof(block), f), sizeof(block));
		fclose(f);
	}
	cr_assert_eq(stg_dataset_scan(dir, NULL, &ds), 0);
	memset(&a, 0, sizeof(a));
	a.files = ds;
	a.threads = 1;
	a.seconds = 0;                  /* every file once */
	cr_assert_gt(ms_cluster_read_alone(&a), 0);
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
}

/* A rank whose own thread is stuck in the kernel says so through its
 * watchdog: rank 0 names it lost with its words at the gate, at once,
 * and measures with the others. */
FR_TEST(cluster, rank_stuck_on_stalled_storage_is_lost_with_its_words)
{
	const double t0 = stg_now();

	R[1].stalled_at = 2;
	run_ranks(3);
	cr_assert_eq(R[0].gate_err, 0);
	cr_assert_eq(R[2].gate_err, 0);
	cr_assert_not(R[0].cl.peers[1].alive);
	cr_assert(R[0].cl.peers[1].stalled);
	cr_assert_str_eq(R[0].cl.peers[1].why, "STALLED: rank 1 during the "
			 "listing");
	cr_assert(R[0].cl.lost_any);
	cr_assert(R[1].cl.lost_any, "no MPI_Finalize on the stalled rank");
	cr_assert(R[0].got[2]);
	cr_assert_not(R[0].got[1]);
	/* heard, not waited out: well within the step's timeout */
	cr_assert_lt(stg_now() - t0, 3 * TIMEOUT_S);
	free_ranks(3);
}

/* Rank 0 stuck: its watchdog hears the other ranks' stalls until a
 * deadline and names each rank, the silent ones with its words. */
FR_TEST(cluster, rank0_stuck_hears_the_others_and_names_every_rank)
{
	struct ms_cluster_result *res;

	R[0].stalled_at = 2;
	R[1].stalled_at = 2;
	R[2].lost_at = 2;               /* silent */
	run_ranks(3);
	res = &R[0].stalled_res;
	cr_assert_eq(res->world, 3);
	cr_assert_eq(res->stalled, 2);
	cr_assert(res->ranks[0].stalled);
	cr_assert(res->ranks[1].stalled);
	cr_assert(res->ranks[1].reported);
	cr_assert_str_eq(res->ranks[1].fail_text, "lost: STALLED: rank 1 "
			 "during the listing");
	cr_assert_not(res->ranks[2].reported);
	cr_assert_str_eq(res->ranks[2].lost_why, "no result: rank 0 "
			 "stalled");
	free(res->ranks);
	free_ranks(3);
}

/* Without a second thread's say in the transport, nothing is sent. */
FR_TEST(cluster, stalled_needs_a_transport_any_thread_may_use)
{
	struct ms_cluster cl;
	struct ms_comm c = { .ops = &fake_ops, .rank = 1, .world = 2 };
	struct ms_cluster_result res;
	struct rpt_cluster_rank rec;

	memset(&cl, 0, sizeof(cl));
	cl.comm = &c;
	cl.rank = 1;
	cl.world = 2;
	memset(&rec, 0, sizeof(rec));
	cr_assert_eq(ms_cluster_stalled(&cl, "STALLED", &rec, 0, "", &res),
		     -ENOTSUP);
}
