/*
 * report_cluster_fill.c - the cluster reports filled from measure/'s
 * results: a rank's record from its run's report, rank 0's ranks into the
 * cluster report, and the cluster sweep's report from its points.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "measure.h"
#include "report.h"
#include "report_cluster.h"

void rpt_cluster_rank_fill(struct rpt_cluster_rank *r,
			   const struct rpt_run *rr,
			   const struct ldr_result *res,
			   const struct ms_point_out *po, bool cpus_shared)
{
	r->vcpus = po->cpus.count;
	stg_cpulist_format(&po->cpus.set, r->cpus, sizeof(r->cpus));
	r->cpus_shared = cpus_shared;
	r->hit_ratio = po->hit_ratio;
	r->signal = rr->signal;
	r->gpus = rr->setup.gpu_count;
	snprintf(r->bottleneck, sizeof(r->bottleneck), "%s",
		 rr->bottleneck ? rr->bottleneck : "unknown");
	if (!po->measured && po->rep.stalled) {
		/* lost to its storage, as a killed rank is lost */
		char line[700];

		rpt_stall_text(&po->rep.stall, line, sizeof(line));
		r->stalled = true;
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
	if (rr->setup.gpu_count)
		r->au = res->au;
	r->gpus_fed = rpt_run_gpus_fed(rr);
	snprintf(r->bottleneck_why, sizeof(r->bottleneck_why), "%s",
		 res->bottleneck_why);
	if (rr->setup.gpu_count && rpt_run_too_short(rr, r->bottleneck_why,
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

void rpt_cluster_from_run(struct rpt_cluster *c, const struct rpt_run *rr,
			  const char *dataset, const char *fs_server,
			  double window_s, int signal, const char *notes)
{
	memset(c, 0, sizeof(*c));
	c->command = "run";
	c->setup = rr->setup;
	if (!c->setup.dataset)
		c->setup.dataset = dataset;
	c->setup.fs_server = fs_server;
	c->window_s = window_s;
	/* GPUs emulated, else a raw feed */
	if (!c->setup.gpu_count)
		c->setup.gpu_type = NULL;
	c->setup.au_threshold = jdg_threshold(rr->setup.au_threshold);
	c->setup.bytes_per_sample = rpt_bytes_per_sample(rr->setup.bytes,
							 rr->setup.records);
	c->signal = signal;
	c->notes = notes;
}

void rpt_cluster_fill(struct rpt_cluster *c, const char *command,
		      const struct rpt_setup_src *in, double window_s)
{
	memset(c, 0, sizeof(*c));
	c->command = command;
	rpt_setup_fill(&c->setup, in);
	if (!c->setup.gpu_count)
		c->setup.gpu_type = NULL;       /* a raw feed */
	c->window_s = window_s;
	c->notes = "";
}

void rpt_cluster_rank_from_point(struct rpt_cluster_rank *r,
				 const struct rpt_setup_src *in,
				 const struct ms_point_out *po,
				 const struct ldr_result *res,
				 size_t files_total, int stop, bool shared)
{
	struct rpt_run rr;
	char how[RPT_HOW_LEN];

	memset(&rr, 0, sizeof(rr));
	rr.cpu_outside_mask_s = -1;
	rr.fraction_resident = -1;
	rr.hit_ratio = -1;
	rpt_setup_fill(&rr.setup, in);
	rpt_run_fill_point(&rr, po, res, false, files_total, how, sizeof(how));
	rr.signal = po->rep.signal ? po->rep.signal : stop;
	rpt_cluster_rank_fill(r, &rr, res, po, shared);
}

void rpt_cluster_from_io(struct rpt_cluster *c, const struct ms_io_config *cfg,
			 const struct ms_machine *m,
			 const struct ms_dataset *md, const char *dataset,
			 int signal)
{
	rpt_cluster_fill(c, "io", &(struct rpt_setup_src){
		.m = m, .md = md, .dataset = dataset, .backend = -1,
		.cache = -1 }, cfg->duration_s);
	c->setup.format = NULL;         /* io reads files, not samples */
	/* as asked, before warm became "as found" for the reads */
	c->setup.cache = cfg->cache == STG_CACHE_COLD ? "cold" :
			 cfg->cache == STG_CACHE_WARM ? "warm" :
			 cfg->rc.direct ? "as found, O_DIRECT" : "as found";
	c->setup.au_threshold = LDR_DEFAULT_AU_THRESHOLD;
	c->setup.bytes_per_sample = 0;  /* no GPU emulated */
	c->signal = signal;
}

void rpt_cluster_take(struct rpt_cluster *c, const struct ms_cluster_result *r)
{
	c->world = r->world;
	c->nodes = r->nodes;
	c->ranks = r->ranks;
	c->every_sample_once = r->every_sample_once;
	c->epochs_checked = r->epochs_checked;
	snprintf(c->once_how, sizeof(c->once_how), "%s", r->once_how);
}

int rpt_cluster_sweep_fill(struct rpt_cluster_sweep *s,
			   const struct rpt_cluster *base, unsigned world,
			   unsigned nodes,
			   const struct ms_cluster_sweep_result *r)
{
	struct rpt_cluster_point *pts = calloc(r->npoints ? r->npoints : 1,
					       sizeof(*pts));

	memset(s, 0, sizeof(*s));
	if (!pts)
		return -1;
	for (size_t i = 0; i < r->npoints; i++) {
		const struct ms_cluster_sweep_point *p = &r->points[i];

		pts[i].ranks = p->ranks;
		pts[i].nodes = p->res.nodes;
		pts[i].vcpus = p->vcpus;
		pts[i].cache = stg_cache_state_name(p->cache);
		pts[i].report = *base;
		pts[i].report.setup.cache = pts[i].cache;
		rpt_cluster_take(&pts[i].report, &p->res);
	}
	s->setup = base->setup;
	s->setup.cache = NULL;
	s->world = world;
	s->nodes = nodes;
	s->window_s = r->window_s;
	s->points = pts;
	s->npoints = r->npoints;
	return 0;
}
