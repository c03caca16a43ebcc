/*
 * report_html.c - the HTML report of a sweep: one self-contained page
 * (inline CSS and SVG; no script, nothing fetched) with the verdict, the
 * plot of samples/s against vCPUs (one line per cache state, the demand
 * of 1, 2, ... GPUs and the storage ceiling as horizontal lines), each
 * point's time series, and the machine and storage facts. Every string
 * from outside (paths, device models, CPU names) is escaped.
 *
 * Plot elements carry classes and data- attributes (class "series" with
 * data-cache, class "pt" with data-vcpus and data-sps, class "demand")
 * so that a test can count them in the rendered page.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "report.h"
#include "report_sweep.h"

/* ---- the growable buffer ---- */

void rpt_buf_init(struct rpt_buf *b)
{
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
	b->ok = true;
}

static bool buf_reserve(struct rpt_buf *b, size_t more)
{
	size_t cap;
	char *n;

	if (!b->ok)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	n = realloc(b->s, cap);
	if (!n) {
		b->ok = false;
		return false;
	}
	b->s = n;
	b->cap = cap;
	return true;
}

void rpt_buf_printf(struct rpt_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void rpt_buf_html(struct rpt_buf *b, const char *text)
{
	for (const char *t = text ? text : ""; *t; t++) {
		const char *rep = NULL;

		switch (*t) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default: break;
		}
		if (rep) {
			rpt_buf_printf(b, "%s", rep);
		} else if (buf_reserve(b, 1)) {
			b->s[b->len++] = *t;
			b->s[b->len] = '\0';
		}
	}
}

void rpt_buf_html_path(struct rpt_buf *b, const char *path)
{
	char *t = rpt_path_text(path ? path : "", path ? strlen(path) : 0);

	if (!t) {
		b->ok = false;
		return;
	}
	rpt_buf_html(b, t);
	free(t);
}

