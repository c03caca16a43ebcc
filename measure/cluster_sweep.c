/*
 * cluster_sweep.c - `sweep` under mpirun: the ranks taking part (1, 2, 4
 * ... R, in rank order: one rank per node puts them on as many nodes) x
 * the cache states x each rank's vCPU counts, every point a cluster point
 * (a common window, rank 0 gathers). Every rank walks the same plan (rank
 * 0's, sent to all); a rank outside a point's ranks skips it. The
 * command's own parts (a point's options, a rank's record, the progress
 * line) come as callbacks; nothing here prints.
 *
 * DESIGN
 * The walk runs on the command's thread. One other thread reads its
 * result: rank 0's stall watchdog, once rank 0's own thread is stuck in
 * the kernel in a point (ms_cluster_sweep_stalled), so that its report
 * is the sweep's, the stuck point last. WALK_LOCK is held while the walk
 * changes the result's points, their count and the point being walked
 * (AT_*), and while the watchdog reads and appends; never across I/O.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "loader.h"
#include "measure.h"

#define SWEEP_POINT_MIN_S 3.0           /* a point's window, at least */
#define SWEEP_POINT_OVERHEAD_S 6.0      /* gate margin, child, gather */
#define SWEEP_SOLO_S 5.0

/* the result's points, their count and AT_* (see DESIGN) */
static pthread_mutex_t walk_lock = PTHREAD_MUTEX_INITIALIZER;

/* The plan every rank walks alike: rank 0's, sent to all. */
struct plan {
	uint32_t nvcpus;
	uint32_t vcpus[MS_SWEEP_MAX_VCPUS];
};

/* What one walk keeps between points. */
struct walk {
	struct ms_cluster *cl;
	const struct ms_cluster_sweep_cfg *c;
	struct ldr_result *res;
	struct ms_point_out *po;
	cpu_set_t cpus;
	bool shared, failed;
	bool stalled;                   /* this rank's storage stalled in a
	                                   point: it measures no more */
	double window, idle_s;
	double *solo;
};

/* 1, 2, 4 ... below WORLD, then WORLD, into OUT; how many. */
static unsigned rank_counts(unsigned world, unsigned *out, unsigned max)
{
	unsigned n = 0;

	for (unsigned r = 1; r < world && n + 1 < max; r *= 2)
		out[n++] = r;
	out[n++] = world;
	return n;
}

/* Rank 0's vCPU counts: its share decides; a rank with fewer CPUs fails
 * the points it cannot take, and says so. Sent to every rank. */
static void plan_make(struct walk *w, struct plan *plan)
{
	const struct ms_cluster_sweep_cfg *c = w->c;

	memset(plan, 0, sizeof(*plan));
	if (w->cl->rank == 0) {
		const unsigned share = CPU_COUNT(&w->cpus) ?
				       CPU_COUNT(&w->cpus) : 1;

		for (unsigned i = 0; i < c->nvcpus; i++)
			if (c->vcpus[i] <= share)
				plan->vcpus[plan->nvcpus++] = c->vcpus[i];
		if (!c->nvcpus) {       /* the default: 1, 2, 4 ... share */
			unsigned v[MS_SWEEP_MAX_VCPUS];

			plan->nvcpus = ms_sweep_default_vcpus(share, v);
			for (unsigned i = 0; i < plan->nvcpus; i++)
				plan->vcpus[i] = v[i];
		}
		if (!plan->nvcpus)
			plan->vcpus[plan->nvcpus++] = share;
	}
	ms_cluster_set_active(w->cl, 0);
	if (ms_cluster_bcast(w->cl, plan, sizeof(*plan)) ||
	    plan->nvcpus > MS_SWEEP_MAX_VCPUS)
		plan->nvcpus = 0;       /* rank 0 is lost: nothing to walk */
}

/* A rank's point it cannot run: said at the gate and in its record. */
static void point_failed(struct ms_cluster *cl, struct rpt_cluster_rank *mine,
			 const char *why)
{
	double start;

	ms_cluster_gate(cl, false, 1.0, &start);
	ms_cluster_rank_init(cl, mine);
	snprintf(mine->fail_text, sizeof(mine->fail_text), "%s", why);
}

/* This rank's part of the point (CACHE, VCPUS a rank, N ranks) into MINE. */
static void point_measure(struct walk *w, enum stg_cache_state cache,
			  unsigned vcpus, unsigned n,
			  struct rpt_cluster_rank *mine)
{
	const struct ms_cluster_sweep_cfg *c = w->c;
	struct ms_cluster *cl = w->cl;
	struct ms_cluster_gate gate = { cl, LDR_DEFAULT_WARMUP_S + 3.0 };
	struct ms_point p;

	memset(&p, 0, sizeof(p));
	if (w->failed || w->stalled || *cl->stop ||
	    c->point_base(c->arg, &p)) {
		point_failed(cl, mine, *cl->stop ? "stopped by a signal" :
			     w->stalled ? "not run: the storage stalled in "
			     "an earlier point" : "this rank could not set up "
			     "its points (its error output says why)");
		return;
	}
	p.cache = cache;
	p.vcpus = vcpus;
	p.duration_s = w->window;
	p.rank = cl->rank;
	p.world = n;
	p.cpus_from = &w->cpus;
	p.cache_by_other = cl->local_rank != 0;
	p.gate = ms_cluster_point_gate;
	p.gate_arg = &gate;
	p.stop = (volatile int *)cl->stop;
	if (cl->rank == 0 && c->progress)
		c->progress(c->arg, cache, vcpus, n);
	memset(w->res, 0, sizeof(*w->res));
	ms_point_run(&p, w->res, w->po);
	ms_cluster_point_claim(w->po);
	/* the watchdog has fired once: a later stall would go unseen */
	w->stalled |= w->po->rep.stalled;
	c->record(c->arg, w->po, w->res, w->shared, mine);
}

