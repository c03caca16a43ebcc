/*
 * test_pipeline.c - which pipeline a point measures, without running one:
 * --pipeline's parsers, the runner's JSON lines read into a result, the
 * figures drawn from them (samples/s, bottleneck), the words of a failure
 * (the interpreter, the module, its packages, --python), the runner
 * carried in the binary, and the verdict per pipeline of a hand-made
 * sweep in text, JSON and HTML. The runs themselves are in
 * test_pipeline_slow.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "harness.h"
#include "measure.h"
#include "measure_internal.h"
#include "report.h"
#include "report_sweep.h"

FR_TEST(pipeline, parse_takes_native_torch_and_python_file)
{
	static const struct {
		const char *in;
		int err;
		enum ms_pipeline kind;
		const char *file;
	} cases[] = {
		{ "native", 0, MS_PIPELINE_NATIVE, NULL },
		{ "torch", 0, MS_PIPELINE_TORCH, NULL },
		{ "python:my_loader.py", 0, MS_PIPELINE_FILE, "my_loader.py" },
		{ "python:/a/b:c.py", 0, MS_PIPELINE_FILE, "/a/b:c.py" },
		{ "python:", -EINVAL, 0, NULL },
		{ "Torch", -EINVAL, 0, NULL },
		{ "dali", -EINVAL, 0, NULL },
		{ "", -EINVAL, 0, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ms_pipeline_spec sp;
		int err;

		memset(&sp, 0, sizeof(sp));
		err = ms_pipeline_parse(cases[i].in, &sp);
		cr_expect_eq(err, cases[i].err, "'%s': %d", cases[i].in, err);
		if (err)
			continue;
		cr_expect_eq(sp.kind, cases[i].kind, "'%s'", cases[i].in);
		if (cases[i].file)
			cr_expect_str_eq(sp.file, cases[i].file);
		else
			cr_expect_null(sp.file);
	}
}

FR_TEST(pipeline, list_keeps_the_order_and_refuses_repeats)
{
	struct ms_pipeline_spec sp[MS_PIPELINES_MAX];
	char buf[256], name[64];
	unsigned n = 0;

	cr_assert_eq(ms_pipelines_parse("torch,native,python:x.py", buf,
					sizeof(buf), sp, MS_PIPELINES_MAX,
					&n), 0);
	cr_assert_eq(n, 3);
	cr_expect_eq(sp[0].kind, MS_PIPELINE_TORCH);
	cr_expect_eq(sp[1].kind, MS_PIPELINE_NATIVE);
	cr_expect_str_eq(ms_pipeline_name(&sp[2], name, sizeof(name)),
			 "python:x.py");
	cr_expect_eq(ms_pipelines_parse("native,native", buf, sizeof(buf),
					sp, MS_PIPELINES_MAX, &n), -EINVAL);
	cr_expect_eq(ms_pipelines_parse("python:a.py,python:a.py", buf,
					sizeof(buf), sp, MS_PIPELINES_MAX,
					&n), -EINVAL);
	cr_expect_eq(ms_pipelines_parse("python:a.py,python:b.py", buf,
					sizeof(buf), sp, MS_PIPELINES_MAX,
					&n), 0);
	cr_expect_eq(ms_pipelines_parse("native,torch,python:a,python:b,"
					"python:c", buf, sizeof(buf), sp,
					MS_PIPELINES_MAX, &n), -EINVAL);
	cr_expect_eq(ms_pipelines_parse(",", buf, sizeof(buf), sp,
					MS_PIPELINES_MAX, &n), -EINVAL);
}

static struct ldr_result *res_new(void)
{
	struct ldr_result *r = calloc(1, sizeof(*r));

	cr_assert_not_null(r);
	return r;
}

FR_TEST(pipeline, runner_lines_fill_versions_series_and_totals)
{
	struct ldr_result *res = res_new();
	struct ms_python_info info;

	memset(&info, 0, sizeof(info));
	cr_assert_eq(ms_python_line("{\"t\":\"hello\",\"pid\":7,\"versions\":"
		"{\"python\":\"3.11.2\",\"torch\":\"1.13.0a0\",\"torchvision\":"
		"\"0.14.1a0\",\"pillow\":\"9.4.0\",\"libjpeg\":\"libjpeg-turbo "
		"6.2\"},\"batch\":32,\"workers\":3}", res, &info), 0);
	cr_expect_str_eq(info.torch, "1.13.0a0");
	cr_expect_str_eq(info.libjpeg, "libjpeg-turbo 6.2");
	cr_expect_eq(info.workers, 3);
	cr_expect_eq(info.batch, 32);
	cr_assert_eq(ms_python_line("{\"t\":\"procs\",\"main\":{\"pid\":7,"
		"\"cpus\":\"0\",\"cgroup\":\"/a\"},\"workers\":[{\"pid\":8,"
		"\"cpus\":\"0\",\"cgroup\":\"/a\"},{\"pid\":9,\"cpus\":\"0-1\","
		"\"cgroup\":\"/b\"}],\"warmup_s\":2.5}", res, &info), 0);
	cr_expect_eq(info.nprocs, 3);
	cr_expect(!info.procs[0].worker && info.procs[2].worker);
	cr_expect_str_eq(info.procs[2].cpus, "0-1");
	cr_expect_float_eq(res->warmup_s, 2.5, 1e-12);
	cr_assert_eq(ms_python_line("{\"t\":\"tick\",\"t_s\":1.0,\"samples\""
		":64,\"rate\":64.0,\"au\":0.5}", res, &info), 0);
	cr_expect_eq(res->series_len, 1);
	cr_expect_eq(res->samples, 64);
	cr_expect(!info.done);
	cr_assert_eq(ms_python_line("{\"t\":\"done\",\"stopped\":false,"
		"\"samples\":320,\"batches\":10,\"measured_s\":4.0,"
		"\"warmup_s\":2.5,\"au\":0.25,\"au_per_gpu\":[0.25,0.25],"
		"\"compute_s\":1,\"wait_s\":3,\"step_s\":0.1,\"epochs\":2,"
		"\"main_cpu_s\":0.5,\"workers_cpu_s\":3.5,\"read_bytes\":4000,"
		"\"warmup_incomplete\":false}", res, &info), 0);
	cr_expect(info.done);
	cr_expect_eq(res->samples, 320);
	cr_expect_eq(res->batches, 10);
	cr_expect_eq(res->epochs_done, 2);
	cr_expect_float_eq(res->au_per_gpu[1], 0.25, 1e-12);
	cr_expect_float_eq(info.workers_cpu_s, 3.5, 1e-12);
	/* lines that are not JSON are refused; unknown types ignored */
	cr_expect_eq(ms_python_line("Traceback (most", res, &info), -EPROTO);
	cr_expect_eq(ms_python_line("{\"t\":\"later\"}", res, &info), 0);
	free(res);
}

