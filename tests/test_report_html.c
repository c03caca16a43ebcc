/*
 * test_report_html.c - the sweep's HTML plot answers in the user's units:
 * its x axis runs to the vCPUs the asked GPUs need, each CPU-bound line
 * goes on as a labelled projection with its range, there is one demand
 * line per GPU up to the asked count, the measured points keep their
 * spread in a panel of their own, and a storage-bound state or one whose
 * top point was dropped gets no projection.
 *
 * The verdict is set by hand, so that these tests check the drawing and
 * not the arithmetic (test_verdict.c checks that). Set FR_TEST_KEEP_HTML
 * to a path to keep the pages: the full example there, the variants at
 * that path + ".NAME.html".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "report_sweep.h"

#define NPTS 12
#define NEED 2223.0                     /* 0.9 x 2470 samples/s */

static const unsigned vcpus[4] = { 1, 2, 4, 8 };
static const double sps[STG_CACHE_STATES][4] = {
	[STG_CACHE_COLD] = { 300, 380, 400, 405 },
	[STG_CACHE_RAM] = { 420, 800, 1500, 2800 },
	[STG_CACHE_WARM] = { 450, 880, 1700, 3200 },
};

static struct rpt_point pts[NPTS];

/*
 * A sweep on 8 vCPUs judged against 8 x A100: cold is storage-bound at
 * 405 samples/s; ram needs 51 vCPUs (15,900-17,850 samples/s there),
 * warm 45 (16,400-18,000).
 */
static void sweep_fill(struct rpt_sweep *s)
{
	struct rpt_sweep_verdict *v = &s->v;

	memset(s, 0, sizeof(*s));
	memset(pts, 0, sizeof(pts));
	for (int c = 0; c < STG_CACHE_STATES; c++)
		for (int i = 0; i < 4; i++) {
			struct rpt_point *p = &pts[c * 4 + i];

			p->vcpus = vcpus[i];
			p->cache = (enum stg_cache_state)c;
			p->status = RPT_POINT_MEASURED;
			p->why = "";
			p->samples_per_s = sps[c][i];
			p->files_per_s = sps[c][i];
			p->au = -1;
			p->hit_ratio = -1;
			p->fraction_resident = -1;
			p->cpu_outside_mask_s = -1;
			p->bottleneck = c == STG_CACHE_COLD ? "storage" : "cpu";
			p->bottleneck_why = "";
			p->measured_s = 20;
			p->samples = (uint64_t)(sps[c][i] * 20);
			p->batches = p->samples / 256;
		}
	s->setup.version = "test";
	s->setup.workload = "imagenet";
	s->setup.dataset = "/data/imagenet";
	s->setup.fs_type = "ext4";
	s->setup.fs_device = "nvme0n1";
	s->setup.pipeline = "native";
	s->backend = "uring";
	s->setup.cpu_model = "Test CPU";
	s->setup.vcpus_total = 8;
	s->setup.threads_per_core = 2;
	s->setup.cgroup_limit = -1;
	s->setup.instance_type = "";
	s->setup.vendor = "";
	s->setup.gpu_type = "A100";
	s->setup.gpu_detail = "A100 80GB";
	s->setup.gpu_count = 8;
	s->setup.demand_per_gpu = 2470;
	s->setup.demand_kind = "train";
	s->setup.demand_source = "a table";
	s->setup.au_threshold = 0.9;
	s->budget_rule = "";
	s->notes = "";
	s->points = pts;
	s->npoints = NPTS;

	v->au_threshold = 0.9;
	v->need_per_gpu = NEED;
	v->catalog_cache = -1;
	v->vcpu_kind = STG_VCPU_THREAD;
	v->storage_known = true;
	v->storage_files_per_s = 410;
	v->storage_bytes_per_s = 410 * 110e3;
	v->storage_is_ceiling = true;
	v->storage_gpus = 410 / NEED;
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		struct rpt_cache_verdict *cv = &v->cache[c];

		cv->measured = true;
		cv->top = c * 4 + 3;
		cv->vcpus_top = 8;
		cv->top_is_all = true;
		cv->samples_per_s = sps[c][3];
		cv->hit_ratio = -1;
		cv->gpus_fed = cv->gpus_fed_computed =
			(unsigned)(sps[c][3] / NEED);
		cv->check.used_g = cv->check.used_g1 = -1;
		cv->per_vcpu_rate = sps[c][3] / 8;
		cv->scaling = sps[c][3] / (8 * sps[c][0]);
		cv->vcpus_per_gpu = -1;
		cv->vcpus_reserved = 8;
	}
	v->cache[STG_CACHE_COLD].limiting = "storage";
	v->cache[STG_CACHE_COLD].storage_bound = true;
	v->cache[STG_CACHE_RAM].limiting = "cpu";
	v->cache[STG_CACHE_RAM].vcpus_per_gpu = NEED / 350;
	v->cache[STG_CACHE_RAM].vcpus_needed = 51;
	v->cache[STG_CACHE_RAM].projected = true;
	v->cache[STG_CACHE_RAM].projected_samples_per_s = 17850;
	v->cache[STG_CACHE_RAM].projected_lo = 15900;
	v->cache[STG_CACHE_WARM].limiting = "cpu";
	v->cache[STG_CACHE_WARM].vcpus_per_gpu = NEED / 400;
	v->cache[STG_CACHE_WARM].vcpus_needed = 45;
	v->cache[STG_CACHE_WARM].projected = true;
	v->cache[STG_CACHE_WARM].projected_samples_per_s = 18000;
	v->cache[STG_CACHE_WARM].projected_lo = 16400;
	snprintf(v->headline, sizeof(v->headline), "4 x A100 fed warm; 8 need "
		 "45 vCPUs (projected)");
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* The number in attribute NAME (with its '=') of the element that
 * starts at TAG; fails the test when the element has none. */
