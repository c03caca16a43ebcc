/*
 * test_report_cluster.c - the cluster report from hand-made ranks: totals
 * are the sums of the ranks that measured, a lost rank is left out and
 * named, the slowest node and how far below the median, the nodes fed and
 * the verdict's N and K, the raw-feed verdict, the JSON's keys, unknowns
 * as null, and a host name that is not UTF-8 escaped in JSON and HTML.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness.h"
#include "report.h"
#include "report_cluster.h"

#define NR 3

static struct rpt_cluster_rank ranks[NR];

/*
 * Three nodes, one rank each, 8 x A100 per rank at 10 samples/s per GPU,
 * 136,250 stored bytes a sample: a node needs 8 x 10 x 136,250 = 10.9 MB/s.
 * Cold and storage-bound everywhere, together 131 MB/s (so K =
 * floor(131 / 10.9) = 12); alone 130 + 131 + 129 = 390 MB/s. Node 2 is the
 * slowest: 90 samples/s against a median of 100.
 */
static void cluster_make(struct rpt_cluster *c)
{
	static const double sps[NR] = { 100, 110, 90 };
	static const double bps[NR] = { 40e6, 44e6, 47e6 };
	static const double solo[NR] = { 130e6, 131e6, 129e6 };

	memset(ranks, 0, sizeof(ranks));
	for (unsigned i = 0; i < NR; i++) {
		struct rpt_cluster_rank *r = &ranks[i];

		r->rank = i;
		snprintf(r->host, sizeof(r->host), "node-%c", 'a' + i);
		r->node = i;
		r->local_size = 1;
		r->reported = true;
		r->vcpus = 2;
		snprintf(r->cpus, sizeof(r->cpus), "0-1");
		r->measured_s = 30;
		r->start_skew_s = 0.001 * i;
		r->samples = (uint64_t)(sps[i] * 30);
		r->samples_per_s = sps[i];
		r->bytes_per_s = bps[i];
		r->read_bytes = (uint64_t)(bps[i] * 30);
		r->gpus = 8;
		r->au = 0.95;
		r->gpus_fed = 8;
		snprintf(r->bottleneck, sizeof(r->bottleneck), "storage");
		snprintf(r->bottleneck_why, sizeof(r->bottleneck_why),
			 "reads waited");
		r->hit_ratio = 0;
		r->solo_bytes_per_s = solo[i];
	}
	memset(c, 0, sizeof(*c));
	c->command = "run";
	c->setup.workload = "imagenet";
	c->setup.dataset = "/mnt/nfs/imagenet";
	c->setup.fs_type = "nfs4";
	c->setup.fs_server = "127.0.0.1:/export";
	c->setup.cache = "cold";
	c->setup.files = 1000;
	c->setup.bytes = 136250000;
	c->window_s = 30;
	c->world = NR;
	c->nodes = NR;
	c->ranks = ranks;
	c->setup.gpu_type = "A100";
	c->setup.gpu_count = 8;
	c->setup.demand_per_gpu = 10;
	c->setup.au_threshold = 0.9;
	c->setup.demand_kind = "train";
	c->setup.demand_basis = "measured";
	c->setup.demand_source = "test figures";
	c->setup.bytes_per_sample = 136250;
	c->every_sample_once = 1;
	c->epochs_checked = 2;
	snprintf(c->once_how, sizeof(c->once_how), "count, sum and xor of "
		 "the ids per epoch");
	c->notes = "";
}

