/*
 * report_html.c - the HTML report of a sweep: one self-contained page
 * (inline CSS and SVG; no script, nothing fetched) with the verdict, the
 * plot of samples/s against vCPUs (one line per cache state, continued
 * dashed to the vCPUs the asked GPUs need, the demand of 1 .. the asked
 * GPUs and the storage ceiling as horizontal lines, and the measured
 * range zoomed), each point's time series, the catalogued shapes (the
 * text report's catalogue: each shape's kind of vCPU, the vCPUs needed
 * as a range, the reserve, spare, fit and demand row; cells of class
 * "vcpu-kind", "needed", "spare", "reserved", "fit", "demand"), and the
 * machine and storage facts. Every string from outside (paths, device
 * models, CPU names) is escaped.
 *
 * Plot elements carry classes and data- attributes so that a test can
 * find them in the rendered page: the panels (class "panel", data-panel
 * "answer" or "measured", data-xmax), x ticks ("xtick", data-vcpus,
 * data-role "needed" or "vm", data-x), one "series" per cache state
 * (data-cache) with one "pt" per measured point (data-vcpus, data-sps),
 * "projection" (data-cache, data-to-vcpus, data-lo, data-hi; its line
 * "proj-hi"), "demand" (data-gpus; data-asked on the asked count's),
 * "ceiling" and "not-measured".
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "report.h"
#include "rpt_html.h"
#include "report_ckpt.h"
#include "rpt_text.h"
#include "report_sweep.h"

/* ---- the page ---- */

#define colour rpt_html_cache_colour
#define nice_max rpt_svg_nice_max

/*
 * The sweep's plot answers "how many vCPUs feed the asked GPUs" and still
 * shows what was measured, in up to two panels, both linear from zero:
 *
 *  - the answer: x runs to the vCPUs needed for the asked GPUs (at least
 *    this VM's), y to what they eat. Each measured line goes on, dashed,
 *    from its top point to the projection at the vCPUs needed: a wedge
 *    from the pessimistic to the optimistic figure. Over it, one line per
 *    GPU up to the asked count and the storage ceiling.
 *  - the measured range, zoomed: the same lines at their own scale, drawn
 *    when the answer panel squeezes the measured points into less than
 *    ZOOM_WHEN of its width or height.
 *
 * Not a log y axis: a straight projection bends on one, and equal heights
 * stop meaning equal samples/s, which is what the plot is read for (how
 * far a line stays below a demand line). Two linear panels keep both
 * readings, and the measured points lie as far apart as in a plot of
 * their own.
 */
#define PW 900.0                /* the SVG's width */
#define ML RPT_SVG_MARGIN_LEFT   /* left margin: the y tick labels */
#define PMR 190.0               /* right margin: the demand labels */
#define PANEL_H 300.0
#define ZOOM_H 220.0
#define AXIS_B 52.0             /* below a plot area: tick labels, their
                                   notes, the axis title */
#define LINE_H 15.0
#define ZOOM_WHEN 0.6
#define LABEL_GAP 12.0          /* fewest pixels between two labels */
#define XTICK_GAP 30.0
#define PROJ_SAME 0.005         /* lo and hi this close (share of hi): one
                                   line, not a wedge */
#define DEMAND_LABELS 6         /* about this many demand lines labelled */

struct panel {
	double left, top, w, h;         /* the plot area in the SVG */
	double xmax, ymax;
};

static double panel_x(const struct panel *p, double v)
{
	return p->left + p->w * v / p->xmax;
}

static double panel_y(const struct panel *p, double v)
{
	return p->top + p->h - p->h * v / p->ymax;
}

/* A round step for about N ticks up to V: 1, 2, 2.5 or 5 x 10^k. */
static double tick_step(double v, int n)
{
	double raw = v / n, p, m;

	if (!(raw > 0))
		return 1;
	p = pow(10, floor(log10(raw)));
	m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

/* V rounded up to a whole number of its ticks. */
static double axis_top(double v)
{
	double step;

	if (!(v > 0))
		return 1;
	step = tick_step(v, 5);
	return ceil(v / step - 1e-9) * step;
}

/* The whole-number step after S in 1, 2, 5, 10, 20, 50, ... */
static unsigned step_next(unsigned s)
{
	unsigned p = 1;

	while (s >= 10 * p)
		p *= 10;
	return s / p == 1 ? 2 * p : s / p == 2 ? 5 * p : 10 * p;
}

/* What the plot draws of one cache state. */
struct state_plot {
	bool any;                       /* measured points to draw */
	bool line;                      /* joined by a line: not when the
	                                   point at all vCPUs was dropped */
	bool proj;                      /* a projection is drawn */
	unsigned from, to;              /* vCPUs: its top point, the needed */
	double from_sps, lo, hi;
	double top_sps;                 /* the most any point measured */
	unsigned last_vcpus;            /* the largest measured point */
	double last_sps;
};

static void state_plot_fill(const struct rpt_sweep *s, int c,
			    struct state_plot *d)
{
	const struct rpt_cache_verdict *cv = &s->v.cache[c];
	unsigned extra;

	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];

		if (p->cache != (enum stg_cache_state)c ||
		    p->status != RPT_POINT_MEASURED)
			continue;
		d->any = true;
		d->top_sps = fmax(d->top_sps, p->samples_per_s);
		if (p->vcpus >= d->last_vcpus) {
			d->last_vcpus = p->vcpus;
			d->last_sps = p->samples_per_s;
		}
	}
	/* a line through fewer vCPUs than the verdict needed would read as
	 * the state's answer */
	d->line = d->any && !cv->top_dropped;
	/* x counts pinned vCPUs: a Python loader's main process keeps its
	 * vCPUs beside the feed vCPUs that vcpus_needed counts */
	extra = cv->feed_vcpus && cv->feed_vcpus < cv->vcpus_top ?
		cv->vcpus_top - cv->feed_vcpus : 0;
	d->proj = d->line && cv->measured && cv->projected &&
		  !cv->storage_bound && !cv->inconsistent &&
		  cv->vcpus_needed + extra > cv->vcpus_top &&
		  cv->projected_samples_per_s > 0;
	if (!d->proj)
		return;
	d->from = cv->vcpus_top;
	d->from_sps = cv->samples_per_s;
	d->to = cv->vcpus_needed + extra;
	d->hi = cv->projected_samples_per_s;
	d->lo = cv->projected_lo > 0 ? fmin(cv->projected_lo, d->hi) : d->hi;
}

static bool state_storage_bound(const struct rpt_cache_verdict *cv)
{
	return cv->storage_bound ||
	       (cv->limiting && !strcmp(cv->limiting, "storage"));
}

/* The state's line in the legend, in words (escaped when written). */
static void state_legend(const struct rpt_sweep *s, int c,
			 const struct state_plot *d, char *buf, size_t len)
{
	const struct rpt_cache_verdict *cv = &s->v.cache[c];
	const char *name = stg_cache_state_name((enum stg_cache_state)c);
	char top[32], lo[32], hi[32];

	if (cv->top_dropped) {
		snprintf(buf, len, "%s: not measured within the budget at %u "
			 "vCPUs: no verdict from fewer, nothing projected",
			 name, s->setup.vcpus_total);
		return;
	}
	if (!cv->measured) {
		snprintf(buf, len, "%s: not judged: %s", name,
			 cv->not_judged ? cv->not_judged : "no usable point");
		return;
	}
	rpt_fmt_count(top, sizeof(top), cv->samples_per_s);
	if (d->proj) {
		rpt_fmt_count(lo, sizeof(lo), d->lo);
		rpt_fmt_count(hi, sizeof(hi), d->hi);
		snprintf(buf, len, "%s: %s samples/s measured at %u vCPUs; "
			 "PROJECTED %s%s%s samples/s at %u vCPUs, same CPU "
			 "model only", name, top, cv->vcpus_top,
			 strcmp(lo, hi) ? lo : "", strcmp(lo, hi) ? "-" : "",
			 hi, d->to);
	} else if (state_storage_bound(cv)) {
		snprintf(buf, len, "%s: %s samples/s at %u vCPUs, storage-"
			 "bound: more vCPUs do not help, nothing projected",
			 name, top, cv->vcpus_top);
	} else if (cv->inconsistent) {
		snprintf(buf, len, "%s: %s samples/s at %u vCPUs; figures "
			 "inconsistent (%.2f CPU-s per vCPU-s), nothing "
			 "projected", name, top, cv->vcpus_top,
			 cv->cpu_per_vcpu);
	} else {
		snprintf(buf, len, "%s: %s samples/s at %u vCPUs, feeds %u x "
			 "%s", name, top, cv->vcpus_top, cv->gpus_fed,
			 s->setup.gpu_type ? s->setup.gpu_type : "GPU");
	}
}