static double attr(const char *tag, const char *name)
{
	const char *end, *a;

	cr_assert_not_null(tag, "no element to read %s from", name);
	end = strchr(tag, '>');
	a = strstr(tag, name);
	cr_assert(a && end && a < end, "no %s in %.80s", name, tag);
	a += strlen(name);
	if (*a == '"')
		a++;
	return strtod(a, NULL);
}

/* A copy of the panel PANEL ("answer", "measured") of PAGE, or NULL. */
static char *panel_find(const char *page, const char *panel)
{
	char key[64];
	const char *start, *end;

	snprintf(key, sizeof(key), "<g class=\"panel\" data-panel=\"%s\"",
		 panel);
	start = strstr(page, key);
	if (!start)
		return NULL;
	end = strstr(start + 1, "<g class=\"panel\"");
	if (!end)
		end = strstr(start, "</svg>");
	cr_assert_not_null(end);
	return strndup(start, (size_t)(end - start));
}

/* The page of S; kept at $FR_TEST_KEEP_HTML (the full example, NAME
 * NULL) or at that path + "." NAME ".html" when it is set. */
/* The same, failing the test when PAGE has no such panel. */
static char *panel_of(const char *page, const char *panel)
{
	char *p = panel_find(page, panel);

	cr_assert_not_null(p, "no %s panel", panel);
	return p;
}

static char *page_of(struct rpt_sweep *s, const char *name)
{
	const char *keep = getenv("FR_TEST_KEEP_HTML");
	char *html = rpt_sweep_html(s), path[4096];
	FILE *f;

	cr_assert_not_null(html);
	if (!keep || !*keep)
		return html;
	snprintf(path, sizeof(path), "%s%s%s%s", keep, name ? "." : "",
		 name ? name : "", name ? ".html" : "");
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(html, f);
	fclose(f);
	return html;
}

FR_TEST(report_html, x_axis_runs_to_the_vcpus_the_asked_gpus_need)
{
	struct rpt_sweep s;
	char *html, *answer;
	const char *tick, *proj, *hi;

	sweep_fill(&s);
	html = page_of(&s, NULL);
	answer = panel_of(html, "answer");
	cr_assert_eq(attr(answer, "data-xmax="), 51, "ram needs the most");
	tick = strstr(answer, "<g class=\"xtick\" data-vcpus=\"51\" "
		      "data-role=\"needed\"");
	cr_assert_not_null(tick, "the axis' end is labelled as needed");
	cr_assert_not_null(strstr(answer, "<g class=\"xtick\" data-vcpus=\"8\""
				  " data-role=\"vm\""), "this VM's count");
	for (const char *t = strstr(answer, "<g class=\"xtick\""); t;
	     t = strstr(t + 1, "<g class=\"xtick\""))
		cr_assert_leq(attr(t, "data-vcpus="), 51, "no tick past it");
	/* ram's projection ends at the axis' end */
	proj = strstr(answer, "<g class=\"projection\" data-cache=\"ram\"");
	cr_assert_not_null(proj);
	cr_assert_eq(attr(proj, "data-to-vcpus="), 51);
	hi = strstr(proj, "<line class=\"proj-hi\"");
	cr_assert_not_null(hi);
	cr_assert_float_eq(attr(hi, "x2="), attr(tick, "data-x="), 0.05);
	free(answer);
	free(html);
}