char *rpt_buf_take(struct rpt_buf *b)
{
	char *s = b->ok ? b->s : NULL;

	if (!b->ok)
		free(b->s);
	else if (!s)
		s = calloc(1, 1);
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

/* ---- the page ---- */

static const char *const colour[STG_CACHE_STATES] = {
	"#1f5fbf", "#c07a00", "#c0392b"
};

static const char page_style[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;"
	"max-width:960px;color:#222}h1{font-size:1.5em}h2{font-size:1.15em;"
	"margin-top:1.8em;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{padding:.2em .6em;border-bottom:1px solid #eee;"
	"text-align:right}td:first-child,th:first-child{text-align:left}"
	".verdict{font-size:1.1em;background:#f4f7fb;padding:.8em;"
	"border-left:4px solid #1f5fbf}.note{color:#555;font-size:.9em}"
	"svg text{font:11px sans-serif}";

static void html_head(struct rpt_buf *b, const char *title)
{
	rpt_buf_printf(b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
		       "<meta charset=\"utf-8\"><title>");
	rpt_buf_html(b, title);
	rpt_buf_printf(b, "</title><style>%s</style></head><body>\n",
		       page_style);
}

static double nice_max(double v)
{
	double p, m;

	if (!(v > 0))
		return 1;
	p = pow(10, floor(log10(v)));
	m = v / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

#define PW 720.0
#define PH 380.0
#define ML 70.0
#define MR 150.0
#define MT 20.0
#define MB 45.0

/* samples/s against vCPUs, with the demand lines and the ceiling. */
static void plot_main(struct rpt_buf *b, const struct rpt_sweep *s)
{
	const double need = s->v.need_per_gpu;
	const double w = PW - ML - MR, h = PH - MT - MB;
	double xmax = s->vcpus_total, ymax = 0;
	unsigned step = 1, lines;

	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];

		if (p->vcpus > xmax)
			xmax = p->vcpus;
		if (p->status == RPT_POINT_MEASURED && p->samples_per_s > ymax)
			ymax = p->samples_per_s;
	}
	if (s->v.storage_known && s->v.storage_files_per_s > ymax)
		ymax = s->v.storage_files_per_s;
	if (need > 0 && need * (s->gpu_count ? s->gpu_count : 1) > ymax)
		ymax = need * (s->gpu_count ? s->gpu_count : 1);
	ymax = nice_max(ymax * 1.08);
	if (xmax < 1)
		xmax = 1;
	rpt_buf_printf(b, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/"
		       "svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f "
		       "%.0f\" role=\"img\" aria-label=\"samples per second "
		       "against vCPUs\">\n", PW, PH, PW, PH);
	/* axes and ticks */
	rpt_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		       "stroke=\"#333\"/><line x1=\"%.1f\" y1=\"%.1f\" "
		       "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", ML, MT,
		       ML, MT + h, ML, MT + h, ML + w, MT + h);
	for (int k = 0; k <= 5; k++) {
		const double y = MT + h - h * k / 5.0;

		rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor="
			       "\"end\">%.0f</text><line x1=\"%.1f\" y1=\"%.1f\" "
			       "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
			       ML - 6, y + 4, ymax * k / 5.0, ML, y, ML + w, y);
	}
	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= s->points[j].vcpus == p->vcpus;
		if (!seen)
			rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" "
				       "text-anchor=\"middle\">%u</text>\n",
				       ML + w * p->vcpus / xmax, MT + h + 16,
				       p->vcpus);
	}
	rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
		       "vCPUs</text><text x=\"14\" y=\"%.1f\" transform=\"rotate"
		       "(-90 14 %.1f)\" text-anchor=\"middle\">samples/s"
		       "</text>\n", ML + w / 2, PH - 8, MT + h / 2,
		       MT + h / 2);
	/* demand of 1, 2, ... GPUs at the AU threshold */
	lines = need > 0 ? (unsigned)floor(ymax / need) : 0;
	while (lines / step > 8)
		step *= 2;
	for (unsigned k = step; need > 0 && k <= lines; k += step) {
		const double y = MT + h - h * (k * need) / ymax;

		rpt_buf_printf(b, "<g class=\"demand\" data-gpus=\"%u\"><line "
			       "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			       "stroke=\"#777\" stroke-dasharray=\"4 4\"/><text "
			       "x=\"%.1f\" y=\"%.1f\">%u x ", k, ML, y, ML + w, y,
			       ML + w + 4, y + 4, k);
		rpt_buf_html(b, s->gpu_type);
		rpt_buf_printf(b, "</text></g>\n");
	}
	if (s->v.storage_known) {
		const double y = MT + h - h * s->v.storage_files_per_s / ymax;

		rpt_buf_printf(b, "<g class=\"ceiling\"><line x1=\"%.1f\" "
			       "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#"
			       "1f5fbf\" stroke-dasharray=\"1 3\" stroke-width="
			       "\"2\"/><text x=\"%.1f\" y=\"%.1f\">storage %s"
			       "</text></g>\n", ML, y, ML + w, y, ML + w + 4,
			       y - 6, s->v.storage_is_ceiling ? "ceiling" :
			       "(at least)");
	}
	/* one line per cache state */
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		struct rpt_buf pts;
		bool any = false;

		rpt_buf_init(&pts);
		for (size_t i = 0; i < s->npoints; i++) {
			const struct rpt_point *p = &s->points[i];

			if (p->cache != (enum stg_cache_state)c ||
			    p->status != RPT_POINT_MEASURED)
				continue;
			rpt_buf_printf(&pts, "%s%.1f,%.1f", any ? " " : "",
				       ML + w * p->vcpus / xmax,
				       MT + h - h * p->samples_per_s / ymax);
			any = true;
		}
		if (!any) {
			free(rpt_buf_take(&pts));
			continue;
		}
		rpt_buf_printf(b, "<g class=\"series\" data-cache=\"%s\">"
			       "<polyline fill=\"none\" stroke=\"%s\" "
			       "stroke-width=\"2\" points=\"%s\"/>\n",
			       stg_cache_state_name((enum stg_cache_state)c), colour[c],
			       pts.ok && pts.s ? pts.s : "");
		free(rpt_buf_take(&pts));
		for (size_t i = 0; i < s->npoints; i++) {
			const struct rpt_point *p = &s->points[i];

			if (p->cache != (enum stg_cache_state)c ||
			    p->status != RPT_POINT_MEASURED)
				continue;
			rpt_buf_printf(b, "<circle class=\"pt\" data-vcpus=\"%u\" "
				       "data-sps=\"%.1f\" cx=\"%.1f\" cy=\"%.1f\" "
				       "r=\"4\" fill=\"%s\"><title>%u vCPUs, %s: "
				       "%.0f samples/s</title></circle>\n",
				       p->vcpus, p->samples_per_s,
				       ML + w * p->vcpus / xmax,
				       MT + h - h * p->samples_per_s / ymax,
				       colour[c], p->vcpus,
				       stg_cache_state_name((enum stg_cache_state)c),
				       p->samples_per_s);
		}
		rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s"
			       "</text></g>\n", ML + 10, MT + 14 + 14.0 * c,
			       colour[c], stg_cache_state_name((enum stg_cache_state)c));
	}
	rpt_buf_printf(b, "</svg>\n");
}

