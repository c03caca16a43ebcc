/*
 * report_pipeline.c - which pipeline a report's numbers are for: the
 * "pipeline" object of run and sweep reports, a Python runner's lines in
 * the text report, and (sweep) the verdict drawn for each pipeline.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "measure.h"
#include "report.h"

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

json_t *rpt_pipeline_json(const char *name, const char *desc,
			  unsigned workers, const struct ms_python_info *py)
{
	json_t *o = json_object();
	json_t *procs;

	if (!o)
		return NULL;
	json_object_set_new(o, "name", json_string(name && *name ? name :
						       "native"));
	json_object_set_new(o, "description", rpt_json_path(desc ? desc : ""));
	json_object_set_new(o, "workers", json_integer(py && py->workers ?
						       py->workers : workers));
	if (!py) {
		json_object_set_new(o, "versions", json_null());
		return o;
	}
	json_object_set_new(o, "interpreter", rpt_json_path(py->interpreter));
	json_object_set_new(o, "versions", json_pack("{s:o,s:o,s:o,s:o,s:o}",
		"python", str_or_null(py->python),
		"torch", str_or_null(py->torch),
		"torchvision", str_or_null(py->torchvision),
		"pillow", str_or_null(py->pillow),
		"libjpeg", str_or_null(py->libjpeg)));
	json_object_set_new(o, "cpu_s", json_pack("{s:f,s:f}",
		"main", py->main_cpu_s, "workers", py->workers_cpu_s));
	procs = json_array();
	for (unsigned i = 0; procs && i < py->nprocs; i++) {
		const struct ms_python_proc *p = &py->procs[i];

		json_array_append_new(procs, json_pack("{s:i,s:s,s:o,s:o}",
			"pid", p->pid, "role", p->worker ? "worker" : "main",
			"cpus", rpt_json_path(p->cpus),
			"cgroup", rpt_json_path(p->cgroup)));
	}
	json_object_set_new(o, "processes", procs ? procs : json_null());
	return o;
}

void rpt_pipeline_print(FILE *f, const struct ms_python_info *py)
{
	unsigned workers = 0;

	if (!py)
		return;
	fprintf(f, "  python     %s\n", py->interpreter);
	for (unsigned i = 0; i < py->nprocs; i++)
		workers += py->procs[i].worker;
	if (py->nprocs) {
		const struct ms_python_proc *m = &py->procs[0];
		bool same = true;

		for (unsigned i = 1; i < py->nprocs; i++)
			same &= !strcmp(py->procs[i].cpus, m->cpus) &&
				!strcmp(py->procs[i].cgroup, m->cgroup);
		fprintf(f, "  processes  main pid %d and %u worker%s: %s on "
			"CPUs %s, cgroup %s\n", m->pid, workers,
			workers == 1 ? "" : "s", same ? "all" : "NOT all",
			m->cpus, m->cgroup[0] ? m->cgroup : "?");
		for (unsigned i = 1; !same && i < py->nprocs; i++)
			fprintf(f, "    pid %d: CPUs %s, cgroup %s\n",
				py->procs[i].pid, py->procs[i].cpus,
				py->procs[i].cgroup);
	}
	if (!py->done)
		return;
	fprintf(f, "  stages     not split: reading, decoding and augmenting "
		"happen inside the loader's worker processes (CPU: main "
		"%.2f s, workers %.2f s in the window)\n", py->main_cpu_s,
		py->workers_cpu_s);
}
