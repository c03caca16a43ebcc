/*
 * test_report_cluster_sweep.c - the report of a sweep under mpirun, from
 * made-up points: series grouped by (cache, vCPUs) in increasing ranks,
 * the efficiency against the 1-rank point, where a series stops scaling
 * and turns storage-bound, the verdict per cache state, the JSON's points
 * (with each point's cluster report) and series, unknowns as null, a
 * partial sweep, and the HTML's plot and escaping.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness.h"
#include "report.h"
#include "report_cluster.h"

#define MAXR 3
#define NP 6

static struct rpt_cluster_rank rank_store[NP][MAXR];
static struct rpt_cluster_point pts[NP];

/*
 * Point I: RANKS ranks, one a node, each reading TOTAL / RANKS samples/s
 * at 1 MB a sample, limited by LIMIT, 8 x A100 at AU AU.
 */
static void point_make(size_t i, const char *cache, unsigned vcpus,
		       unsigned ranks, double total, const char *limit,
		       double au)
{
	struct rpt_cluster_point *p = &pts[i];
	struct rpt_cluster *c = &p->report;

	memset(rank_store[i], 0, sizeof(rank_store[i]));
	for (unsigned k = 0; k < ranks; k++) {
		struct rpt_cluster_rank *r = &rank_store[i][k];

		r->rank = k;
		snprintf(r->host, sizeof(r->host), "node-%c", 'a' + k);
		r->node = k;
		r->local_size = 1;
		r->reported = true;
		r->vcpus = vcpus;
		snprintf(r->cpus, sizeof(r->cpus), "0-%u", vcpus - 1);
		r->measured_s = 30;
		r->samples_per_s = total / ranks;
		r->bytes_per_s = total / ranks * 1e6;
		r->gpus = 8;
		r->au = au;
		snprintf(r->bottleneck, sizeof(r->bottleneck), "%s", limit);
		r->hit_ratio = -1;
		r->solo_bytes_per_s = -1;
	}
	memset(p, 0, sizeof(*p));
	p->ranks = ranks;
	p->nodes = ranks;
	p->vcpus = vcpus;
	p->cache = cache;
	c->command = "run";
	c->setup.workload = "imagenet";
	c->setup.dataset = "/mnt/nfs/imagenet";
	c->setup.fs_type = "nfs4";
	c->setup.fs_server = "127.0.0.1:/export";
	c->setup.cache = cache;
	c->window_s = 30;
	c->world = ranks;
	c->nodes = ranks;
	c->ranks = rank_store[i];
	c->setup.gpu_type = "A100";
	c->setup.gpu_count = 8;
	c->setup.demand_per_gpu = 10;
	c->setup.au_threshold = 0.9;
	c->setup.bytes_per_sample = 1e6;
	c->every_sample_once = -1;
	c->notes = "";
}

/*
 * Cold: 100, 131, 131 samples/s (at 1 MB a sample: 100, 131, 131 MB/s),
 * the 1-rank point limited by its CPUs, then by the storage: the total
 * flattens at a 131 MB/s ceiling. Warm: 300, 600, 900, scaling linearly.
 * Only the cold 1-rank point and the warm points keep 8 GPUs at >= 90 %.
 */
static void sweep_make(struct rpt_cluster_sweep *s)
{
	point_make(0, "cold", 2, 1, 100, "cpu", 0.95);
	point_make(1, "cold", 2, 2, 131, "storage", 0.60);
	point_make(2, "cold", 2, 3, 131, "storage", 0.40);
	point_make(3, "warm", 2, 1, 300, "cpu", 0.95);
	point_make(4, "warm", 2, 2, 600, "cpu", 0.95);
	point_make(5, "warm", 2, 3, 900, "cpu", 0.95);
	memset(s, 0, sizeof(*s));
	s->setup.workload = "imagenet";
	s->setup.dataset = "/mnt/nfs/imagenet";
	s->setup.fs_type = "nfs4";
	s->setup.fs_server = "127.0.0.1:/export";
	s->setup.files = 1000;
	s->setup.bytes = 1000000000;
	s->world = 3;
	s->nodes = 3;
	s->window_s = 30;
	s->setup.gpu_type = "A100";
	s->setup.gpu_count = 8;
	s->setup.demand_per_gpu = 10;
	s->setup.au_threshold = 0.9;
	s->setup.bytes_per_sample = 1e6;
	s->setup.demand_kind = "train";
	s->setup.demand_basis = "measured";
	s->setup.demand_source = "test figures";
	s->points = pts;
	s->npoints = NP;
	s->notes = "";
}

