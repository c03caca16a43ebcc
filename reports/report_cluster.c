/*
 * report_cluster.c - the cluster report of a run launched through MPI:
 * the ranks' figures summed over their common window, per node and per
 * rank, the slowest node, the storage ceiling seen cold against the ranks'
 * reads alone, the exactly-once check and a verdict in nodes x GPUs.
 * Text, JSON and HTML. Pure: reads struct rpt_cluster only (no MPI, no
 * engine). Text from other nodes (host names, words in fixed arrays that
 * came over the wire) is bounded by its array and escaped like a path.
 */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
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

/* A fixed array's text (it may lack its NUL when sent as bytes), made
 * printable by rpt_path_text: malloc'd, NULL when out of memory. */
static char *fixed_text(const char *a, size_t size)
{
	return rpt_path_text(a, strnlen(a, size));
}

#define FIXED(a) fixed_text((a), sizeof(a))

/* Does rank R count in the totals: reported and measured? */
static bool counts(const struct rpt_cluster_rank *r)
{
	return r->reported && !r->fail_text[0];
}

static bool failed(const struct rpt_cluster_rank *r)
{
	return r->reported && r->fail_text[0];
}

/* GPUs were emulated: a type and a count per rank. */
static bool emulated(const struct rpt_cluster *c)
{
	return c->setup.gpu_type && *c->setup.gpu_type &&
	       c->setup.gpu_count > 0;
}

static const struct rpt_cluster_rank *rank_at(const struct rpt_cluster *c,
					       unsigned i)
{
	return c->ranks && i < c->world ? &c->ranks[i] : NULL;
}

/* Node slots used: the launched nodes or the highest index seen, at most
 * RPT_CLUSTER_NODES_MAX. */
static unsigned node_slots(const struct rpt_cluster *c)
{
	unsigned n = c->nodes;

	for (unsigned i = 0; i < c->world && c->ranks; i++)
		if (c->ranks[i].node + 1 > n)
			n = c->ranks[i].node + 1;
	return n < RPT_CLUSTER_NODES_MAX ? n : RPT_CLUSTER_NODES_MAX;
}

/* One node, gathered from its ranks. */
struct node_info {
	int first;                      /* its first rank, -1 none */
	unsigned ranks, counted, missing; /* missing: lost or failed */
	unsigned unfed;                 /* counted ranks below T */
	bool fed;                       /* jdg_node_fed */
	int slow;                       /* its counted rank with the least
	                                   samples/s, -1 none */
};

static void nodes_fill(const struct rpt_cluster *c, struct node_info *ni,
		       unsigned n)
{
	const double thr = jdg_threshold(c->setup.au_threshold);

	for (unsigned k = 0; k < n; k++)
		ni[k] = (struct node_info){ .first = -1, .slow = -1 };
	for (unsigned i = 0; i < c->world && c->ranks; i++) {
		const struct rpt_cluster_rank *r = &c->ranks[i];
		struct node_info *x;

		if (r->node >= n)
			continue;
		x = &ni[r->node];
		if (x->first < 0)
			x->first = (int)i;
		x->ranks++;
		if (!counts(r)) {
			x->missing++;
			continue;
		}
		x->counted++;
		x->unfed += !jdg_rank_fed(r->au, thr);
		if (x->slow < 0 ||
		    r->samples_per_s < c->ranks[x->slow].samples_per_s)
			x->slow = (int)i;
	}
	for (unsigned k = 0; k < n; k++)
		ni[k].fed = jdg_node_fed(emulated(c), ni[k].counted,
					 ni[k].missing, ni[k].unfed);
}

void rpt_cluster_totals(const struct rpt_cluster *c,
			struct rpt_cluster_totals *t)
{
	struct node_info ni[RPT_CLUSTER_NODES_MAX];
	double med[RPT_CLUSTER_NODES_MAX];
	unsigned node_of[RPT_CLUSTER_NODES_MAX];
	const unsigned n = node_slots(c);
	double au_sum = 0, gpus = 0;
	unsigned local = 1, nmed = 0;
	int slow;
	bool solo_all = true;

	memset(t, 0, sizeof(*t));
	t->slowest_node = -1;
	t->au = -1;
	t->solo_sum_bytes_per_s = -1;
	t->storage_ceiling_bytes_per_s = -1;
	t->nodes_before_storage_bound = -1;
	for (unsigned i = 0; i < c->world && c->ranks; i++) {
		const struct rpt_cluster_rank *r = &c->ranks[i];

		if (r->local_size > local)
			local = r->local_size;
		if (!r->reported) {
			t->lost++;
			continue;
		}
		if (failed(r)) {
			t->failed++;
			continue;
		}
		t->reported++;
		t->samples_per_s += r->samples_per_s;
		t->bytes_per_s += r->bytes_per_s;
		if (r->node < RPT_CLUSTER_NODES_MAX) {
			t->per_node_samples_per_s[r->node] += r->samples_per_s;
			t->per_node_bytes_per_s[r->node] += r->bytes_per_s;
		}
		if (r->gpus && r->au >= 0) {
			au_sum += r->au * r->gpus;
			gpus += r->gpus;
		}
		if (r->solo_bytes_per_s >= 0)
			t->solo_sum_bytes_per_s = fmax(t->solo_sum_bytes_per_s,
						       0) + r->solo_bytes_per_s;
		else
			solo_all = false;
		if (!strncmp(r->bottleneck, "storage", sizeof(r->bottleneck)))
			t->storage_bound_ranks++;
		t->max_skew_s = fmax(t->max_skew_s, fabs(r->start_skew_s));
	}
	/* a sum over some ranks only would understate what they read alone */
	if (!solo_all || !t->reported)
		t->solo_sum_bytes_per_s = -1;
	if (gpus > 0)
		t->au = au_sum / gpus;

	nodes_fill(c, ni, n);
	for (unsigned k = 0; k < n; k++) {
		if (!ni[k].counted)
			continue;
		t->nodes_seen++;
		t->nodes_fed += ni[k].fed;
		node_of[nmed] = k;
		med[nmed++] = t->per_node_samples_per_s[k];
	}
	slow = jdg_slowest(med, nmed, &t->slowest_below_median);
	t->slowest_node = slow < 0 ? -1 : (int)node_of[slow];

