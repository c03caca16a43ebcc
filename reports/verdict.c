/*
 * verdict.c - the verdict's arithmetic (verdict.h): GPUs fed, the top
 * point of a cache state, the check rule, the projection, the storage
 * ceiling, the RAM and catalogue checks and the headline. Reads numbers,
 * writes numbers and short texts into the caller's structs; no I/O.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "loader.h"     /* LDR_DEFAULT_AU_THRESHOLD, LDR_RAM_SLACK */
#include "verdict.h"

/* A constant's value as text, for texts that must not restate it. */
#define VD_STR_(x) #x
#define VD_STR(x) VD_STR_(x)

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* ---- GPUs fed ---- */

unsigned rpt_verdict_gpus_fed(double samples_per_s, double demand_per_gpu,
			      double au_threshold)
{
	double g;

	if (!(demand_per_gpu > 0) || !(au_threshold > 0) ||
	    !(samples_per_s > 0))
		return 0;
	/* a hair of slack so that exactly T x demand counts as fed */
	g = floor(samples_per_s / (au_threshold * demand_per_gpu) + 1e-9);
	return g >= RPT_VERDICT_GPUS_MAX ? RPT_VERDICT_GPUS_MAX : (unsigned)g;
}

double rpt_verdict_threshold(double au_threshold)
{
	return au_threshold > 0 ? au_threshold : LDR_DEFAULT_AU_THRESHOLD;
}

bool rpt_verdict_au_fed(double au, double au_threshold)
{
	return au + 1e-12 >= au_threshold;
}

/* ---- one run ---- */

void rpt_verdict_run(const struct rpt_run_numbers *in,
		     struct rpt_run_judgement *out)
{
	uint64_t need = (uint64_t)in->gpu_count * RPT_RUN_MIN_BATCHES_PER_GPU;

	memset(out, 0, sizeof(*out));
	out->au_threshold = rpt_verdict_threshold(in->au_threshold);
	if (!in->measured || !in->batches)
		return;
	if (need < RPT_RUN_MIN_BATCHES)
		need = RPT_RUN_MIN_BATCHES;
	if (in->warmup_incomplete) {
		out->too_short = true;
		snprintf(out->why, sizeof(out->why), "the window ended inside "
			 "the warm-up, so the numbers include start-up; %llu "
			 "batch%s measured", (unsigned long long)in->batches,
			 in->batches == 1 ? "" : "es");
	} else if (in->batches < need) {
		out->too_short = true;
		snprintf(out->why, sizeof(out->why), "%llu batch%s of %u "
			 "measured in %.2f s, at least %llu needed (%u per GPU, "
			 "at least %u)", (unsigned long long)in->batches,
			 in->batches == 1 ? "" : "es", in->batch,
			 in->measured_s, (unsigned long long)need,
			 RPT_RUN_MIN_BATCHES_PER_GPU, RPT_RUN_MIN_BATCHES);
	}
	out->asked_fed = in->gpu_count > 0 &&
			 rpt_verdict_au_fed(in->au, out->au_threshold);
	if (!out->too_short)
		out->gpus_fed = rpt_verdict_gpus_fed(in->samples_per_s,
						     in->demand_per_gpu,
						     out->au_threshold);
}

/* ---- points ---- */

double rpt_point_cpu_s_per_sample(const struct rpt_point *p)
{
	return p->samples ? p->stages.process_cpu_s / (double)p->samples : 0;
}

bool rpt_point_too_short(const struct rpt_point *p)
{
	return p->status == RPT_POINT_MEASURED &&
	       (p->measured_s < RPT_POINT_MIN_WINDOW_S ||
		p->batches < RPT_POINT_MIN_BATCHES);
}

bool rpt_point_usable(const struct rpt_point *p)
{
	return p->status == RPT_POINT_MEASURED && !rpt_point_too_short(p) &&
	       !(p->cache == STG_CACHE_RAM && p->ram_not_limited);
}

/* Why measured point P is not usable, in words; NULL when it is. */
static const char *unusable_why(const struct rpt_point *p)
{
	if (p->status != RPT_POINT_MEASURED)
		return NULL;
	if (p->cache == STG_CACHE_RAM && p->ram_not_limited)
		return "its page cache was not limited (it held more than "
		       VD_STR(LDR_RAM_SLACK) " x the asked size), so it ran "
		       "warm";
	if (rpt_point_too_short(p))
		return "too short (a window under "
		       VD_STR(RPT_POINT_MIN_WINDOW_S) " s or fewer than "
		       VD_STR(RPT_POINT_MIN_BATCHES) " batches): start-up "
		       "dominates its figures";
	return NULL;
}

