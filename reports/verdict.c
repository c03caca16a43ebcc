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
#include "judge.h"
#include "rpt_text.h"
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
	return jdg_gpus_fed(samples_per_s, demand_per_gpu, au_threshold);
}

double rpt_verdict_threshold(double au_threshold)
{
	return jdg_threshold(au_threshold);
}

bool rpt_verdict_au_fed(double au, double au_threshold)
{
	return jdg_fed(au, au_threshold);
}

/* ---- one run ---- */

void rpt_verdict_run(const struct rpt_run_numbers *in,
		     struct rpt_run_judgement *out)
{
	struct jdg_run j;

	jdg_run_judge(in, &j);
	memset(out, 0, sizeof(*out));
	out->au_threshold = j.au_threshold;
	out->too_short = j.too_short != JDG_SHORT_NO;
	out->gpus_fed = j.gpus_fed;
	out->asked_fed = j.asked_fed;
	if (j.too_short == JDG_SHORT_WARMUP)
		snprintf(out->why, sizeof(out->why), "the window ended inside "
			 "the warm-up, so the numbers include start-up; %llu "
			 "batch%s measured", (unsigned long long)in->batches,
			 in->batches == 1 ? "" : "es");
	else if (j.too_short == JDG_SHORT_BATCHES)
		snprintf(out->why, sizeof(out->why), "%llu batch%s of %u "
			 "measured in %.2f s, at least %llu needed (%u per GPU, "
			 "at least %u)", (unsigned long long)in->batches,
			 in->batches == 1 ? "" : "es", in->batch,
			 in->measured_s, (unsigned long long)j.need_batches,
			 JDG_RUN_MIN_BATCHES_PER_GPU, JDG_RUN_MIN_BATCHES);
}

/* ---- points ---- */

double rpt_point_cpu_s_per_sample(const struct rpt_point *p)
{
	return p->samples ? p->stages.process_cpu_s / (double)p->samples : 0;
}

bool rpt_point_too_short(const struct rpt_point *p)
{
	return p->status == RPT_POINT_MEASURED &&
	       jdg_window_too_short(p->measured_s, p->batches);
}

unsigned rpt_point_feed_vcpus(const struct rpt_point *p)
{
	return p->feed_vcpus && p->feed_vcpus < p->vcpus ? p->feed_vcpus :
	       p->vcpus;
}

bool rpt_point_sampled(const struct rpt_point *p, uint64_t files)
{
	return p->cache == STG_CACHE_RAM && p->sample_files && files &&
	       p->sample_files < files;
}

/* A cold point whose reads hit the page cache more than a little. */
static bool not_cold(const struct rpt_point *p)
{
	return p->cache == STG_CACHE_COLD && jdg_not_cold(p->hit_ratio);
}

bool rpt_point_usable(const struct rpt_point *p)
{
	return p->status == RPT_POINT_MEASURED && !rpt_point_too_short(p) &&
	       !(p->cache == STG_CACHE_RAM && p->ram_not_limited) &&
	       !not_cold(p);
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
	if (not_cold(p) && p->odirect_refused)
		return "not cold: O_DIRECT was refused on this filesystem and "
		       "more than " VD_STR(RPT_COLD_HIT_MAX) " of its reads hit "
		       "the page cache (measured)";
	if (not_cold(p))
		return "not cold: more than " VD_STR(RPT_COLD_HIT_MAX) " of its "
		       "reads hit the page cache (measured)";
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
		/* most vCPUs; at equal counts the state's own size (the one
		 * the check runs use) before a RAM-axis size */
		if (top < 0 || p->vcpus > pts[top].vcpus ||
		    (p->vcpus == pts[top].vcpus && pts[top].ram_axis &&
		     !p->ram_axis))
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

/* The words for why the walk ignored a run (enum jdg_ignored). */
static const char *const ignored_why[] = {
	[JDG_IGN_VCPUS] = "another vCPU count than the verdict's point",
	[JDG_IGN_ZERO] = "0 GPUs check nothing",
	[JDG_IGN_SECOND] = "a second run of that count",
	[JDG_IGN_OTHER] = "not G, G + 1 or a count the checks walked to",
};

void rpt_verdict_confirm(unsigned computed, const struct rpt_confirm *runs,
			 size_t n, unsigned vcpus_top, double au_threshold,
			 struct rpt_check *out)
{
	struct jdg_check_run r[JDG_CHECK_RUNS_MAX];
	struct jdg_check j;
	unsigned ignored = 0;

	if (n > JDG_CHECK_RUNS_MAX)
		n = JDG_CHECK_RUNS_MAX;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct jdg_check_run){ .run = runs[i].run,
			.gpus = runs[i].gpus, .au = runs[i].au,
			.vcpus = runs[i].vcpus };
	jdg_check_walk(computed, r, n, vcpus_top, au_threshold, &j);
	memset(out, 0, sizeof(*out));
	out->gpus_fed = j.gpus_fed;
	out->confirmation = (int)j.confirmation;
	out->used_g = j.used_g;
	out->used_g1 = j.used_g1;
	out->used_mask = j.used_mask;
	out->lowered_untested = j.lowered_untested;
	out->ignored = j.ignored;
	for (size_t i = 0; i < n; i++) {
		if (j.why[i] == JDG_IGN_USED)
			continue;
		/* note_ignored reads the count so far, as it always did */
		out->ignored = ++ignored;
		note_ignored(out, computed, vcpus_top, &runs[i],
			     ignored_why[j.why[i]]);
	}
	out->ignored = j.ignored;
}

