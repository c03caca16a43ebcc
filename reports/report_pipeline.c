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

const char *rpt_pipeline_text(const struct ms_pipeline_spec *ps,
			      const struct ms_python_info *py,
			      const char *native_desc, unsigned workers,
			      char *buf, size_t len)
{
	char ver[256] = "", w[64];

	if (!ms_pipeline_is_python(ps)) {
		/* the engine's transform in words (gpu-decode's too) */
		snprintf(buf, len, "%s", native_desc ? native_desc : "native");
		return buf;
	}
	if (py && py->python[0])
		snprintf(ver, sizeof(ver), " (Python %s%s%s%s%s%s%s%s%s)",
			 py->python, py->torch[0] ? ", PyTorch " : "",
			 py->torch, py->torchvision[0] ? ", torchvision " : "",
			 py->torchvision, py->pillow[0] ? ", Pillow " : "",
			 py->pillow, py->libjpeg[0] ? " with " : "",
			 py->libjpeg);
	if (workers)
		snprintf(w, sizeof(w), "%u worker process%s", workers,
			 workers == 1 ? "" : "es");
	else
		snprintf(w, sizeof(w), "the point's vCPUs - 1 worker "
			 "processes (at least 1)");
	if (ps->kind == MS_PIPELINE_TORCH)
		snprintf(buf, len, "torch: torchvision ImageFolder + PIL "
			 "RandomResizedCrop(224), RandomHorizontalFlip, "
			 "ToTensor, Normalize; DataLoader%s, %s", ver, w);
	else
		snprintf(buf, len, "python:%s: its make_loader()%s, %s asked",
			 ps->file, ver, w);
	return buf;
}

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
	out->vcpus_per_gpu_reserved = -1;
	out->cpu_s_per_sample = -1;
	out->gd = p->gd.path ? &p->gd : NULL;
	if (p->v.cache[STG_CACHE_COLD].measured)
		out->cold_limiting = p->v.cache[STG_CACHE_COLD].limiting;
	snprintf(out->label, sizeof(out->label), "%s", name);
	utf8_trim(out->label);
	if (out->cache < 0)
		return true;
	cv = &p->v.cache[c];
	out->vcpus = cv->vcpus_top;
	out->gpus_fed = cv->gpus_fed;
	out->vcpus_per_gpu = cv->vcpus_per_gpu;
	out->limiting = cv->limiting;
	if (cv->vcpus_per_gpu > 0)
		out->vcpus_per_gpu_reserved = cv->vcpus_per_gpu +
			(s->reserve_vcpus_per_gpu >= 0 ? s->reserve_vcpus_per_gpu :
			 RPT_RESERVE_VCPUS_PER_GPU);
	out->cpu_s_per_sample = cv->cpu_s_per_sample > 0 ?
				cv->cpu_s_per_sample : -1;
	if (out->gd) {
		snprintf(out->label, sizeof(out->label), "%s (modelled: GPU "
			 "decoding)", name);
	} else if (strcmp(name, "native")) {
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

bool rpt_pipeline_storage_bound(const struct rpt_pipeline_verdict *v)
{
	return (v->limiting && !strcmp(v->limiting, "storage")) ||
	       (v->cold_limiting && !strcmp(v->cold_limiting, "storage"));
}

/* The native pipeline's index among V[0..N), or N. */
static size_t native_at(const struct rpt_pipeline_verdict *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, "native"))
			return i;
	return n;
}

/* CPU saved per sample by V[I] (gpu-decode) against native, in *MS and
 * *PCT; false when either is unknown. */
static bool gpu_decode_saved(const struct rpt_pipeline_verdict *v, size_t n,
			     size_t i, double *ms, double *pct)
{
	const size_t k = native_at(v, n);

	if (k == n || v[k].cpu_s_per_sample <= 0 ||
	    v[i].cpu_s_per_sample <= 0)
		return false;
	*ms = (v[k].cpu_s_per_sample - v[i].cpu_s_per_sample) * 1e3;
	*pct = 100 * (1 - v[i].cpu_s_per_sample / v[k].cpu_s_per_sample);
	return true;
}

