/*
 * verdict.c - the sweep's and a run's verdict in words (verdict.h): every
 * decision is judge/'s (which point judges a cache state, the check-run
 * walk, the SMT yield, what limits, the projection, the storage ceiling and
 * its advice, the RAM curve and need, the catalogue fit); this file turns
 * rpt_points into judge/'s plain figures and words what it decided. No I/O.
 */
#include <math.h>
#include <stdlib.h>
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

/* P as judge/ reads it: plain figures. */
static void jpoint(const struct rpt_point *p, struct jdg_point *j)
{
	const char *b = nz(p->bottleneck);

	*j = (struct jdg_point){
		.cache = p->cache,
		.measured = p->status == RPT_POINT_MEASURED,
		.dropped = p->status == RPT_POINT_DROPPED,
		.ram_axis = p->ram_axis,
		.ram_not_limited = p->ram_not_limited,
		.vcpus = p->vcpus,
		.feed_vcpus = p->feed_vcpus,
		.measured_s = p->measured_s,
		.batches = p->batches,
		.samples_per_s = p->samples_per_s,
		.cpu_s_per_sample = rpt_point_cpu_s_per_sample(p),
		.hit_ratio = p->hit_ratio,
		.hit_ratio_estimated = p->hit_ratio_estimated,
		.bound = !strcmp(b, "cpu") ? JDG_BOUND_CPU :
			 !strcmp(b, "storage") ? JDG_BOUND_STORAGE :
			 JDG_BOUND_OTHER,
		.files_per_s = p->files_per_s,
		.read_bytes_per_s = p->read_bytes_per_s,
		.read_latency_s = p->read_latency_s,
		.reads_in_flight_max = p->reads_in_flight_max,
		.ram_bytes = p->ram_bytes,
		.cgroup_bytes = p->cgroup_bytes,
		.cache_seen_bytes = p->cache_seen_bytes,
		.sample_bytes = p->sample_bytes,
	};
}

/* PTS[0..N) as judge/ reads them (free()); NULL when out of memory. */
static struct jdg_point *jpoints(const struct rpt_point *pts, size_t n)
{
	struct jdg_point *j = calloc(n ? n : 1, sizeof(*j));

	for (size_t i = 0; j && i < n; i++)
		jpoint(&pts[i], &j[i]);
	return j;
}

bool rpt_point_too_short(const struct rpt_point *p)
{
	return p->status == RPT_POINT_MEASURED &&
	       jdg_window_too_short(p->measured_s, p->batches);
}

unsigned rpt_point_feed_vcpus(const struct rpt_point *p)
{
	struct jdg_point j;

	jpoint(p, &j);
	return jdg_point_feed_vcpus(&j);
}

bool rpt_point_sampled(const struct rpt_point *p, uint64_t files)
{
	return p->cache == STG_CACHE_RAM && p->sample_files && files &&
	       p->sample_files < files;
}

bool rpt_point_usable(const struct rpt_point *p)
{
	struct jdg_point j;

	jpoint(p, &j);
	return jdg_point_usable(&j);
}

/* Why point P (judge/'s J) does not judge, in words; NULL when it does
 * or was not measured. */
static const char *unusable_why(const struct rpt_point *p,
				const struct jdg_point *j)
{
	switch (jdg_point_unusable(j)) {
	case JDG_UNUSABLE_RAM_NOT_LIMITED:
		return "its page cache was not limited (it held more than "
		       VD_STR(LDR_RAM_SLACK) " x the asked size), so it ran "
		       "warm";
	case JDG_UNUSABLE_NOT_COLD:
		if (p->odirect_refused)
			return "not cold: O_DIRECT was refused on this "
			       "filesystem and more than " VD_STR(RPT_COLD_HIT_MAX)
			       " of its reads hit the page cache (measured)";
		return "not cold: more than " VD_STR(RPT_COLD_HIT_MAX) " of its "
		       "reads hit the page cache (measured)";
	case JDG_UNUSABLE_TOO_SHORT:
		return "too short (a window under "
		       VD_STR(RPT_POINT_MIN_WINDOW_S) " s or fewer than "
		       VD_STR(RPT_POINT_MIN_BATCHES) " batches): start-up "
		       "dominates its figures";
	default:
		return NULL;
	}
}

