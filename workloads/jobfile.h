/*
 * jobfile.h - workloads defined in job files: INI text (read with libinih)
 * that names a workload's format, generator, transform and its
 * parameters, batch, AU threshold and GPU demand rows with their sources.
 * The built-in workloads are job files too (workloads/jobs/NAME.ini, compiled
 * in and parsed once behind wl_count/wl_at/wl_find); the schema is in
 * docs/job-files.md.
 *
 * A loaded workload owns every string it points to; wl_job_free releases
 * it. Loading is pure (no global state): any thread may load.
 */
#ifndef FEEDRATE_JOBFILE_H
#define FEEDRATE_JOBFILE_H

#include <stddef.h>

#include "keys.h"
#include "workloads.h"

/* Largest job file read, in bytes (a workload needs a few KB). */
#define WL_JOB_MAX_BYTES (1u << 20)

/*
 * Parses job-file TEXT (LEN bytes; need not be NUL-terminated) into a new
 * workload in *OUT, whose job_file is NAME (e.g. "builtin:imagenet.ini" or
 * a path). Returns 0, -EINVAL (the text is not a valid job file) or
 * -ENOMEM, with one line for the user in WHY (WHY_LEN bytes, may be NULL;
 * "" on success): "NAME:LINE: key 'K': reason", "NAME:LINE: [SECTION]:
 * reason", or for a missing required key "NAME: [SECTION] needs K". The
 * first error in the file is the one reported. Any thread.
 */
int wl_job_parse(const char *name, const char *text, size_t len,
		 const struct wl_workload **out, char *why, size_t why_len);

/*
 * Reads the job file at PATH (at most WL_JOB_MAX_BYTES) and parses it as
 * wl_job_parse does, NAME being PATH. Returns 0, wl_job_parse's errors, or
 * the file's: -ENOENT, -EISDIR (a folder), -EACCES, -EFBIG (too large),
 * -errno of open/read; WHY then says "PATH: reason". Any thread.
 */
int wl_job_load(const char *path, const struct wl_workload **out, char *why,
		size_t why_len);

/* Frees a workload wl_job_parse or wl_job_load made; accepts NULL. Never
 * call it on an entry of the built-in table (wl_at, wl_find). */
void wl_job_free(const struct wl_workload *w);

/* The key table of a job file's section NAME ("workload", "transform" or
 * "demand": every [demand KIND GPU] row): rows of the key engine
 * (keys.h), whose uses are the transform kinds (1 << enum wl_xform) that
 * take the key, 0 for every one; *N gets how many. NULL for another
 * NAME. */
const struct wl_key *wl_job_keys(const char *name, size_t *n);

#endif /* FEEDRATE_JOBFILE_H */
