/*
 * measure_sweep.c - the sweep: vCPU counts x cache states within a time
 * budget (the planner and its rule), then the check runs with emulated
 * GPUs that the verdict asks for.
 *
 * DESIGN
 * Single-threaded: each point runs through ms_point_run in its own pinned
 * child. Order: for each vCPU count, ascending: cold, ram, warm. The
 * budget is re-planned before each point with ms_plan_budget (what is
 * left, in equal shares; check runs reserved; points dropped from the
 * largest vCPU count down). The stop flag in the base point ends the
 * sweep between points; the running child stops and still reports.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"


/* ---- the budget rule ---- */

/* Index of the point to drop next: most vCPUs, then the later cache. */
static size_t next_to_drop(const struct ms_plan_point *p, size_t n)
{
	size_t best = n;

	for (size_t i = 0; i < n; i++) {
		if (p[i].dropped)
			continue;
		if (best == n || p[i].vcpus > p[best].vcpus ||
		    (p[i].vcpus == p[best].vcpus && p[i].cache > p[best].cache))
			best = i;
	}
	return best;
}

double ms_plan_budget(struct ms_plan_point *p, size_t n, unsigned nconfirm,
		      double confirm_s, double left_s, double min_point_s,
		      unsigned *confirm_kept)
{
	size_t kept = 0;
	double avail;

	for (size_t i = 0; i < n; i++)
		kept += !p[i].dropped;
	*confirm_kept = nconfirm;
	if (!kept) {
		*confirm_kept = 0;
		return 0;
	}
	avail = left_s - nconfirm * confirm_s;
	if (avail / kept < min_point_s) {
		/* the checks go before any point does */
		*confirm_kept = 0;
		avail = left_s;
	}
	while (kept > 1 && avail / kept < min_point_s) {
		p[next_to_drop(p, n)].dropped = true;
		kept--;
	}
	return avail > 0 ? avail / kept : 0;
}

size_t ms_ram_sample_files(size_t n_files, double rate, double window_s,
			   unsigned epochs, size_t min_files)
{
	double fit;

	if (rate <= 0 || window_s <= 0 || !epochs)
		return n_files;
	fit = rate * window_s / (epochs * 1.1);
	if (fit >= (double)n_files)
		return n_files;
	if (fit < (double)min_files)
		return min_files < n_files ? min_files : n_files;
	return (size_t)fit;
}

void ms_budget_rule_text(char *buf, size_t len)
{
	snprintf(buf, len, "Budget rule: generating a default dataset is not "
		 "counted; listing and evicting the dataset come first; %d "
		 "check runs per cache state (%.0f s each) are reserved; what "
		 "is left is split into equal shares, re-planned before each "
		 "point; while a share would be under %.0f s the check runs go "
		 "first, then points are dropped from the largest vCPU count "
		 "down (warm, then ram, then cold at one count). A ram point "
		 "runs one epoch to fill its cache and two measured epochs: "
		 "when they do not fit in its share it reads an evenly spread "
		 "sample of the files (never fewer epochs) with the page cache "
		 "scaled by the same factor, and says so.",
		 MS_CHECKS_PER_STATE, MS_CONFIRM_S, MS_MIN_POINT_S);
}

/* ---- the sweep ---- */

