/*
 * common_opts.c - the options run and sweep parse the same way (workload
 * and GPUs, the engine's knobs, the dataset), their help, and the small
 * list and count parsers they share.
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

int cli_parse_cache_list(const char *s, bool out[STG_CACHE_STATES])
{
	char buf[128], *save = NULL, *tok;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	memset(out, 0, STG_CACHE_STATES * sizeof(out[0]));
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		enum stg_cache_state c;

		if (stg_cache_state_parse(tok, &c))
			return -EINVAL;
		out[c] = true;
	}
	return out[STG_CACHE_COLD] || out[STG_CACHE_RAM] ||
	       out[STG_CACHE_WARM] ? 0 : -EINVAL;
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
	o->backend_text = "auto";
	o->max_sample_bytes = 64ull << 20;
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

/* The pipeline options: 1 taken, 0 not one of them, or FR_EXIT_USAGE. */
static int parse_pipe_opt(const char *cmd, int c, const char *arg,
			  struct cli_common_opts *o)
{
	unsigned long ul;

	switch (c) {
	case CLI_OPT_PIPELINE:
		if (cli_parse_pipelines(arg, o->pipe_buf, sizeof(o->pipe_buf),
					o->pipes, CLI_PIPELINES_MAX,
					&o->npipes))
			return cli_usage_error(cmd, "--pipeline wants native, "
				"torch or python:FILE%s, not '%s'",
				strcmp(cmd, "sweep") ? "" : " (a list of up to "
				"4, no repeats, e.g. native,torch)", arg);
		return 1;
	case CLI_OPT_PYTHON:
		if (!*arg)
			return cli_usage_error(cmd, "--python wants the path "
					       "of an interpreter");
		o->python = arg;
		return 1;
	case CLI_OPT_WORKERS:
		if (cli_parse_ulong(arg, 1, 4096, &ul))
			return cli_usage_error(cmd, "--workers wants 1..4096, "
					       "not '%s'", arg);
		o->workers = (unsigned)ul;
		return 1;
	case CLI_OPT_RUNNER_TO:
		if (cli_parse_duration(arg, &o->runner_timeout))
			return cli_usage_error(cmd, "bad --runner-timeout '%s' "
					       "(e.g. 30s, 2m)", arg);
		return 1;
	default:
		return 0;
	}
}

