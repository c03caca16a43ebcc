/*
 * report_cluster_sweep.c - the report of a sweep launched through MPI:
 * ranks x cache states x vCPUs. Each point is a cluster report of its own
 * (rpt_cluster_totals gives its figures, rpt_cluster_json its JSON); this
 * file groups the points into series of one cache state and one vCPU
 * count, and says how the total grows with the ranks: the efficiency
 * against the 1-rank point, how far it stays >= 90 %, from where the
 * ranks wait on the storage. Text, JSON and HTML. Pure: reads the structs
 * only. Text from other nodes is escaped as report_cluster.c does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"
#include "rpt_html.h"
#include "rpt_json.h"
#include "report_cluster.h"
#include "judge.h"
#include "rpt_text.h"
#include "report_sweep.h"       /* struct rpt_buf */
#include "verdict.h"

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* GPUs were emulated: a type and a count per rank. */
static bool emulated(const struct rpt_cluster_sweep *s)
{
	return s->setup.gpu_type && *s->setup.gpu_type &&
	       s->setup.gpu_count > 0;
}

static bool same_cache(const char *a, const char *b)
{
	return !strcmp(nz(a), nz(b));
}

/* ---- one point's figures ---- */

struct pt_fig {
	struct rpt_cluster_totals t;
	bool measured;                  /* a rank of it counted */
	double per_rank;                /* total / counted ranks */
	bool storage_bound;             /* half its counted ranks or more */
	bool fed;                       /* GPUs emulated, every node fed */
	unsigned missing;               /* ranks lost or failed */
	int limit_rank;                 /* a counted rank with the majority
	                                   bottleneck; -1 none */
};

static void point_figures(const struct rpt_cluster_sweep *s,
			  const struct rpt_cluster_point *p, struct pt_fig *f)
{
	const struct rpt_cluster *c = &p->report;
	unsigned best = 0;

	rpt_cluster_totals(c, &f->t);
	f->measured = f->t.reported > 0;
	f->per_rank = f->measured ? f->t.samples_per_s / f->t.reported : 0;
	f->storage_bound = jdg_storage_bound(f->t.reported,
					     f->t.storage_bound_ranks);
	f->fed = jdg_cluster_fed(emulated(s), f->t.nodes_fed, p->nodes);
	f->missing = f->t.lost + f->t.failed;
	/* the bottleneck most counted ranks name; ties go to the lower
	 * rank (quadratic, but a point has a few hundred ranks at most) */
	f->limit_rank = -1;
	for (unsigned i = 0; i < c->world && c->ranks; i++) {
		const struct rpt_cluster_rank *r = &c->ranks[i];
		unsigned k = 0;

		if (!rpt_cluster_rank_counts(r))
			continue;
		for (unsigned j = 0; j < c->world; j++)
			k += rpt_cluster_rank_counts(&c->ranks[j]) &&
			     !strncmp(r->bottleneck, c->ranks[j].bottleneck,
				      sizeof(r->bottleneck));
		if (k > best) {
			best = k;
			f->limit_rank = (int)i;
		}
	}
}

/* The majority bottleneck of a point, printable (malloc'd), NULL none. */
static char *limit_text(const struct rpt_cluster_point *p,
			const struct pt_fig *f)
{
	if (f->limit_rank < 0)
		return NULL;
	return rpt_cluster_fixed_text(p->report.ranks[f->limit_rank].bottleneck,
		sizeof(p->report.ranks[0].bottleneck));
}

/* ---- series ---- */

/* Put point I into X, by increasing ranks (a second point of the same
 * ranks, or one past RPT_CLUSTER_SERIES_MAX, is left out). */
static void series_add(struct rpt_cluster_series *x,
		       const struct rpt_cluster_point *pts, size_t i)
{
	size_t at = x->n;

	if (x->n == RPT_CLUSTER_SERIES_MAX)
		return;
	for (size_t j = 0; j < x->n; j++) {
		if (pts[x->point[j]].ranks == pts[i].ranks)
			return;
		if (pts[x->point[j]].ranks > pts[i].ranks && at == x->n)
			at = j;
	}
	memmove(&x->point[at + 1], &x->point[at],
		(x->n - at) * sizeof(x->point[0]));
	x->point[at] = i;
	x->n++;
}

static void series_finish(const struct rpt_cluster_sweep *s,
			  struct rpt_cluster_series *x)
{
	bool bound[RPT_CLUSTER_SERIES_MAX];
	unsigned ranks[RPT_CLUSTER_SERIES_MAX];