/* A gpu-decode pipeline's lines of the by-pipeline verdict (V[I]). */
static void gpu_decode_lines(FILE *f, const struct rpt_pipeline_verdict *v,
			     size_t n, size_t i, double demand)
{
	const size_t k = native_at(v, n);
	char text[1024];
	double ms, pct;

	fprintf(f, "      %s\n", rpt_gpu_decode_modelled(v[i].gd, text,
							 sizeof(text)));
	if (gpu_decode_saved(v, n, i, &ms, &pct))
		fprintf(f, "      GPU decoding (%s) saves %.2f ms CPU per "
			"sample against native (%.0f %%)%s", v[i].gd->path, ms,
			pct, v[k].vcpus_per_gpu > 0 &&
			v[i].vcpus_per_gpu > 0 ? ": " : "\n");
	if (gpu_decode_saved(v, n, i, &ms, &pct) && v[k].vcpus_per_gpu > 0 &&
	    v[i].vcpus_per_gpu > 0)
		fprintf(f, "%.1f instead of %.1f vCPUs per GPU with the "
			"reserve\n", v[i].vcpus_per_gpu_reserved,
			v[k].vcpus_per_gpu_reserved);
	fprintf(f, "      storage becomes the limit: %s (limit %s%s%s; "
		"native's %s%s%s)\n", rpt_pipeline_storage_bound(&v[i]) ?
		"yes" : "no", v[i].limiting ? v[i].limiting : "unknown",
		v[i].cold_limiting ? ", cold " : "", v[i].cold_limiting ?
		v[i].cold_limiting : "", k < n && v[k].limiting ?
		v[k].limiting : "unknown", k < n && v[k].cold_limiting ?
		", cold " : "", k < n && v[k].cold_limiting ?
		v[k].cold_limiting : "");
	if (rpt_gpu_decode_limit(v[i].gd, demand, text, sizeof(text)))
		fprintf(f, "      LIMIT: %s\n", text);
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
	rpt_pipelines_line(v, n, s->setup.gpu_type, line, sizeof(line));
	fprintf(f, "  by pipeline (%s, at each one's largest vCPU count): "
		"%s\n", v[0].cache >= 0 ? stg_cache_state_name(
		(enum stg_cache_state)v[0].cache) : "no state judged", line);
	for (size_t i = 0; i < n; i++) {
		if (v[i].cache < 0)
			continue;
		fprintf(f, "    %-7.60s %u vCPU%s: %u x %s", v[i].name,
			v[i].vcpus, v[i].vcpus == 1 ? "" : "s", v[i].gpus_fed,
			s->setup.gpu_type ? s->setup.gpu_type : "GPU");
		if (v[i].cpu_s_per_sample > 0)
			fprintf(f, ", %.2f ms CPU per sample",
				v[i].cpu_s_per_sample * 1e3);
		if (v[i].vcpus_per_gpu > 0) {
			const struct rpt_cache_verdict *cv =
				&pipe_at(s, i)->v.cache[v[i].cache];

			fprintf(f, ", %.1f vCPUs per GPU%s (%.1f with the "
				"reserve)", v[i].vcpus_per_gpu,
				cv->feed_vcpus && cv->feed_vcpus <
				cv->vcpus_top ?
				" for its workers (its main "
				"process: the reserve)" : "",
				v[i].vcpus_per_gpu_reserved);
		}
		fprintf(f, "; limit: %s%s%s\n", v[i].limiting ? v[i].limiting :
			"unknown", v[i].cold_limiting && v[i].cache !=
			STG_CACHE_COLD ? ", cold: " : "", v[i].cold_limiting &&
			v[i].cache != STG_CACHE_COLD ? v[i].cold_limiting : "");
		if (v[i].gd)
			gpu_decode_lines(f, v, n, i, s->setup.demand_per_gpu);
	}
}

