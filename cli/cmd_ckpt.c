/*
 * cmd_ckpt.c - `feedrate ckpt`: how long this VM's storage takes to save
 * and restore a model's sharded checkpoint, and what that means for a
 * training job. Options and wiring: the size (--params x --bytes-per-param,
 * or --size), the shards (one per GPU rank of --gpus), the folder check,
 * ms_ckpt_run (measure/measure_ckpt.c) and rpt_ckpt's report
 * (reports/report_ckpt.c). SIGINT/SIGTERM only set `cli_stop`, which the
 * shard threads poll: what was written is removed, and the exit status
 * says which signal came.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "measure.h"
#include "report.h"
#include "report_ckpt.h"

struct ckpt_opts {
	struct cli_common_opts c;       /* workload, GPUs, demand, json,
	                                   seed, backend */
	double params;                  /* 0: --size */
	double bytes_per_param;
	uint64_t size;                  /* 0: --params */
	unsigned shards;                /* 0: the GPU count */
	uint32_t block_size;
	unsigned depth;
	bool direct, keep;
	double step_s, interval_s, budget, epoch_samples;
	const char *dir;
};

enum {
	CK_PARAMS = 2048, CK_BPP, CK_SIZE, CK_SHARDS, CK_BLOCK, CK_DEPTH,
	CK_DIRECT, CK_KEEP, CK_STEP, CK_INTERVAL, CK_BUDGET, CK_EPOCH,
};

static void ckpt_usage(FILE *f)
{
	fprintf(f,
"Usage: feedrate ckpt [options] DIR\n"
"\n"
"Save a model's checkpoint into the empty folder DIR the way sharded\n"
"checkpointing does (one file per GPU rank, every rank writing at once,\n"
"large sequential writes, each file fsync'ed, then the folder), then read\n"
"it back cold as a restore. Reports save and restore GB/s and times, the\n"
"spread over shards, the filesystem and device, and what the times mean\n"
"for training. DIR must be empty (or not exist yet) and have room; only\n"
"the files ckpt writes are removed, and they are unless --keep.\n"
"\n"
"Size:\n"
"      --params N           parameters: 7B, 70B, 1.5B, 350M (decimal)\n"
"      --bytes-per-param B  bytes per parameter (default 16: mixed-precision\n"
"                           Adam's weights, gradients, fp32 master copy and\n"
"                           two moments; 14 without gradients)\n"
"      --size SIZE          the checkpoint's bytes instead (1G, 500M, ...)\n"
"  -g, --gpus SPEC          8xH100: 8 shards, one per rank (default 1)\n"
"      --shards N           shards, whatever --gpus says (1..%u)\n"
"\n"
"What it means for training:\n"
"      --step-time TIME     seconds per training step (\"0.8s\", \"2s\")\n"
"      --interval TIME      a checkpoint interval to judge (\"30m\", \"1h\")\n"
"      --ckpt-budget PCT    the share of time saving may take (default 5)\n"
"      --epoch-samples N    samples per epoch: with the GPUs' demand, the\n"
"                           epoch time and one save per epoch\n"
"  -w, --workload NAME|FILE whose GPU demand table (default imagenet; or\n"
"                           a job file)\n"
"      --gpu-rate R         samples/s one GPU eats, instead of the table\n"
"      --demand K           tuned or mlperf (default: the workload's)\n"
"\n"
"I/O:\n"
"      --backend B          auto (default: io_uring where this process may\n"
"                           use it, else pwrite), uring or psync\n"
"      --block-size SIZE    bytes per write and read (default %uM)\n"
"      --depth N            blocks in flight per shard (default %u)\n"
"      --direct             O_DIRECT writes and reads\n"
"      --keep               keep the shards after the run\n"
"      --seed N             the shards' bytes (default 1)\n"
"      --json FILE|-        write the results as JSON (\"-\": standard output)\n"
"      --stall-timeout T    no read or write completed for T while some are\n"
"                           in flight: stop, report STALLED (default 30s)\n"
"  -h, --help               this help\n"
"\n"
"Exit status: 0 ok, 2 usage error or a refused DIR (not empty, too little\n"
"free space), 5 environment failure (the disk filled up, a write failed),\n"
"6 storage stalled (--stall-timeout), 130/143 interrupted (what was\n"
"written is removed).\n",
		MS_CKPT_MAX_SHARDS, STG_SEQ_BLOCK_DEFAULT >> 20,
		STG_SEQ_DEPTH_DEFAULT);
}