	for (size_t j = 0; j < x->n; j++) {
		const struct rpt_cluster_point *p = &s->points[x->point[j]];
		struct pt_fig f;

		point_figures(s, p, &f);
		bound[j] = f.storage_bound;
		ranks[j] = p->ranks;
		x->samples_per_s[j] = f.measured ? f.t.samples_per_s : -1;
		x->bytes_per_s[j] = f.measured ? f.t.bytes_per_s : -1;
	}
	x->scales_to = jdg_cluster_scaling(x->samples_per_s, ranks, x->n,
					   x->efficiency);
	x->storage_bound_from = jdg_storage_bound_from(bound, ranks, x->n);
}

size_t rpt_cluster_sweep_series(const struct rpt_cluster_sweep *s,
				struct rpt_cluster_series *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; s->points && i < s->npoints; i++) {
		const struct rpt_cluster_point *p = &s->points[i];
		struct rpt_cluster_series *x = NULL;

		for (size_t k = 0; k < n && !x; k++)
			if (same_cache(out[k].cache, p->cache) &&
			    out[k].vcpus == p->vcpus)
				x = &out[k];
		if (!x) {
			if (n == max)
				continue;
			x = &out[n++];
			memset(x, 0, sizeof(*x));
			x->cache = p->cache;
			x->vcpus = p->vcpus;
			x->first = i;
		}
		series_add(x, s->points, i);
	}
	for (size_t k = 0; k < n; k++)
		series_finish(s, &out[k]);
	return n;
}

/* All the series of S: malloc'd into *OUT (NULL with none); how many, or
 * (size_t)-1 when out of memory. */
static size_t series_all(const struct rpt_cluster_sweep *s,
			 struct rpt_cluster_series **out)
{
	*out = NULL;
	if (!s->points || !s->npoints)
		return 0;
	*out = calloc(s->npoints, sizeof(**out));
	if (!*out)
		return (size_t)-1;
	return rpt_cluster_sweep_series(s, *out, s->npoints);
}

/* Where point I sits: its series and its place there; false when no
 * series kept it. */
static bool point_place(const struct rpt_cluster_series *sr, size_t ns,
			size_t i, size_t *k, size_t *j)
{
	for (*k = 0; *k < ns; (*k)++)
		for (*j = 0; *j < sr[*k].n; (*j)++)
			if (sr[*k].point[*j] == i)
				return true;
	return false;
}

/* More than one vCPU count in the sweep: series are named with theirs. */
static bool vcpus_vary(const struct rpt_cluster_series *sr, size_t ns)
{
	for (size_t k = 1; k < ns; k++)
		if (sr[k].vcpus != sr[0].vcpus)
			return true;
	return false;
}

/* The signal that stopped the sweep, a point or a counted rank; 0 none. */
static int sweep_signal(const struct rpt_cluster_sweep *s)
{
	if (s->signal)
		return s->signal;
	for (size_t i = 0; s->points && i < s->npoints; i++) {
		const struct rpt_cluster *c = &s->points[i].report;

		if (c->signal)
			return c->signal;
		for (unsigned r = 0; r < c->world && c->ranks; r++)
			if (rpt_cluster_rank_counts(&c->ranks[r]) &&
			    c->ranks[r].signal)
				return c->ranks[r].signal;
	}
	return 0;
}

static bool sweep_partial(const struct rpt_cluster_sweep *s)
{
	if (sweep_signal(s))
		return true;
	for (size_t i = 0; s->points && i < s->npoints; i++) {
		struct rpt_cluster_totals t;

		rpt_cluster_totals(&s->points[i].report, &t);
		if (rpt_cluster_partial(&s->points[i].report, &t))
			return true;
	}
	return false;
}

/* ---- verdict ---- */

static const char *plural(unsigned n)
{
	return n == 1 ? "" : "s";
}

/* The index in X of the point of RANKS ranks; X->n when none. */
static size_t series_at(const struct rpt_cluster_sweep *s,
			const struct rpt_cluster_series *x, unsigned ranks)
{
	size_t j = 0;

	while (j < x->n && s->points[x->point[j]].ranks != ranks)
		j++;
	return j;
}