FR_TEST(pipeline, finish_draws_rate_cpu_and_an_honest_bottleneck)
{
	struct ldr_result *res = res_new();
	struct ms_python_info info;

	memset(&info, 0, sizeof(info));
	info.workers = 1;
	info.batch = 32;
	info.main_cpu_s = 0.2;
	info.workers_cpu_s = 3.6;
	res->samples = 400;
	res->measured_s = 4;
	ms_python_finish(res, &info, 1, 0.9);
	cr_expect_float_eq(res->samples_per_s, 100, 1e-9);
	cr_expect_float_eq(res->process_cpu_s, 3.8, 1e-9);
	cr_expect_eq(res->batch, 32);
	cr_expect_eq(res->bottleneck, LDR_BOTTLENECK_CPU, "%s",
		     res->bottleneck_why);
	/* the same with 4 vCPUs mostly idle: it does not guess */
	ms_python_finish(res, &info, 4, 0.9);
	cr_expect_eq(res->bottleneck, LDR_BOTTLENECK_UNKNOWN);
	cr_expect_not_null(strstr(res->bottleneck_why, "cannot be seen"));
	/* GPUs at the threshold are fed */
	res->gpus = 1;
	res->batches = 12;
	res->au = 0.9;
	ms_python_finish(res, &info, 4, 0.9);
	cr_expect_eq(res->bottleneck, LDR_BOTTLENECK_GPU);
	free(res);
}

FR_TEST(pipeline, a_missing_module_names_interpreter_packages_and_python)
{
	struct ms_python_info info;
	char buf[1024];

	memset(&info, 0, sizeof(info));
	info.fail = MS_PYTHON_MISSING_MODULE;
	snprintf(info.interpreter, sizeof(info.interpreter),
		 "/opt/py/bin/python3");
	snprintf(info.module, sizeof(info.module), "torchvision");
	ms_python_fail_text(&info, buf, sizeof(buf));
	cr_expect_not_null(strstr(buf, "/opt/py/bin/python3"), "%s", buf);
	cr_expect_not_null(strstr(buf, "'torchvision'"), "%s", buf);
	cr_expect_not_null(strstr(buf, "python3-torchvision"), "%s", buf);
	cr_expect_not_null(strstr(buf, "pip's torchvision"), "%s", buf);
	cr_expect_not_null(strstr(buf, "--python"), "%s", buf);
	cr_expect_not_null(strstr(buf, "--pipeline native"), "%s", buf);
	snprintf(info.module, sizeof(info.module), "PIL");
	ms_python_fail_text(&info, buf, sizeof(buf));
	cr_expect_not_null(strstr(buf, "python3-pil"), "%s", buf);
	cr_expect_not_null(strstr(buf, "pip's pillow"), "%s", buf);
	info.fail = MS_PYTHON_NO_INTERPRETER;
	ms_python_fail_text(&info, buf, sizeof(buf));
	cr_expect_not_null(strstr(buf, "/opt/py/bin/python3"), "%s", buf);
	cr_expect_not_null(strstr(buf, "--python"), "%s", buf);
}