/* A point's 1 s series as a small line chart. */
static void plot_series(struct rpt_buf *b, const struct rpt_point *p,
			int c)
{
	const double w = 320, h = 90;
	double tmax = 0, ymax = 0;

	for (unsigned i = 0; i < p->series_len; i++) {
		tmax = fmax(tmax, p->series[i].t_s);
		ymax = fmax(ymax, p->series[i].samples_per_s);
	}
	ymax = nice_max(ymax * 1.05);
	if (tmax <= 0)
		tmax = 1;
	rpt_buf_printf(b, "<svg class=\"tseries\" data-vcpus=\"%u\" data-cache="
		       "\"%s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		       "height=\"%.0f\"><rect x=\"0\" y=\"0\" width=\"%.0f\" "
		       "height=\"%.0f\" fill=\"#fafafa\" stroke=\"#ddd\"/>"
		       "<polyline fill=\"none\" stroke=\"%s\" points=\"",
		       p->vcpus, stg_cache_state_name(p->cache), w, h + 16, w, h,
		       colour[c]);
	for (unsigned i = 0; i < p->series_len; i++)
		rpt_buf_printf(b, "%s%.1f,%.1f", i ? " " : "",
			       w * p->series[i].t_s / tmax,
			       h - h * p->series[i].samples_per_s / ymax);
	rpt_buf_printf(b, "\"/><text x=\"4\" y=\"12\">%.0f</text><text x=\"4\" "
		       "y=\"%.0f\">%u vCPUs, %s, %.0f s</text></svg>\n", ymax,
		       h + 13, p->vcpus, stg_cache_state_name(p->cache), tmax);
}

static const char *conf_word(int c)
{
	switch (c) {
	case RPT_CONF_CONFIRMED: return "confirmed";
	case RPT_CONF_LOWERED: return "lowered by the check";
	case RPT_CONF_RAISED: return "raised by the check";
	default: return "computed";
	}
}