static char *sweep_text(const struct rpt_cluster_sweep *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	rpt_cluster_sweep_print(f, s);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

FR_TEST(report_cluster_sweep, cold_series_at_a_storage_ceiling_scales_to_one_rank)
{
	struct rpt_cluster_sweep s;
	struct rpt_cluster_series sr[4];
	char v[2048];

	sweep_make(&s);
	cr_assert_eq(rpt_cluster_sweep_series(&s, sr, 4), 2);
	cr_assert_str_eq(sr[0].cache, "cold");
	cr_assert_eq(sr[0].vcpus, 2);
	cr_assert_eq(sr[0].n, 3);
	cr_assert_float_eq(sr[0].efficiency[0], 1.0, 1e-12);
	cr_assert_float_eq(sr[0].efficiency[1], 0.655, 1e-12);
	cr_assert_float_eq(sr[0].efficiency[2], 131.0 / 300, 1e-12);
	cr_assert_float_eq(sr[0].efficiency[2], 0.437, 1e-3);
	cr_assert_eq(sr[0].scales_to, 1);
	cr_assert_eq(sr[0].storage_bound_from, 2);

	rpt_cluster_sweep_verdict(&s, v, sizeof(v));
	cr_assert(strstr(v, "cold: the storage scales to 1 rank (1 node) at >= "
			 "90 % efficiency (44 % at 3 ranks), storage-bound "
			 "from 2 ranks (131.0 MB/s in all), feeds 1 node x 8 "
			 "x A100 at >= 90 % AU; "), "%s", v);
	cr_assert_null(strstr(v, "partial"), "%s", v);
}

FR_TEST(report_cluster_sweep, warm_series_scaling_linearly_scales_to_three_ranks)
{
	struct rpt_cluster_sweep s;
	struct rpt_cluster_series sr[4];
	char v[2048];

	sweep_make(&s);
	cr_assert_eq(rpt_cluster_sweep_series(&s, sr, 4), 2);
	cr_assert_str_eq(sr[1].cache, "warm");
	for (size_t j = 0; j < 3; j++)
		cr_assert_float_eq(sr[1].efficiency[j], 1.0, 1e-12);
	cr_assert_eq(sr[1].scales_to, 3);
	cr_assert_eq(sr[1].storage_bound_from, -1);
	rpt_cluster_sweep_verdict(&s, v, sizeof(v));
	cr_assert(strstr(v, "; warm: scales to 3 ranks (3 nodes), feeds 3 "
			 "nodes x 8 x A100 at >= 90 % AU"), "%s", v);
}

FR_TEST(report_cluster_sweep, series_group_by_cache_and_vcpus_in_increasing_ranks)
{
	struct rpt_cluster_sweep s;
	struct rpt_cluster_series sr[4];

	sweep_make(&s);
	/* plan order scrambled, and the warm points on 4 vCPUs */
	point_make(0, "cold", 2, 3, 131, "storage", 0.4);
	point_make(1, "warm", 4, 2, 600, "cpu", 0.95);
	point_make(2, "cold", 2, 1, 100, "cpu", 0.95);
	point_make(3, "warm", 4, 1, 300, "cpu", 0.95);
	point_make(4, "cold", 2, 2, 131, "storage", 0.6);
	point_make(5, "warm", 2, 1, 300, "cpu", 0.95);
	cr_assert_eq(rpt_cluster_sweep_series(&s, sr, 4), 3);
	cr_assert_str_eq(sr[0].cache, "cold");
	cr_assert_eq(sr[0].first, 0);
	cr_assert_eq(sr[0].n, 3);
	cr_assert_eq(sr[0].point[0], 2);
	cr_assert_eq(sr[0].point[1], 4);
	cr_assert_eq(sr[0].point[2], 0);
	cr_assert_float_eq(sr[0].efficiency[1], 0.655, 1e-12);
	cr_assert_eq(sr[1].vcpus, 4);
	cr_assert_eq(sr[1].n, 2);
	cr_assert_eq(sr[1].point[0], 3);
	cr_assert_eq(sr[2].vcpus, 2);
	cr_assert_eq(sr[2].n, 1);
	/* only the 1-rank point: it scales to 1 */
	cr_assert_eq(sr[2].scales_to, 1);
	/* at most MAX series */
	cr_assert_eq(rpt_cluster_sweep_series(&s, sr, 1), 1);
	cr_assert_eq(sr[0].n, 3);
}

FR_TEST(report_cluster_sweep, verdict_names_vcpus_and_takes_the_most_a_rank)
{
	struct rpt_cluster_sweep s;
	char v[2048];

	sweep_make(&s);
	/* warm at 1 vCPU a rank too, scaling only to 1 rank */
	point_make(0, "warm", 1, 1, 100, "cpu", 0.95);
	point_make(1, "warm", 1, 2, 120, "cpu", 0.5);
	rpt_cluster_sweep_verdict(&s, v, sizeof(v));
	cr_assert(strstr(v, "warm (2 vCPUs a rank): the storage scales to 3 "
			 "ranks (3 nodes)"), "%s", v);
	cr_assert(strstr(v, "cold (2 vCPUs a rank): scaling unknown"), "%s", v);
}

FR_TEST(report_cluster_sweep, storage_bound_from_needs_every_later_point_bound)
{
	struct rpt_cluster_sweep s;
	struct rpt_cluster_series sr[4];
	char v[2048];

	sweep_make(&s);
	/* 3 ranks: limited by their CPUs again */
	point_make(2, "cold", 2, 3, 131, "cpu", 0.40);
	rpt_cluster_sweep_series(&s, sr, 4);
	cr_assert_eq(sr[0].storage_bound_from, -1);
	rpt_cluster_sweep_verdict(&s, v, sizeof(v));
	cr_assert(strstr(v, ", not storage-bound up to 3 ranks (131.0 MB/s in "
			 "all)"), "%s", v);

	/* one of two ranks storage-bound is half: bound; one of three is
	 * not */
	sweep_make(&s);
	snprintf(rank_store[1][0].bottleneck, sizeof(rank_store[1][0].bottleneck),
		 "cpu");
	rpt_cluster_sweep_series(&s, sr, 4);
	cr_assert_eq(sr[0].storage_bound_from, 2);
	snprintf(rank_store[2][0].bottleneck, sizeof(rank_store[2][0].bottleneck),
		 "cpu");
	snprintf(rank_store[2][1].bottleneck, sizeof(rank_store[2][1].bottleneck),
		 "cpu");
	rpt_cluster_sweep_series(&s, sr, 4);
	cr_assert_eq(sr[0].storage_bound_from, -1);
}

FR_TEST(report_cluster_sweep, efficiency_of_exactly_ninety_percent_scales)
{
	struct rpt_cluster_sweep s;
	struct rpt_cluster_series sr[4];

	sweep_make(&s);
	point_make(4, "warm", 2, 2, 540, "cpu", 0.95);   /* 0.90 */
	point_make(5, "warm", 2, 3, 800, "cpu", 0.95);   /* 0.889 */
	rpt_cluster_sweep_series(&s, sr, 4);
	cr_assert_float_eq(sr[1].efficiency[1], 0.90, 1e-12);
	cr_assert_eq(sr[1].scales_to, 2);
}

FR_TEST(report_cluster_sweep, text_has_a_table_per_series_and_the_verdict)
{
	struct rpt_cluster_sweep s;
	char v[2048], *text, *line;

	sweep_make(&s);
	text = sweep_text(&s);
	cr_assert(strstr(text, "nfs4 from 127.0.0.1:/export"), "%s", text);
	cr_assert(strstr(text, "3 ranks on 3 nodes launched"), "%s", text);
	cr_assert(strstr(text, "8 x A100 emulated per rank"), "%s", text);
	cr_assert(strstr(text, "\ncold, 2 vCPUs a rank: scales to 1 rank, "
			 "storage-bound from 2 ranks\n"), "%s", text);
	cr_assert(strstr(text, "\nwarm, 2 vCPUs a rank: scales to 3 ranks\n"),
		  "%s", text);
	/* the cold 2-rank row: 131 samples/s, 131.0 MB/s, 66 a rank */
	line = strstr(text, "\n      2     2        131     131.0        66 "
		      "    65.5 %  60.0 %  storage     0\n");
	cr_assert_not_null(line, "%s", text);
	rpt_cluster_sweep_verdict(&s, v, sizeof(v));
	cr_assert(strstr(text, v), "%s", text);
	cr_assert_null(strstr(text, "PARTIAL"), "%s", text);
	free(text);
}

FR_TEST(report_cluster_sweep, json_has_points_with_their_cluster_and_series)
{
	struct rpt_cluster_sweep s;
	const json_t *a, *p, *c, *x;
	json_t *root;
	char v[2048];

	sweep_make(&s);
	root = rpt_cluster_sweep_json(&s);
	cr_assert_not_null(root);
	cr_assert_str_eq(json_string_value(json_object_get(root, "schema")),
			 "feedrate.cluster_sweep");
	cr_assert_eq(json_integer_value(json_object_get(root,
		"schema_version")), RPT_RUN_SCHEMA_VERSION);
	cr_assert_str_eq(json_string_value(json_object_get(root, "workload")),
			 "imagenet");
	cr_assert_eq(json_integer_value(json_object_get(root, "world")), 3);
	cr_assert_eq(json_integer_value(json_object_get(root, "node_count")),
		     3);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(
		root, "fs"), "server")), "127.0.0.1:/export");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(
		root, "gpus"), "type")), "A100");
	cr_assert(json_is_false(json_object_get(root, "partial")));
	cr_assert(json_is_null(json_object_get(root, "signal")));
	rpt_cluster_sweep_verdict(&s, v, sizeof(v));
	cr_assert_str_eq(json_string_value(json_object_get(root, "verdict")),
			 v);

	a = json_object_get(root, "points");
	cr_assert_eq(json_array_size(a), NP);
	p = json_array_get(a, 1);
	cr_assert_eq(json_integer_value(json_object_get(p, "ranks")), 2);
	cr_assert_eq(json_integer_value(json_object_get(p, "nodes")), 2);
	cr_assert_eq(json_integer_value(json_object_get(p, "vcpus")), 2);
	cr_assert_str_eq(json_string_value(json_object_get(p, "cache")),
			 "cold");
	cr_assert_float_eq(json_number_value(json_object_get(p,
		"samples_per_s")), 131, 1e-9);
	cr_assert_float_eq(json_number_value(json_object_get(p,
		"bytes_per_s")), 131e6, 1e-3);
	cr_assert_float_eq(json_number_value(json_object_get(p,
		"per_rank_samples_per_s")), 65.5, 1e-9);
	cr_assert_float_eq(json_number_value(json_object_get(p,
		"efficiency")), 0.655, 1e-12);
	cr_assert_float_eq(json_number_value(json_object_get(p, "au")), 0.60,
			   1e-12);
	cr_assert_str_eq(json_string_value(json_object_get(p, "limit")),
			 "storage");
	cr_assert_eq(json_integer_value(json_object_get(p, "lost")), 0);
	c = json_object_get(p, "cluster");
	cr_assert_str_eq(json_string_value(json_object_get(c, "schema")),
			 "feedrate.cluster");
	cr_assert_float_eq(json_number_value(json_object_get(c,
		"samples_per_s")), 131, 1e-9);
	cr_assert_eq(json_array_size(json_object_get(c, "ranks")), 2);

	a = json_object_get(root, "series");
	cr_assert_eq(json_array_size(a), 2);
	x = json_array_get(a, 0);
	cr_assert_str_eq(json_string_value(json_object_get(x, "cache")),
			 "cold");
	cr_assert_eq(json_integer_value(json_object_get(x, "vcpus")), 2);
	cr_assert_eq(json_integer_value(json_array_get(json_object_get(x,
		"ranks"), 2)), 3);
	cr_assert_float_eq(json_number_value(json_array_get(json_object_get(x,
		"samples_per_s"), 2)), 131, 1e-9);
	cr_assert_float_eq(json_number_value(json_array_get(json_object_get(x,
		"efficiency"), 1)), 0.655, 1e-12);
	cr_assert_eq(json_integer_value(json_object_get(x, "scales_to")), 1);
	cr_assert_eq(json_integer_value(json_object_get(x,
		"storage_bound_from")), 2);
	x = json_array_get(a, 1);
	cr_assert_eq(json_integer_value(json_object_get(x, "scales_to")), 3);
	cr_assert(json_is_null(json_object_get(x, "storage_bound_from")));
	json_decref(root);
}