FR_TEST(report_html, projection_goes_on_from_the_top_point_with_its_range)
{
	struct rpt_sweep s;
	char *html;
	const char *proj;

	sweep_fill(&s);
	html = page_of(&s, NULL);
	cr_assert(strstr(html, "PROJECTED 16,400-18,000 samples/s at 45 "
			 "vCPUs, same CPU model only"));
	cr_assert(strstr(html, "PROJECTED 15,900-17,850 samples/s at 51 "
			 "vCPUs, same CPU model only"));
	cr_assert_eq(count(html, "<g class=\"projection\""), 2, "ram, warm");
	proj = strstr(html, "<g class=\"projection\" data-cache=\"warm\"");
	cr_assert_not_null(proj);
	cr_assert_eq(attr(proj, "data-from-vcpus="), 8);
	cr_assert_eq(attr(proj, "data-lo="), 16400);
	cr_assert_eq(attr(proj, "data-hi="), 18000);
	cr_assert(strstr(proj, "<line class=\"proj-lo\""),
		  "a range is drawn as two lines");
	free(html);
}

FR_TEST(report_html, one_demand_line_per_gpu_up_to_the_asked_count)
{
	struct rpt_sweep s;
	char *html, *answer, key[64];

	sweep_fill(&s);
	html = page_of(&s, NULL);
	answer = panel_of(html, "answer");
	cr_assert_eq(count(answer, "<g class=\"demand\" "), 8);
	for (unsigned k = 1; k <= 8; k++) {
		snprintf(key, sizeof(key), "<g class=\"demand\" data-gpus=\"%u\""
			 "%s", k, k == 8 ? " data-asked=\"1\"" : ">");
		cr_assert_eq(count(answer, key), 1, "%s", key);
	}
	cr_assert(strstr(answer, ">8 x A100 at 90 % AU</text>"));
	cr_assert_eq(count(answer, "<g class=\"ceiling\""), 1);
	cr_assert(strstr(answer, "storage ceiling 410 files/s"));
	free(answer);
	free(html);
}

FR_TEST(report_html, measured_points_keep_their_spread_in_a_zoomed_panel)
{
	struct rpt_sweep s;
	char *html, *answer, *measured;
	double lo = 1e9, hi = -1e9;
	size_t n = 0;

	sweep_fill(&s);
	html = page_of(&s, NULL);
	answer = panel_of(html, "answer");
	measured = panel_find(html, "measured");
	cr_assert_not_null(measured, "18,000 samples/s would flatten 405");
	cr_assert_eq(count(answer, "<circle class=\"pt\""), 0);
	for (const char *c = strstr(measured, "<circle class=\"pt\""); c;
	     c = strstr(c + 1, "<circle class=\"pt\"")) {
		lo = fmin(lo, attr(c, "cy="));
		hi = fmax(hi, attr(c, "cy="));
		n++;
	}
	cr_assert_eq(n, NPTS, "one dot per measured point");
	cr_assert_gt(hi - lo, 40, "points span %.1f px", hi - lo);
	cr_assert_eq(count(html, "<g class=\"series\""), 3,
		     "one line per cache state");
	free(measured);
	free(answer);
	free(html);
}

FR_TEST(report_html, storage_bound_state_has_no_projection)
{
	struct rpt_sweep s;
	char *html;

	sweep_fill(&s);
	/* even when a verdict said otherwise */
	s.v.cache[STG_CACHE_COLD].projected = true;
	s.v.cache[STG_CACHE_COLD].vcpus_needed = 400;
	s.v.cache[STG_CACHE_COLD].projected_samples_per_s = 20250;
	html = page_of(&s, "storage");
	cr_assert_null(strstr(html, "<g class=\"projection\" data-cache="
			      "\"cold\""));
	cr_assert(strstr(html, "cold: 405 samples/s at 8 vCPUs, storage-"
			 "bound: more vCPUs do not help, nothing projected"));
	cr_assert_eq(attr(strstr(html, "data-panel=\"answer\""),
			  "data-xmax="), 51, "its vCPUs do not stretch the axis");
	free(html);
}