int rpt_verdict_top(const struct rpt_point *pts, size_t n,
		    enum stg_cache_state c)
{
	int top = -1;

	for (size_t i = 0; i < n; i++) {
		const struct rpt_point *p = &pts[i];

		if (p->cache != c || !rpt_point_usable(p))
			continue;
		if (top < 0 || p->vcpus > pts[top].vcpus)
			top = (int)i;
	}
	return top;
}

/* ---- the check rule ---- */

/* Name run R, ignored for WHY, in OUT->note (cut when it is full). */
static void note_ignored(struct rpt_check *out, unsigned g,
			 unsigned vcpus_top, const struct rpt_confirm *r,
			 const char *why)
{
	char item[128];
	size_t used;

	if (!out->note[0])
		snprintf(out->note, sizeof(out->note), "check runs for G = %u "
			 "at %u vCPUs; ignored:", g, vcpus_top);
	used = strlen(out->note);
	if (vcpus_top && r->vcpus && r->vcpus != vcpus_top)
		snprintf(item, sizeof(item), "%s a run with %u GPU%s at %u "
			 "vCPUs (%s)", out->ignored > 1 ? ";" : "", r->gpus,
			 r->gpus == 1 ? "" : "s", r->vcpus, why);
	else
		snprintf(item, sizeof(item), "%s a run with %u GPU%s (%s)",
			 out->ignored > 1 ? ";" : "", r->gpus,
			 r->gpus == 1 ? "" : "s", why);
	if (used + 1 < sizeof(out->note))
		snprintf(out->note + used, sizeof(out->note) - used, "%s",
			 item);
}

void rpt_verdict_confirm(unsigned computed, const struct rpt_confirm *runs,
			 size_t n, unsigned vcpus_top, double au_threshold,
			 struct rpt_check *out)
{
	const unsigned g = computed;
	const struct rpt_confirm *r0 = NULL, *r1 = NULL;

	memset(out, 0, sizeof(*out));
	out->gpus_fed = g;
	out->confirmation = RPT_CONF_NONE;
	out->used_g = out->used_g1 = -1;
	for (size_t i = 0; i < n; i++) {
		const struct rpt_confirm *r = &runs[i];
		const char *why = NULL;

		if (!r->run)
			continue;
		if (vcpus_top && r->vcpus && r->vcpus != vcpus_top) {
			why = "another vCPU count than the verdict's point";
		} else if (g >= 1 && r->gpus == g && out->used_g < 0) {
			out->used_g = (int)i;
			r0 = r;
		} else if (r->gpus == g + 1 && out->used_g1 < 0) {
			out->used_g1 = (int)i;
			r1 = r;
		} else if (r->gpus == g || r->gpus == g + 1) {
			why = g == 0 && r->gpus == 0 ? "0 GPUs check nothing" :
			      "a second run of that count";
		} else {
			why = "not G or G + 1";
		}
		if (!why)
			continue;
		out->ignored++;
		note_ignored(out, g, vcpus_top, r, why);
	}
	if (r0 && !rpt_verdict_au_fed(r0->au, au_threshold)) {
		out->gpus_fed = g - 1;
		out->confirmation = RPT_CONF_LOWERED;
	} else if (r1 && rpt_verdict_au_fed(r1->au, au_threshold)) {
		out->gpus_fed = g + 1;
		out->confirmation = RPT_CONF_RAISED;
	} else if (r1 && (g == 0 || r0)) {
		out->confirmation = RPT_CONF_CONFIRMED;
	}
}

/* ---- the sweep ---- */

/* The first usable 1-vCPU point of cache C, for the scaling figure. */
static const struct rpt_point *one_vcpu_point(const struct rpt_verdict_in *in,
					      enum stg_cache_state c)
{
	for (size_t i = 0; i < in->npoints; i++) {
		const struct rpt_point *p = &in->points[i];

		if (p->cache == c && p->vcpus == 1 && rpt_point_usable(p))
			return p;
	}
	return NULL;
}

/* Why cache C has no usable point: that of its measured, unusable point
 * with the most vCPUs; NULL when none was measured. */
static const char *not_judged_why(const struct rpt_verdict_in *in,
				  enum stg_cache_state c)
{
	const char *why = NULL;
	unsigned at = 0;

	for (size_t i = 0; i < in->npoints; i++) {
		const struct rpt_point *p = &in->points[i];
		const char *w;

		if (p->cache != c || !(w = unusable_why(p)))
			continue;
		if (!why || p->vcpus > at) {
			why = w;
			at = p->vcpus;
		}
	}
	return why;
}