FR_TEST(report_cluster_sweep, lost_one_rank_point_makes_efficiency_unknown)
{
	struct rpt_cluster_sweep s;
	struct rpt_cluster_series sr[4];
	const json_t *a, *x;
	json_t *root;
	char v[2048], *text;

	sweep_make(&s);
	rank_store[0][0].reported = false;
	snprintf(rank_store[0][0].lost_why, sizeof(rank_store[0][0].lost_why),
		 "no result within 60 s: the process ended (killed)");
	rpt_cluster_sweep_series(&s, sr, 4);
	for (size_t j = 0; j < 3; j++)
		cr_assert_lt(sr[0].efficiency[j], 0);
	cr_assert_lt(sr[0].samples_per_s[0], 0);
	cr_assert_eq(sr[0].scales_to, 0);
	/* the other series does not lean on it */
	cr_assert_eq(sr[1].scales_to, 3);

	rpt_cluster_sweep_verdict(&s, v, sizeof(v));
	cr_assert(strstr(v, "cold: scaling unknown (no 1-rank figure), "
			 "storage-bound from 2 ranks"), "%s", v);
	cr_assert(strstr(v, "; partial: ranks missing at cold 1 rank"), "%s",
		  v);

	root = rpt_cluster_sweep_json(&s);
	cr_assert_not_null(root);
	a = json_object_get(root, "points");
	for (size_t i = 0; i < 3; i++)
		cr_assert(json_is_null(json_object_get(json_array_get(a, i),
			"efficiency")), "point %zu", i);
	cr_assert(json_is_null(json_object_get(json_array_get(a, 0),
		"samples_per_s")));
	cr_assert(json_is_null(json_object_get(json_array_get(a, 0), "au")));
	cr_assert(json_is_null(json_object_get(json_array_get(a, 0),
		"limit")));
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(a, 0),
		"lost")), 1);
	x = json_array_get(json_object_get(root, "series"), 0);
	cr_assert(json_is_null(json_array_get(json_object_get(x,
		"efficiency"), 0)));
	cr_assert(json_is_null(json_array_get(json_object_get(x,
		"samples_per_s"), 0)));
	cr_assert(json_is_null(json_object_get(x, "scales_to")));
	cr_assert(json_is_true(json_object_get(root, "partial")));
	json_decref(root);

	text = sweep_text(&s);
	cr_assert(strstr(text, "PARTIAL: ranks missing"), "%s", text);
	cr_assert(strstr(text, "at 1 rank: rank 0 (node-a) lost: no result "
			 "within 60 s"), "%s", text);
	free(text);
	text = rpt_cluster_sweep_html(&s);
	cr_assert_not_null(text);
	cr_assert(strstr(text, "at 1 rank: rank 0 (node-a) lost: no result "
			 "within 60 s"), "%s", text);
	cr_assert(strstr(text, "(partial)</h1>"), "%s", text);
	free(text);
}

