/*
 * measure_sweep.c - the sweep: vCPU counts x cache states within a time
 * budget (the planner and its rule), then the check runs with emulated
 * GPUs that the verdict asks for.
 *
 * DESIGN
 * Single-threaded: each point runs through ms_point_run in its own pinned
 * child. Order: for each vCPU count, ascending: cold, ram, warm. The
 * budget is re-planned before each point with ms_plan_budget (what is
 * left, in equal shares; page-cache preparation reserved outside them).
 * The points at all of this VM's vCPUs and their check runs are planned
 * first and never dropped to make room for fewer vCPUs (when even they
 * do not fit, they are dropped and the verdict says so); the
 * intermediate vCPU counts are the first to go (plan_rank). The stop flag
 * in the base point ends the sweep between points; the running child
 * stops and still reports.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "measure.h"

/* the warming probe's sample (ms_warm_estimate) */
#define SWEEP_WARM_PROBE_FILES 2000
#define SWEEP_WARM_PROBE_BYTES (64.0 * 1024 * 1024)
#define SWEEP_WARM_PROBE_MIN 64


/* ---- the budget rule ---- */

/*
 * Admission rank of a point (lower first): the top count's points, then
 * the RAM axis's other sizes, then the smallest count's, then (keep_two)
 * 2 vCPUs, then the others by count ascending; within a rank and count,
 * cold, ram, warm, and points of one rank, count and state in plan order.
 */
static int plan_rank(const struct ms_plan_point *q, unsigned top,
		     unsigned low, bool keep_two)
{
	if (q->ram_axis)
		return 1;
	if (q->vcpus == top)
		return 0;
	if (q->vcpus == low)
		return 2;
	if (keep_two && q->vcpus == 2)
		return 3;
	return 4;
}

/* Does A come before B in the admission order? */
static bool plan_before(const struct ms_plan_point *a,
			const struct ms_plan_point *b, unsigned top,
			unsigned low, bool keep_two)
{
	const int ra = plan_rank(a, top, low, keep_two);
	const int rb = plan_rank(b, top, low, keep_two);

	if (ra != rb)
		return ra < rb;
	if (a->vcpus != b->vcpus)
		return a->vcpus < b->vcpus;
	return a->cache < b->cache;
}

/* The next point to admit: neither dropped nor kept, first in order. */
static size_t plan_next(const struct ms_plan_point *p, size_t n,
			unsigned top, unsigned low, bool keep_two)
{
	size_t best = n;

	for (size_t i = 0; i < n; i++) {
		if (p[i].dropped || p[i].kept)
			continue;
		if (best == n || plan_before(&p[i], &p[best], top, low,
					     keep_two))
			best = i;
	}
	return best;
}

/* The length of each of N check runs beside USED s of points: confirm_s,
 * or shortened down to confirm_min_s to fit; 0 when they do not fit. */
static double plan_check_len(const struct ms_budget *b, double used,
			     unsigned n)
{
	double len = b->confirm_s;

	if (used + n * len > b->left_s + 1e-9 && b->confirm_min_s > 0)
		len = fmax(0, (b->left_s - used) / n);
	if (len < (b->confirm_min_s > 0 ? b->confirm_min_s : b->confirm_s) -
	    1e-9 || used + n * len > b->left_s + 1e-9)
		return 0;
	return len;
}