	/* cold and storage-bound on at least half the ranks: what the
	 * cluster read is what the storage gives */
	if (jdg_cluster_storage_ceiling(c->setup.cache &&
					!strcmp(c->setup.cache, "cold"),
					t->reported, t->storage_bound_ranks))
		t->storage_ceiling_bytes_per_s = t->bytes_per_s;
	if (emulated(c))
		t->node_needs_bytes_per_s = jdg_node_needs_bytes(
			c->setup.gpu_count, local, c->setup.demand_per_gpu,
			c->setup.bytes_per_sample);
	t->nodes_before_storage_bound = jdg_nodes_before_storage_bound(
		t->storage_ceiling_bytes_per_s, t->node_needs_bytes_per_s);
}

/* ---- words ---- */

static const char *sig_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" :
	       sig == SIGKILL ? "SIGKILL" : sig == SIGHUP ? "SIGHUP" :
	       "a signal";
}

/* The GPUs on one node: per rank x the ranks a node holds. */
static unsigned node_gpus(const struct rpt_cluster *c)
{
	unsigned local = 1;

	for (unsigned i = 0; i < c->world && c->ranks; i++)
		if (c->ranks[i].local_size > local)
			local = c->ranks[i].local_size;
	return c->setup.gpu_count * local;
}

static void mb(char *buf, size_t len, double bytes_per_s)
{
	rpt_fmt_bytes(buf, len, bytes_per_s);
	rpt_cat(buf, len, "/s");
}

/* "rank 2 (host) lost, rank 3 (host) failed" into BUF; false when every
 * rank counted. */
static bool missing_words(const struct rpt_cluster *c, char *buf, size_t len)
{
	bool any = false;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->world && c->ranks; i++) {
		const struct rpt_cluster_rank *r = &c->ranks[i];
		char *h;

		if (counts(r))
			continue;
		h = FIXED(r->host);
		rpt_cat(buf, len, "%srank %u (%s) %s", any ? ", " : "", r->rank,
		    h ? h : "?", r->reported ? "failed" : "lost");
		free(h);
		any = true;
	}
	return any;
}

static bool partial(const struct rpt_cluster *c,
		    const struct rpt_cluster_totals *t)
{
	if (c->signal || t->lost || t->failed)
		return true;
	for (unsigned i = 0; i < c->world && c->ranks; i++)
		if (counts(&c->ranks[i]) && c->ranks[i].signal)
			return true;
	return false;
}

/* Why node X, which measured every rank, is not fed: the limit of its
 * slowest rank. */
static void unfed_words(const struct rpt_cluster *c,
			const struct node_info *x, char *buf, size_t len)
{
	const struct rpt_cluster_rank *f = rank_at(c, (unsigned)x->first);
	const struct rpt_cluster_rank *s = rank_at(c, (unsigned)x->slow);
	char *h = f ? FIXED(f->host) : NULL;
	char *b = s ? FIXED(s->bottleneck) : NULL;

	snprintf(buf, len, "the slowest, host %s, falls short: limited by %s",
		 h ? h : "?", b && *b ? b : "unknown");
	free(b);
	free(h);
}

void rpt_cluster_verdict(const struct rpt_cluster *c, char *buf, size_t len)
{
	struct rpt_cluster_totals t;
	struct node_info ni[RPT_CLUSTER_NODES_MAX];
	const unsigned n = node_slots(c);
	const double thr = jdg_threshold(c->setup.au_threshold);
	char a[32], b[32], miss[512];

	if (!len)
		return;
	buf[0] = '\0';
	rpt_cluster_totals(c, &t);
	nodes_fill(c, ni, n);
	if (!t.reported) {
		snprintf(buf, len, "no verdict: no rank measured anything");
		if (missing_words(c, miss, sizeof(miss)))
			rpt_cat(buf, len, " (%s)", miss);
		return;
	}
	rpt_fmt_count(a, sizeof(a), t.samples_per_s);
	mb(b, sizeof(b), t.bytes_per_s);
	for (unsigned k = 0; emulated(c) && k < c->world; k++) {
		const struct rpt_cluster_rank *r = &c->ranks[k];
		char *why;

		if (!rpt_cluster_rank_counts(r) || !r->too_short)
			continue;
		/* as on one VM: no verdict from a window without batches */
		why = rpt_cluster_fixed_text(r->bottleneck_why,
					     sizeof(r->bottleneck_why));
		snprintf(buf, len, "no verdict: the window was too short to "
			 "judge the GPUs on rank %u (%s); the cluster read %s "
			 "samples/s (%s)", r->rank, why ? why : "?", a, b);
		free(why);
		return;
	}
	if (!emulated(c)) {
		snprintf(buf, len, "the cluster reads %s samples/s (%s); no "
			 "GPU emulated", a, b);
	} else {
		const unsigned total = jdg_cluster_nodes(c->nodes,
							 t.nodes_seen);

		if (jdg_cluster_fed(true, t.nodes_fed, total)) {
			snprintf(buf, len, "this storage feeds %u node%s x %u x "
				 "%s at >= %.0f %% AU", total, total == 1 ?
				 "" : "s", node_gpus(c), c->setup.gpu_type,
				 thr * 100);
		} else {
			bool fed[RPT_CLUSTER_NODES_MAX];
			unsigned counted[RPT_CLUSTER_NODES_MAX];
			unsigned missing[RPT_CLUSTER_NODES_MAX];
			char why[400] = "";
			int pick;

			for (unsigned k = 0; k < n; k++) {
				fed[k] = ni[k].fed;
				counted[k] = ni[k].counted;
				missing[k] = ni[k].missing;
			}
			/* a node short of ranks is named by the "partial:"
			 * words below */
			pick = jdg_slowest_unfed(fed, counted, missing,
						 t.per_node_samples_per_s, n);
			if (pick >= 0)
				unfed_words(c, &ni[pick], why, sizeof(why));
			snprintf(buf, len, "this storage feeds %u of %u node%s "
				 "x %u x %s at >= %.0f %% AU%s%s%s", t.nodes_fed,
				 total, total == 1 ? "" : "s", node_gpus(c),
				 c->setup.gpu_type, thr * 100, why[0] ? " (" :
				 "",
				 why, why[0] ? ")" : "");
		}
		if (t.nodes_before_storage_bound == 0) {
			char need[32];

			/* "past 0 nodes" would say it badly */
			mb(b, sizeof(b), t.storage_ceiling_bytes_per_s);
			mb(need, sizeof(need), t.node_needs_bytes_per_s);
			rpt_cat(buf, len, "; it is storage-bound below one node: "
			    "%s cold in all, one node needs %s", b, need);
		} else if (t.nodes_before_storage_bound > 0) {
			rpt_cat(buf, len, "; past %d node%s it is storage-bound",
			    t.nodes_before_storage_bound,
			    t.nodes_before_storage_bound == 1 ? "" : "s");
		} else if (t.storage_ceiling_bytes_per_s > 0) {
			mb(b, sizeof(b), t.storage_ceiling_bytes_per_s);
			rpt_cat(buf, len, "; the storage ceiling is %s (the reads "
			    "a node needs are unknown)", b);
		} else if (c->setup.cache && !strcmp(c->setup.cache, "cold")) {
			mb(b, sizeof(b), t.bytes_per_s);
			rpt_cat(buf, len, "; not storage-bound at %u node%s: the "
			    "storage ceiling is above %s", t.nodes_seen,
			    t.nodes_seen == 1 ? "" : "s", b);
		} else {
			rpt_cat(buf, len, "; the storage ceiling is not known "
			    "(the cache was %s: measure cold)",
			    nz(c->setup.cache));
		}
	}
	if (missing_words(c, miss, sizeof(miss)))
		rpt_cat(buf, len, "; partial: %s%s%s", miss, c->signal ?
		    ", stopped by " : "", c->signal ? sig_name(c->signal) :
		    "");
	else if (c->signal)
		rpt_cat(buf, len, "; partial: stopped by %s", sig_name(c->signal));
}