static void verdict_table(struct rpt_buf *b, const struct rpt_sweep *s)
{
	rpt_buf_printf(b, "<table class=\"verdict-table\"><tr><th>cache</th>"
		       "<th>vCPUs</th><th>samples/s</th><th>GPUs fed</th>"
		       "<th>check</th><th>limit</th><th>vCPUs/GPU</th>"
		       "<th>hit ratio</th></tr>\n");
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const struct rpt_cache_verdict *cv = &s->v.cache[c];

		if (!cv->measured && cv->not_judged) {
			rpt_buf_printf(b, "<tr><td>%s</td><td colspan=\"7\" "
				       "class=\"note\">not judged: ",
				       stg_cache_state_name((enum stg_cache_state)c));
			rpt_buf_html(b, cv->not_judged);
			rpt_buf_printf(b, "</td></tr>\n");
			continue;
		}
		if (!cv->measured)
			continue;
		rpt_buf_printf(b, "<tr><td>%s</td><td>%u</td><td>%.0f</td>"
			       "<td>%u</td><td>%s</td><td>", stg_cache_state_name(
			       (enum stg_cache_state)c), cv->vcpus_top,
			       cv->samples_per_s, cv->gpus_fed,
			       conf_word(cv->confirmation));
		rpt_buf_html(b, cv->limiting);
		if (cv->vcpus_per_gpu > 0)
			rpt_buf_printf(b, "</td><td>%.1f", cv->vcpus_per_gpu);
		else
			rpt_buf_printf(b, "</td><td>-");
		if (cv->hit_ratio >= 0)
			rpt_buf_printf(b, "</td><td>%.1f %%%s</td></tr>\n",
				       cv->hit_ratio * 100,
				       cv->hit_ratio_estimated ? " (est.)" :
				       "");
		else
			rpt_buf_printf(b, "</td><td>-</td></tr>\n");
		if (cv->check.ignored) {
			rpt_buf_printf(b, "<tr><td colspan=\"8\" class=\"note\">"
				       "check runs NOT USED: ");
			rpt_buf_html(b, cv->check.note);
			rpt_buf_printf(b, "</td></tr>\n");
		}
		if (cv->inconsistent)
			rpt_buf_printf(b, "<tr><td colspan=\"8\" class=\"note\">"
				       "NOT PROJECTED: the figures at %u vCPUs "
				       "are inconsistent (%.2f CPU-seconds per "
				       "vCPU-second)</td></tr>\n", cv->vcpus_top,
				       cv->cpu_per_vcpu);
		if (cv->projected)
			rpt_buf_printf(b, "<tr><td colspan=\"8\" class=\"note\">"
				       "PROJECTED: %u vCPUs needed for %u GPU%s, "
				       "about %.0f samples/s, assuming the "
				       "per-vCPU rate measured at %u vCPUs holds "
				       "(same CPU model only)</td></tr>\n",
				       cv->vcpus_needed, s->gpu_count,
				       s->gpu_count == 1 ? "" : "s",
				       cv->projected_samples_per_s,
				       cv->vcpus_top);
	}
	rpt_buf_printf(b, "</table>\n");
}

static void facts_table(struct rpt_buf *b, const struct rpt_sweep *s)
{
	rpt_buf_printf(b, "<table class=\"facts\"><tr><td>CPU</td><td>");
	rpt_buf_html(b, s->cpu_model);
	rpt_buf_printf(b, " (%u usable vCPUs)</td></tr><tr><td>RAM</td><td>"
		       "%.2f GB (%.2f GB available)", s->vcpus_total,
		       s->ram_total / 1e9, s->ram_available / 1e9);
	if (s->cgroup_limit >= 0)
		rpt_buf_printf(b, ", cgroup limit %.2f GB",
			       s->cgroup_limit / 1e9);
	rpt_buf_printf(b, "</td></tr><tr><td>instance</td><td>");
	rpt_buf_html(b, s->instance_type);
	rpt_buf_printf(b, " ");
	rpt_buf_html(b, s->vendor);
	rpt_buf_printf(b, "</td></tr><tr><td>dataset</td><td>");
	rpt_buf_html_path(b, s->dataset);
	rpt_buf_printf(b, " (%llu files, %.1f MB%s)</td></tr><tr><td>storage"
		       "</td><td>", (unsigned long long)s->files, s->bytes / 1e6,
		       s->generated ? ", generated" : "");
	rpt_buf_html(b, s->fs_type);
	rpt_buf_printf(b, " on ");
	rpt_buf_html(b, s->fs_device);
	rpt_buf_printf(b, "%s, backend ", s->fs_network ? " (network)" : "");
	rpt_buf_html(b, s->backend);
	rpt_buf_printf(b, "</td></tr><tr><td>pipeline</td><td>");
	rpt_buf_html(b, s->pipeline);
	rpt_buf_printf(b, "</td></tr><tr><td>demand</td><td>");
	rpt_buf_html(b, s->gpu_type);
	rpt_buf_printf(b, " (");
	rpt_buf_html(b, s->gpu_detail);
	rpt_buf_printf(b, "): %.0f samples/s per GPU, ", s->demand_per_gpu);
	rpt_buf_html(b, s->demand_kind);
	rpt_buf_printf(b, "%s; source: ", s->demand_est ? " (estimate)" : "");
	rpt_buf_html(b, s->demand_source);
	rpt_buf_printf(b, "</td></tr><tr><td>budget</td><td>%.0f s of %.0f s; ",
		       s->elapsed_s, s->budget_s);
	rpt_buf_html(b, s->budget_rule);
	rpt_buf_printf(b, "</td></tr>");
	if (s->notes && *s->notes) {
		rpt_buf_printf(b, "<tr><td>notes</td><td>");
		rpt_buf_html(b, s->notes);
		rpt_buf_printf(b, "</td></tr>");
	}
	rpt_buf_printf(b, "</table>\n");
}