/* A by_pipeline entry's figures past the common ones: the reserve, the
 * limit, and gpu-decode's modelled side and savings against native. */
static void pipe_json_more(json_t *entry, const struct rpt_sweep *s,
			   const struct rpt_pipeline_verdict *v, size_t i)
{
	struct rpt_pipeline_verdict all[8];
	size_t n = 0, k;
	double ms, pct;
	char text[1024];

	if (!entry)
		return;
	json_object_set_new(entry, "vcpus_per_gpu_with_reserve",
			    rpt_jnum_if(v->vcpus_per_gpu_reserved,
					v->vcpus_per_gpu_reserved > 0));
	json_object_set_new(entry, "limiting", str_or_null(v->limiting));
	json_object_set_new(entry, "cold_limiting",
			    str_or_null(v->cold_limiting));
	json_object_set_new(entry, "storage_limits", json_boolean(
			    rpt_pipeline_storage_bound(v)));
	if (!v->gd)
		return;
	while (n < sizeof(all) / sizeof(all[0]) &&
	       rpt_pipeline_verdict_get(s, n, &all[n]))
		n++;
	k = native_at(all, n);
	json_object_set_new(entry, "modelled", json_string(
		rpt_gpu_decode_modelled(v->gd, text, sizeof(text))));
	json_object_set_new(entry, "gpu_decode", rpt_gpu_decode_json(v->gd,
			    NULL, s->setup.demand_per_gpu));
	if (i < n && gpu_decode_saved(all, n, i, &ms, &pct)) {
		json_object_set_new(entry, "cpu_saved_s_per_sample",
				    rpt_jnum(ms / 1e3));
		json_object_set_new(entry, "cpu_saved_fraction",
				    rpt_jnum(pct / 100));
	} else {
		json_object_set_new(entry, "cpu_saved_s_per_sample",
				    json_null());
		json_object_set_new(entry, "cpu_saved_fraction", json_null());
	}
	json_object_set_new(entry, "native_storage_limits", k < n ?
			    json_boolean(rpt_pipeline_storage_bound(&all[k])) :
			    json_null());
}

json_t *rpt_pipeline_by_json(const struct rpt_sweep *s, size_t i,
			     const struct rpt_pipeline_verdict *v)
{
	json_t *entry = json_pack(
		"{s:s,s:o,s:o,s:o,s:o,s:o,s:o}",
		"headline", v->headline ? v->headline : "",
		"label", rpt_json_path(v->label),
		"cache", v->cache >= 0 ? json_string(
		stg_cache_state_name((enum stg_cache_state)v->cache)) :
		json_null(),
		"vcpus", v->cache >= 0 ? json_integer(v->vcpus) : json_null(),
		"gpus_fed", v->cache >= 0 ? json_integer(v->gpus_fed) :
		json_null(),
		"vcpus_per_gpu", rpt_jnum_if(v->vcpus_per_gpu,
					     v->vcpus_per_gpu > 0),
		"cpu_s_per_sample", rpt_jnum_if(v->cpu_s_per_sample,
						v->cpu_s_per_sample > 0));

	pipe_json_more(entry, s, v, i);
	return entry;
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
	rpt_pipelines_line(v, n, s->setup.gpu_type, line, sizeof(line));
	rpt_buf_printf(b, "<h2>By pipeline</h2>\n<p>");
	rpt_buf_html(b, line);
	rpt_buf_printf(b, "</p>\n");
	if (v[0].cache < 0 || ymax <= 0)
		return;
	rpt_svg_open(b, "pipelines", w, h, " role=\"img\"");
	rpt_buf_printf(b, "\n<text x=\"%.0f\" y=\"14\" font-size=\"12\">"
		       "samples/s against vCPUs, %s, one line per pipeline"
		       "</text>\n", l, stg_cache_state_name(
		       (enum stg_cache_state)v[0].cache));
	rpt_svg_axes(b, l, t, w - r - l, h - bo - t);
	rpt_buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">%.0f"
		       "</text>\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">"
		       "%u vCPUs</text>\n", 4.0, t + 10, ymax, w - r - 40,
		       h - bo + 16, xmax);
	for (size_t i = 0; i < n; i++) {
		const struct rpt_sweep *p = pipe_at(s, i);
		const char *col = colour[i % 5];
		struct rpt_svg_poly poly;
		char attrs[80];

		snprintf(attrs, sizeof(attrs), " fill=\"none\" stroke=\"%s\" "
			 "stroke-width=\"2\"", col);
		rpt_svg_poly_open(&poly, b, attrs);
		for (size_t k = 0; k < p->npoints; k++) {
			const struct rpt_point *pt = &p->points[k];
			double x, y;

			if (pt->status != RPT_POINT_MEASURED ||
			    (int)pt->cache != v[0].cache)
				continue;
			x = l + (w - r - l) * pt->vcpus / xmax;
			y = (h - bo) - (h - bo - t) * pt->samples_per_s / ymax;
			rpt_svg_poly_point(&poly, x, y);
		}
		rpt_svg_poly_close(&poly);
		rpt_buf_printf(b, "\n<text x=\"%.0f\" y=\"%.0f\" "
			       "font-size=\"11\" fill=\"%s\">", w - r + 6,
			       t + 16 + 14.0 * (double)i, col);
		rpt_buf_html(b, v[i].name);
		rpt_buf_printf(b, "</text>\n");
	}
	rpt_svg_close(b);
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