static char *cluster_text(const struct rpt_cluster *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	rpt_cluster_print(f, c);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static const json_t *rank_json(const json_t *root, size_t i)
{
	const json_t *a = json_object_get(root, "ranks");

	cr_assert(json_is_array(a));
	cr_assert_gt(json_array_size(a), i);
	return json_array_get(a, i);
}

FR_TEST(report_cluster, totals_are_the_sums_of_the_ranks)
{
	struct rpt_cluster c;
	struct rpt_cluster_totals t;

	cluster_make(&c);
	rpt_cluster_totals(&c, &t);
	cr_assert_eq(t.reported, 3);
	cr_assert_eq(t.lost, 0);
	cr_assert_eq(t.failed, 0);
	cr_assert_float_eq(t.samples_per_s, 300, 1e-9);
	cr_assert_float_eq(t.bytes_per_s, 131e6, 1e-3);
	cr_assert_eq(t.nodes_seen, 3);
	for (unsigned i = 0; i < NR; i++) {
		cr_assert_float_eq(t.per_node_samples_per_s[i],
				   ranks[i].samples_per_s, 1e-9);
		cr_assert_float_eq(t.per_node_bytes_per_s[i],
				   ranks[i].bytes_per_s, 1e-3);
	}
	cr_assert_float_eq(t.au, 0.95, 1e-12);
	cr_assert_float_eq(t.solo_sum_bytes_per_s, 390e6, 1e-3);
	cr_assert_float_eq(t.max_skew_s, 0.002, 1e-12);
}

FR_TEST(report_cluster, two_ranks_on_a_node_add_up_in_its_row_and_its_needs)
{
	struct rpt_cluster c;
	struct rpt_cluster_totals t;
	char v[1024];

	cluster_make(&c);
	/* ranks 0 and 1 share node-a */
	ranks[1].node = 0;
	snprintf(ranks[1].host, sizeof(ranks[1].host), "node-a");
	ranks[0].local_size = ranks[1].local_size = 2;
	ranks[1].local_rank = 1;
	ranks[2].node = 1;
	c.nodes = 2;
	rpt_cluster_totals(&c, &t);
	cr_assert_float_eq(t.per_node_samples_per_s[0], 210, 1e-9);
	cr_assert_float_eq(t.per_node_samples_per_s[1], 90, 1e-9);
	cr_assert_eq(t.nodes_seen, 2);
	/* 16 GPUs a node: 2 x 10.9 MB/s */
	cr_assert_float_eq(t.node_needs_bytes_per_s, 21.8e6, 1e-3);
	cr_assert_eq(t.nodes_before_storage_bound, 6);
	rpt_cluster_verdict(&c, v, sizeof(v));
	cr_assert(strstr(v, "feeds 2 nodes x 16 x A100"), "%s", v);
}

FR_TEST(report_cluster, lost_rank_is_left_out_of_totals_and_named)
{
	struct rpt_cluster c;
	struct rpt_cluster_totals t;
	char v[1024], *text, *dump;
	const json_t *r1;
	json_t *root;

	cluster_make(&c);
	ranks[1].reported = false;
	snprintf(ranks[1].lost_why, sizeof(ranks[1].lost_why),
		 "no result within 60 s: the process ended (killed)");
	rpt_cluster_totals(&c, &t);
	cr_assert_eq(t.reported, 2);
	cr_assert_eq(t.lost, 1);
	cr_assert_float_eq(t.samples_per_s, 190, 1e-9);
	cr_assert_float_eq(t.bytes_per_s, 87e6, 1e-3);
	/* node-b lost its only rank: not fed */
	cr_assert_eq(t.nodes_fed, 2);

	rpt_cluster_verdict(&c, v, sizeof(v));
	cr_assert(strstr(v, "partial: rank 1 (node-b) lost"), "%s", v);
	cr_assert(strstr(v, "feeds 2 of 3 nodes"), "%s", v);

	text = cluster_text(&c);
	cr_assert(strstr(text, "rank 1 (node-b): no result within 60 s"),
		  "%s", text);
	cr_assert(strstr(text, "PARTIAL"), "%s", text);
	free(text);

	root = rpt_cluster_json(&c);
	cr_assert_not_null(root);
	cr_assert_float_eq(json_number_value(json_object_get(root,
		"samples_per_s")), 190, 1e-9);
	cr_assert(json_is_true(json_object_get(root, "partial")));
	cr_assert_eq(json_integer_value(json_object_get(root, "lost")), 1);
	r1 = rank_json(root, 1);
	cr_assert(json_is_false(json_object_get(r1, "reported")));
	cr_assert_str_eq(json_string_value(json_object_get(r1, "host")),
			 "node-b");
	cr_assert(strstr(json_string_value(json_object_get(r1, "lost_why")),
			 "killed"));
	cr_assert(json_is_null(json_object_get(r1, "samples_per_s")));
	cr_assert(json_is_null(json_object_get(r1, "bytes_per_s")));
	dump = json_dumps(root, 0);
	cr_assert(strstr(dump, "partial: rank 1 (node-b) lost"));
	free(dump);
	json_decref(root);
}

FR_TEST(report_cluster, failed_rank_is_left_out_and_its_text_shown)
{
	struct rpt_cluster c;
	struct rpt_cluster_totals t;
	char *text;

	cluster_make(&c);
	snprintf(ranks[2].fail_text, sizeof(ranks[2].fail_text),
		 "cannot evict the page cache: EPERM");
	rpt_cluster_totals(&c, &t);
	cr_assert_eq(t.reported, 2);
	cr_assert_eq(t.failed, 1);
	cr_assert_float_eq(t.samples_per_s, 210, 1e-9);
	text = cluster_text(&c);
	cr_assert(strstr(text, "failed     rank 2 (node-c): cannot evict"),
		  "%s", text);
	free(text);
}

FR_TEST(report_cluster, slowest_node_and_how_far_below_the_median)
{
	struct rpt_cluster c;
	struct rpt_cluster_totals t;
	char *text;
	json_t *root;
	const json_t *s;

	cluster_make(&c);
	rpt_cluster_totals(&c, &t);
	cr_assert_eq(t.slowest_node, 2);
	cr_assert_float_eq(t.slowest_below_median, 0.10, 1e-12);
	text = cluster_text(&c);
	cr_assert(strstr(text, "node 2 (node-c): 90 samples/s, 10.0 % below "
			 "the nodes' median"), "%s", text);
	free(text);
	root = rpt_cluster_json(&c);
	s = json_object_get(root, "slowest_node");
	cr_assert_eq(json_integer_value(json_object_get(s, "node")), 2);
	cr_assert_str_eq(json_string_value(json_object_get(s, "host")),
			 "node-c");
	cr_assert_float_eq(json_number_value(json_object_get(s,
		"below_median")), 0.10, 1e-12);
	json_decref(root);

	/* one node has no slowest */
	c.world = 1;
	c.nodes = 1;
	rpt_cluster_totals(&c, &t);
	cr_assert_eq(t.slowest_node, -1);
}

FR_TEST(report_cluster, verdict_gives_nodes_fed_and_nodes_before_storage_bound)
{
	struct rpt_cluster c;
	struct rpt_cluster_totals t;
	char v[1024];

	cluster_make(&c);
	rpt_cluster_totals(&c, &t);
	cr_assert_float_eq(t.storage_ceiling_bytes_per_s, 131e6, 1e-3);
	cr_assert_float_eq(t.node_needs_bytes_per_s, 10.9e6, 1e-3);
	cr_assert_eq(t.nodes_before_storage_bound, 12);
	cr_assert_eq(t.nodes_fed, 3);
	rpt_cluster_verdict(&c, v, sizeof(v));
	cr_assert_str_eq(v, "this storage feeds 3 nodes x 8 x A100 at >= 90 "
			 "% AU; past 12 nodes it is storage-bound");

	/* node-c at AU 80 %, limited by its CPUs */
	ranks[2].au = 0.80;
	snprintf(ranks[2].bottleneck, sizeof(ranks[2].bottleneck), "cpu");
	rpt_cluster_totals(&c, &t);
	cr_assert_eq(t.nodes_fed, 2);
	rpt_cluster_verdict(&c, v, sizeof(v));
	cr_assert_str_eq(v, "this storage feeds 2 of 3 nodes x 8 x A100 at "
			 ">= 90 % AU (the slowest, host node-c, falls short: "
			 "limited by cpu); past 12 nodes it is storage-bound");
}

FR_TEST(report_cluster, storage_ceiling_needs_half_the_ranks_storage_bound)
{
	struct rpt_cluster c;
	struct rpt_cluster_totals t;
	char v[1024], *text;

	cluster_make(&c);
	snprintf(ranks[0].bottleneck, sizeof(ranks[0].bottleneck), "cpu");
	rpt_cluster_totals(&c, &t);
	cr_assert_eq(t.storage_bound_ranks, 2);
	cr_assert_float_eq(t.storage_ceiling_bytes_per_s, 131e6, 1e-3);

	snprintf(ranks[1].bottleneck, sizeof(ranks[1].bottleneck), "cpu");
	rpt_cluster_totals(&c, &t);
	cr_assert_lt(t.storage_ceiling_bytes_per_s, 0);
	cr_assert_eq(t.nodes_before_storage_bound, -1);
	rpt_cluster_verdict(&c, v, sizeof(v));
	cr_assert(strstr(v, "; not storage-bound at 3 nodes: the storage "
			 "ceiling is above 131.0 MB/s"), "%s", v);
	text = cluster_text(&c);
	cr_assert(strstr(text, "ceiling at least 131.0 MB/s cold"), "%s",
		  text);
	free(text);
}

FR_TEST(report_cluster, together_against_the_ranks_alone)
{
	struct rpt_cluster c;
	char *text;

	cluster_make(&c);
	text = cluster_text(&c);
	cr_assert(strstr(text, "together 131 MB/s; alone 130+131+129 = 390 "
			 "MB/s: the cluster got 0.34x the sum"), "%s", text);
	cr_assert(strstr(text, "every sample exactly once in each of 2 "
			 "epochs"), "%s", text);
	cr_assert(strstr(text, "nfs4 from 127.0.0.1:/export"), "%s", text);
	free(text);
}

FR_TEST(report_cluster, raw_feed_verdict_says_no_gpu_emulated)
{
	struct rpt_cluster c;
	struct rpt_cluster_totals t;
	char v[1024];
	json_t *root;

	cluster_make(&c);
	c.setup.gpu_type = NULL;
	c.setup.gpu_count = 0;
	for (unsigned i = 0; i < NR; i++) {
		ranks[i].gpus = 0;
		ranks[i].au = -1;
	}
	rpt_cluster_totals(&c, &t);
	cr_assert_lt(t.au, 0);
	cr_assert_eq(t.nodes_fed, 0);
	cr_assert_eq(t.nodes_before_storage_bound, -1);
	rpt_cluster_verdict(&c, v, sizeof(v));
	cr_assert_str_eq(v, "the cluster reads 300 samples/s (131.0 MB/s); "
			 "no GPU emulated");
	root = rpt_cluster_json(&c);
	cr_assert(json_is_null(json_object_get(root, "au")));
	cr_assert(json_is_null(json_object_get(json_object_get(root, "gpus"),
					       "type")));
	cr_assert(json_is_null(json_object_get(rank_json(root, 0), "au")));
	json_decref(root);
}

FR_TEST(report_cluster, json_total_is_the_sum_and_ranks_carry_their_figures)
{
	struct rpt_cluster c;
	json_t *root;
	const json_t *nodes;

	cluster_make(&c);
	root = rpt_cluster_json(&c);
	cr_assert_not_null(root);
	cr_assert_eq(json_integer_value(json_object_get(root,
		"schema_version")), RPT_RUN_SCHEMA_VERSION);
	cr_assert_str_eq(json_string_value(json_object_get(root, "command")),
			 "run");
	cr_assert_float_eq(json_number_value(json_object_get(root,
		"samples_per_s")), 300, 1e-9);
	cr_assert_float_eq(json_number_value(json_object_get(root,
		"bytes_per_s")), 131e6, 1e-3);
	for (size_t i = 0; i < NR; i++) {
		const json_t *r = rank_json(root, i);
		char host[16];

		snprintf(host, sizeof(host), "node-%c", (int)('a' + i));
		cr_assert_eq(json_integer_value(json_object_get(r, "rank")),
			     (json_int_t)i);
		cr_assert_str_eq(json_string_value(json_object_get(r, "host")),
				 host);
		cr_assert_float_eq(json_number_value(json_object_get(r,
			"samples_per_s")), ranks[i].samples_per_s, 1e-9);
		cr_assert_float_eq(json_number_value(json_object_get(r,
			"bytes_per_s")), ranks[i].bytes_per_s, 1e-3);
	}
	nodes = json_object_get(root, "nodes");
	cr_assert_eq(json_array_size(nodes), 3);
	cr_assert(json_is_true(json_object_get(json_array_get(nodes, 0),
					       "fed")));
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(root,
		"storage"), "nodes_before_storage_bound")), 12);
	cr_assert(json_is_true(json_object_get(json_object_get(root,
		"exactly_once"), "ok")));
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(
		root, "fs"), "server")), "127.0.0.1:/export");
	cr_assert_str_eq(json_string_value(json_object_get(root, "verdict")),
			 "this storage feeds 3 nodes x 8 x A100 at >= 90 % AU; "
			 "past 12 nodes it is storage-bound");
	json_decref(root);
}

