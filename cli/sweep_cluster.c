/*
 * sweep_cluster.c - `feedrate sweep` under mpirun: the ranks taking part
 * (1, 2, 4 ... R, in rank order: one rank per node puts them on as many
 * nodes) x the cache states x each rank's vCPU counts, every point a
 * cluster point (a common window, rank 0 gathers), then rank 0's sweep
 * report of how the total scales.
 *
 * Wiring only: every rank walks the same plan (it comes from the same
 * command line); a rank outside a point's ranks skips it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cluster.h"
#include "report_cluster.h"

#define SWEEP_POINT_MIN_S 3.0           /* a point's window, at least */
#define SWEEP_POINT_OVERHEAD_S 6.0      /* gate margin, child, gather */
#define SWEEP_SOLO_S 5.0

/* 1, 2, 4 ... below WORLD, then WORLD, into OUT; how many. */
static unsigned rank_counts(unsigned world, unsigned *out, unsigned max)
{
	unsigned n = 0;

	for (unsigned r = 1; r < world && n + 1 < max; r *= 2)
		out[n++] = r;
	out[n++] = world;
	return n;
}

static void point_fill(const struct cli_sweep_cluster *sc,
		       struct rpt_cluster *c, const char *cache, double window)
{
	memset(c, 0, sizeof(*c));
	c->command = "sweep";
	c->workload = sc->w->name;
	c->dataset = sc->dataset;
	c->format = sc->format;
	c->fs_type = sc->fs_type;
	c->fs_server = sc->fs_server;
	c->cache = cache;
	c->files = sc->md->ds ? stg_dataset_count(sc->md->ds) : 0;
	c->bytes = sc->md->ds ? stg_dataset_total_bytes(sc->md->ds) : 0;
	c->records = sc->records;
	c->window_s = window;
	c->gpu_type = sc->gs->count ? sc->gs->type : NULL;
	c->gpus_per_rank = sc->gs->count;
	c->demand_per_gpu = sc->gs->demand;
	c->au_threshold = sc->w->au_threshold;
	c->demand_kind = sc->gs->demand_kind;
	c->demand_basis = sc->gs->demand_basis;
	c->demand_source = sc->gs->demand_source;
	c->bytes_per_sample = rpt_bytes_per_sample(c->bytes, c->records);
	c->notes = "";
}

/* The plan every rank walks alike: rank 0's, sent to all. */
struct plan {
	uint32_t nvcpus;
	uint32_t vcpus[MS_SWEEP_MAX_VCPUS];
};

/* A rank's point it cannot run: said at the gate and in its record. */
static void point_failed(struct rpt_cluster_rank *mine, const char *why)
{
	struct cli_gate gate = { 1.0 };
	double start;

	cli_cluster_gate(&gate, false, &start);
	cli_cluster_rank_init(mine);
	snprintf(mine->fail_text, sizeof(mine->fail_text), "%s", why);
}