/* ---- gpu-decode: the GPU side, modelled ---- */

void rpt_gpu_decode_fill(struct rpt_gpu_decode *g, const char *gpu,
			 const char *path)
{
	const struct wl_gpu_decoder *d = wl_gpu_decoder_find(gpu);

	memset(g, 0, sizeof(*g));
	g->path = path;
	g->gpu = gpu;
	if (!d)
		return;
	g->known = true;
	g->hw = d->hw;
	g->img_per_s = d->img_per_s;
	g->range_lo = d->range_lo;
	g->range_hi = d->range_hi;
	g->kind = d->kind;
	g->source = d->source;
}

const char *rpt_gpu_decode_modelled(const struct rpt_gpu_decode *g,
				    char *buf, size_t len)
{
	snprintf(buf, len, "modelled: the CPU share measured here, the GPU "
		 "share from %s", g->known ? g->source : "no source (this "
		 "GPU has no decoder row): not stated");
	utf8_trim(buf);
	return buf;
}

bool rpt_gpu_decode_limit(const struct rpt_gpu_decode *g, double demand,
			  char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (!g->path || !jdg_decoder_limits(g->img_per_s, demand))
		return false;
	snprintf(buf, len, "the GPU's decoder, not the VM, is the limit: "
		 "%s decodes %.0f images/s per GPU (%s%s), below the demand of "
		 "%.0f", g->gpu ? g->gpu : "the GPU", g->img_per_s, g->kind,
		 g->kind && !strncmp(g->kind, "lower bound", 11) ? ": it may "
		 "decode more, no source states its ceiling" : "", demand);
	return true;
}