/* One cache state's words, from its series X. */
static void verdict_series(struct rpt_buf *b, const struct rpt_cluster_sweep *s,
			   const struct rpt_cluster_series *x, bool first)
{
	const struct rpt_cluster_point *last = &s->points[x->point[x->n - 1]];
	const double thr = jdg_threshold(s->setup.au_threshold);
	char m[32];
	int big = -1;

	if (x->scales_to) {
		const size_t j = series_at(s, x, x->scales_to);

		rpt_buf_printf(b, "%sscales to %u rank%s (%u node%s)%s",
			       first ? "the storage " : "", x->scales_to,
			       plural(x->scales_to), s->points[x->point[j]].nodes,
			       plural(s->points[x->point[j]].nodes), first ?
			       " at >= 90 % efficiency" : "");
		if (x->scales_to < last->ranks && x->efficiency[x->n - 1] >= 0)
			rpt_buf_printf(b, " (%.0f %% at %u ranks)",
				       x->efficiency[x->n - 1] * 100,
				       last->ranks);
	} else {
		rpt_buf_printf(b, "scaling unknown (no 1-rank figure)");
	}
	if (x->storage_bound_from >= 0) {
		double top = 0;

		for (size_t j = series_at(s, x, (unsigned)x->storage_bound_from);
		     j < x->n; j++)
			top = fmax(top, x->bytes_per_s[j]);
		rpt_fmt_bytes(m, sizeof(m), top);
		rpt_buf_printf(b, ", storage-bound from %d rank%s (%s/s in all)",
			       x->storage_bound_from,
			       plural((unsigned)x->storage_bound_from), m);
	} else if (same_cache(x->cache, "cold")) {
		size_t j = x->n;

		while (j-- > 0 && x->samples_per_s[j] < 0)
			;
		if (j < x->n) {
			const unsigned r = s->points[x->point[j]].ranks;

			rpt_fmt_bytes(m, sizeof(m), x->bytes_per_s[j]);
			rpt_buf_printf(b, ", not storage-bound up to %u rank%s "
				       "(%s/s in all)", r, plural(r), m);
		}
	}
	if (!emulated(s))
		return;
	for (size_t j = 0; j < x->n; j++) {
		const struct rpt_cluster_point *p = &s->points[x->point[j]];
		struct rpt_cluster_totals t;

		rpt_cluster_totals(&p->report, &t);
		if (jdg_cluster_fed(true, t.nodes_fed, p->nodes) &&
		    (big < 0 || p->nodes >= s->points[big].nodes))
			big = (int)x->point[j];
	}
	if (big >= 0)
		rpt_buf_printf(b, ", feeds %u node%s x %u x %s at >= %.0f %% AU",
			       s->points[big].nodes, plural(s->points[big].nodes),
			       rpt_cluster_node_gpus(&s->points[big].report),
			       s->setup.gpu_type, thr * 100);
	else
		rpt_buf_printf(b, ", feeds 0 nodes x %u x %s at >= %.0f %% AU",
			       rpt_cluster_node_gpus(&last->report),
			       s->setup.gpu_type, thr * 100);
}

/* "; partial: stopped by SIGINT, ranks missing at cold 3 ranks" */
static void verdict_partial(struct rpt_buf *b, const struct rpt_cluster_sweep *s,
			    bool name_vcpus)
{
	const int sig = sweep_signal(s);
	unsigned listed = 0, more = 0;

	if (!sweep_partial(s))
		return;
	rpt_buf_printf(b, "; partial");
	if (sig)
		rpt_buf_printf(b, ": stopped by %s", rpt_cluster_signal_name(sig));
	for (size_t i = 0; s->points && i < s->npoints; i++) {
		const struct rpt_cluster_point *p = &s->points[i];
		struct rpt_cluster_totals t;

		rpt_cluster_totals(&p->report, &t);
		if (!t.lost && !t.failed)
			continue;
		if (listed == 4) {
			more++;
			continue;
		}
		rpt_buf_printf(b, "%s", listed ? ", " : sig ? ", ranks missing "
			       "at " : ": ranks missing at ");
		rpt_buf_printf(b, "%s %u rank%s", nz(p->cache), p->ranks,
			       plural(p->ranks));
		if (name_vcpus)
			rpt_buf_printf(b, " of %u vCPU%s", p->vcpus,
				       plural(p->vcpus));
		listed++;
	}
	if (more)
		rpt_buf_printf(b, " and %u more point%s", more, plural(more));
}

/* The verdict, given the series (SR, NS). */
static void verdict_words(const struct rpt_cluster_sweep *s,
			  const struct rpt_cluster_series *sr, size_t ns,
			  char *buf, size_t len)
{
	const bool name_vcpus = vcpus_vary(sr, ns);
	struct rpt_buf b;
	bool first = true;
	char *t;

	rpt_buf_init(&b);
	for (size_t k = 0; k < ns; k++) {
		size_t pick = k;
		bool seen = false;

		for (size_t e = 0; e < k && !seen; e++)
			seen = same_cache(sr[e].cache, sr[k].cache);
		if (seen || !sr[k].n)
			continue;
		/* of this cache state's series, the most vCPUs a rank: the
		 * one whose ranks are least limited by their own CPUs */
		for (size_t e = k + 1; e < ns; e++)
			if (same_cache(sr[e].cache, sr[k].cache) &&
			    sr[e].n && sr[e].vcpus > sr[pick].vcpus)
				pick = e;
		rpt_buf_printf(&b, "%s%s", first ? "" : "; ",
			       nz(sr[pick].cache));
		if (name_vcpus)
			rpt_buf_printf(&b, " (%u vCPU%s a rank)",
				       sr[pick].vcpus, plural(sr[pick].vcpus));
		rpt_buf_printf(&b, ": ");
		verdict_series(&b, s, &sr[pick], first);
		first = false;
	}
	if (first)
		rpt_buf_printf(&b, "no verdict: no point was measured");
	verdict_partial(&b, s, name_vcpus);
	t = rpt_buf_take(&b);
	snprintf(buf, len, "%s", t ? t : "no verdict: out of memory");
	free(t);
}