FR_TEST(report_html, dropped_top_point_says_not_measured_instead_of_a_line)
{
	struct rpt_sweep s;
	char *html;

	sweep_fill(&s);
	pts[STG_CACHE_RAM * 4 + 3].status = RPT_POINT_DROPPED;
	pts[STG_CACHE_RAM * 4 + 3].why = "no time left in the budget";
	s.v.cache[STG_CACHE_RAM].top_dropped = true;
	html = page_of(&s, "dropped");
	cr_assert_null(strstr(html, "<g class=\"projection\" data-cache="
			      "\"ram\""));
	for (const char *g = strstr(html, "data-cache=\"ram\">"); g;
	     g = strstr(g + 1, "data-cache=\"ram\">")) {
		const char *end = strstr(g, "</g>"), *line = strstr(g,
								   "<polyline");

		cr_assert(!line || line > end, "a line through ram's points");
	}
	cr_assert(strstr(html, "ram: not measured within the budget at 8 "
			 "vCPUs</text>"));
	cr_assert_eq(count(html, "<circle class=\"pt\""), NPTS - 1,
		     "the points measured are still shown");
	cr_assert_eq(attr(strstr(html, "data-panel=\"answer\""),
			  "data-xmax="), 45, "warm's vCPUs needed");
	free(html);
}

FR_TEST(report_html, vm_that_feeds_the_asked_gpus_gets_one_panel_to_its_vcpus)
{
	struct rpt_sweep s;
	char *html;

	sweep_fill(&s);
	s.setup.gpu_count = 1;
	for (int c = STG_CACHE_RAM; c <= STG_CACHE_WARM; c++) {
		s.v.cache[c].projected = false;
		s.v.cache[c].vcpus_needed = 7;
		s.v.cache[c].limiting = "gpu";
	}
	html = page_of(&s, "onepanel");
	cr_assert_eq(attr(strstr(html, "data-panel=\"answer\""),
			  "data-xmax="), 8);
	cr_assert_null(strstr(html, "data-panel=\"measured\""));
	cr_assert_null(strstr(html, "<g class=\"projection\""));
	cr_assert_eq(count(html, "<circle class=\"pt\""), NPTS);
	cr_assert_eq(count(html, "<g class=\"demand\" "), 1);
	cr_assert(strstr(html, ">1 x A100 at 90 % AU</text>"));
	free(html);
}

FR_TEST(report_html, many_gpus_keep_a_line_each_and_few_labels)
{
	struct rpt_sweep s;
	char *html, *answer;
	size_t labels;

	sweep_fill(&s);
	s.setup.gpu_count = 64;
	s.v.cache[STG_CACHE_WARM].vcpus_needed = 356;
	s.v.cache[STG_CACHE_WARM].projected_samples_per_s = 142400;
	s.v.cache[STG_CACHE_WARM].projected_lo = 126900;
	s.v.cache[STG_CACHE_RAM].vcpus_needed = 407;
	s.v.cache[STG_CACHE_RAM].projected_samples_per_s = 142450;
	s.v.cache[STG_CACHE_RAM].projected_lo = 126000;
	html = page_of(&s, "many");
	answer = panel_of(html, "answer");
	cr_assert_eq(count(answer, "<g class=\"demand\" "), 64);
	labels = count(answer, "<text class=\"demand-label\"");
	cr_assert_geq(labels, 2);
	cr_assert_leq(labels, 10, "%zu labels", labels);
	cr_assert(strstr(answer, ">64 x A100 at 90 % AU</text>"));
	free(answer);
	free(html);
}

FR_TEST(report_html, outside_names_in_the_plot_stay_text)
{
	struct rpt_sweep s;
	char *html;

	sweep_fill(&s);
	s.setup.gpu_type = "A<100>&\"";
	html = page_of(&s, "escaped");
	cr_assert(strstr(html, ">8 x A&lt;100&gt;&amp;&quot; at 90 % AU"));
	cr_assert_null(strstr(html, "A<100>"));
	free(html);
}
