/*
 * sweep.c - a sweep's points: which point judges each cache state, the
 * SMT yield from the 1- and 2-vCPU points, each state's verdict (what
 * limits, the vCPUs per GPU, the projection), the catalogue's state and a
 * shape's vCPUs, the storage seen cold and what helps it, the pipeline's
 * own memory and the RAM curve's rows.
 */
#include <math.h>
#include <string.h>

#include "judge.h"

/* ---- which point ---- */

enum jdg_unusable jdg_point_unusable(const struct jdg_point *p)
{
	if (!p->measured)
		return JDG_UNUSABLE_NOT_MEASURED;
	if (p->cache == STG_CACHE_RAM && p->ram_not_limited)
		return JDG_UNUSABLE_RAM_NOT_LIMITED;
	if (p->cache == STG_CACHE_COLD && jdg_not_cold(p->hit_ratio))
		return JDG_UNUSABLE_NOT_COLD;
	if (jdg_window_too_short(p->measured_s, p->batches))
		return JDG_UNUSABLE_TOO_SHORT;
	return JDG_USABLE;
}

bool jdg_point_usable(const struct jdg_point *p)
{
	return jdg_point_unusable(p) == JDG_USABLE;
}

unsigned jdg_point_feed_vcpus(const struct jdg_point *p)
{
	return p->feed_vcpus && p->feed_vcpus < p->vcpus ? p->feed_vcpus :
	       p->vcpus;
}

int jdg_top(const struct jdg_point *pts, size_t n, enum stg_cache_state c)
{
	int top = -1;

	for (size_t i = 0; i < n; i++) {
		const struct jdg_point *p = &pts[i];

		if (p->cache != c || !jdg_point_usable(p))
			continue;
		/* at equal counts the state's own size (the one the check
		 * runs use) before a RAM-axis size */
		if (top < 0 || p->vcpus > pts[top].vcpus ||
		    (p->vcpus == pts[top].vcpus && pts[top].ram_axis &&
		     !p->ram_axis))
			top = (int)i;
	}
	return top;
}

int jdg_point_at(const struct jdg_point *pts, size_t n,
		 enum stg_cache_state c, unsigned k)
{
	for (size_t i = 0; i < n; i++)
		if (pts[i].cache == c && pts[i].vcpus == k &&
		    jdg_point_usable(&pts[i]))
			return (int)i;
	return -1;
}

bool jdg_top_dropped(const struct jdg_point *pts, size_t n,
		     enum stg_cache_state c, unsigned vcpus_total)
{
	bool dropped = false;

	for (size_t i = 0; i < n; i++) {
		const struct jdg_point *p = &pts[i];

		if (p->cache != c || p->vcpus != vcpus_total)
			continue;
		if (jdg_point_usable(p))
			return false;
		/* the RAM axis's other sizes may drop before fewer vCPUs */
		dropped = dropped || (p->dropped && !p->ram_axis);
	}
	return dropped;
}

int jdg_not_judged(const struct jdg_point *pts, size_t n,
		   enum stg_cache_state c)
{
	int at = -1;

	for (size_t i = 0; i < n; i++) {
		const enum jdg_unusable u = jdg_point_unusable(&pts[i]);

		if (pts[i].cache != c || u == JDG_USABLE ||
		    u == JDG_UNUSABLE_NOT_MEASURED)
			continue;
		if (at < 0 || pts[i].vcpus > pts[at].vcpus)
			at = (int)i;
	}
	return at;
}

/* ---- the SMT yield ---- */

void jdg_smt(const struct jdg_point *pts, size_t n, enum stg_vcpu_kind kind,
	     struct jdg_smt *out)
{
	static const enum stg_cache_state pref[] = {
		STG_CACHE_WARM, STG_CACHE_RAM, STG_CACHE_COLD
	};
	double two_over_one = -1, cpu_ratio = -1;