FR_TEST(report_cluster_sweep, signal_makes_the_sweep_partial)
{
	struct rpt_cluster_sweep s;
	json_t *root;
	char v[2048];

	sweep_make(&s);
	s.signal = SIGINT;
	s.npoints = 5;          /* the last point never ran */
	rpt_cluster_sweep_verdict(&s, v, sizeof(v));
	cr_assert(strstr(v, "; warm: scales to 2 ranks (2 nodes)"), "%s", v);
	cr_assert(strstr(v, "; partial: stopped by SIGINT"), "%s", v);
	root = rpt_cluster_sweep_json(&s);
	cr_assert_str_eq(json_string_value(json_object_get(root, "signal")),
			 "SIGINT");
	cr_assert(json_is_true(json_object_get(root, "partial")));
	cr_assert_eq(json_array_size(json_object_get(root, "points")), 5);
	json_decref(root);
}

FR_TEST(report_cluster_sweep, raw_feed_says_no_feed_and_au_is_null)
{
	struct rpt_cluster_sweep s;
	json_t *root;
	char v[2048];

	sweep_make(&s);
	s.setup.gpu_type = NULL;
	s.setup.gpu_count = 0;
	for (size_t i = 0; i < NP; i++) {
		pts[i].report.setup.gpu_type = NULL;
		pts[i].report.setup.gpu_count = 0;
		for (unsigned k = 0; k < pts[i].ranks; k++) {
			rank_store[i][k].gpus = 0;
			rank_store[i][k].au = -1;
		}
	}
	rpt_cluster_sweep_verdict(&s, v, sizeof(v));
	cr_assert_null(strstr(v, "feeds"), "%s", v);
	root = rpt_cluster_sweep_json(&s);
	cr_assert(json_is_null(json_object_get(json_array_get(json_object_get(
		root, "points"), 0), "au")));
	cr_assert(json_is_null(json_object_get(json_object_get(root, "gpus"),
					       "type")));
	json_decref(root);
}