FR_TEST(pipeline, the_binary_carries_the_runner)
{
	const char *text = (const char *)ms_torch_runner_py;

	cr_assert_gt(ms_torch_runner_py_len, 1000);
	cr_expect_not_null(memmem(text, ms_torch_runner_py_len,
				  "def make_torch_loader", 21));
	cr_expect_not_null(memmem(text, ms_torch_runner_py_len,
				  "RandomResizedCrop(224)", 22));
	cr_expect_not_null(memmem(text, ms_torch_runner_py_len,
				  "persistent_workers", 18));
}

FR_TEST(pipeline, probe_without_an_interpreter_says_which_was_tried)
{
	struct ms_pipeline_spec sp;
	struct ms_python_info info;
	char why[1024];

	memset(&sp, 0, sizeof(sp));
	sp.kind = MS_PIPELINE_TORCH;
	sp.python = "/nonexistent/feedrate-test/python3";
	cr_expect_eq(ms_python_probe(&sp, &info, why, sizeof(why)), -ENOENT);
	cr_expect_eq(info.fail, MS_PYTHON_NO_INTERPRETER);
	cr_expect_not_null(strstr(why, "/nonexistent/feedrate-test/python3"),
			   "%s", why);
}

/* ---- the verdict per pipeline, on two hand-made sweeps ---- */

static struct rpt_point pts[2][2];

static void sweep_make(struct rpt_sweep *s, struct rpt_point *p, double rate,
		       double cpu_per_sample, const char *name)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < 2; i++) {
		struct rpt_point *q = &p[i];

		memset(q, 0, sizeof(*q));
		q->vcpus = (unsigned)i + 1;
		q->cache = STG_CACHE_WARM;
		q->status = RPT_POINT_MEASURED;
		q->samples_per_s = rate * (i + 1);
		q->files_per_s = q->samples_per_s;
		q->au = -1;
		q->hit_ratio = 1;
		q->bottleneck = "cpu";
		q->bottleneck_why = "busy";
		q->measured_s = 10;
		q->samples = (uint64_t)(q->samples_per_s * 10);
		q->batches = q->samples / 256;
		q->stages.process_cpu_s = cpu_per_sample * (double)q->samples;
		q->cpu_outside_mask_s = -1;
		q->fraction_resident = 1;
		q->backend = "uring";
		q->cache_how = "warm";
	}
	s->setup.version = "test";
	s->setup.workload = "imagenet";
	s->setup.dataset = "/data";
	s->setup.files = 1000;
	s->setup.bytes = 100 << 20;
	s->setup.pipeline = name;
	s->pipeline_name = name;
	s->setup.vcpus_total = 2;
	s->setup.threads_per_core = 1;
	s->setup.ram_total = 24ull << 30;
	s->setup.ram_available = 20ull << 30;
	s->setup.cgroup_limit = -1;
	s->setup.gpu_type = "A100";
	s->setup.gpu_count = 8;
	s->setup.demand_per_gpu = 1000;
	s->setup.au_threshold = 0.9;
	s->budget_rule = "rule";
	s->notes = "";
	s->points = p;
	s->npoints = 2;
	rpt_sweep_verdict(s);
}