/* ---- the sweep ---- */

/* The first usable K-vCPU point of cache C, or NULL. */
static const struct rpt_point *point_at(const struct rpt_verdict_in *in,
					enum stg_cache_state c, unsigned k)
{
	for (size_t i = 0; i < in->npoints; i++) {
		const struct rpt_point *p = &in->points[i];

		if (p->cache == c && p->vcpus == k && rpt_point_usable(p))
			return p;
	}
	return NULL;
}

/* The first usable 1-vCPU point of cache C, for the scaling figure. */
static const struct rpt_point *one_vcpu_point(const struct rpt_verdict_in *in,
					      enum stg_cache_state c)
{
	return point_at(in, c, 1);
}

/*
 * What one vCPU is here, and the SMT yield the conversions use. With SMT
 * siblings the 2-vCPU point runs on one core's two threads (the points
 * take sibling pairs), so feed(2) / feed(1) is the yield, measured. A
 * guest that reports no siblings but whose 2 vCPUs scale at or below
 * RPT_HIDDEN_SMT_SCALING, each needing more CPU time per sample
 * (RPT_HIDDEN_SMT_CPU), shares cores it cannot see: the measurement
 * outranks the topology (jdg_hidden_smt). Elsewhere the yield is the
 * stated range [JDG_SMT_YIELD_LO, JDG_SMT_YIELD_HI] (judge.h gives its
 * basis).
 */
static void vcpu_units(const struct rpt_verdict_in *in,
		       struct rpt_sweep_verdict *v)
{
	static const enum stg_cache_state pref[] = {
		STG_CACHE_WARM, STG_CACHE_RAM, STG_CACHE_COLD
	};
	double two_over_one = -1, cpu_ratio = -1;

	v->vcpu_kind = in->vcpu_kind;
	v->vcpu_kind_basis = "topology";
	v->smt_yield = -1;
	v->smt_yield_lo = RPT_SMT_YIELD_LO;
	v->smt_yield_hi = RPT_SMT_YIELD_HI;
	for (size_t i = 0; i < sizeof(pref) / sizeof(pref[0]); i++) {
		const struct rpt_point *one = point_at(in, pref[i], 1);
		const struct rpt_point *two = point_at(in, pref[i], 2);

		/* a 2-vCPU point whose feed ran on one of them (a Python
		 * pipeline's single worker) says nothing of a second thread */
		if (one && two && one->samples_per_s > 0 &&
		    strcmp(nz(two->bottleneck), "storage") &&
		    rpt_point_feed_vcpus(two) >= 2) {
			two_over_one = two->samples_per_s / one->samples_per_s;
			if (rpt_point_cpu_s_per_sample(one) > 0)
				cpu_ratio = rpt_point_cpu_s_per_sample(two) /
					    rpt_point_cpu_s_per_sample(one);
			break;
		}
	}
	if (two_over_one <= 0)
		return;
	if (in->vcpu_kind == STG_VCPU_THREAD) {
		v->smt_yield = two_over_one;
	} else if (jdg_hidden_smt(two_over_one, cpu_ratio)) {
		v->vcpu_kind = STG_VCPU_THREAD;
		v->vcpu_kind_basis = "measured scaling";
		v->smt_yield = two_over_one;
	}
	/* outside [1, 2] the 1-vCPU point was handicapped (its reader, a
	 * noisy neighbour) and the ends are used */
	if (v->smt_yield > 0)
		v->smt_yield_lo = v->smt_yield_hi =
			jdg_smt_clamp(v->smt_yield);
}

/* CV's vCPUs per GPU in each kind of vCPU (jdg_kinds_per_gpu; a vCPU of
 * unknown kind is taken as a core). */
static void kinds_per_gpu(const struct rpt_sweep_verdict *v,
			  struct rpt_cache_verdict *cv)
{
	jdg_kinds_per_gpu(cv->vcpus_per_gpu, v->vcpu_kind == STG_VCPU_THREAD,
			  v->smt_yield_lo, v->smt_yield_hi,
			  &cv->thread_per_gpu_lo, &cv->thread_per_gpu_hi,
			  &cv->core_per_gpu_lo, &cv->core_per_gpu_hi);
}

/* Was the point of cache C at all of this VM's vCPUs planned and then
 * dropped for the budget, with no usable point at that count? */
static bool top_was_dropped(const struct rpt_verdict_in *in,
			    enum stg_cache_state c)
{
	bool dropped = false;

