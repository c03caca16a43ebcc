/*
 * test_report_sweep.c - the sweep's reports from one hand-made sweep: the
 * JSON parses back with every documented key, the CSV has one row per
 * point under the documented header, the HTML is one self-contained page
 * whose plot has one line per cache state and one dot per measured point,
 * and names from outside (a dataset called "<script>..." with a non-UTF-8
 * byte) stay text everywhere. Report files are written atomically.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness.h"
#include "loader.h"
#include "report.h"
#include "report_ckpt.h"
#include "report_sweep.h"

#define EVIL_NAME "/data/<script>alert(1)</script>/caf\xff\"&'"

static struct rpt_point pts[7];
static struct ldr_series_point series[5];

static void sweep_fill(struct rpt_sweep *s)
{
	static const struct { unsigned v; enum stg_cache_state c; double sps; }
	def[] = {
		{ 1, STG_CACHE_COLD, 300 }, { 1, STG_CACHE_RAM, 320 },
		{ 1, STG_CACHE_WARM, 330 }, { 2, STG_CACHE_COLD, 560 },
		{ 2, STG_CACHE_RAM, 600 }, { 2, STG_CACHE_WARM, 640 },
		{ 4, STG_CACHE_WARM, 0 },
	};

	memset(s, 0, sizeof(*s));
	memset(pts, 0, sizeof(pts));
	for (int i = 0; i < 5; i++) {
		series[i].t_s = i + 1;
		series[i].samples_per_s = 600 + 10 * i;
	}
	for (size_t i = 0; i < 7; i++) {
		struct rpt_point *p = &pts[i];

		p->vcpus = def[i].v;
		p->cache = def[i].c;
		p->status = RPT_POINT_MEASURED;
		p->samples_per_s = def[i].sps;
		p->files_per_s = def[i].sps;
		p->read_bytes_per_s = def[i].sps * 110e3;
		p->au = def[i].sps / 2470;
		p->hit_ratio = def[i].c == STG_CACHE_COLD ? 0 :
			       def[i].c == STG_CACHE_RAM ? 0.31 : 1;
		p->bottleneck = "cpu";
		p->bottleneck_why = "workers busy";
		p->samples = (uint64_t)(def[i].sps * 10);
		p->batches = p->samples / 256;
		p->measured_s = 10;
		p->stages.process_cpu_s = 10.0 * def[i].v;
		p->cpu_outside_mask_s = -1;
		p->fraction_resident = -1;
		p->backend = "uring";
		p->cache_how = "made \"so\", <really>";
		p->series = series;
		p->series_len = 5;
		if (def[i].c == STG_CACHE_RAM)
			p->ram_bytes = 100 << 20;
	}
	pts[6].status = RPT_POINT_DROPPED;
	pts[6].why = "no time left in the 60 s budget";
	s->setup.version = "test";
	s->setup.workload = "imagenet";
	s->setup.dataset = EVIL_NAME;
	s->setup.files = 1871;
	s->setup.bytes = 209700000;
	s->setup.fs_type = "ext4";
	s->setup.fs_device = "vda: <virtio>";
	s->setup.pipeline = "native";
	s->backend = "uring";
	s->setup.cpu_model = "CPU & <co>";
	s->setup.vcpus_total = 2;
	s->setup.threads_per_core = 1;
	s->setup.ram_total = 24ull << 30;
	s->setup.ram_available = 20ull << 30;
	s->setup.cgroup_limit = -1;
	s->setup.instance_type = "";
	s->setup.vendor = "";
	s->setup.gpu_type = "A100";
	s->setup.gpu_detail = "A100 80GB";
	s->setup.gpu_count = 1;
	s->setup.demand_per_gpu = 2470;
	s->setup.demand_kind = "train";
	s->setup.demand_source = "a README";
	s->setup.au_threshold = 0.9;
	s->budget_s = 60;
	s->elapsed_s = 58;
	s->budget_rule = "the rule";
	s->notes = "";
	s->points = pts;
	s->npoints = 7;
	s->lru_ram_bytes = 100 << 20;
	s->lru_ram_steady = 0.2;
	s->lru_half_steady = 0.05;
	rpt_sweep_verdict(s);
}

/*
 * What in PAGE would make a browser fetch something: src=, href=, url(,
 * @import, or "http" anywhere but in the SVG namespace declaration.
 * Returns the first such text, or NULL when the page is whole on its own.
 */