double ms_plan_budget(struct ms_plan_point *p, size_t n, struct ms_budget *b)
{
	unsigned top = b->top_vcpus, low = UINT_MAX;
	bool checks_in = false, full = false;
	size_t tops_left = 0;
	double used = 0;                /* what those kept need */
	size_t kept = 0;

	b->confirm_kept = 0;
	b->confirm_len_s = 0;
	b->prep_s = 0;
	b->top_need_s = 0;
	b->share = 0;
	for (size_t i = 0; i < n; i++) {
		p[i].kept = false;
		if (!b->top_vcpus && p[i].vcpus > top)
			top = p[i].vcpus;
		if (p[i].vcpus < low)
			low = p[i].vcpus;
	}
	for (size_t i = 0; i < n; i++)
		if (p[i].vcpus == top && !p[i].ram_axis && !p[i].dropped) {
			b->top_need_s += b->min_point_s + p[i].prep_s;
			tops_left++;
		}
	for (;;) {
		const size_t i = plan_next(p, n, top, low, b->keep_two);
		double need;

		/* the check runs come right after the top points, shortened
		 * (down to confirm_min_s) to fit beside them, and skipped
		 * (not the points after them) when they do not fit */
		/* (when the top points have all run, the checks come
		 * before whatever is left) */
		if (!checks_in && b->nconfirm && (kept || !tops_left) &&
		    (i == n || plan_rank(&p[i], top, low, b->keep_two))) {
			/* all of them, else those that cannot go */
			const unsigned want[2] = { b->nconfirm,
				b->nconfirm_min && b->nconfirm_min < b->nconfirm ?
				b->nconfirm_min : b->nconfirm };

			for (int w = 0; w < 2 && !checks_in; w++) {
				const double len = plan_check_len(b, used,
								  want[w]);

				if (len > 0) {
					checks_in = true;
					b->confirm_kept = want[w];
					b->confirm_len_s = len;
					used += want[w] * len;
				}
			}
		}
		if (i == n)
			break;
		need = b->min_point_s + p[i].prep_s;
		if (full || used + need > b->left_s + 1e-9) {
			/* the first point that does not fit ends it */
			full = true;
			p[i].dropped = true;
			p[i].too_short = !plan_rank(&p[i], top, low,
						    b->keep_two);
			continue;
		}
		p[i].kept = true;
		used += need;
		b->prep_s += p[i].prep_s;
		kept++;
	}
	if (!kept)
		return 0;
	b->share = (b->left_s - b->prep_s -
		    b->confirm_kept * b->confirm_len_s) / kept;
	return b->share;
}