	for (size_t i = 0; i < in->npoints; i++) {
		const struct rpt_point *p = &in->points[i];

		if (p->cache != c || p->vcpus != in->vcpus_total)
			continue;
		if (rpt_point_usable(p))
			return false;
		/* the RAM axis's other sizes may drop before fewer vCPUs */
		dropped = dropped || (p->status == RPT_POINT_DROPPED &&
				      !p->ram_axis);
	}
	return dropped;
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

/*
 * vCPUs of KIND per (samples/s) the pipeline of cache verdict CV needs
 * into [*LO, *HI]: its per-GPU figures over the samples/s one GPU needs.
 * False when CV has none.
 */
static bool units_per_rate(const struct rpt_cache_verdict *cv, double need,
			   enum stg_vcpu_kind kind, double *lo, double *hi)
{
	if (!(cv->vcpus_per_gpu > 0) || !(need > 0))
		return false;
	if (kind == STG_VCPU_THREAD) {
		*lo = cv->thread_per_gpu_lo / need;
		*hi = cv->thread_per_gpu_hi / need;
	} else {
		*lo = cv->core_per_gpu_lo / need;
		*hi = cv->core_per_gpu_hi / need;
	}
	return true;
}

static void catalog_check(const struct rpt_verdict_in *in,
			  struct rpt_sweep_verdict *v)
{
	static const enum stg_cache_state pref[] = {
		STG_CACHE_WARM, STG_CACHE_RAM, STG_CACHE_COLD
	};
	const struct rpt_cache_verdict *cv = NULL;
	char fam[32];