json_t *rpt_gpu_decode_json(const struct rpt_gpu_decode *g,
			    const struct ldr_result *res, double demand)
{
	json_t *o = json_object(), *paths = json_object();
	char text[1024];
	uint64_t all = 0;
	bool lim;

	if (!o || !paths) {
		json_decref(o);
		json_decref(paths);
		return NULL;
	}
	lim = rpt_gpu_decode_limit(g, demand, text, sizeof(text));
	json_object_set_new(o, "path", json_string(g->path ? g->path : "?"));
	json_object_set_new(o, "gpu", json_string(g->gpu ? g->gpu : ""));
	json_object_set_new(o, "hardware_decoder", g->known ?
			    json_boolean(g->hw) : json_null());
	json_object_set_new(o, "decoder_images_per_s", rpt_jnum_pos(
			    g->img_per_s));
	json_object_set_new(o, "decoder_kind", str_or_null(g->kind));
	json_object_set_new(o, "decoder_source", str_or_null(g->source));
	json_object_set_new(o, "decoder_limits", json_boolean(lim));
	json_object_set_new(o, "decoder_limit_text", str_or_null(text));
	rpt_gpu_decode_modelled(g, text, sizeof(text));
	json_object_set_new(o, "modelled", json_string(text));
	for (unsigned k = 0; res && k < LDR_PATHS_MAX; k++)
		if (res->path_names[k][0])
			json_object_set_new(paths, res->path_names[k],
				json_integer((json_int_t)res->path_samples[k]));
	json_object_set_new(o, "samples_by_path", paths);
	json_object_set_new(o, "staged_bytes", res ?
			    json_integer((json_int_t)res->staged_bytes) :
			    json_null());
	for (unsigned k = 0; res && k < LDR_PATHS_MAX; k++)
		all += res->path_samples[k];
	json_object_set_new(o, "staged_bytes_per_sample", rpt_jnum_if(
			    all ? (double)res->staged_bytes / (double)all : 0,
			    all));
	json_object_set_new(o, "stage_batch_max_bytes", res ?
			    json_integer((json_int_t)res->stage_batch_max) :
			    json_null());
	json_object_set_new(o, "stage_held_bytes", res ?
			    json_integer((json_int_t)res->stage_held_bytes) :
			    json_null());
	json_object_set_new(o, "stage_pinned", res ?
			    json_boolean(res->stage_pinned) : json_null());
	return o;
}

void rpt_gpu_decode_print(FILE *f, const struct rpt_gpu_decode *g,
			  const struct ldr_result *res, double demand)
{
	char text[1024];
	uint64_t all = 0;

	if (!g->path)
		return;
	fprintf(f, "  modelled   %s\n", rpt_gpu_decode_modelled(g, text,
								 sizeof(text)));
	fprintf(f, "  decoder    %s: %s%s", g->gpu ? g->gpu : "GPU",
		!g->known ? "no decoder row" : g->hw ? "hardware JPEG decoder "
		"(NVJPG)" : "no hardware JPEG decoder (hybrid)",
		g->known && g->img_per_s > 0 ? ", " : "\n");
	if (g->known && g->img_per_s > 0)
		fprintf(f, "%.0f images/s per GPU (%s)\n", g->img_per_s,
			g->kind);
	if (rpt_gpu_decode_limit(g, demand, text, sizeof(text)))
		fprintf(f, "  LIMIT      %s\n", text);
	if (!res)
		return;
	for (unsigned k = 0; k < LDR_PATHS_MAX; k++)
		all += res->path_samples[k];
	fprintf(f, "  paths     ");
	for (unsigned k = 0; k < LDR_PATHS_MAX && res->path_names[k][0]; k++)
		fprintf(f, "%s %s %llu (%.1f %%)", k ? "," : "",
			res->path_names[k],
			(unsigned long long)res->path_samples[k],
			all ? 100.0 * (double)res->path_samples[k] /
			(double)all : 0.0);
	fputc('\n', f);
	if (!res->stage_held_bytes) {
		/* hybrid: nvJPEG's per-decoder pinned buffer */
		fprintf(f, "  staged     %.1f KB per sample, in a pinned "
			"buffer of each worker's, sent image by image\n",
			all ? (double)res->staged_bytes / (double)all / 1e3 :
			0.0);
		return;
	}
	fprintf(f, "  staged     %.1f KB per sample, %.1f MiB the largest "
		"batch, %.1f MiB held in staging buffers (%s)\n",
		all ? (double)res->staged_bytes / (double)all / 1e3 : 0.0,
		(double)res->stage_batch_max / (1 << 20),
		(double)res->stage_held_bytes / (1 << 20), res->stage_pinned ?
		"page-locked" : "NOT all page-locked: mlock refused (memlock "
		"limit)");
}