static const char *fetches(const char *page)
{
	static const char *const bad[] = {
		"src=", "href=", "url(", "@import", "http",
	};
	static const char svg_ns[] = "xmlns=\"http://www.w3.org/2000/svg\"";
	static char found[64];
	char *copy = strdup(page), *p;
	const char *ret = NULL;

	cr_assert_not_null(copy);
	/* blank out the namespace declarations: they are names, not URLs */
	for (p = strstr(copy, svg_ns); p; p = strstr(p, svg_ns))
		memset(p, ' ', sizeof(svg_ns) - 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]) && !ret; i++) {
		p = strcasestr(copy, bad[i]);
		if (p) {
			snprintf(found, sizeof(found), "%.40s", p);
			ret = found;
		}
	}
	free(copy);
	return ret;
}

FR_TEST(report_sweep, fetch_check_finds_each_kind_of_fetch)
{
	static const char *const pages[] = {
		"<img src=\"x.png\">", "<link href=\"a.css\">",
		"<div style=\"background:url(a.png)\">",
		"<style>@import 'a.css';</style>",
		"<p>see HTTPS://example.org</p>",
		"<svg xmlns=\"http://www.w3.org/2000/svg\"><image "
		"xlink:href=\"a\"/></svg>",
		"<svg xmlns=\"http://www.w3.org/2000/svg/other\"></svg>",
	};

	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		cr_assert_not_null(fetches(pages[i]), "%s", pages[i]);
	cr_assert_null(fetches("<svg xmlns=\"http://www.w3.org/2000/svg\">"
			       "</svg>"));
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p;
	     p = strstr(p + 1, needle))
		n++;
	return n;
}

FR_TEST(report_sweep, json_parses_back_with_the_documented_keys)
{
	struct rpt_sweep s;
	json_t *root, *back, *p0, *v;
	json_error_t err;
	char *text;
	size_t i;
	json_t *p;

	sweep_fill(&s);
	root = rpt_sweep_json(&s, true);
	cr_assert_not_null(root);
	text = json_dumps(root, 0);
	json_decref(root);
	cr_assert_not_null(text, "every string must be valid UTF-8");
	back = json_loads(text, 0, &err);
	free(text);
	cr_assert_not_null(back, "%s", err.text);
	cr_assert_str_eq(json_string_value(json_object_get(back, "schema")),
			 RPT_SWEEP_SCHEMA_NAME);
	cr_assert_eq(json_integer_value(json_object_get(back,
		"schema_version")), RPT_SWEEP_SCHEMA_VERSION);
	cr_assert_eq(json_array_size(json_object_get(back, "points")), 7);
	p0 = json_array_get(json_object_get(back, "points"), 0);
	{
		static const char *const keys[] = {
			"vcpus", "cache", "samples_per_s", "au", "hit_ratio",
			"bottleneck", "stages", "status", "series",
		};

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			cr_assert_not_null(json_object_get(p0, keys[k]),
					   "points[0].%s", keys[k]);
	}
	json_array_foreach(json_object_get(back, "points"), i, p) {
		if (i == 6) {
			cr_assert_str_eq(json_string_value(json_object_get(p,
				"status")), "dropped");
			cr_assert(json_is_null(json_object_get(p,
				"samples_per_s")));
		} else {
			cr_assert_float_eq(json_real_value(json_object_get(p,
				"samples_per_s")), pts[i].samples_per_s, 1e-9);
		}
	}
	cr_assert_eq(json_array_size(json_object_get(back, "dropped")), 1);
	v = json_object_get(back, "verdict");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(v,
		"gpus_fed"), "warm")), 0);
	cr_assert(json_is_number(json_object_get(json_object_get(v,
		"vcpus_per_gpu"), "cold")));
	cr_assert_eq(json_array_size(json_object_get(v, "per_cache")), 3);
	/* the dataset name, escaped but kept */
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(
		back, "dataset"), "path")),
		"/data/<script>alert(1)</script>/caf\\xff\"&'");
	json_decref(back);
}