	v->catalog_cache = -1;
	/* never a storage-bound state: its vCPUs per GPU mean nothing */
	for (size_t i = 0; i < sizeof(pref) / sizeof(pref[0]); i++) {
		const struct rpt_cache_verdict *c = &v->cache[pref[i]];

		if (c->measured && !c->inconsistent && !c->storage_bound &&
		    c->vcpus_per_gpu > 0) {
			v->catalog_cache = (int)pref[i];
			cv = c;
			break;
		}
	}
	gpu_family(in->gpu_type, fam, sizeof(fam));
	for (size_t i = 0; i < in->nshapes && v->nfits < RPT_SHAPES_MAX; i++) {
		const struct rpt_shape *sh = &in->shapes[i];
		struct rpt_shape_fit *f;
		double lo, hi;

		if (!fam[0] || strcasecmp(nz(sh->gpu), fam))
			continue;
		f = &v->fits[v->nfits++];
		f->shape = sh;
		f->demand_total = sh->demand_total > 0 ? sh->demand_total :
				  in->demand_per_gpu * sh->gpus;
		f->vcpus_reserved = v->reserve_vcpus_per_gpu * sh->gpus;
		f->ram_reserved = v->reserve_ram_per_gpu * sh->gpus;
		f->ram_holds_dataset = jdg_ram_holds(in->dataset_bytes,
			f->ram_reserved + v->own_bytes,
			(uint64_t)(sh->ram_gib * 1073741824.0));
		f->vcpus_needed = f->vcpus_needed_lo = -1;
		if (!cv || !units_per_rate(cv, v->need_per_gpu, sh->vcpu_kind,
					   &lo, &hi))
			continue;
		f->vcpus_needed_lo = lo * v->au_threshold * f->demand_total;
		f->vcpus_needed = hi * v->au_threshold * f->demand_total;
		f->vcpus_spare = sh->vcpus - f->vcpus_needed -
				 f->vcpus_reserved;
		f->vcpus_spare_hi = sh->vcpus - f->vcpus_needed_lo -
				    f->vcpus_reserved;
		f->fits = (enum rpt_fit)jdg_fit(f->vcpus_spare,
						f->vcpus_spare_hi);
	}
}

/* Append to the headline; a text that does not fit is cut. */
static void head_add(struct rpt_sweep_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void head_add(struct rpt_sweep_verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rpt_vcat(v->headline, sizeof(v->headline), fmt, ap);
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
	head_add(v, " x %s at >= %.0f %% AU (%u asked; %.0f samples/s per "
		 "GPU, %s demand, %s%s)", nz(in->gpu_type),
		 v->au_threshold * 100, in->gpu_count, in->demand_per_gpu,
		 in->demand_kind ? in->demand_kind : "unknown",
		 in->demand_basis ? in->demand_basis : "basis unknown",
		 in->demand_multi_measured ?
		 ", the source's multi-GPU figure" : "");
	/* what limits the warmest state judged */
	for (int c = STG_CACHE_STATES - 1; c >= 0; c--) {
		const struct rpt_cache_verdict *cv = &v->cache[c];

		if (!cv->measured)
			continue;
		if (!strcmp(cv->limiting, "gpu"))
			head_add(v, "; the asked GPUs are fed %s",
				 stg_cache_state_name((enum stg_cache_state)c));
		else if (cv->vcpus_per_gpu > 0 && !strcmp(cv->limiting, "cpu"))
		{
			char other[64] = "";

			if (v->vcpu_kind != STG_VCPU_THREAD)
				snprintf(other, sizeof(other), " = %.1f-%.1f "
					 "hyperthreads", cv->thread_per_gpu_lo,
					 cv->thread_per_gpu_hi);
			head_add(v, "; limited by cpu: %.1f vCPUs (%s%s) per %s, "
				 "%u needed for %u + %u reserved for the "
				 "training job, this VM has %u",
				 cv->vcpus_per_gpu,
				 stg_vcpu_kind_name(v->vcpu_kind), other,
				 nz(in->gpu_type), cv->vcpus_needed,
				 in->gpu_count, cv->vcpus_reserved,
				 in->vcpus_total);
		}
		else if (cv->storage_bound)
			head_add(v, "; limited by storage: more vCPUs do not "
				 "help");
		else
			head_add(v, "; limited by %s", cv->limiting);
		if (cv->gpus_fed_reserved < cv->gpus_fed)
			head_add(v, "; %s feeds %u once the training job "
				 "takes its %.1f vCPU per GPU",
				 stg_cache_state_name((enum stg_cache_state)c),
				 cv->gpus_fed_reserved,
				 v->reserve_vcpus_per_gpu);
		break;
	}
	if (!best->top_is_all && best->vcpus_top < in->vcpus_total &&
	    !best->storage_bound)
		head_add(v, "; measured at %u of this VM's %u vCPUs: with "
			 "all of them it may feed more", best->vcpus_top,
			 in->vcpus_total);
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
	unsigned feed_vcpus;

	memset(cv, 0, sizeof(*cv));
	cv->limiting = "unknown";
	cv->vcpus_per_gpu = -1;
	cv->scaling = -1;
	cv->hit_ratio = -1;
	cv->top = rpt_verdict_top(in->points, in->npoints, c);
	cv->check.used_g = cv->check.used_g1 = -1;
	cv->thread_per_gpu_lo = cv->thread_per_gpu_hi = -1;
	cv->core_per_gpu_lo = cv->core_per_gpu_hi = -1;
	cv->top_dropped = top_was_dropped(in, c);
	if (cv->top_dropped) {
		/* no verdict from fewer vCPUs than this VM has */
		cv->top = -1;
		cv->not_judged = "the point at all of this VM's vCPUs could "
				 "not be measured within the budget; no "
				 "verdict from fewer vCPUs (raise --budget)";
		return;
	}
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
	cv->gpus_fed_computed = jdg_gpus_fed(top->samples_per_s,
					     in->demand_per_gpu,
					     v->au_threshold);
	rpt_verdict_confirm(cv->gpus_fed_computed, in->confirm ?
			    in->confirm[c] : NULL,
			    in->confirm ? RPT_CHECKS_MAX : 0,
			    top->vcpus, v->au_threshold, &cv->check);
	cv->gpus_fed = cv->check.gpus_fed;
	cv->confirmation = cv->check.confirmation;
	cv->cpu_s_per_sample = rpt_point_cpu_s_per_sample(top);
	/* per vCPU doing the feed's work: a Python pipeline's main process
	 * is the training job's part, counted by the reserve, not here */
	feed_vcpus = rpt_point_feed_vcpus(top);
	cv->feed_vcpus = feed_vcpus;
	cv->per_vcpu_rate = feed_vcpus ? top->samples_per_s / feed_vcpus : 0;
	/* samples/s per vCPU x CPU-s per sample = CPU-s per vCPU-s: more
	 * than the vCPUs can give means a figure is wrong */
	cv->cpu_per_vcpu = top->vcpus ? top->samples_per_s / top->vcpus *
			   cv->cpu_s_per_sample : 0;
	cv->inconsistent = cv->cpu_per_vcpu > RPT_CPU_PER_VCPU_MAX;
	if (one && one->samples_per_s > 0 && top->vcpus > 1)
		cv->scaling = cv->per_vcpu_rate / one->samples_per_s;
	if (in->gpu_count && cv->gpus_fed >= in->gpu_count)
		cv->limiting = "gpu";
	else if (top->bottleneck && *top->bottleneck)
		cv->limiting = top->bottleneck;
	/* from the point itself: a storage-bound feed that happens to feed
	 * the asked GPUs is still one more vCPUs would not raise */
	cv->storage_bound = !strcmp(nz(top->bottleneck), "storage");
	cv->vcpus_reserved = jdg_vcpus_for(in->gpu_count,
					   v->reserve_vcpus_per_gpu);
	cv->gpus_fed_reserved = cv->gpus_fed;
	/* only a CPU-bound feed loses what the training job takes */
	if (!strcmp(nz(top->bottleneck), "cpu"))
		cv->gpus_fed_reserved = jdg_gpus_fed_reserved(cv->gpus_fed,
			cv->per_vcpu_rate, in->vcpus_total, need,
			v->reserve_vcpus_per_gpu);
	/* storage-bound: more vCPUs do not help, so no vCPUs per GPU */
	if (cv->per_vcpu_rate > 0 && need > 0 && !cv->storage_bound) {
		cv->vcpus_per_gpu = need / cv->per_vcpu_rate;
		cv->vcpus_needed = jdg_vcpus_for(in->gpu_count,
					       cv->vcpus_per_gpu);
		cv->vcpus_spare = (int)in->vcpus_total -
				  (int)cv->vcpus_needed -
				  (int)cv->vcpus_reserved;
		kinds_per_gpu(v, cv);
	}
	/* vcpus_needed counts feed vCPUs, as the rate does */
	if (!strcmp(cv->limiting, "cpu") && cv->vcpus_per_gpu > 0 &&
	    cv->vcpus_needed > feed_vcpus && !cv->inconsistent) {
		cv->projected = true;
		jdg_project(cv->vcpus_needed, feed_vcpus, top->samples_per_s,
			    cv->per_vcpu_rate, cv->scaling, &cv->projected_lo,
			    &cv->projected_samples_per_s);
	}
}

/* ---- the RAM axis ---- */

double rpt_lru_hit_model(double fraction)
{
	return jdg_lru_hit(fraction);
}

double rpt_lru_fraction_for_hit(double hit)
{
	return jdg_lru_fraction_for_hit(hit);
}

void rpt_verdict_ram_need(const struct rpt_ram_need_in *in,
			  struct rpt_ram_need *out)
{
	jdg_ram_need(in, out);
}

uint64_t rpt_reserve_ram_default(unsigned batch, unsigned prefetch,
				 uint64_t sample_bytes)
{
	return jdg_reserve_ram(batch, prefetch, sample_bytes);
}

/* Reads in flight above which a storage-bound point's latency, not its
 * depth, is the limit: its reader kept this share of its depth busy. */
#define VD_DEPTH_BUSY 0.8

/*
 * What helps a storage-bound cold state, from its own figures: by
 * Little's law the reads in flight are files/s x latency. A reader that
 * did not keep its depth busy is limited by the storage's throughput. One
 * that kept it full is limited either by the storage's latency (more
 * reads in flight help before a faster disk does) or by a throughput cap
 * that queued its reads; one depth cannot tell which, so the advice names
 * the run that can.
 */
static void storage_advice(const struct rpt_verdict_in *in,
			   struct rpt_sweep_verdict *v)
{
	const struct rpt_cache_verdict *cv = &v->cache[STG_CACHE_COLD];
	const struct rpt_point *p;
	double inflight;

	v->storage_advice[0] = '\0';
	if (!cv->measured || !cv->storage_bound || cv->top < 0)
		return;
	p = &in->points[cv->top];
	inflight = p->read_latency_s > 0 ? p->files_per_s * p->read_latency_s
					 : -1;
	if (inflight > 0 && p->reads_in_flight_max &&
	    inflight >= VD_DEPTH_BUSY * p->reads_in_flight_max)
		/* a full queue is what a latency-bound storage shows, but a
		 * throughput cap fills it too (each read then waits behind the
		 * others): one depth cannot tell them apart, a second can */
		snprintf(v->storage_advice, sizeof(v->storage_advice),
			 "the reader kept its reads in flight full: %.0f files/s "
			 "x %.1f ms per read = %.1f in flight of %u. Where each "
			 "read waits on the storage's latency (a network disk, "
			 "an object store), more reads in flight (a deeper "
			 "--depth) raise it before faster storage (local NVMe) "
			 "does; where %.1f MB/s is the storage's throughput cap "
			 "they only lengthen each read's wait: a cold run with "
			 "twice the --depth tells which",
			 p->files_per_s, p->read_latency_s * 1e3, inflight,
			 p->reads_in_flight_max, p->read_bytes_per_s / 1e6);
	else if (inflight > 0)
		snprintf(v->storage_advice, sizeof(v->storage_advice),
			 "the storage's throughput limits it: %.1f of %u reads "
			 "in flight on average (%.1f ms each), so more reads "
			 "in flight will not help; cache more of the dataset "
			 "in RAM, or move it to faster storage (local NVMe)",
			 inflight, p->reads_in_flight_max,
			 p->read_latency_s * 1e3);
	else
		snprintf(v->storage_advice, sizeof(v->storage_advice),
			 "more vCPUs do not help here; try more reads in "
			 "flight (--depth), more of the dataset in RAM, or "
			 "faster storage (local NVMe)");
}

/* The usable cold point with the best files/s: where the storage
 * ceiling comes from, and what one sample reads. NULL when none. */
static const struct rpt_point *storage_point(const struct rpt_verdict_in *in)
{
	const struct rpt_point *best = NULL;

	for (size_t i = 0; i < in->npoints; i++) {
		const struct rpt_point *p = &in->points[i];

		if (p->cache == STG_CACHE_COLD && rpt_point_usable(p) &&
		    (!best || p->files_per_s > best->files_per_s))
			best = p;
	}
	return best;
}

/* The pipeline's own memory: the most a ram point's cgroup held beside
 * its page cache (limit = page cache + own); 0 when none measured it. */
static uint64_t own_memory(const struct rpt_verdict_in *in)
{
	uint64_t own = 0;

	for (size_t i = 0; i < in->npoints; i++) {
		const struct rpt_point *p = &in->points[i];

		if (p->cache == STG_CACHE_RAM &&
		    p->status == RPT_POINT_MEASURED &&
		    p->cgroup_bytes > p->ram_bytes &&
		    p->cgroup_bytes - p->ram_bytes > own)
			own = p->cgroup_bytes - p->ram_bytes;
	}
	return own;
}

/* The RAM axis's inputs for NEED samples/s (GPUs at the threshold) with
 * RESERVED bytes for their training jobs and RAM_LIMIT bytes of RAM. */
static void ram_need_in(const struct rpt_verdict_in *in,
			const struct rpt_sweep_verdict *v, double need,
			uint64_t reserved, uint64_t ram_limit,
			struct rpt_ram_need_in *ni)
{
	const struct rpt_point *sp = storage_point(in);

	memset(ni, 0, sizeof(*ni));
	ni->need_samples_per_s = need;
	ni->need_per_gpu = v->need_per_gpu;
	if (sp && sp->samples_per_s > 0) {
		ni->files_per_sample = sp->files_per_s / sp->samples_per_s;
		ni->bytes_per_sample = sp->read_bytes_per_s /
				       sp->samples_per_s;
	}
	ni->storage_files_per_s = v->storage_files_per_s;
	ni->storage_bytes_per_s = v->storage_bytes_per_s;
	ni->storage_is_ceiling = v->storage_is_ceiling;
	ni->dataset_bytes = in->dataset_bytes;
	ni->reserved_bytes = reserved;
	ni->own_bytes = v->own_bytes;
	ni->ram_limit = ram_limit;
}

/* The feed the model predicts at hit ratio H: the lower of the CPU's
 * rate (warm) and the storage's through the misses; < 0 unknown. */
static double ram_predict(const struct rpt_sweep_verdict *v, double h)
{
	const double cpu = v->ram_cpu_samples_per_s;
	const double st = v->ram_need.storage_samples_per_s;
	double r = INFINITY;

	if (st > 0 && h < 1)
		r = st / (1 - h);
	if (cpu > 0)
		r = fmin(r, cpu);
	return isinf(r) ? -1 : r;
}

static void ram_row_add(struct rpt_sweep_verdict *v,
			const struct rpt_ram_row *r)
{
	size_t k;

	if (v->nram_curve >= RPT_RAM_CURVE_MAX)
		return;
	/* sorted by page cache; a measured row before a model row */
	k = v->nram_curve;
	while (k > 0 && (v->ram_curve[k - 1].fraction > r->fraction ||
			 (v->ram_curve[k - 1].fraction == r->fraction &&
			  v->ram_curve[k - 1].point < 0 && r->point >= 0))) {
		v->ram_curve[k] = v->ram_curve[k - 1];
		k--;
	}
	v->ram_curve[k] = *r;
	v->nram_curve++;
}

/* A model row at FRACTION of the dataset. */
static void ram_model_row(const struct rpt_verdict_in *in,
			  struct rpt_sweep_verdict *v, double fraction)
{
	struct rpt_ram_row r = {
		.fraction = fraction,
		.page_cache_bytes = (uint64_t)(fraction *
					       (double)in->dataset_bytes),
		.hit_ratio = jdg_lru_hit(fraction),
		.model_hit = jdg_lru_hit(fraction),
		.source = "model",
		.point = -1,
	};

	r.samples_per_s = ram_predict(v, r.hit_ratio);
	ram_row_add(v, &r);
}

/*
 * The measured rows: the usable cold, ram and warm points at the most
 * vCPUs any of them has (cold: nothing cached; warm: all of it; ram: the
 * page cache it held after the run where known, else the one asked, over
 * the part of the dataset it read), each ram row held against the model.
 */
static void ram_measured_rows(const struct rpt_verdict_in *in,
			      struct rpt_sweep_verdict *v)
{
	unsigned at = 0;

	for (size_t i = 0; i < in->npoints; i++)
		if (rpt_point_usable(&in->points[i]) &&
		    in->points[i].vcpus > at)
			at = in->points[i].vcpus;
	for (size_t i = 0; i < in->npoints; i++) {
		const struct rpt_point *p = &in->points[i];
		struct rpt_ram_row r = { .point = (int)i, .source = "measured" };

		if (!rpt_point_usable(p) || p->vcpus != at)
			continue;
		if (p->cache == STG_CACHE_COLD) {
			r.fraction = 0;
		} else if (p->cache == STG_CACHE_WARM) {
			r.fraction = 1;
		} else {
			const uint64_t held = p->cache_seen_bytes ?
					      p->cache_seen_bytes : p->ram_bytes;
			const uint64_t of = p->sample_bytes ? p->sample_bytes :
					    in->dataset_bytes;

			if (!of)
				continue;
			r.fraction = (double)held / (double)of;
			if (p->hit_ratio_estimated)
				r.source = "estimated";
		}
		r.cache = stg_cache_state_name(p->cache);
		r.page_cache_bytes = (uint64_t)(fmin(r.fraction, 1) *
						(double)in->dataset_bytes);
		r.hit_ratio = p->hit_ratio;
		r.model_hit = jdg_lru_hit(r.fraction);
		r.samples_per_s = p->samples_per_s;
		if (p->cache == STG_CACHE_RAM && !p->hit_ratio_estimated &&
		    p->hit_ratio >= 0) {
			v->ram_model_checked++;
			r.disagrees = jdg_lru_disagrees(p->hit_ratio,
							r.model_hit);
			v->ram_model_disagree += r.disagrees;
		}
		ram_row_add(v, &r);
	}
}

/* The model against the measured ram rows, in words. */
static void ram_model_words(struct rpt_sweep_verdict *v)
{
	const struct rpt_ram_row *worst = NULL;
	char *t = v->ram_model_text;
	const size_t len = sizeof(v->ram_model_text);

	for (size_t i = 0; i < v->nram_curve; i++) {
		const struct rpt_ram_row *r = &v->ram_curve[i];

		if (r->point >= 0 && r->cache && !strcmp(r->cache, "ram") &&
		    !strcmp(r->source, "measured") && r->hit_ratio >= 0 &&
		    (!worst || fabs(r->hit_ratio - r->model_hit) >
			       fabs(worst->hit_ratio - worst->model_hit)))
			worst = r;
	}
	if (!worst) {
		snprintf(t, len, "the model (an LRU page cache under shuffled "
			 "epochs: f + (1 - f) ln(1 - f) of reads hit with a "
			 "share f cached) was not held against a measured ram "
			 "point: none was measured");
		return;
	}
	if (!v->ram_model_disagree)
		snprintf(t, len, "the model (an LRU page cache under shuffled "
			 "epochs: f + (1 - f) ln(1 - f) of reads hit with a "
			 "share f cached) agrees with the %u measured ram "
			 "point%s within %.2f (the largest gap: %.1f %% measured, "
			 "%.1f %% modelled at %.0f %% cached)",
			 v->ram_model_checked, v->ram_model_checked == 1 ? "" :
			 "s", RPT_RAM_MODEL_TOL, worst->hit_ratio * 100,
			 worst->model_hit * 100, worst->fraction * 100);
	else
		snprintf(t, len, "MODEL DISAGREES: %u of %u measured ram "
			 "point%s %s from the LRU model by more than %.2f "
			 "(at %.0f %% cached: %.1f %% measured, %.1f %% "
			 "modelled): %s", v->ram_model_disagree,
			 v->ram_model_checked, v->ram_model_checked == 1 ? "" :
			 "s", v->ram_model_disagree == 1 ? "differs" : "differ",
			 RPT_RAM_MODEL_TOL, worst->fraction * 100,
			 worst->hit_ratio * 100, worst->model_hit * 100,
			 worst->hit_ratio > worst->model_hit ? "this kernel "
			 "kept pages read twice (its active list) better than "
			 "an LRU, so the model's RAM figure is conservative: "
			 "the measured points show a smaller page cache may do" :
			 "this kernel's reclaim is not LRU-like here, or the "
			 "filesystem drops its page cache at open (FUSE without "
			 "kernel_cache), so the model's RAM figure is "
			 "optimistic: trust the measured points");
}

/* Append to the RAM verdict's words; a text that does not fit is cut. */
static void ram_add(struct rpt_sweep_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ram_add(struct rpt_sweep_verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rpt_vcat(v->ram_text, sizeof(v->ram_text), fmt, ap);
	va_end(ap);
}

/* The RAM verdict for the asked GPUs, in words. */
static void ram_words(const struct rpt_verdict_in *in,
		      struct rpt_sweep_verdict *v)
{
	const struct rpt_ram_need *n = &v->ram_need;
	char pc[32], ram[32], vm[32], here[32], need[32], st[32];

	v->ram_text[0] = '\0';
	if (!v->storage_known) {
		ram_add(v, "no usable cold point: no storage ceiling to size "
			"the page cache against");
		return;
	}
	if (!n->known) {
		ram_add(v, "no demand or no storage figure per sample: the "
			"page cache needed is unknown");
		return;
	}
	rpt_fmt_count(need, sizeof(need), v->need_per_gpu * in->gpu_count);
	rpt_fmt_count(st, sizeof(st), n->storage_samples_per_s);
	rpt_fmt_bytes(pc, sizeof(pc), (double)n->page_cache_bytes);
	rpt_fmt_bytes(ram, sizeof(ram), (double)n->ram_bytes);
	rpt_fmt_bytes(vm, sizeof(vm), (double)n->vm_ram_bytes);
	rpt_fmt_bytes(here, sizeof(here), (double)n->page_cache_here);
	ram_add(v, "%u x %s need %s samples/s; cold this storage serves "
		"%s%s: ", in->gpu_count, nz(in->gpu_type), need,
		n->at_most ? "at least " : "", st);
	if (n->no_cache_needed) {
		ram_add(v, "no page cache is needed; RAM for the training "
			"job's reserve and the pipeline: %s", ram);
	} else if (n->none_suffices && n->at_most) {
		ram_add(v, "at most %.0f %% of reads must hit the page cache: "
			"it may take up to the whole dataset cached; %s",
			n->hit_needed * 100, v->ram_holds_dataset ?
			"this VM holds all of it (the warm row)" : "measure "
			"the storage where it is the limit (a cold point with "
			"more vCPUs) to know");
	} else if (n->none_suffices) {
		ram_add(v, "%.0f %% of reads must hit the page cache, which "
			"takes more than %.0f %% of the dataset cached (the LRU "
			"model of shuffled epochs): no RAM size is enough below "
			"100 %% of the dataset; %s", n->hit_needed * 100,
			RPT_RAM_FRACTION_MAX * 100, v->ram_holds_dataset ?
			"this VM holds all of it (the warm row)" :
			"use local NVMe or shards, or a VM whose RAM holds the "
			"whole dataset");
	} else {
		ram_add(v, "they need %s%s of page cache (%.0f %% of the "
			"dataset, for a %.0f %% hit ratio); with the training "
			"job's reserve and the pipeline %s of RAM, a VM of %s%s "
			"(%.0f %% rule)", n->at_most ? "at most " : ">= ", pc,
			n->fraction_needed * 100, n->hit_needed * 100, ram,
			n->at_most ? "up to " : ">= ", vm, RPT_RAM_SHARE * 100);
	}
	if (v->ram_limit && !n->no_cache_needed &&
	    !(n->none_suffices && v->ram_holds_dataset)) {
		if (n->fraction_here >= 1)
			ram_add(v, "; this VM has %s of page cache: it holds "
				"the whole dataset", here);
		else
			ram_add(v, "; this VM has %s of page cache (%.0f %% of "
				"the dataset)", here, n->fraction_here * 100);
		if (n->enough_here)
			ram_add(v, ": enough");
		else if (n->gpus_here >= 0)
			ram_add(v, n->at_most ? ": at least ~%.1f GPUs" :
				": storage-bound at ~%.1f GPUs", n->gpus_here);
	}
	if (n->at_most)
		ram_add(v, " (the cold point was CPU-bound: the storage "
			"ceiling is a lower bound, so the RAM needed is at most "
			"this)");
}

/*
 * The RAM axis: the pipeline's own memory, the page cache the asked
 * GPUs need (rpt_verdict_ram_need), the curve (measured rows, the
 * model's rows at every tenth, at the need and at this VM's page cache)
 * and the model held against the measured ram points.
 */
static void ram_axis(const struct rpt_verdict_in *in,
		     struct rpt_sweep_verdict *v)
{
	struct rpt_ram_need_in ni;
	const struct rpt_ram_need *n = &v->ram_need;

	v->own_bytes = own_memory(in);
	ram_need_in(in, v, v->need_per_gpu * in->gpu_count, v->ram_reserved,
		    v->ram_limit, &ni);
	jdg_ram_need(&ni, &v->ram_need);
	v->ram_cpu_samples_per_s = v->cache[STG_CACHE_WARM].measured ?
		v->cache[STG_CACHE_WARM].samples_per_s : -1;
	ram_measured_rows(in, v);
	for (int k = 0; k <= 10; k++)
		ram_model_row(in, v, k / 10.0);
	if (n->known && !n->no_cache_needed && !n->none_suffices &&
	    fabs(n->fraction_needed * 10 -
		 round(n->fraction_needed * 10)) > 1e-6)
		ram_model_row(in, v, n->fraction_needed);
	if (n->known && n->fraction_here > 0 && n->fraction_here < 1)
		ram_model_row(in, v, n->fraction_here);
	ram_model_words(v);
	ram_words(in, v);
}

/* Each catalogued shape's RAM against the page cache its GPUs need. */
static void catalog_ram(const struct rpt_verdict_in *in,
			struct rpt_sweep_verdict *v)
{
	for (size_t i = 0; i < v->nfits; i++) {
		struct rpt_shape_fit *f = &v->fits[i];
		const uint64_t ram = (uint64_t)(f->shape->ram_gib *
						1073741824.0);
		struct rpt_ram_need_in ni;
		struct rpt_ram_need n;

		ram_need_in(in, v, v->au_threshold * f->demand_total,
			    f->ram_reserved, ram, &ni);
		jdg_ram_need(&ni, &n);
		f->page_cache_bytes = n.page_cache_here;
		f->ram_needed_bytes = n.ram_bytes;
		f->ram_fit = (enum rpt_ram_fit)jdg_ram_fit(&n,
							   f->ram_holds_dataset);
	}
}

void rpt_verdict_draw(const struct rpt_verdict_in *in,
		      struct rpt_sweep_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->au_threshold = jdg_threshold(in->au_threshold);
	v->need_per_gpu = in->demand_per_gpu > 0 ?
			  v->au_threshold * in->demand_per_gpu : 0;
	v->reserve_vcpus_per_gpu = in->reserve_vcpus_per_gpu >= 0 ?
		in->reserve_vcpus_per_gpu : RPT_RESERVE_VCPUS_PER_GPU;
	v->reserve_ram_per_gpu = in->reserve_ram_per_gpu;
	vcpu_units(in, v);
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
	if (v->storage_known && v->need_per_gpu > 0) {
		const struct rpt_point *sp = storage_point(in);

		v->storage_gpus = jdg_storage_gpus(v->storage_files_per_s,
			sp && sp->samples_per_s > 0 ? sp->files_per_s /
			sp->samples_per_s : -1, v->need_per_gpu);
	}
	storage_advice(in, v);
	/* the one RAM rule: dataset + reserve <= RPT_RAM_SHARE x RAM */
	v->ram_limit = in->ram_total ? in->ram_total : in->ram_available;
	if (in->cgroup_limit >= 0 && (uint64_t)in->cgroup_limit < v->ram_limit)
		v->ram_limit = (uint64_t)in->cgroup_limit;
	v->ram_reserved = v->reserve_ram_per_gpu * in->gpu_count;
	v->own_bytes = own_memory(in);
	v->ram_holds_dataset = jdg_ram_holds(in->dataset_bytes,
		v->ram_reserved + v->own_bytes, v->ram_limit);
	ram_axis(in, v);
	catalog_check(in, v);
	catalog_ram(in, v);
	headline(in, v);
}
