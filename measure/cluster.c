/*
 * cluster.c - the cluster protocol over struct ms_comm: hello, the gate
 * with a common window start, results gathered by rank 0, turns alone.
 *
 * DESIGN
 * Single-threaded, on each rank's own process. Every exchange is a star
 * around rank 0 of small fixed messages, each awaited with a deadline, so
 * no step waits on a rank that died: rank 0 marks it lost (with why) and
 * goes on without it, and a rank that hears nothing from rank 0 stops
 * with -ETIMEDOUT. A star costs rank 0 O(world) messages per step, a few
 * per measurement: nothing beside a window of seconds, even at hundreds
 * of ranks. Clocks: rank 0 measures each rank's CLOCK_REALTIME offset by
 * a ping-pong (offset = its time - the midpoint of the round trip), so a
 * common start is exact to about half a round trip whatever the nodes'
 * clocks say.
 * A rank whose own thread is stuck in the kernel on stalled storage has
 * one more word, sent by its watchdog's thread (TAG_STALLED,
 * ms_cluster_stalled): every wait of rank 0 on a rank (peer_recv)
 * listens for it between slices of STALLED_POLL_S, and names the rank
 * lost with the rank's own words instead of waiting out the step.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "measure_internal.h"
#include "storage.h"

enum {
	TAG_HELLO = 101, TAG_TABLE, TAG_READY, TAG_PING, TAG_PONG, TAG_GO,
	TAG_RESULT, TAG_TURN, TAG_DONE, TAG_BCAST, TAG_BYE, TAG_STALLED
};

#define PING_S 10.0             /* a ready rank answers a ping at once */
#define STALLED_POLL_S 0.25     /* rank 0 listens for a rank's stall this
                                   often while it waits for the rank */
#define LATE_FLOOR_S 0.2        /* a message already there is taken even
                                   when its step's deadline has passed */

struct msg_hello {
	char host[MS_CLUSTER_HOST_MAX];
};

struct msg_table {
	uint32_t node, nodes, local_rank, local_size;
};

struct msg_ready {
	uint32_t ok;
};

struct msg_time {
	double t;
};

struct msg_stalled {
	char why[MS_CLUSTER_WHY_MAX];
};

struct msg_go {
	double start;                   /* in the receiver's clock */
	uint32_t go;                    /* 0: called off */
};