FR_TEST(report_sweep, csv_has_one_row_per_point_under_the_header)
{
	struct rpt_sweep s;
	char *csv, *line, *save = NULL;
	int rows = 0;

	sweep_fill(&s);
	csv = rpt_sweep_csv(&s);
	cr_assert_not_null(csv);
	cr_assert(!strncmp(csv, "pipeline,vcpus,cache,status,ram_bytes,"
			   "page_cache_seen_bytes,samples_per_s,au,hit_ratio,",
			   86), "%.90s", csv);
	for (line = strtok_r(csv, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (rows == 1)
			cr_assert(!strncmp(line,
					   "native,1,cold,measured,,,300.00,",
					   32), "%s", line);
		if (rows == 7) {
			cr_assert(!strncmp(line, "native,4,warm,dropped,",
					   22), "%s", line);
			cr_assert(strstr(line, "no time left"), "%s", line);
		}
		rows++;
	}
	cr_assert_eq(rows, 8, "header + 7 points");
	free(csv);
}

FR_TEST(report_sweep, csv_has_each_pipelines_rows_and_the_page_cache_seen)
{
	static struct rpt_point tpts[2];
	struct rpt_sweep s, torch;
	const struct rpt_sweep *others[1] = { &torch };
	char *csv, *line, *save = NULL;
	int rows = 0, torch_rows = 0;

	sweep_fill(&s);
	pts[1].cache_seen_bytes = 90 << 20;   /* the 1-vCPU ram point */
	memset(&torch, 0, sizeof(torch));
	memcpy(tpts, pts, sizeof(tpts));
	tpts[0].samples_per_s = 111;
	torch.points = tpts;
	torch.npoints = 2;
	torch.pipeline_name = "python:/x/a,b.py";
	s.others = others;
	s.nothers = 1;
	csv = rpt_sweep_csv(&s);
	cr_assert_not_null(csv);
	for (line = strtok_r(csv, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (rows == 2)   /* asked 100 MiB, saw 90 MiB */
			cr_expect(!strncmp(line, "native,1,ram,measured,"
					   "104857600,94371840,320.00,", 48),
				  "%s", line);
		if (!strncmp(line, "\"python:/x/a,b.py\",", 19)) {
			torch_rows++;
			if (torch_rows == 1)
				cr_expect(strstr(line, ",111.00,"), "%s",
					  line);
		}
		rows++;
	}
	cr_expect_eq(rows, 1 + 7 + 2, "header + 7 native + 2 of the other");
	cr_expect_eq(torch_rows, 2);
	free(csv);
}

FR_TEST(report_sweep, html_keeps_outside_names_as_text_and_plots_each_point)
{
	struct rpt_sweep s;
	char *html;

	sweep_fill(&s);
	html = rpt_sweep_html(&s);
	cr_assert_not_null(html);
	cr_assert(!strstr(html, "<script"), "no script element, ever");
	cr_assert(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	cr_assert(strstr(html, "caf\\xff&quot;&amp;&#39;"));
	cr_assert(strstr(html, "CPU &amp; &lt;co&gt;"));
	cr_assert(strstr(html, "vda: &lt;virtio&gt;"));
	cr_assert_null(fetches(html), "nothing fetched: %s", fetches(html));
	cr_assert_eq(count(html, "<svg class=\"plot\""), 1);
	cr_assert_eq(count(html, "class=\"series\""), 3, "cold, ram, warm");
	cr_assert_eq(count(html, "<circle class=\"pt\""), 6,
		     "one dot per measured point");
	cr_assert_geq(count(html, "class=\"demand\""), 1);
	cr_assert_eq(count(html, "<svg class=\"tseries\""), 6);
	/* every byte of the page is valid UTF-8: the \xff went through
	 * rpt_path_text */
	cr_assert_null(memchr(html, 0xff, strlen(html)));
	free(html);
}

FR_TEST(report_sweep, text_report_puts_the_verdict_first_in_80_columns)
{
	struct rpt_sweep s;
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n = 0;

	cr_assert_not_null(f);
	sweep_fill(&s);
	rpt_sweep_print(f, &s);
	fclose(f);
	cr_assert(!strncmp(buf, "feedrate sweep\n  verdict  ", 26), "%.60s",
		  buf);
	cr_assert(strstr(buf, "dropped by the budget rule: 4/warm"));
	cr_assert(strstr(buf, "\\xff"), "the path escaped");
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), n++) {
		/* the catalog footnote and path lines may be long; tables
		 * and wrapped prose may not */
		if (strstr(line, "/data/") || strstr(line, "(* a figure"))
			continue;
		cr_assert_leq(strlen(line), 80, "line %d: %s", n, line);
	}
	free(buf);
}

FR_TEST(report_sweep, files_are_written_whole)
{
	struct rpt_sweep s;
	char *dir = fr_test_tmpdir(), path[4096], *csv, got[64];
	FILE *f;

	sweep_fill(&s);
	csv = rpt_sweep_csv(&s);
	snprintf(path, sizeof(path), "%s/r.csv", dir);
	cr_assert_eq(rpt_file_write(path, csv, strlen(csv)), 0);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(got, sizeof(got), f));
	fclose(f);
	cr_assert(!strncmp(got, "pipeline,vcpus,cache,", 21));
	free(csv);
	fr_test_rmtree(dir);
}