unsigned ms_ram_sizes_resolve(const struct ms_ram_size *in, unsigned n,
			      uint64_t dataset_bytes, uint64_t *out)
{
	static const double def[] = MS_RAM_DEFAULT_FRACTIONS;
	struct ms_ram_size d[sizeof(def) / sizeof(def[0])];
	unsigned k = 0;

	if (!n) {
		for (unsigned i = 0; i < sizeof(def) / sizeof(def[0]); i++)
			d[i] = (struct ms_ram_size){ .fraction = def[i] };
		in = d;
		n = sizeof(def) / sizeof(def[0]);
	}
	for (unsigned i = 0; i < n && k < MS_RAM_SIZES_MAX; i++) {
		uint64_t b = in[i].fraction > 0 ? (uint64_t)(in[i].fraction *
			     (double)dataset_bytes) : in[i].bytes;
		bool seen = false;

		if (b < MS_RAM_MIN_BYTES)
			b = MS_RAM_MIN_BYTES;
		for (unsigned j = 0; j < k; j++)
			seen = seen || out[j] == b;
		if (!seen)
			out[k++] = b;
	}
	return k;
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

void ms_budget_rule_text(const struct ms_sweep *sw, char *buf, size_t len)
{
	int k = 0;

	/* first: the report's line may cut a long rule short */
	if (sw)
		k = snprintf(buf, len, "Preparing page caches took %.1f s in "
			     "all (%.1f s of it at listing), outside the "
			     "points' shares. ", sw->prep_total_s, sw->evict_s);
	if (k < 0 || (size_t)k >= len)
		return;
	snprintf(buf + k, len - (size_t)k, "Budget rule: generating a "
		"default dataset is not counted; listing and evicting the "
		"dataset come first. "
		"Preparing a point's page cache (evicting, warming) is "
		"reserved outside the points' shares, estimated from the "
		"eviction at listing (warm: from a sample of the files warmed "
		"and timed then), then from the last preparation of each "
		"cache state. First the points with all of this VM's vCPUs "
		"(each cache state), never traded for fewer vCPUs; then %d "
		"check runs per cache state (G, G + 1 and one to test the "
		"count they move to; %.0f s each, shortened to no less than "
		"%.0f s to fit beside them, the third given up first; more, "
		"up to %d, while time is left); then the RAM axis's other "
		"page-cache sizes at all vCPUs; then the 1-vCPU points, the "
		"2-vCPU "
		"points, and the other counts from the smallest up. What is "
		"left is split into equal shares of at least %.0f s, re-planned "
		"before each point: the first point that does not fit is "
		"dropped with all after it, so the largest intermediate counts "
		"go first; when even the all-vCPU points do not fit they are "
		"dropped and the verdict says so. A ram point runs one epoch to "
		"fill its cache and two measured epochs in its share: when they "
		"do not fit it reads an evenly spread sample of the files "
		"(never fewer epochs) with the page cache scaled alike, and "
		"says so; the sample's page cache is never too small to be "
		"held to its size beside the run's own memory (5 %% of it and "
		"8 MiB within the %.0f %% slack), and the time to read that "
		"many files is reserved beside the point's share, like its "
		"preparation.", MS_CHECKS_PER_STATE, MS_CONFIRM_S,
		MS_CONFIRM_MIN_S, MS_CHECKS_MAX,
		MS_MIN_POINT_S, (LDR_RAM_SLACK - 1) * 100);
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

/* Append to BUF (LEN bytes, a string); what does not fit is cut. */
static void text_add(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void text_add(char *buf, size_t len, const char *fmt, ...)
{
	const size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

void ms_sweep_sample_text(const struct ms_sweep *sw, char *buf, size_t len)
{
	const struct stg_dataset *ds = sw->cfg.base.ds;
	const size_t n = ds ? stg_dataset_count(ds) : 0;
	const uint64_t total = ds ? stg_dataset_total_bytes(ds) : 0;
	unsigned k = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < sw->npts; i++) {
		const struct ms_sweep_point *sp = &sw->pts[i];
		const struct ms_point_out *po = &sp->out;
		const uint64_t asked = sp->ram_bytes ? sp->ram_bytes :
				       sw->cfg.ram_bytes;
		const double pc = (double)po->page_cache_bytes;

		/* a ram point reads all of the dataset unless
		 * ram_dataset took a sample of it */
		if (sp->cache != STG_CACHE_RAM ||
		    sp->status != MS_SWEEP_MEASURED || !po->sample_files ||
		    po->sample_files >= n)
			continue;
		if (!k++)
			text_add(buf, len, "measured on a sample of the "
				 "dataset, the budget being short: ");
		else
			text_add(buf, len, ", ");
		text_add(buf, len, "%u/ram", sp->vcpus);
		if (total)
			text_add(buf, len, " %.0f %%", 100.0 * (double)asked /
				 (double)total);
		text_add(buf, len, " read %llu of %zu files (page cache %.*f "
			 "%s)", (unsigned long long)po->sample_files, n,
			 pc >= 1e9 ? 1 : 0, pc >= 1e9 ? pc / 1e9 : pc / 1e6,
			 pc >= 1e9 ? "GB" : "MB");
	}
	if (k)
		text_add(buf, len, ". %s an evenly spread sample of the files "
			 "with the page cache scaled by the same factor, as a "
			 "fill epoch and the measured epochs of the whole "
			 "dataset did not fit its share of the budget: the share "
			 "of the dataset cached is the one asked, and under the "
			 "LRU model of shuffled epochs the hit ratio depends on "
			 "that share alone, so it holds for the whole dataset",
			 k == 1 ? "It read" : "Each read");
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
static struct ms_point sweep_point(const struct ms_sweep *sw, unsigned vcpus,
				   enum stg_cache_state c, unsigned gpus,
				   double window_s);

/* The RAM axis's sizes from the config: --ram LIST, a RAM_BYTES alone,
 * or the default; the first is the ram state's size at every count. */
static void sweep_ram_axis(struct ms_sweep *sw)
{
	const uint64_t total = stg_dataset_total_bytes(sw->cfg.base.ds);
	const struct ms_ram_size one = { .bytes = sw->cfg.ram_bytes };

	if (sw->cfg.nram_sizes)
		sw->nram_axis = ms_ram_sizes_resolve(sw->cfg.ram_sizes,
			sw->cfg.nram_sizes, total, sw->ram_axis);
	else
		sw->nram_axis = ms_ram_sizes_resolve(&one, sw->cfg.ram_bytes ?
						     1 : 0, total,
						     sw->ram_axis);
	sw->cfg.ram_bytes = sw->ram_axis[0];
}

double ms_warm_estimate(const struct stg_dataset *ds, size_t max_files,
			double max_bytes, struct ms_prep_phases *ph)
{
	const size_t n = stg_dataset_count(ds);
	const uint64_t total = stg_dataset_total_bytes(ds);
	size_t k = max_files;
	struct stg_dataset *sub;
	uint64_t errors = 0;
	double t0, t1;

	if (total && n && (double)k * (double)total / (double)n > max_bytes)
		k = (size_t)(max_bytes * (double)n / (double)total);
	if (k < SWEEP_WARM_PROBE_MIN || k > n / 4 ||
	    stg_dataset_sample(ds, k, &sub))
		return 0;
	t0 = stg_now();
	stg_watch_phase(STG_PHASE_EVICTION);
	stg_cache_dataset_evict(sub, &errors);
	t1 = stg_now();
	stg_watch_phase(STG_PHASE_WARMING);
	stg_cache_dataset_warm(sub, &errors);
	t1 = stg_now() - t1;
	stg_watch_phase(STG_PHASE_NONE);
	ph->warm_s += stg_now() - t0;
	stg_dataset_destroy(sub);
	return t1 * (double)n / (double)k;
}

int ms_sweep_plan(struct ms_sweep *sw, const struct ms_sweep_config *cfg)
{
	const size_t cap = (size_t)cfg->nvcpus * STG_CACHE_STATES +
			   MS_RAM_SIZES_MAX;
	struct ms_prep_phases probe = { 0 };
	struct ms_cache_prep prep;

	memset(sw, 0, sizeof(*sw));
	sw->cfg = *cfg;
	sweep_ram_axis(sw);
	sw->pts = calloc(cap, sizeof(*sw->pts));
	sw->plan = calloc(cap, sizeof(*sw->plan));
	if (!sw->pts || !sw->plan) {
		ms_sweep_free(sw);
		return -ENOMEM;
	}
	for (unsigned v = 0; v < cfg->nvcpus; v++) {
		if (cfg->vcpus[v] > sw->top_vcpus)
			sw->top_vcpus = cfg->vcpus[v];
		for (int c = 0; c < STG_CACHE_STATES; c++) {
			struct ms_sweep_point *sp;

			if (!cfg->cache[c])
				continue;
			sp = &sw->pts[sw->npts++];
			sp->vcpus = cfg->vcpus[v];
			sp->cache = (enum stg_cache_state)c;
			sp->ram_bytes = c == STG_CACHE_RAM ?
					sw->cfg.ram_bytes : 0;
			sp->out.hit_ratio = -1;
			sp->out.read_latency_s = -1;
			sp->out.prep.fraction = -1;
		}
	}
	/* the RAM axis: its other sizes at all vCPUs, after the rest */
	for (unsigned k = 1; cfg->cache[STG_CACHE_RAM] && cfg->nvcpus &&
	     k < sw->nram_axis; k++) {
		struct ms_sweep_point *sp = &sw->pts[sw->npts++];

		sp->vcpus = sw->top_vcpus;
		sp->cache = STG_CACHE_RAM;
		sp->ram_bytes = sw->ram_axis[k];
		sp->ram_axis = true;
		sp->out.hit_ratio = -1;
		sp->out.read_latency_s = -1;
		sp->out.prep.fraction = -1;
	}
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		sw->prep_seen[c] = -1;
		if (!cfg->no_check && cfg->cache[c])
			sw->confirm_left[c] = MS_CHECKS_PER_STATE;
	}
	/* listing and evicting come first, inside the budget; a timed
	 * warming of a sample before the eviction undoes it */
	sw->warm_est_s = cfg->cache[STG_CACHE_WARM] ?
			 ms_warm_estimate(cfg->base.ds, SWEEP_WARM_PROBE_FILES,
					  SWEEP_WARM_PROBE_BYTES, &probe) : 0;
	{
		const struct ms_prep_ctl ctl = {
			.seed = cfg->base.seed,
			.progress = cfg->base.prep_progress,
			.progress_arg = cfg->base.prep_progress_arg,
		};

		ms_cache_prepare(cfg->base.ds, STG_CACHE_COLD, &ctl, &prep);
	}
	sw->ph = prep.ph;
	sw->ph.warm_s += probe.warm_s;
	memcpy(sw->prep_method, prep.method, sizeof(sw->prep_method));
	sw->cold_held = !prep.odirect_refused && !prep.evict_ineffective;
	sw->evict_s = prep.prep_s;
	sw->prep_total_s = prep.prep_s + sw->ph.warm_s;
	sw->setup_s = stg_now() - cfg->t0;
	if (sweep_replan(sw, 0) <= 0)
		return -ETIME;
	return 0;
}

static double sweep_left(const struct ms_sweep *sw)
{
	return sw->cfg.budget_s - (stg_now() - sw->cfg.t0);
}

/*
 * What preparing a point of state C will take: the last one measured in
 * C; before any, the eviction at listing (cold, ram) or reading the
 * dataset at the best cold read rate measured (warm; the eviction's time
 * while none is).
 */
static double sweep_prep_est(const struct ms_sweep *sw,
			     enum stg_cache_state c)
{
	double rate = 0;

	if (sw->prep_seen[c] >= 0)
		return sw->prep_seen[c];
	if (c != STG_CACHE_WARM)
		return sw->evict_s;
	if (sw->warm_est_s > 0)
		return sw->warm_est_s;
	for (size_t i = 0; i < sw->npts; i++) {
		const struct ms_sweep_point *p = &sw->pts[i];

		if (p->status == MS_SWEEP_MEASURED &&
		    p->cache == STG_CACHE_COLD)
			rate = fmax(rate, p->res->read_bytes_per_s);
	}
	if (rate <= 0)
		return sw->evict_s;
	return (double)stg_dataset_total_bytes(sw->cfg.base.ds) / rate;
}

/*
 * What the ram point SP needs beyond a least share to read a sample whose
 * page cache can be held to its size beside the run's own memory
 * (ms_ram_hold_s), at the rate its hint gives; 0 for other states and
 * before any rate is measured. Reserved beside its preparation.
 */
static double sweep_hold_est(const struct ms_sweep *sw,
			     const struct ms_sweep_point *sp)
{
	struct ms_point p;

	if (sp->cache != STG_CACHE_RAM)
		return 0;
	p = sweep_point(sw, sp->vcpus, sp->cache, 0, 0);
	if (sp->ram_bytes)
		p.ram_bytes = sp->ram_bytes;
	return fmax(0, ms_ram_hold_s(&p, p.ram_bytes, p.rate_hint) -
		    MS_MIN_POINT_S);
}

static unsigned sweep_confirm_reserved(const struct ms_sweep *sw)
{
	unsigned n = 0;

	for (int c = 0; c < STG_CACHE_STATES; c++)
		n += sw->confirm_left[c];
	return n;
}

/* The reserved runs that G and G + 1 need. */
static unsigned sweep_confirm_needed(const struct ms_sweep *sw)
{
	unsigned n = 0;

	for (int c = 0; c < STG_CACHE_STATES; c++)
		n += sw->confirm_left[c] < MS_CHECKS_NEEDED ?
		     sw->confirm_left[c] : MS_CHECKS_NEEDED;
	return n;
}

/* Give up each state's reserved run for the checks' walk (the one
 * after G and G + 1), keeping G and G + 1. True when one was given up. */
static bool sweep_drop_walk_slots(struct ms_sweep *sw)
{
	bool any = false;

	for (int c = 0; c < STG_CACHE_STATES; c++)
		if (sw->confirm_left[c] > MS_CHECKS_NEEDED) {
			sw->confirm_left[c] = MS_CHECKS_NEEDED;
			any = true;
		}
	return any;
}

/* Re-plan the points from FROM on; drops are marked. Returns the share. */
static double sweep_replan(struct ms_sweep *sw, size_t from)
{
	struct ms_budget b = {
		.left_s = sweep_left(sw),
		.top_vcpus = sw->top_vcpus,
		.keep_two = sw->cfg.keep_two,
		.nconfirm = sweep_confirm_reserved(sw),
		.nconfirm_min = sweep_confirm_needed(sw),
		.confirm_s = MS_CONFIRM_S,
		.confirm_min_s = MS_CONFIRM_MIN_S,
		.min_point_s = MS_MIN_POINT_S,
	};
	size_t n = 0;
	unsigned ntop = 0;
	bool again = false;

	for (size_t i = from; i < sw->npts; i++, n++) {
		ntop += sw->pts[i].vcpus == sw->top_vcpus &&
			!sw->pts[i].ram_axis &&
			sw->pts[i].status != MS_SWEEP_DROPPED;
		sw->plan[n] = (struct ms_plan_point){
			.vcpus = sw->pts[i].vcpus,
			.cache = sw->pts[i].cache,
			.prep_s = sweep_prep_est(sw, sw->pts[i].cache) +
				  sweep_hold_est(sw, &sw->pts[i]),
			.dropped = sw->pts[i].status == MS_SWEEP_DROPPED,
			.ram_axis = sw->pts[i].ram_axis,
		};
	}
	ms_plan_budget(sw->plan, n, &b);
	/* the walk's reserved runs went before G and G + 1 did */
	if (b.confirm_kept && b.confirm_kept < b.nconfirm)
		sweep_drop_walk_slots(sw);
	if (!b.confirm_kept)
		memset(sw->confirm_left, 0, sizeof(sw->confirm_left));
	else
		sw->confirm_len_s = b.confirm_len_s;
	for (size_t i = from, k = 0; i < sw->npts; i++, k++) {
		struct ms_sweep_point *sp = &sw->pts[i];

		if (!sw->plan[k].dropped || sp->status == MS_SWEEP_DROPPED)
			continue;
		sp->status = MS_SWEEP_DROPPED;
		/* a state without its top point has nothing to check: its
		 * reserved runs go back to the points (plan again) */
		if (sw->plan[k].too_short && sw->confirm_left[sp->cache]) {
			sw->confirm_left[sp->cache] = 0;
			again = true;
		}
		if (sw->plan[k].too_short) {
			const double hold = sweep_hold_est(sw, sp);
			int w = snprintf(sp->why, sizeof(sp->why), "the %u-vCPU "
				 "point%s need%s about %.0f s; --budget %.0f s "
				 "is too short", sp->vcpus, ntop > 1 ? "s" : "",
				 ntop > 1 ? "" : "s",
				 sw->cfg.budget_s - b.left_s + b.top_need_s,
				 sw->cfg.budget_s);

			/* a ram point's sample cannot be made smaller */
			if (hold > 0 && w > 0 && (size_t)w < sizeof(sp->why))
				snprintf(sp->why + w, sizeof(sp->why) -
					 (size_t)w, " (a ram point reads at "
					 "least a sample whose page cache can "
					 "be held to its size beside the run's "
					 "own memory: about %.0f s more)",
					 hold);
		} else
			snprintf(sp->why, sizeof(sp->why), "no time left in the "
				 "%.0f s budget (the %u-vCPU points come first)",
				 sw->cfg.budget_s, sw->top_vcpus);
	}
	return again ? sweep_replan(sw, from) : b.share;
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

/* The points from FROM on that never ran, marked so. Returns -EINTR,
 * or -ETIMEDOUT when the storage stalled. */
static int sweep_interrupted(struct ms_sweep *sw, size_t from)
{
	for (size_t i = from; i < sw->npts; i++)
		if (sw->pts[i].status == MS_SWEEP_PLANNED) {
			sw->pts[i].status = MS_SWEEP_DROPPED;
			snprintf(sw->pts[i].why, sizeof(sw->pts[i].why),
				 "%s", sw->stalled ? "not run: the storage "
				 "stalled" : "interrupted");
		}
	return sw->stalled ? -ETIMEDOUT : -EINTR;
}

/* A point found the storage stalled (OUT): the sweep stops. */
static void sweep_stalled(struct ms_sweep *sw, const struct ms_point_out *out)
{
	sw->stalled = true;
	sw->stall = out->rep.stall;
	sweep_note(sw, "STALLED: no read completed for %.1f s (--stall-timeout "
		   "%g s) during the %s; the points after it were not run",
		   sw->stall.idle_s, sw->stall.timeout_s,
		   stg_phase_name(sw->stall.phase));
}

int ms_sweep_run_points(struct ms_sweep *sw)
{
	const volatile int *stop = sw->cfg.base.stop;
	bool warm_done = false, odirect_noted = false;
	const bool native = sw->cfg.base.pipe.kind == MS_PIPELINE_NATIVE;
	char sampled[2048];
	size_t count = 0;
	int rc = 0;

	for (size_t i = 0; i < sw->npts; i++) {
		struct ms_sweep_point *sp = &sw->pts[i];
		struct ms_point p;
		double share;
		int err;

		if (stop && *stop) {
			rc = sweep_interrupted(sw, i);
			break;
		}
		share = sweep_replan(sw, i);
		if (sp->status == MS_SWEEP_DROPPED)
			continue;
		sp->res = calloc(1, sizeof(*sp->res));
		if (!sp->res)
			return -ENOMEM;
		/* the point's preparation is reserved outside its share,
		 * and ms_point_run counts it inside its window */
		p = sweep_point(sw, sp->vcpus, sp->cache, 0,
				share + sweep_prep_est(sw, sp->cache) +
				sweep_hold_est(sw, sp));
		if (sp->cache == STG_CACHE_RAM && sp->ram_bytes)
			p.ram_bytes = sp->ram_bytes;
		/* a state an earlier point left may hold: a sample says */
		p.already_ok = sp->cache == STG_CACHE_WARM ? warm_done :
			       sw->cold_held;
		sweep_progress(sw, "point %zu: %u vCPU%s, %s%s, %.0f s", ++count,
			       sp->vcpus, sp->vcpus == 1 ? "" : "s",
			       stg_cache_state_name(sp->cache),
			       sp->ram_axis ? " (RAM axis)" : "", share);
		err = ms_point_run(&p, sp->res, &sp->out);
		if (sp->cache == STG_CACHE_WARM)
			warm_done = true;
		if (sp->out.prep.prep_s > 0) {
			/* a kept state says little of what making it costs */
			if (!sp->out.prep.reused)
				sw->prep_seen[sp->cache] = sp->out.prep.prep_s;
			sw->prep_total_s += sp->out.prep.prep_s;
		}
		ms_prep_phases_add(&sw->ph, &sp->out.prep.ph);
		/* O_DIRECT reads leave the page cache as they found it: the
		 * next cold or ram point may find it still evicted */
		sw->cold_held = sp->cache == STG_CACHE_COLD && native &&
				!sp->out.odirect_refused &&
				!sp->out.prep.evict_ineffective &&
				(sw->cold_held || !sp->out.prep.note[0]);
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
		if (sp->out.odirect_refused && !odirect_noted) {
			/* one filesystem: said once */
			sweep_note(sw, "cold: %s", sp->out.odirect_why);
			odirect_noted = true;
		}
		if (err == -ETIMEDOUT && sp->out.rep.stalled) {
			sweep_stalled(sw, &sp->out);
			snprintf(sp->why, sizeof(sp->why), "the storage stalled "
				 "during the %s",
				 stg_phase_name(sp->out.rep.stall.phase));
			rc = sweep_interrupted(sw, i + 1);
			break;
		}
		if (err == -EINTR) {
			rc = sweep_interrupted(sw, i + 1);
			break;
		}
	}
	ms_sweep_sample_text(sw, sampled, sizeof(sampled));
	if (sampled[0])
		sweep_note(sw, "%s", sampled);
	return rc;
}

/* Has state C a measured point (its check runs are still to come)? */
static bool sweep_state_measured(const struct ms_sweep *sw,
				 enum stg_cache_state c)
{
	for (size_t i = 0; i < sw->npts; i++)
		if (sw->pts[i].cache == c &&
		    sw->pts[i].status == MS_SWEEP_MEASURED)
			return true;
	return false;
}

/*
 * Seconds a check run of state C may take now, and (*RESERVED) whether it
 * uses one of C's reserved runs; <= 0 none.
 */
/* A check run's length: as planned, shortened where the budget is
 * short; MS_CONFIRM_S before any plan kept one. */
static double sweep_check_len(const struct ms_sweep *sw)
{
	return sw->confirm_len_s > 0 ? sw->confirm_len_s : MS_CONFIRM_S;
}

/* Seconds the other states' reserved check runs need. */
static double sweep_others_reserved(const struct ms_sweep *sw,
				    enum stg_cache_state c)
{
	double s = 0;

	for (int k = 0; k < STG_CACHE_STATES; k++)
		if (k != (int)c)
			s += sw->confirm_left[k] * sweep_check_len(sw);
	return s;
}

static double sweep_check_time(const struct ms_sweep *sw,
			       enum stg_cache_state c, bool *reserved)
{
	double left = sweep_left(sw);

	*reserved = sw->confirm_left[c] > 0;
	if (*reserved)
		return left;
	/* an extra run: what the other states' reserved runs leave */
	for (int k = 0; k < STG_CACHE_STATES; k++)
		if (k != (int)c && sweep_state_measured(sw,
					(enum stg_cache_state)k))
			left -= sw->confirm_left[k] * sweep_check_len(sw);
	return left;
}

int ms_sweep_check(struct ms_sweep *sw, unsigned vcpus,
		   enum stg_cache_state c, unsigned gpus, struct ms_check *out)
{
	const volatile int *stop = sw->cfg.base.stop;
	struct ms_point_out po;
	struct ldr_result *res;
	struct ms_point p;
	double window = sweep_check_len(sw), left;
	bool reserved;

	memset(out, 0, sizeof(*out));
	if (!gpus) {
		snprintf(out->why, sizeof(out->why), "0 GPUs: nothing to check");
		return 0;
	}
	if (sw->cfg.no_check || (stop && *stop) || sw->stalled) {
		snprintf(out->why, sizeof(out->why), "%s", sw->cfg.no_check ?
			 "--no-check" : sw->stalled ? "the storage stalled" :
			 "interrupted");
		return 0;
	}
	left = sweep_check_time(sw, c, &reserved);
	if (left < window - 1e-9 || gpus > WL_GPUS_MAX) {
		snprintf(out->why, sizeof(out->why), "%s", gpus > WL_GPUS_MAX ?
			 "too many GPUs to emulate" : "no time left in the "
			 "budget");
		return 0;
	}
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	/* a ram check runs twice as long (a fill epoch first), within what
	 * the other states' reserved runs leave */
	if (c == STG_CACHE_RAM)
		window = fmax(window, fmin(left - sweep_others_reserved(sw,
								      c),
					   2 * window));
	p = sweep_point(sw, vcpus, c, gpus, window);
	/* the warm points left the dataset resident, a cold one evicted:
	 * re-made only when a sample says it is not so */
	p.already_ok = true;
	sweep_progress(sw, "check: %u GPU%s, %u vCPU%s, %s", gpus,
		       gpus == 1 ? "" : "s", vcpus, vcpus == 1 ? "" : "s",
		       stg_cache_state_name(c));
	if (ms_point_run(&p, res, &po) == -ETIMEDOUT && po.rep.stalled)
		sweep_stalled(sw, &po);
	if (reserved)
		sw->confirm_left[c]--;
	if (po.prep.prep_s > 0)
		sw->prep_total_s += po.prep.prep_s;
	ms_prep_phases_add(&sw->ph, &po.prep.ph);
	sw->cold_held = false;
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

bool ms_check_next(const struct ms_check_done *done, size_t n,
		   unsigned computed, double au_threshold, size_t max_runs,
		   unsigned *next)
{
	struct jdg_check_run r[JDG_CHECK_RUNS_MAX];

	/* the walk is judge's; a sweep never runs more than RPT_CHECKS_MAX */
	if (n > JDG_CHECK_RUNS_MAX)
		n = JDG_CHECK_RUNS_MAX;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct jdg_check_run){ .run = done[i].run,
			.gpus = done[i].gpus, .au = done[i].au };
	return jdg_check_next(r, n, computed, au_threshold, max_runs, next);
}

bool ms_sweep_top_dropped(const struct ms_sweep *sw, enum stg_cache_state c)
{
	for (size_t i = 0; i < sw->npts; i++) {
		const struct ms_sweep_point *p = &sw->pts[i];

		if (p->cache == c && p->vcpus == sw->top_vcpus &&
		    !p->ram_axis && p->status == MS_SWEEP_DROPPED)
			return true;
	}
	return false;
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