static double clock_realtime(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The deadline of a step that starts now: the timeout, or the short grace
 * once a stop signal came. */
static double step_deadline(struct ms_cluster *cl, double timeout)
{
	const double now = stg_now();

	if (cl->stop && *cl->stop) {
		if (cl->stop_seen <= 0)
			cl->stop_seen = now;
		return fmin(now + timeout, cl->stop_seen +
			    MS_CLUSTER_STOP_GRACE_S);
	}
	return now + timeout;
}

/*
 * How long a rank waits for rank 0: rank 0 may first spend a whole step
 * waiting for a lost rank (one deadline for the step), then another for
 * the clock ping-pongs, before it answers.
 */
static double from_rank0(struct ms_cluster *cl)
{
	return step_deadline(cl, 3 * cl->timeout_s + cl->wait_extra_s);
}

/* A step's shared DEADLINE, but never less than a moment from now: one
 * lost rank must not make the next rank's message, already there, late. */
static double at_least_a_moment(double deadline)
{
	return fmax(deadline, stg_now() + LATE_FLOOR_S);
}

/* A rank other than 0 lost rank 0 (ERR): no MPI_Finalize at the end. */
static int rank0_lost(struct ms_cluster *cl, int err)
{
	if (err)
		cl->lost_any = true;
	return err;
}

static void peer_lost(struct ms_cluster *cl, unsigned k, const char *step,
		      int err)
{
	struct ms_cluster_peer *p = &cl->peers[k];

	if (!p->alive)
		return;
	p->alive = false;
	cl->lost_any = true;
	snprintf(p->why, sizeof(p->why), "%s from rank %u%s%s%s: %s", step,
		 k, p->host[0] ? " (" : "", p->host, p->host[0] ? ")" : "",
		 err == -ETIMEDOUT ? "none came in time: the rank was killed, "
		 "failed or hangs" : strerror(-err));
}

/* Rank K said its storage stalled (WHY): lost with its words. */
static void peer_stalled(struct ms_cluster *cl, unsigned k, const char *why)
{
	struct ms_cluster_peer *p = &cl->peers[k];

	if (!p->alive)
		return;
	p->alive = false;
	p->stalled = true;
	cl->lost_any = true;
	snprintf(p->why, sizeof(p->why), "%s", why);
}

/* Did rank K say its storage stalled? Then it is lost (peer_stalled). */
static bool heard_stalled(struct ms_cluster *cl, unsigned k)
{
	struct ms_comm *c = cl->comm;
	struct msg_stalled m;

	if (c->ops->recv(c, k, TAG_STALLED, &m, sizeof(m), 0))
		return false;
	m.why[sizeof(m.why) - 1] = '\0';
	peer_stalled(cl, k, m.why);
	return true;
}

/*
 * Rank 0's receive from rank K, as ops->recv, listening between slices
 * for K's stall: -EPIPE when K said its storage stalled (K is then lost,
 * named with its words). A stop signal that comes while it waits cuts the
 * wait to the stop's grace: mpirun's SIGTERM after a rank's death is
 * followed by its SIGKILL, and rank 0 must have written its report by
 * then, not go on waiting for the dead rank's result.
 */
static int peer_recv(struct ms_cluster *cl, unsigned k, int tag, void *buf,
		     size_t len, double deadline)
{
	struct ms_comm *c = cl->comm;
	bool cut = false;
	double slice;
	int err;

	for (;;) {
		if (!cut && cl->stop && *cl->stop) {
			deadline = at_least_a_moment(step_deadline(cl,
					deadline - stg_now()));
			cut = true;
		}
		slice = fmin(deadline, stg_now() + STALLED_POLL_S);
		err = c->ops->recv(c, k, tag, buf, len, slice);
		if (err != -ETIMEDOUT)
			return err;
		if (heard_stalled(cl, k))
			return -EPIPE;
		if (slice >= deadline)
			return -ETIMEDOUT;
	}
}

int ms_cluster_stalled_say(struct ms_cluster *cl, const char *why)
{
	struct ms_comm *c = cl->comm;
	struct msg_stalled m;

	memset(&m, 0, sizeof(m));
	snprintf(m.why, sizeof(m.why), "%s", why);
	return c->ops->send(c, 0, TAG_STALLED, &m, sizeof(m),
			    stg_now() + fmin(PING_S, cl->timeout_s));
}

void ms_cluster_stalled_hear(struct ms_cluster *cl, double deadline,
			     const char *others_why)
{
	const unsigned n = cl->active ? cl->active : cl->world;

	for (;;) {
		bool waiting = false;

		for (unsigned k = 1; k < n; k++)
			if (cl->peers[k].alive && !heard_stalled(cl, k))
				waiting = true;
		if (!waiting || stg_now() >= deadline)
			break;
		{
			const struct timespec ts = { 0, 100000000L };

			nanosleep(&ts, NULL);
		}
	}
	for (unsigned k = 1; k < n; k++) {
		struct ms_cluster_peer *p = &cl->peers[k];

		if (!p->alive)
			continue;
		p->alive = false;
		cl->lost_any = true;
		snprintf(p->why, sizeof(p->why), "%s", others_why);
	}
}

double ms_cluster_rank0_deadline(struct ms_cluster *cl)
{
	return from_rank0(cl);
}

int ms_cluster_open(struct ms_cluster *cl, struct ms_comm *comm,
		    double timeout_s, volatile sig_atomic_t *stop,
		    char *why, size_t why_len)
{
	struct msg_hello h;
	struct msg_table t;
	int err;

	memset(cl, 0, sizeof(*cl));
	cl->comm = comm;
	cl->rank = comm->rank;
	cl->world = comm->world;
	cl->timeout_s = timeout_s > 0 ? timeout_s :
			MS_CLUSTER_DEFAULT_TIMEOUT_S;
	cl->stop = stop;
	cl->realtime = clock_realtime;
	snprintf(cl->host, sizeof(cl->host), "%s", comm->host);
	why[0] = '\0';
	if (!comm->world || comm->rank >= comm->world)
		return -EINVAL;
	if (cl->rank) {
		memset(&h, 0, sizeof(h));
		snprintf(h.host, sizeof(h.host), "%s", cl->host);
		err = comm->ops->send(comm, 0, TAG_HELLO, &h, sizeof(h),
				      step_deadline(cl, cl->timeout_s));
		if (!err)
			err = comm->ops->recv(comm, 0, TAG_TABLE, &t,
					      sizeof(t), from_rank0(cl));
		if (err) {
			snprintf(why, why_len, "rank %u: no answer from rank "
				 "0 at the start: %s", cl->rank,
				 strerror(-err));
			return rank0_lost(cl, err);
		}
		cl->node = t.node;
		cl->nodes = t.nodes;
		cl->local_rank = t.local_rank;
		cl->local_size = t.local_size;
		return 0;
	}
	cl->peers = calloc(cl->world, sizeof(*cl->peers));
	if (!cl->peers)
		return -ENOMEM;
	snprintf(cl->peers[0].host, MS_CLUSTER_HOST_MAX, "%s", cl->host);
	for (unsigned k = 0; k < cl->world; k++)
		cl->peers[k].alive = true;
	{
		const double deadline = step_deadline(cl, cl->timeout_s);

		for (unsigned k = 1; k < cl->world; k++) {
			err = comm->ops->recv(comm, k, TAG_HELLO, &h,
					      sizeof(h), deadline);
			if (err) {
				peer_lost(cl, k, "no hello", err);
				continue;
			}
			h.host[sizeof(h.host) - 1] = '\0';
			memcpy(cl->peers[k].host, h.host, sizeof(h.host));
		}
	}
	/* nodes numbered in the order of their first ranks; a lost rank
	 * (no name) is a node of its own */
	for (unsigned k = 0; k < cl->world; k++) {
		struct ms_cluster_peer *p = &cl->peers[k];
		unsigned j = 0;

		while (j < k && !(p->host[0] &&
				  !strcmp(cl->peers[j].host, p->host)))
			j++;
		p->node = j < k ? cl->peers[j].node : cl->nodes++;
	}
	for (unsigned k = 0; k < cl->world; k++) {
		struct ms_cluster_peer *p = &cl->peers[k];

		for (unsigned j = 0; j < cl->world; j++)
			if (cl->peers[j].node == p->node) {
				if (j < k)
					p->local_rank++;
				p->local_size++;
			}
	}
	cl->node = 0;
	cl->local_rank = cl->peers[0].local_rank;
	cl->local_size = cl->peers[0].local_size;
	for (unsigned k = 1; k < cl->world; k++) {
		if (!cl->peers[k].alive)
			continue;
		t.node = cl->peers[k].node;
		t.nodes = cl->nodes;
		t.local_rank = cl->peers[k].local_rank;
		t.local_size = cl->peers[k].local_size;
		err = comm->ops->send(comm, k, TAG_TABLE, &t, sizeof(t),
				      step_deadline(cl, cl->timeout_s));
		if (err)
			peer_lost(cl, k, "the table could not be sent", err);
	}
	return 0;
}

void ms_cluster_set_active(struct ms_cluster *cl, unsigned n)
{
	cl->active = n && n < cl->world ? n : 0;
}

/* The ranks taking part in a step. */
static unsigned active(const struct ms_cluster *cl)
{
	return cl->active ? cl->active : cl->world;
}

void ms_cluster_close(struct ms_cluster *cl)
{
	struct ms_comm *c = cl->comm;
	struct msg_ready bye;

	ms_cluster_set_active(cl, 0);
	/* MPI_Finalize waits for every rank: only when rank 0 says none was
	 * lost (a rank that lost rank 0 does not wait for it either) */
	if (c && !cl->rank) {
		bye.ok = !cl->lost_any;
		for (unsigned k = 1; k < cl->world; k++)
			if (cl->peers && cl->peers[k].alive)
				c->ops->send(c, k, TAG_BYE, &bye, sizeof(bye),
					     step_deadline(cl, PING_S));
	} else if (c && !cl->lost_any) {
		if (c->ops->recv(c, 0, TAG_BYE, &bye, sizeof(bye),
				 from_rank0(cl)) || !bye.ok)
			cl->lost_any = true;
	}
	if (c)
		c->ops->close(c, cl->lost_any);
	free(cl->peers);
	cl->peers = NULL;
	cl->comm = NULL;
}

/* Rank 0: K's clock offset by one ping-pong, by DEADLINE. */
static int clock_offset(struct ms_cluster *cl, unsigned k, double deadline,
			double *offset)
{
	struct ms_comm *c = cl->comm;
	struct msg_time ping, pong;
	double t1, t3;
	int err;

	t1 = cl->realtime(cl->realtime_arg);
	ping.t = t1;
	err = c->ops->send(c, k, TAG_PING, &ping, sizeof(ping), deadline);
	if (!err)
		err = peer_recv(cl, k, TAG_PONG, &pong, sizeof(pong),
				deadline);
	if (err)
		return err;
	t3 = cl->realtime(cl->realtime_arg);
	*offset = pong.t - (t1 + t3) / 2;
	return 0;
}

int ms_cluster_gate(struct ms_cluster *cl, bool ok, double margin_s,
		    double *start_realtime)
{
	struct ms_comm *c = cl->comm;
	struct msg_ready r = { .ok = ok };
	struct msg_time ping, pong;
	struct msg_go g;
	unsigned ready = 0;
	double start, deadline;
	int err;

	*start_realtime = 0;
	if (cl->rank) {
		err = c->ops->send(c, 0, TAG_READY, &r, sizeof(r),
				   step_deadline(cl, cl->timeout_s));
		if (err)
			return rank0_lost(cl, err);
		if (ok) {
			err = c->ops->recv(c, 0, TAG_PING, &ping,
					   sizeof(ping), from_rank0(cl));
			if (err)
				return rank0_lost(cl, err);
			pong.t = cl->realtime(cl->realtime_arg);
			err = c->ops->send(c, 0, TAG_PONG, &pong,
					   sizeof(pong), step_deadline(cl,
					   cl->timeout_s));
			if (err)
				return rank0_lost(cl, err);
		}
		err = c->ops->recv(c, 0, TAG_GO, &g, sizeof(g),
				   from_rank0(cl));
		if (err)
			return rank0_lost(cl, err);
		if (!g.go)
			return -ECANCELED;
		*start_realtime = g.start;
		return 0;
	}
	cl->peers[0].failed = !ok;
	ready = ok;
	deadline = step_deadline(cl, cl->timeout_s);
	{
		for (unsigned k = 1; k < active(cl); k++) {
			if (!cl->peers[k].alive)
				continue;
			err = peer_recv(cl, k, TAG_READY, &r, sizeof(r),
					at_least_a_moment(deadline));
			if (err) {
				peer_lost(cl, k, "no ready", err);
				continue;
			}
			/* per point: a rank that failed one may run the next */
			cl->peers[k].failed = !r.ok;
			if (!r.ok)
				snprintf(cl->peers[k].why,
					 sizeof(cl->peers[k].why), "rank %u "
					 "could not prepare its measurement",
					 k);
		}
	}
	for (unsigned k = 1; k < active(cl); k++) {
		if (!cl->peers[k].alive || cl->peers[k].failed)
			continue;
		/* each its own deadline: a ready rank waits for it */
		err = clock_offset(cl, k, step_deadline(cl, fmin(PING_S,
				   cl->timeout_s)), &cl->peers[k].clock_offset_s);
		if (err)
			peer_lost(cl, k, "no clock answer", err);
		else
			ready++;
	}
	start = cl->realtime(cl->realtime_arg) + margin_s;
	cl->window_start = start;
	memset(&g, 0, sizeof(g));
	g.go = ready && !(cl->stop && *cl->stop);
	for (unsigned k = 1; k < active(cl); k++) {
		if (!cl->peers[k].alive)
			continue;
		g.start = start + cl->peers[k].clock_offset_s;
		err = c->ops->send(c, k, TAG_GO, &g, sizeof(g),
				   step_deadline(cl, cl->timeout_s));
		if (err)
			peer_lost(cl, k, "the start could not be sent", err);
	}
	if (!g.go)
		return -ECANCELED;
	*start_realtime = start;
	return 0;
}

int ms_cluster_gather(struct ms_cluster *cl, const void *mine, size_t len,
		      void *all, bool *got, double deadline)
{
	struct ms_comm *c = cl->comm;
	int err;

	if (cl->rank)
		return rank0_lost(cl, c->ops->send(c, 0, TAG_RESULT, mine,
				  len, step_deadline(cl, cl->timeout_s)));
	memset(got, 0, active(cl) * sizeof(*got));
	memcpy(all, mine, len);
	got[0] = true;
	for (unsigned k = 1; k < active(cl); k++) {
		double d = deadline;

		if (!cl->peers[k].alive)
			continue;
		/* a stop signal shortens the wait: mpirun kills soon */
		d = at_least_a_moment(fmin(d, step_deadline(cl, d -
							      stg_now())));
		err = peer_recv(cl, k, TAG_RESULT, (char *)all + k * len,
				len, d);
		if (err) {
			peer_lost(cl, k, "no result", err);
			continue;
		}
		got[k] = true;
	}
	return 0;
}

int ms_cluster_each_alone(struct ms_cluster *cl,
			  double (*fn)(void *arg), void *arg, double turn_s,
			  double *solo)
{
	struct ms_comm *c = cl->comm;
	struct msg_time t;
	int err;

	if (cl->rank) {
		err = c->ops->recv(c, 0, TAG_TURN, &t, sizeof(t),
				   step_deadline(cl, 3 * cl->timeout_s +
						 cl->rank * (turn_s +
						 cl->timeout_s)));
		if (err)
			return rank0_lost(cl, err);
		t.t = t.t > 0 ? fn(arg) : -1;
		return rank0_lost(cl, c->ops->send(c, 0, TAG_DONE, &t,
				  sizeof(t), step_deadline(cl,
				  cl->timeout_s)));
	}
	t.t = cl->stop && *cl->stop ? -1 : fn(arg);
	if (solo) {
		for (unsigned k = 0; k < active(cl); k++)
			solo[k] = -1;
		solo[0] = t.t;
	}
	for (unsigned k = 1; k < active(cl); k++) {
		if (!cl->peers[k].alive)
			continue;
		t.t = cl->stop && *cl->stop ? 0 : 1;     /* 0: skip it */
		err = c->ops->send(c, k, TAG_TURN, &t, sizeof(t),
				   step_deadline(cl, cl->timeout_s));
		if (!err)
			err = peer_recv(cl, k, TAG_DONE, &t, sizeof(t),
					step_deadline(cl, turn_s +
						      cl->timeout_s));
		if (err) {
			peer_lost(cl, k, "its turn alone did not end", err);
			continue;
		}
		if (solo)
			solo[k] = t.t;
	}
	return 0;
}

int ms_cluster_bcast(struct ms_cluster *cl, void *buf, size_t len)
{
	struct ms_comm *c = cl->comm;

	if (cl->rank)
		return rank0_lost(cl, c->ops->recv(c, 0, TAG_BCAST, buf, len,
						   from_rank0(cl)));
	for (unsigned k = 1; k < active(cl); k++) {
		int err;

		if (!cl->peers[k].alive)
			continue;
		err = c->ops->send(c, k, TAG_BCAST, buf, len,
				   step_deadline(cl, cl->timeout_s));
		if (err)
			peer_lost(cl, k, "the plan could not be sent", err);
	}
	return 0;
}

/* The launch's rank from the launcher's environment (no MPI needed). */
static const char *env_rank(void)
{
	const char *v = getenv("OMPI_COMM_WORLD_RANK");

	if (!v)
		v = getenv("PMIX_RANK");
	if (!v)
		v = getenv("PMI_RANK");
	return v;
}

int ms_cluster_launch(int *argc, char ***argv, struct ms_cluster *cl,
		      volatile sig_atomic_t *stop, char *why, size_t why_len)
{
	struct ms_comm *comm;
	char line[320];
	unsigned world;
	int err;

	why[0] = '\0';
	if (!ms_comm_mpi_launched(&world))
		return 0;
	if (!ms_comm_mpi_built()) {
		const char *r = env_rank();

		if (world <= 1)
			return 0;       /* one rank: as on one node */
		ms_comm_mpi_open(argc, argv, &comm, line, sizeof(line));
		/* every rank would say it: rank 0 does */
		if (!r || !strcmp(r, "0"))
			snprintf(why, why_len, "launched as %u ranks, but %s",
				 world, line);
		return -ENOTSUP;
	}
	err = ms_comm_mpi_open(argc, argv, &comm, why, why_len);
	if (err) {
		if (!why[0])
			snprintf(why, why_len, "%s", strerror(-err));
		return err;
	}
	err = ms_cluster_open(cl, comm, 0, stop, why, why_len);
	if (err) {
		if (!why[0])
			snprintf(why, why_len, "%s", strerror(-err));
		cl->comm = comm;
		cl->lost_any = true;
		ms_cluster_close(cl);
		return err;
	}
	return 1;
}