/* ---- text ---- */

/* The rank's table row. */
static void print_rank(FILE *f, const struct rpt_cluster_rank *r)
{
	char h[20], cpus[40], s[32], m[32], au[16], sk[16], *t;

	t = FIXED(r->host);
	snprintf(h, sizeof(h), "%s", t ? t : "?");
	free(t);
	fprintf(f, "  %4u  %-16s", r->rank, h);
	if (!counts(r)) {
		fprintf(f, "  %s\n", r->reported ? "failed" : "lost");
		return;
	}
	t = FIXED(r->cpus);
	if (r->vcpus)
		snprintf(cpus, sizeof(cpus), "%u (%s)%s", r->vcpus,
			 t ? t : "?", r->cpus_shared ? " shared" : "");
	else
		snprintf(cpus, sizeof(cpus), "-");      /* io: not pinned */
	free(t);
	rpt_fmt_count(s, sizeof(s), r->samples_per_s);
	snprintf(m, sizeof(m), "%.1f", r->bytes_per_s / 1e6);
	if (r->au >= 0)
		snprintf(au, sizeof(au), "%.1f %%", r->au * 100);
	else
		snprintf(au, sizeof(au), "-");
	snprintf(sk, sizeof(sk), "%.3f s", r->start_skew_s);
	t = FIXED(r->bottleneck);
	fprintf(f, "  %-16s %10s %9s %8s  %-8s %s\n", cpus, s, m, au,
		t ? t : "?", sk);
	free(t);
}

static void print_nodes(FILE *f, const struct rpt_cluster *c,
			const struct rpt_cluster_totals *t,
			const struct node_info *ni, unsigned n)
{
	fprintf(f, "\nper node\n  %4s  %-16s %5s %10s %9s %8s  %s\n", "node",
		"host", "ranks", "samples/s", "MB/s", "AU", "limit");
	for (unsigned k = 0; k < n; k++) {
		const struct rpt_cluster_rank *fr = rank_at(c,
			(unsigned)ni[k].first);
		const struct rpt_cluster_rank *sr = rank_at(c,
			(unsigned)ni[k].slow);
		double au_sum = 0, g = 0;
		char h[20], s[32], m[16], au[16], *x;

		if (!fr)
			continue;
		x = FIXED(fr->host);
		snprintf(h, sizeof(h), "%s", x ? x : "?");
		free(x);
		for (unsigned i = 0; i < c->world; i++) {
			const struct rpt_cluster_rank *r = &c->ranks[i];

			if (r->node == k && counts(r) && r->gpus &&
			    r->au >= 0) {
				au_sum += r->au * r->gpus;
				g += r->gpus;
			}
		}
		rpt_fmt_count(s, sizeof(s), t->per_node_samples_per_s[k]);
		snprintf(m, sizeof(m), "%.1f", t->per_node_bytes_per_s[k] / 1e6);
		if (!ni[k].counted) {
			snprintf(s, sizeof(s), "-");
			snprintf(m, sizeof(m), "-");
		}
		if (g > 0)
			snprintf(au, sizeof(au), "%.1f %%", au_sum / g * 100);
		else
			snprintf(au, sizeof(au), "-");
		x = sr ? FIXED(sr->bottleneck) : NULL;
		fprintf(f, "  %4u  %-16s %5u %10s %9s %8s  %s%s", k, h,
			ni[k].ranks, s, m, au, x ? x : "-",
			emulated(c) ? (ni[k].fed ? ", fed" : ", NOT fed") : "");
		free(x);
		if (ni[k].missing)
			fprintf(f, " (%u rank%s missing)", ni[k].missing,
				ni[k].missing == 1 ? "" : "s");
		fputc('\n', f);
	}
}

/* "together 131 MB/s; alone 130+131+129 = 390 MB/s: the cluster got
 * 0.34x the sum" */