FR_TEST(report_cluster, unknowns_are_null_in_json)
{
	struct rpt_cluster c;
	json_t *root;
	const json_t *st, *r0, *once;

	cluster_make(&c);
	c.setup.cache = "warm";
	c.setup.fs_server = "";
	c.every_sample_once = -1;
	c.epochs_checked = 0;
	ranks[1].solo_bytes_per_s = -1;
	ranks[0].hit_ratio = -1;
	root = rpt_cluster_json(&c);
	st = json_object_get(root, "storage");
	cr_assert(json_is_null(json_object_get(st, "ceiling_bytes_per_s")));
	cr_assert(json_is_null(json_object_get(st, "solo_sum_bytes_per_s")));
	cr_assert(json_is_null(json_object_get(st,
					       "nodes_before_storage_bound")));
	cr_assert_float_eq(json_number_value(json_object_get(st,
		"node_needs_bytes_per_s")), 10.9e6, 1e-3);
	cr_assert(json_is_null(json_object_get(json_object_get(root, "fs"),
					       "server")));
	r0 = rank_json(root, 0);
	cr_assert(json_is_null(json_object_get(r0, "hit_ratio")));
	cr_assert(json_is_null(json_object_get(rank_json(root, 1),
					       "solo_bytes_per_s")));
	once = json_object_get(root, "exactly_once");
	cr_assert(json_is_false(json_object_get(once, "checked")));
	cr_assert(json_is_null(json_object_get(once, "ok")));
	cr_assert(json_is_null(json_object_get(root, "signal")));
	cr_assert(json_is_false(json_object_get(root, "partial")));
	json_decref(root);
}

