/*
 * cluster.c - a command launched by mpirun: the launch detected at start,
 * the cluster opened (measure/cluster.c), each rank's figures turned into
 * the record it sends rank 0, and rank 0's cluster report.
 *
 * Wiring only, like the rest of cli/: the protocol is measure/'s, the
 * report reports/' (report_cluster.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cluster.h"
#include "judge.h"
#include "report_cluster.h"

static struct ms_cluster cluster;
struct ms_cluster *cli_cluster;

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

int cli_cluster_start(int *argc, char ***argv)
{
	struct ms_comm *comm;
	char why[320];
	unsigned world;
	int err;

	if (!ms_comm_mpi_launched(&world))
		return 0;
	if (!ms_comm_mpi_built()) {
		const char *r = env_rank();

		if (world <= 1)
			return 0;       /* one rank: as on one node */
		ms_comm_mpi_open(argc, argv, &comm, why, sizeof(why));
		/* every rank would say it: rank 0 does */
		if (!r || !strcmp(r, "0"))
			fprintf(stderr, "feedrate: launched as %u ranks, but "
				"%s\n", world, why);
		return FR_EXIT_USAGE;
	}
	err = ms_comm_mpi_open(argc, argv, &comm, why, sizeof(why));
	if (err) {
		fprintf(stderr, "feedrate: %s\n", why[0] ? why :
			strerror(-err));
		return FR_EXIT_ENV;
	}
	err = ms_cluster_open(&cluster, comm, 0, &cli_stop, why,
			      sizeof(why));
	if (err) {
		fprintf(stderr, "feedrate: %s\n", why[0] ? why :
			strerror(-err));
		cluster.comm = comm;
		cluster.lost_any = true;
		ms_cluster_close(&cluster);
		return FR_EXIT_ENV;
	}
	cli_cluster = &cluster;
	return 0;
}

void cli_cluster_end(void)
{
	if (!cli_cluster)
		return;
	ms_cluster_close(cli_cluster);
	cli_cluster = NULL;
}

bool cli_cluster_rank0(void)
{
	return !cli_cluster || cli_cluster->rank == 0;
}

int cli_cluster_refuse(const char *cmd)
{
	if (!cli_cluster || cli_cluster->world < 2)
		return 0;
	if (cli_cluster->rank == 0)
		fprintf(stderr, "feedrate %s: runs on one node: launch it "
			"without mpirun (under mpirun: run, sweep and io)\n",
			cmd);
	return FR_EXIT_USAGE;
}

int cli_cluster_gate(void *arg, bool ok, double *start_realtime)
{
	const struct cli_gate *g = arg;

	return ms_cluster_gate(cli_cluster, ok, g->margin_s, start_realtime);
}

/* ---- cpus of this rank ---- */

/*
 * The node's CPUs a rank may take: the online CPUs the kernel lets this
 * process run on. mpirun binds each rank to a core (or a socket) by
 * default, which would leave one rank per node a single core: the node's
 * share is computed from the online CPUs instead, and each CPU is tried
 * (a container's cpuset may exclude some).
 */