/* "A100-40GB" -> "A100" (the part before '-'), into BUF. */
static void gpu_family(const char *type, char *buf, size_t len)
{
	size_t n = strcspn(nz(type), "-");

	if (n >= len)
		n = len - 1;
	memcpy(buf, nz(type), n);
	buf[n] = '\0';
}

static void catalog_check(const struct rpt_verdict_in *in,
			  struct rpt_sweep_verdict *v)
{
	static const enum stg_cache_state pref[] = {
		STG_CACHE_WARM, STG_CACHE_RAM, STG_CACHE_COLD
	};
	char fam[32];
	double vpg = -1;

	v->catalog_cache = -1;
	for (size_t i = 0; i < sizeof(pref) / sizeof(pref[0]); i++) {
		const struct rpt_cache_verdict *cv = &v->cache[pref[i]];

		if (cv->measured && !cv->inconsistent && cv->vcpus_per_gpu > 0) {
			v->catalog_cache = (int)pref[i];
			vpg = cv->vcpus_per_gpu;
			break;
		}
	}
	gpu_family(in->gpu_type, fam, sizeof(fam));
	for (size_t i = 0; i < in->nshapes && v->nfits < RPT_SHAPES_MAX; i++) {
		const struct rpt_shape *sh = &in->shapes[i];
		struct rpt_shape_fit *f;

		if (!fam[0] || strcasecmp(nz(sh->gpu), fam))
			continue;
		f = &v->fits[v->nfits++];
		f->shape = sh;
		f->vcpus_needed = vpg > 0 ? vpg * sh->gpus : -1;
		f->vcpus_spare = vpg > 0 ? sh->vcpus - f->vcpus_needed : 0;
		f->ram_holds_dataset = (double)in->dataset_bytes <=
			RPT_RAM_SHARE * sh->ram_gib * 1073741824.0;
	}
}

/* Append to the headline; a text that does not fit is cut. */
static void head_add(struct rpt_sweep_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void head_add(struct rpt_sweep_verdict *v, const char *fmt, ...)
{
	const size_t used = strlen(v->headline);
	va_list ap;

	if (used + 1 >= sizeof(v->headline))
		return;
	va_start(ap, fmt);
	vsnprintf(v->headline + used, sizeof(v->headline) - used, fmt, ap);
	va_end(ap);
}

static void headline(const struct rpt_verdict_in *in,
		     struct rpt_sweep_verdict *v)
{
	const struct rpt_cache_verdict *best = NULL;

	v->headline[0] = '\0';
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const struct rpt_cache_verdict *cv = &v->cache[c];

		if (!cv->measured)
			continue;
		head_add(v, "%s%s %u", best ? ", " : "feeds ",
			 stg_cache_state_name((enum stg_cache_state)c),
			 cv->gpus_fed);
		if (!best || cv->gpus_fed > best->gpus_fed)
			best = cv;
	}
	if (!best) {
		bool any = false;

		for (int c = 0; c < STG_CACHE_STATES; c++)
			any = any || v->cache[c].not_judged;
		snprintf(v->headline, sizeof(v->headline), "no verdict: %s",
			 any ? "every measured point was too short or (ram) "
			 "not limited; see below" : "no point was measured");
		return;
	}
	head_add(v, " x %s at >= %.0f %% AU (%u asked)", nz(in->gpu_type),
		 v->au_threshold * 100, in->gpu_count);
	/* what limits the warmest state judged */
	for (int c = STG_CACHE_STATES - 1; c >= 0; c--) {
		const struct rpt_cache_verdict *cv = &v->cache[c];

		if (!cv->measured)
			continue;
		if (!strcmp(cv->limiting, "gpu"))
			head_add(v, "; the asked GPUs are fed %s",
				 stg_cache_state_name((enum stg_cache_state)c));
		else if (cv->vcpus_per_gpu > 0 && !strcmp(cv->limiting, "cpu"))
			head_add(v, "; limited by cpu: %.1f vCPUs per %s, %u "
				 "needed for %u, this VM has %u",
				 cv->vcpus_per_gpu, nz(in->gpu_type),
				 cv->vcpus_needed, in->gpu_count,
				 in->vcpus_total);
		else
			head_add(v, "; limited by %s", cv->limiting);
		break;
	}
	for (int c = 0; c < STG_CACHE_STATES; c++)
		if (v->cache[c].not_judged)
			head_add(v, "; %s not judged", stg_cache_state_name(
				 (enum stg_cache_state)c));
}