static void points_table(struct rpt_buf *b, const struct rpt_sweep *s)
{
	rpt_buf_printf(b, "<table class=\"points\"><tr><th>vCPUs</th><th>cache"
		       "</th><th>status</th><th>samples/s</th><th>AU</th>"
		       "<th>hit ratio</th><th>MB/s</th><th>bottleneck</th>"
		       "</tr>\n");
	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];

		rpt_buf_printf(b, "<tr><td>%u</td><td>%s</td><td>", p->vcpus,
			       stg_cache_state_name(p->cache));
		if (p->status != RPT_POINT_MEASURED) {
			rpt_buf_printf(b, "%s: ", p->status ==
				       RPT_POINT_DROPPED ? "dropped" : "failed");
			rpt_buf_html(b, p->why);
			rpt_buf_printf(b, "</td><td></td><td></td><td></td>"
				       "<td></td><td></td></tr>\n");
			continue;
		}
		rpt_buf_printf(b, "measured%s%s</td><td>%.0f</td><td>",
			       p->cache == STG_CACHE_RAM && p->ram_not_limited ?
			       " (page cache not limited: ran warm)" : "",
			       rpt_point_too_short(p) ? " (too short)" : "",
			       p->samples_per_s);
		if (p->au >= 0)
			rpt_buf_printf(b, "%.0f %%", p->au * 100);
		rpt_buf_printf(b, "</td><td>");
		if (p->hit_ratio >= 0)
			rpt_buf_printf(b, "%.1f %%%s", p->hit_ratio * 100,
				       p->hit_ratio_estimated ? " (est.)" : "");
		rpt_buf_printf(b, "</td><td>%.1f</td><td>",
			       p->read_bytes_per_s / 1e6);
		rpt_buf_html(b, p->bottleneck);
		rpt_buf_printf(b, "</td></tr>\n");
	}
	rpt_buf_printf(b, "</table>\n");
}

static void catalog_table(struct rpt_buf *b, const struct rpt_sweep *s)
{
	const struct rpt_sweep_verdict *v = &s->v;

	if (v->catalog_cache < 0 || !v->nfits) {
		rpt_buf_printf(b, "<p class=\"note\">No catalogued shape to "
			       "judge for this GPU type.</p>\n");
		return;
	}
	rpt_buf_printf(b, "<table class=\"catalog\"><tr><th>shape</th>"
		       "<th>GPUs</th><th>vCPUs</th><th>needed</th><th>spare"
		       "</th><th>RAM GiB</th><th>dataset in RAM</th></tr>\n");
	for (size_t i = 0; i < v->nfits; i++) {
		const struct rpt_shape_fit *f = &v->fits[i];

		rpt_buf_printf(b, "<tr><td>");
		rpt_buf_html(b, f->shape->name);
		rpt_buf_printf(b, "</td><td>%u</td><td>%u</td><td>%.0f</td>"
			       "<td>%+.0f</td><td>%.0f%s</td><td>%s</td></tr>\n",
			       f->shape->gpus, f->shape->vcpus,
			       ceil(f->vcpus_needed - 1e-9),
			       floor(f->vcpus_spare + 1e-9), f->shape->ram_gib,
			       f->shape->recalled ? " (recalled)" : "",
			       f->ram_holds_dataset ? "yes" : "no");
	}
	rpt_buf_printf(b, "</table>\n");
}