FR_TEST(pipeline, sweep_gives_a_verdict_per_pipeline_everywhere)
{
	static struct rpt_sweep native, torch;
	static const struct rpt_sweep *others[1] = { &torch };
	struct ms_python_info py;
	struct rpt_pipeline_verdict v[2];
	char line[512], *html, *text = NULL;
	size_t len = 0;
	const json_t *by, *tv, *arr;
	json_t *root;
	FILE *f;

	memset(&py, 0, sizeof(py));
	snprintf(py.torch, sizeof(py.torch), "1.13.0a0");
	/* native: 1,000 samples/s per vCPU, 1 ms CPU each; torch: 350 and
	 * 2.9 ms */
	sweep_make(&native, pts[0], 1000, 1e-3, "native");
	sweep_make(&torch, pts[1], 350, 2.9e-3, "torch");
	torch.py = &py;
	native.others = others;
	native.nothers = 1;

	cr_assert(rpt_pipeline_verdict_get(&native, 0, &v[0]));
	cr_assert(rpt_pipeline_verdict_get(&native, 1, &v[1]));
	{
		struct rpt_pipeline_verdict none;

		cr_expect(!rpt_pipeline_verdict_get(&native, 2, &none));
	}
	cr_expect_eq(v[0].cache, STG_CACHE_WARM);
	cr_expect_eq(v[0].gpus_fed, 2);         /* 2000 / 900 */
	cr_expect_eq(v[1].gpus_fed, 0);         /* 700 / 900 */
	rpt_pipelines_line(v, 2, "A100", line, sizeof(line));
	cr_expect_str_eq(line, "native feeds 2 x A100; torch (PyTorch "
			 "1.13.0a0 DataLoader, 1 worker) feeds 0 x A100: "
			 "2.9x the CPU per sample");

	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	rpt_sweep_print(f, &native);
	fclose(f);
	cr_expect_not_null(strstr(text, "by pipeline"), "%s", text);
	cr_expect_not_null(strstr(text, line), "%s", text);
	cr_expect_not_null(strstr(text, "\npipeline torch\n"), "%s", text);
	free(text);

	root = rpt_sweep_json(&native, false);
	cr_assert_not_null(root);
	by = json_object_get(json_object_get(root, "verdict"), "by_pipeline");
	cr_assert(json_is_object(by));
	tv = json_object_get(by, "torch");
	cr_assert(json_is_object(tv));
	cr_expect_eq(json_integer_value(json_object_get(tv, "gpus_fed")), 0);
	cr_expect_float_eq(json_number_value(json_object_get(tv,
		"cpu_s_per_sample")), 2.9e-3, 1e-9);
	cr_expect(json_is_number(json_object_get(tv, "vcpus_per_gpu")));
	cr_expect(json_is_string(json_object_get(tv, "headline")));
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(by,
		"native"), "gpus_fed")), 2);
	arr = json_object_get(root, "pipelines");
	cr_assert_eq(json_array_size(arr), 2);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(arr,
		1), "name")), "torch");
	cr_expect_eq(json_array_size(json_object_get(json_array_get(arr, 1),
						     "points")), 2);
	cr_expect_null(json_object_get(json_object_get(json_array_get(arr, 1),
		"verdict"), "by_pipeline"), "the lines are the report's, once");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(
		json_array_get(arr, 1), "versions"), "torch")), "1.13.0a0");
	/* compare reads the same line back from the report */
	{
		struct rpt_candidate cand;
		char why[256], *cmp = NULL;
		size_t clen = 0;

		cr_assert_eq(rpt_candidate_from_json(root, "a.json", &cand, why,
						     sizeof(why)), 0, "%s", why);
		cr_assert_not_null(cand.pipelines);
		cr_expect_str_eq(cand.pipelines, line);
		f = open_memstream(&cmp, &clen);
		cr_assert_not_null(f);
		rpt_compare_print(f, &cand, 1);
		fclose(f);
		cr_expect_not_null(strstr(cmp, "by pipeline: native feeds 2"),
				   "%s", cmp);
		free(cmp);
		rpt_candidate_free(&cand);
	}
	json_decref(root);

	html = rpt_sweep_html(&native);
	cr_assert_not_null(html);
	cr_expect_not_null(strstr(html, "<h2>By pipeline</h2>"));
	cr_expect_not_null(strstr(html, "one line per pipeline"));
	free(html);

	/* one pipeline: nothing of it */
	native.nothers = 0;
	root = rpt_sweep_json(&native, false);
	cr_expect_null(json_object_get(json_object_get(root, "verdict"),
				       "by_pipeline"));
	json_decref(root);
}

FR_TEST(pipeline, workers_default_to_all_vcpus_but_one_and_at_least_one)
{
	cr_expect_eq(ms_pipeline_workers(0, 1), 1);
	cr_expect_eq(ms_pipeline_workers(0, 2), 1);
	cr_expect_eq(ms_pipeline_workers(0, 8), 7);
	cr_expect_eq(ms_pipeline_workers(3, 8), 3, "--workers wins");
	cr_expect_eq(ms_pipeline_workers(5, 1), 5, "even above the vCPUs");
}