	out->kind = kind;
	out->kind_measured = false;
	out->yield = -1;
	out->yield_lo = JDG_SMT_YIELD_LO;
	out->yield_hi = JDG_SMT_YIELD_HI;
	for (size_t i = 0; i < sizeof(pref) / sizeof(pref[0]); i++) {
		const int a = jdg_point_at(pts, n, pref[i], 1);
		const int b = jdg_point_at(pts, n, pref[i], 2);

		/* a 2-vCPU point whose feed ran on one of them (a Python
		 * pipeline's single worker) says nothing of a second thread */
		if (a < 0 || b < 0 || !(pts[a].samples_per_s > 0) ||
		    pts[b].bound == JDG_BOUND_STORAGE ||
		    jdg_point_feed_vcpus(&pts[b]) < 2)
			continue;
		two_over_one = pts[b].samples_per_s / pts[a].samples_per_s;
		if (pts[a].cpu_s_per_sample > 0)
			cpu_ratio = pts[b].cpu_s_per_sample /
				    pts[a].cpu_s_per_sample;
		break;
	}
	if (two_over_one <= 0)
		return;
	if (kind == STG_VCPU_THREAD) {
		out->yield = two_over_one;
	} else if (jdg_hidden_smt(two_over_one, cpu_ratio)) {
		out->kind = STG_VCPU_THREAD;
		out->kind_measured = true;
		out->yield = two_over_one;
	}
	/* outside [1, 2] the 1-vCPU point was handicapped (its reader, a
	 * noisy neighbour) and the ends are used */
	if (out->yield > 0)
		out->yield_lo = out->yield_hi = jdg_smt_clamp(out->yield);
}

/* ---- one cache state ---- */

static void cache_unjudged(struct jdg_cache *out)
{
	memset(out, 0, sizeof(*out));
	out->top = out->not_judged = -1;
	out->check.used_g = out->check.used_g1 = -1;
	out->vcpus_per_gpu = out->scaling = -1;
	out->thread_per_gpu_lo = out->thread_per_gpu_hi = -1;
	out->core_per_gpu_lo = out->core_per_gpu_hi = -1;
}

/* The vCPUs per GPU, needed and spare, and their kinds, of OUT. */
static void cache_vcpus(const struct jdg_cache_in *in, double need,
			struct jdg_cache *out)
{
	/* storage-bound: more vCPUs do not help, so no vCPUs per GPU */
	if (!(out->per_vcpu_rate > 0) || !(need > 0) || out->storage_bound)
		return;
	out->vcpus_per_gpu = need / out->per_vcpu_rate;
	out->vcpus_needed = jdg_vcpus_for(in->gpu_count, out->vcpus_per_gpu);
	out->vcpus_spare = (int)in->vcpus_total - (int)out->vcpus_needed -
			   (int)out->vcpus_reserved;
	jdg_kinds_per_gpu(out->vcpus_per_gpu,
			  in->smt && in->smt->kind == STG_VCPU_THREAD,
			  in->smt ? in->smt->yield_lo : JDG_SMT_YIELD_LO,
			  in->smt ? in->smt->yield_hi : JDG_SMT_YIELD_HI,
			  &out->thread_per_gpu_lo, &out->thread_per_gpu_hi,
			  &out->core_per_gpu_lo, &out->core_per_gpu_hi);
}