char *rpt_sweep_html(const struct rpt_sweep *s)
{
	struct rpt_buf b;

	rpt_buf_init(&b);
	html_head(&b, "feedrate sweep");
	rpt_buf_printf(&b, "<h1>feedrate sweep: ");
	rpt_buf_html(&b, s->workload);
	rpt_buf_printf(&b, " against ");
	rpt_buf_html(&b, s->gpu_type);
	rpt_buf_printf(&b, "</h1>\n<p class=\"verdict\">");
	rpt_buf_html(&b, s->v.headline);
	rpt_buf_printf(&b, "</p>\n");
	verdict_table(&b, s);
	rpt_buf_printf(&b, "<h2>samples/s against vCPUs</h2>\n");
	plot_main(&b, s);
	rpt_buf_printf(&b, "<p class=\"note\">Raw feed rate (no GPU consuming)."
		       " Dashed lines: what 1, 2, ... GPUs eat at the AU "
		       "threshold (%.0f %%: %.0f samples/s each). Dotted: "
		       "storage, seen cold.</p>\n", s->v.au_threshold * 100,
		       s->v.need_per_gpu);
	if (s->v.storage_known)
		rpt_buf_printf(&b, "<p>Storage, cold: %.1f MB/s, %.0f files/s "
			       "(%s); feeds %.1f GPUs.</p>\n",
			       s->v.storage_bytes_per_s / 1e6,
			       s->v.storage_files_per_s,
			       s->v.storage_is_ceiling ? "the ceiling" :
			       "a lower bound: the CPU was the limit",
			       s->v.storage_gpus);
	rpt_buf_printf(&b, "<h2>points</h2>\n");
	points_table(&b, s);
	rpt_buf_printf(&b, "<h2>time series</h2>\n<div>");
	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];

		if (p->status == RPT_POINT_MEASURED && p->series &&
		    p->series_len)
			plot_series(&b, p, (int)p->cache);
	}
	rpt_buf_printf(&b, "</div>\n<h2>catalogued shapes</h2>\n");
	catalog_table(&b, s);
	rpt_buf_printf(&b, "<h2>machine and storage</h2>\n");
	facts_table(&b, s);
	rpt_buf_printf(&b, "<p class=\"note\">feedrate ");
	rpt_buf_html(&b, s->version);
	rpt_buf_printf(&b, ", report schema %s v%d</p>\n</body></html>\n",
		       RPT_SWEEP_SCHEMA_NAME, RPT_SWEEP_SCHEMA_VERSION);
	return rpt_buf_take(&b);
}

/* ---- compare ---- */

