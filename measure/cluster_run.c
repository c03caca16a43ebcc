/*
 * cluster_run.c - the steps every command launched by mpirun takes on top
 * of the cluster (cluster.c): this rank's share of its node's CPUs, each
 * rank's read alone, the gate of a point, rank 0's gather of the ranks'
 * records with the exactly-once check, `run`'s point under mpirun
 * (ms_cluster_run), and a rank stuck in the kernel on stalled storage
 * (ms_cluster_stalled, on the watchdog's thread: the rank's own thread
 * never comes back to the protocol, so this thread alone speaks, and
 * rank 0 names the rank lost with its words). Returns structs; never
 * prints.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "judge.h"
#include "loader.h"
#include "measure.h"
#include "measure_internal.h"

/* ---- cpus of this rank ---- */

/*
 * The node's CPUs a rank may take: the online CPUs (the sysroot's
 * /sys/devices/system/cpu/online) the kernel lets this process run on.
 * mpirun binds each rank to a core (or a socket) by default, which would
 * leave one rank per node a single core: the node's share is computed
 * from the online CPUs instead, and each CPU is tried (a container's
 * cpuset may exclude some).
 */
static void node_cpus(cpu_set_t *usable)
{
	cpu_set_t online, one, saved;

	if (sched_getaffinity(0, sizeof(saved), &saved))
		CPU_ZERO(&saved);
	*usable = saved;
	if (stg_cpus_online(&online))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &online) || CPU_ISSET(c, usable))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (!sched_setaffinity(0, sizeof(one), &one))
			CPU_SET(c, usable);
	}
	sched_setaffinity(0, sizeof(saved), &saved);
}

int ms_cluster_cpus(const struct ms_cluster *cl, cpu_set_t *set,
		    bool *shared, const char **why)
{
	cpu_set_t usable;
	int err;

	*shared = false;
	*why = NULL;
	CPU_ZERO(set);
	node_cpus(&usable);
	if (!CPU_COUNT(&usable)) {
		*why = "no usable CPU";
		return -EINVAL;
	}
	err = ldr_cpus_node_share(&usable, cl->local_rank, cl->local_size,
				  set, shared);
	if (err)
		*why = "no CPU for this rank";
	return err;
}

/* ---- what this rank alone reads ---- */

static double alone_fn(void *arg)
{
	const struct ms_cluster_alone *a = arg;

	/* a rank without a file reads nothing alone */
	return a->files ? ms_cluster_read_alone(a) : -1;
}

int ms_cluster_solo(struct ms_cluster *cl, const struct stg_dataset *ds,
		    const struct stg_reader_config *rc, unsigned threads,
		    double seconds, double *solo)
{
	struct ms_cluster_alone a;
	struct stg_dataset *mine = NULL;
	int err;

	memset(&a, 0, sizeof(a));
	if (ds)
		ms_cluster_files(ds, cl->rank, cl->world, &mine);
	a.files = mine;
	a.rc = *rc;
	a.threads = threads;
	a.seconds = seconds;
	a.stop = cl->stop;
	err = ms_cluster_each_alone(cl, alone_fn, &a, seconds, solo);
	stg_dataset_destroy(mine);
	return err;
}

void ms_cluster_point_claim(const struct ms_point_out *po)
{
	/* a stall in the window killed the point's child: this thread is
	 * free, and the rank lost to its storage is what rank 0 reports */
	if (po->rep.stalled && ldr_watchdog_stall(NULL) &&
	    !ldr_watchdog_claim())
		ldr_watchdog_park();
}

int ms_cluster_point_gate(void *arg, bool ok, double *start_realtime)
{
	const struct ms_cluster_gate *g = arg;

	return ms_cluster_gate(g->cl, ok, g->margin_s, start_realtime);
}

void ms_cluster_rank_init(const struct ms_cluster *cl,
			  struct rpt_cluster_rank *r)
{
	memset(r, 0, sizeof(*r));
	r->rank = cl->rank;
	snprintf(r->host, sizeof(r->host), "%s", cl->host);
	r->node = cl->node;
	r->local_rank = cl->local_rank;
	r->local_size = cl->local_size;
	r->reported = true;
	r->au = r->hit_ratio = r->solo_bytes_per_s = -1;
}

/* ---- rank 0: the ranks' records ---- */

/* Every sample once per epoch across the ranks that reported every
 * epoch: their digests added against the sampler's. */
