/*
 * workloads_internal.h - declarations shared between workloads/ files only.
 */
#ifndef FEEDRATE_WORKLOADS_INTERNAL_H
#define FEEDRATE_WORKLOADS_INTERNAL_H

#include "workloads.h"

/* The built-in job files (workloads/jobs/NAME.ini, imagenet.ini first), as
 * the Makefile embeds them (build/<cfg>/gen/wl_jobs.c). */
struct wl_job_text {
	const char *name;               /* "imagenet.ini" */
	const unsigned char *text;
	size_t len;
};
extern const struct wl_job_text wl_job_builtins[];
extern const size_t wl_job_nbuiltins;

#endif /* FEEDRATE_WORKLOADS_INTERNAL_H */
