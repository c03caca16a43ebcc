/*
 * cmd_run.c - `feedrate run [options] [DATASET]`: one measurement of a
 * workload's input pipeline on this VM, and the verdict: how many GPUs of a
 * type it keeps at >= 90 % AU, and what limits it.
 *
 * DESIGN
 * Processes: this command stays single-threaded (the generator's threads
 * are joined before it returns), because the measurement itself runs in a
 * forked child pinned to the chosen vCPUs (ldr_run_pinned), inside a memory
 * cgroup for --ram. The parent prepares everything the child inherits: the
 * listing, the page-cache state (verified with mincore before the run),
 * the transform parameters (alive in this frame for the whole run).
 * Signals: SIGINT/SIGTERM set run_stop. While the child runs, the loader
 * forwards them to it and the child stops within ~50 ms and still sends
 * its partial result, which is reported (marked partial) before exiting
 * 130/143. A temporary dataset is removed on every path out of the
 * command, an interrupted one included.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "loader.h"
#include "measure.h"
#include "report.h"
#include "storage.h"
#include "workloads.h"


enum run_cache { RUN_CACHE_COLD, RUN_CACHE_WARM, RUN_CACHE_RAM };

struct run_opts {
	struct ms_common_opts c;        /* what sweep parses the same way */
	unsigned workers;               /* 0: = vcpus */
	unsigned vcpus;                 /* 0: every usable CPU */
	enum run_cache cache;
	uint64_t ram;
	double duration;                /* -1: not given */
	double warmup;                  /* 0 default, < 0 none */
	uint64_t epochs, samples;
	bool have_epochs, have_samples;
};

static volatile sig_atomic_t run_stop;

static void run_on_signal(int sig)
{
	run_stop = sig;
}

static void run_usage(FILE *f)
{
	fprintf(f,
"Usage: feedrate run [options] [DATASET]\n"
"\n"
"Measure how fast this VM feeds a training input pipeline from DATASET (a\n"
"folder of JPEGs, ImageFolder layout) and say how many GPUs of a type it\n"
"keeps at >= 90 %% utilisation (AU), and what limits it. Without DATASET a\n"
"small synthetic dataset (200M) is generated in a temporary folder on a\n"
"disk-backed filesystem and removed afterwards.\n"
"\n"
"Workload and GPUs:\n"
"  -w, --workload NAME    workload (default imagenet)\n"
"  -g, --gpus SPEC        emulated GPUs: 8xA100, 2xH100, A100, or 0 for the\n"
"                         raw feed rate with no consumer (default 1 GPU of\n"
"                         the workload's default type: 1xA100)\n"
"      --gpu-rate R       samples/s one GPU eats, instead of the table\n"
"      --demand K         tuned (default: tuned training throughput) or\n"
"                         mlperf (MLPerf Storage's emulated accelerators)\n"
"      --gpu-sync all|none  GPUs step together (default) or independently\n"
"  -b, --batch N          samples per batch (default 256)\n"
"\n"
"Where it runs:\n"
"  -c, --vcpus K          emulate a VM with K vCPUs: a child pinned to K CPUs\n"
"                         taken as SMT sibling pairs (default: every usable\n"
"                         CPU)\n"
"      --workers N        transform threads (default: K)\n"
"      --readers N        reader threads (default 1)\n"
"      --cache cold|warm  evict every file first and read with O_DIRECT so\n"
"                         every epoch stays cold (default), or read the\n"
"                         dataset into the page cache first; both verified\n"
"      --ram SIZE         the steady state of a VM whose page cache is SIZE:\n"
"                         run in a memory cgroup of SIZE after evicting the\n"
"                         dataset, 2 epochs unless --epochs/--duration say\n"
"                         otherwise (estimated by LRU simulation, and said\n"
"                         so, where no cgroup can be made)\n"
"      --backend B        auto (default), uring or psync\n"
"      --depth N          reads in flight per reader (default 32)\n"
"\n"
"How long:\n"
"  -d, --duration TIME    measured time after the warm-up (default 20s)\n"
"      --warmup TIME      warm-up excluded from the numbers (default: 2 s\n"
"                         and 2 batches per GPU; 0 = none)\n"
"      --epochs N         stop after N epochs\n"
"      --samples N        stop after at least N measured samples (whole\n"
"                         batches)\n"
"      --max-errors N     stop when N samples have failed (exit 4)\n"
"      --seed N           shuffle and augmentation seed (default 1)\n"
"\n"
"Dataset:\n"
"      --list FILE        read the files named in FILE (\"PATH\" or\n"
"                         \"SIZE<TAB>PATH\" per line), relative to DATASET\n"
"      --max-sample-bytes SIZE  larger files fail as too large (default 64M)\n"
"      --gen-size SIZE    size of the generated dataset (default 200M)\n"
"      --tmpdir DIR       where to generate it (default /var/tmp, else\n"
"                         $TMPDIR, /tmp or the current folder; never tmpfs)\n"
"      --keep-dataset     keep the generated dataset and print its path\n"
"\n"
"Output:\n"
"      --json FILE|-      write the results as JSON (\"-\": stdout; the text\n"
"                         report then goes to stderr)\n"
"  -h, --help             this help\n"
"\n"
"Exit status: 0 ok, 2 usage error, 3 completed but some samples failed,\n"
"4 stopped by --max-errors, 5 environment failure (no dataset, no disk\n"
"space, backend refused), 130/143 interrupted (a partial report is printed).\n");
}