int cli_parse_params(const char *s, double *out)
{
	static const struct { const char *name; double mult; } units[] = {
		{ "", 1 }, { "k", 1e3 }, { "m", 1e6 }, { "b", 1e9 },
		{ "g", 1e9 }, { "t", 1e12 },
	};
	char *end;
	double v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || !isfinite(v) || end == s)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].name))
			continue;
		v *= units[i].mult;
		if (!(v >= 1) || v > 1e16)
			return -ERANGE;
		*out = v;
		return 0;
	}
	return -EINVAL;
}

/* A positive number (fractions allowed) with an optional "%" into *OUT
 * as a fraction: "5" and "5%" are 0.05. Returns 0 or -EINVAL. */
static int parse_percent(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	v = strtod(s, &end);
	if (*end == '%')
		end++;
	if (*end || !(v > 0) || !(v < 100))
		return -EINVAL;
	*out = v / 100;
	return 0;
}

/* ckpt's own options: 0, or FR_EXIT_USAGE (printed). */
static int ckpt_parse_own(int c, const char *arg, struct ckpt_opts *o)
{
	unsigned long ul;
	uint64_t u;
	char *end;

	switch (c) {
	case CK_PARAMS:
		if (cli_parse_params(arg, &o->params))
			return cli_usage_error("ckpt", "--params wants a count "
				"such as 7B, 70B or 350M, not '%s'", arg);
		return 0;
	case CK_BPP:
		o->bytes_per_param = strtod(arg, &end);
		if (*end || end == arg || !(o->bytes_per_param > 0) ||
		    o->bytes_per_param > 1024)
			return cli_usage_error("ckpt", "--bytes-per-param "
				"wants a number of bytes, not '%s'", arg);
		return 0;
	case CK_SIZE:
		if (cli_parse_size(arg, &o->size) || !o->size)
			return cli_usage_error("ckpt", "bad --size '%s'", arg);
		return 0;
	case CK_SHARDS:
		if (cli_parse_ulong(arg, 1, MS_CKPT_MAX_SHARDS, &ul))
			return cli_usage_error("ckpt", "--shards wants 1..%u, "
				"not '%s'", MS_CKPT_MAX_SHARDS, arg);
		o->shards = (unsigned)ul;
		return 0;
	case CK_BLOCK:
		if (cli_parse_size(arg, &u) || u < 4096 || u > (64u << 20) ||
		    u % 4096)
			return cli_usage_error("ckpt", "--block-size wants a "
				"multiple of 4K up to 64M, not '%s'", arg);
		o->block_size = (uint32_t)u;
		return 0;
	case CK_DEPTH:
		if (cli_parse_ulong(arg, 1, 256, &ul))
			return cli_usage_error("ckpt", "--depth wants 1..256, "
				"not '%s'", arg);
		o->depth = (unsigned)ul;
		return 0;
	case CLI_OPT_BACKEND:
		if (stg_backend_parse(arg, &o->c.backend) ||
		    o->c.backend == STG_BACKEND_NULL)
			return cli_usage_error("ckpt", "--backend wants auto, "
				"uring or psync, not '%s'", arg);
		return 0;
	case CK_DIRECT:
		o->direct = true;
		return 0;
	case CK_KEEP:
		o->keep = true;
		return 0;
	case CK_STEP:
		if (cli_parse_duration(arg, &o->step_s))
			return cli_usage_error("ckpt", "bad --step-time '%s'",
					       arg);
		return 0;
	case CK_INTERVAL:
		if (cli_parse_duration(arg, &o->interval_s))
			return cli_usage_error("ckpt", "bad --interval '%s'",
					       arg);
		return 0;
	case CK_BUDGET:
		if (parse_percent(arg, &o->budget))
			return cli_usage_error("ckpt", "--ckpt-budget wants a "
				"percentage between 0 and 100, not '%s'", arg);
		return 0;
	case CK_EPOCH:
		if (cli_parse_params(arg, &o->epoch_samples))
			return cli_usage_error("ckpt", "--epoch-samples wants "
				"a count (1281167, 1.2M), not '%s'", arg);
		return 0;
	default:
		return -1;
	}
}