int cli_pipelines_check(const char *cmd, const struct cli_common_opts *o,
			struct ms_python_info *info)
{
	for (unsigned i = 0; i < o->npipes; i++) {
		struct ms_pipeline_spec sp = o->pipes[i];
		char why[2048];
		int err;

		memset(&info[i], 0, sizeof(info[i]));
		if (sp.kind == MS_PIPELINE_NATIVE)
			continue;
		if (sp.kind == MS_PIPELINE_FILE && access(sp.file, R_OK)) {
			fprintf(stderr, "feedrate %s: --pipeline python:", cmd);
			cli_print_path(stderr, sp.file);
			fprintf(stderr, ": %s\n", strerror(errno));
			return FR_EXIT_USAGE;
		}
		sp.python = o->python;
		sp.timeout_s = o->runner_timeout;
		err = ms_python_probe(&sp, &info[i], why, sizeof(why));
		if (err == -ENOMEM)
			return cli_fail(cmd, err, 0, "out of memory");
		if (err) {
			fprintf(stderr, "feedrate %s: --pipeline %s: ", cmd,
				sp.kind == MS_PIPELINE_TORCH ? "torch" :
				"python:FILE");
			cli_print_path(stderr, why);
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

	if (ps->kind == MS_PIPELINE_NATIVE) {
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

/* The GPU options: 1 taken, 0 not one of them, or FR_EXIT_USAGE. */
static int parse_gpu_opt(const char *cmd, int c, const char *arg,
			 struct cli_common_opts *o)
{
	unsigned long ul;
	char *end;

	switch (c) {
	case 'w':
		o->workload = arg;
		return 1;
	case 'g':
		o->gpus = arg;
		return 1;
	case CLI_OPT_GPU_RATE:
		errno = 0;
		o->gpu_rate = strtod(arg, &end);
		if (errno || end == arg || *end ||
		    !(o->gpu_rate > 0) || !isfinite(o->gpu_rate))
			return cli_usage_error(cmd, "--gpu-rate wants "
				"samples/s > 0, not '%s'", arg);
		return 1;
	case CLI_OPT_DEMAND:
		if (!strcasecmp(arg, "tuned") || !strcasecmp(arg, "train"))
			o->demand = WL_DEMAND_TRAIN;
		else if (!strcasecmp(arg, "mlperf"))
			o->demand = WL_DEMAND_MLPERF;
		else
			return cli_usage_error(cmd, "--demand wants tuned or "
				"mlperf, not '%s'", arg);
		o->demand_given = true;
		return 1;
	case CLI_OPT_SYNC:
		if (!strcmp(arg, "all"))
			o->sync = LDR_GPU_SYNC_ALL;
		else if (!strcmp(arg, "none"))
			o->sync = LDR_GPU_SYNC_NONE;
		else
			return cli_usage_error(cmd, "--gpu-sync wants all or "
				"none, not '%s'", arg);
		return 1;
	case 'b':
		if (cli_parse_ulong(arg, 1, 65536, &ul))
			return cli_usage_error(cmd, "--batch wants 1..65536, "
				"not '%s'", arg);
		o->batch = (unsigned)ul;
		return 1;
	default:
		return 0;
	}
}

/* The reading options: 1 taken, 0 not one of them, or FR_EXIT_USAGE. */
static int parse_read_opt(const char *cmd, int c, const char *arg,
			  struct cli_common_opts *o)
{
	unsigned long ul;
	uint64_t u;

	switch (c) {
	case CLI_OPT_READERS:
		if (cli_parse_ulong(arg, 1, 256, &ul))
			return cli_usage_error(cmd, "--readers wants 1..256, "
				"not '%s'", arg);
		o->readers = (unsigned)ul;
		return 1;
	case CLI_OPT_BACKEND:
		if (stg_backend_parse(arg, &o->backend))
			return cli_usage_error(cmd, "unknown backend '%s' "
				"(auto, uring, psync)", arg);
		if (o->backend == STG_BACKEND_NULL)
			return cli_usage_error(cmd, "the null backend has no "
				"image bytes to decode; it is for 'feedrate "
				"io' and engine tests");
		o->backend_text = arg;
		return 1;
	case CLI_OPT_DEPTH:
		if (cli_parse_ulong(arg, 1, 4096, &ul))
			return cli_usage_error(cmd, "--depth wants 1..4096, "
				"not '%s'", arg);
		o->depth = (unsigned)ul;
		return 1;
	case CLI_OPT_MAXBYTES:
		if (cli_parse_size(arg, &u) || u < 4096 || u > (16ull << 30))
			return cli_usage_error(cmd, "bad --max-sample-bytes "
				"'%s' (4K..16G)", arg);
		o->max_sample_bytes = u;
		o->max_sample_bytes_given = true;
		return 1;
	case CLI_OPT_FORMAT:
		if (wl_format_parse(arg, &o->format))
			return cli_usage_error(cmd, "unknown --format '%s' "
				"(auto, folder, wds, mds, tfrecord)", arg);
		return 1;
	case CLI_OPT_SHUFFLE_BUF:
		if (cli_parse_ulong(arg, 1, 1000000, &ul))
			return cli_usage_error(cmd, "--shuffle-buffer wants "
				"1..1000000 records (1: no shuffle within "
				"shards), not '%s'", arg);
		o->shuffle_buffer = (unsigned)ul;
		return 1;
	case CLI_OPT_READ_SIZE:
		if (cli_parse_size(arg, &u) || u < 4096 || u > (256u << 20) ||
		    u % 4096)
			return cli_usage_error(cmd, "--read-size wants a "
				"multiple of 4K from 4K to 256M, not '%s'",
				arg);
		o->read_size = (uint32_t)u;
		return 1;
	case CLI_OPT_GENSIZE:
		if (cli_parse_size(arg, &o->gen_size) ||
		    o->gen_size < (1u << 20))
			return cli_usage_error(cmd, "--gen-size wants a size "
				"of at least 1M, not '%s'", arg);
		return 1;
	default:
		return 0;
	}
}

int cli_common_parse(const char *cmd, int c, const char *arg,
		     struct cli_common_opts *o)
{
	int ret = parse_gpu_opt(cmd, c, arg, o);

	if (!ret)
		ret = parse_read_opt(cmd, c, arg, o);
	if (!ret)
		ret = parse_pipe_opt(cmd, c, arg, o);
	if (ret)
		return ret;
	switch (c) {
	case CLI_OPT_STALL:
		return cli_stall_timeout_parse(cmd, arg) ? FR_EXIT_USAGE : 1;
	case CLI_OPT_SEED:
		if (cli_parse_u64(arg, &o->seed))
			return cli_usage_error(cmd, "bad --seed '%s'", arg);
		return 1;
	case CLI_OPT_MAXERR:
		if (cli_parse_u64(arg, &o->max_errors) || !o->max_errors)
			return cli_usage_error(cmd, "--max-errors wants a "
				"count >= 1, not '%s'", arg);
		return 1;
	case CLI_OPT_LIST:
		o->list = arg;
		return 1;
	case CLI_OPT_JSON:
		o->json = arg;
		return 1;
	case CLI_OPT_KEEP:
		o->keep = true;
		return 1;
	case CLI_OPT_TMPDIR:
		o->tmpdir = arg;
		return 1;
	default:
		return 0;
	}
}

int cli_parse_bad(const char *cmd, int c, char **argv)
{
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value",
				       argv[optind - 1]);
	return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
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

void cli_common_usage(FILE *f)
{
	fprintf(f,
"Workload and GPUs:\n"
"  -w, --workload NAME|FILE  a workload below (default imagenet), or a job\n"
"                         file (FILE.ini) describing your own; it sets\n"
"                         the defaults of --batch, --demand and\n"
"                         --max-sample-bytes\n"
"  -g, --gpus SPEC        emulated GPUs: 8xA100, 2xH100, A100 (default 1 GPU\n"
"                         of the workload's default type: 1xA100); run also\n"
"                         takes 0, the raw feed rate with no consumer\n"
"      --gpu-rate R       samples/s one GPU eats, instead of the table\n"
"      --demand K         tuned (tuned training throughput) or mlperf\n"
"                         (MLPerf Storage's emulated accelerators); default:\n"
"                         the workload's (tuned for imagenet)\n"
"      --gpu-sync all|none  GPUs step together (default) or independently\n"
"  -b, --batch N          samples per batch (default: the workload's, else\n"
"                         %u)\n"
"\n"
"Engine:\n"
"      --readers N        reader threads (default 1)\n"
"      --backend B        auto (default), uring or psync\n"
"      --depth N          reads in flight per reader (default %u)\n"
"      --max-errors N     stop when N samples have failed (exit 4)\n"
"      --seed N           shuffle and augmentation seed (default 1)\n"
"      --stall-timeout T  no read completed for T while reads are in\n"
"                         flight: stop, report the storage STALLED (exit\n"
"                         6) (default %.0fs)\n"
"\n"
"Dataset:\n"
"      --list FILE        read the files named in FILE (\"PATH\" or\n"
"                         \"SIZE<TAB>PATH\" per line), relative to DATASET\n"
"      --max-sample-bytes SIZE  larger files fail as over the cap (default:\n"
"                         the workload's, else 64M); with shards, the\n"
"                         largest record\n"
"      --format F         auto (default: detected), folder (one image\n"
"                         file per sample, as ImageFolder), wds\n"
"                         (WebDataset .tar / .tar.zst shards), mds\n"
"                         (MosaicML MDS: index.json) or tfrecord\n"
"      --shuffle-buffer N shards: records each reader shuffles within\n"
"                         (default %u, as WebDataset's shuffle()); 1 reads\n"
"                         each shard in order; shards are shuffled per epoch\n"
"      --read-size SIZE   shards: bytes per sequential read (default 1M)\n"
"      --gen-size SIZE    size of the generated dataset (default %lluM)\n"
"      --tmpdir DIR       where to generate it (default /var/tmp, else\n"
"                         $TMPDIR, /tmp or the current folder; never tmpfs)\n"
"      --keep-dataset     keep the generated dataset and print its path\n"
"\n"
"Pipeline (whose CPU cost the verdict speaks of):\n"
"      --pipeline P       native (default: feedrate's own, the class of\n"
"                         DALI's CPU path), torch (a torchvision\n"
"                         ImageFolder DataLoader with PIL) or python:FILE\n"
"                         (FILE's make_loader(root, batch_size,\n"
"                         num_workers, seed)); sweep takes a list, e.g.\n"
"                         native,torch, and gives a verdict for each\n"
"      --python PATH      the interpreter of torch and python:FILE\n"
"                         (default: python3 on PATH)\n"
"      --workers W        DataLoader worker processes (default: the\n"
"                         point's vCPUs - 1, at least 1); run: also the\n"
"                         native pipeline's transform threads (default: K)\n"
"      --runner-timeout T a Python runner silent this long is killed\n"
"                         (default %.0fs)\n"
"\n", LDR_DEFAULT_BATCH, LDR_DEFAULT_DEPTH, LDR_DEFAULT_STALL_TIMEOUT_S,
		LDR_DEFAULT_SHUFFLE_BUFFER,
		(unsigned long long)(MS_DEFAULT_GEN >> 20),
		MS_PYTHON_TIMEOUT_S);
	cli_workloads_usage(f);
}