/* The "storage" line of S's "storage and RAM" section (malloc'd). */
static char *storage_line(const struct rpt_sweep *s)
{
	char *buf = NULL, *a, *b, *line;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	rpt_sweep_print(f, s);
	cr_assert_eq(fclose(f), 0);
	a = strstr(buf, "\nstorage and RAM\n");
	cr_assert_not_null(a, "%s", buf);
	b = strstr(a, "  RAM      ");
	cr_assert_not_null(b, "%s", a);
	line = strndup(a, (size_t)(b - a));
	cr_assert_not_null(line);
	free(buf);
	return line;
}

FR_TEST(report_sweep, storage_line_says_cold_once)
{
	struct rpt_sweep s;
	char *line;

	/* cold points limited by the CPU: storage gave at least that */
	sweep_fill(&s);
	cr_assert_not(s.v.storage_is_ceiling);
	line = storage_line(&s);
	cr_assert_eq(count(line, "cold"), 1, "%s", line);
	cr_assert_not_null(strstr(line, "storage gave at least"), "%s", line);
	free(line);

	/* cold points limited by storage: its ceiling */
	for (size_t i = 0; i < s.npoints; i++)
		if (pts[i].cache == STG_CACHE_COLD)
			pts[i].bottleneck = "storage";
	rpt_sweep_verdict(&s);
	cr_assert(s.v.storage_is_ceiling);
	line = storage_line(&s);
	cr_assert_eq(count(line, "cold"), 1, "%s", line);
	cr_assert_not_null(strstr(line, "this disk feeds"), "%s", line);
	free(line);
}