void rpt_cluster_sweep_verdict(const struct rpt_cluster_sweep *s, char *buf,
			       size_t len)
{
	struct rpt_cluster_series *sr;
	const size_t ns = series_all(s, &sr);

	if (!len)
		return;
	if (ns == (size_t)-1)
		snprintf(buf, len, "no verdict: out of memory");
	else
		verdict_words(s, sr, ns, buf, len);
	free(sr);
}

/* ---- text ---- */

/* "cold, 2 vCPUs a rank" */
static void series_name(char *buf, size_t len,
			const struct rpt_cluster_series *x)
{
	snprintf(buf, len, "%s, %u vCPU%s a rank", nz(x->cache), x->vcpus,
		 plural(x->vcpus));
}

static void print_head(FILE *f, const struct rpt_cluster_sweep *s)
{
	char a[32], b[32];

	fprintf(f, "feedrate sweep on a cluster%s\n", sweep_signal(s) ?
		" (PARTIAL: interrupted)" : sweep_partial(s) ?
		" (PARTIAL: ranks missing)" : "");
	if (s->setup.workload)
		fprintf(f, "  workload   %s\n", s->setup.workload);
	fprintf(f, "  dataset    ");
	rpt_put_path(f, s->setup.dataset);
	rpt_fmt_count(a, sizeof(a), (double)s->setup.files);
	rpt_fmt_bytes(b, sizeof(b), (double)s->setup.bytes);
	fprintf(f, ": %s files, %s", a, b);
	if (s->setup.format && *s->setup.format) {
		rpt_fmt_count(a, sizeof(a), (double)s->setup.records);
		fprintf(f, ", %s %s records", a, s->setup.format);
	}
	fprintf(f, "\n  storage    %s", s->setup.fs_type && *s->setup.fs_type ?
		s->setup.fs_type : "unknown fs");
	if (s->setup.fs_server && *s->setup.fs_server) {
		fprintf(f, " from ");
		rpt_put_path(f, s->setup.fs_server);
	}
	fprintf(f, "\n  window     %.1f s a point, the ranks of a point "
		"started together\n", s->window_s);
	fprintf(f, "  world      %u rank%s on %u node%s launched; a point of "
		"R ranks runs ranks 0 .. R-1, the others idle\n", s->world,
		plural(s->world), s->nodes, plural(s->nodes));
	if (emulated(s)) {
		rpt_fmt_count(a, sizeof(a), s->setup.demand_per_gpu);
		fprintf(f, "  GPUs       %u x %s emulated per rank, %s "
			"samples/s each (%s, %s; source: %s)\n",
			s->setup.gpu_count, s->setup.gpu_type, a,
			nz(s->setup.demand_kind),
			nz(s->setup.demand_basis), nz(s->setup.demand_source));
	} else {
		fprintf(f, "  GPUs       none emulated (raw feed rate)\n");
	}
	if (sweep_signal(s))
		fprintf(f, "  signal     stopped by %s: a partial report\n",
			rpt_cluster_signal_name(sweep_signal(s)));
	if (s->notes && *s->notes)
		fprintf(f, "  notes      %s\n", s->notes);
}

/* The ranks point P is missing, by name and why. */
static void print_missing(FILE *f, const struct rpt_cluster_point *p)
{
	const struct rpt_cluster *c = &p->report;

	for (unsigned i = 0; i < c->world && c->ranks; i++) {
		const struct rpt_cluster_rank *r = &c->ranks[i];

		if (rpt_cluster_rank_counts(r))
			continue;
		fprintf(f, "  at %u rank%s: rank %u (", p->ranks,
			plural(p->ranks), r->rank);
		rpt_put_bytes(f, r->host, sizeof(r->host));
		fprintf(f, ") %s: ", r->reported ? "failed" : "lost");
		if (r->reported)
			rpt_put_bytes(f, r->fail_text, sizeof(r->fail_text));
		else if (r->lost_why[0])
			rpt_put_bytes(f, r->lost_why, sizeof(r->lost_why));
		else
			fputs("no report reached rank 0", f);
		fputc('\n', f);
	}
}