FR_TEST(report_cluster, host_that_is_not_utf8_is_escaped_in_json_and_html)
{
	struct rpt_cluster c;
	json_t *root;
	char *html, *text;

	cluster_make(&c);
	/* a full array, no NUL: as sent over the wire */
	memset(ranks[1].host, 'h', sizeof(ranks[1].host));
	memcpy(ranks[1].host, "<b>\xff\xfe", 5);
	root = rpt_cluster_json(&c);
	cr_assert_not_null(root);
	{
		const char *h = json_string_value(json_object_get(
			rank_json(root, 1), "host"));

		cr_assert_not_null(h);
		cr_assert_eq(strncmp(h, "<b>\\xff\\xfe", 11), 0, "%s", h);
		cr_assert_eq(strlen(h), 3 + 8 + RPT_CLUSTER_HOST_MAX - 5);
	}
	json_decref(root);

	html = rpt_cluster_html(&c);
	cr_assert_not_null(html);
	cr_assert(strstr(html, "&lt;b&gt;\\xff\\xfe"));
	cr_assert_null(strstr(html, "<b>"));
	cr_assert_null(strchr(html, 0xff));
	cr_assert(strstr(html, "<svg class=\"bars\""));
	cr_assert(strstr(html, "class=\"bar\" data-rank=\"2\" data-sps="
			 "\"90.000\""));
	free(html);

	text = cluster_text(&c);
	cr_assert_null(strchr(text, 0xff));
	free(text);
}

