/*
 * fuzz_ini.c - libFuzzer target for the job-file loader (workloads/
 * jobfile.c): the input is a job file's text, as is (NUL bytes, long
 * lines, any bytes). Seeds: the built-in job files.
 *
 * Checks: no crash and no leak (ASan); a result is either a workload
 * whose every string and demand row is set, or -EINVAL / -ENOMEM with a
 * message naming the file; what loads, loads again the same.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct wl_workload *w = NULL, *again = NULL;
	char why[512];
	int err = wl_job_parse("f.ini", (const char *)data, size, &w, why,
			       sizeof(why));

	if (err) {
		if ((err != -EINVAL && err != -ENOMEM) || w ||
		    strncmp(why, "f.ini", 5))
			abort();
		return 0;
	}
	if (!w || why[0] || !w->name || !w->description || !w->layout ||
	    !w->file_ext || !w->stats_source || !w->au_source ||
	    !w->transform || strcmp(w->job_file, "f.ini") || !w->ndemand ||
	    !(w->au_threshold > 0 && w->au_threshold <= 1))
		abort();
	for (size_t i = 0; i < w->ndemand; i++) {
		const struct wl_demand *d = &w->demand[i];

		if (!d->gpu || !d->gpu_detail || !d->source ||
		    !(d->samples_per_s > 0))
			abort();
	}
	if (wl_job_parse("f.ini", (const char *)data, size, &again, NULL, 0) ||
	    strcmp(again->name, w->name) || again->ndemand != w->ndemand ||
	    again->demand[0].samples_per_s != w->demand[0].samples_per_s)
		abort();
	wl_job_free(again);
	wl_job_free(w);
	return 0;
}