void jdg_cache_judge(const struct jdg_point *pts, size_t n,
		     const struct jdg_cache_in *in, struct jdg_cache *out)
{
	const double need = in->demand_per_gpu > 0 ?
			    in->au_threshold * in->demand_per_gpu : 0;
	const struct jdg_point *top;
	int one;

	cache_unjudged(out);
	out->top_dropped = jdg_top_dropped(pts, n, in->cache,
					   in->vcpus_total);
	if (out->top_dropped)
		return;         /* no verdict from fewer vCPUs than this VM has */
	out->top = jdg_top(pts, n, in->cache);
	if (out->top < 0) {
		out->not_judged = jdg_not_judged(pts, n, in->cache);
		return;
	}
	top = &pts[out->top];
	one = jdg_point_at(pts, n, in->cache, 1);
	out->measured = true;
	out->vcpus_top = top->vcpus;
	out->top_is_all = top->vcpus == in->vcpus_total;
	out->gpus_fed_computed = jdg_gpus_fed(top->samples_per_s,
					      in->demand_per_gpu,
					      in->au_threshold);
	jdg_check_walk(out->gpus_fed_computed, in->checks,
		       in->checks ? in->nchecks : 0, top->vcpus,
		       in->au_threshold, &out->check);
	out->gpus_fed = out->check.gpus_fed;
	out->cpu_s_per_sample = top->cpu_s_per_sample;
	/* per vCPU doing the feed's work: a Python pipeline's main process
	 * is the training job's part, counted by the reserve, not here */
	out->feed_vcpus = jdg_point_feed_vcpus(top);
	out->per_vcpu_rate = out->feed_vcpus ?
			     top->samples_per_s / out->feed_vcpus : 0;
	/* samples/s per vCPU x CPU-s per sample = CPU-s per vCPU-s: more
	 * than the vCPUs can give means a figure is wrong */
	out->cpu_per_vcpu = top->vcpus ? top->samples_per_s / top->vcpus *
			    out->cpu_s_per_sample : 0;
	out->inconsistent = out->cpu_per_vcpu > JDG_CPU_PER_VCPU_MAX;
	if (one >= 0 && pts[one].samples_per_s > 0 && top->vcpus > 1)
		out->scaling = out->per_vcpu_rate / pts[one].samples_per_s;
	out->gpu_limits = jdg_asked_fed(out->gpus_fed, in->gpu_count);
	out->cpu_limits = !out->gpu_limits && top->bound == JDG_BOUND_CPU;
	/* from the point itself: a storage-bound feed that happens to feed
	 * the asked GPUs is still one more vCPUs would not raise */
	out->storage_bound = top->bound == JDG_BOUND_STORAGE;
	out->vcpus_reserved = jdg_vcpus_for(in->gpu_count,
					    in->reserve_vcpus_per_gpu);
	out->gpus_fed_reserved = out->gpus_fed;
	/* only a CPU-bound feed loses what the training job takes */
	if (top->bound == JDG_BOUND_CPU)
		out->gpus_fed_reserved = jdg_gpus_fed_reserved(out->gpus_fed,
			out->per_vcpu_rate, in->vcpus_total, need,
			in->reserve_vcpus_per_gpu);
	cache_vcpus(in, need, out);
	/* vcpus_needed counts feed vCPUs, as the rate does */
	if (out->cpu_limits && out->vcpus_per_gpu > 0 &&
	    out->vcpus_needed > out->feed_vcpus && !out->inconsistent) {
		out->projected = true;
		jdg_project(out->vcpus_needed, out->feed_vcpus,
			    top->samples_per_s, out->per_vcpu_rate,
			    out->scaling, &out->projected_lo,
			    &out->projected_hi);
	}
	out->more_vcpus_may_help = !out->top_is_all &&
				   out->vcpus_top < in->vcpus_total &&
				   !out->storage_bound;
}

int jdg_best_state(const struct jdg_cache c[STG_CACHE_STATES])
{
	int best = -1;

	for (int i = 0; i < STG_CACHE_STATES; i++)
		if (c[i].measured &&
		    (best < 0 || c[i].gpus_fed > c[best].gpus_fed))
			best = i;
	return best;
}

int jdg_warmest_state(const struct jdg_cache c[STG_CACHE_STATES])
{
	for (int i = STG_CACHE_STATES - 1; i >= 0; i--)
		if (c[i].measured)
			return i;
	return -1;
}

/* ---- the catalogue ---- */

int jdg_catalog_state(const struct jdg_cache c[STG_CACHE_STATES])
{
	static const enum stg_cache_state pref[] = {
		STG_CACHE_WARM, STG_CACHE_RAM, STG_CACHE_COLD
	};

	/* never a storage-bound state: its vCPUs per GPU mean nothing */
	for (size_t i = 0; i < sizeof(pref) / sizeof(pref[0]); i++) {
		const struct jdg_cache *s = &c[pref[i]];

		if (s->measured && !s->inconsistent && !s->storage_bound &&
		    s->vcpus_per_gpu > 0)
			return (int)pref[i];
	}
	return -1;
}

void jdg_shape_fit(const struct jdg_shape_in *in, const struct jdg_cache *cv,
		   struct jdg_shape *out)
{
	const double need = in->need_per_gpu;
	double lo, hi;

	memset(out, 0, sizeof(*out));
	out->demand_total = jdg_demand_total(in->demand_total,
					     in->demand_per_gpu, in->gpus);
	out->vcpus_reserved = in->reserve_vcpus_per_gpu * in->gpus;
	out->vcpus_needed = out->vcpus_needed_lo = -1;
	if (!cv || !(cv->vcpus_per_gpu > 0) || !(need > 0))
		return;
	/* its vCPUs per (samples/s), in the kind its vCPUs are */
	lo = (in->threads ? cv->thread_per_gpu_lo : cv->core_per_gpu_lo) / need;
	hi = (in->threads ? cv->thread_per_gpu_hi : cv->core_per_gpu_hi) / need;
	out->vcpus_needed_lo = lo * in->au_threshold * out->demand_total;
	out->vcpus_needed = hi * in->au_threshold * out->demand_total;
	out->vcpus_spare = in->vcpus - out->vcpus_needed - out->vcpus_reserved;
	out->vcpus_spare_hi = in->vcpus - out->vcpus_needed_lo -
			      out->vcpus_reserved;
	out->fits = jdg_fit(out->vcpus_spare, out->vcpus_spare_hi);
}