static void print_series(FILE *f, const struct rpt_cluster_sweep *s,
			 const struct rpt_cluster_series *x)
{
	char name[64];
	bool missing = false;

	series_name(name, sizeof(name), x);
	fprintf(f, "\n%s: ", name);
	if (x->scales_to)
		fprintf(f, "scales to %u rank%s", x->scales_to,
			plural(x->scales_to));
	else
		fprintf(f, "scaling unknown (no 1-rank figure)");
	if (x->storage_bound_from >= 0)
		fprintf(f, ", storage-bound from %d rank%s",
			x->storage_bound_from,
			plural((unsigned)x->storage_bound_from));
	fprintf(f, "\n  %5s %5s %10s %9s %9s %10s %7s  %-8s %4s\n", "ranks",
		"nodes", "samples/s", "MB/s", "per rank", "efficiency", "AU",
		"limit", "lost");
	for (size_t j = 0; j < x->n; j++) {
		const struct rpt_cluster_point *p = &s->points[x->point[j]];
		struct pt_fig fg;
		char sps[32] = "-", m[16] = "-", pr[32] = "-", e[16] = "-";
		char au[16] = "-", *lim;

		point_figures(s, p, &fg);
		if (fg.measured) {
			rpt_fmt_count(sps, sizeof(sps), fg.t.samples_per_s);
			snprintf(m, sizeof(m), "%.1f", fg.t.bytes_per_s / 1e6);
			rpt_fmt_count(pr, sizeof(pr), fg.per_rank);
		}
		if (x->efficiency[j] >= 0)
			snprintf(e, sizeof(e), "%.1f %%",
				 x->efficiency[j] * 100);
		if (fg.t.au >= 0)
			snprintf(au, sizeof(au), "%.1f %%", fg.t.au * 100);
		lim = limit_text(p, &fg);
		fprintf(f, "  %5u %5u %10s %9s %9s %10s %7s  %-8s %4u\n",
			p->ranks, p->nodes, sps, m, pr, e, au, lim ? lim : "-",
			fg.missing);
		free(lim);
		missing |= fg.missing > 0;
	}
	for (size_t j = 0; missing && j < x->n; j++)
		print_missing(f, &s->points[x->point[j]]);
}

void rpt_cluster_sweep_print(FILE *f, const struct rpt_cluster_sweep *s)
{
	struct rpt_cluster_series *sr;
	const size_t ns = series_all(s, &sr);
	char verdict[2048];

	print_head(f, s);
	if (ns == (size_t)-1) {
		fprintf(f, "\n  out of memory: no table\n");
		return;
	}
	for (size_t k = 0; k < ns; k++)
		print_series(f, s, &sr[k]);
	verdict_words(s, sr, ns, verdict, sizeof(verdict));
	fprintf(f, "\n  verdict    %s\n", verdict);
	free(sr);
}

/* ---- JSON ---- */

static json_t *point_json(const struct rpt_cluster_sweep *s, size_t i,
			  const struct rpt_cluster_series *sr, size_t ns)
{
	const struct rpt_cluster_point *p = &s->points[i];
	json_t *o = json_object();
	struct pt_fig fg;
	size_t k, j;
	double eff = -1;
	char *lim;

	if (!o)
		return NULL;
	point_figures(s, p, &fg);
	if (point_place(sr, ns, i, &k, &j))
		eff = sr[k].efficiency[j];
	lim = limit_text(p, &fg);
	json_object_set_new(o, "ranks", json_integer(p->ranks));
	json_object_set_new(o, "nodes", json_integer(p->nodes));
	json_object_set_new(o, "vcpus", json_integer(p->vcpus));
	json_object_set_new(o, "cache", rpt_cluster_json_str(p->cache));
	json_object_set_new(o, "samples_per_s", rpt_jnum_if(
			    fg.t.samples_per_s, fg.measured));
	json_object_set_new(o, "bytes_per_s", rpt_jnum_if(
			    fg.t.bytes_per_s, fg.measured));
	json_object_set_new(o, "per_rank_samples_per_s", rpt_jnum_if(
			    fg.per_rank, fg.measured));
	json_object_set_new(o, "efficiency", rpt_jnum_if(eff,
			    eff >= 0));
	json_object_set_new(o, "au", rpt_jnum_if(fg.t.au,
			    fg.t.au >= 0));
	json_object_set_new(o, "limit", lim ? json_string(lim) : json_null());
	json_object_set_new(o, "lost", json_integer(fg.missing));
	json_object_set_new(o, "cluster", rpt_cluster_json(&p->report));
	free(lim);
	return o;
}