static void check_once(struct ms_cluster_result *c,
		       const struct ms_cluster_check *run)
{
	const struct rpt_cluster_rank *all = c->ranks;
	struct ldr_digest sum[RPT_CLUSTER_EPOCHS], want[RPT_CLUSTER_EPOCHS];
	bool want_ok[RPT_CLUSTER_EPOCHS];
	unsigned epochs = RPT_CLUSTER_EPOCHS;
	unsigned bad;

	c->every_sample_once = -1;
	for (unsigned k = 0; k < c->world; k++) {
		if (!all[k].reported || all[k].fail_text[0]) {
			snprintf(c->once_how, sizeof(c->once_how), "not "
				 "checked: rank %u did not report", k);
			return;
		}
		if (all[k].digest_epochs < epochs)
			epochs = all[k].digest_epochs;
	}
	if (!epochs) {
		snprintf(c->once_how, sizeof(c->once_how), "not checked: "
			 "some rank completed no epoch in the run");
		return;
	}
	for (unsigned e = 0; e < epochs; e++) {
		sum[e] = (struct ldr_digest){ 0 };
		for (unsigned k = 0; k < c->world; k++) {
			const struct ldr_digest d = {
				all[k].digest[e].count, all[k].digest[e].sum,
				all[k].digest[e].xor_,
			};

			ldr_digest_merge(&sum[e], &d);
		}
		want_ok[e] = !ldr_digest_expected(run->samples_per_epoch,
			run->seed, e, c->world, false, run->shards, &want[e]);
	}
	bad = jdg_once_bad_epochs(sum, want, want_ok, epochs);
	c->every_sample_once = !bad;
	c->epochs_checked = epochs;
	snprintf(c->once_how, sizeof(c->once_how), "the sample ids each "
		 "rank read, digested per epoch and added over %u ranks, %s "
		 "the sampler's (%llu samples an epoch) in %u of %u epoch%s",
		 c->world, bad ? "differ from" : "equal",
		 (unsigned long long)run->samples_per_epoch, epochs - bad,
		 epochs, epochs == 1 ? "" : "s");
}

/* Rank K's record as rank 0 keeps it: a lost rank named with the peer's
 * word, a reported one with its window's start against the common one.
 * True when the rank was lost or failed. */
static bool rank_settle(const struct ms_cluster *cl, unsigned k, bool got,
			struct rpt_cluster_rank *r)
{
	const struct ms_cluster_peer *p = &cl->peers[k];

	if (!got) {
		memset(r, 0, sizeof(*r));
		r->rank = k;
		snprintf(r->host, sizeof(r->host), "%s", p->host);
		r->node = p->node;
		r->local_rank = p->local_rank;
		r->local_size = p->local_size;
		r->au = -1;
		r->hit_ratio = -1;
		r->solo_bytes_per_s = -1;
		if (p->stalled) {
			/* its own word, as a rank whose point stalled says
			 * it in its record */
			r->reported = true;
			r->stalled = true;
			snprintf(r->fail_text, sizeof(r->fail_text), "lost: "
				 "%.*s", (int)sizeof(r->fail_text) - 7, p->why);
			return true;
		}
		snprintf(r->lost_why, sizeof(r->lost_why), "%s",
			 p->why[0] ? p->why : "no result");
		return true;
	}
	r->reported = true;
	r->rank = k;
	r->node = p->node;
	/* its window's start, in rank 0's clock, against the common start */
	if (!r->fail_text[0] && cl->window_start > 0)
		r->start_skew_s -= p->clock_offset_s + cl->window_start;
	else
		r->start_skew_s = 0;
	return r->fail_text[0] != '\0';
}

/* The deadline of rank 0's gather: the others' windows end at the common
 * start + the window, whatever became of rank 0's own point; a run to a
 * number of epochs or samples has no known end: a timeout more. */
static double gather_deadline(const struct ms_cluster *cl, double window_s)
{
	double left = cl->timeout_s;

	if (window_s > 0 && cl->window_start > 0)
		left = cl->window_start + window_s -
		       cl->realtime(cl->realtime_arg);
	return stg_now() + (left > 0 ? left : 0) +
	       (cl->timeout_s < MS_CLUSTER_GRACE_S ? cl->timeout_s :
		MS_CLUSTER_GRACE_S);
}