/* ---- the storage, seen cold ---- */

void jdg_storage(const struct jdg_point *pts, size_t n, double need_per_gpu,
		 struct jdg_storage *out)
{
	memset(out, 0, sizeof(*out));
	out->point = -1;
	for (size_t i = 0; i < n; i++) {
		const struct jdg_point *p = &pts[i];

		if (p->cache != STG_CACHE_COLD || !jdg_point_usable(p))
			continue;
		out->known = true;
		out->bytes_per_s = fmax(out->bytes_per_s, p->read_bytes_per_s);
		out->files_per_s = fmax(out->files_per_s, p->files_per_s);
		out->is_ceiling = out->is_ceiling ||
				  p->bound == JDG_BOUND_STORAGE;
		if (out->point < 0 || p->files_per_s > pts[out->point].files_per_s)
			out->point = (int)i;
	}
	if (out->point >= 0 && pts[out->point].samples_per_s > 0) {
		const struct jdg_point *p = &pts[out->point];

		out->files_per_sample = p->files_per_s / p->samples_per_s;
		out->bytes_per_sample = p->read_bytes_per_s / p->samples_per_s;
	}
	if (out->known && need_per_gpu > 0)
		out->gpus = jdg_storage_gpus(out->files_per_s,
					     out->files_per_sample,
					     need_per_gpu);
}

bool jdg_storage_feeds(double storage_gpus, unsigned asked)
{
	return storage_gpus >= asked;
}

enum jdg_advice jdg_storage_advice(const struct jdg_point *p,
				   bool storage_bound, double *inflight)
{
	*inflight = -1;
	if (!p || !storage_bound)
		return JDG_ADVICE_NONE;
	if (p->read_latency_s > 0)
		*inflight = p->files_per_s * p->read_latency_s;
	/* a full queue is what a latency-bound storage shows, but a
	 * throughput cap fills it too: one depth cannot tell them apart */
	if (*inflight > 0 && p->reads_in_flight_max &&
	    *inflight >= JDG_DEPTH_BUSY * p->reads_in_flight_max)
		return JDG_ADVICE_DEPTH_FULL;
	return *inflight > 0 ? JDG_ADVICE_THROUGHPUT : JDG_ADVICE_UNKNOWN;
}

/* ---- memory ---- */

uint64_t jdg_own_memory(const struct jdg_point *pts, size_t n)
{
	uint64_t own = 0;

	for (size_t i = 0; i < n; i++) {
		const struct jdg_point *p = &pts[i];

		if (p->cache == STG_CACHE_RAM && p->measured &&
		    p->cgroup_bytes > p->ram_bytes &&
		    p->cgroup_bytes - p->ram_bytes > own)
			own = p->cgroup_bytes - p->ram_bytes;
	}
	return own;
}

uint64_t jdg_ram_limit(uint64_t total, uint64_t available,
		       int64_t cgroup_limit)
{
	uint64_t limit = total ? total : available;

	if (cgroup_limit >= 0 && (uint64_t)cgroup_limit < limit)
		limit = (uint64_t)cgroup_limit;
	return limit;
}

/* ---- the RAM curve ---- */

/* Insert R into ROWS[0..*N), sorted by fraction, a measured row before a
 * model row; dropped when full. */
static void row_add(struct jdg_ram_row *rows, size_t *n,
		    const struct jdg_ram_row *r)
{
	size_t k = *n;

	if (*n >= JDG_RAM_ROWS_MAX)
		return;
	while (k > 0 && (rows[k - 1].fraction > r->fraction ||
			 (rows[k - 1].fraction == r->fraction &&
			  rows[k - 1].point < 0 && r->point >= 0))) {
		rows[k] = rows[k - 1];
		k--;
	}
	rows[k] = *r;
	(*n)++;
}

double jdg_ram_model_feed(double storage, double cpu_samples_per_s,
			  double hit)
{
	double r = INFINITY;

	if (storage > 0 && hit < 1)
		r = storage / (1 - hit);
	if (cpu_samples_per_s > 0)
		r = fmin(r, cpu_samples_per_s);
	return isinf(r) ? -1 : r;
}

static double model_feed(const struct jdg_ram_rows_in *in, double h)
{
	return jdg_ram_model_feed(in->need ? in->need->storage_samples_per_s :
				  0, in->cpu_samples_per_s, h);
}

