/*
 * wl_resolve.c - what --workload names: a built-in workload, or a job
 * file loaded and kept until the process ends (the run points into it).
 * One command thread calls it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jobfile.h"
#include "workloads.h"

/* The job file wl_workload_resolve loaded last. */
static const struct wl_workload *job_loaded;

const char *wl_job_loaded(void)
{
	return job_loaded ? job_loaded->job_file : NULL;
}

/* NAME names a job file rather than a built-in: a path with a '/', a
 * name ending in .ini, or a file that exists. */
static bool names_a_file(const char *name)
{
	const size_t n = strlen(name);

	return strchr(name, '/') || (n > 4 && !strcmp(name + n - 4, ".ini")) ||
	       !access(name, F_OK);
}

int wl_workload_resolve(const char *name, const struct wl_workload **w,
			char *why, size_t why_len)
{
	char names[256], job_why[1024];
	int err;

	if (!wl_find(name, w))
		return 0;
	if (!names_a_file(name)) {
		wl_names(names, sizeof(names));
		snprintf(why, why_len, "unknown workload '%s' (valid: %s)",
			 name, names);
		return -EINVAL;
	}
	err = wl_job_load(name, w, job_why, sizeof(job_why));
	if (err == -ENOMEM)
		return err;
	if (err) {
		snprintf(why, why_len, "--workload: %s", job_why);
		return -EINVAL;
	}
	wl_job_free(job_loaded);
	job_loaded = *w;
	return 0;
}