static void print_storage(FILE *f, const struct rpt_cluster *c,
			  const struct rpt_cluster_totals *t)
{
	const bool cold = c->setup.cache && !strcmp(c->setup.cache, "cold");
	char a[32], b[32];

	mb(a, sizeof(a), t->bytes_per_s);
	if (t->storage_ceiling_bytes_per_s > 0)
		fprintf(f, "  storage    ceiling %s cold: storage-bound on %u "
			"of %u ranks\n", a, t->storage_bound_ranks,
			t->reported);
	else if (cold)
		fprintf(f, "  storage    ceiling at least %s cold: storage-"
			"bound on only %u of %u ranks, so the storage was not "
			"the limit\n", a, t->storage_bound_ranks, t->reported);
	else
		fprintf(f, "  storage    ceiling not measured: the cache was %s "
			"(run cold for it)\n", nz(c->setup.cache));
	if (t->solo_sum_bytes_per_s >= 0) {
		fprintf(f, "  alone      together %.0f MB/s; alone ",
			t->bytes_per_s / 1e6);
		if (t->reported <= 8) {
			bool first = true;

			for (unsigned i = 0; i < c->world; i++) {
				if (!counts(&c->ranks[i]))
					continue;
				fprintf(f, "%s%.0f", first ? "" : "+",
					c->ranks[i].solo_bytes_per_s / 1e6);
				first = false;
			}
			fprintf(f, " = ");
		} else {
			fprintf(f, "summed over %u ranks ", t->reported);
		}
		fprintf(f, "%.0f MB/s", t->solo_sum_bytes_per_s / 1e6);
		if (t->solo_sum_bytes_per_s > 0)
			fprintf(f, ": the cluster got %.2fx the sum",
				t->bytes_per_s / t->solo_sum_bytes_per_s);
		fputc('\n', f);
	} else {
		fprintf(f, "  alone      the ranks' reads alone were not "
			"measured\n");
	}
	if (t->node_needs_bytes_per_s > 0) {
		rpt_fmt_count(b, sizeof(b), c->setup.demand_per_gpu);
		mb(a, sizeof(a), t->node_needs_bytes_per_s);
		fprintf(f, "  node needs %s: %u x %s at %s samples/s each, "
			"%.0f KB stored per sample\n", a, node_gpus(c),
			c->setup.gpu_type, b, c->setup.bytes_per_sample / 1e3);
		if (t->nodes_before_storage_bound >= 0)
			fprintf(f, "  K          %d node%s before the storage "
				"is the limit (floor(ceiling / node needs))\n",
				t->nodes_before_storage_bound,
				t->nodes_before_storage_bound == 1 ? "" : "s");
	}
}

static void print_once(FILE *f, const struct rpt_cluster *c)
{
	fprintf(f, "  once       ");
	if (c->every_sample_once > 0)
		fprintf(f, "every sample exactly once in each of %u epoch%s",
			c->epochs_checked, c->epochs_checked == 1 ? "" : "s");
	else if (c->every_sample_once == 0)
		fprintf(f, "FAILED: the ranks did not read every sample "
			"exactly once per epoch (%u epoch%s checked)",
			c->epochs_checked, c->epochs_checked == 1 ? "" : "s");
	else if (!c->once_how[0])
		fprintf(f, "not checked (no complete epoch)");
	if (c->once_how[0]) {
		fprintf(f, ": ");
		rpt_put_bytes(f, c->once_how, sizeof(c->once_how));
	}
	fputc('\n', f);
}

static void print_missing(FILE *f, const struct rpt_cluster *c)
{
	for (unsigned i = 0; i < c->world && c->ranks; i++) {
		const struct rpt_cluster_rank *r = &c->ranks[i];

		if (counts(r))
			continue;
		fprintf(f, "  %-10s rank %u (", r->reported ? "failed" : "lost",
			r->rank);
		rpt_put_bytes(f, r->host, sizeof(r->host));
		fprintf(f, "): ");
		if (r->reported)
			rpt_put_bytes(f, r->fail_text, sizeof(r->fail_text));
		else if (r->lost_why[0])
			rpt_put_bytes(f, r->lost_why, sizeof(r->lost_why));
		else
			fputs("no report reached rank 0", f);
		fputc('\n', f);
	}
}