static void model_row(const struct jdg_ram_rows_in *in, double fraction,
		      struct jdg_ram_row *rows, size_t *n)
{
	struct jdg_ram_row r = {
		.fraction = fraction,
		.page_cache_bytes = (uint64_t)(fraction *
					       (double)in->dataset_bytes),
		.hit_ratio = jdg_lru_hit(fraction),
		.model_hit = jdg_lru_hit(fraction),
		.point = -1,
		.kind = JDG_ROW_MODEL,
	};

	r.samples_per_s = model_feed(in, r.hit_ratio);
	row_add(rows, n, &r);
}

/* The cached fraction of measured point P: cold nothing, warm all, ram
 * the page cache held (else asked) over the part it read; false when
 * unknown. */
static bool measured_fraction(const struct jdg_point *p, uint64_t dataset,
			      double *fraction)
{
	uint64_t held, of;

	if (p->cache != STG_CACHE_RAM) {
		*fraction = p->cache == STG_CACHE_WARM ? 1 : 0;
		return true;
	}
	held = p->cache_seen_bytes ? p->cache_seen_bytes : p->ram_bytes;
	of = p->sample_bytes ? p->sample_bytes : dataset;
	if (!of)
		return false;
	*fraction = (double)held / (double)of;
	return true;
}

static void measured_rows(const struct jdg_point *pts, size_t n,
			  const struct jdg_ram_rows_in *in,
			  struct jdg_ram_row *rows, size_t *nrows,
			  unsigned *checked, unsigned *disagree)
{
	unsigned at = 0;

	for (size_t i = 0; i < n; i++)
		if (jdg_point_usable(&pts[i]) && pts[i].vcpus > at)
			at = pts[i].vcpus;
	for (size_t i = 0; i < n; i++) {
		const struct jdg_point *p = &pts[i];
		struct jdg_ram_row r = { .point = (int)i, .cache = p->cache,
					 .kind = JDG_ROW_MEASURED };

		if (!jdg_point_usable(p) || p->vcpus != at ||
		    !measured_fraction(p, in->dataset_bytes, &r.fraction))
			continue;
		if (p->cache == STG_CACHE_RAM && p->hit_ratio_estimated)
			r.kind = JDG_ROW_ESTIMATED;
		r.page_cache_bytes = (uint64_t)(fmin(r.fraction, 1) *
						(double)in->dataset_bytes);
		r.hit_ratio = p->hit_ratio;
		r.model_hit = jdg_lru_hit(r.fraction);
		r.samples_per_s = p->samples_per_s;
		if (p->cache == STG_CACHE_RAM && !p->hit_ratio_estimated &&
		    p->hit_ratio >= 0) {
			(*checked)++;
			r.disagrees = jdg_lru_disagrees(p->hit_ratio,
							r.model_hit);
			*disagree += r.disagrees;
		}
		row_add(rows, nrows, &r);
	}
}

size_t jdg_ram_rows(const struct jdg_point *pts, size_t n,
		    const struct jdg_ram_rows_in *in, struct jdg_ram_row *rows,
		    unsigned *checked, unsigned *disagree)
{
	const struct jdg_ram_need *need = in->need;
	size_t nrows = 0;

	*checked = *disagree = 0;
	measured_rows(pts, n, in, rows, &nrows, checked, disagree);
	for (int k = 0; k <= 10; k++)
		model_row(in, k / 10.0, rows, &nrows);
	if (!need)
		return nrows;
	if (need->known && !need->no_cache_needed && !need->none_suffices &&
	    fabs(need->fraction_needed * 10 -
		 round(need->fraction_needed * 10)) > 1e-6)
		model_row(in, need->fraction_needed, rows, &nrows);
	if (need->known && need->fraction_here > 0 && need->fraction_here < 1)
		model_row(in, need->fraction_here, rows, &nrows);
	return nrows;
}

int jdg_ram_worst_row(const struct jdg_ram_row *rows, size_t n)
{
	int worst = -1;

	for (size_t i = 0; i < n; i++) {
		const struct jdg_ram_row *r = &rows[i];

		if (r->point >= 0 && r->cache == STG_CACHE_RAM &&
		    r->kind == JDG_ROW_MEASURED && r->hit_ratio >= 0 &&
		    (worst < 0 || fabs(r->hit_ratio - r->model_hit) >
		     fabs(rows[worst].hit_ratio - rows[worst].model_hit)))
			worst = (int)i;
	}
	return worst;
}
