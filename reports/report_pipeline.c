/*
 * report_pipeline.c - which pipeline a report's numbers are for: the
 * "pipeline" object of run and sweep reports, a Python runner's lines in
 * the text report, and (sweep) the verdict drawn for each pipeline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "measure.h"
#include "report.h"
#include "rpt_html.h"
#include "rpt_json.h"
#include "report_sweep.h"

/* S cut by snprintf: drop a last UTF-8 character left incomplete. */
static void utf8_trim(char *s)
{
	size_t n = strlen(s), i = n, need;
	unsigned char c;

	while (i > 0 && n - i < 4 &&
	       ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (!i)
		return;
	c = (unsigned char)s[i - 1];
	if (c < 0xc0)
		return;         /* ASCII, or no lead byte: left as it is */
	need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	if (n - (i - 1) < need)
		s[i - 1] = '\0';
}

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
	json_object_set_new(o, "name", rpt_json_path(name && *name ? name :
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
	json_object_set_new(o, "cpu_s", json_pack("{s:o,s:o}",
		"main", rpt_jnum(py->main_cpu_s), "workers", rpt_jnum(py->workers_cpu_s)));
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

/* ---- one verdict per pipeline (sweep, compare) ---- */

static const struct rpt_sweep *pipe_at(const struct rpt_sweep *s, size_t i)
{
	if (i == 0)
		return s;
	return i <= s->nothers ? s->others[i - 1] : NULL;
}

/* The state every pipeline of S judged: warm, ram, cold; -1 none. */
static int pipe_state(const struct rpt_sweep *s)
{
	static const enum stg_cache_state order[] = {
		STG_CACHE_WARM, STG_CACHE_RAM, STG_CACHE_COLD,
	};

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		bool all = true;

		for (size_t i = 0; i <= s->nothers; i++)
			all &= pipe_at(s, i)->v.cache[order[k]].measured;
		if (all)
			return (int)order[k];
	}
	/* none in common: the first state S itself judged */
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		if (s->v.cache[order[k]].measured)
			return (int)order[k];
	return -1;
}

bool rpt_pipeline_verdict_get(const struct rpt_sweep *s, size_t i,
			      struct rpt_pipeline_verdict *out)
{
	const struct rpt_sweep *p = pipe_at(s, i);
	const struct rpt_cache_verdict *cv;
	const int c = pipe_state(s);
	const char *name;

	memset(out, 0, sizeof(*out));
	if (!p)
		return false;
	name = p->pipeline_name && *p->pipeline_name ? p->pipeline_name :
	       "native";
	out->name = name;
	out->headline = p->v.headline;
	out->cache = c >= 0 && p->v.cache[c].measured ? c : -1;
	out->vcpus_per_gpu = -1;
	out->cpu_s_per_sample = -1;
	snprintf(out->label, sizeof(out->label), "%s", name);
	utf8_trim(out->label);
	if (out->cache < 0)
		return true;
	cv = &p->v.cache[c];
	out->vcpus = cv->vcpus_top;
	out->gpus_fed = cv->gpus_fed;
	out->vcpus_per_gpu = cv->vcpus_per_gpu;
	out->cpu_s_per_sample = cv->cpu_s_per_sample > 0 ?
				cv->cpu_s_per_sample : -1;
	if (strcmp(name, "native")) {
		const unsigned w = p->pipeline_workers ? p->pipeline_workers :
				   cv->vcpus_top > 1 ? cv->vcpus_top - 1 : 1;

		if (!strcmp(name, "torch"))
			snprintf(out->label, sizeof(out->label), "torch "
				 "(PyTorch %s DataLoader, %u worker%s)",
				 p->py && p->py->torch[0] ? p->py->torch : "?",
				 w, w == 1 ? "" : "s");
		else
			snprintf(out->label, sizeof(out->label), "%.100s (%u "
				 "worker%s asked)", name, w, w == 1 ? "" : "s");
	}
	utf8_trim(out->label);
	return true;
}

const char *rpt_pipelines_line(const struct rpt_pipeline_verdict *v,
			       size_t n, const char *gpu, char *buf,
			       size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		const double base = v[0].cpu_s_per_sample;
		int k;

		if (v[i].cache < 0)
			k = snprintf(buf + used, len - used, "%s%s: not judged",
				     i ? "; " : "", v[i].label);
		else
			k = snprintf(buf + used, len - used, "%s%s feeds %u x "
				     "%s", i ? "; " : "", v[i].label,
				     v[i].gpus_fed, gpu && *gpu ? gpu : "GPU");
		if (k < 0)
			break;
		used += (size_t)k;
		if (i && v[i].cache >= 0 && base > 0 &&
		    v[i].cpu_s_per_sample > 0 && used < len) {
			k = snprintf(buf + used, len - used, ": %.1fx the CPU "
				     "per sample", v[i].cpu_s_per_sample / base);
			if (k < 0)
				break;
			used += (size_t)k;
		}
	}
	return buf;
}

void rpt_pipelines_print(FILE *f, const struct rpt_sweep *s)
{
	struct rpt_pipeline_verdict v[8];
	char line[1024];
	size_t n = 0;

	if (!s->nothers)
		return;
	while (n < sizeof(v) / sizeof(v[0]) && rpt_pipeline_verdict_get(s, n,
								&v[n]))
		n++;
	rpt_pipelines_line(v, n, s->gpu_type, line, sizeof(line));
	fprintf(f, "  by pipeline (%s, at each one's largest vCPU count): "
		"%s\n", v[0].cache >= 0 ? stg_cache_state_name(
		(enum stg_cache_state)v[0].cache) : "no state judged", line);
	for (size_t i = 0; i < n; i++) {
		if (v[i].cache < 0)
			continue;
		fprintf(f, "    %-7.60s %u vCPU%s: %u x %s", v[i].name,
			v[i].vcpus, v[i].vcpus == 1 ? "" : "s", v[i].gpus_fed,
			s->gpu_type ? s->gpu_type : "GPU");
		if (v[i].cpu_s_per_sample > 0)
			fprintf(f, ", %.2f ms CPU per sample",
				v[i].cpu_s_per_sample * 1e3);
		if (v[i].vcpus_per_gpu > 0) {
			const struct rpt_cache_verdict *cv =
				&pipe_at(s, i)->v.cache[v[i].cache];

			fprintf(f, ", %.1f vCPUs per GPU%s", v[i].vcpus_per_gpu,
				cv->feed_vcpus && cv->feed_vcpus <
				cv->vcpus_top ?
				" for its workers (its main "
				"process: the reserve)" : "");
		}
		fputc('\n', f);
	}
}

void rpt_pipelines_html(struct rpt_buf *b, const struct rpt_sweep *s)
{
	static const char *const colour[] = {
		"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
	};
	const double w = 560, h = 260, l = 60, r = 150, t = 20, bo = 40;
	struct rpt_pipeline_verdict v[8];
	double ymax = 0;
	unsigned xmax = 1;
	size_t n = 0;
	char line[1024];

	if (!s->nothers)
		return;
	while (n < sizeof(v) / sizeof(v[0]) && rpt_pipeline_verdict_get(s, n,
								&v[n]))
		n++;
	for (size_t i = 0; i < n; i++) {
		const struct rpt_sweep *p = pipe_at(s, i);

		for (size_t k = 0; v[0].cache >= 0 && k < p->npoints; k++) {
			const struct rpt_point *pt = &p->points[k];

			if (pt->status != RPT_POINT_MEASURED ||
			    (int)pt->cache != v[0].cache)
				continue;
			if (pt->samples_per_s > ymax)
				ymax = pt->samples_per_s;
			if (pt->vcpus > xmax)
				xmax = pt->vcpus;
		}
	}
	rpt_pipelines_line(v, n, s->gpu_type, line, sizeof(line));
	rpt_buf_printf(b, "<h2>By pipeline</h2>\n<p>");
	rpt_buf_html(b, line);
	rpt_buf_printf(b, "</p>\n");
	if (v[0].cache < 0 || ymax <= 0)
		return;
	rpt_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		       "width=\"%.0f\" height=\"%.0f\" role=\"img\">\n"
		       "<text x=\"%.0f\" y=\"14\" font-size=\"12\">samples/s "
		       "against vCPUs, %s, one line per pipeline</text>\n",
		       w, h, l, stg_cache_state_name(
		       (enum stg_cache_state)v[0].cache));
	rpt_buf_printf(b, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" "
		       "y2=\"%.0f\" stroke=\"#444\"/>\n<line x1=\"%.0f\" "
		       "y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#444\"/>\n",
		       l, h - bo, w - r, h - bo, l, t, l, h - bo);
	rpt_buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">%.0f"
		       "</text>\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">"
		       "%u vCPUs</text>\n", 4.0, t + 10, ymax, w - r - 40,
		       h - bo + 16, xmax);
	for (size_t i = 0; i < n; i++) {
		const struct rpt_sweep *p = pipe_at(s, i);
		const char *col = colour[i % 5];
		bool first = true;

		rpt_buf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" "
			       "stroke-width=\"2\" points=\"", col);
		for (size_t k = 0; k < p->npoints; k++) {
			const struct rpt_point *pt = &p->points[k];
			double x, y;

			if (pt->status != RPT_POINT_MEASURED ||
			    (int)pt->cache != v[0].cache)
				continue;
			x = l + (w - r - l) * pt->vcpus / xmax;
			y = (h - bo) - (h - bo - t) * pt->samples_per_s / ymax;
			rpt_buf_printf(b, "%s%.1f,%.1f", first ? "" : " ", x, y);
			first = false;
		}
		rpt_buf_printf(b, "\"/>\n<text x=\"%.0f\" y=\"%.0f\" "
			       "font-size=\"11\" fill=\"%s\">", w - r + 6,
			       t + 16 + 14.0 * (double)i, col);
		rpt_buf_html(b, v[i].name);
		rpt_buf_printf(b, "</text>\n");
	}
	rpt_buf_printf(b, "</svg>\n");
}