void rpt_cluster_print(FILE *f, const struct rpt_cluster *c)
{
	struct rpt_cluster_totals t;
	struct node_info ni[RPT_CLUSTER_NODES_MAX];
	const unsigned n = node_slots(c);
	char verdict[1024], a[32], b[32];

	rpt_cluster_totals(c, &t);
	nodes_fill(c, ni, n);
	rpt_cluster_verdict(c, verdict, sizeof(verdict));
	fprintf(f, "feedrate %s on a cluster%s\n", nz(c->command),
		c->signal ? " (PARTIAL: interrupted)" : partial(c, &t) ?
		" (PARTIAL: ranks missing)" : "");
	fprintf(f, "  command    %s%s%s\n", nz(c->command),
		c->setup.workload ? ", workload " : "", nz(c->setup.workload));
	fprintf(f, "  dataset    ");
	rpt_put_path(f, c->setup.dataset);
	rpt_fmt_count(a, sizeof(a), (double)c->setup.files);
	rpt_fmt_bytes(b, sizeof(b), (double)c->setup.bytes);
	fprintf(f, ": %s files, %s", a, b);
	if (c->setup.format && *c->setup.format) {
		rpt_fmt_count(a, sizeof(a), (double)c->setup.records);
		fprintf(f, ", %s %s records", a, c->setup.format);
	}
	fputc('\n', f);
	fprintf(f, "  storage    %s", c->setup.fs_type && *c->setup.fs_type ?
		c->setup.fs_type :
		"unknown fs");
	if (c->setup.fs_server && *c->setup.fs_server) {
		fprintf(f, " from ");
		rpt_put_path(f, c->setup.fs_server);
	}
	fprintf(f, "\n  cache      %s\n", nz(c->setup.cache));
	fprintf(f, "  window     %.1f s on every rank, started together "
		"(largest start skew %.3f s)\n", c->window_s, t.max_skew_s);
	fprintf(f, "  world      %u rank%s on %u node%s\n", c->world,
		c->world == 1 ? "" : "s", c->nodes, c->nodes == 1 ? "" : "s");
	if (emulated(c)) {
		rpt_fmt_count(a, sizeof(a), c->setup.demand_per_gpu);
		fprintf(f, "  GPUs       %u x %s emulated per rank, %s "
			"samples/s each (%s, %s; source: %s)\n",
			c->setup.gpu_count, c->setup.gpu_type, a,
			nz(c->setup.demand_kind),
			nz(c->setup.demand_basis), nz(c->setup.demand_source));
	} else {
		fprintf(f, "  GPUs       none emulated (raw feed rate)\n");
	}

	fprintf(f, "\ntotals (%u of %u ranks measured)\n", t.reported,
		c->world);
	rpt_fmt_count(a, sizeof(a), t.samples_per_s);
	fprintf(f, "  samples/s  %s (the sum over ranks, same window)\n", a);
	mb(b, sizeof(b), t.bytes_per_s);
	fprintf(f, "  reads      %s\n", b);
	if (t.au >= 0)
		fprintf(f, "  AU         %.1f %% over every emulated GPU; %u of "
			"%u node%s fed at >= %.0f %%\n", t.au * 100,
			t.nodes_fed, c->nodes, c->nodes == 1 ? "" : "s",
			jdg_threshold(c->setup.au_threshold) * 100);
	if (t.slowest_node >= 0) {
		const struct rpt_cluster_rank *r = rank_at(c,
			(unsigned)ni[t.slowest_node].first);

		rpt_fmt_count(a, sizeof(a),
			      t.per_node_samples_per_s[t.slowest_node]);
		fprintf(f, "  slowest    node %d (", t.slowest_node);
		if (r)
			rpt_put_bytes(f, r->host, sizeof(r->host));
		fprintf(f, "): %s samples/s, %.1f %% below the nodes' "
			"median\n", a, t.slowest_below_median * 100);
	}
	print_storage(f, c, &t);
	if (c->every_sample_once >= 0 || c->once_how[0])
		print_once(f, c);       /* io reads no epochs: none */
	print_missing(f, c);
	if (c->signal)
		fprintf(f, "  signal     stopped by %s: a partial report\n",
			sig_name(c->signal));
	if (c->notes && *c->notes)
		fprintf(f, "  notes      %s\n", c->notes);

	print_nodes(f, c, &t, ni, n);
	fprintf(f, "\nper rank\n  %4s  %-16s  %-16s %10s %9s %8s  %-8s %s\n",
		"rank", "host", "cpus", "samples/s", "MB/s", "AU", "limit",
		"skew");
	for (unsigned i = 0; i < c->world && c->ranks; i++)
		print_rank(f, &c->ranks[i]);
	fprintf(f, "\n  verdict    %s\n", verdict);
}

/* ---- JSON ---- */

/* A fixed array as a JSON string (escaped as a path). */
static json_t *jfixed(const char *a, size_t size)
{
	char *t = fixed_text(a, size);
	json_t *j;

	if (!t)
		return NULL;
	j = json_string(t);
	free(t);
	return j;
}

#define JFIXED(a) jfixed((a), sizeof(a))

static json_t *jstr_or_null(const char *s)
{
	return s && *s ? rpt_json_path(s) : json_null();
}

/* Our own words (notes, workload): as they are when valid UTF-8, else
 * escaped as a path rather than dropped. */
static json_t *jtext(const char *s)
{
	json_t *j = json_string(nz(s));

	return j ? j : rpt_json_path(nz(s));
}

static json_t *rank_json(const struct rpt_cluster_rank *r)
{
	const bool m = counts(r);
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "rank", json_integer(r->rank));
	json_object_set_new(o, "host", JFIXED(r->host));
	json_object_set_new(o, "node", json_integer(r->node));
	json_object_set_new(o, "local_rank", json_integer(r->local_rank));
	json_object_set_new(o, "reported", json_boolean(r->reported));
	json_object_set_new(o, "lost_why", r->reported ? json_null() :
			    JFIXED(r->lost_why));
	json_object_set_new(o, "fail_text", failed(r) ? JFIXED(r->fail_text) :
			    json_null());
	json_object_set_new(o, "vcpus", m ? json_integer(r->vcpus) :
			    json_null());
	json_object_set_new(o, "cpus", m ? JFIXED(r->cpus) : json_null());
	json_object_set_new(o, "cpus_shared", m ? json_boolean(r->cpus_shared) :
			    json_null());
	json_object_set_new(o, "samples", m ? json_integer((json_int_t)
			    r->samples) : json_null());
	json_object_set_new(o, "samples_per_s", rpt_jnum_if(r->samples_per_s, m));
	json_object_set_new(o, "bytes_per_s", rpt_jnum_if(r->bytes_per_s, m));
	json_object_set_new(o, "au", rpt_jnum_if(r->au, m && r->gpus && r->au >= 0));
	json_object_set_new(o, "gpus", m ? json_integer(r->gpus) : json_null());
	json_object_set_new(o, "gpus_fed", m ? json_integer(r->gpus_fed) :
			    json_null());
	json_object_set_new(o, "bottleneck", m ? JFIXED(r->bottleneck) :
			    json_null());
	json_object_set_new(o, "too_short", m ? json_boolean(r->too_short) :
			    json_null());
	json_object_set_new(o, "bottleneck_why", m ? JFIXED(r->bottleneck_why) :
			    json_null());
	json_object_set_new(o, "hit_ratio", rpt_jnum_if(r->hit_ratio,
						m && r->hit_ratio >= 0));
	json_object_set_new(o, "start_skew_s", rpt_jnum_if(r->start_skew_s, m));
	json_object_set_new(o, "solo_bytes_per_s", rpt_jnum_if(r->solo_bytes_per_s,
			    m && r->solo_bytes_per_s >= 0));
	json_object_set_new(o, "signal", r->signal ? json_string(
			    sig_name(r->signal)) : json_null());
	return o;
}