static void node_cpus(cpu_set_t *usable)
{
	char buf[4096];
	cpu_set_t online, one, saved;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	bool ok = false;

	if (sched_getaffinity(0, sizeof(saved), &saved))
		CPU_ZERO(&saved);
	*usable = saved;
	if (f) {
		ok = fgets(buf, sizeof(buf), f) && !stg_cpulist_parse(buf,
								     &online);
		fclose(f);
	}
	if (!ok)
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

int cli_cluster_cpus(const char *cmd, cpu_set_t *set, bool *shared)
{
	cpu_set_t usable;
	int err;

	*shared = false;
	CPU_ZERO(set);
	node_cpus(&usable);
	if (!CPU_COUNT(&usable))
		return cli_fail(cmd, -EINVAL, 0, "no usable CPU");
	err = ldr_cpus_node_share(&usable, cli_cluster->local_rank,
				  cli_cluster->local_size, set, shared);
	if (err)
		return cli_fail(cmd, err, 0, "no CPU for this rank");
	return 0;
}

/* ---- what this rank alone reads ---- */

struct alone_arg {
	struct ms_cluster_alone a;
};

static double alone_fn(void *arg)
{
	struct alone_arg *x = arg;

	/* a rank without a file reads nothing alone */
	return x->a.files ? ms_cluster_read_alone(&x->a) : -1;
}

int cli_cluster_solo(const struct stg_dataset *ds,
		     const struct stg_reader_config *rc, unsigned threads,
		     double seconds, double *solo)
{
	struct alone_arg x;
	struct stg_dataset *mine = NULL;
	int err;

	memset(&x, 0, sizeof(x));
	if (ds)
		ms_cluster_files(ds, cli_cluster->rank, cli_cluster->world,
				 &mine);
	x.a.files = mine;
	x.a.rc = *rc;
	x.a.threads = threads;
	x.a.seconds = seconds;
	x.a.stop = &cli_stop;
	err = ms_cluster_each_alone(cli_cluster, alone_fn, &x, seconds,
				    solo);
	stg_dataset_destroy(mine);
	return err;
}

/* ---- the record a rank sends ---- */

void cli_cluster_rank_init(struct rpt_cluster_rank *r)
{
	memset(r, 0, sizeof(*r));
	r->rank = cli_cluster->rank;
	snprintf(r->host, sizeof(r->host), "%s", cli_cluster->host);
	r->node = cli_cluster->node;
	r->local_rank = cli_cluster->local_rank;
	r->local_size = cli_cluster->local_size;
	r->reported = true;
	r->au = r->hit_ratio = r->solo_bytes_per_s = -1;
}

void cli_cluster_rank_fill(struct rpt_cluster_rank *r,
			   const struct rpt_run *rr,
			   const struct ldr_result *res,
			   const struct ms_point_out *po, bool cpus_shared)
{
	cli_cluster_rank_init(r);
	r->vcpus = po->cpus.count;
	stg_cpulist_format(&po->cpus.set, r->cpus, sizeof(r->cpus));
	r->cpus_shared = cpus_shared;
	r->hit_ratio = po->hit_ratio;
	r->signal = rr->signal;
	r->gpus = rr->gpu_count;
	snprintf(r->bottleneck, sizeof(r->bottleneck), "%s",
		 rr->bottleneck ? rr->bottleneck : "unknown");
	if (!po->measured && po->rep.stalled) {
		/* lost to its storage, as a killed rank is lost */
		char line[700];

		rpt_stall_text(&po->rep.stall, line, sizeof(line));
		snprintf(r->fail_text, sizeof(r->fail_text), "lost: %.*s",
			 (int)sizeof(r->fail_text) - 7, line);
		return;
	}
	if (!po->measured) {
		snprintf(r->fail_text, sizeof(r->fail_text), "%.*s",
			 (int)sizeof(r->fail_text) - 1, po->err_text[0] ?
			 po->err_text : "nothing was measured");
		return;
	}
	r->measured_s = res->measured_s;
	r->samples = res->samples;
	r->samples_failed = res->samples_failed;
	r->errors = res->errors;
	r->read_bytes = res->read_bytes;
	r->samples_per_s = res->samples_per_s;
	r->bytes_per_s = res->read_bytes_per_s;
	if (rr->gpu_count)
		r->au = res->au;
	r->gpus_fed = rpt_run_gpus_fed(rr);
	snprintf(r->bottleneck_why, sizeof(r->bottleneck_why), "%s",
		 res->bottleneck_why);
	if (rr->gpu_count && rpt_run_too_short(rr, r->bottleneck_why,
					       sizeof(r->bottleneck_why)))
		r->too_short = true;
	/* sent in this rank's clock; rank 0 takes the offset out */
	r->start_skew_s = res->window_start_realtime;
	r->digest_epochs = res->digest_epochs < RPT_CLUSTER_EPOCHS ?
			   res->digest_epochs : RPT_CLUSTER_EPOCHS;
	for (unsigned e = 0; e < r->digest_epochs; e++) {
		r->digest[e].count = res->epoch_digest[e].count;
		r->digest[e].sum = res->epoch_digest[e].sum;
		r->digest[e].xor_ = res->epoch_digest[e].xor_;
	}
}

/* ---- rank 0: the ranks' records into the report ---- */

/* Every sample once per epoch across the ranks that reported every
 * epoch: their digests added against the sampler's. */
static void check_once(struct rpt_cluster *c, struct rpt_cluster_rank *all,
		       const struct cli_cluster_run *run)
{
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

int cli_cluster_collect(const char *cmd, struct cli_cluster_run *run,
			const struct rpt_cluster_rank *mine,
			struct rpt_cluster_rank **out)
{
	struct ms_cluster *cl = cli_cluster;
	const unsigned n = cl->active ? cl->active : cl->world;
	struct rpt_cluster_rank *all;
	struct rpt_cluster *c = &run->report;
	double deadline, left;
	unsigned nodes = 0;
	bool *got;
	int ret = FR_EXIT_OK;

	*out = NULL;
	all = calloc(n, sizeof(*all));
	got = calloc(n, sizeof(*got));
	if (!all || !got) {
		free(all);
		free(got);
		return cli_fail(cmd, -ENOMEM, 0, "out of memory");
	}
	/* the others' windows end at the common start + the window, whatever
	 * became of rank 0's own point; a run to a number of epochs or
	 * samples has no known end: a timeout more */
	left = cl->timeout_s;
	if (run->window_s > 0 && cl->window_start > 0)
		left = cl->window_start + run->window_s -
		       cl->realtime(cl->realtime_arg);
	deadline = stg_now() + (left > 0 ? left : 0) +
		   (cl->timeout_s < MS_CLUSTER_GRACE_S ? cl->timeout_s :
		    MS_CLUSTER_GRACE_S);
	if (ms_cluster_gather(cl, mine, sizeof(*mine), all, got, deadline) ||
	    cl->rank) {
		free(all);
		free(got);
		return FR_EXIT_OK;      /* rank 0 reports */
	}
	for (unsigned k = 0; k < n; k++) {
		struct rpt_cluster_rank *r = &all[k];
		const struct ms_cluster_peer *p = &cl->peers[k];
		unsigned j = 0;

		while (j < k && cl->peers[j].node != p->node)
			j++;
		nodes += j == k;
		if (!got[k]) {
			memset(r, 0, sizeof(*r));
			r->rank = k;
			snprintf(r->host, sizeof(r->host), "%s", p->host);
			r->node = p->node;
			r->local_rank = p->local_rank;
			r->local_size = p->local_size;
			r->au = -1;
			r->hit_ratio = -1;
			r->solo_bytes_per_s = -1;
			snprintf(r->lost_why, sizeof(r->lost_why), "%s",
				 p->why[0] ? p->why : "no result");
			ret = FR_EXIT_ENV;
		} else {
			r->reported = true;
			r->rank = k;
			r->node = p->node;
			/* its window's start, in rank 0's clock, against
			 * the common start */
			if (!r->fail_text[0] && cl->window_start > 0)
				r->start_skew_s -= p->clock_offset_s +
						   cl->window_start;
			else
				r->start_skew_s = 0;
			if (r->fail_text[0])
				ret = FR_EXIT_ENV;
		}
		if (run->solo)
			r->solo_bytes_per_s = run->solo[k];
	}
	c->world = n;
	c->nodes = nodes;
	c->ranks = all;
	if (run->samples_per_epoch)
		check_once(c, all, run);
	else
		c->every_sample_once = -1;      /* io: no epochs */
	free(got);
	*out = all;
	return ret;
}

int cli_cluster_report(const char *cmd, struct cli_cluster_run *run,
		       const struct rpt_cluster_rank *mine)
{
	struct rpt_cluster *c = &run->report;
	struct rpt_cluster_rank *all;
	int ret = cli_cluster_collect(cmd, run, mine, &all);

	if (!all)
		return ret;
	{
		FILE *out = cli_text_out(&run->json, 1);

		rpt_cluster_print(out, c);
		fflush(out);
	}
	if (run->json) {
		json_t *root = rpt_cluster_json(c);
		int r = root ? cli_write_report(cmd, run->json, root, NULL,
						"JSON") : FR_EXIT_ENV;

		json_decref(root);
		if (r)
			ret = r;
	}
	if (run->html) {
		int r = cli_write_report(cmd, run->html, NULL,
					 rpt_cluster_html(c), "HTML");

		if (r)
			ret = r;
	}
	c->ranks = NULL;
	free(all);
	return ret;
}