/* The verdict of cache state C. */
static void cache_verdict(const struct rpt_verdict_in *in,
			  const struct rpt_sweep_verdict *v,
			  enum stg_cache_state c, struct rpt_cache_verdict *cv)
{
	const double need = v->need_per_gpu;
	const struct rpt_point *top, *one;

	memset(cv, 0, sizeof(*cv));
	cv->limiting = "unknown";
	cv->vcpus_per_gpu = -1;
	cv->scaling = -1;
	cv->hit_ratio = -1;
	cv->top = rpt_verdict_top(in->points, in->npoints, c);
	cv->check.used_g = cv->check.used_g1 = -1;
	if (cv->top < 0) {
		cv->not_judged = not_judged_why(in, c);
		return;
	}
	top = &in->points[cv->top];
	one = one_vcpu_point(in, c);
	cv->measured = true;
	cv->vcpus_top = top->vcpus;
	cv->top_is_all = top->vcpus == in->vcpus_total;
	cv->samples_per_s = top->samples_per_s;
	cv->hit_ratio = top->hit_ratio;
	cv->hit_ratio_estimated = top->hit_ratio_estimated;
	cv->gpus_fed_computed = rpt_verdict_gpus_fed(top->samples_per_s,
		in->demand_per_gpu, v->au_threshold);
	rpt_verdict_confirm(cv->gpus_fed_computed, in->confirm ?
			    in->confirm[c] : NULL, in->confirm ? 2 : 0,
			    top->vcpus, v->au_threshold, &cv->check);
	cv->gpus_fed = cv->check.gpus_fed;
	cv->confirmation = cv->check.confirmation;
	cv->cpu_s_per_sample = rpt_point_cpu_s_per_sample(top);
	cv->per_vcpu_rate = top->vcpus ? top->samples_per_s / top->vcpus : 0;
	/* samples/s per vCPU x CPU-s per sample = CPU-s per vCPU-s: more
	 * than the vCPUs can give means a figure is wrong */
	cv->cpu_per_vcpu = cv->per_vcpu_rate * cv->cpu_s_per_sample;
	cv->inconsistent = cv->cpu_per_vcpu > RPT_CPU_PER_VCPU_MAX;
	if (one && one->samples_per_s > 0 && top->vcpus > 1)
		cv->scaling = top->samples_per_s /
			(top->vcpus * one->samples_per_s);
	if (cv->per_vcpu_rate > 0 && need > 0) {
		cv->vcpus_per_gpu = need / cv->per_vcpu_rate;
		cv->vcpus_needed = (unsigned)ceil(in->gpu_count *
						  cv->vcpus_per_gpu - 1e-9);
	}
	if (in->gpu_count && cv->gpus_fed >= in->gpu_count)
		cv->limiting = "gpu";
	else if (top->bottleneck && *top->bottleneck)
		cv->limiting = top->bottleneck;
	if (!strcmp(cv->limiting, "cpu") && cv->vcpus_per_gpu > 0 &&
	    cv->vcpus_needed > top->vcpus && !cv->inconsistent) {
		cv->projected = true;
		cv->projected_samples_per_s = cv->vcpus_needed *
					      cv->per_vcpu_rate;
	}
}

void rpt_verdict_draw(const struct rpt_verdict_in *in,
		      struct rpt_sweep_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->au_threshold = rpt_verdict_threshold(in->au_threshold);
	v->need_per_gpu = in->demand_per_gpu > 0 ?
			  v->au_threshold * in->demand_per_gpu : 0;
	for (int c = 0; c < STG_CACHE_STATES; c++)
		cache_verdict(in, v, (enum stg_cache_state)c, &v->cache[c]);
	/* storage, seen cold: the best cold read rate */
	for (size_t i = 0; i < in->npoints; i++) {
		const struct rpt_point *p = &in->points[i];

		if (p->cache != STG_CACHE_COLD || !rpt_point_usable(p))
			continue;
		v->storage_known = true;
		if (p->read_bytes_per_s > v->storage_bytes_per_s)
			v->storage_bytes_per_s = p->read_bytes_per_s;
		if (p->files_per_s > v->storage_files_per_s)
			v->storage_files_per_s = p->files_per_s;
		if (p->bottleneck && !strcmp(p->bottleneck, "storage"))
			v->storage_is_ceiling = true;
	}
	if (v->storage_known && v->need_per_gpu > 0)
		v->storage_gpus = v->storage_files_per_s / v->need_per_gpu;
	v->ram_holds_dataset = in->ram_available > 0 &&
		in->dataset_bytes <= in->ram_available &&
		(in->cgroup_limit < 0 ||
		 in->dataset_bytes <= (uint64_t)in->cgroup_limit);
	catalog_check(in, v);
	headline(in, v);
}