static json_t *nodes_json(const struct rpt_cluster *c,
			  const struct rpt_cluster_totals *t,
			  const struct node_info *ni, unsigned n)
{
	json_t *a = json_array();

	for (unsigned k = 0; a && k < n; k++) {
		const struct rpt_cluster_rank *fr = rank_at(c,
			(unsigned)ni[k].first);
		const bool m = ni[k].counted > 0;

		if (!fr)
			continue;
		json_array_append_new(a, json_pack("{s:i,s:o,s:i,s:i,s:o,s:o,"
			"s:o}", "node", (int)k, "host", JFIXED(fr->host),
			"ranks", (int)ni[k].ranks, "ranks_measured",
			(int)ni[k].counted, "samples_per_s",
			rpt_jnum_if(t->per_node_samples_per_s[k], m), "bytes_per_s",
			rpt_jnum_if(t->per_node_bytes_per_s[k], m), "fed",
			emulated(c) ? json_boolean(ni[k].fed) : json_null()));
	}
	return a;
}

json_t *rpt_cluster_json(const struct rpt_cluster *c)
{
	struct rpt_cluster_totals t;
	struct node_info ni[RPT_CLUSTER_NODES_MAX];
	const unsigned n = node_slots(c);
	json_t *root = json_object(), *ranks = json_array();
	char verdict[1024];

	if (!root || !ranks) {
		json_decref(root);
		json_decref(ranks);
		return NULL;
	}
	rpt_cluster_totals(c, &t);
	nodes_fill(c, ni, n);
	rpt_cluster_verdict(c, verdict, sizeof(verdict));
	json_object_set_new(root, "schema", json_string("feedrate.cluster"));
	json_object_set_new(root, "schema_version",
			    json_integer(RPT_RUN_SCHEMA_VERSION));
	json_object_set_new(root, "command", json_string(nz(c->command)));
	rpt_setup_json(root, &c->setup, RPT_SETUP_CLUSTER);
	json_object_set_new(root, "window_s", rpt_jnum(c->window_s));
	json_object_set_new(root, "world", json_integer(c->world));
	json_object_set_new(root, "node_count", json_integer(c->nodes));
	json_object_set_new(root, "reported", json_integer(t.reported));
	json_object_set_new(root, "lost", json_integer(t.lost));
	json_object_set_new(root, "failed", json_integer(t.failed));
	json_object_set_new(root, "samples_per_s", rpt_jnum_if(t.samples_per_s,
						       t.reported > 0));
	json_object_set_new(root, "bytes_per_s", rpt_jnum_if(t.bytes_per_s,
						     t.reported > 0));
	json_object_set_new(root, "au", rpt_jnum_if(t.au, t.au >= 0));
	json_object_set_new(root, "nodes_fed", emulated(c) ?
			    json_integer(t.nodes_fed) : json_null());
	json_object_set_new(root, "max_skew_s", rpt_jnum_if(t.max_skew_s,
						    t.reported > 0));
	for (unsigned i = 0; i < c->world && c->ranks; i++)
		json_array_append_new(ranks, rank_json(&c->ranks[i]));
	json_object_set_new(root, "ranks", ranks);
	json_object_set_new(root, "nodes", nodes_json(c, &t, ni, n));
	if (t.slowest_node >= 0) {
		const struct rpt_cluster_rank *fr = rank_at(c,
			(unsigned)ni[t.slowest_node].first);

		json_object_set_new(root, "slowest_node", json_pack(
			"{s:i,s:o,s:o}", "node", t.slowest_node, "host",
			fr ? JFIXED(fr->host) : json_null(), "below_median",
			rpt_jnum(t.slowest_below_median)));
	} else {
		json_object_set_new(root, "slowest_node", json_null());
	}
	json_object_set_new(root, "storage", json_pack("{s:o,s:o,s:o,s:o,s:o,"
		"s:i}", "ceiling_bytes_per_s", rpt_jnum_if(t.storage_ceiling_bytes_per_s,
		t.storage_ceiling_bytes_per_s >= 0), "solo_sum_bytes_per_s",
		rpt_jnum_if(t.solo_sum_bytes_per_s, t.solo_sum_bytes_per_s >= 0),
		"together_over_solo", rpt_jnum_if(t.solo_sum_bytes_per_s > 0 ?
		t.bytes_per_s / t.solo_sum_bytes_per_s : 0,
		t.solo_sum_bytes_per_s > 0), "node_needs_bytes_per_s",
		rpt_jnum_if(t.node_needs_bytes_per_s, t.node_needs_bytes_per_s > 0),
		"nodes_before_storage_bound", t.nodes_before_storage_bound >= 0 ?
		json_integer(t.nodes_before_storage_bound) : json_null(),
		"storage_bound_ranks", (int)t.storage_bound_ranks));
	json_object_set_new(root, "exactly_once", json_pack("{s:b,s:o,s:i,"
		"s:o}", "checked", c->every_sample_once >= 0, "ok",
		c->every_sample_once >= 0 ? json_boolean(c->every_sample_once > 0)
		: json_null(), "epochs", (int)c->epochs_checked, "how",
		JFIXED(c->once_how)));
	json_object_set_new(json_object_get(root, "gpus"), "per_node",
			    json_integer(emulated(c) ? node_gpus(c) : 0));
	json_object_set_new(root, "partial", json_boolean(partial(c, &t)));
	json_object_set_new(root, "signal", c->signal ?
			    json_string(sig_name(c->signal)) : json_null());
	json_object_set_new(root, "notes", jtext(c->notes));
	json_object_set_new(root, "verdict", jtext(verdict));
	return root;
}

/* ---- HTML ---- */

/* Append a fixed array's text, escaped as a path and for HTML. */
static void html_fixed(struct rpt_buf *b, const char *a, size_t size)
{
	char *t = fixed_text(a, size);

	if (!t) {
		b->ok = false;
		return;
	}
	rpt_buf_html(b, t);
	free(t);
}

#define HTML_FIXED(b, a) html_fixed((b), (a), sizeof(a))

static void html_row(struct rpt_buf *b, const char *key, const char *val)
{
	rpt_buf_printf(b, "<tr><td>%s</td><td>", key);
	rpt_buf_html(b, val);
	rpt_buf_printf(b, "</td></tr>\n");
}