static json_t *series_json(const struct rpt_cluster_sweep *s,
			   const struct rpt_cluster_series *x)
{
	json_t *o = json_object(), *r = json_array(), *sps = json_array();
	json_t *e = json_array();

	if (!o || !r || !sps || !e) {
		json_decref(o);
		json_decref(r);
		json_decref(sps);
		json_decref(e);
		return NULL;
	}
	for (size_t j = 0; j < x->n; j++) {
		json_array_append_new(r, json_integer(
			s->points[x->point[j]].ranks));
		json_array_append_new(sps, rpt_jnum_if(
			x->samples_per_s[j], x->samples_per_s[j] >= 0));
		json_array_append_new(e, rpt_jnum_if(
			x->efficiency[j], x->efficiency[j] >= 0));
	}
	json_object_set_new(o, "cache", rpt_cluster_json_str(x->cache));
	json_object_set_new(o, "vcpus", json_integer(x->vcpus));
	json_object_set_new(o, "ranks", r);
	json_object_set_new(o, "samples_per_s", sps);
	json_object_set_new(o, "efficiency", e);
	json_object_set_new(o, "scales_to", x->scales_to ?
			    json_integer(x->scales_to) : json_null());
	json_object_set_new(o, "storage_bound_from", x->storage_bound_from >= 0
			    ? json_integer(x->storage_bound_from) :
			    json_null());
	return o;
}

json_t *rpt_cluster_sweep_json(const struct rpt_cluster_sweep *s)
{
	struct rpt_cluster_series *sr;
	const size_t ns = series_all(s, &sr);
	json_t *root = json_object(), *pts = json_array(), *ser = json_array();
	const int sig = sweep_signal(s);
	char verdict[2048];

	if (ns == (size_t)-1 || !root || !pts || !ser) {
		free(sr);
		json_decref(root);
		json_decref(pts);
		json_decref(ser);
		return NULL;
	}
	verdict_words(s, sr, ns, verdict, sizeof(verdict));
	json_object_set_new(root, "schema",
			    json_string("feedrate.cluster_sweep"));
	json_object_set_new(root, "schema_version",
			    json_integer(RPT_RUN_SCHEMA_VERSION));
	json_object_set_new(root, "command", json_string("sweep"));
	rpt_setup_json(root, &s->setup, RPT_SETUP_CLUSTER_SWEEP);
	json_object_set_new(root, "world", json_integer(s->world));
	json_object_set_new(root, "node_count", json_integer(s->nodes));
	json_object_set_new(root, "window_s", rpt_jnum(s->window_s));
	for (size_t i = 0; s->points && i < s->npoints; i++)
		json_array_append_new(pts, point_json(s, i, sr, ns));
	json_object_set_new(root, "points", pts);
	for (size_t k = 0; k < ns; k++)
		json_array_append_new(ser, series_json(s, &sr[k]));
	json_object_set_new(root, "series", ser);
	json_object_set_new(root, "partial", json_boolean(sweep_partial(s)));
	json_object_set_new(root, "signal", sig ? json_string(
			    rpt_cluster_signal_name(sig)) : json_null());
	json_object_set_new(root, "notes", rpt_cluster_json_text(s->notes));
	json_object_set_new(root, "verdict", rpt_cluster_json_text(verdict));
	free(sr);
	return root;
}

/* ---- HTML ---- */

static const char *const colours[] = {
	"#1f5fbf", "#c0392b", "#27ae60", "#8e44ad", "#d68910", "#17a589",
};

static void html_head(struct rpt_buf *b, const struct rpt_cluster_sweep *s)
{
	rpt_buf_printf(b, "<h2>what was swept</h2>\n");
	rpt_html_table(b, "swept", NULL, 0);
	rpt_buf_printf(b, "<tr><td>dataset</td><td>");
	rpt_buf_html_path(b, s->setup.dataset);
	rpt_buf_printf(b, "</td></tr>\n<tr><td>storage</td><td>");
	rpt_buf_html(b, s->setup.fs_type && *s->setup.fs_type ?
		     s->setup.fs_type : "unknown");
	if (s->setup.fs_server && *s->setup.fs_server) {
		rpt_buf_printf(b, " from ");
		rpt_buf_html_path(b, s->setup.fs_server);
	}
	rpt_buf_printf(b, "</td></tr>\n<tr><td>window</td><td>%.1f s a point"
		       "</td></tr>\n<tr><td>launched</td><td>%u rank%s on %u "
		       "node%s</td></tr>\n<tr><td>GPUs</td><td>", s->window_s,
		       s->world, plural(s->world), s->nodes, plural(s->nodes));
	if (emulated(s)) {
		rpt_buf_printf(b, "%u x ", s->setup.gpu_count);
		rpt_buf_html(b, s->setup.gpu_type);
		rpt_buf_printf(b, " per rank, %.0f samples/s each (",
			       s->setup.demand_per_gpu);
		rpt_buf_html(b, nz(s->setup.demand_kind));
		rpt_buf_printf(b, "; source: ");
		rpt_buf_html(b, nz(s->setup.demand_source));
		rpt_buf_printf(b, ")");
	} else {
		rpt_buf_printf(b, "none emulated (raw feed rate)");
	}
	rpt_buf_printf(b, "</td></tr>\n");
	rpt_html_table_end(b);
}