int rpt_verdict_top(const struct rpt_point *pts, size_t n,
		    enum stg_cache_state c)
{
	struct jdg_point *j = jpoints(pts, n);
	int top = j ? jdg_top(j, n, c) : -1;

	free(j);
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

/* The runs the walk J ignored, named in OUT->note (judge/'s walk on
 * COMPUTED with RUNS[0..N) at VCPUS_TOP), and J's figures into OUT. */
static void check_words(unsigned computed, const struct rpt_confirm *runs,
			size_t n, unsigned vcpus_top, const struct jdg_check *j,
			struct rpt_check *out)
{
	unsigned ignored = 0;

	memset(out, 0, sizeof(*out));
	out->gpus_fed = j->gpus_fed;
	out->confirmation = (int)j->confirmation;
	out->used_g = j->used_g;
	out->used_g1 = j->used_g1;
	out->used_mask = j->used_mask;
	out->lowered_untested = j->lowered_untested;
	if (n > JDG_CHECK_RUNS_MAX)
		n = JDG_CHECK_RUNS_MAX;
	for (size_t i = 0; runs && i < n; i++) {
		if (j->why[i] == JDG_IGN_USED)
			continue;
		/* note_ignored reads the count so far, as it always did */
		out->ignored = ++ignored;
		note_ignored(out, computed, vcpus_top, &runs[i],
			     ignored_why[j->why[i]]);
	}
	out->ignored = j->ignored;
}

/* RUNS[0..N) as judge/ reads them, into R (at most JDG_CHECK_RUNS_MAX);
 * returns how many. */
static size_t jchecks(const struct rpt_confirm *runs, size_t n,
		      struct jdg_check_run *r)
{
	if (!runs)
		return 0;
	if (n > JDG_CHECK_RUNS_MAX)
		n = JDG_CHECK_RUNS_MAX;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct jdg_check_run){ .run = runs[i].run,
			.gpus = runs[i].gpus, .au = runs[i].au,
			.vcpus = runs[i].vcpus };
	return n;
}

void rpt_verdict_confirm(unsigned computed, const struct rpt_confirm *runs,
			 size_t n, unsigned vcpus_top, double au_threshold,
			 struct rpt_check *out)
{
	struct jdg_check_run r[JDG_CHECK_RUNS_MAX];
	struct jdg_check j;

	n = jchecks(runs, n, r);
	jdg_check_walk(computed, r, n, vcpus_top, au_threshold, &j);
	check_words(computed, runs, n, vcpus_top, &j, out);
}

/* ---- the sweep ---- */

/* What the verdict is drawn from: the caller's figures, its points as
 * judge/ reads them, and what judge/ decided of them. */
struct vd {
	const struct rpt_verdict_in *in;
	const struct jdg_point *pts;
	struct jdg_smt smt;
	struct jdg_cache jc[STG_CACHE_STATES];
	struct jdg_storage st;
};

/* "A100-40GB" -> "A100" (the part before '-'), into BUF. */
static void gpu_family(const char *type, char *buf, size_t len)
{
	size_t n = strcspn(nz(type), "-");

	if (n >= len)
		n = len - 1;
	memcpy(buf, nz(type), n);
	buf[n] = '\0';
}