/*
 * --warmup: a duration as cli_parse_duration takes it, or zero spelled
 * with any of its units ("0", "0s", "0.0m", "0h": no warm-up, *OUT = -1).
 * Signs are refused ("-0", "+1"). Returns 0 or -EINVAL.
 */
static int parse_warmup(const char *s, double *out)
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

static int run_parse(int argc, char **argv, struct run_opts *o)
{
	enum {
		OPT_WORKERS = 256, OPT_CACHE, OPT_RAM, OPT_WARMUP, OPT_EPOCHS,
		OPT_SAMPLES,
	};
	static const struct option lo[] = {
		MS_COMMON_LONGOPTS,
		{ "vcpus", required_argument, NULL, 'c' },
		{ "workers", required_argument, NULL, OPT_WORKERS },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "ram", required_argument, NULL, OPT_RAM },
		{ "duration", required_argument, NULL, 'd' },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "epochs", required_argument, NULL, OPT_EPOCHS },
		{ "samples", required_argument, NULL, OPT_SAMPLES },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long ul;
	int c, ret;

	memset(o, 0, sizeof(*o));
	ms_common_defaults(&o->c);
	o->duration = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:g:b:c:d:h", lo, NULL)) != -1) {
		ret = ms_parse_common("run", c, optarg, &o->c);
		if (ret == 1)
			continue;
		if (ret)
			return ret;
		switch (c) {
		case 'c':
			if (cli_parse_ulong(optarg, 1, CPU_SETSIZE, &ul))
				return cli_usage_error("run", "--vcpus wants "
					"1..%d, not '%s'", CPU_SETSIZE, optarg);
			o->vcpus = (unsigned)ul;
			break;
		case OPT_WORKERS:
			if (cli_parse_ulong(optarg, 1, 4096, &ul))
				return cli_usage_error("run", "--workers wants "
					"1..4096, not '%s'", optarg);
			o->workers = (unsigned)ul;
			break;
		case OPT_CACHE:
			if (!strcmp(optarg, "cold"))
				o->cache = RUN_CACHE_COLD;
			else if (!strcmp(optarg, "warm"))
				o->cache = RUN_CACHE_WARM;
			else
				return cli_usage_error("run", "--cache wants cold "
					"or warm, not '%s' (for a RAM size use "
					"--ram SIZE)", optarg);
			break;
		case OPT_RAM:
			if (cli_parse_size(optarg, &o->ram) || o->ram < (1u << 20))
				return cli_usage_error("run", "--ram wants a size "
					"of at least 1M (e.g. 16G), not '%s'",
					optarg);
			o->cache = RUN_CACHE_RAM;
			break;
		case 'd':
			if (cli_parse_duration(optarg, &o->duration))
				return cli_usage_error("run", "bad --duration "
					"'%s' (e.g. 30s, 5m)", optarg);
			break;
		case OPT_WARMUP:
			if (parse_warmup(optarg, &o->warmup))
				return cli_usage_error("run", "bad --warmup "
					"'%s' (e.g. 5s, 0 for none)", optarg);
			break;
		case OPT_EPOCHS:
			if (ms_parse_u64(optarg, &o->epochs) || !o->epochs)
				return cli_usage_error("run", "--epochs wants a "
					"count >= 1, not '%s'", optarg);
			o->have_epochs = true;
			break;
		case OPT_SAMPLES:
			if (ms_parse_u64(optarg, &o->samples) || !o->samples)
				return cli_usage_error("run", "--samples wants a "
					"count >= 1, not '%s'", optarg);
			o->have_samples = true;
			break;
		case 'h':
			run_usage(stdout);
			return -1;
		default:
			return ms_parse_bad("run", c, argv);
		}
	}
	return ms_parse_dataset("run", argc, argv, &o->c);
}