/* Axes, the y grid with its labels, and the axis titles. */
static void panel_frame(struct rpt_buf *b, const struct panel *p,
			const char *xtitle)
{
	const double st = tick_step(p->ymax, 5);
	char n[32];

	rpt_svg_axes(b, p->left, p->top, p->w, p->h);
	for (int k = 0; k * st <= p->ymax * (1 + 1e-9); k++) {
		const double y = panel_y(p, k * st);

		rpt_fmt_count(n, sizeof(n), k * st);
		rpt_buf_printf(b, "<text class=\"ytick\" x=\"%.1f\" y=\"%.1f\" "
			       "text-anchor=\"end\">%s</text>", p->left - 6,
			       y + 4, n);
		if (k)
			rpt_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" "
				       "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>",
				       p->left, y, p->left + p->w, y);
		rpt_buf_printf(b, "\n");
	}
	rpt_buf_printf(b, "<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 "
		       "14 %.1f)\" text-anchor=\"middle\">samples/s</text>\n"
		       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		       p->top + p->h / 2, p->top + p->h / 2,
		       p->left + p->w / 2, p->top + p->h + AXIS_B - 6);
	rpt_buf_html(b, xtitle);
	rpt_buf_printf(b, "</text>\n");
}

/* One x tick: ROLE ("needed", "vm") and NOTE (a second line) or NULL. */
static void x_tick(struct rpt_buf *b, const struct panel *p, unsigned v,
		   const char *role, const char *note, const char *fill)
{
	const double x = panel_x(p, v), y = p->top + p->h;

	rpt_buf_printf(b, "<g class=\"xtick\" data-vcpus=\"%u\"", v);
	if (role)
		rpt_buf_printf(b, " data-role=\"%s\"", role);
	rpt_buf_printf(b, " data-x=\"%.1f\"><line x1=\"%.1f\" y1=\"%.1f\" "
		       "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/><text x=\"%.1f\""
		       " y=\"%.1f\" text-anchor=\"middle\"%s>%u</text>", x, x, y,
		       x, y + 4, x, y + 16, role ? " font-weight=\"bold\"" : "",
		       v);
	if (note)
		rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor="
			       "\"middle\" fill=\"%s\">%s</text>", x, y + 29,
			       fill, note);
	rpt_buf_printf(b, "</g>\n");
}

static bool x_free(const struct panel *p, const unsigned *placed, size_t n,
		   unsigned v)
{
	for (size_t i = 0; i < n; i++)
		if (fabs(panel_x(p, v) - panel_x(p, placed[i])) < XTICK_GAP)
			return false;
	return true;
}

/* The answer's x ticks: the vCPUs needed by each projected state and
 * this VM's first (the axis ends at the largest), then round counts
 * where they leave room. */