static void catalog_check(const struct vd *d, struct rpt_sweep_verdict *v)
{
	const struct rpt_verdict_in *in = d->in;
	char fam[32];

	v->catalog_cache = jdg_catalog_state(d->jc);
	gpu_family(in->gpu_type, fam, sizeof(fam));
	for (size_t i = 0; i < in->nshapes && v->nfits < RPT_SHAPES_MAX; i++) {
		const struct rpt_shape *sh = &in->shapes[i];
		const struct jdg_shape_in si = {
			.vcpus = sh->vcpus, .gpus = sh->gpus,
			.threads = sh->vcpu_kind == STG_VCPU_THREAD,
			.demand_total = sh->demand_total,
			.demand_per_gpu = in->demand_per_gpu,
			.au_threshold = v->au_threshold,
			.need_per_gpu = v->need_per_gpu,
			.reserve_vcpus_per_gpu = v->reserve_vcpus_per_gpu,
		};
		struct rpt_shape_fit *f;
		struct jdg_shape js;

		if (!fam[0] || strcasecmp(nz(sh->gpu), fam))
			continue;
		f = &v->fits[v->nfits++];
		jdg_shape_fit(&si, v->catalog_cache < 0 ? NULL :
			      &d->jc[v->catalog_cache], &js);
		f->shape = sh;
		f->demand_total = js.demand_total;
		f->vcpus_reserved = js.vcpus_reserved;
		f->vcpus_needed_lo = js.vcpus_needed_lo;
		f->vcpus_needed = js.vcpus_needed;
		f->vcpus_spare = js.vcpus_spare;
		f->vcpus_spare_hi = js.vcpus_spare_hi;
		f->fits = (enum rpt_fit)js.fits;
		f->ram_reserved = v->reserve_ram_per_gpu * sh->gpus;
		f->ram_holds_dataset = jdg_ram_holds(in->dataset_bytes,
			f->ram_reserved + v->own_bytes,
			(uint64_t)(sh->ram_gib * 1073741824.0));
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

/* What limits cache state C (CV), the warmest judged, in the headline. */
static void head_limit(const struct rpt_verdict_in *in,
		       struct rpt_sweep_verdict *v, int c)
{
	const struct rpt_cache_verdict *cv = &v->cache[c];

	if (!strcmp(cv->limiting, "gpu")) {
		head_add(v, "; the asked GPUs are fed %s",
			 stg_cache_state_name((enum stg_cache_state)c));
	} else if (cv->vcpus_per_gpu > 0 && !strcmp(cv->limiting, "cpu")) {
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
	} else if (cv->storage_bound) {
		head_add(v, "; limited by storage: more vCPUs do not help");
	} else {
		head_add(v, "; limited by %s", cv->limiting);
	}
	if (cv->gpus_fed_reserved < cv->gpus_fed)
		head_add(v, "; %s feeds %u once the training job "
			 "takes its %.1f vCPU per GPU",
			 stg_cache_state_name((enum stg_cache_state)c),
			 cv->gpus_fed_reserved, v->reserve_vcpus_per_gpu);
}

static void headline(const struct vd *d, struct rpt_sweep_verdict *v)
{
	const struct rpt_verdict_in *in = d->in;
	const int best = jdg_best_state(d->jc);
	const int warmest = jdg_warmest_state(d->jc);

	v->headline[0] = '\0';
	if (best < 0) {
		bool any = false;

		for (int c = 0; c < STG_CACHE_STATES; c++)
			any = any || v->cache[c].not_judged;
		snprintf(v->headline, sizeof(v->headline), "no verdict: %s",
			 any ? "every measured point was too short or (ram) "
			 "not limited; see below" : "no point was measured");
		return;
	}
	for (int c = 0, first = 1; c < STG_CACHE_STATES; c++) {
		if (!v->cache[c].measured)
			continue;
		head_add(v, "%s%s %u", first ? "feeds " : ", ",
			 stg_cache_state_name((enum stg_cache_state)c),
			 v->cache[c].gpus_fed);
		first = 0;
	}
	head_add(v, " x %s at >= %.0f %% AU (%u asked; %.0f samples/s per "
		 "GPU, %s demand, %s%s)", nz(in->gpu_type),
		 v->au_threshold * 100, in->gpu_count, in->demand_per_gpu,
		 in->demand_kind ? in->demand_kind : "unknown",
		 in->demand_basis ? in->demand_basis : "basis unknown",
		 in->demand_multi_measured ?
		 ", the source's multi-GPU figure" : "");
	head_limit(in, v, warmest);
	if (d->jc[best].more_vcpus_may_help)
		head_add(v, "; measured at %u of this VM's %u vCPUs: with "
			 "all of them it may feed more", v->cache[best].vcpus_top,
			 in->vcpus_total);
	for (int c = 0; c < STG_CACHE_STATES; c++)
		if (v->cache[c].not_judged)
			head_add(v, "; %s not judged", stg_cache_state_name(
				 (enum stg_cache_state)c));
}

/* The verdict of cache state C: judge/'s (D->jc[C]) in words. */
static void cache_verdict(struct vd *d, const struct rpt_sweep_verdict *v,
			  enum stg_cache_state c, struct rpt_cache_verdict *cv)
{
	const struct rpt_verdict_in *in = d->in;
	struct jdg_check_run r[JDG_CHECK_RUNS_MAX];
	const struct rpt_confirm *runs = in->confirm ? in->confirm[c] : NULL;
	const size_t nr = jchecks(runs, RPT_CHECKS_MAX, r);
	const struct jdg_cache_in ci = {
		.cache = c, .demand_per_gpu = in->demand_per_gpu,
		.au_threshold = v->au_threshold, .gpu_count = in->gpu_count,
		.vcpus_total = in->vcpus_total,
		.reserve_vcpus_per_gpu = v->reserve_vcpus_per_gpu,
		.smt = &d->smt, .checks = runs ? r : NULL, .nchecks = nr,
	};
	struct jdg_cache *j = &d->jc[c];
	const struct rpt_point *top;

	jdg_cache_judge(d->pts, in->npoints, &ci, j);
	memset(cv, 0, sizeof(*cv));
	cv->limiting = "unknown";
	cv->vcpus_per_gpu = cv->scaling = cv->hit_ratio = -1;
	cv->top = j->top;
	cv->check.used_g = cv->check.used_g1 = -1;
	cv->thread_per_gpu_lo = cv->thread_per_gpu_hi = -1;
	cv->core_per_gpu_lo = cv->core_per_gpu_hi = -1;
	cv->top_dropped = j->top_dropped;
	if (j->top_dropped)
		cv->not_judged = "the point at all of this VM's vCPUs could "
				 "not be measured within the budget; no "
				 "verdict from fewer vCPUs (raise --budget)";
	else if (j->not_judged >= 0)
		cv->not_judged = unusable_why(&in->points[j->not_judged],
					      &d->pts[j->not_judged]);
	if (!j->measured)
		return;
	top = &in->points[j->top];
	cv->measured = true;
	cv->vcpus_top = j->vcpus_top;
	cv->top_is_all = j->top_is_all;
	cv->samples_per_s = top->samples_per_s;
	cv->hit_ratio = top->hit_ratio;
	cv->hit_ratio_estimated = top->hit_ratio_estimated;
	cv->gpus_fed_computed = j->gpus_fed_computed;
	check_words(j->gpus_fed_computed, runs, nr, top->vcpus, &j->check,
		    &cv->check);
	cv->gpus_fed = j->gpus_fed;
	cv->confirmation = (int)j->check.confirmation;
	cv->cpu_s_per_sample = j->cpu_s_per_sample;
	cv->feed_vcpus = j->feed_vcpus;
	cv->per_vcpu_rate = j->per_vcpu_rate;
	cv->cpu_per_vcpu = j->cpu_per_vcpu;
	cv->inconsistent = j->inconsistent;
	cv->scaling = j->scaling;
	if (j->gpu_limits)
		cv->limiting = "gpu";
	else if (top->bottleneck && *top->bottleneck)
		cv->limiting = top->bottleneck;
	cv->storage_bound = j->storage_bound;
	cv->vcpus_reserved = j->vcpus_reserved;
	cv->gpus_fed_reserved = j->gpus_fed_reserved;
	cv->vcpus_per_gpu = j->vcpus_per_gpu;
	cv->vcpus_needed = j->vcpus_needed;
	cv->vcpus_spare = j->vcpus_spare;
	cv->thread_per_gpu_lo = j->thread_per_gpu_lo;
	cv->thread_per_gpu_hi = j->thread_per_gpu_hi;
	cv->core_per_gpu_lo = j->core_per_gpu_lo;
	cv->core_per_gpu_hi = j->core_per_gpu_hi;
	cv->projected = j->projected;
	cv->projected_lo = j->projected_lo;
	cv->projected_samples_per_s = j->projected_hi;
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

/* What helps a storage-bound cold state (jdg_storage_advice), in words. */
static void storage_advice(const struct vd *d, struct rpt_sweep_verdict *v)
{
	const struct jdg_cache *jc = &d->jc[STG_CACHE_COLD];
	const struct jdg_point *p = jc->measured ? &d->pts[jc->top] : NULL;
	double inflight;

	v->storage_advice[0] = '\0';
	switch (jdg_storage_advice(p, jc->storage_bound, &inflight)) {
	case JDG_ADVICE_DEPTH_FULL:
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
		break;
	case JDG_ADVICE_THROUGHPUT:
		snprintf(v->storage_advice, sizeof(v->storage_advice),
			 "the storage's throughput limits it: %.1f of %u reads "
			 "in flight on average (%.1f ms each), so more reads "
			 "in flight will not help; cache more of the dataset "
			 "in RAM, or move it to faster storage (local NVMe)",
			 inflight, p->reads_in_flight_max,
			 p->read_latency_s * 1e3);
		break;
	case JDG_ADVICE_UNKNOWN:
		snprintf(v->storage_advice, sizeof(v->storage_advice),
			 "more vCPUs do not help here; try more reads in "
			 "flight (--depth), more of the dataset in RAM, or "
			 "faster storage (local NVMe)");
		break;
	default:
		break;
	}
}

/* The RAM axis's inputs for NEED samples/s (GPUs at the threshold) with
 * RESERVED bytes for their training jobs and RAM_LIMIT bytes of RAM. */
static void ram_need_in(const struct vd *d,
			const struct rpt_sweep_verdict *v, double need,
			uint64_t reserved, uint64_t ram_limit,
			struct rpt_ram_need_in *ni)
{
	memset(ni, 0, sizeof(*ni));
	ni->need_samples_per_s = need;
	ni->need_per_gpu = v->need_per_gpu;
	ni->files_per_sample = d->st.files_per_sample;
	ni->bytes_per_sample = d->st.bytes_per_sample;
	ni->storage_files_per_s = v->storage_files_per_s;
	ni->storage_bytes_per_s = v->storage_bytes_per_s;
	ni->storage_is_ceiling = v->storage_is_ceiling;
	ni->dataset_bytes = d->in->dataset_bytes;
	ni->reserved_bytes = reserved;
	ni->own_bytes = v->own_bytes;
	ni->ram_limit = ram_limit;
}

/* judge/'s RAM curve (jdg_ram_rows) into V, each row named; returns
 * the measured ram row furthest from the model (-1 none). */
static int ram_curve(const struct vd *d, struct rpt_sweep_verdict *v)
{
	static const char *const source[] = {
		[JDG_ROW_MODEL] = "model", [JDG_ROW_MEASURED] = "measured",
		[JDG_ROW_ESTIMATED] = "estimated",
	};
	const struct jdg_ram_rows_in ri = {
		.dataset_bytes = d->in->dataset_bytes,
		.cpu_samples_per_s = v->ram_cpu_samples_per_s,
		.need = &v->ram_need,
	};
	struct jdg_ram_row rows[JDG_RAM_ROWS_MAX];
	size_t n = jdg_ram_rows(d->pts, d->in->npoints, &ri, rows,
				&v->ram_model_checked, &v->ram_model_disagree);

	for (size_t i = 0; i < n && i < RPT_RAM_CURVE_MAX; i++) {
		const struct jdg_ram_row *r = &rows[i];

		v->ram_curve[i] = (struct rpt_ram_row){
			.page_cache_bytes = r->page_cache_bytes,
			.fraction = r->fraction, .hit_ratio = r->hit_ratio,
			.source = source[r->kind],
			.cache = r->point < 0 ? NULL :
				 stg_cache_state_name(r->cache),
			.model_hit = r->model_hit,
			.samples_per_s = r->samples_per_s, .point = r->point,
			.disagrees = r->disagrees,
		};
		v->nram_curve = i + 1;
	}
	return jdg_ram_worst_row(rows, v->nram_curve);
}

/* The model against the measured ram rows, in words; W: the row
 * furthest from it (jdg_ram_worst_row), -1 none. */
static void ram_model_words(struct rpt_sweep_verdict *v, int w)
{
	const struct rpt_ram_row *worst;
	char *t = v->ram_model_text;
	const size_t len = sizeof(v->ram_model_text);

	if (w < 0) {
		snprintf(t, len, "the model (an LRU page cache under shuffled "
			 "epochs: f + (1 - f) ln(1 - f) of reads hit with a "
			 "share f cached) was not held against a measured ram "
			 "point: none was measured");
		return;
	}
	worst = &v->ram_curve[w];
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
 * The RAM axis: the page cache the asked GPUs need
 * (rpt_verdict_ram_need), the curve (jdg_ram_rows) and the model held
 * against the measured ram points, in words.
 */
static void ram_axis(const struct vd *d, struct rpt_sweep_verdict *v)
{
	struct rpt_ram_need_in ni;

	ram_need_in(d, v, v->need_per_gpu * d->in->gpu_count, v->ram_reserved,
		    v->ram_limit, &ni);
	jdg_ram_need(&ni, &v->ram_need);
	v->ram_cpu_samples_per_s = v->cache[STG_CACHE_WARM].measured ?
		v->cache[STG_CACHE_WARM].samples_per_s : -1;
	ram_model_words(v, ram_curve(d, v));
	ram_words(d->in, v);
}

/* Each catalogued shape's RAM against the page cache its GPUs need. */
static void catalog_ram(const struct vd *d, struct rpt_sweep_verdict *v)
{
	for (size_t i = 0; i < v->nfits; i++) {
		struct rpt_shape_fit *f = &v->fits[i];
		const uint64_t ram = (uint64_t)(f->shape->ram_gib *
						1073741824.0);
		struct rpt_ram_need_in ni;
		struct rpt_ram_need n;

		ram_need_in(d, v, v->au_threshold * f->demand_total,
			    f->ram_reserved, ram, &ni);
		jdg_ram_need(&ni, &n);
		f->page_cache_bytes = n.page_cache_here;
		f->ram_needed_bytes = n.ram_bytes;
		f->ram_fit = (enum rpt_ram_fit)jdg_ram_fit(&n,
							   f->ram_holds_dataset);
	}
}

/* The vCPU units judge/ decided (jdg_smt), into V. */
static void vcpu_units(struct vd *d, struct rpt_sweep_verdict *v)
{
	jdg_smt(d->pts, d->in->npoints, d->in->vcpu_kind, &d->smt);
	v->vcpu_kind = d->smt.kind;
	v->vcpu_kind_basis = d->smt.kind_measured ? "measured scaling" :
			     "topology";
	v->smt_yield = d->smt.yield;
	v->smt_yield_lo = d->smt.yield_lo;
	v->smt_yield_hi = d->smt.yield_hi;
}

/* The storage seen cold (jdg_storage), into V. */
static void storage_seen(struct vd *d, struct rpt_sweep_verdict *v)
{
	jdg_storage(d->pts, d->in->npoints, v->need_per_gpu, &d->st);
	v->storage_known = d->st.known;
	v->storage_bytes_per_s = d->st.bytes_per_s;
	v->storage_files_per_s = d->st.files_per_s;
	v->storage_is_ceiling = d->st.is_ceiling;
	v->storage_gpus = d->st.gpus;
	v->storage_feeds_asked = jdg_storage_feeds(d->st.gpus,
						   d->in->gpu_count);
}

void rpt_verdict_draw(const struct rpt_verdict_in *in,
		      struct rpt_sweep_verdict *v)
{
	struct jdg_point *pts = jpoints(in->points, in->npoints);
	struct vd d = { .in = in, .pts = pts };

	memset(v, 0, sizeof(*v));
	v->catalog_cache = -1;
	if (!pts) {
		snprintf(v->headline, sizeof(v->headline), "no verdict: out "
			 "of memory");
		return;
	}
	v->au_threshold = jdg_threshold(in->au_threshold);
	v->need_per_gpu = in->demand_per_gpu > 0 ?
			  v->au_threshold * in->demand_per_gpu : 0;
	v->reserve_vcpus_per_gpu = in->reserve_vcpus_per_gpu >= 0 ?
		in->reserve_vcpus_per_gpu : RPT_RESERVE_VCPUS_PER_GPU;
	v->reserve_ram_per_gpu = in->reserve_ram_per_gpu;
	vcpu_units(&d, v);
	for (int c = 0; c < STG_CACHE_STATES; c++)
		cache_verdict(&d, v, (enum stg_cache_state)c, &v->cache[c]);
	storage_seen(&d, v);
	storage_advice(&d, v);
	/* the one RAM rule: dataset + reserve <= RPT_RAM_SHARE x RAM */
	v->ram_limit = jdg_ram_limit(in->ram_total, in->ram_available,
				     in->cgroup_limit);
	v->ram_reserved = v->reserve_ram_per_gpu * in->gpu_count;
	v->own_bytes = jdg_own_memory(pts, in->npoints);
	v->ram_holds_dataset = jdg_ram_holds(in->dataset_bytes,
		v->ram_reserved + v->own_bytes, v->ram_limit);
	ram_axis(&d, v);
	catalog_check(&d, v);
	catalog_ram(&d, v);
	headline(&d, v);
	free(pts);
}