/* ---- the measurement (shared with sweep: measure.c) ---- */

/* Everything the command owns, released in one place. */
struct run_state {
	struct run_opts o;
	const struct wl_workload *w;
	struct ms_gpus gs;
	struct ms_dataset md;           /* the listing, a generated folder */
	struct ldr_cpu_choice cpus;
	struct ldr_memcg *memcg;
	struct ldr_result *res;
	struct aug_params aug;
	struct stg_fs_info fs;
	char pipeline[320];
	char cache_how[512];
	char hit_src[256];
	char notes[512];
	char err_text[512];
};

static void note_add(struct run_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note_add(struct run_state *s, const char *fmt, ...)
{
	size_t used = strlen(s->notes);
	va_list ap;

	if (used && used + 2 < sizeof(s->notes)) {
		strcat(s->notes, "; ");
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(s->notes + used, sizeof(s->notes) - used, fmt, ap);
	va_end(ap);
}

static int exit_for_signal(int sig)
{
	return sig == SIGTERM ? FR_EXIT_SIGTERM : FR_EXIT_SIGINT;
}

/* Generate (without DATASET) and list the dataset. 0 or an exit code. */
static int run_dataset(struct run_state *s)
{
	struct ms_dataset_opts dopt;

	memset(&dopt, 0, sizeof(dopt));
	dopt.cmd = "run";
	dopt.w = s->w;
	dopt.dataset = s->o.c.dataset;
	dopt.list = s->o.c.list;
	dopt.tmpdir = s->o.c.tmpdir;
	dopt.gen_size = s->o.c.gen_size;
	dopt.seed = s->o.c.seed;
	dopt.stop = &run_stop;
	return ms_dataset_open(&dopt, &s->md);
}

/*
 * Put the page cache into the asked state and measure it. Returns 0 or an
 * exit code; *FRACTION gets the resident share (< 0 unknown).
 */
static int run_prepare_cache(struct run_state *s, double *fraction)
{
	struct ms_cache_prep prep;
	const enum ms_cache c = s->o.cache == RUN_CACHE_COLD ? MS_CACHE_COLD :
		s->o.cache == RUN_CACHE_WARM ? MS_CACHE_WARM : MS_CACHE_RAM;

	ms_cache_prepare(s->md.ds, c, false, &prep);
	*fraction = prep.fraction;
	if (prep.note[0])
		note_add(s, "%s", prep.note);
	/* --ram: run_prepare_ram says how */
	if (c != MS_CACHE_RAM)
		snprintf(s->cache_how, sizeof(s->cache_how), "%s", prep.how);
	return 0;
}

/* --ram: a memory cgroup, or the LRU estimate. */
static void run_prepare_ram(struct run_state *s, struct rpt_run *rr)
{
	if (ms_ram_cgroup(s->o.ram, &s->memcg, s->cache_how,
			  sizeof(s->cache_how)))
		rr->hit_ratio_estimated = true;
}

static void run_fill_hit_ratio(struct run_state *s, struct rpt_run *rr)
{
	rr->hit_ratio = ms_hit_ratio(s->md.ds, s->o.c.seed, s->o.ram,
				     rr->hit_ratio_estimated, s->res,
				     s->hit_src, sizeof(s->hit_src));
}

static int run_write_json(const struct run_state *s, const struct rpt_run *rr)
{
	json_t *root = rpt_run_json(rr);
	int err;

	if (!root)
		return -ENOMEM;
	err = rpt_json_write(root, s->o.c.json);
	json_decref(root);
	return err;
}

/* Resolve the GPU spec and the demand. Returns 0 or an exit code. */
static int run_gpus(struct run_state *s, struct rpt_run *rr)
{
	int ret = ms_gpus_resolve("run", s->w, s->o.c.gpus, s->o.c.demand,
				  s->o.c.gpu_rate, &s->gs);

	if (ret)
		return ret;
	rr->gpu_count = s->gs.count;
	rr->gpu_default = s->gs.default_type;
	rr->gpu_type = s->gs.type;
	rr->gpu_detail = s->gs.detail;
	rr->demand_per_gpu = s->gs.demand;
	rr->demand_kind = s->gs.demand_kind;
	rr->demand_source = s->gs.demand_source;
	rr->demand_est = s->gs.demand_est;
	return 0;
}

static int run_measure(struct run_state *s, struct rpt_run *rr)
{
	struct ms_point p;
	struct ms_point_out po;
	const struct run_opts *o = &s->o;
	int err;

	aug_params_default(&s->aug);
	memset(&p, 0, sizeof(p));
	err = wl_transform_train(&s->aug, &p.transform);
	if (err) {
		fprintf(stderr, "feedrate run: the transform cannot start: %s\n",
			strerror(-err));
		return FR_EXIT_ENV;
	}
	wl_transform_describe(&s->aug, AUG_ISA_AUTO, s->pipeline,
			      sizeof(s->pipeline));
	p.ds = s->md.ds;
	p.cache = o->cache == RUN_CACHE_COLD ? MS_CACHE_COLD :
		  o->cache == RUN_CACHE_WARM ? MS_CACHE_WARM : MS_CACHE_RAM;
	p.cpus = &s->cpus.set;
	p.workers = o->workers ? o->workers : s->cpus.count;
	p.readers = o->c.readers;
	p.backend = o->c.backend;
	p.depth = o->c.depth;
	p.max_sample_bytes = o->c.max_sample_bytes;
	p.batch = o->c.batch;
	p.seed = o->c.seed;
	p.gpus = rr->gpu_count;
	p.gpu_rate = rr->demand_per_gpu;
	p.sync = o->c.sync;
	p.au_threshold = s->w->au_threshold;
	p.warmup_s = o->warmup;
	p.duration_s = o->duration >= 0 ? o->duration : 20.0;
	if (o->cache == RUN_CACHE_RAM && !o->have_epochs &&
	    !o->have_samples && o->duration < 0) {
		/* the steady state needs at least two shuffled epochs */
		p.epochs = 2;
		p.duration_s = 0;
	}
	if (o->have_epochs) {
		p.epochs = o->epochs;
		if (o->duration < 0)
			p.duration_s = 0;
	}
	if (o->have_samples) {
		p.samples = o->samples;
		if (o->duration < 0)
			p.duration_s = 0;
	}
	p.max_errors = o->c.max_errors;
	p.stop = &run_stop;
	p.memcg = s->memcg;

	if (isatty(STDERR_FILENO))
		fprintf(stderr, "feedrate run: measuring on %u vCPU%s (%s)...\n",
			s->cpus.count, s->cpus.count == 1 ? "" : "s",
			p.epochs ? "epochs" : "duration");
	err = ms_point_measure(&p, s->res, &po);
	rr->cpu_outside_mask_s = po.rep.cpu_outside_mask_s;
	rr->signal = po.rep.signal ? po.rep.signal : run_stop;
	if (po.err) {
		rr->run_error = po.err;
		snprintf(s->err_text, sizeof(s->err_text), "%s", po.err_text);
		rr->run_error_text = s->err_text;
		/* the run did not start at all, or a second signal killed
		 * the child before it could send its partial result */
		if (err)
			return rr->signal ? exit_for_signal(rr->signal) :
					    FR_EXIT_ENV;
	}
	rr->res = s->res;
	rr->bottleneck = ldr_bottleneck_name(s->res->bottleneck);
	if (o->cache == RUN_CACHE_RAM && s->res->epochs_done < 2 &&
	    !rr->signal && !s->res->stopped_by_max_errors)
		note_add(s, "only %llu epoch%s completed: the hit ratio of a "
			 "RAM-limited page cache settles from the second epoch "
			 "on", (unsigned long long)s->res->epochs_done,
			 s->res->epochs_done == 1 ? "" : "s");
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_state *s;
	struct rpt_run rr;
	struct sigaction sa, old_int, old_term;
	char devtext[STG_TEXT_MAX + 80], names[256];
	const char *root;
	double fraction = -1;
	FILE *out;
	int ret, err;

	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "feedrate run: out of memory\n");
		return FR_EXIT_ENV;
	}
	ret = run_parse(argc, argv, &s->o);
	if (ret) {
		free(s);
		return ret < 0 ? FR_EXIT_OK : ret;
	}
	memset(&rr, 0, sizeof(rr));
	rr.cpu_outside_mask_s = -1;
	rr.fraction_resident = -1;
	rr.hit_ratio = -1;
	out = s->o.c.json && !strcmp(s->o.c.json, "-") ? stderr : stdout;
	if (wl_find(s->o.c.workload, &s->w)) {
		wl_names(names, sizeof(names));
		ret = cli_usage_error("run", "unknown workload '%s' (valid: %s)",
				      s->o.c.workload, names);
		goto out_free;
	}
	ret = run_gpus(s, &rr);
	if (ret)
		goto out_free;
	if (!s->o.vcpus)
		s->o.vcpus = ms_usable_cpus();
	err = ldr_cpus_choose(s->o.vcpus, NULL, &s->cpus);
	if (err) {
		ret = cli_usage_error("run", "%s", s->cpus.how[0] ?
			s->cpus.how : strerror(-err));
		goto out_free;
	}
	s->res = calloc(1, sizeof(*s->res));
	if (!s->res) {
		fprintf(stderr, "feedrate run: out of memory\n");
		ret = FR_EXIT_ENV;
		goto out_free;
	}
	if (s->o.c.keep && s->o.c.dataset)
		note_add(s, "--keep-dataset has no effect with a DATASET");

	run_stop = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = run_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	ret = run_dataset(s);
	if (ret)
		goto out_sig;
	root = s->md.root;
	if (run_stop) {
		fprintf(stderr, "feedrate run: interrupted before the "
			"measurement; nothing was measured\n");
		ret = exit_for_signal(run_stop);
		goto out_sig;
	}

	rr.workload = s->w->name;
	rr.dataset = root;
	rr.list = s->o.c.list;
	rr.generated = !s->o.c.dataset;
	rr.kept = rr.generated && s->o.c.keep;
	rr.files = stg_dataset_count(s->md.ds);
	rr.bytes = stg_dataset_total_bytes(s->md.ds);
	for (int k = 0; k < STG_DS_ERR_COUNT; k++) {
		enum stg_ds_err e = (enum stg_ds_err)k;
		uint64_t n = stg_dataset_errors(s->md.ds, e);
		struct rpt_listing_kind *lk;

		rr.listing_errors += n;
		if (!n || rr.nlisting_kinds >= sizeof(rr.listing_kinds) /
					      sizeof(rr.listing_kinds[0]))
			continue;
		lk = &rr.listing_kinds[rr.nlisting_kinds++];
		lk->kind = stg_ds_err_name(e);
		lk->count = n;
		lk->example = stg_dataset_error_example(s->md.ds, e);
	}
	ms_fs_describe(root, &s->fs, &rr.fs_type, devtext, sizeof(devtext));
	rr.fs_device = devtext;
	rr.backend_asked = s->o.c.backend_text;
	rr.depth = s->o.c.depth;
	rr.vcpus = s->cpus.count;
	rr.cpus_how = s->cpus.how;
	rr.cache = s->o.cache == RUN_CACHE_COLD ? "cold" :
		   s->o.cache == RUN_CACHE_WARM ? "warm" : "ram";
	rr.ram_bytes = s->o.cache == RUN_CACHE_RAM ? s->o.ram : 0;
	rr.gpu_sync_all = s->o.c.sync == LDR_GPU_SYNC_ALL;
	rr.au_threshold = s->w->au_threshold;
	rr.max_errors = s->o.c.max_errors;

	ret = run_prepare_cache(s, &fraction);
	if (ret)
		goto out_sig;
	rr.fraction_resident = fraction;
	if (s->o.cache == RUN_CACHE_RAM)
		run_prepare_ram(s, &rr);
	rr.cache_how = s->cache_how;
	if (run_stop) {
		/* the child gets a stop flag of its own: a signal that came
		 * while the cache was prepared must be honoured here */
		fprintf(stderr, "feedrate run: interrupted before the "
			"measurement; nothing was measured\n");
		ret = exit_for_signal(run_stop);
		goto out_sig;
	}
	if (s->fs.page_cache_volatile && s->o.cache != RUN_CACHE_WARM)
		note_add(s, "the dataset is on a memory-backed filesystem: it "
			 "cannot be cold");

	ret = run_measure(s, &rr);
	rr.pipeline = s->pipeline;
	if (rr.res && s->memcg) {
		/* the same rule as a sweep's ram point: a page cache well
		 * above the asked size means the run was not limited */
		uint64_t cache = 0;

		if (!ldr_memcg_usage(s->memcg, NULL, &cache)) {
			rr.cache_seen_bytes = cache;
			if (!ms_ram_limited(s->o.ram, cache)) {
				rr.ram_not_limited = true;
				rr.hit_ratio_estimated = true;
			}
		}
	}
	if (rr.res)
		run_fill_hit_ratio(s, &rr);
	rr.hit_ratio_source = s->hit_src;
	rr.notes = s->notes;
	if (ret && !rr.res && rr.signal) {
		fprintf(stderr, "feedrate run: interrupted again: stopped at "
			"once, nothing was reported\n");
		goto out_sig;
	}
	if (ret && !rr.res) {
		/* the run never started: say why, with what was measured */
		fprintf(stderr, "feedrate run: the measurement could not start: "
			"%s\n", rr.run_error_text ? rr.run_error_text : "?");
		if (s->o.c.backend == STG_BACKEND_URING) {
			char why[400];

			stg_uring_probe(why, sizeof(why));
			fprintf(stderr, "  %s\n", why);
		}
		goto out_sig;
	}
	rpt_run_print(out, &rr);
	if (rr.generated) {
		if (rr.kept) {
			fprintf(out, "\nthe generated dataset was kept: ");
			ms_print_path(out, s->md.gen_dir);
			fputc('\n', out);
		}
	}
	fflush(out);
	ret = FR_EXIT_OK;
	if (s->o.c.json) {
		err = run_write_json(s, &rr);
		if (err) {
			fprintf(stderr, "feedrate run: cannot write the JSON "
				"report to ");
			ms_print_path(stderr, s->o.c.json);
			fprintf(stderr, ": %s\n", strerror(-err));
			ret = FR_EXIT_ENV;
		}
	}
	/* a signal's code first; then an environment failure (the JSON
	 * report not written) over --max-errors and sample errors */
	if (rr.signal) {
		ret = exit_for_signal(rr.signal);
	} else if (s->res->stopped_by_max_errors) {
		fprintf(stderr, "feedrate run: stopped after %llu failed "
			"sample%s (--max-errors %llu); see the errors in the "
			"report\n", (unsigned long long)s->res->errors,
			s->res->errors == 1 ? "" : "s",
			(unsigned long long)s->o.c.max_errors);
		if (ret != FR_EXIT_ENV)
			ret = FR_EXIT_MAX_ERRORS;
	} else if (rr.run_error) {
		fprintf(stderr, "feedrate run: the run failed: %s\n",
			rr.run_error_text);
		ret = FR_EXIT_ENV;
	} else if (ret == FR_EXIT_OK && s->res->errors) {
		ret = FR_EXIT_SAMPLE_ERRORS;
	}
out_sig:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out_free:
	ldr_memcg_destroy(s->memcg);
	if (s->md.gen_dir[0] && s->o.c.keep && ret != FR_EXIT_OK &&
	    ret != FR_EXIT_SAMPLE_ERRORS) {
		fprintf(stderr, "feedrate run: the generated dataset was kept: ");
		ms_print_path(stderr, s->md.gen_dir);
		fputc('\n', stderr);
	}
	/* the listing; the generated folder unless --keep-dataset */
	ms_dataset_close("run", &s->md, s->o.c.keep);
	free(s->res);
	free(s);
	return ret;
}
