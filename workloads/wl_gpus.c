/*
 * wl_gpus.c - the --gpus spec ("8xA100", "A100", "0") against a workload's
 * demand table, and the lists of GPU names that error messages show.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "workloads.h"

const struct wl_demand *wl_demand_default(const struct wl_workload *w,
					  enum wl_demand_kind kind)
{
	if (!w)
		return NULL;
	for (size_t i = 0; i < w->ndemand; i++)
		if (w->demand[i].kind == kind)
			return &w->demand[i];
	return NULL;
}

size_t wl_gpu_names(const struct wl_workload *w, enum wl_demand_kind kind,
		    char *buf, size_t len)
{
	size_t need = 0;

	if (len)
		buf[0] = '\0';
	if (!w)
		return 0;
	for (size_t i = 0; i < w->ndemand; i++) {
		bool seen = false;
		int n;

		if (w->demand[i].kind != kind)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = w->demand[j].kind == kind &&
			       !strcasecmp(w->demand[j].gpu, w->demand[i].gpu);
		if (seen)
			continue;
		n = snprintf(len > need ? buf + need : NULL,
			     len > need ? len - need : 0, "%s%s",
			     need ? ", " : "", w->demand[i].gpu);
		if (n > 0)
			need += (size_t)n;
	}
	return need;
}

/* Does any row of W, of any kind, carry the name GPU? */
static bool gpu_known(const struct wl_workload *w, const char *gpu)
{
	for (size_t i = 0; i < w->ndemand; i++)
		if (!strcasecmp(w->demand[i].gpu, gpu))
			return true;
	return false;
}

/* Split "8xA100" / "8*A100" into a count and a name; a bare name is 1. */
static int split_spec(const char *s, unsigned long *count, const char **name)
{
	const char *p = s;
	unsigned long n = 0;

	while (isdigit((unsigned char)*p)) {
		n = n * 10 + (unsigned long)(*p - '0');
		if (n > WL_GPUS_MAX)
			return -ERANGE;
		p++;
	}
	if (p == s) {                   /* "A100": one GPU */
		*count = 1;
		*name = s;
		return 0;
	}
	*count = n;
	if (*p == '\0') {               /* "8": the default type */
		*name = NULL;
		return 0;
	}
	if (*p != 'x' && *p != 'X' && *p != '*')
		return -EINVAL;
	*name = p + 1;
	return **name ? 0 : -EINVAL;
}

int wl_gpu_spec_parse(const struct wl_workload *w, const char *spec,
		      enum wl_demand_kind kind, struct wl_gpu_spec *out,
		      char *why, size_t why_len)
{
	char names[512];
	const char *name;
	unsigned long count;
	int err;

	if (why && why_len)
		why[0] = '\0';
	if (!w || !spec || !out)
		return -EINVAL;
	wl_gpu_names(w, kind, names, sizeof(names));
	err = split_spec(spec, &count, &name);
	if (err == -ERANGE) {
		if (why)
			snprintf(why, why_len, "--gpus '%s': at most %u GPUs",
				 spec, WL_GPUS_MAX);
		return -EINVAL;
	}
	if (err || (name && (!*name || isspace((unsigned char)*name)))) {
		if (why)
			snprintf(why, why_len, "--gpus '%s': expected COUNTxGPU "
				 "(e.g. 8xA100), GPU or COUNT; known GPUs for "
				 "%s: %s", spec, w->name, names);
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->count = (unsigned)count;
	out->type_given = name != NULL;
	out->row = name ? wl_demand_find(w, name, kind) :
			  wl_demand_default(w, kind);
	if (out->row)
		return 0;
	if (!name) {
		if (why)
			snprintf(why, why_len, "workload %s has no %s demand "
				 "row; use --gpu-rate", w->name,
				 wl_demand_kind_name(kind));
		return -ENODATA;
	}
	if (gpu_known(w, name)) {
		if (why)
			snprintf(why, why_len, "--gpus '%s': %s has no %s "
				 "demand figure for %s; GPUs with one: %s",
				 spec, name, wl_demand_kind_name(kind), w->name,
				 names);
		return -ENODATA;
	}
	if (why)
		snprintf(why, why_len, "--gpus '%s': unknown GPU '%s'; known "
			 "GPUs for %s (%s demand): %s, or give --gpu-rate",
			 spec, name, w->name, wl_demand_kind_name(kind), names);
	return -ENOENT;
}