FR_TEST(report_cluster_sweep, html_plots_a_polyline_per_series_and_escapes)
{
	struct rpt_cluster_sweep s;
	char *html;

	sweep_make(&s);
	s.setup.dataset = "/data/<script>alert(1)</script>\"x\"&\xff";
	snprintf(rank_store[1][1].bottleneck,
		 sizeof(rank_store[1][1].bottleneck), "<b>");
	snprintf(rank_store[1][0].bottleneck,
		 sizeof(rank_store[1][0].bottleneck), "<b>");
	html = rpt_cluster_sweep_html(&s);
	cr_assert_not_null(html);
	cr_assert(!strncmp(html, "<!DOCTYPE html>", 15));
	cr_assert_eq(count_of(html, "<polyline"), 2, "%s", html);
	cr_assert_eq(count_of(html, "<polyline class=\"series\" data-cache="
			      "\"cold\" data-vcpus=\"2\""), 1, "%s", html);
	cr_assert_eq(count_of(html, "<table class=\"series\""), 2, "%s", html);
	cr_assert_eq(count_of(html, "<tr class=\"point"), NP, "%s", html);
	cr_assert_null(strstr(html, "<script"), "%s", html);
	cr_assert_null(strstr(html, "<b>"), "%s", html);
	cr_assert(strstr(html, "/data/&lt;script&gt;alert(1)&lt;/script&gt;"
			 "&quot;x&quot;&amp;\\xff"), "%s", html);
	cr_assert(strstr(html, "&lt;b&gt;"), "%s", html);
	cr_assert(strstr(html, "<svg class=\"scaling\""), "%s", html);
	cr_assert(strstr(html, "</body></html>"), "%s", html);
	free(html);
}