static void answer_x_ticks(struct rpt_buf *b, const struct rpt_sweep *s,
			   const struct panel *p, const struct state_plot *d)
{
	struct xmark {
		unsigned v;
		int c;                  /* the state needing V; -1 this VM,
		                           -2 the axis' end */
	} sp[STG_CACHE_STATES + 2];
	unsigned placed[STG_CACHE_STATES + 2], st = 1;
	size_t n = 0, np = 0;

	for (int c = 0; c < STG_CACHE_STATES; c++)
		if (d[c].proj)
			sp[n++] = (struct xmark){ d[c].to, c };
	sp[n++] = (struct xmark){ s->setup.vcpus_total, -1 };
	sp[n++] = (struct xmark){ (unsigned)p->xmax, -2 };
	for (size_t i = 1; i < n; i++)          /* largest first */
		for (size_t j = i; j > 0 && sp[j].v > sp[j - 1].v; j--) {
			struct xmark t = sp[j];

			sp[j] = sp[j - 1];
			sp[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		bool needed = false, vm = false;

		if (!sp[i].v || !x_free(p, placed, np, sp[i].v))
			continue;
		for (size_t j = i; j < n && sp[j].v == sp[i].v; j++) {
			needed |= sp[j].c >= 0;
			vm |= sp[j].c == -1;
		}
		x_tick(b, p, sp[i].v, needed ? "needed" : vm ? "vm" : NULL,
		       needed && vm ? "this VM, needed" : needed ? "needed" :
		       vm ? "this VM" : NULL, needed && sp[i].c >= 0 ?
		       colour[sp[i].c] : "#333");
		placed[np++] = sp[i].v;
	}
	while (p->xmax / st > 8)
		st = step_next(st);
	for (unsigned v = 0; v <= p->xmax; v += st)
		if (x_free(p, placed, np, v))
			x_tick(b, p, v, NULL, NULL, NULL);
}

/* The zoomed panel's x ticks: each measured vCPU count and this VM's. */
static void zoom_x_ticks(struct rpt_buf *b, const struct rpt_sweep *s,
			 const struct panel *p)
{
	double last_x = -1e9;
	unsigned v = 0;

	for (;;) {
		unsigned next = 0;

		for (size_t i = 0; i < s->npoints; i++)
			if (s->points[i].vcpus > v &&
			    (!next || s->points[i].vcpus < next))
				next = s->points[i].vcpus;
		if (s->setup.vcpus_total > v && (!next ||
						 s->setup.vcpus_total < next))
			next = s->setup.vcpus_total;
		if (!next)
			break;
		v = next;
		if (panel_x(p, v) - last_x < 14 && v != s->setup.vcpus_total)
			continue;
		x_tick(b, p, v, v == s->setup.vcpus_total ? "vm" : NULL,
		       v == s->setup.vcpus_total ? "this VM" : NULL, "#333");
		last_x = panel_x(p, v);
	}
}

/* Where the asked count's demand line lies in P; NAN when it has none. */
static double asked_y(const struct rpt_sweep *s, const struct panel *p)
{
	const double v = (s->setup.gpu_count ? s->setup.gpu_count :
			  1) * s->v.need_per_gpu;

	return v > 0 && v <= p->ymax ? panel_y(p, v) : NAN;
}

/*
 * The storage ceiling, labelled in the right margin (beside the asked
 * count's label when they would meet); in the answer, one far above the
 * panel is named at its top instead (drawn to scale it would flatten
 * everything). Returns the label's y, NAN when none is in the margin.
 */
static double draw_ceiling(struct rpt_buf *b, const struct rpt_sweep *s,
			   const struct panel *p, bool answer)
{
	const double f = s->v.storage_files_per_s, ay = asked_y(s, p);
	char n[32];
	double y, ly;

	if (!s->v.storage_known || !(f > 0) || (f > p->ymax && !answer))
		return NAN;
	rpt_fmt_count(n, sizeof(n), f);
	if (f > p->ymax) {
		rpt_buf_printf(b, "<g class=\"ceiling\" data-files-per-s=\"%.0f\""
			       " data-above=\"1\"><text class=\"halo\" x=\"%.1f\""
			       " y=\"%.1f\" fill=\"#1f5fbf\">storage: %s%s "
			       "files/s, above this panel</text></g>\n", f,
			       p->left + 6, p->top + 12, s->v.storage_is_ceiling
			       ? "" : "at least ", n);
		return NAN;
	}
	y = panel_y(p, f);
	ly = y;
	if (!isnan(ay) && fabs(ly - ay) < LABEL_GAP)
		ly = ly >= ay ? ay + LABEL_GAP : ay - LABEL_GAP;
	rpt_buf_printf(b, "<g class=\"ceiling\" data-files-per-s=\"%.0f\"><line "
		       "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\""
		       "#1f5fbf\" stroke-dasharray=\"1 3\" stroke-width=\"2\"/>"
		       "<text x=\"%.1f\" y=\"%.1f\" fill=\"#1f5fbf\">storage %s "
		       "%s files/s</text></g>\n", f, p->left, y, p->left + p->w,
		       y, p->left + p->w + 6, ly + 4, s->v.storage_is_ceiling ?
		       "ceiling" : "at least", n);
	return ly;
}

/*
 * One line per GPU up to the asked count (those inside P only, CLS
 * "demand" in the answer, "demand-zoom" in the zoom), about
 * DEMAND_LABELS of them labelled, the asked count's always; the others
 * keep clear of the label at AVOID (NAN: none).
 */
static void draw_demand(struct rpt_buf *b, const struct rpt_sweep *s,
			const struct panel *p, const char *cls, double avoid)
{
	const double need = s->v.need_per_gpu;
	const unsigned g = s->setup.gpu_count ? s->setup.gpu_count : 1;
	double last_y = -1e9;
	unsigned st = 1;

	if (!(need > 0))
		return;
	while (g / st > DEMAND_LABELS)
		st = step_next(st);
	for (unsigned k = g; k >= 1; k--) {
		const double y = panel_y(p, k * need);
		bool label;

		if (k * need > p->ymax)
			continue;
		label = k == g || ((k == 1 || k % st == 0) &&
				   fabs(y - last_y) >= LABEL_GAP &&
				   !(fabs(y - avoid) < LABEL_GAP));
		rpt_buf_printf(b, "<g class=\"%s\" data-gpus=\"%u\"%s><line "
			       "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			       "stroke=\"%s\" stroke-width=\"%s\" "
			       "stroke-dasharray=\"%s\"/>", cls, k,
			       k == g ? " data-asked=\"1\"" : "", p->left, y,
			       p->left + p->w, y, k == g ? "#333" : label ?
			       "#888" : "#ddd", k == g ? "1.5" : "1",
			       k == g ? "7 3" : label ? "4 4" : "none");
		if (label) {
			rpt_buf_printf(b, "<text class=\"demand-label\" x=\"%.1f\""
				       " y=\"%.1f\"%s>%u x ", p->left + p->w + 6,
				       y + 4, k == g ? " font-weight=\"bold\"" :
				       "", k);
			rpt_buf_html(b, s->setup.gpu_type);
			if (k == g)
				rpt_buf_printf(b, " at %.0f %% AU",
					       s->v.au_threshold * 100);
			rpt_buf_printf(b, "</text>");
			last_y = y;
		}
		rpt_buf_printf(b, "</g>\n");
	}
}

/* The dashed continuation of state C's line to the vCPUs needed. */
static void draw_projection(struct rpt_buf *b, const struct panel *p,
			    int c, const struct state_plot *d,
			    const char *label)
{
	const double x0 = panel_x(p, d->from), y0 = panel_y(p, d->from_sps);
	const double x1 = panel_x(p, d->to), yh = panel_y(p, d->hi);
	const double yl = panel_y(p, d->lo);

	rpt_buf_printf(b, "<g class=\"projection\" data-cache=\"%s\" "
		       "data-from-vcpus=\"%u\" data-to-vcpus=\"%u\" data-lo=\""
		       "%.0f\" data-hi=\"%.0f\"><title>", stg_cache_state_name(
		       (enum stg_cache_state)c), d->from, d->to, d->lo, d->hi);
	rpt_buf_html(b, label);
	rpt_buf_printf(b, "</title>");
	if (d->hi - d->lo > PROJ_SAME * d->hi)
		rpt_buf_printf(b, "<polygon points=\"%.1f,%.1f %.1f,%.1f "
			       "%.1f,%.1f\" fill=\"%s\" fill-opacity=\"0.15\"/>"
			       "<line class=\"proj-lo\" x1=\"%.1f\" y1=\"%.1f\" "
			       "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			       "stroke-width=\"1.5\" stroke-dasharray=\"3 4\"/>"
			       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\""
			       "%.1f\" stroke=\"%s\" stroke-width=\"3\"/>",
			       x0, y0, x1, yh, x1, yl, colour[c], x0, y0, x1,
			       yl, colour[c], x1, yh, x1, yl, colour[c]);
	rpt_buf_printf(b, "<line class=\"proj-hi\" x1=\"%.1f\" y1=\"%.1f\" "
		       "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" "
		       "stroke-dasharray=\"7 5\"/><circle cx=\"%.1f\" cy=\"%.1f\" "
		       "r=\"4\" fill=\"#fff\" stroke=\"%s\" stroke-width=\"2\"/>"
		       "</g>\n", x0, y0, x1, yh, colour[c], x1, yh, colour[c]);
}

/*
 * Each state's measured points (class "pt", with a tooltip, where
 * PRIMARY; small "pt-overview" dots in the answer above a zoom) and the
 * line through them in order of vCPUs; a state whose top point was
 * dropped says so from TEXT_TOP down instead of a line.
 */
static void draw_states(struct rpt_buf *b, const struct rpt_sweep *s,
			const struct panel *p, const struct state_plot *d,
			bool primary, double text_top)
{
	unsigned nm = 0;

	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const enum stg_cache_state cs = (enum stg_cache_state)c;
		const char *name = stg_cache_state_name(cs);

		if (!d[c].any)
			continue;
		rpt_buf_printf(b, "<g class=\"%s\" data-cache=\"%s\">\n",
			       primary ? "series" : "series-overview", name);
		if (d[c].line) {
			unsigned v = 0;
			struct rpt_svg_poly poly;
			char attrs[80];

			snprintf(attrs, sizeof(attrs), " fill=\"none\" stroke="
				 "\"%s\" stroke-width=\"2\"", colour[c]);
			rpt_svg_poly_open(&poly, b, attrs);
			for (;;) {
				const struct rpt_point *next = NULL;

				for (size_t i = 0; i < s->npoints; i++) {
					const struct rpt_point *q = &s->points[i];

					if (q->cache == cs && q->status ==
					    RPT_POINT_MEASURED && q->vcpus > v &&
					    (!next || q->vcpus < next->vcpus))
						next = q;
				}
				if (!next)
					break;
				rpt_svg_poly_point(&poly, panel_x(p, next->vcpus),
						   panel_y(p, next->samples_per_s));
				v = next->vcpus;
			}
			rpt_svg_poly_close(&poly);
			rpt_buf_printf(b, "\n");
		}
		for (size_t i = 0; i < s->npoints; i++) {
			const struct rpt_point *q = &s->points[i];

			if (q->cache != cs || q->status != RPT_POINT_MEASURED)
				continue;
			if (!primary) {
				rpt_buf_printf(b, "<circle class=\"pt-overview\" "
					       "cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" "
					       "fill=\"%s\"/>\n", panel_x(p, q->vcpus),
					       panel_y(p, q->samples_per_s),
					       colour[c]);
				continue;
			}
			rpt_buf_printf(b, "<circle class=\"pt\" data-vcpus=\"%u\" "
				       "data-sps=\"%.1f\" cx=\"%.1f\" cy=\"%.1f\" "
				       "r=\"4\" fill=\"%s\"><title>%u vCPUs, %s: "
				       "%.0f samples/s</title></circle>\n",
				       q->vcpus, q->samples_per_s,
				       panel_x(p, q->vcpus),
				       panel_y(p, q->samples_per_s), colour[c],
				       q->vcpus, name, q->samples_per_s);
		}
		/* in the top left, which rising lines leave empty */
		if (s->v.cache[c].top_dropped)
			rpt_buf_printf(b, "<text class=\"not-measured halo\" "
				       "x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s: "
				       "not measured within the budget at %u "
				       "vCPUs</text>\n", p->left + 8,
				       text_top + LINE_H * nm++, colour[c], name,
				       s->setup.vcpus_total);
		rpt_buf_printf(b, "</g>\n");
	}
}