static void sweep_note(struct ms_sweep *sw, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sweep_note(struct ms_sweep *sw, const char *fmt, ...)
{
	size_t used = strlen(sw->notes);
	va_list ap;

	if (used && used + 2 < sizeof(sw->notes)) {
		memcpy(sw->notes + used, "; ", 3);
		used += 2;
	}
	if (used + 1 >= sizeof(sw->notes))
		return;
	va_start(ap, fmt);
	vsnprintf(sw->notes + used, sizeof(sw->notes) - used, fmt, ap);
	va_end(ap);
}

static void sweep_progress(const struct ms_sweep *sw, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sweep_progress(const struct ms_sweep *sw, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (!sw->cfg.progress)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	sw->cfg.progress(sw->cfg.progress_arg, what);
}

static double sweep_replan(struct ms_sweep *sw, size_t from);

int ms_sweep_plan(struct ms_sweep *sw, const struct ms_sweep_config *cfg)
{
	const size_t cap = (size_t)cfg->nvcpus * STG_CACHE_STATES;
	struct ms_cache_prep prep;

	memset(sw, 0, sizeof(*sw));
	sw->cfg = *cfg;
	/* --ram by default: half the dataset, at least 1 MiB */
	if (!sw->cfg.ram_bytes)
		sw->cfg.ram_bytes = stg_dataset_total_bytes(cfg->base.ds) / 2;
	if (sw->cfg.ram_bytes < (1u << 20))
		sw->cfg.ram_bytes = 1u << 20;
	sw->pts = calloc(cap ? cap : 1, sizeof(*sw->pts));
	sw->plan = calloc(cap ? cap : 1, sizeof(*sw->plan));
	if (!sw->pts || !sw->plan) {
		ms_sweep_free(sw);
		return -ENOMEM;
	}
	for (unsigned v = 0; v < cfg->nvcpus; v++)
		for (int c = 0; c < STG_CACHE_STATES; c++) {
			struct ms_sweep_point *sp;

			if (!cfg->cache[c])
				continue;
			sp = &sw->pts[sw->npts++];
			sp->vcpus = cfg->vcpus[v];
			sp->cache = (enum stg_cache_state)c;
			sp->out.hit_ratio = -1;
			sp->out.prep.fraction = -1;
		}
	if (!cfg->no_check)
		for (int c = 0; c < STG_CACHE_STATES; c++)
			sw->confirm_left += cfg->cache[c] ?
					    MS_CHECKS_PER_STATE : 0;
	/* listing and evicting come first, inside the budget */
	ms_cache_prepare(cfg->base.ds, STG_CACHE_COLD, false, &prep);
	sw->setup_s = stg_now() - cfg->t0;
	if (sweep_replan(sw, 0) <= 0 || sw->pts[0].status == MS_SWEEP_DROPPED)
		return -ETIME;
	return 0;
}

static double sweep_left(const struct ms_sweep *sw)
{
	return sw->cfg.budget_s - (stg_now() - sw->cfg.t0);
}

/* Re-plan the points from FROM on; drops are marked. Returns the share. */
static double sweep_replan(struct ms_sweep *sw, size_t from)
{
	size_t n = 0;
	unsigned kept;
	double share;

	for (size_t i = from; i < sw->npts; i++, n++) {
		sw->plan[n].vcpus = sw->pts[i].vcpus;
		sw->plan[n].cache = sw->pts[i].cache;
		sw->plan[n].dropped = sw->pts[i].status == MS_SWEEP_DROPPED;
	}
	share = ms_plan_budget(sw->plan, n, sw->confirm_left, MS_CONFIRM_S,
			       sweep_left(sw), MS_MIN_POINT_S, &kept);
	sw->confirm_left = kept;
	for (size_t i = from, k = 0; i < sw->npts; i++, k++)
		if (sw->plan[k].dropped &&
		    sw->pts[i].status != MS_SWEEP_DROPPED) {
			sw->pts[i].status = MS_SWEEP_DROPPED;
			snprintf(sw->pts[i].why, sizeof(sw->pts[i].why),
				 "no time left in the %.0f s budget",
				 sw->cfg.budget_s);
		}
	return share;
}

/* Samples/s of the measured point (VCPUS, C), 0 when none. */
static double sweep_rate_at(const struct ms_sweep *sw, unsigned vcpus,
			    enum stg_cache_state c)
{
	for (size_t i = 0; i < sw->npts; i++) {
		const struct ms_sweep_point *p = &sw->pts[i];

		if (p->status == MS_SWEEP_MEASURED && p->vcpus == vcpus &&
		    p->cache == c)
			return p->res->samples_per_s;
	}
	return 0;
}

/* A rate for a ram point: cold at the same vCPUs, else the best scaled. */
static double sweep_ram_hint(const struct ms_sweep *sw, unsigned vcpus)
{
	double r = sweep_rate_at(sw, vcpus, STG_CACHE_COLD);

	if (r > 0)
		return r;
	for (size_t i = 0; i < sw->npts; i++) {
		const struct ms_sweep_point *p = &sw->pts[i];

		if (p->status == MS_SWEEP_MEASURED && p->vcpus)
			r = fmax(r, p->res->samples_per_s / p->vcpus * vcpus);
	}
	return r;
}

/* The point SW's base makes for VCPUS, cache C, GPUS and a WINDOW_S. */
static struct ms_point sweep_point(const struct ms_sweep *sw, unsigned vcpus,
				   enum stg_cache_state c, unsigned gpus,
				   double window_s)
{
	struct ms_point p = sw->cfg.base;

	p.vcpus = vcpus;
	p.workers = 0;
	p.cache = c;
	p.gpus = gpus;
	p.window_s = window_s;
	p.ram_bytes = c == STG_CACHE_RAM ? sw->cfg.ram_bytes : 0;
	p.rate_hint = c == STG_CACHE_RAM ? sweep_ram_hint(sw, vcpus) : 0;
	return p;
}

/* The points from FROM on that never ran, marked so. Returns -EINTR. */
static int sweep_interrupted(struct ms_sweep *sw, size_t from)
{
	for (size_t i = from; i < sw->npts; i++)
		if (sw->pts[i].status == MS_SWEEP_PLANNED) {
			sw->pts[i].status = MS_SWEEP_DROPPED;
			snprintf(sw->pts[i].why, sizeof(sw->pts[i].why),
				 "interrupted");
		}
	return -EINTR;
}

int ms_sweep_run_points(struct ms_sweep *sw)
{
	const volatile int *stop = sw->cfg.base.stop;
	bool warm_done = false;
	size_t count = 0;

	for (size_t i = 0; i < sw->npts; i++) {
		struct ms_sweep_point *sp = &sw->pts[i];
		struct ms_point p;
		double share;
		int err;

		if (stop && *stop)
			return sweep_interrupted(sw, i);
		share = sweep_replan(sw, i);
		if (sp->status == MS_SWEEP_DROPPED)
			continue;
		sp->res = calloc(1, sizeof(*sp->res));
		if (!sp->res)
			return -ENOMEM;
		p = sweep_point(sw, sp->vcpus, sp->cache, 0, share);
		p.already_warm_ok = sp->cache == STG_CACHE_WARM && warm_done;
		sweep_progress(sw, "point %zu: %u vCPU%s, %s, %.0f s", ++count,
			       sp->vcpus, sp->vcpus == 1 ? "" : "s",
			       stg_cache_state_name(sp->cache), share);
		err = ms_point_run(&p, sp->res, &sp->out);
		if (sp->cache == STG_CACHE_WARM)
			warm_done = true;
		if (sp->out.measured) {
			sp->status = MS_SWEEP_MEASURED;
		} else {
			sp->status = MS_SWEEP_FAILED;
			snprintf(sp->why, sizeof(sp->why), "%.250s",
				 sp->out.err_text[0] ? sp->out.err_text :
				 "the point could not run");
		}
		if (sp->out.prep.note[0])
			sweep_note(sw, "%u/%s: %s", sp->vcpus,
				   stg_cache_state_name(sp->cache),
				   sp->out.prep.note);
		if (sp->out.note[0])
			sweep_note(sw, "%u/%s: %s", sp->vcpus,
				   stg_cache_state_name(sp->cache),
				   sp->out.note);
		if (err == -EINTR)
			return sweep_interrupted(sw, i + 1);
	}
	return 0;
}

int ms_sweep_check(struct ms_sweep *sw, unsigned vcpus,
		   enum stg_cache_state c, unsigned gpus, struct ms_check *out)
{
	const volatile int *stop = sw->cfg.base.stop;
	const double left = sweep_left(sw);
	struct ms_point_out po;
	struct ldr_result *res;
	struct ms_point p;
	double window = MS_CONFIRM_S;

	memset(out, 0, sizeof(*out));
	if (!gpus) {
		snprintf(out->why, sizeof(out->why), "0 GPUs: nothing to check");
		return 0;
	}
	if (sw->cfg.no_check || (stop && *stop)) {
		snprintf(out->why, sizeof(out->why), "%s", sw->cfg.no_check ?
			 "--no-check" : "interrupted");
		return 0;
	}
	if (!sw->confirm_left || left < MS_CONFIRM_S || gpus > WL_GPUS_MAX) {
		snprintf(out->why, sizeof(out->why), "%s", gpus > WL_GPUS_MAX ?
			 "too many GPUs to emulate" : "no time left in the "
			 "budget");
		return 0;
	}
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	if (c == STG_CACHE_RAM)
		window = fmin(left, 2 * MS_CONFIRM_S);
	p = sweep_point(sw, vcpus, c, gpus, window);
	/* the warm points left the dataset resident: re-read only if not */
	p.already_warm_ok = true;
	sweep_progress(sw, "check: %u GPU%s, %u vCPU%s, %s", gpus,
		       gpus == 1 ? "" : "s", vcpus, vcpus == 1 ? "" : "s",
		       stg_cache_state_name(c));
	ms_point_run(&p, res, &po);
	sw->confirm_left--;
	if (!po.measured || !res->batches)
		snprintf(out->why, sizeof(out->why), "the run failed: %.100s",
			 po.err_text);
	else if (po.ram_not_limited)
		snprintf(out->why, sizeof(out->why), "the page cache was not "
			 "limited: it ran warm");
	else {
		out->run = true;
		out->au = res->au;
	}
	free(res);
	return 0;
}

void ms_sweep_free(struct ms_sweep *sw)
{
	for (size_t i = 0; sw->pts && i < sw->npts; i++)
		free(sw->pts[i].res);
	free(sw->pts);
	free(sw->plan);
	sw->pts = NULL;
	sw->plan = NULL;
	sw->npts = 0;
}

unsigned ms_sweep_default_vcpus(unsigned total, unsigned *out)
{
	unsigned n = 0;

	for (unsigned k = 1; k < total && n < MS_SWEEP_MAX_VCPUS - 1; k *= 2)
		out[n++] = k;
	out[n++] = total;
	return n;
}