static void html_totals(struct rpt_buf *b, const struct rpt_cluster *c,
			const struct rpt_cluster_totals *t)
{
	char a[64];

	rpt_buf_printf(b, "<h2>totals</h2>\n");
	rpt_html_table(b, "totals", NULL, 0);
	rpt_buf_printf(b, "<tr><td>dataset</td><td>");
	rpt_buf_html_path(b, c->setup.dataset);
	rpt_buf_printf(b, "</td></tr>\n<tr><td>storage</td><td>");
	rpt_buf_html(b, c->setup.fs_type && *c->setup.fs_type ?
		     c->setup.fs_type : "unknown");
	if (c->setup.fs_server && *c->setup.fs_server) {
		rpt_buf_printf(b, " from ");
		rpt_buf_html_path(b, c->setup.fs_server);
	}
	rpt_buf_printf(b, "</td></tr>\n");
	html_row(b, "cache", nz(c->setup.cache));
	rpt_buf_printf(b, "<tr><td>window</td><td>%.1f s</td></tr>\n"
		       "<tr><td>ranks</td><td>%u of %u measured, on %u "
		       "node%s</td></tr>\n", c->window_s, t->reported, c->world,
		       c->nodes, c->nodes == 1 ? "" : "s");
	rpt_fmt_count(a, sizeof(a), t->samples_per_s);
	rpt_buf_printf(b, "<tr><td>samples/s</td><td class=\"samples-per-s\" "
		       "data-sps=\"%.3f\">%s</td></tr>\n", t->samples_per_s, a);
	mb(a, sizeof(a), t->bytes_per_s);
	rpt_buf_printf(b, "<tr><td>reads</td><td>%s</td></tr>\n", a);
	if (t->au >= 0)
		rpt_buf_printf(b, "<tr><td>AU</td><td>%.1f %%</td></tr>\n",
			       t->au * 100);
	if (t->storage_ceiling_bytes_per_s > 0) {
		mb(a, sizeof(a), t->storage_ceiling_bytes_per_s);
		rpt_buf_printf(b, "<tr><td>storage ceiling (cold)</td><td>%s"
			       "</td></tr>\n", a);
	}
	if (t->solo_sum_bytes_per_s > 0) {
		mb(a, sizeof(a), t->solo_sum_bytes_per_s);
		rpt_buf_printf(b, "<tr><td>the ranks alone, summed</td><td>%s "
			       "(together: %.2fx)</td></tr>\n", a,
			       t->bytes_per_s / t->solo_sum_bytes_per_s);
	}
	if (t->nodes_before_storage_bound >= 0)
		rpt_buf_printf(b, "<tr><td>nodes before storage-bound</td>"
			       "<td>%d</td></tr>\n",
			       t->nodes_before_storage_bound);
	rpt_buf_printf(b, "<tr><td>exactly once</td><td>%s",
		       c->every_sample_once > 0 ? "yes" :
		       c->every_sample_once == 0 ? "FAILED" : "not checked");
	if (c->once_how[0]) {
		rpt_buf_printf(b, ": ");
		HTML_FIXED(b, c->once_how);
	}
	rpt_buf_printf(b, "</td></tr>\n");
	rpt_html_table_end(b);
}

static void html_nodes(struct rpt_buf *b, const struct rpt_cluster *c,
		       const struct rpt_cluster_totals *t,
		       const struct node_info *ni, unsigned n)
{
	static const char *const heads[] = {
		"node", "host", "ranks", "samples/s", "MB/s", "fed", "limit",
	};

	rpt_buf_printf(b, "<h2>per node</h2>\n");
	rpt_html_table(b, "nodes", heads, sizeof(heads) / sizeof(heads[0]));
	for (unsigned k = 0; k < n; k++) {
		const struct rpt_cluster_rank *fr = rank_at(c,
			(unsigned)ni[k].first);
		const struct rpt_cluster_rank *sr = rank_at(c,
			(unsigned)ni[k].slow);

		if (!fr)
			continue;
		rpt_buf_printf(b, "<tr class=\"node%s\" data-node=\"%u\"><td>%u"
			       "</td><td>", (int)k == t->slowest_node ?
			       " slowest" : "", k, k);
		HTML_FIXED(b, fr->host);
		rpt_buf_printf(b, "</td><td>%u", ni[k].ranks);
		if (ni[k].missing)
			rpt_buf_printf(b, " (%u missing)", ni[k].missing);
		if (ni[k].counted)
			rpt_buf_printf(b, "</td><td>%.0f</td><td>%.1f</td>",
				       t->per_node_samples_per_s[k],
				       t->per_node_bytes_per_s[k] / 1e6);
		else
			rpt_buf_printf(b, "</td><td>-</td><td>-</td>");
		rpt_buf_printf(b, "<td>%s</td><td>", !emulated(c) ? "-" :
			       ni[k].fed ? "yes" : "no");
		if (sr)
			HTML_FIXED(b, sr->bottleneck);
		rpt_buf_printf(b, "</td></tr>\n");
	}
	rpt_html_table_end(b);
}

static void html_ranks(struct rpt_buf *b, const struct rpt_cluster *c)
{
	static const char *const heads[] = {
		"rank", "host", "cpus", "samples/s", "MB/s", "AU", "limit",
		"skew",
	};

	rpt_buf_printf(b, "<h2>per rank</h2>\n");
	rpt_html_table(b, "ranks", heads, sizeof(heads) / sizeof(heads[0]));
	for (unsigned i = 0; i < c->world && c->ranks; i++) {
		const struct rpt_cluster_rank *r = &c->ranks[i];

		rpt_buf_printf(b, "<tr class=\"rank%s\" data-rank=\"%u\"><td>%u"
			       "</td><td>", counts(r) ? "" : " lost", r->rank,
			       r->rank);
		HTML_FIXED(b, r->host);
		rpt_buf_printf(b, "</td>");
		if (!counts(r)) {
			rpt_buf_printf(b, "<td colspan=\"6\">%s: ",
				       r->reported ? "failed" : "lost");
			if (r->reported)
				HTML_FIXED(b, r->fail_text);
			else
				HTML_FIXED(b, r->lost_why);
			rpt_buf_printf(b, "</td></tr>\n");
			continue;
		}
		rpt_buf_printf(b, "<td>%u (", r->vcpus);
		HTML_FIXED(b, r->cpus);
		rpt_buf_printf(b, ")%s</td><td>%.0f</td><td>%.1f</td><td>",
			       r->cpus_shared ? " shared" : "", r->samples_per_s,
			       r->bytes_per_s / 1e6);
		if (r->au >= 0)
			rpt_buf_printf(b, "%.1f %%", r->au * 100);
		else
			rpt_buf_printf(b, "-");
		rpt_buf_printf(b, "</td><td>");
		HTML_FIXED(b, r->bottleneck);
		rpt_buf_printf(b, "</td><td>%.3f s</td></tr>\n",
			       r->start_skew_s);
	}
	rpt_html_table_end(b);
}