FR_TEST(pipeline, a_torch_only_sweep_names_its_pipeline_and_not_native)
{
	static struct rpt_sweep torch;
	static struct rpt_point tp[2];
	struct ms_python_info py;
	const json_t *arr, *e, *ver;
	json_t *root;
	char *text = NULL, *csv;
	size_t len = 0;
	FILE *f;

	memset(&py, 0, sizeof(py));
	snprintf(py.python, sizeof(py.python), "3.11.2");
	snprintf(py.torch, sizeof(py.torch), "1.13.0a0");
	snprintf(py.libjpeg, sizeof(py.libjpeg), "libjpeg-turbo 2.1.5");
	sweep_make(&torch, tp, 350, 2.9e-3, "torch");
	torch.setup.pipeline = "PyTorch DataLoader (ImageFolder, PIL)";
	torch.py = &py;
	torch.pipeline_workers = 1;
	rpt_sweep_verdict(&torch);

	root = rpt_sweep_json(&torch, false);
	cr_assert_not_null(root);
	arr = json_object_get(root, "pipelines");
	cr_assert_eq(json_array_size(arr), 1, "the one pipeline, described");
	e = json_array_get(arr, 0);
	cr_expect_str_eq(json_string_value(json_object_get(e, "name")),
			 "torch");
	cr_expect_eq(json_integer_value(json_object_get(e, "workers")), 1);
	ver = json_object_get(e, "versions");
	cr_expect_str_eq(json_string_value(json_object_get(ver, "torch")),
			 "1.13.0a0");
	cr_expect_str_eq(json_string_value(json_object_get(ver, "libjpeg")),
			 "libjpeg-turbo 2.1.5");
	cr_expect(json_is_object(json_object_get(json_object_get(json_object_get(
		root, "verdict"), "by_pipeline"), "torch")));
	{
		/* compare names the pipeline of a torch-only report */
		char *cmp = rpt_pipelines_line_json(root);

		cr_assert_not_null(cmp);
		cr_expect_not_null(strstr(cmp, "torch (PyTorch 1.13.0a0 "
					  "DataLoader, 1 worker) feeds 0"),
				   "%s", cmp);
		free(cmp);
	}
	json_decref(root);

	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	rpt_sweep_print(f, &torch);
	fclose(f);
	cr_expect_null(strstr(text, "native pipeline"), "%s", text);
	cr_expect_not_null(strstr(text, "for this Python"), "%s", text);
	free(text);

	csv = rpt_sweep_csv(&torch);
	cr_assert_not_null(csv);
	cr_expect_not_null(strstr(csv, "\ntorch,1,warm,measured,"), "%s", csv);
	free(csv);
}

FR_TEST(pipeline, runner_figures_below_zero_read_zero_and_a_long_error_keeps_its_end)
{
	struct ldr_result *res = res_new();
	struct ms_python_info info;
	char *line, fail[512];
	size_t n = 0;

	memset(&info, 0, sizeof(info));
	cr_assert_eq(ms_python_line("{\"t\":\"done\",\"samples\":-5,"
		"\"batches\":-1e30,\"epochs\":2,\"read_bytes\":-7}", res,
		&info), 0);
	cr_expect_eq(res->samples, 0);
	cr_expect_eq(res->batches, 0);
	cr_expect_eq(res->epochs_done, 2);
	cr_expect_eq(res->read_bytes, 0);
	/* an error text longer than the tail: its last line is kept whole */
	line = malloc(16384);
	cr_assert_not_null(line);
	n += (size_t)sprintf(line, "{\"t\":\"error\",\"kind\":\"user\","
			     "\"text\":\"Traceback\\n");
	for (int i = 0; i < 400; i++)
		n += (size_t)sprintf(line + n, "  frame %03d\\n", i);
	sprintf(line + n, "ValueError: the last words\"}");
	memset(&info, 0, sizeof(info));
	cr_assert_eq(ms_python_line(line, res, &info), 0);
	cr_expect_eq(info.fail, MS_PYTHON_USER_ERROR);
	cr_expect_not_null(strstr(info.tail, "ValueError: the last words"));
	cr_expect_eq(strncmp(info.tail, "  frame", 7), 0, "%.40s", info.tail);
	ms_python_fail_text(&info, fail, sizeof(fail));
	cr_expect_eq(strncmp(fail, "the Python loader raised:\n", 26), 0);
	cr_expect_not_null(strstr(fail, "ValueError: the last words"), "%s",
			   fail);
	free(line);
	free(res);
}

FR_TEST(pipeline, a_file_name_of_any_bytes_is_a_json_string)
{
	json_t *o = rpt_pipeline_json("python:/x/\xff\xfe.py", NULL, 0, NULL);

	cr_assert_not_null(o);
	cr_expect(json_is_string(json_object_get(o, "name")));
	json_decref(o);
}