char *rpt_compare_html(const struct rpt_candidate *c, size_t n)
{
	struct rpt_buf b;
	double ymax = 0;
	const double bw = 22, gap = 30, h = 240;
	double w;

	rpt_buf_init(&b);
	html_head(&b, "feedrate compare");
	rpt_buf_printf(&b, "<h1>feedrate compare: %zu candidate%s</h1>\n"
		       "<table class=\"compare\"><tr><th></th>", n,
		       n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		rpt_buf_printf(&b, "<th>");
		rpt_buf_html(&b, c[i].label);
		rpt_buf_printf(&b, "</th>");
	}
	rpt_buf_printf(&b, "</tr>\n<tr><td>verdict</td>");
	for (size_t i = 0; i < n; i++) {
		rpt_buf_printf(&b, "<td>");
		rpt_buf_html(&b, c[i].headline);
		rpt_buf_printf(&b, "</td>");
	}
	rpt_buf_printf(&b, "</tr>\n<tr><td>CPU</td>");
	for (size_t i = 0; i < n; i++) {
		rpt_buf_printf(&b, "<td>");
		rpt_buf_html(&b, c[i].cpu_model);
		rpt_buf_printf(&b, ", %u vCPUs, %.0f GiB</td>", c[i].vcpus,
			       c[i].ram_gib);
	}
	rpt_buf_printf(&b, "</tr>\n<tr><td>storage</td>");
	for (size_t i = 0; i < n; i++) {
		rpt_buf_printf(&b, "<td>");
		rpt_buf_html(&b, c[i].storage);
		rpt_buf_printf(&b, "</td>");
	}
	rpt_buf_printf(&b, "</tr>\n");
	for (int k = 0; k < STG_CACHE_STATES; k++) {
		rpt_buf_printf(&b, "<tr><td>%s</td>", stg_cache_state_name(
			(enum stg_cache_state)k));
		for (size_t i = 0; i < n; i++) {
			if (!c[i].have[k]) {
				rpt_buf_printf(&b, "<td>-</td>");
				continue;
			}
			rpt_buf_printf(&b, "<td>%.0f samples/s at %u vCPUs; "
				       "%d x ", c[i].samples_per_s[k],
				       c[i].vcpus_at[k], c[i].gpus_fed[k]);
			rpt_buf_html(&b, c[i].gpu);
			rpt_buf_printf(&b, " fed; limit ");
			rpt_buf_html(&b, c[i].limiting[k]);
			rpt_buf_printf(&b, "</td>");
			ymax = fmax(ymax, c[i].samples_per_s[k]);
		}
		rpt_buf_printf(&b, "</tr>\n");
	}
	rpt_buf_printf(&b, "</table>\n");
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < STG_CACHE_STATES; k++) {
			char note[256];

			if (!rpt_candidate_note(&c[i], (enum stg_cache_state)k,
						note, sizeof(note)))
				continue;
			rpt_buf_printf(&b, "<p class=\"note\">");
			rpt_buf_html(&b, note);
			rpt_buf_printf(&b, "</p>\n");
		}
	/* a grouped bar chart: samples/s per cache state per candidate */
	ymax = nice_max(ymax * 1.05);
	w = ML + n * (STG_CACHE_STATES * bw + gap) + 20;
	rpt_buf_printf(&b, "<h2>samples/s</h2>\n<svg class=\"bars\" xmlns="
		       "\"http://www.w3.org/2000/svg\" width=\"%.0f\" height="
		       "\"%.0f\">\n", w, h + 60);
	for (size_t i = 0; i < n; i++) {
		const double x0 = ML + i * (STG_CACHE_STATES * bw + gap);

		for (int k = 0; k < STG_CACHE_STATES; k++) {
			double bh;

			if (!c[i].have[k])
				continue;
			bh = h * c[i].samples_per_s[k] / ymax;
			rpt_buf_printf(&b, "<rect class=\"bar\" data-cache=\"%s\" "
				       "x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				       "height=\"%.1f\" fill=\"%s\"><title>%.0f "
				       "samples/s, %s</title></rect>\n",
				       stg_cache_state_name((enum stg_cache_state)k),
				       x0 + k * bw, 10 + h - bh, bw - 2, bh,
				       colour[k], c[i].samples_per_s[k],
				       stg_cache_state_name((enum stg_cache_state)k));
		}
		rpt_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\">", x0,
			       h + 28);
		rpt_buf_html(&b, c[i].label);
		rpt_buf_printf(&b, "</text>\n");
	}
	rpt_buf_printf(&b, "<text x=\"%.1f\" y=\"20\" text-anchor=\"end\">%.0f"
		       "</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0"
		       "</text>\n", ML - 6, ymax, ML - 6, h + 10);
	for (int k = 0; k < STG_CACHE_STATES; k++)
		rpt_buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s"
			       "</text>\n", ML + 60.0 * k, h + 50, colour[k],
			       stg_cache_state_name((enum stg_cache_state)k));
	rpt_buf_printf(&b, "</svg>\n</body></html>\n");
	return rpt_buf_take(&b);
}