/* Samples/s per rank as bars; a lost or failed rank is a red mark at 0. */
static void html_bars(struct rpt_buf *b, const struct rpt_cluster *c)
{
	const double ml = 70, h = 220, top = 10;
	double ymax = 0, bw, w;

	for (unsigned i = 0; i < c->world && c->ranks; i++)
		if (counts(&c->ranks[i]))
			ymax = fmax(ymax, c->ranks[i].samples_per_s);
	if (ymax <= 0)
		ymax = 1;
	ymax *= 1.05;
	bw = c->world > 32 ? 12 : 28;
	w = ml + c->world * (bw + 6) + 20;
	rpt_buf_printf(b, "<h2>samples/s per rank</h2>\n");
	rpt_svg_open(b, "bars", w, h + top + 40, NULL);
	rpt_buf_printf(b, "\n");
	rpt_svg_line(b, ml, top + h, w - 10, top + h, "#333");
	rpt_buf_printf(b, "\n");
	rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
		       "%.0f</text><text x=\"%.1f\" y=\"%.1f\" text-anchor="
		       "\"end\">0</text>\n", ml - 6, top + 10, ymax, ml - 6,
		       top + h);
	for (unsigned i = 0; i < c->world && c->ranks; i++) {
		const struct rpt_cluster_rank *r = &c->ranks[i];
		const double x = ml + 6 + i * (bw + 6);
		const double bh = counts(r) ? h * r->samples_per_s / ymax : 0;

		if (counts(r)) {
			rpt_buf_printf(b, "<rect class=\"bar\" data-rank=\"%u\" "
				       "data-sps=\"%.3f\" x=\"%.1f\" y=\"%.1f\" "
				       "width=\"%.1f\" height=\"%.1f\" fill=\""
				       "#1f5fbf\"><title>rank %u (", r->rank,
				       r->samples_per_s, x, top + h - bh, bw,
				       bh, r->rank);
			HTML_FIXED(b, r->host);
			rpt_buf_printf(b, "): %.0f samples/s</title></rect>\n",
				       r->samples_per_s);
		} else {
			rpt_buf_printf(b, "<text class=\"lost\" data-rank=\"%u\""
				       " x=\"%.1f\" y=\"%.1f\" fill=\"#c0392b\">"
				       "x</text>\n", r->rank, x + bw / 3,
				       top + h - 4);
		}
		rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor="
			       "\"middle\">%u</text>\n", x + bw / 2,
			       top + h + 16, r->rank);
	}
	rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
		       "rank</text>\n", ml + (w - ml) / 2, top + h + 34);
	rpt_svg_close(b);
}

char *rpt_cluster_html(const struct rpt_cluster *c)
{
	struct rpt_cluster_totals t;
	struct node_info ni[RPT_CLUSTER_NODES_MAX];
	const unsigned n = node_slots(c);
	struct rpt_buf b;
	char verdict[1024];

	rpt_cluster_totals(c, &t);
	nodes_fill(c, ni, n);
	rpt_cluster_verdict(c, verdict, sizeof(verdict));
	rpt_buf_init(&b);
	rpt_html_head(&b, "feedrate cluster");
	rpt_buf_printf(&b, "<h1>feedrate ");
	rpt_buf_html(&b, c->command ? c->command : "cluster");
	if (c->setup.workload) {
		rpt_buf_printf(&b, ": ");
		rpt_buf_html(&b, c->setup.workload);
	}
	rpt_buf_printf(&b, " on %u node%s, %u rank%s%s</h1>\n", c->nodes,
		       c->nodes == 1 ? "" : "s", c->world,
		       c->world == 1 ? "" : "s", partial(c, &t) ?
		       " (partial)" : "");
	rpt_buf_printf(&b, "<p class=\"verdict\">");
	rpt_buf_html(&b, verdict);
	rpt_buf_printf(&b, "</p>\n");
	html_totals(&b, c, &t);
	html_nodes(&b, c, &t, ni, n);
	html_ranks(&b, c);
	html_bars(&b, c);
	if (c->signal)
		rpt_buf_printf(&b, "<p class=\"note\">Stopped by %s: a partial "
			       "report.</p>\n", sig_name(c->signal));
	if (c->notes && *c->notes) {
		rpt_buf_printf(&b, "<p class=\"note\">");
		rpt_buf_html_path(&b, c->notes);
		rpt_buf_printf(&b, "</p>\n");
	}
	rpt_buf_printf(&b, "<p class=\"note\">report schema feedrate.cluster "
		       "v%d</p>\n", RPT_RUN_SCHEMA_VERSION);
	rpt_html_end(&b);
	return rpt_buf_take(&b);
}

/* ---- helpers shared with report_cluster_sweep.c ---- */

bool rpt_cluster_rank_counts(const struct rpt_cluster_rank *r)
{
	return counts(r);
}

unsigned rpt_cluster_node_gpus(const struct rpt_cluster *c)
{
	return node_gpus(c);
}

const char *rpt_cluster_signal_name(int sig)
{
	return sig_name(sig);
}

bool rpt_cluster_partial(const struct rpt_cluster *c,
			 const struct rpt_cluster_totals *t)
{
	return partial(c, t);
}

char *rpt_cluster_fixed_text(const char *a, size_t size)
{
	return fixed_text(a, size);
}

json_t *rpt_cluster_json_str(const char *s)
{
	return jstr_or_null(s);
}

json_t *rpt_cluster_json_text(const char *s)
{
	return jtext(s);
}

void rpt_cluster_html_fixed(struct rpt_buf *b, const char *a, size_t size)
{
	html_fixed(b, a, size);
}