/* Has state C a line in the legend: points, a verdict or why not? */
static bool state_shown(const struct rpt_sweep *s, const struct state_plot *d,
			int c)
{
	const struct rpt_cache_verdict *cv = &s->v.cache[c];

	return d[c].any || cv->measured || cv->not_judged || cv->top_dropped;
}

/* samples/s against vCPUs: the answer, and the measured range zoomed. */
static void plot_main(struct rpt_buf *b, const struct rpt_sweep *s)
{
	struct state_plot d[STG_CACHE_STATES];
	const unsigned g = s->setup.gpu_count ? s->setup.gpu_count : 1;
	double meas_y = 0, base_y = 0, height;
	unsigned meas_x = s->setup.vcpus_total, ax;
	struct panel a, z;
	size_t nleg = 0, row = 0;
	char xtitle[128], text[512], extra[160];
	bool zoom;

	for (size_t i = 0; i < s->npoints; i++)
		if (s->points[i].vcpus > meas_x)
			meas_x = s->points[i].vcpus;
	ax = meas_x;
	/* the axis runs to the vCPUs needed where they are projected: a
	 * storage-bound state's or an inconsistent one's count means nothing
	 * more vCPUs would buy */
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		state_plot_fill(s, c, &d[c]);
		nleg += state_shown(s, d, c);
		meas_y = fmax(meas_y, d[c].top_sps);
		if (d[c].proj) {
			ax = d[c].to > ax ? d[c].to : ax;
			base_y = fmax(base_y, d[c].hi);
		}
	}
	base_y = fmax(base_y, meas_y);
	if (s->v.need_per_gpu > 0)
		base_y = fmax(base_y, g * s->v.need_per_gpu);
	if (s->v.storage_known && s->v.storage_files_per_s <= 1.5 * base_y)
		base_y = fmax(base_y, s->v.storage_files_per_s);
	a.left = z.left = ML;
	a.w = z.w = PW - ML - PMR;
	a.top = 24 + LINE_H * nleg + 16;
	a.h = PANEL_H;
	a.xmax = ax ? ax : 1;
	a.ymax = axis_top(base_y * 1.05);
	z.top = a.top + a.h + AXIS_B + 40;
	z.h = ZOOM_H;
	z.xmax = meas_x ? meas_x : 1;
	z.ymax = axis_top(meas_y * 1.08);
	zoom = meas_y > 0 && (z.ymax < ZOOM_WHEN * a.ymax ||
			      z.xmax < ZOOM_WHEN * a.xmax);
	height = zoom ? z.top + z.h + AXIS_B : a.top + a.h + AXIS_B;
	if (s->v.vcpu_kind != STG_VCPU_UNKNOWN)
		snprintf(xtitle, sizeof(xtitle), "vCPUs (one vCPU here: one "
			 "%s)", stg_vcpu_kind_name(s->v.vcpu_kind));
	else
		snprintf(xtitle, sizeof(xtitle), "vCPUs");

	snprintf(extra, sizeof(extra), " viewBox=\"0 0 %.0f %.0f\" role=\"img\""
		 " aria-label=\"samples per second against vCPUs\"", PW,
		 height);
	rpt_svg_open(b, "plot", PW, height, extra);
	rpt_buf_printf(b, "\n");
	rpt_buf_printf(b, "<g class=\"panel\" data-panel=\"answer\" data-xmax="
		       "\"%.0f\" data-ymax=\"%.0f\">\n<text class=\"panel-title\" "
		       "x=\"%.1f\" y=\"16\" font-weight=\"bold\">", a.xmax,
		       a.ymax, ML);
	if (a.xmax > s->setup.vcpus_total)
		snprintf(text, sizeof(text), "To the vCPUs %u x %s need "
			 "(dashed: projected)", g, s->setup.gpu_type ?
			 s->setup.gpu_type : "GPU");
	else
		snprintf(text, sizeof(text), "This VM's %u vCPUs against "
			 "%u x %s", s->setup.vcpus_total, g, s->setup.gpu_type ?
			 s->setup.gpu_type : "GPU");
	rpt_buf_html(b, text);
	rpt_buf_printf(b, "</text>\n");
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		double y;

		if (!state_shown(s, d, c))
			continue;
		y = 24 + LINE_H * (double)++row;
		state_legend(s, c, &d[c], text, sizeof(text));
		rpt_buf_printf(b, "<g class=\"legend\" data-cache=\"%s\"><line "
			       "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			       "stroke=\"%s\" stroke-width=\"2\"%s/>",
			       stg_cache_state_name((enum stg_cache_state)c),
			       ML, y - 4, ML + 16, y - 4, colour[c],
			       d[c].line ? "" : " stroke-dasharray=\"1 3\"");
		if (d[c].proj)
			rpt_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\""
				       "%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-"
				       "width=\"2\" stroke-dasharray=\"4 3\"/>",
				       ML + 18, y - 4, ML + 34, y - 4,
				       colour[c]);
		rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">",
			       ML + 40, y, colour[c]);
		rpt_buf_html(b, text);
		rpt_buf_printf(b, "</text></g>\n");
	}
	panel_frame(b, &a, xtitle);
	answer_x_ticks(b, s, &a, d);
	draw_demand(b, s, &a, "demand", draw_ceiling(b, s, &a, true));
	for (int c = 0; c < STG_CACHE_STATES; c++)
		if (d[c].proj) {
			state_legend(s, c, &d[c], text, sizeof(text));
			draw_projection(b, &a, c, &d[c], text);
		}
	draw_states(b, s, &a, d, !zoom, a.top + (s->v.storage_known &&
		    s->v.storage_files_per_s > a.ymax ? 28 : 14));
	rpt_buf_printf(b, "</g>\n");
	if (zoom) {
		char top[32];

		rpt_fmt_count(top, sizeof(top), z.ymax);
		rpt_buf_printf(b, "<g class=\"panel\" data-panel=\"measured\" "
			       "data-xmax=\"%.0f\" data-ymax=\"%.0f\">\n<text "
			       "class=\"panel-title\" x=\"%.1f\" y=\"%.1f\" "
			       "font-weight=\"bold\">The measured points, zoomed "
			       "(to %u vCPUs and %s samples/s)</text>\n",
			       z.xmax, z.ymax, ML, z.top - 12, meas_x, top);
		panel_frame(b, &z, xtitle);
		zoom_x_ticks(b, s, &z);
		draw_demand(b, s, &z, "demand-zoom",
			    draw_ceiling(b, s, &z, false));
		draw_states(b, s, &z, d, true, z.top + 14);
		rpt_buf_printf(b, "</g>\n");
	}
	rpt_svg_close(b);
}