/* The ranks point P is missing, by name and why. */
static void html_missing(struct rpt_buf *b, const struct rpt_cluster_point *p)
{
	const struct rpt_cluster *c = &p->report;

	for (unsigned i = 0; i < c->world && c->ranks; i++) {
		const struct rpt_cluster_rank *r = &c->ranks[i];

		if (rpt_cluster_rank_counts(r))
			continue;
		rpt_buf_printf(b, "<p class=\"note lost\" data-ranks=\"%u\">at "
			       "%u rank%s: rank %u (", p->ranks, p->ranks,
			       plural(p->ranks), r->rank);
		rpt_cluster_html_fixed(b, r->host, sizeof(r->host));
		rpt_buf_printf(b, ") %s: ", r->reported ? "failed" : "lost");
		if (r->reported)
			rpt_cluster_html_fixed(b, r->fail_text, sizeof(r->fail_text));
		else
			rpt_cluster_html_fixed(b, r->lost_why, sizeof(r->lost_why));
		rpt_buf_printf(b, "</p>\n");
	}
}

static void html_series(struct rpt_buf *b, const struct rpt_cluster_sweep *s,
			const struct rpt_cluster_series *x)
{
	static const char *const series_heads[] = {
		"ranks", "nodes", "samples/s", "MB/s", "per rank",
		"efficiency", "AU", "limit", "lost",
	};
	char name[64];

	series_name(name, sizeof(name), x);
	rpt_buf_printf(b, "<h2>");
	rpt_buf_html(b, name);
	rpt_buf_printf(b, "</h2>\n");
	rpt_html_table_start(b, "series");
	rpt_html_attr(b, "data-cache", nz(x->cache));
	rpt_buf_printf(b, " data-vcpus=\"%u\"", x->vcpus);
	rpt_html_table_heads(b, series_heads, sizeof(series_heads) /
			     sizeof(series_heads[0]));
	for (size_t j = 0; j < x->n; j++) {
		const struct rpt_cluster_point *p = &s->points[x->point[j]];
		struct pt_fig fg;
		char *lim;

		point_figures(s, p, &fg);
		rpt_buf_printf(b, "<tr class=\"point%s\" data-ranks=\"%u\"><td>"
			       "%u</td><td>%u</td>", fg.missing ? " lost" : "",
			       p->ranks, p->ranks, p->nodes);
		if (fg.measured)
			rpt_buf_printf(b, "<td>%.0f</td><td>%.1f</td><td>%.0f"
				       "</td>", fg.t.samples_per_s,
				       fg.t.bytes_per_s / 1e6, fg.per_rank);
		else
			rpt_buf_printf(b, "<td>-</td><td>-</td><td>-</td>");
		if (x->efficiency[j] >= 0)
			rpt_buf_printf(b, "<td>%.1f %%</td>",
				       x->efficiency[j] * 100);
		else
			rpt_buf_printf(b, "<td>-</td>");
		if (fg.t.au >= 0)
			rpt_buf_printf(b, "<td>%.1f %%</td><td>",
				       fg.t.au * 100);
		else
			rpt_buf_printf(b, "<td>-</td><td>");
		lim = limit_text(p, &fg);
		rpt_buf_html(b, lim ? lim : "-");
		free(lim);
		rpt_buf_printf(b, "</td><td>%u</td></tr>\n", fg.missing);
	}
	rpt_html_table_end(b);
	for (size_t j = 0; j < x->n; j++)
		html_missing(b, &s->points[x->point[j]]);
}

/* Total samples/s against ranks: one polyline per series, a dot per
 * measured point (points no rank of which counted are left out). */