char *rpt_pipelines_line_json(const json_t *root)
{
	const json_t *verdict = json_object_get(root, "verdict");
	const json_t *by = json_object_get(verdict, "by_pipeline");
	const char *gpu = json_string_value(json_object_get(
		json_object_get(root, "gpus"), "type"));
	struct rpt_pipeline_verdict v[8];
	const char *name;
	char line[1024];
	size_t n = 0;
	json_t *e;

	/* written with several pipelines, or one that is not native */
	if (!json_is_object(by) || !json_object_size(by))
		return NULL;
	/* the report's own pipeline first: the CPU ratio is against it */
	json_object_foreach((json_t *)by, name, e) {
		const json_t *fed = json_object_get(e, "gpus_fed");
		const json_t *cpu = json_object_get(e, "cpu_s_per_sample");
		const char *label = json_string_value(json_object_get(e,
								      "label"));

		if (n >= sizeof(v) / sizeof(v[0]))
			break;
		memset(&v[n], 0, sizeof(v[n]));
		v[n].name = name;
		snprintf(v[n].label, sizeof(v[n].label), "%s",
			 label ? label : name);
		utf8_trim(v[n].label);
		v[n].cache = json_is_integer(fed) ? 0 : -1;
		v[n].gpus_fed = (unsigned)json_integer_value(fed);
		v[n].cpu_s_per_sample = json_is_number(cpu) ?
					json_number_value(cpu) : -1;
		n++;
	}
	rpt_pipelines_line(v, n, gpu, line, sizeof(line));
	return strdup(line);
}