/* A point's 1 s series as a small line chart. */
static void plot_series(struct rpt_buf *b, const struct rpt_point *p,
			int c)
{
	const double w = 320, h = 90;
	struct rpt_svg_poly poly;
	char extra[96];
	double tmax = 0, ymax = 0;

	for (unsigned i = 0; i < p->series_len; i++) {
		tmax = fmax(tmax, p->series[i].t_s);
		ymax = fmax(ymax, p->series[i].samples_per_s);
	}
	ymax = nice_max(ymax * 1.05);
	if (tmax <= 0)
		tmax = 1;
	snprintf(extra, sizeof(extra), " data-vcpus=\"%u\" data-cache=\"%s\"",
		 p->vcpus, stg_cache_state_name(p->cache));
	rpt_svg_open(b, "tseries", w, h + 16, extra);
	rpt_buf_printf(b, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
		       "fill=\"#fafafa\" stroke=\"#ddd\"/>", w, h);
	snprintf(extra, sizeof(extra), " fill=\"none\" stroke=\"%s\"",
		 colour[c]);
	rpt_svg_poly_open(&poly, b, extra);
	for (unsigned i = 0; i < p->series_len; i++)
		rpt_svg_poly_point(&poly, w * p->series[i].t_s / tmax,
				   h - h * p->series[i].samples_per_s / ymax);
	rpt_svg_poly_close(&poly);
	rpt_buf_printf(b, "<text x=\"4\" y=\"12\">%.0f</text><text x=\"4\" "
		       "y=\"%.0f\">%u vCPUs, %s, %.0f s</text>", ymax, h + 13,
		       p->vcpus, stg_cache_state_name(p->cache), tmax);
	rpt_svg_close(b);
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
	static const char *const heads[] = {
		"cache", "vCPUs", "samples/s", "GPUs fed", "check", "limit",
		"vCPUs/GPU", "hit ratio",
	};

	rpt_html_table(b, "verdict-table", heads,
		       sizeof(heads) / sizeof(heads[0]));
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const struct rpt_cache_verdict *cv = &s->v.cache[c];

		if (cv->top_dropped) {
			rpt_buf_printf(b, "<tr><td>%s</td><td colspan=\"7\" "
				       "class=\"note\">not measured within the "
				       "budget at %u vCPUs: no verdict from "
				       "fewer</td></tr>\n",
				       stg_cache_state_name((enum stg_cache_state)c),
				       s->setup.vcpus_total);
			continue;
		}
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
		if (cv->projected && !cv->storage_bound && !cv->top_dropped) {
			const double hi = cv->projected_samples_per_s;
			const double lo = cv->projected_lo > 0 ?
					  fmin(cv->projected_lo, hi) : hi;
			char l[32], h[32];

			rpt_fmt_count(l, sizeof(l), lo);
			rpt_fmt_count(h, sizeof(h), hi);
			rpt_buf_printf(b, "<tr><td colspan=\"8\" class=\"note\">"
				       "PROJECTED: %u vCPUs needed for %u GPU%s",
				       cv->vcpus_needed, s->setup.gpu_count,
				       s->setup.gpu_count == 1 ? "" : "s");
			if (cv->vcpus_reserved)
				rpt_buf_printf(b, " (and %u for the training "
					       "job)", cv->vcpus_reserved);
			rpt_buf_printf(b, ", %s%s%s samples/s there, from the "
				       "rate measured at %u vCPUs (same CPU "
				       "model only)</td></tr>\n",
				       strcmp(l, h) ? l : "",
				       strcmp(l, h) ? "-" : "", h,
				       cv->vcpus_top);
		}
		if (cv->storage_bound)
			rpt_buf_printf(b, "<tr><td colspan=\"8\" class=\"note\">"
				       "storage-bound: more vCPUs do not help, "
				       "nothing projected</td></tr>\n");
	}
	rpt_html_table_end(b);
}

static void facts_table(struct rpt_buf *b, const struct rpt_sweep *s)
{
	rpt_html_table(b, "facts", NULL, 0);
	rpt_buf_printf(b, "<tr><td>CPU</td><td>");
	rpt_buf_html(b, s->setup.cpu_model);
	rpt_buf_printf(b, " (%u usable vCPUs)</td></tr><tr><td>RAM</td><td>"
		       "%.2f GB (%.2f GB available)", s->setup.vcpus_total,
		       s->setup.ram_total / 1e9, s->setup.ram_available / 1e9);
	if (s->setup.cgroup_limit >= 0)
		rpt_buf_printf(b, ", cgroup limit %.2f GB",
			       s->setup.cgroup_limit / 1e9);
	rpt_buf_printf(b, "</td></tr><tr><td>instance</td><td>");
	rpt_buf_html(b, s->setup.instance_type);
	rpt_buf_printf(b, " ");
	rpt_buf_html(b, s->setup.vendor);
	rpt_buf_printf(b, "</td></tr><tr><td>dataset</td><td>");
	rpt_buf_html_path(b, s->setup.dataset);
	rpt_buf_printf(b, " (%llu files, %.1f MB%s)</td></tr><tr><td>storage"
		       "</td><td>", (unsigned long long)s->setup.files,
		       s->setup.bytes / 1e6,
		       s->setup.generated ? ", generated" : "");
	rpt_buf_html(b, s->setup.fs_type);
	rpt_buf_printf(b, " on ");
	rpt_buf_html(b, s->setup.fs_device);
	rpt_buf_printf(b, "%s, backend ", s->setup.fs_network ? " (network)" :
		       "");
	rpt_buf_html(b, s->backend);
	rpt_buf_printf(b, "</td></tr><tr><td>pipeline</td><td>");
	rpt_buf_html(b, s->setup.pipeline);
	rpt_buf_printf(b, "</td></tr><tr><td>demand</td><td>");
	rpt_buf_html(b, s->setup.gpu_type);
	rpt_buf_printf(b, " (");
	rpt_buf_html(b, s->setup.gpu_detail);
	rpt_buf_printf(b, "): %.0f samples/s per GPU, ",
		       s->setup.demand_per_gpu);
	rpt_buf_html(b, s->setup.demand_kind);
	rpt_buf_printf(b, "%s; source: ", s->setup.demand_est ? " (estimate)" :
		       "");
	rpt_buf_html(b, s->setup.demand_source);
	rpt_buf_printf(b, "</td></tr><tr><td>budget</td><td>%.0f s of %.0f s; ",
		       s->elapsed_s, s->budget_s);
	rpt_buf_html(b, s->budget_rule);
	rpt_buf_printf(b, "</td></tr>");
	if (s->notes && *s->notes) {
		rpt_buf_printf(b, "<tr><td>notes</td><td>");
		rpt_buf_html(b, s->notes);
		rpt_buf_printf(b, "</td></tr>");
	}
	rpt_html_table_end(b);
}

static void points_table(struct rpt_buf *b, const struct rpt_sweep *s)
{
	static const char *const heads[] = {
		"vCPUs", "cache", "status", "samples/s", "AU", "hit ratio",
		"MB/s", "bottleneck",
	};

	rpt_html_table(b, "points", heads, sizeof(heads) / sizeof(heads[0]));
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
		rpt_buf_printf(b, "measured%s%s",
			       p->cache == STG_CACHE_RAM && p->ram_not_limited ?
			       " (page cache not limited: ran warm)" : "",
			       rpt_point_too_short(p) ? " (too short)" : "");
		if (rpt_point_sampled(p, s->setup.files))
			rpt_buf_printf(b, " (on a sample of %llu of %llu files, "
				       "the page cache scaled alike)",
				       (unsigned long long)p->sample_files,
				       (unsigned long long)s->setup.files);
		rpt_buf_printf(b, "</td><td>%.0f</td><td>", p->samples_per_s);
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
	rpt_html_table_end(b);
}

/* ---- the RAM axis: samples/s and hit ratio against page-cache size ---- */

#define RAM_HIT_H 200.0         /* the hit-ratio panel */
#define RAM_SPS_H 240.0         /* the samples/s panel */
#define RAM_MODEL_STEPS 100     /* segments of a model curve */

/* A RAM panel's frame: axes, the y grid labelled as percent (PERCENT)
 * or samples/s, the y title and the x ticks at every quarter of the
 * dataset with their page-cache sizes. */
static void ram_frame(struct rpt_buf *b, const struct panel *p, bool percent,
		      uint64_t dataset)
{
	const double st = percent ? 0.25 : tick_step(p->ymax, 4);
	char n[32];

	rpt_svg_axes(b, p->left, p->top, p->w, p->h);
	for (int k = 0; k * st <= p->ymax * (1 + 1e-9); k++) {
		const double y = panel_y(p, k * st);

		if (percent)
			snprintf(n, sizeof(n), "%.0f %%", k * st * 100);
		else
			rpt_fmt_count(n, sizeof(n), k * st);
		rpt_buf_printf(b, "<text class=\"ytick\" x=\"%.1f\" y=\"%.1f\" "
			       "text-anchor=\"end\">%s</text>", p->left - 6,
			       y + 4, n);
		if (k)
			rpt_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" "
				       "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>",
				       p->left, y, p->left + p->w, y);
		rpt_buf_printf(b, "\n");
	}
	for (int k = 0; k <= 4; k++) {
		const double x = panel_x(p, k / 4.0), y = p->top + p->h;

		rpt_fmt_bytes(n, sizeof(n), (double)dataset * k / 4);
		rpt_buf_printf(b, "<g class=\"xtick\"><line x1=\"%.1f\" y1=\""
			       "%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
			       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
			       "%d %%</text><text x=\"%.1f\" y=\"%.1f\" text-"
			       "anchor=\"middle\" fill=\"#666\">%s</text></g>\n",
			       x, y, x, y + 4, x, y + 16, k * 25, x, y + 29, n);
	}
	rpt_buf_printf(b, "<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 "
		       "14 %.1f)\" text-anchor=\"middle\">%s</text>\n",
		       p->top + p->h / 2, p->top + p->h / 2, percent ?
		       "hit ratio" : "samples/s");
}

