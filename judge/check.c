/*
 * check.c - the check-run walk: what the runs with emulated GPUs make of
 * the computed count (jdg_check_walk), and which run the sweep makes next
 * (jdg_check_next). One walk, so the runs and the verdict agree.
 */
#include <string.h>

#include "judge.h"

/* A run that ran, fed at the threshold. */
static bool run_fed(const struct jdg_check_run *r, double thr)
{
	return r->run && jdg_fed(r->au, thr);
}

/* The run with WANT GPUs among the N chosen BY, or NULL. */
static const struct jdg_check_run *run_of(const struct jdg_check_run *const *by,
					  size_t n, unsigned want)
{
	for (size_t i = 0; i < n; i++)
		if (by[i]->gpus == want)
			return by[i];
	return NULL;
}

void jdg_check_walk(unsigned computed, const struct jdg_check_run *runs,
		    size_t n, unsigned vcpus_top, double au_threshold,
		    struct jdg_check *out)
{
	const struct jdg_check_run *by[JDG_CHECKS_MAX * 2];
	bool used[JDG_CHECKS_MAX * 2] = { false };
	const size_t cap = sizeof(by) / sizeof(by[0]);
	const unsigned g = computed;
	const struct jdg_check_run *r0, *r1, *r;
	size_t nby = 0;

	memset(out, 0, sizeof(*out));
	out->gpus_fed = g;
	out->confirmation = JDG_CONF_NONE;
	out->used_g = out->used_g1 = -1;
	if (n > JDG_CHECK_RUNS_MAX)
		n = JDG_CHECK_RUNS_MAX;
	/* the first valid run of each GPU count, at the verdict's vCPUs */
	for (size_t i = 0; i < n && i < cap; i++) {
		r = &runs[i];
		if (!r->run || (vcpus_top && r->vcpus && r->vcpus != vcpus_top) ||
		    !r->gpus || run_of(by, nby, r->gpus))
			continue;
		by[nby++] = r;
	}
	r0 = g >= 1 ? run_of(by, nby, g) : NULL;
	r1 = run_of(by, nby, g + 1);
	if (r0 && !jdg_fed(r0->au, au_threshold)) {
		/* walk down to the largest count fed: tested, or untested
		 * when the runs stop before it */
		unsigned k = g - 1;

		out->confirmation = JDG_CONF_LOWERED;
		while (k > 0 && (r = run_of(by, nby, k)) &&
		       !jdg_fed(r->au, au_threshold))
			k--;
		out->gpus_fed = k;
		out->lowered_untested = k > 0 && !run_of(by, nby, k);
	} else if (r1 && jdg_fed(r1->au, au_threshold)) {
		unsigned k = g + 1;

		while ((r = run_of(by, nby, k + 1)) &&
		       jdg_fed(r->au, au_threshold))
			k++;
		out->gpus_fed = k;
		out->confirmation = JDG_CONF_RAISED;
	} else if (r1 && (g == 0 || r0)) {
		out->confirmation = JDG_CONF_CONFIRMED;
	}
	/* which runs the rule consulted: G, G + 1, and the walk */
	for (size_t i = 0; i < nby; i++) {
		const unsigned c = by[i]->gpus;

		used[i] = by[i] == r0 || by[i] == r1 ||
			  (out->confirmation == JDG_CONF_LOWERED &&
			   c < g && c >= out->gpus_fed) ||
			  (out->confirmation == JDG_CONF_RAISED &&
			   c > g && c <= out->gpus_fed + 1);
	}
	for (size_t i = 0; i < n; i++) {
		enum jdg_ignored why = JDG_IGN_USED;
		size_t k;

		r = &runs[i];
		if (!r->run)
			continue;
		for (k = 0; k < nby && by[k] != r; k++)
			;
		if (k < nby && used[k])
			out->used_mask |= 1u << i;
		if (r == r0)
			out->used_g = (int)i;
		else if (r == r1)
			out->used_g1 = (int)i;
		if (vcpus_top && r->vcpus && r->vcpus != vcpus_top)
			why = JDG_IGN_VCPUS;
		else if (!r->gpus)
			why = JDG_IGN_ZERO;
		else if (k == nby)
			why = JDG_IGN_SECOND;
		else if (!used[k])
			why = JDG_IGN_OTHER;
		out->why[i] = (uint8_t)why;
		out->ignored += why != JDG_IGN_USED;
	}
}

bool jdg_check_next(const struct jdg_check_run *done, size_t n,
		    unsigned computed, double au_threshold, size_t max_runs,
		    unsigned *next)
{
	const struct jdg_check_run *low = NULL, *high = NULL;
	const double thr = jdg_threshold(au_threshold);
	bool g_refuted, g1_fed;

	if (n >= max_runs)
		return false;
	if (n < 2) {
		*next = computed + (unsigned)n;
		return true;
	}
	g_refuted = done[0].run && !run_fed(&done[0], thr);
	g1_fed = run_fed(&done[1], thr);
	for (size_t i = 0; i < n; i++) {
		if (!low || done[i].gpus < low->gpus)
			low = &done[i];
		if (!high || done[i].gpus > high->gpus)
			high = &done[i];
	}
	if (g_refuted && !g1_fed) {
		/* walk down while the fewest tried is not fed */
		if (!low->run || run_fed(low, thr) || low->gpus <= 1)
			return false;
		*next = low->gpus - 1;
		return true;
	}
	if (g1_fed && !g_refuted) {
		/* walk up while the most tried is fed */
		if (!run_fed(high, thr))
			return false;
		*next = high->gpus + 1;
		return true;
	}
	return false;
}