int ms_cluster_collect(struct ms_cluster *cl,
		       const struct ms_cluster_check *run,
		       const struct rpt_cluster_rank *mine,
		       struct ms_cluster_result *out)
{
	const unsigned n = cl->active ? cl->active : cl->world;
	struct rpt_cluster_rank *all;
	bool *got;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	all = calloc(n, sizeof(*all));
	got = calloc(n, sizeof(*got));
	if (!all || !got) {
		free(all);
		free(got);
		return -ENOMEM;
	}
	if (ms_cluster_gather(cl, mine, sizeof(*mine), all, got,
			      gather_deadline(cl, run->window_s)) ||
	    cl->rank) {
		free(all);
		free(got);
		return 0;               /* rank 0 reports */
	}
	for (unsigned k = 0; k < n; k++) {
		unsigned j = 0;

		while (j < k && cl->peers[j].node != cl->peers[k].node)
			j++;
		out->nodes += j == k;
		if (rank_settle(cl, k, got[k], &all[k]))
			ret = 1;
		out->stalled += all[k].stalled;
		if (run->solo)
			all[k].solo_bytes_per_s = run->solo[k];
	}
	out->world = n;
	out->ranks = all;
	if (run->samples_per_epoch)
		check_once(out, run);
	else
		out->every_sample_once = -1;    /* io: no epochs */
	free(got);
	return ret;
}

/* ---- a rank stuck in the kernel ---- */

int ms_cluster_stalled(struct ms_cluster *cl, const char *why,
		       const struct rpt_cluster_rank *mine, double deadline,
		       const char *others_why, struct ms_cluster_result *out)
{
	const unsigned n = cl->active ? cl->active : cl->world;
	struct rpt_cluster_rank *all;
	int err;

	memset(out, 0, sizeof(*out));
	if (!cl->comm || !cl->comm->any_thread)
		return -ENOTSUP;
	if (cl->rank) {
		const double end = ms_cluster_rank0_deadline(cl);

		cl->lost_any = true;    /* no MPI_Finalize */
		err = ms_cluster_stalled_say(cl, why);
		/* the job ends by mpirun's signal once rank 0 has written
		 * its report; bounded all the same */
		while (!(cl->stop && *cl->stop) && stg_now() < end) {
			const struct timespec ts = { 0, 100000000L };

			nanosleep(&ts, NULL);
			/* mpirun's SIGTERM may go to the stuck thread */
			ldr_signals_take_pending();
		}
		return err;
	}
	all = calloc(n, sizeof(*all));
	if (!all)
		return -ENOMEM;
	ms_cluster_stalled_hear(cl, deadline, others_why);
	all[0] = *mine;
	for (unsigned k = 0; k < n; k++) {
		unsigned j = 0;

		while (j < k && cl->peers[j].node != cl->peers[k].node)
			j++;
		out->nodes += j == k;
		if (k)
			rank_settle(cl, k, false, &all[k]);
		out->stalled += all[k].stalled;
	}
	out->world = n;
	out->ranks = all;
	out->every_sample_once = -1;
	snprintf(out->once_how, sizeof(out->once_how), "not checked: rank 0's "
		 "storage stalled");
	return 0;
}

/* ---- run under mpirun ---- */

int ms_cluster_run(struct ms_cluster *cl, const struct ms_cluster_run_cfg *c,
		   struct ldr_result *res, struct ms_point_out *po,
		   double *solo, bool *shared)
{
	struct ms_cluster_gate gate = { cl, c->margin_s };
	struct ms_point *p = c->p;
	const char *why;
	cpu_set_t cpus;
	bool failed = c->failed;
	int err;

	/* whatever failed here, this rank walks every step the others walk
	 * (its turn alone, the gate, the gather) saying so, so that no rank
	 * waits for it until a timeout */
	*shared = false;
	CPU_ZERO(&cpus);
	if (!failed) {
		err = ms_cluster_cpus(cl, &cpus, shared, &why);
		if (err) {
			if (c->say)
				c->say(c->say_arg, err, why);
			failed = true;
		}
	}
	if (solo)
		ms_cluster_solo(cl, failed ? NULL : c->ds, &c->rc,
				c->readers ? c->readers : 1, c->solo_s, solo);
	p->rank = cl->rank;
	p->world = cl->world;
	p->cpus_from = &cpus;
	p->cache_by_other = cl->local_rank != 0;
	p->gate = ms_cluster_point_gate;
	p->gate_arg = &gate;
	memset(res, 0, sizeof(*res));
	memset(po, 0, sizeof(*po));
	if (failed) {
		/* said at the gate: rank 0 does not wait for it */
		double start;

		ms_cluster_gate(cl, false, c->margin_s, &start);
		snprintf(po->err_text, sizeof(po->err_text), "%s",
			 c->fail_text);
	} else {
		ms_point_run(p, res, po);
		ms_cluster_point_claim(po);
	}
	p->cpus_from = NULL;
	p->gate_arg = NULL;
	return failed ? -EINVAL : 0;
}