/* One point on N ranks; rank 0 keeps it in OUT. */
static void point_walk(struct walk *w, enum stg_cache_state cache,
		       unsigned vcpus, unsigned n,
		       struct ms_cluster_sweep_result *out)
{
	struct ms_cluster *cl = w->cl;
	struct ms_cluster_check chk;
	struct ms_cluster_result res;
	struct rpt_cluster_rank mine;

	ms_cluster_set_active(cl, n);
	if (cl->rank >= n) {
		/* sits this point out: its next gate waits for it */
		w->idle_s += w->window + SWEEP_POINT_OVERHEAD_S + cl->timeout_s;
		return;
	}
	cl->wait_extra_s = w->idle_s;
	w->idle_s = 0;
	pthread_mutex_lock(&walk_lock);
	out->at_ranks = n;
	out->at_vcpus = vcpus;
	out->at_cache = cache;
	pthread_mutex_unlock(&walk_lock);
	point_measure(w, cache, vcpus, n, &mine);
	cl->wait_extra_s = 0;
	memset(&chk, 0, sizeof(chk));
	chk.solo = cache == STG_CACHE_COLD ? w->solo : NULL;
	chk.window_s = w->window;
	chk.samples_per_epoch = w->c->samples_per_epoch;
	chk.seed = w->c->seed;
	chk.shards = w->c->shards;
	if (ms_cluster_collect(cl, &chk, &mine, &res))
		out->lost = true;       /* a rank lost or failed */
	pthread_mutex_lock(&walk_lock);
	out->at_ranks = 0;
	if (cl->rank == 0 && res.ranks && !out->points)
		free(res.ranks);
	else if (cl->rank == 0 && res.ranks) {
		struct ms_cluster_sweep_point *pt = &out->points[out->npoints++];

		pt->ranks = n;
		pt->vcpus = vcpus;
		pt->cache = cache;
		pt->res = res;
	}
	pthread_mutex_unlock(&walk_lock);
}

int ms_cluster_sweep_stalled(struct ms_cluster_sweep_result *r,
			     struct ms_cluster_result *res)
{
	int err = -ENOTSUP;

	pthread_mutex_lock(&walk_lock);
	if (r->points && r->at_ranks) {
		/* room: the point being walked is not in POINTS yet */
		struct ms_cluster_sweep_point *pt = &r->points[r->npoints++];

		pt->ranks = r->at_ranks;
		pt->vcpus = r->at_vcpus;
		pt->cache = r->at_cache;
		pt->res = *res;
		res->ranks = NULL;
		r->at_ranks = 0;
		r->lost = true;
		err = 0;
	}
	pthread_mutex_unlock(&walk_lock);
	return err;
}

int ms_cluster_sweep(struct ms_cluster *cl,
		     const struct ms_cluster_sweep_cfg *c,
		     struct ms_cluster_sweep_result *out)
{
	struct walk w = { .cl = cl, .c = c, .failed = c->failed };
	unsigned ranks[MS_CLUSTER_SWEEP_MAX_RANKS], nranks, ncache = 0;
	enum stg_cache_state caches[2];
	struct plan plan;
	const char *why;
	size_t max;

	pthread_mutex_lock(&walk_lock);
	memset(out, 0, sizeof(*out));
	pthread_mutex_unlock(&walk_lock);
	w.res = calloc(1, sizeof(*w.res));
	w.po = calloc(1, sizeof(*w.po));
	w.solo = calloc(cl->world, sizeof(*w.solo));
	w.failed |= !w.res || !w.po;
	/* whatever failed on this rank, it walks every point's steps (its
	 * turn alone, each point's gate and gather), saying so */
	CPU_ZERO(&w.cpus);
	if (!w.failed && ms_cluster_cpus(cl, &w.cpus, &w.shared, &why))
		w.failed = true;
	plan_make(&w, &plan);
	if (c->cold)
		caches[ncache++] = STG_CACHE_COLD;
	if (c->warm)
		caches[ncache++] = STG_CACHE_WARM;
	nranks = rank_counts(cl->world, ranks, MS_CLUSTER_SWEEP_MAX_RANKS);
	max = (size_t)ncache * plan.nvcpus * nranks;
	w.window = max ? c->budget_s / (double)max - SWEEP_POINT_OVERHEAD_S : 0;
	if (w.window < SWEEP_POINT_MIN_S)
		w.window = SWEEP_POINT_MIN_S;
	pthread_mutex_lock(&walk_lock);
	out->window_s = w.window;
	out->points = calloc(max ? max : 1, sizeof(*out->points));
	pthread_mutex_unlock(&walk_lock);
	if (c->cold)
		ms_cluster_solo(cl, w.failed ? NULL : c->ds, &c->rc,
				c->readers ? c->readers : 1, SWEEP_SOLO_S,
				w.solo);
	for (unsigned ci = 0; ci < ncache; ci++)
		for (unsigned vi = 0; vi < plan.nvcpus; vi++)
			for (unsigned ri = 0; ri < nranks; ri++)
				point_walk(&w, caches[ci], plan.vcpus[vi],
					   ranks[ri], out);
	ms_cluster_set_active(cl, 0);
	free(w.solo);
	free(w.res);
	free(w.po);
	return out->points ? 0 : -ENOMEM;
}

void ms_cluster_sweep_free(struct ms_cluster_sweep_result *r)
{
	pthread_mutex_lock(&walk_lock);
	for (size_t i = 0; r->points && i < r->npoints; i++)
		free(r->points[i].res.ranks);
	free(r->points);
	memset(r, 0, sizeof(*r));
	pthread_mutex_unlock(&walk_lock);
}