/* S's text report (malloc'd). */
static char *text_of(const struct rpt_sweep *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	rpt_sweep_print(f, s);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

/* S's JSON report, dumped and parsed back. */
static json_t *json_of(const struct rpt_sweep *s)
{
	json_t *root = rpt_sweep_json(s, false), *back;
	char *text;

	cr_assert_not_null(root);
	text = json_dumps(root, 0);
	json_decref(root);
	cr_assert_not_null(text);
	back = json_loads(text, 0, NULL);
	free(text);
	cr_assert_not_null(back);
	return back;
}

/* The row of cache state STATE in the cost table of SECTION (malloc'd). */
static char *row_of(const char *section, const char *state)
{
	char want[32];
	const char *p;

	snprintf(want, sizeof(want), "\n           %s ", state);
	p = strstr(section, want);
	cr_assert_not_null(p, "no %s row: %s", state, section);
	p++;
	return strndup(p, strcspn(p, "\n"));
}

/* A checkpoint of 112 GB in 8 shards, saved in 95 s, restored in 80 s. */
static const struct rpt_ckpt_brief ck_fixture = {
	.instance_type = "p4d.24xlarge", .bytes = 112000000000ull,
	.shards = 8, .save_s = 95, .restore_s = 80, .save_bps = 1.179e9,
	.restore_bps = 1.4e9,
};

FR_TEST(report_sweep, checkpoint_and_cost_in_text_json_and_html_when_given)
{
	struct rpt_sweep s;
	char *text, *html, *line, *save = NULL;
	json_t *root, *ck, *cost, *per;
	const char *a, *b;

	sweep_fill(&s);
	s.ckpt = &ck_fixture;
	s.usd_per_hour = 36;
	/* the asked GPUs eat 600/s: warm (640/s) is priced at 600 */
	s.setup.demand_total = 600;

	text = text_of(&s);
	a = strstr(text, "\ncheckpoint and cost\n");
	cr_assert_not_null(a, "%s", text);
	cr_assert_not_null(strstr(a, "  checkpoint 112.00 GB in 8 shards"),
			   "%s", a);
	cr_assert_not_null(strstr(a, "save 95.0 s at 1.18 GB/s, restore "
				  "80.0 s at 1.40 GB/s"), "%s", a);
	cr_assert_not_null(strstr(a, "  cost     $36 per hour"), "%s", a);
	/* 36 / 3600 / 560 x 1e6 and 36 x 1871 / 560 / 3600 */
	line = row_of(a, "cold");
	cr_assert_not_null(strstr(line, " 560 "), "%s", line);
	cr_assert_not_null(strstr(line, " $17.86 "), "%s", line);
	cr_assert_not_null(strstr(line, " $0.03341 "), "%s", line);
	free(line);
	line = row_of(a, "warm");
	cr_assert_not_null(strstr(line, " 600* "), "%s", line);
	cr_assert_not_null(strstr(line, " $16.67 "), "%s", line);
	free(line);
	cr_assert_not_null(strstr(a, "* the asked GPUs' demand"), "%s", a);
	cr_assert_lt(a, strstr(text, "\nmachine and storage\n"));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strstr(line, "/data/") && !strstr(line, "(* a figure"))
			cr_assert_leq(strlen(line), 80, "%s", line);
	free(text);

	root = json_of(&s);
	ck = json_object_get(root, "checkpoint");
	cr_assert_eq(json_integer_value(json_object_get(ck, "shards")), 8);
	cr_assert_eq(json_integer_value(json_object_get(ck, "bytes")),
		     112000000000ll);
	cr_assert_float_eq(json_number_value(json_object_get(ck, "save_s")),
			   95, 1e-9);
	cr_assert_float_eq(json_number_value(json_object_get(ck,
		"restore_bytes_per_s")), 1.4e9, 1);
	cost = json_object_get(root, "cost");
	cr_assert_float_eq(json_number_value(json_object_get(cost,
		"usd_per_hour")), 36, 1e-9);
	cr_assert_float_eq(json_number_value(json_object_get(cost,
		"epoch_samples")), 1871, 1e-9);
	per = json_object_get(cost, "per_cache");
	cr_assert_eq(json_array_size(per), 3, "cold, ram, warm judged");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(
		per, 0), "cache")), "cold");
	cr_assert_float_eq(json_number_value(json_object_get(json_array_get(
		per, 0), "usd_per_million_samples")), 36e6 / 3600 / 560, 1e-9);
	cr_assert_float_eq(json_number_value(json_object_get(json_array_get(
		per, 0), "usd_per_epoch")), 36.0 * 1871 / 560 / 3600, 1e-12);
	cr_assert_float_eq(json_number_value(json_object_get(json_array_get(
		per, 2), "feed_samples_per_s")), 600, 1e-9);
	cr_assert(json_is_true(json_object_get(json_array_get(per, 2),
					       "feed_is_gpu_demand")));
	cr_assert_float_eq(json_number_value(json_object_get(json_array_get(
		per, 2), "measured_samples_per_s")), 640, 1e-9);
	json_decref(root);

	html = rpt_sweep_html(&s);
	cr_assert_not_null(html);
	a = strstr(html, "<h2>checkpoint</h2>");
	b = strstr(html, "<h2>cost</h2>");
	cr_assert_not_null(a);
	cr_assert_not_null(b);
	cr_assert_lt(a, b);
	cr_assert_lt(b, strstr(html, "<h2>machine and storage</h2>"));
	cr_assert_not_null(strstr(a, "95.00 s, 1.18 GB/s"));
	cr_assert_not_null(strstr(b, "<tr data-cache=\"cold\"><td>cold</td>"
				  "<td>560</td><td data-cost=\"msample\">"
				  "$17.86</td>"), "%s", b);
	cr_assert_not_null(strstr(b, "<td>600 (the GPUs"), "%s", b);
	cr_assert_not_null(strstr(b, "$36 per hour"));
	cr_assert_null(fetches(html));
	free(html);
}

