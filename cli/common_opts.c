/*
 * common_opts.c - what run, sweep and ckpt store the same way (workload
 * and GPUs, the engine's knobs, the dataset, the pipelines): their
 * defaults and bindings to the option table, and the small list and count
 * parsers behind some of its rows.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"

int cli_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

int cli_parse_warmup(const char *s, double *out)
{
	static const char *const units[] = { "", "s", "ms", "m", "min", "h" };
	const char *p = s;
	bool digit = false;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	if (!cli_parse_duration(s, out))
		return 0;
	/* a zero: digits '0' and at most one '.', then a unit */
	for (bool dot = false; *p == '0' || (*p == '.' && !dot); p++) {
		if (*p == '.')
			dot = true;
		else
			digit = true;
	}
	if (!digit)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(p, units[i])) {
			*out = -1;
			return 0;
		}
	return -EINVAL;
}

static int cmp_unsigned(const void *a, const void *b)
{
	const unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

int cli_parse_count_list(const char *s, unsigned long lo, unsigned long hi,
			 unsigned *out, unsigned max, unsigned *n)
{
	char buf[512], *save = NULL, *tok;
	unsigned k = 0;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long v;

		if (k >= max || cli_parse_ulong(tok, lo, hi, &v))
			return -EINVAL;
		out[k++] = (unsigned)v;
	}
	if (!k)
		return -EINVAL;
	qsort(out, k, sizeof(out[0]), cmp_unsigned);
	*n = 0;
	for (unsigned i = 0; i < k; i++)
		if (!*n || out[*n - 1] != out[i])
			out[(*n)++] = out[i];
	return 0;
}

void cli_common_defaults(struct cli_common_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->workload = "imagenet";
	o->demand = WL_DEMAND_TRAIN;
	o->sync = LDR_GPU_SYNC_ALL;
	o->readers = 1;
	o->depth = LDR_DEFAULT_DEPTH;
	o->seed = 1;
	o->max_sample_bytes = CLI_MAX_SAMPLE_BYTES;
	o->gen_size = MS_DEFAULT_GEN;
	o->npipes = 1;                  /* native */
}

void cli_common_from_workload(struct cli_common_opts *o,
			      const struct wl_workload *w)
{
	if (!o->batch)
		o->batch = w->batch;
	if (!o->demand_given)
		o->demand = w->default_demand;
	if (!o->max_sample_bytes_given && w->max_sample_bytes)
		o->max_sample_bytes = w->max_sample_bytes;
}

int cli_parse_pipelines(const char *s, char *buf, size_t buf_len,
			struct ms_pipeline_spec *out, unsigned max,
			unsigned *n)
{
	char *save = NULL, *tok;
	unsigned k = 0;

	if (!s || strlen(s) >= buf_len)
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct ms_pipeline_spec sp;

		memset(&sp, 0, sizeof(sp));
		if (k >= max || ms_pipeline_parse(tok, &sp))
			return -EINVAL;
		for (unsigned j = 0; j < k; j++)
			if (out[j].kind == sp.kind &&
			    (sp.kind != MS_PIPELINE_FILE ||
			     !strcmp(out[j].file, sp.file)))
				return -EINVAL;
		out[k++] = sp;
	}
	if (!k)
		return -EINVAL;
	*n = k;
	return 0;
}

int cli_pipelines_check(const char *cmd, const struct cli_common_opts *o,
			struct ms_python_info *info)
{
	for (unsigned i = 0; i < o->npipes; i++) {
		struct ms_pipeline_spec sp = o->pipes[i];
		char why[2048];
		int err;

		memset(&info[i], 0, sizeof(info[i]));
		if (!ms_pipeline_is_python(&sp))
			continue;
		if (sp.kind == MS_PIPELINE_FILE && access(sp.file, R_OK)) {
			fprintf(stderr, "feedrate %s: --pipeline python:", cmd);
			rpt_put_path(stderr, sp.file);
			fprintf(stderr, ": %s\n", strerror(errno));
			return FR_EXIT_USAGE;
		}
		sp.python = o->python;
		sp.timeout_s = o->runner_timeout;
		err = ms_python_probe(&sp, &info[i], why, sizeof(why));
		if (err == -ENOMEM)
			return rpt_fail(cmd, err, 0, "out of memory");
		if (err) {
			fprintf(stderr, "feedrate %s: --pipeline %s: ", cmd,
				sp.kind == MS_PIPELINE_TORCH ? "torch" :
				"python:FILE");
			rpt_put_path(stderr, why);
			fputc('\n', stderr);
			return FR_EXIT_ENV;
		}
	}
	return 0;
}

const char *cli_pipeline_text(const struct ms_pipeline_spec *ps,
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

int cli_parse_dataset(const char *cmd, int argc, char **argv,
		      struct cli_common_opts *o)
{
	if (optind + 1 < argc)
		return cli_usage_error(cmd, "one DATASET only");
	o->dataset = optind < argc ? argv[optind] : NULL;
	if (o->list && !o->dataset)
		return cli_usage_error(cmd, "--list needs the DATASET folder "
				       "its relative paths start from");
	if (o->list && o->format != WL_FORMAT_AUTO &&
	    o->format != WL_FORMAT_FOLDER)
		return cli_usage_error(cmd, "--list names image files: it "
				       "goes with --format folder only");
	return 0;
}

size_t cli_common_binds(struct cli_common_opts *o, struct cli_bind *b)
{
	const struct cli_bind t[] = {
		CLI_BIND("workload", o->workload),
		CLI_BIND("gpus", o->gpus),
		CLI_BIND("gpu-rate", o->gpu_rate),
		CLI_BIND_G("demand", o->demand, o->demand_given),
		CLI_BIND("gpu-sync", o->sync),
		CLI_BIND("batch", o->batch),
		CLI_BIND("readers", o->readers),
		CLI_BIND("seed", o->seed),
		CLI_BIND("max-errors", o->max_errors),
		CLI_BIND("backend", o->backend),
		CLI_BIND("depth", o->depth),
		CLI_BIND_G("max-sample-bytes", o->max_sample_bytes,
			   o->max_sample_bytes_given),
		CLI_BIND("list", o->list),
		CLI_BIND("json", o->json),
		CLI_BIND("keep-dataset", o->keep),
		CLI_BIND("tmpdir", o->tmpdir),
		CLI_BIND("gen-size", o->gen_size),
		{ "pipeline", o, sizeof(*o), NULL },
		CLI_BIND("python", o->python),
		CLI_BIND("workers", o->workers),
		CLI_BIND("runner-timeout", o->runner_timeout),
		CLI_BIND("format", o->format),
		CLI_BIND("shuffle-buffer", o->shuffle_buffer),
		CLI_BIND("read-size", o->read_size),
		CLI_BIND("stall-timeout", cli_stall_timeout),
	};
	_Static_assert(sizeof(t) / sizeof(t[0]) == CLI_COMMON_BINDS,
		       "CLI_COMMON_BINDS counts the shared options");

	memcpy(b, t, sizeof(t));
	return CLI_COMMON_BINDS;
}