FR_TEST(report_cluster, html_marks_a_lost_rank_and_the_slowest_node)
{
	struct rpt_cluster c;
	char *html;

	cluster_make(&c);
	ranks[0].reported = false;
	snprintf(ranks[0].lost_why, sizeof(ranks[0].lost_why), "timed out");
	html = rpt_cluster_html(&c);
	cr_assert_not_null(html);
	cr_assert(strstr(html, "<tr class=\"rank lost\" data-rank=\"0\">"));
	cr_assert(strstr(html, "lost: timed out"));
	cr_assert(strstr(html, "<tr class=\"node slowest\" data-node=\"2\">"));
	cr_assert(strstr(html, "partial: rank 0 (node-a) lost"));
	free(html);
}

FR_TEST(report_cluster, nothing_measured_gives_no_verdict)
{
	struct rpt_cluster c;
	char v[1024];
	json_t *root;

	cluster_make(&c);
	for (unsigned i = 0; i < NR; i++)
		ranks[i].reported = false;
	rpt_cluster_verdict(&c, v, sizeof(v));
	cr_assert(!strncmp(v, "no verdict: no rank measured anything", 37),
		  "%s", v);
	root = rpt_cluster_json(&c);
	cr_assert(json_is_null(json_object_get(root, "samples_per_s")));
	json_decref(root);
}

FR_TEST(report_cluster, window_too_short_for_a_batch_gives_no_verdict)
{
	struct rpt_cluster c;
	char v[1024];
	json_t *root;

	cluster_make(&c);
	ranks[1].too_short = true;
	snprintf(ranks[1].bottleneck_why, sizeof(ranks[1].bottleneck_why),
		 "no batch reached the GPUs");
	rpt_cluster_verdict(&c, v, sizeof(v));
	cr_assert(!strncmp(v, "no verdict: the window was too short to judge "
			   "the GPUs on rank 1 (no batch reached the GPUs)",
			   86), "%s", v);
	root = rpt_cluster_json(&c);
	cr_assert(json_is_true(json_object_get(rank_json(root, 1),
					       "too_short")));
	cr_assert(json_is_false(json_object_get(rank_json(root, 0),
						"too_short")));
	json_decref(root);
}

FR_TEST(report_cluster, storage_below_one_node_is_said_so)
{
	struct rpt_cluster c;
	char v[1024];

	cluster_make(&c);
	/* a cold ceiling far below what one node's GPUs need */
	c.setup.bytes_per_sample = 1e9;
	rpt_cluster_verdict(&c, v, sizeof(v));
	cr_assert(strstr(v, "it is storage-bound below one node"), "%s", v);
	cr_assert_null(strstr(v, "past 0 node"), "%s", v);
}