/* A horizontal line at Y in P with a label in the right margin. */
static void ram_hline(struct rpt_buf *b, const struct panel *p, double y,
		      const char *cls, const char *stroke, const char *dash,
		      const char *label)
{
	const double py = panel_y(p, y);

	rpt_buf_printf(b, "<g class=\"%s\"><line x1=\"%.1f\" y1=\"%.1f\" "
		       "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray="
		       "\"%s\" stroke-width=\"1.5\"/><text x=\"%.1f\" y=\"%.1f\" "
		       "fill=\"%s\">", cls, p->left, py, p->left + p->w, py,
		       stroke, dash, p->left + p->w + 6, py + 4, stroke);
	rpt_buf_html(b, label);
	rpt_buf_printf(b, "</text></g>\n");
}

/* A vertical marker at fraction F of the dataset, labelled at the top. */
static void ram_vline(struct rpt_buf *b, const struct panel *p, double f,
		      const char *cls, const char *stroke, const char *label)
{
	const double x = panel_x(p, f);

	rpt_buf_printf(b, "<g class=\"%s\" data-fraction=\"%.4f\"><line x1=\""
		       "%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		       "stroke-dasharray=\"5 3\"/><text class=\"halo\" x=\"%.1f\" "
		       "y=\"%.1f\" fill=\"%s\" text-anchor=\"%s\">", cls, f, x,
		       p->top, x, p->top + p->h, stroke, x + (f > 0.7 ? -4 : 4),
		       p->top + 12, stroke, f > 0.7 ? "end" : "start");
	rpt_buf_html(b, label);
	rpt_buf_printf(b, "</text></g>\n");
}

/* The measured rows of the curve as dots in panel P (HIT: their hit
 * ratios, else their samples/s). */
static void ram_dots(struct rpt_buf *b, const struct rpt_sweep *s,
		     const struct panel *p, bool hit)
{
	for (size_t i = 0; i < s->v.nram_curve; i++) {
		const struct rpt_ram_row *r = &s->v.ram_curve[i];
		const double y = hit ? r->hit_ratio : r->samples_per_s;
		char smp[96] = "";
		int c;

		if (r->point < 0 || y < 0 || !r->cache)
			continue;
		c = !strcmp(r->cache, "cold") ? STG_CACHE_COLD :
		    !strcmp(r->cache, "warm") ? STG_CACHE_WARM : STG_CACHE_RAM;
		if ((size_t)r->point < s->npoints &&
		    rpt_point_sampled(&s->points[r->point], s->setup.files))
			snprintf(smp, sizeof(smp), "; on a sample of %llu of "
				 "%llu files, the page cache scaled alike",
				 (unsigned long long)
				 s->points[r->point].sample_files,
				 (unsigned long long)s->setup.files);
		rpt_buf_printf(b, "<circle class=\"ram-pt\" data-cache=\"%s\" "
			       "data-fraction=\"%.4f\" data-%s=\"%.4f\"%s cx=\""
			       "%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\" stroke="
			       "\"%s\" stroke-width=\"2\"><title>%s, %.0f %% of "
			       "the dataset cached: hit %.1f %% (model %.1f %%), "
			       "%.0f samples/s%s%s</title></circle>\n", r->cache,
			       r->fraction, hit ? "hit" : "sps", y, smp[0] ?
			       " data-sampled=\"1\"" : "",
			       panel_x(p, fmin(r->fraction, 1)), panel_y(p,
			       fmin(y, p->ymax)), r->disagrees ? "#fff" :
			       colour[c], colour[c], r->source,
			       r->fraction * 100, r->hit_ratio * 100,
			       r->model_hit * 100, r->samples_per_s,
			       r->disagrees ? "; DISAGREES with the model" : "",
			       smp);
	}
}

/* samples/s and hit ratio against page-cache size: the model's curves,
 * the measured points, the hit needed and the demand of the asked GPUs,
 * the storage ceiling, the page cache needed and this VM's. */
/* A demand line more than this many times the RAM plot's highest point
 * or ceiling is said above the panel instead of stretching its axis. */
#define RAM_DEMAND_ZOOM 3.0

/* The model's dashed line. */
#define MODEL_LINE " class=\"model\" fill=\"none\" stroke=\"#555\" " \
	"stroke-width=\"1.5\" stroke-dasharray=\"6 3\""

