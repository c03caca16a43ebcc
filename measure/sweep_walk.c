/*
 * sweep_walk.c - the sweep's walks above its points: the check runs of
 * one cache state (G and G + 1 GPUs, then down or up as ms_check_next
 * says, while time is left) and --pipeline LIST's pipelines one after the
 * other, sharing the budget equally.
 */
#include <errno.h>

#include "measure.h"

int ms_sweep_checks(struct ms_sweep *sw, unsigned vcpus,
		    enum stg_cache_state c, unsigned computed,
		    double au_threshold, struct ms_check *checks,
		    unsigned *gpus, size_t max, size_t *n)
{
	struct ms_check_done done[MS_CHECKS_MAX];
	unsigned next;

	*n = 0;
	if (max > MS_CHECKS_MAX)
		max = MS_CHECKS_MAX;
	while (ms_check_next(done, *n, computed, au_threshold, max, &next)) {
		struct ms_check *ck = &checks[*n];

		if (ms_sweep_check(sw, vcpus, c, next, ck))
			return -ENOMEM;
		gpus[*n] = next;
		done[(*n)++] = (struct ms_check_done){ .gpus = next,
			.run = ck->run, .au = ck->au };
	}
	return 0;
}

unsigned ms_pipeline_first(const struct ms_pipeline_spec *pipes, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (pipes[i].kind == MS_PIPELINE_NATIVE)
			return i;
	return 0;
}

int ms_sweep_pipelines(unsigned n, unsigned first, double total_s,
		       volatile sig_atomic_t *stop,
		       int (*measure)(void *arg, unsigned i, double budget_s),
		       void *arg, unsigned *done)
{
	const double each = total_s / n;
	int ret = measure(arg, first, each);

	*done = !ret;
	for (unsigned i = 0; !ret && i < n && !*stop; i++) {
		if (i == first)
			continue;
		ret = measure(arg, i, each);
		*done += !ret;
	}
	return ret;
}