static void html_plot(struct rpt_buf *b, const struct rpt_cluster_sweep *s,
		      const struct rpt_cluster_series *sr, size_t ns)
{
	const double ml = 70, top = 10, pw = 520, ph = 240;
	const double w = ml + pw + 30, h = top + ph + 50;
	unsigned rmax = 1;
	double ymax = 0;

	for (size_t k = 0; k < ns; k++)
		for (size_t j = 0; j < sr[k].n; j++) {
			const unsigned r = s->points[sr[k].point[j]].ranks;

			rmax = r > rmax ? r : rmax;
			ymax = fmax(ymax, sr[k].samples_per_s[j]);
		}
	if (ymax <= 0)
		ymax = 1;
	ymax *= 1.05;
#define PX(r) (ml + (rmax > 1 ? ((double)(r) - 1) / (rmax - 1) * pw : pw / 2))
#define PY(v) (top + ph - ph * (v) / ymax)
	rpt_buf_printf(b, "<h2>samples/s against ranks</h2>\n");
	rpt_svg_open(b, "scaling", w, h + 20.0 * (double)ns, NULL);
	rpt_buf_printf(b, "\n");
	rpt_svg_axes(b, ml, top, pw, ph);
	rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
		       "%.0f</text><text x=\"%.1f\" y=\"%.1f\" text-anchor="
		       "\"end\">0</text>\n", ml - 6, top + 10, ymax, ml - 6,
		       top + ph);
	for (unsigned r = 1; r <= rmax; r++)
		if (rmax <= 16 || r == 1 || r == rmax || r % (rmax / 8) == 0)
			rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" "
				       "text-anchor=\"middle\">%u</text>\n",
				       PX(r), top + ph + 16, r);
	rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
		       "ranks</text>\n", ml + pw / 2, top + ph + 34);
	for (size_t k = 0; k < ns; k++) {
		const struct rpt_cluster_series *x = &sr[k];
		const char *col = colours[k % (sizeof(colours) /
					       sizeof(colours[0]))];
		struct rpt_svg_poly poly;
		char name[64];

		series_name(name, sizeof(name), x);
		rpt_svg_poly_start(&poly, b);
		rpt_buf_printf(b, " class=\"series\"");
		rpt_html_attr(b, "data-cache", nz(x->cache));
		rpt_buf_printf(b, " data-vcpus=\"%u\" fill=\"none\" stroke="
			       "\"%s\" stroke-width=\"2\"", x->vcpus, col);
		rpt_svg_poly_points(&poly);
		for (size_t j = 0; j < x->n; j++)
			if (x->samples_per_s[j] >= 0)
				rpt_svg_poly_point(&poly,
					PX(s->points[x->point[j]].ranks),
					PY(x->samples_per_s[j]));
		rpt_svg_poly_close(&poly);
		rpt_buf_printf(b, "\n");
		for (size_t j = 0; j < x->n; j++) {
			const unsigned r = s->points[x->point[j]].ranks;

			if (x->samples_per_s[j] < 0)
				continue;
			rpt_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r="
				       "\"3\" fill=\"%s\"><title>", PX(r),
				       PY(x->samples_per_s[j]), col);
			rpt_buf_html(b, name);
			rpt_buf_printf(b, ": %u rank%s, %.0f samples/s"
				       "</title></circle>\n", r, plural(r),
				       x->samples_per_s[j]);
		}
		rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">",
			       ml, h + 20.0 * (double)k, col);
		rpt_buf_html(b, name);
		rpt_buf_printf(b, "</text>\n");
	}
#undef PX
#undef PY
	rpt_svg_close(b);
}

char *rpt_cluster_sweep_html(const struct rpt_cluster_sweep *s)
{
	struct rpt_cluster_series *sr;
	const size_t ns = series_all(s, &sr);
	const int sig = sweep_signal(s);
	struct rpt_buf b;
	char verdict[2048];

	if (ns == (size_t)-1)
		return NULL;
	verdict_words(s, sr, ns, verdict, sizeof(verdict));
	rpt_buf_init(&b);
	rpt_html_head(&b, "feedrate cluster sweep");
	rpt_buf_printf(&b, "<h1>feedrate sweep");
	if (s->setup.workload) {
		rpt_buf_printf(&b, ": ");
		rpt_buf_html(&b, s->setup.workload);
	}
	rpt_buf_printf(&b, " on %u node%s, %u rank%s%s</h1>\n", s->nodes,
		       plural(s->nodes), s->world, plural(s->world),
		       sweep_partial(s) ? " (partial)" : "");
	rpt_buf_printf(&b, "<p class=\"verdict\">");
	rpt_buf_html(&b, verdict);
	rpt_buf_printf(&b, "</p>\n");
	html_head(&b, s);
	for (size_t k = 0; k < ns; k++)
		html_series(&b, s, &sr[k]);
	html_plot(&b, s, sr, ns);
	if (sig)
		rpt_buf_printf(&b, "<p class=\"note\">Stopped by %s: a partial "
			       "report.</p>\n", rpt_cluster_signal_name(sig));
	if (s->notes && *s->notes) {
		rpt_buf_printf(&b, "<p class=\"note\">");
		rpt_buf_html_path(&b, s->notes);
		rpt_buf_printf(&b, "</p>\n");
	}
	rpt_buf_printf(&b, "<p class=\"note\">report schema "
		       "feedrate.cluster_sweep v%d</p>\n",
		       RPT_RUN_SCHEMA_VERSION);
	rpt_html_end(&b);
	free(sr);
	return rpt_buf_take(&b);
}