FR_TEST(report_sweep, no_checkpoint_or_cost_without_them)
{
	struct rpt_sweep s;
	char *text, *html;
	json_t *root;

	sweep_fill(&s);
	text = text_of(&s);
	cr_assert_null(strstr(text, "checkpoint"), "%s", text);
	cr_assert_null(strstr(text, "per hour"), "%s", text);
	free(text);
	root = json_of(&s);
	cr_assert(json_is_null(json_object_get(root, "checkpoint")),
		  "the key is there, null");
	cr_assert(json_is_null(json_object_get(root, "cost")));
	json_decref(root);
	html = rpt_sweep_html(&s);
	cr_assert_null(strstr(html, "<h2>checkpoint</h2>"));
	cr_assert_null(strstr(html, "<h2>cost</h2>"));
	free(html);

	/* a checkpoint without a price: the checkpoint only */
	s.ckpt = &ck_fixture;
	text = text_of(&s);
	cr_assert_not_null(strstr(text, "  checkpoint 112.00 GB"), "%s", text);
	cr_assert_null(strstr(text, "per hour"), "%s", text);
	free(text);
	root = json_of(&s);
	cr_assert(json_is_object(json_object_get(root, "checkpoint")));
	cr_assert(json_is_null(json_object_get(root, "cost")));
	json_decref(root);
	html = rpt_sweep_html(&s);
	cr_assert_not_null(strstr(html, "<h2>checkpoint</h2>"));
	cr_assert_null(strstr(html, "<h2>cost</h2>"));
	free(html);
}

FR_TEST(report_sweep, cost_prices_only_the_judged_states)
{
	struct rpt_sweep s;
	struct rpt_sweep_cost x;
	char *text, *line;
	const char *a;

	sweep_fill(&s);
	s.usd_per_hour = 36;
	/* only the warm points: cold and ram are not judged */
	for (size_t i = 0; i < s.npoints; i++)
		if (pts[i].cache != STG_CACHE_WARM)
			pts[i].status = RPT_POINT_FAILED;
	rpt_sweep_verdict(&s);
	rpt_sweep_cost_fill(&s, STG_CACHE_COLD, &x);
	cr_assert_not(x.judged);
	cr_assert_lt(x.usd_per_msample, 0);
	rpt_sweep_cost_fill(&s, STG_CACHE_WARM, &x);
	cr_assert(x.judged);
	cr_assert_not(x.gpu_bound, "2470/s eat more than 640/s");
	cr_assert_float_eq(x.usd_per_msample, 36e6 / 3600 / 640, 1e-9);
	text = text_of(&s);
	a = strstr(text, "\ncheckpoint and cost\n");
	cr_assert_not_null(a, "%s", text);
	line = row_of(a, "warm");
	cr_assert_not_null(strstr(line, " 640 "), "%s", line);
	free(line);
	for (const char *p = a; (p = strstr(p, "\n           ")); p++)
		cr_assert(strncmp(p + 12, "cold ", 5) && strncmp(p + 12,
			  "ram ", 4), "%s", a);
	free(text);
}