int cli_sweep_cluster(const struct cli_sweep_cluster *sc)
{
	struct ms_cluster *cl = cli_cluster;
	struct rpt_cluster_point *pts = NULL;
	struct rpt_cluster_rank **alls = NULL;
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct ms_point_out *po = calloc(1, sizeof(*po));
	unsigned ranks[32], nranks, ncache = 0;
	enum stg_cache_state caches[2];
	double *solo = NULL, window, idle_s = 0;
	size_t npts = 0, max;
	struct plan plan;
	cpu_set_t cpus;
	bool shared = false, failed = sc->failed || !res || !po;
	int ret = 0;

	/* whatever failed on this rank, it walks every point's steps (its
	 * turn alone, each point's gate and gather), saying so */
	CPU_ZERO(&cpus);
	if (!failed && cli_cluster_cpus("sweep", &cpus, &shared))
		failed = true;
	memset(&plan, 0, sizeof(plan));
	if (cl->rank == 0) {
		const unsigned share = CPU_COUNT(&cpus) ? CPU_COUNT(&cpus) : 1;

		/* rank 0's share decides; a rank with fewer CPUs fails the
		 * points it cannot take, and says so */
		for (unsigned i = 0; i < sc->nvcpus; i++)
			if (sc->vcpus[i] <= share)
				plan.vcpus[plan.nvcpus++] = sc->vcpus[i];
		if (!sc->nvcpus) {      /* the default: 1, 2, 4 ... share */
			unsigned v[MS_SWEEP_MAX_VCPUS];

			plan.nvcpus = ms_sweep_default_vcpus(share, v);
			for (unsigned i = 0; i < plan.nvcpus; i++)
				plan.vcpus[i] = v[i];
		}
		if (!plan.nvcpus)
			plan.vcpus[plan.nvcpus++] = share;
	}
	ms_cluster_set_active(cl, 0);
	if (ms_cluster_bcast(cl, &plan, sizeof(plan)) ||
	    plan.nvcpus > MS_SWEEP_MAX_VCPUS)
		plan.nvcpus = 0;        /* rank 0 is lost: nothing to walk */
	if (sc->cache[STG_CACHE_COLD])
		caches[ncache++] = STG_CACHE_COLD;
	if (sc->cache[STG_CACHE_WARM])
		caches[ncache++] = STG_CACHE_WARM;
	nranks = rank_counts(cl->world, ranks, 32);
	max = (size_t)ncache * plan.nvcpus * nranks;
	window = max ? sc->budget_s / (double)max - SWEEP_POINT_OVERHEAD_S : 0;
	if (window < SWEEP_POINT_MIN_S)
		window = SWEEP_POINT_MIN_S;
	pts = calloc(max ? max : 1, sizeof(*pts));
	alls = calloc(max ? max : 1, sizeof(*alls));
	solo = calloc(cl->world, sizeof(*solo));
	if (sc->cache[STG_CACHE_COLD]) {
		struct stg_reader_config rc = { 0 };

		rc.backend = sc->o->backend;
		rc.depth = sc->o->depth;
		cli_cluster_solo(failed ? NULL : sc->md->ds, &rc,
				 sc->o->readers ? sc->o->readers : 1,
				 SWEEP_SOLO_S, solo);
	}
	for (unsigned ci = 0; ci < ncache; ci++)
	for (unsigned vi = 0; vi < plan.nvcpus; vi++)
	for (unsigned ri = 0; ri < nranks; ri++) {
		const unsigned n = ranks[ri];
		struct cli_cluster_run run;
		struct rpt_cluster_rank mine;
		struct rpt_run rr;
		struct cli_gate gate = { LDR_DEFAULT_WARMUP_S + 3.0 };
		struct ms_point p;
		char how[1024];

		ms_cluster_set_active(cl, n);
		if (cl->rank >= n) {
			/* sits this point out: its next gate waits for it */
			idle_s += window + SWEEP_POINT_OVERHEAD_S +
				  cl->timeout_s;
			continue;
		}
		cl->wait_extra_s = idle_s;
		idle_s = 0;
		memset(&p, 0, sizeof(p));
		if (failed || cli_stop ||
		    cli_point_base("sweep", sc->o, sc->w, sc->gs, sc->md, &p,
				   sc->ts, sc->pipeline, sc->pipeline_len)) {
			point_failed(&mine, cli_stop ? "stopped by a signal" :
				     "this rank could not set up its points "
				     "(its error output says why)");
		} else {
			p.cache = caches[ci];
			p.vcpus = plan.vcpus[vi];
			p.duration_s = window;
			p.rank = cl->rank;
			p.world = n;
			p.cpus_from = &cpus;
			p.cache_by_other = cl->local_rank != 0;
			p.gate = cli_cluster_gate;
			p.gate_arg = &gate;
			p.stop = (volatile int *)&cli_stop;
			if (cl->rank == 0 && isatty(STDERR_FILENO))
				fprintf(stderr, "\r\033[Kfeedrate sweep: %s, "
					"%u vCPU%s a rank, %u rank%s...",
					stg_cache_state_name(caches[ci]),
					plan.vcpus[vi], plan.vcpus[vi] == 1 ?
					"" : "s", n, n == 1 ? "" : "s");
			memset(res, 0, sizeof(*res));
			ms_point_run(&p, res, po);
			memset(&rr, 0, sizeof(rr));
			rr.cpu_outside_mask_s = -1;
			rr.fraction_resident = -1;
			rr.hit_ratio = -1;
			rpt_run_fill_gpus(&rr, sc->gs);
			rr.au_threshold = sc->w->au_threshold;
			rpt_run_fill_point(&rr, po, res, false,
					   stg_dataset_count(sc->md->ds), how,
					   sizeof(how));
			rr.signal = po->rep.signal ? po->rep.signal :
				    cli_stop;
			cli_cluster_rank_fill(&mine, &rr, res, po, shared);
		}
		cl->wait_extra_s = 0;
		memset(&run, 0, sizeof(run));
		if (cl->rank == 0)
			point_fill(sc, &run.report,
				   stg_cache_state_name(caches[ci]), window);
		run.solo = caches[ci] == STG_CACHE_COLD ? solo : NULL;
		run.window_s = window;
		run.samples_per_epoch = sc->records;
		run.seed = sc->o->seed;
		run.shards = sc->md->shards != NULL;
		if (cli_cluster_collect("sweep", &run, &mine, &alls[npts]))
			ret = FR_EXIT_ENV;      /* a rank lost or failed */
		if (cl->rank == 0 && alls[npts] && npts < max) {
			pts[npts].ranks = n;
			pts[npts].nodes = run.report.nodes;
			pts[npts].vcpus = plan.vcpus[vi];
			pts[npts].cache = stg_cache_state_name(caches[ci]);
			pts[npts].report = run.report;
			npts++;
		}
	}
	ms_cluster_set_active(cl, 0);
	if (cl->rank == 0 && isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	if (cl->rank == 0 && pts) {
		struct rpt_cluster_sweep s;
		struct rpt_cluster base;
		const char *outs[2] = { sc->o->json, sc->html };
		FILE *out = cli_text_out(outs, 2);

		point_fill(sc, &base, "", window);
		memset(&s, 0, sizeof(s));
		s.workload = base.workload;
		s.dataset = base.dataset;
		s.format = base.format;
		s.fs_type = base.fs_type;
		s.fs_server = base.fs_server;
		s.files = base.files;
		s.bytes = base.bytes;
		s.records = base.records;
		s.world = cl->world;
		s.nodes = cl->nodes;
		s.window_s = window;
		s.gpu_type = base.gpu_type;
		s.gpus_per_rank = base.gpus_per_rank;
		s.demand_per_gpu = base.demand_per_gpu;
		s.au_threshold = base.au_threshold;
		s.bytes_per_sample = base.bytes_per_sample;
		s.demand_kind = base.demand_kind;
		s.demand_basis = base.demand_basis;
		s.demand_source = base.demand_source;
		s.points = pts;
		s.npoints = npts;
		s.signal = cli_stop;
		s.notes = sc->notes;
		rpt_cluster_sweep_print(out, &s);
		fflush(out);
		if (sc->o->json) {
			json_t *root = rpt_cluster_sweep_json(&s);
			int r = root ? cli_write_report("sweep", sc->o->json,
							root, NULL, "JSON") :
				       FR_EXIT_ENV;

			json_decref(root);
			ret = r ? r : ret;
		}
		if (sc->html) {
			int r = cli_write_report("sweep", sc->html, NULL,
						 rpt_cluster_sweep_html(&s),
						 "HTML");

			ret = r ? r : ret;
		}
	}
	for (size_t i = 0; i < npts && alls; i++)
		free(alls[i]);
	free(alls);
	free(pts);
	free(solo);
	free(res);
	free(po);
	if (cli_stop)
		return cli_exit_for_signal(cli_stop);
	return ret;
}