/* Returns 0, -1 after --help, or FR_EXIT_USAGE. */
static int ckpt_parse(int argc, char **argv, struct ckpt_opts *o)
{
	static const struct option lo[] = {
		{ "params", required_argument, NULL, CK_PARAMS },
		{ "bytes-per-param", required_argument, NULL, CK_BPP },
		{ "size", required_argument, NULL, CK_SIZE },
		{ "shards", required_argument, NULL, CK_SHARDS },
		{ "block-size", required_argument, NULL, CK_BLOCK },
		{ "depth", required_argument, NULL, CK_DEPTH },
		{ "direct", no_argument, NULL, CK_DIRECT },
		{ "keep", no_argument, NULL, CK_KEEP },
		{ "step-time", required_argument, NULL, CK_STEP },
		{ "interval", required_argument, NULL, CK_INTERVAL },
		{ "ckpt-budget", required_argument, NULL, CK_BUDGET },
		{ "epoch-samples", required_argument, NULL, CK_EPOCH },
		{ "workload", required_argument, NULL, 'w' },
		{ "gpus", required_argument, NULL, 'g' },
		{ "gpu-rate", required_argument, NULL, CLI_OPT_GPU_RATE },
		{ "demand", required_argument, NULL, CLI_OPT_DEMAND },
		{ "backend", required_argument, NULL, CLI_OPT_BACKEND },
		{ "seed", required_argument, NULL, CLI_OPT_SEED },
		{ "json", required_argument, NULL, CLI_OPT_JSON },
		{ "stall-timeout", required_argument, NULL, CLI_OPT_STALL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	memset(o, 0, sizeof(*o));
	cli_common_defaults(&o->c);
	o->bytes_per_param = RPT_CKPT_BYTES_PER_PARAM;
	o->budget = RPT_CKPT_DEFAULT_BUDGET;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hw:g:", lo, NULL)) != -1) {
		if (c == 'h') {
			ckpt_usage(stdout);
			return -1;
		}
		if (c == ':' || c == '?')
			return cli_parse_bad("ckpt", c, argv);
		ret = ckpt_parse_own(c, optarg, o);
		if (ret >= 0) {
			if (ret)
				return ret;
			continue;
		}
		ret = cli_common_parse("ckpt", c, optarg, &o->c);
		if (ret != 1)
			return ret ? ret : cli_parse_bad("ckpt", '?', argv);
	}
	if (optind + 1 != argc)
		return cli_usage_error("ckpt", optind >= argc ? "missing DIR" :
				       "one DIR only");
	o->dir = argv[optind];
	if (!o->params == !o->size)
		return cli_usage_error("ckpt", o->size ? "--params or --size, "
				       "not both" : "give --params N (e.g. 7B) "
				       "or --size SIZE");
	return 0;
}

/* The bytes O asks for; FR_EXIT_USAGE (printed) when out of range. */
static int ckpt_bytes(const struct ckpt_opts *o, uint64_t *bytes)
{
	const double b = o->params ? o->params * o->bytes_per_param :
			 (double)o->size;

	if (!(b >= 1) || b >= 1.8e19)
		return cli_usage_error("ckpt", "a checkpoint of %.3g bytes is "
				       "out of range", b);
	*bytes = (uint64_t)llround(b);
	return 0;
}

static void ckpt_on_progress(enum ms_ckpt_event ev,
			     const struct ms_ckpt_result *r, void *arg)
{
	char b[32];

	(void)arg;
	snprintf(b, sizeof(b), "%.2f GB", (double)r->bytes / 1e9);
	if (ev == MS_CKPT_EV_WRITING)
		fprintf(stderr, "feedrate ckpt: writing %s in %u shards\n", b,
			r->shards);
	else if (ev == MS_CKPT_EV_SAVED)
		fprintf(stderr, "feedrate ckpt: saved %s in %.2f s (%.2f GB/s), "
			"synced; restoring\n", b, r->save.seconds,
			r->save.bytes_per_s / 1e9);
}

/* The storage and machine words of the report, into R. */
static void ckpt_describe(const char *dir, struct rpt_ckpt *r,
			  struct stg_fs_info *fs, struct stg_dmi_info *dmi,
			  struct stg_cpu_info *cpu, char *dev, size_t dev_len)
{
	char parent[4096];
	struct stat st;
	const char *where = dir;

	if (stat(dir, &st)) {
		char *slash;

		snprintf(parent, sizeof(parent), "%s", dir);
		slash = strrchr(parent, '/');
		if (slash && slash != parent)
			*slash = '\0';
		else
			snprintf(parent, sizeof(parent), slash ? "/" : ".");
		where = parent;
	}
	ms_fs_describe(where, fs, &r->fs_type, dev, dev_len);
	r->fs_device = dev;
	r->fs_network = fs->network;
	stg_detect_dmi(dmi);
	stg_detect_cpu(0, cpu);
	r->instance_type = dmi->product_name;
	r->vendor = dmi->sys_vendor;
	r->cpu_model = cpu->model;
	r->vcpus = stg_cpus_usable();
}

/* Refuse DIR before anything is written: exit 2 with the numbers. */
static int ckpt_check(const char *dir, uint64_t bytes)
{
	char why[1024];
	uint64_t free_b;
	int err = ms_ckpt_check_dir(dir, bytes, &free_b, why, sizeof(why));

	if (!err)
		return 0;
	fprintf(stderr, "feedrate ckpt: ");
	cli_print_path(stderr, why);
	fputc('\n', stderr);
	return err == -ENOTEMPTY || err == -ENOSPC || err == -ENOTDIR ||
	       err == -ENOENT ? FR_EXIT_USAGE : FR_EXIT_ENV;
}

/* Print and write the report; returns the exit code. */
static int ckpt_report(const struct ckpt_opts *o, struct rpt_ckpt *r,
		       int err)
{
	FILE *f = cli_text_out(&o->c.json, 1);
	int ret = 0;

	rpt_ckpt_print(f, r);
	fflush(f);
	if (o->c.json) {
		json_t *j = rpt_ckpt_json(r);

		/* NULL JSON and text: the writer says out of memory */
		ret = cli_write_report("ckpt", o->c.json, j, NULL, "JSON");
		json_decref(j);
	}
	if (cli_stop || err == -EINTR)
		return cli_exit_for_signal(cli_stop ? cli_stop : SIGINT);
	{
		struct stg_stall stall;

		if (cli_watch_stalled(&stall))
			return cli_stall_exit("ckpt", &stall);
	}
	if (ret)
		return ret;
	if (err)
		return err == -ENOTEMPTY || err == -ENOTDIR ? FR_EXIT_USAGE :
		       FR_EXIT_ENV;
	return FR_EXIT_OK;
}

int cmd_ckpt(int argc, char **argv)
{
	struct ckpt_opts o;
	const struct wl_workload *w;
	struct ms_gpus gs;
	struct ms_ckpt_config cfg;
	struct ms_ckpt_result *res = NULL;
	struct rpt_ckpt r;
	struct stg_fs_info fs;
	struct stg_dmi_info dmi;
	struct stg_cpu_info cpu;
	struct sigaction old[2];
	char dev[STG_TEXT_MAX + 80], why[768];
	uint64_t bytes = 0;
	int ret = ckpt_parse(argc, argv, &o), err;

	if (ret)
		return ret < 0 ? FR_EXIT_OK : ret;
	if ((ret = cli_workload("ckpt", o.c.workload, &w)) ||
	    (ret = ckpt_bytes(&o, &bytes)))
		return ret;
	cli_common_from_workload(&o.c, w);
	err = ms_gpus_resolve(w, o.c.gpus, o.c.demand, o.c.gpu_rate, &gs, why,
			      sizeof(why));
	if (err || !gs.count) {
		cli_fail("ckpt", -EINVAL, 0, err ? why : "--gpus 0 leaves no "
			 "rank to write a shard");
		fprintf(stderr, "Try 'feedrate ckpt --help'.\n");
		return FR_EXIT_USAGE;
	}
	if ((ret = cli_check_reports("ckpt", &o.c.json, 1, o.dir, NULL)) ||
	    (ret = ckpt_check(o.dir, bytes)))
		return ret;
	res = malloc(sizeof(*res));
	if (!res)
		return cli_fail("ckpt", -ENOMEM, 0, "out of memory");
	memset(&r, 0, sizeof(r));
	ckpt_describe(o.dir, &r, &fs, &dmi, &cpu, dev, sizeof(dev));
	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = o.dir;
	cfg.bytes = bytes;
	cfg.shards = o.shards ? o.shards : gs.count;
	if (cfg.shards > MS_CKPT_MAX_SHARDS) {
		free(res);
		return cli_usage_error("ckpt", "%u ranks: at most %u shards on "
				       "one VM (--shards)", cfg.shards,
				       MS_CKPT_MAX_SHARDS);
	}
	cfg.io.backend = o.c.backend;
	cfg.io.block_size = o.block_size;
	cfg.io.depth = o.depth;
	cfg.io.direct = o.direct;
	cfg.seed = o.c.seed;
	cfg.keep = o.keep;
	cfg.stop = &cli_stop;
	cfg.progress = ckpt_on_progress;
	cli_signals_catch(old);
	if (cli_watch_start("ckpt", o.c.json, RPT_CKPT_SCHEMA_NAME,
			    RPT_CKPT_SCHEMA_VERSION)) {
		cli_signals_restore(old);
		free(res);
		return FR_EXIT_ENV;
	}
	err = ms_ckpt_run(&cfg, res);
	cli_watch_claim();
	cli_watch_stop();
	cli_signals_restore(old);
	r.version = FEEDRATE_VERSION;
	r.dir = o.dir;
	r.params = o.params;
	r.bytes_per_param = o.params ? o.bytes_per_param : 0;
	r.bytes_asked = bytes;
	r.gpu_type = gs.type;
	r.gpu_count = gs.count;
	r.demand_per_gpu = gs.demand;
	r.demand_source = gs.demand_source;
	r.direct = o.direct;
	r.res = res;
	r.tin.save_s = res->save.seconds;
	r.tin.restore_s = res->restore.seconds;
	r.tin.budget = o.budget;
	r.tin.interval_s = o.interval_s;
	r.tin.step_s = o.step_s;
	r.tin.demand_total = gs.count * gs.demand;
	r.tin.epoch_samples = o.epoch_samples;
	rpt_ckpt_training(&r.tin, &r.t);
	r.signal = cli_stop;
	r.error = err ? res->err_text : "";
	if (err == -ENOTEMPTY || err == -ENOTDIR) {
		/* the folder changed between the check and the run */
		ret = cli_fail("ckpt", -EINVAL, 0, res->err_text);
	} else {
		if (err && err != -EINTR)
			cli_fail("ckpt", err, 0, res->err_text);
		ret = ckpt_report(&o, &r, err);
	}
	free(res);
	return ret;
}