static void plot_ram(struct rpt_buf *b, const struct rpt_sweep *s)
{
	const struct rpt_sweep_verdict *v = &s->v;
	const struct rpt_ram_need *n = &v->ram_need;
	const double demand = v->need_per_gpu * (s->setup.gpu_count ?
						 s->setup.gpu_count : 1);
	struct panel h = { .left = ML, .top = 30, .w = PW - ML - PMR,
			   .h = RAM_HIT_H, .xmax = 1, .ymax = 1 };
	struct panel r = h;
	double ytop = 0, height;
	bool demand_above = false;
	struct rpt_svg_poly poly;
	char text[160], num[32], extra[160];

	if (!v->nram_curve || !s->setup.bytes)
		return;
	for (size_t i = 0; i < v->nram_curve; i++)
		ytop = fmax(ytop, v->ram_curve[i].samples_per_s);
	if (n->storage_samples_per_s > 0)
		ytop = fmax(ytop, n->storage_samples_per_s);
	/* a demand far above every point would flatten them against the
	 * axis: it is then said above the panel, not drawn */
	if (demand > RAM_DEMAND_ZOOM * ytop && ytop > 0)
		demand_above = true;
	else
		ytop = fmax(ytop, demand);
	r.top = h.top + h.h + AXIS_B + 30;
	r.h = RAM_SPS_H;
	r.ymax = axis_top(ytop * 1.08);
	height = r.top + r.h + AXIS_B;
	snprintf(extra, sizeof(extra), " viewBox=\"0 0 %.0f %.0f\" role=\"img\""
		 " aria-label=\"hit ratio and samples per second against "
		 "page-cache size\"", PW, height);
	rpt_svg_open(b, "ram-plot", PW, height, extra);
	rpt_buf_printf(b, "\n");
	/* the hit ratio */
	rpt_buf_printf(b, "<g class=\"panel\" data-panel=\"hit\"><text class=\""
		       "panel-title\" x=\"%.1f\" y=\"16\" font-weight=\"bold\">"
		       "Hit ratio against the page cache (share of the dataset)"
		       "</text>\n", ML);
	ram_frame(b, &h, true, s->setup.bytes);
	rpt_svg_poly_open(&poly, b, MODEL_LINE);
	for (int k = 0; k <= RAM_MODEL_STEPS; k++) {
		const double f = (double)k / RAM_MODEL_STEPS;

		rpt_svg_poly_point(&poly, panel_x(&h, f),
				   panel_y(&h, jdg_lru_hit(f)));
	}
	rpt_svg_poly_close(&poly);
	rpt_buf_printf(b, "\n");
	rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">model: "
		       "LRU, shuffled epochs</text>\n", h.left + h.w + 6,
		       panel_y(&h, jdg_lru_hit(0.9)) + 4);
	if (n->known && !n->no_cache_needed && n->hit_needed < 1) {
		snprintf(text, sizeof(text), "hit needed: %.0f %%",
			 n->hit_needed * 100);
		ram_hline(b, &h, n->hit_needed, "hit-needed", "#333", "7 3",
			  text);
	}
	ram_dots(b, s, &h, true);
	rpt_buf_printf(b, "</g>\n");
	/* samples/s */
	rpt_buf_printf(b, "<g class=\"panel\" data-panel=\"samples\"><text "
		       "class=\"panel-title\" x=\"%.1f\" y=\"%.1f\" font-weight"
		       "=\"bold\">Samples/s against the page cache (%u vCPUs)"
		       "</text>\n", ML, r.top - 12, s->setup.vcpus_total);
	ram_frame(b, &r, false, s->setup.bytes);
	if (demand > 0 && demand <= r.ymax) {
		snprintf(text, sizeof(text), "%u x %s at %.0f %% AU",
			 s->setup.gpu_count ? s->setup.gpu_count : 1,
			 s->setup.gpu_type ?
			 s->setup.gpu_type : "GPU", v->au_threshold * 100);
		ram_hline(b, &r, demand, "demand", "#333", "7 3", text);
	} else if (demand_above) {
		rpt_fmt_count(num, sizeof(num), demand);
		rpt_buf_printf(b, "<text class=\"demand-above\" x=\"%.1f\" "
			       "y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">"
			       "&#8593; %u x ", r.left + r.w, r.top - 12,
			       s->setup.gpu_count ? s->setup.gpu_count : 1);
		rpt_buf_html(b, s->setup.gpu_type ? s->setup.gpu_type : "GPU");
		rpt_buf_printf(b, " at %.0f %% AU need %s/s, above this panel"
			       "</text>\n", v->au_threshold * 100, num);
	}
	if (n->storage_samples_per_s > 0) {
		rpt_fmt_count(num, sizeof(num), n->storage_samples_per_s);
		snprintf(text, sizeof(text), "storage %s %s/s", n->at_most ?
			 "at least" : "ceiling", num);
		ram_hline(b, &r, n->storage_samples_per_s, "ceiling",
			  colour[STG_CACHE_COLD], "1 3", text);
	}
	rpt_svg_poly_open(&poly, b, MODEL_LINE);
	for (int k = 0; k <= RAM_MODEL_STEPS; k++) {
		const double f = (double)k / RAM_MODEL_STEPS;
		const double y = jdg_ram_model_feed(
			v->ram_need.storage_samples_per_s,
			v->ram_cpu_samples_per_s, jdg_lru_hit(f));

		if (y >= 0)
			rpt_svg_poly_point(&poly, panel_x(&r, f),
					   panel_y(&r, fmin(y, r.ymax)));
	}
	rpt_svg_poly_close(&poly);
	rpt_buf_printf(b, "\n");
	ram_dots(b, s, &r, false);
	rpt_buf_printf(b, "</g>\n");
	/* the page cache needed, and this VM's, across both panels */
	for (int k = 0; k < 2; k++) {
		const struct panel *p = k ? &r : &h;

		if (n->known && !n->no_cache_needed && !n->none_suffices) {
			rpt_fmt_bytes(num, sizeof(num),
				      (double)n->page_cache_bytes);
			snprintf(text, sizeof(text), "needed: %s%s", n->at_most ?
				 "at most " : "", num);
			ram_vline(b, p, n->fraction_needed, "ram-needed",
				  "#c0392b", text);
		}
		if (n->known && n->fraction_here > 0 && n->fraction_here < 1) {
			rpt_fmt_bytes(num, sizeof(num),
				      (double)n->page_cache_here);
			snprintf(text, sizeof(text), "this VM: %s", num);
			ram_vline(b, p, n->fraction_here, "ram-here", "#1f5fbf",
				  text);
		}
	}
	rpt_svg_close(b);
}

/* Cell: shape F's vCPUs needed (a range where the SMT yield is assumed),
 * as the text report rounds them. */
static void catalog_needed(struct rpt_buf *b, const struct rpt_shape_fit *f)
{
	if (f->vcpus_needed < 0)
		rpt_buf_printf(b, "<td class=\"needed\">-</td><td class=\""
			       "spare\">-</td>");
	else if (f->vcpus_needed - f->vcpus_needed_lo < 0.5)
		rpt_buf_printf(b, "<td class=\"needed\">%.0f</td><td class="
			       "\"spare\">%+.0f</td>",
			       ceil(f->vcpus_needed - 1e-9),
			       floor(f->vcpus_spare + 1e-9));
	else
		rpt_buf_printf(b, "<td class=\"needed\">%.0f&ndash;%.0f"
			       "</td><td class=\"spare\">%+.0f..%+.0f</td>",
			       ceil(f->vcpus_needed_lo - 1e-9),
			       ceil(f->vcpus_needed - 1e-9),
			       floor(f->vcpus_spare + 1e-9),
			       floor(f->vcpus_spare_hi + 1e-9));
}

/* Cell: what shape F's GPUs eat, from which demand row, its basis and
 * (as a tooltip) its source. */
static void catalog_demand(struct rpt_buf *b, const struct rpt_shape_fit *f)
{
	const struct rpt_shape *sh = f->shape;
	char dem[24];

	rpt_fmt_count(dem, sizeof(dem), f->demand_total);
	rpt_buf_printf(b, "<td class=\"demand\">%u x ", sh->gpus);
	rpt_buf_html(b, sh->demand_row ? sh->demand_row : sh->gpu);
	rpt_buf_printf(b, ": %s samples/s (<span class=\"basis\"", dem);
	if (sh->demand_source) {
		rpt_buf_printf(b, " title=\"");
		rpt_buf_html(b, sh->demand_source);
		rpt_buf_printf(b, "\"");
	}
	rpt_buf_printf(b, ">");
	rpt_buf_html(b, sh->demand_basis ? sh->demand_basis :
		     "the asked per-GPU rate x count");
	rpt_buf_printf(b, "</span>%s%s)</td>", sh->demand_multi_measured ||
		       sh->gpus > 1 ? ", " : "", sh->demand_multi_measured ?
		       rpt_demand_multi_words(sh->demand_basis) :
		       sh->gpus > 1 ? "count x 1 GPU" : "");
}

/* The catalogue, as the text report gives it: each shape in its own kind
 * of vCPU, the vCPUs needed (a range where the SMT yield is assumed),
 * the training job's reserve, spare, the judgement and the demand row. */
static void catalog_table(struct rpt_buf *b, const struct rpt_sweep *s)
{
	static const char *const catalog_heads[] = {
		"shape", "GPUs", "vCPUs", "vCPU", "needed", "spare", "reserved",
		"fit", "demand", "RAM GiB", "dataset in RAM",
		"page cache for its GPUs here",
	};
	const struct rpt_sweep_verdict *v = &s->v;
	char text[640], yield[160], rsv[32];

	if (v->catalog_cache < 0) {
		rpt_buf_printf(b, "<p class=\"note catalog-unjudged\">Not "
			       "judged: ");
		rpt_buf_html(b, rpt_catalog_unjudged_text(s, text,
							  sizeof(text)));
		rpt_buf_printf(b, ".</p>\n");
		return;
	}
	rpt_buf_printf(b, "<p class=\"note catalog-basis\">");
	rpt_buf_html(b, rpt_catalog_basis_text(s, text, sizeof(text)));
	rpt_buf_printf(b, ".</p>\n");
	if (!v->nfits) {
		rpt_buf_printf(b, "<p class=\"note\">None in the catalogue for "
			       "this GPU type.</p>\n");
		return;
	}
	rpt_html_table(b, "catalog", catalog_heads,
		       sizeof(catalog_heads) / sizeof(catalog_heads[0]));
	for (size_t i = 0; i < v->nfits; i++) {
		const struct rpt_shape_fit *f = &v->fits[i];
		const struct rpt_shape *sh = f->shape;
		char ram[32];

		rpt_buf_printf(b, "<tr><td>");
		rpt_buf_html(b, sh->name);
		rpt_buf_printf(b, "</td><td>%u</td><td>%u</td><td class=\""
			       "vcpu-kind\"", sh->gpus, sh->vcpus);
		if (sh->vcpu_kind_source && *sh->vcpu_kind_source) {
			rpt_buf_printf(b, " title=\"");
			rpt_buf_html(b, sh->vcpu_kind_source);
			rpt_buf_printf(b, "\"");
		}
		rpt_buf_printf(b, ">%s</td>", stg_vcpu_kind_name(sh->vcpu_kind));
		catalog_needed(b, f);
		rpt_fmt_bytes(ram, sizeof(ram), (double)f->ram_reserved);
		rpt_buf_printf(b, "<td class=\"reserved\">%.0f vCPUs, %s</td>"
			       "<td class=\"fit\">%s</td>",
			       ceil(f->vcpus_reserved - 1e-9), ram,
			       rpt_fit_text(f->fits));
		catalog_demand(b, f);
		rpt_buf_printf(b, "<td>%.0f%s</td><td>%s</td><td>%s</td></tr>\n",
			       sh->ram_gib, sh->recalled ? " (recalled)" : "",
			       f->ram_holds_dataset ? "yes" : "no",
			       f->ram_fit == RPT_RAM_FIT_ENOUGH ? "enough" :
			       f->ram_fit == RPT_RAM_FIT_SHORT ? "short" :
			       f->ram_fit == RPT_RAM_FIT_NONE ? "no size "
			       "below the whole dataset" : "?");
	}
	rpt_html_table_end(b);
	rpt_fmt_bytes(rsv, sizeof(rsv), (double)v->reserve_ram_per_gpu);
	snprintf(text, sizeof(text), "vCPU: what one of its vCPUs is (the "
		 "source in its tooltip). needed: for the pipeline, in its kind "
		 "of vCPU, a range where this VM's per-vCPU rate is converted "
		 "with an SMT yield of %s. reserved: for the training job, %.1f "
		 "vCPU and %s RAM per GPU. spare: vCPUs - needed - reserved. "
		 "fit: spare >= 0 at the worst end (fits), only at the best end "
		 "(maybe), at neither (lacks). Dataset in RAM: dataset + "
		 "reserved RAM <= %.0f %% of RAM.",
		 rpt_smt_yield_text(s, yield, sizeof(yield)),
		 v->reserve_vcpus_per_gpu, rsv, RPT_RAM_SHARE * 100);
	rpt_buf_printf(b, "<p class=\"note catalog-key\">");
	rpt_buf_html(b, text);
	rpt_buf_printf(b, "</p>\n");
}

/* The RAM axis's section: its plot, the RAM verdict and the model. */
static void ram_section(struct rpt_buf *b, const struct rpt_sweep *s)
{
	unsigned sampled = 0;

	if (!s->v.nram_curve)
		return;
	rpt_buf_printf(b, "<h2>samples/s and hit ratio against page-cache "
		       "size</h2>\n");
	plot_ram(b, s);
	rpt_buf_printf(b, "<p class=\"verdict ram-verdict\">");
	rpt_buf_html(b, s->v.ram_text);
	rpt_buf_printf(b, "</p>\n<p class=\"note\">Dots: measured at all "
		       "vCPUs (cold: nothing cached; warm: all of it; ram: a "
		       "memory cgroup of that page cache, hit ratio measured; "
		       "a hollow dot disagrees with the model by more than "
		       "%.2f). Dashed grey: the model, an LRU page cache under "
		       "shuffled epochs, f + (1 - f) ln(1 - f); its samples/s "
		       "are the lower of the CPU's rate (warm) and the "
		       "storage's through the misses. ", RPT_RAM_MODEL_TOL);
	rpt_buf_html(b, s->v.ram_model_text);
	rpt_buf_printf(b, ".");
	for (size_t i = 0; i < s->v.nram_curve; i++) {
		const int k = s->v.ram_curve[i].point;

		sampled += k >= 0 && (size_t)k < s->npoints &&
			   rpt_point_sampled(&s->points[k], s->setup.files);
	}
	/* the hit ratio of a sample stands for the dataset: say so */
	if (sampled)
		rpt_buf_printf(b, " %u ram point%s measured on an evenly "
			       "spread sample of the files (the dots' titles "
			       "say how many) with the page cache scaled by "
			       "the same factor, as the epochs of the whole "
			       "dataset did not fit %s share of the budget: "
			       "under the model the hit ratio depends on the "
			       "share cached alone, so it holds for the whole "
			       "dataset.", sampled, sampled == 1 ? " was" :
			       "s were", sampled == 1 ? "its" : "their");
	rpt_buf_printf(b, "</p>\n");
}

char *rpt_sweep_html(const struct rpt_sweep *s)
{
	struct rpt_buf b;
	bool projected = false;

	rpt_buf_init(&b);
	rpt_html_head(&b, "feedrate sweep");
	rpt_buf_printf(&b, "<h1>feedrate sweep: ");
	rpt_buf_html(&b, s->setup.workload);
	rpt_buf_printf(&b, " against ");
	rpt_buf_html(&b, s->setup.gpu_type);
	rpt_buf_printf(&b, "</h1>\n<p class=\"verdict\">");
	rpt_buf_html(&b, s->v.headline);
	rpt_buf_printf(&b, "</p>\n");
	verdict_table(&b, s);
	rpt_buf_printf(&b, "<h2>samples/s against vCPUs</h2>\n");
	plot_main(&b, s);
	rpt_buf_printf(&b, "<p class=\"note\">Raw feed rate (no GPU consuming)."
		       " Grey horizontal lines: what 1, 2, ... GPUs eat at the "
		       "AU threshold (%.0f %%: %.0f samples/s each), the asked "
		       "count's in black. Dotted: storage, seen cold.",
		       s->v.au_threshold * 100, s->v.need_per_gpu);
	for (int c = 0; c < STG_CACHE_STATES; c++)
		projected = projected || s->v.cache[c].projected;
	if (projected)
		rpt_buf_printf(&b, " A dashed line goes on from a state's top "
			       "measured point to the vCPUs needed: a "
			       "projection for the same CPU model, from the "
			       "measured scaling (low end) to a straight line "
			       "at the top point's rate per vCPU (high end).");
	rpt_buf_printf(&b, "</p>\n");
	if (s->v.storage_known)
		rpt_buf_printf(&b, "<p>Storage, cold: %.1f MB/s, %.0f files/s "
			       "(%s); feeds %.1f GPUs.</p>\n",
			       s->v.storage_bytes_per_s / 1e6,
			       s->v.storage_files_per_s,
			       s->v.storage_is_ceiling ? "the ceiling" :
			       "a lower bound: the CPU was the limit",
			       s->v.storage_gpus);
	ram_section(&b, s);
	rpt_pipelines_html(&b, s);
	rpt_buf_printf(&b, "<h2>points</h2>\n");
	points_table(&b, s);
	for (size_t i = 0; i < s->nothers; i++) {
		rpt_buf_printf(&b, "<h2>points: ");
		rpt_buf_html(&b, s->others[i]->setup.pipeline);
		rpt_buf_printf(&b, "</h2>\n<p class=\"verdict\">");
		rpt_buf_html(&b, s->others[i]->v.headline);
		rpt_buf_printf(&b, "</p>\n");
		points_table(&b, s->others[i]);
	}
	rpt_buf_printf(&b, "<h2>time series</h2>\n<div>");
	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];

		if (p->status == RPT_POINT_MEASURED && p->series &&
		    p->series_len)
			plot_series(&b, p, (int)p->cache);
	}
	rpt_buf_printf(&b, "</div>\n<h2>catalogued shapes</h2>\n");
	catalog_table(&b, s);
	rpt_sweep_cost_html(&b, s);
	rpt_buf_printf(&b, "<h2>machine and storage</h2>\n");
	facts_table(&b, s);
	rpt_buf_printf(&b, "<p class=\"note\">feedrate ");
	rpt_buf_html(&b, s->setup.version);
	rpt_buf_printf(&b, ", report schema %s v%d</p>\n",
		       RPT_SWEEP_SCHEMA_NAME, RPT_SWEEP_SCHEMA_VERSION);
	rpt_html_end(&b);
	return rpt_buf_take(&b);
}
