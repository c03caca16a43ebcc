/*
 * cmd_sweep.c - `feedrate sweep [options] [DATASET]`: the raw feed rate
 * over vCPU counts x cache states, each point in its own pinned child
 * after its own warm-up, within a time budget; then the checks with
 * emulated GPUs, the verdict and the reports.
 *
 * DESIGN
 * Processes: this command is single-threaded; every measurement runs in
 * a forked child pinned to its vCPUs (measure.c, ldr_run_pinned), a --ram
 * point inside a memory cgroup. Order: for each vCPU count, ascending:
 * cold, ram, warm. The budget is re-planned before each point with the
 * rule in ms_plan_budget (what is left, in equal shares; confirmation
 * runs reserved; points dropped from the largest vCPU count down).
 * Signals: SIGINT/SIGTERM set sweep_stop; the loader forwards them to the
 * running child, which stops and still reports; the sweep then stops,
 * prints what it has (marked partial) and exits 130/143. A generated
 * dataset and the temporary list of a --ram sample are removed on every
 * path out.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "loader.h"
#include "measure.h"
#include "report.h"
#include "report_sweep.h"
#include "storage.h"
#include "workloads.h"

#define SW_MAX_VCPUS 64                 /* vCPU counts in one sweep */
#define SW_CONFIRM_S 12.0               /* one confirmation run */
#define SW_CONFIRM_WINDOW_S 6.0
#define SW_WARMUP_S 2.0                 /* the engine's default warm-up */
#define SW_OVERHEAD_S 1.5               /* child start, residency, exit */
#define SW_MIN_WINDOW_S 3.0

static const char sw_rule[] =
	"Budget rule: generating a default dataset is not counted; listing and "
	"evicting the dataset come first; 2 check runs per cache state (12 s "
	"each) are reserved; what is left is split into equal shares, "
	"re-planned before each point; while a share would be under 8 s the "
	"check runs go first, then points are dropped from the largest vCPU "
	"count down (warm, then ram, then cold at one count). A ram point "
	"runs one epoch to fill its cache and two measured epochs: when they "
	"do not fit in its share it reads an evenly spread sample of the "
	"files (never fewer epochs) with the page cache scaled by the same "
	"factor, and says so.";

struct sweep_opts {
	struct ms_common_opts c;        /* what run parses the same way */
	uint64_t ram;
	unsigned vcpus[SW_MAX_VCPUS];
	unsigned nvcpus;
	bool cache[STG_CACHE_STATES];
	bool cache_given;
	double budget_s;
	const char *csv, *html;
	bool no_check;
};

/* One point as run: the report's view plus what backs its strings. */
struct sw_point {
	struct rpt_point rp;
	struct ldr_result *res;
	bool done;
	char why[256];
	char how[1024];
	char bwhy[256];
	char backend[16];
};

struct sweep_state {
	struct sweep_opts o;
	const struct wl_workload *w;
	struct ms_gpus gs;
	struct rpt_sweep rs;
	struct ms_dataset md;
	struct aug_params aug;
	struct ldr_transform tf;
	char pipeline[320];
	struct sw_point *pts;
	size_t npts;
	struct ms_plan_point *plan;
	unsigned confirm_left;          /* confirmation runs still reserved */
	double t0;                      /* the budget's start */
	unsigned vcpus_total;
	char list_dir[4096];            /* temporary folder of sample lists */
	unsigned list_seq;
	char notes[1024];
	char conf_why[STG_CACHE_STATES][2][160];
	struct rpt_shape shapes[RPT_SHAPES_MAX];
	struct stg_cpu_info ci;
	struct stg_mem_info mi;
	struct stg_dmi_info dmi;
	struct stg_gpu_info gi;
	struct stg_fs_info fs;
	char devtext[STG_TEXT_MAX + 80];
	int errors_seen;
};

static volatile sig_atomic_t sweep_stop;

static void sweep_on_signal(int sig)
{
	sweep_stop = sig;
}

static void sweep_usage(FILE *f)
{
	fprintf(f,
"Usage: feedrate sweep [options] [DATASET]\n"
"\n"
"Measure the raw feed rate of a training input pipeline from DATASET over\n"
"vCPU counts and cache states, each point in its own pinned child after its\n"
"own warm-up; check the GPU count with emulated GPUs; then say how many GPUs\n"
"of a type this VM keeps at >= 90 %% AU per cache state, what limits it,\n"
"how many vCPUs each GPU needs, and which catalogued cloud shapes fit.\n"
"Without DATASET a 200M synthetic dataset is generated on a disk-backed\n"
"filesystem and removed afterwards.\n"
"\n"
"What to sweep:\n"
"  -c, --vcpus LIST       vCPU counts, e.g. 1,2,8 (default 1, 2, 4, ... up to\n"
"                         every usable CPU, plus the total)\n"
"      --cache LIST       cache states among cold,ram,warm (default all)\n"
"      --ram SIZE         page cache of the ram points (default: half the\n"
"                         dataset); the run's own memory is added to the\n"
"                         cgroup limit so the page cache gets about SIZE\n"
"  -B, --budget TIME      the whole sweep (default 5m); see the rule below\n"
"      --no-check         skip the runs with emulated GPUs\n"
"\n"
"Workload and GPUs:\n"
"  -w, --workload NAME    workload (default imagenet)\n"
"  -g, --gpus SPEC        the GPUs to judge against: 8xA100, H100 (default\n"
"                         1 of the workload's default type: A100)\n"
"      --gpu-rate R       samples/s one GPU eats, instead of the table\n"
"      --demand K         tuned (default) or mlperf\n"
"      --gpu-sync all|none  how emulated GPUs step in the checks\n"
"  -b, --batch N          samples per batch (default 256)\n"
"\n"
"Engine:\n"
"      --readers N        reader threads (default 1)\n"
"      --backend B        auto (default), uring or psync\n"
"      --depth N          reads in flight per reader (default 32)\n"
"      --max-errors N     stop a point when N samples have failed\n"
"      --seed N           shuffle and augmentation seed (default 1)\n"
"\n"
"Dataset:\n"
"      --list FILE        read the files named in FILE, relative to DATASET\n"
"      --max-sample-bytes SIZE  larger files fail as too large (default 64M)\n"
"      --gen-size SIZE    size of the generated dataset (default 200M)\n"
"      --tmpdir DIR       where to generate it (never tmpfs)\n"
"      --keep-dataset     keep the generated dataset\n"
"\n"
"Reports (checked for writability before the sweep starts):\n"
"      --json FILE|-      JSON (docs/report-schema.md); \"-\" is stdout and\n"
"                         the text report then goes to stderr\n"
"      --csv FILE         one row per point\n"
"      --html FILE        one self-contained page with SVG plots\n"
"  -h, --help             this help\n"
"\n"
"%s\n"
"\n"
"Exit status: 0 ok, 2 usage error, 3 completed but some samples failed,\n"
"5 environment failure, 130/143 interrupted (a partial report is printed).\n",
	sw_rule);
}

static int cmp_unsigned(const void *a, const void *b)
{
	const unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* "1,2,8" -> sorted, unique. Returns 0 or -EINVAL. */
static int parse_vcpus(const char *s, struct sweep_opts *o)
{
	char buf[512], *save = NULL, *tok;
	unsigned n = 0;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long v;

		if (n >= SW_MAX_VCPUS ||
		    cli_parse_ulong(tok, 1, CPU_SETSIZE, &v))
			return -EINVAL;
		o->vcpus[n++] = (unsigned)v;
	}
	if (!n)
		return -EINVAL;
	qsort(o->vcpus, n, sizeof(o->vcpus[0]), cmp_unsigned);
	o->nvcpus = 0;
	for (unsigned i = 0; i < n; i++)
		if (!o->nvcpus || o->vcpus[o->nvcpus - 1] != o->vcpus[i])
			o->vcpus[o->nvcpus++] = o->vcpus[i];
	return 0;
}

static int parse_caches(const char *s, struct sweep_opts *o)
{
	char buf[128], *save = NULL, *tok;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	memset(o->cache, 0, sizeof(o->cache));
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		enum stg_cache_state c;

		if (stg_cache_state_parse(tok, &c))
			return -EINVAL;
		o->cache[c] = true;
	}
	return o->cache[0] || o->cache[1] || o->cache[2] ? 0 : -EINVAL;
}

static int sweep_parse(int argc, char **argv, struct sweep_opts *o)
{
	enum {
		OPT_CACHE = 256, OPT_RAM, OPT_CSV, OPT_HTML, OPT_NOCHECK,
	};
	static const struct option lo[] = {
		MS_COMMON_LONGOPTS,
		{ "vcpus", required_argument, NULL, 'c' },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "ram", required_argument, NULL, OPT_RAM },
		{ "budget", required_argument, NULL, 'B' },
		{ "no-check", no_argument, NULL, OPT_NOCHECK },
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	memset(o, 0, sizeof(*o));
	ms_common_defaults(&o->c);
	o->budget_s = 300;
	o->cache[STG_CACHE_COLD] = o->cache[STG_CACHE_RAM] =
		o->cache[STG_CACHE_WARM] = true;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:g:b:c:B:h", lo, NULL)) != -1) {
		ret = ms_parse_common("sweep", c, optarg, &o->c);
		if (ret == 1)
			continue;
		if (ret)
			return ret;
		switch (c) {
		case 'c':
			if (parse_vcpus(optarg, o))
				return cli_usage_error("sweep", "--vcpus wants a "
					"list of counts 1..%d such as 1,2,8 (at "
					"most %d), not '%s'", CPU_SETSIZE,
					SW_MAX_VCPUS, optarg);
			break;
		case OPT_CACHE:
			if (parse_caches(optarg, o))
				return cli_usage_error("sweep", "--cache wants a "
					"list of cold, ram, warm, not '%s'",
					optarg);
			o->cache_given = true;
			break;
		case OPT_RAM:
			if (cli_parse_size(optarg, &o->ram) || o->ram < (1u << 20))
				return cli_usage_error("sweep", "--ram wants a "
					"size of at least 1M (e.g. 16G), not "
					"'%s'", optarg);
			break;
		case 'B':
			if (cli_parse_duration(optarg, &o->budget_s))
				return cli_usage_error("sweep", "bad --budget "
					"'%s' (e.g. 90s, 5m)", optarg);
			break;
		case OPT_NOCHECK:
			o->no_check = true;
			break;
		case OPT_CSV:
			o->csv = optarg;
			break;
		case OPT_HTML:
			o->html = optarg;
			break;
		case 'h':
			sweep_usage(stdout);
			return -1;
		default:
			return ms_parse_bad("sweep", c, argv);
		}
	}
	ret = ms_parse_dataset("sweep", argc, argv, &o->c);
	if (ret)
		return ret;
	if (o->ram && !o->cache_given)
		o->cache[STG_CACHE_RAM] = true;
	if ((o->c.json && !strcmp(o->c.json, "-")) +
	    (o->csv && !strcmp(o->csv, "-")) +
	    (o->html && !strcmp(o->html, "-")) > 1)
		return cli_usage_error("sweep", "only one report can go to "
				       "stdout ('-')");
	return 0;
}

/*
 * Can a report be written at PATH? Its folder must exist and be writable,
 * and PATH must not be a folder. Returns 0 or -errno.
 */
static int check_out_path(const char *path)
{
	char *copy, *dir;
	struct stat st;
	int err = 0;

	if (!strcmp(path, "-"))
		return 0;
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return -EISDIR;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (stat(dir, &st))
		err = -errno;
	else if (!S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	else if (access(dir, W_OK | X_OK))
		err = -errno;
	free(copy);
	return err;
}

static void note_add(struct sweep_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note_add(struct sweep_state *s, const char *fmt, ...)
{
	size_t used = strlen(s->notes);
	va_list ap;

	if (used && used + 2 < sizeof(s->notes)) {
		strcat(s->notes, "; ");
		used += 2;
	}
	if (used + 1 >= sizeof(s->notes))
		return;
	va_start(ap, fmt);
	vsnprintf(s->notes + used, sizeof(s->notes) - used, fmt, ap);
	va_end(ap);
}

static int exit_for_signal(int sig)
{
	return sig == SIGTERM ? FR_EXIT_SIGTERM : FR_EXIT_SIGINT;
}

/* Resolve --gpus / --gpu-rate into the report. Returns 0 or an exit code. */
static int sweep_gpus(struct sweep_state *s)
{
	struct rpt_sweep *r = &s->rs;
	int ret = ms_gpus_resolve("sweep", s->w, s->o.c.gpus, s->o.c.demand,
				  s->o.c.gpu_rate, &s->gs);

	if (ret)
		return ret;
	if (!s->gs.count)
		return cli_usage_error("sweep", "--gpus 0: a sweep judges its "
				       "raw feed rate against at least 1 GPU "
				       "(for the raw feed alone use 'feedrate "
				       "run --gpus 0')");
	r->gpu_count = s->gs.count;
	r->gpu_type = s->gs.type;
	r->gpu_detail = s->gs.detail;
	r->demand_per_gpu = s->gs.demand;
	r->demand_kind = s->gs.demand_kind;
	r->demand_source = s->gs.demand_source;
	r->demand_est = s->gs.demand_est;
	return 0;
}

/* The default vCPU counts: 1, 2, 4, ... below the total, and the total. */
static void default_vcpus(struct sweep_opts *o, unsigned total)
{
	o->nvcpus = 0;
	for (unsigned k = 1; k < total && o->nvcpus < SW_MAX_VCPUS - 1; k *= 2)
		o->vcpus[o->nvcpus++] = k;
	o->vcpus[o->nvcpus++] = total;
}

static void shapes_fill(struct sweep_state *s)
{
	size_t n = wl_instance_count();

	if (n > RPT_SHAPES_MAX)
		n = RPT_SHAPES_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct wl_instance *in = wl_instance_at(i);
		struct rpt_shape *sh = &s->shapes[i];

		sh->name = in->name;
		sh->cloud = in->cloud;
		sh->gpus = in->gpus;
		sh->gpu = in->gpu;
		sh->gpu_detail = in->gpu_detail;
		sh->vcpus = in->vcpus;
		sh->ram_gib = in->ram_gib;
		sh->recalled = in->ram_recalled;
	}
	s->rs.shapes = s->shapes;
	s->rs.nshapes = n;
}

/* ---- running points ---- */

static void progress(struct sweep_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(struct sweep_state *s, const char *fmt, ...)
{
	const double used = ms_now() - s->t0;
	double eta = s->o.budget_s - used;
	va_list ap;

	if (!isatty(STDERR_FILENO))
		return;
	if (eta < 0)
		eta = 0;
	fprintf(stderr, "\r\033[Kfeedrate sweep: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (%.0f s used, <= %.0f s left)", used, eta);
	fflush(stderr);
}

/* Peak memory of the measuring children so far, or a formula for it. */
static uint64_t own_memory(const struct sweep_state *s, unsigned workers,
			   unsigned gpus)
{
	struct rusage ru;
	const unsigned batch = s->o.c.batch ? s->o.c.batch : 256;
	unsigned prefetch = 2 * gpus > 4 ? 2 * gpus : 4;
	uint64_t formula, seen = 0, maxsz = stg_dataset_max_size(s->md.ds);

	if (maxsz > s->o.c.max_sample_bytes)
		maxsz = s->o.c.max_sample_bytes;
	formula = (uint64_t)prefetch * batch * s->tf.out_bytes +
		  (uint64_t)workers * (48u << 20) +
		  (uint64_t)s->o.c.readers * s->o.c.depth * maxsz + (96u << 20);
	if (!getrusage(RUSAGE_CHILDREN, &ru))
		seen = (uint64_t)ru.ru_maxrss * 1024 + (64u << 20);
	/* more GPUs than the points had: their extra batch slots */
	if (gpus > 2)
		seen += (uint64_t)(prefetch - 4) * batch * s->tf.out_bytes;
	return seen > formula ? seen : formula;
}

/* Peak memory charged to CG since it was made, 0 when unknown. */
static uint64_t memcg_peak(const struct ldr_memcg *cg)
{
	char path[4200], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", ldr_memcg_path(cg),
		 ldr_memcg_version(cg) == 1 ? "memory.max_usage_in_bytes" :
		 "memory.peak");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

/*
 * A sample of DS's files, N of them spread evenly over the ids, as a new
 * listing (through a list file in the sweep's temporary folder). Files
 * whose name holds a newline cannot be listed and are skipped. Returns 0
 * or -errno.
 */
static int sample_dataset(struct sweep_state *s, size_t n,
			  struct stg_dataset **out)
{
	const struct stg_dataset *ds = s->md.ds;
	const size_t total = stg_dataset_count(ds);
	char path[4200];
	FILE *f;
	int err;

	if (!s->list_dir[0]) {
		const char *t = getenv("TMPDIR");

		snprintf(s->list_dir, sizeof(s->list_dir), "%s/feedrate-sweep"
			 ".XXXXXX", access("/var/tmp", W_OK) == 0 ? "/var/tmp"
			 : t && *t ? t : "/tmp");
		if (!mkdtemp(s->list_dir)) {
			err = -errno;
			s->list_dir[0] = '\0';
			return err;
		}
	}
	snprintf(path, sizeof(path), "%s/sample-%u.list", s->list_dir,
		 s->list_seq++);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	for (size_t k = 0; k < n; k++) {
		const size_t id = (size_t)((double)k * total / n);
		size_t len;
		const char *rel = stg_dataset_relpath(ds, id, &len);

		if (!rel || memchr(rel, '\n', len))
			continue;
		fprintf(f, "%lld\t", (long long)stg_dataset_size(ds, id));
		fwrite(rel, 1, len, f);
		fputc('\n', f);
	}
	if (fclose(f))
		return -errno;
	err = stg_dataset_load_list(path, stg_dataset_root(ds), NULL, out);
	unlink(path);
	return err;
}

/* What a point (or a check run) measures. */
struct sw_run {
	unsigned vcpus;
	enum stg_cache_state cache;
	unsigned gpus;                  /* 0: raw feed */
	double window_s;                /* the whole share left for it */
	bool first_warm;                /* the warm prep may be skipped */
	double rate_hint;               /* ram: expected samples/s, 0 none */
};

struct sw_run_out {
	bool measured;
	struct ms_cache_prep prep;
	uint64_t ram_bytes, cgroup_bytes;
	uint64_t cache_seen;            /* page cache in the cgroup at the end */
	bool ram_not_limited;           /* it held more than MS_RAM_SLACK x
	                                   ram_bytes: the point ran warm */
	uint64_t sample_files, sample_bytes;
	bool hit_estimated;
	double hit_ratio;
	char hit_src[256];
	char cg_how[384];
	char err_text[512];
	struct ms_point_out po;
};

static enum ms_cache ms_cache_of(enum stg_cache_state c)
{
	return c == STG_CACHE_COLD ? MS_CACHE_COLD :
	       c == STG_CACHE_RAM ? MS_CACHE_RAM : MS_CACHE_WARM;
}

/*
 * Run one measurement R into RES. Returns 0 (OUT->measured says whether
 * it got numbers) or an exit code for a failure that ends the sweep.
 */
static int run_one(struct sweep_state *s, const struct sw_run *r,
		   struct ldr_result *res, struct sw_run_out *out)
{
	struct ldr_cpu_choice cpus;
	struct ms_point p;
	struct stg_dataset *sub = NULL;
	struct ldr_memcg *cg = NULL;
	const double start = ms_now();
	double window;
	int err;

	memset(out, 0, sizeof(*out));
	out->hit_ratio = -1;
	err = ldr_cpus_choose(r->vcpus, NULL, &cpus);
	if (err) {
		snprintf(out->err_text, sizeof(out->err_text), "%s",
			 cpus.how[0] ? cpus.how : strerror(-err));
		return 0;
	}
	memset(&p, 0, sizeof(p));
	p.ds = s->md.ds;
	p.cache = ms_cache_of(r->cache);
	p.cpus = &cpus.set;
	p.workers = cpus.count;
	p.readers = s->o.c.readers;
	p.backend = s->o.c.backend;
	p.depth = s->o.c.depth;
	p.max_sample_bytes = s->o.c.max_sample_bytes;
	p.batch = s->o.c.batch;
	p.transform = s->tf;
	p.seed = s->o.c.seed;
	p.gpus = r->gpus;
	p.gpu_rate = s->rs.demand_per_gpu;
	p.sync = s->o.c.sync;
	p.au_threshold = s->w->au_threshold;
	p.max_errors = s->o.c.max_errors;
	p.stop = (volatile int *)&sweep_stop;

	ms_cache_prepare(s->md.ds, p.cache, !r->first_warm, &out->prep);
	if (r->cache == STG_CACHE_RAM) {
		const size_t n = stg_dataset_count(s->md.ds);
		const uint64_t total = stg_dataset_total_bytes(s->md.ds);
		const unsigned batch = s->o.c.batch ? s->o.c.batch : 256;
		size_t k;
		double scale = 1;

		window = r->window_s - (ms_now() - start) - SW_OVERHEAD_S * 2;
		/* one epoch fills the cache, two are measured */
		/* fill (once more if the limit needs correcting), then 2 */
		k = ms_ram_sample_files(n, r->rate_hint, window, 4,
					(size_t)batch * 4);
		if (k < n) {
			err = sample_dataset(s, k, &sub);
			if (err) {
				note_add(s, "a ram point could not use a sample "
					 "of the dataset (%s): it read all of it",
					 strerror(-err));
				sub = NULL;
			} else {
				p.ds = sub;
			}
		}
		out->sample_files = stg_dataset_count(p.ds);
		out->sample_bytes = stg_dataset_total_bytes(p.ds);
		if (total)
			scale = (double)out->sample_bytes / (double)total;
		out->ram_bytes = (uint64_t)((double)s->o.ram * scale);
		if (out->ram_bytes < (1u << 20))
			out->ram_bytes = 1u << 20;
		out->cgroup_bytes = out->ram_bytes +
			own_memory(s, cpus.count, r->gpus);
		for (int attempt = 0; attempt < 2; attempt++) {
			uint64_t cache = 0, own;

			if (attempt)
				stg_cache_dataset_evict(p.ds, NULL);
			err = ms_ram_cgroup(out->cgroup_bytes, &cg, out->cg_how,
					    sizeof(out->cg_how));
			out->hit_estimated = err != 0;
			if (err)
				out->cgroup_bytes = 0;
			p.memcg = cg;
			/* the fill epoch: another shuffle, not measured */
			p.epochs = 1;
			p.warmup_s = -1;
			p.duration_s = window > 0 ? window / 4 + 5 : 10;
			p.seed = s->o.c.seed + 7919 + (uint64_t)attempt;
			p.gpus = 0;
			err = ms_point_measure(&p, res, &out->po);
			p.seed = s->o.c.seed;
			p.gpus = r->gpus;
			if (sweep_stop || err) {
				if (err)
					snprintf(out->err_text,
						 sizeof(out->err_text), "the "
						 "fill epoch failed: %.450s",
						 out->po.err_text);
				goto out;
			}
			/*
			 * The run's own memory is an estimate. The cgroup's
			 * peak less the page cache it held after the fill is
			 * what the run itself took: more than 25 % off the
			 * asked page cache, set the limit from it, evict and
			 * fill again (once).
			 */
			if (!cg || attempt || ldr_memcg_usage(cg, NULL, &cache))
				break;
			if (fabs((double)cache - (double)out->ram_bytes) <=
			    0.25 * (double)out->ram_bytes)
				break;
			own = memcg_peak(cg);
			if (own > cache)
				own -= cache;
			else if (out->cgroup_bytes > cache)
				own = out->cgroup_bytes - cache;
			else
				break;
			out->cgroup_bytes = out->ram_bytes + own + own / 20 +
					    (8u << 20);
			ldr_memcg_destroy(cg);
			cg = NULL;
			p.memcg = NULL;
		}
	}
	window = r->window_s - (ms_now() - start) - SW_WARMUP_S -
		 SW_OVERHEAD_S;
	if (window < SW_MIN_WINDOW_S)
		window = SW_MIN_WINDOW_S;
	p.warmup_s = 0;
	p.duration_s = window;
	p.epochs = 0;
	if (r->cache == STG_CACHE_RAM && !r->gpus) {
		/* two measured epochs, capped by the share */
		p.epochs = 2;
		p.duration_s = window + SW_WARMUP_S;
	}
	memset(res, 0, sizeof(*res));
	err = ms_point_measure(&p, res, &out->po);
	if (err) {
		snprintf(out->err_text, sizeof(out->err_text), "%s",
			 out->po.err_text);
		goto out;
	}
	out->measured = true;
	if (cg) {
		uint64_t cache = 0;

		if (!ldr_memcg_usage(cg, NULL, &cache))
			out->cache_seen = cache;
		/*
		 * The limit adds an estimate of the run's own memory; when
		 * the page cache still grew well past the asked size (a
		 * small dataset, an own-memory estimate larger than the
		 * run's), the cgroup did not limit it: the point ran warm
		 * and its hit ratio can only be estimated.
		 */
		if (!ms_ram_limited(out->ram_bytes, out->cache_seen)) {
			out->ram_not_limited = true;
			out->hit_estimated = true;
		}
	}
	if (out->po.err)
		snprintf(out->err_text, sizeof(out->err_text), "%s",
			 out->po.err_text);
	if (r->cache != STG_CACHE_RAM) {
		out->sample_files = stg_dataset_count(p.ds);
		out->sample_bytes = stg_dataset_total_bytes(p.ds);
	}
	out->hit_ratio = ms_hit_ratio(p.ds, s->o.c.seed, out->ram_bytes,
				      out->hit_estimated, res, out->hit_src,
				      sizeof(out->hit_src));
	if (r->cache != STG_CACHE_RAM && !out->hit_estimated &&
	    !res->probed_bytes)
		out->hit_ratio = -1;
out:
	ldr_memcg_destroy(cg);
	stg_dataset_destroy(sub);
	return 0;
}

/* Fill the report's point from a measurement. */
static void point_fill(struct sweep_state *s, struct sw_point *sp,
		       const struct sw_run *r, const struct sw_run_out *ro)
{
	struct rpt_point *p = &sp->rp;
	const struct ldr_result *res = sp->res;
	const double demand = s->rs.demand_per_gpu * s->rs.gpu_count;
	const size_t n = stg_dataset_count(s->md.ds);

	p->ram_bytes = ro->ram_bytes;
	p->cgroup_bytes = ro->cgroup_bytes;
	p->cache_seen_bytes = ro->cache_seen;
	p->ram_not_limited = ro->ram_not_limited;
	p->fraction_resident = ro->prep.fraction;
	p->hit_ratio = ro->hit_ratio;
	p->hit_ratio_estimated = ro->hit_estimated;
	p->sample_files = ro->sample_files;
	p->sample_bytes = ro->sample_bytes;
	if (!ro->measured) {
		p->status = RPT_POINT_FAILED;
		snprintf(sp->why, sizeof(sp->why), "%.250s", ro->err_text[0] ?
			 ro->err_text : "the point could not run");
		p->why = sp->why;
		return;
	}
	p->status = RPT_POINT_MEASURED;
	p->samples_per_s = res->samples_per_s;
	p->au = demand > 0 ? fmin(1.0, res->samples_per_s / demand) : -1;
	p->bottleneck = ldr_bottleneck_name(res->bottleneck);
	snprintf(sp->bwhy, sizeof(sp->bwhy), "%s", res->bottleneck_why);
	p->bottleneck_why = sp->bwhy;
	p->measured_s = res->measured_s;
	p->warmup_s = res->warmup_s;
	p->samples = res->samples;
	p->batches = res->batches;
	p->errors = res->errors;
	p->epochs_done = res->epochs_done;
	p->read_bytes_per_s = res->read_bytes_per_s;
	p->files_per_s = res->measured_s > 0 ?
		(double)(res->samples + res->samples_failed) / res->measured_s :
		0;
	p->cpu_outside_mask_s = ro->po.rep.cpu_outside_mask_s;
	p->stages.decode_s = res->steps.decode_s;
	p->stages.resize_s = res->steps.resize_s;
	p->stages.other_s = res->steps.other_s;
	p->stages.worker_cpu_s = res->worker_cpu_s;
	p->stages.reader_cpu_s = res->reader_cpu_s;
	p->stages.consumer_cpu_s = res->consumer_cpu_s;
	p->stages.process_cpu_s = res->process_cpu_s;
	p->stages.worker_busy_s = res->worker_busy_s;
	p->stages.worker_wait_s = res->worker_wait_s;
	snprintf(sp->backend, sizeof(sp->backend), "%s", res->backend);
	p->backend = sp->backend;
	p->series = res->series;
	p->series_len = res->series_len;
	if (r->cache == STG_CACHE_RAM) {
		snprintf(sp->how, sizeof(sp->how), "%.300s; page cache "
			 "%.1f MB asked, cgroup limit %.1f MB (with the run's "
			 "own memory), %.1f MB held after the run%s; one "
			 "unmeasured epoch filled the cache, then %llu epochs "
			 "measured%s; hit ratio %.200s", ro->cg_how,
			 ro->ram_bytes / 1e6, ro->cgroup_bytes / 1e6,
			 ro->cache_seen / 1e6, ro->ram_not_limited ?
			 ": NOT LIMITED (more than 1.25 x the asked size), so "
			 "the point ran warm and is not a ram measurement" : "",
			 (unsigned long long)res->epochs_done,
			 ro->sample_files < n ? " on an evenly spread sample "
			 "of the files, with the page cache scaled by the same "
			 "factor, so that the epochs fit in the budget" : "",
			 ro->hit_src[0] ? ro->hit_src : "unknown");
	} else {
		snprintf(sp->how, sizeof(sp->how), "%.500s%s%.250s", ro->prep.how,
			 ro->prep.note[0] ? "; " : "", ro->prep.note);
	}
	p->cache_how = sp->how;
	if (res->errors)
		s->errors_seen = 1;
}

/* Samples/s of the measured point (VCPUS, CACHE), 0 when none. */
static double rate_at(const struct sweep_state *s, unsigned vcpus,
		      enum stg_cache_state c)
{
	for (size_t i = 0; i < s->npts; i++) {
		const struct rpt_point *p = &s->pts[i].rp;

		if (s->pts[i].done && p->status == RPT_POINT_MEASURED &&
		    p->vcpus == vcpus && p->cache == c)
			return p->samples_per_s;
	}
	return 0;
}

/* A rate for a ram point: cold at the same vCPUs, else scaled best. */
static double ram_rate_hint(const struct sweep_state *s, unsigned vcpus)
{
	double r = rate_at(s, vcpus, STG_CACHE_COLD);

	if (r > 0)
		return r;
	for (size_t i = 0; i < s->npts; i++) {
		const struct rpt_point *p = &s->pts[i].rp;

		if (s->pts[i].done && p->status == RPT_POINT_MEASURED &&
		    p->vcpus)
			r = fmax(r, p->samples_per_s / p->vcpus * vcpus);
	}
	return r;
}

/*
 * Re-plan the budget over the points not yet run: drops are written back
 * into S->pts. Returns the share of each.
 */
static double replan(struct sweep_state *s, size_t from)
{
	const double left = s->o.budget_s - (ms_now() - s->t0);
	size_t n = 0;
	unsigned kept;
	double share;

	for (size_t i = from; i < s->npts; i++) {
		s->plan[n].vcpus = s->pts[i].rp.vcpus;
		s->plan[n].cache = s->pts[i].rp.cache;
		s->plan[n].dropped = s->pts[i].rp.status == RPT_POINT_DROPPED;
		n++;
	}
	share = ms_plan_budget(s->plan, n, s->confirm_left, SW_CONFIRM_S,
			       left, MS_MIN_POINT_S, &kept);
	s->confirm_left = kept;
	for (size_t i = from, k = 0; i < s->npts; i++, k++)
		if (s->plan[k].dropped &&
		    s->pts[i].rp.status != RPT_POINT_DROPPED) {
			s->pts[i].rp.status = RPT_POINT_DROPPED;
			snprintf(s->pts[i].why, sizeof(s->pts[i].why),
				 "no time left in the %.0f s budget",
				 s->o.budget_s);
			s->pts[i].rp.why = s->pts[i].why;
		}
	return share;
}

static int run_points(struct sweep_state *s)
{
	bool warm_done = false;
	size_t count = 0;

	for (size_t i = 0; i < s->npts; i++) {
		struct sw_point *sp = &s->pts[i];
		struct sw_run r;
		struct sw_run_out ro;
		double share;
		int ret;

		if (sweep_stop)
			return 0;
		share = replan(s, i);
		if (sp->rp.status == RPT_POINT_DROPPED)
			continue;
		sp->res = calloc(1, sizeof(*sp->res));
		if (!sp->res) {
			fprintf(stderr, "feedrate sweep: out of memory\n");
			return FR_EXIT_ENV;
		}
		memset(&r, 0, sizeof(r));
		r.vcpus = sp->rp.vcpus;
		r.cache = sp->rp.cache;
		r.window_s = share;
		r.first_warm = r.cache == STG_CACHE_WARM && !warm_done;
		if (r.cache == STG_CACHE_RAM)
			r.rate_hint = ram_rate_hint(s, r.vcpus);
		progress(s, "point %zu: %u vCPU%s, %s, %.0f s", ++count, r.vcpus,
			 r.vcpus == 1 ? "" : "s", stg_cache_state_name(r.cache),
			 share);
		ret = run_one(s, &r, sp->res, &ro);
		if (ret)
			return ret;
		if (r.cache == STG_CACHE_WARM)
			warm_done = true;
		sp->done = true;
		point_fill(s, sp, &r, &ro);
		if (ro.prep.note[0])
			note_add(s, "%u/%s: %s", r.vcpus,
				 stg_cache_state_name(r.cache), ro.prep.note);
	}
	return 0;
}

/* The check runs: G and G + 1 emulated GPUs at the largest vCPU count. */
static int run_checks(struct sweep_state *s)
{
	const double need = s->w->au_threshold * s->rs.demand_per_gpu;
	struct ldr_result *res = calloc(1, sizeof(*res));

	if (!res) {
		fprintf(stderr, "feedrate sweep: out of memory\n");
		return FR_EXIT_ENV;
	}
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const struct rpt_point *top = NULL;
		unsigned g;

		for (size_t i = 0; i < s->npts; i++) {
			const struct rpt_point *p = &s->pts[i].rp;

			/* the point the verdict takes: not too short, a
			 * ram point whose page cache was limited */
			if (s->pts[i].done && p->cache == (enum stg_cache_state)c &&
			    rpt_point_usable(p) &&
			    (!top || p->vcpus > top->vcpus))
				top = p;
		}
		if (!top)
			continue;
		g = need > 0 ? (unsigned)floor(top->samples_per_s / need +
					       1e-9) : 0;
		for (int k = 0; k < 2; k++) {
			struct rpt_confirm *cf = &s->rs.confirm[c][k];
			const unsigned gpus = g + (unsigned)k;
			struct sw_run r;
			struct sw_run_out ro;
			double left;

			cf->gpus = gpus;
			cf->why = s->conf_why[c][k];
			if (k == 0 && g == 0) {
				snprintf(s->conf_why[c][k], sizeof(s->conf_why[c][k]), "0 GPUs: "
					 "nothing to check");
				continue;
			}
			left = s->o.budget_s - (ms_now() - s->t0);
			if (s->o.no_check || sweep_stop) {
				snprintf(s->conf_why[c][k], sizeof(s->conf_why[c][k]), "%s",
					 s->o.no_check ? "--no-check" :
					 "interrupted");
				continue;
			}
			if (!s->confirm_left || left < SW_CONFIRM_S ||
			    gpus > WL_GPUS_MAX) {
				snprintf(s->conf_why[c][k], sizeof(s->conf_why[c][k]), "%s",
					 gpus > WL_GPUS_MAX ? "too many GPUs to "
					 "emulate" : "no time left in the budget");
				continue;
			}
			memset(&r, 0, sizeof(r));
			r.vcpus = top->vcpus;
			r.cache = (enum stg_cache_state)c;
			r.gpus = gpus;
			r.window_s = SW_CONFIRM_S;
			if (c == STG_CACHE_RAM) {
				r.rate_hint = ram_rate_hint(s, top->vcpus);
				r.window_s = fmin(left, 2 * SW_CONFIRM_S);
			}
			progress(s, "check: %u x %s, %u vCPUs, %s", gpus,
				 s->rs.gpu_type, top->vcpus,
				 stg_cache_state_name((enum stg_cache_state)c));
			memset(res, 0, sizeof(*res));
			run_one(s, &r, res, &ro);
			if (!ro.measured || !res->batches) {
				snprintf(s->conf_why[c][k], sizeof(s->conf_why[c][k]), "the run "
					 "failed: %.100s", ro.err_text);
				continue;
			}
			if (ro.ram_not_limited) {
				snprintf(s->conf_why[c][k],
					 sizeof(s->conf_why[c][k]), "the page "
					 "cache was not limited: it ran warm");
				continue;
			}
			cf->run = true;
			cf->au = res->au;
		}
	}
	free(res);
	return 0;
}

/* ---- reports ---- */

static int write_text_file(const char *path, char *text, const char *what)
{
	int err;

	if (!text) {
		fprintf(stderr, "feedrate sweep: out of memory writing the %s "
			"report\n", what);
		return -ENOMEM;
	}
	err = rpt_file_write(path, text, strlen(text));
	free(text);
	if (err) {
		fprintf(stderr, "feedrate sweep: cannot write the %s report to ",
			what);
		ms_print_path(stderr, path);
		fprintf(stderr, ": %s\n", strerror(-err));
	}
	return err;
}

static int write_reports(struct sweep_state *s)
{
	int bad = 0;

	if (s->o.c.json) {
		json_t *root = rpt_sweep_json(&s->rs, true);
		int err = root ? rpt_json_write(root, s->o.c.json) : -ENOMEM;

		json_decref(root);
		if (err) {
			fprintf(stderr, "feedrate sweep: cannot write the JSON "
				"report to ");
			ms_print_path(stderr, s->o.c.json);
			fprintf(stderr, ": %s\n", strerror(-err));
			bad = 1;
		}
	}
	if (s->o.csv && write_text_file(s->o.csv, rpt_sweep_csv(&s->rs),
					"CSV"))
		bad = 1;
	if (s->o.html && write_text_file(s->o.html, rpt_sweep_html(&s->rs),
					 "HTML"))
		bad = 1;
	return bad;
}

static void lru_estimates(struct sweep_state *s)
{
	struct ldr_lru_estimate est;

	s->rs.lru_ram_bytes = s->o.cache[STG_CACHE_RAM] ? s->o.ram : 0;
	s->rs.lru_ram_steady = -1;
	s->rs.lru_half_steady = -1;
	if (!s->o.cache[STG_CACHE_RAM])
		return;
	if (!ldr_lru_estimate_run(s->md.ds, s->o.c.seed, 0, 1, false, 4,
				  s->o.ram, &est))
		s->rs.lru_ram_steady = est.steady;
	if (!ldr_lru_estimate_run(s->md.ds, s->o.c.seed, 0, 1, false, 4,
				  s->o.ram / 2, &est))
		s->rs.lru_half_steady = est.steady;
}

static void machine_fill(struct sweep_state *s)
{
	struct rpt_sweep *r = &s->rs;

	stg_detect_cpu(0, &s->ci);
	stg_detect_mem(&s->mi);
	stg_detect_dmi(&s->dmi);
	stg_detect_gpus(&s->gi);
	r->cpu_model = s->ci.model;
	r->threads_per_core = s->ci.threads_per_core > 0 ?
		(unsigned)s->ci.threads_per_core : 1;
	r->ram_total = s->mi.total_bytes > 0 ? (uint64_t)s->mi.total_bytes : 0;
	r->ram_available = s->mi.available_bytes > 0 ?
		(uint64_t)s->mi.available_bytes : 0;
	r->cgroup_limit = s->mi.cgroup_limit_bytes;
	r->instance_type = s->dmi.product_name;
	r->vendor = s->dmi.sys_vendor;
	r->gpus_present = s->gi.count;
}

/* Plan the points: for each vCPU count, ascending, each cache state. */
static int plan_points(struct sweep_state *s)
{
	s->npts = 0;
	s->pts = calloc((size_t)s->o.nvcpus * STG_CACHE_STATES, sizeof(*s->pts));
	s->plan = calloc((size_t)s->o.nvcpus * STG_CACHE_STATES, sizeof(*s->plan));
	if (!s->pts || !s->plan)
		return -ENOMEM;
	for (unsigned v = 0; v < s->o.nvcpus; v++)
		for (int c = 0; c < STG_CACHE_STATES; c++) {
			struct sw_point *sp;

			if (!s->o.cache[c])
				continue;
			sp = &s->pts[s->npts++];
			sp->rp.vcpus = s->o.vcpus[v];
			sp->rp.cache = (enum stg_cache_state)c;
			sp->rp.au = -1;
			sp->rp.hit_ratio = -1;
			sp->rp.fraction_resident = -1;
			sp->rp.cpu_outside_mask_s = -1;
			sp->rp.why = "";
		}
	s->confirm_left = 0;
	if (!s->o.no_check)
		for (int c = 0; c < STG_CACHE_STATES; c++)
			s->confirm_left += s->o.cache[c] ? 2 : 0;
	return 0;
}

static void state_free(struct sweep_state *s)
{
	for (size_t i = 0; s->pts && i < s->npts; i++)
		free(s->pts[i].res);
	free(s->pts);
	free(s->plan);
	if (s->list_dir[0])
		ms_rm_tree(s->list_dir);
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_state *s;
	struct sigaction sa, old_int, old_term;
	struct ms_dataset_opts dopt;
	struct ms_cache_prep prep;
	const char *outs[3];
	char names[256];
	FILE *out;
	int ret, err;

	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "feedrate sweep: out of memory\n");
		return FR_EXIT_ENV;
	}
	ret = sweep_parse(argc, argv, &s->o);
	if (ret) {
		free(s);
		return ret < 0 ? FR_EXIT_OK : ret;
	}
	out = (s->o.c.json && !strcmp(s->o.c.json, "-")) ||
	      (s->o.csv && !strcmp(s->o.csv, "-")) ||
	      (s->o.html && !strcmp(s->o.html, "-")) ? stderr : stdout;
	if (wl_find(s->o.c.workload, &s->w)) {
		wl_names(names, sizeof(names));
		ret = cli_usage_error("sweep", "unknown workload '%s' (valid: "
				      "%s)", s->o.c.workload, names);
		goto out_free;
	}
	ret = sweep_gpus(s);
	if (ret)
		goto out_free;
	s->vcpus_total = ms_usable_cpus();
	if (!s->o.nvcpus)
		default_vcpus(&s->o, s->vcpus_total);
	if (s->o.vcpus[s->o.nvcpus - 1] > s->vcpus_total) {
		ret = cli_usage_error("sweep", "--vcpus %u: only %u CPUs are "
				      "usable here", s->o.vcpus[s->o.nvcpus - 1],
				      s->vcpus_total);
		goto out_free;
	}
	/* an unwritable report is said now, not after the sweep */
	outs[0] = s->o.c.json;
	outs[1] = s->o.csv;
	outs[2] = s->o.html;
	for (int k = 0; k < 3; k++) {
		if (!outs[k])
			continue;
		err = check_out_path(outs[k]);
		if (err) {
			fprintf(stderr, "feedrate sweep: cannot write a report "
				"to ");
			ms_print_path(stderr, outs[k]);
			fprintf(stderr, ": %s\n", strerror(-err));
			ret = FR_EXIT_ENV;
			goto out_free;
		}
	}
	aug_params_default(&s->aug);
	err = wl_transform_train(&s->aug, &s->tf);
	if (err) {
		fprintf(stderr, "feedrate sweep: the transform cannot start: "
			"%s\n", strerror(-err));
		ret = FR_EXIT_ENV;
		goto out_free;
	}
	wl_transform_describe(&s->aug, AUG_ISA_AUTO, s->pipeline,
			      sizeof(s->pipeline));

	sweep_stop = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sweep_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	memset(&dopt, 0, sizeof(dopt));
	dopt.cmd = "sweep";
	dopt.w = s->w;
	dopt.dataset = s->o.c.dataset;
	dopt.list = s->o.c.list;
	dopt.tmpdir = s->o.c.tmpdir;
	dopt.gen_size = s->o.c.gen_size;
	dopt.seed = s->o.c.seed;
	dopt.stop = &sweep_stop;
	ret = ms_dataset_open(&dopt, &s->md);
	if (ret)
		goto out_sig;
	/* the budget starts with the listing */
	s->t0 = ms_now() - s->md.list_s;
	ms_cache_prepare(s->md.ds, MS_CACHE_COLD, false, &prep);
	s->rs.setup_s = ms_now() - s->t0;
	if (!s->o.ram)
		s->o.ram = stg_dataset_total_bytes(s->md.ds) / 2;
	if (s->o.ram < (1u << 20))
		s->o.ram = 1u << 20;
	if (plan_points(s)) {
		fprintf(stderr, "feedrate sweep: out of memory\n");
		ret = FR_EXIT_ENV;
		goto out_sig;
	}
	if (replan(s, 0) <= 0 || s->pts[0].rp.status == RPT_POINT_DROPPED) {
		fprintf(stderr, "feedrate sweep: the budget of %.0f s leaves no "
			"time for a point after listing and eviction (%.1f s); "
			"a point needs at least %.0f s\n", s->o.budget_s,
			s->rs.setup_s, MS_MIN_POINT_S);
		ret = FR_EXIT_USAGE;
		goto out_sig;
	}
	ret = run_points(s);
	if (!ret)
		ret = run_checks(s);
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	if (ret)
		goto out_sig;

	/* the report */
	s->rs.version = FEEDRATE_VERSION;
	s->rs.workload = s->w->name;
	s->rs.dataset = s->md.root;
	s->rs.generated = s->md.gen_dir[0] != '\0';
	s->rs.files = stg_dataset_count(s->md.ds);
	s->rs.bytes = stg_dataset_total_bytes(s->md.ds);
	ms_fs_describe(s->md.root, &s->fs, &s->rs.fs_type, s->devtext,
		       sizeof(s->devtext));
	s->rs.fs_device = s->devtext;
	s->rs.fs_network = s->fs.network;
	s->rs.pipeline = s->pipeline;
	s->rs.backend = "";
	for (size_t i = 0; i < s->npts; i++)
		if (s->pts[i].backend[0])
			s->rs.backend = s->pts[i].backend;
	s->rs.vcpus_total = s->vcpus_total;
	machine_fill(s);
	s->rs.au_threshold = s->w->au_threshold;
	s->rs.budget_s = s->o.budget_s;
	s->rs.elapsed_s = ms_now() - s->t0;
	s->rs.budget_rule = sw_rule;
	if (s->fs.page_cache_volatile)
		note_add(s, "the dataset is on a memory-backed filesystem: it "
			 "cannot be cold");
	if (sweep_stop)
		note_add(s, "PARTIAL: interrupted; points not run are missing");
	s->rs.notes = s->notes;
	for (size_t i = 0; i < s->npts; i++)
		if (!s->pts[i].done && s->pts[i].rp.status !=
		    RPT_POINT_DROPPED) {
			s->pts[i].rp.status = RPT_POINT_DROPPED;
			s->pts[i].rp.why = "interrupted";
		}
	/* the report reads the points in place */
	{
		struct rpt_point *pts = calloc(s->npts, sizeof(*pts));

		if (!pts) {
			fprintf(stderr, "feedrate sweep: out of memory\n");
			ret = FR_EXIT_ENV;
			goto out_sig;
		}
		for (size_t i = 0; i < s->npts; i++)
			pts[i] = s->pts[i].rp;
		s->rs.points = pts;
		s->rs.npoints = s->npts;
		lru_estimates(s);
		shapes_fill(s);
		rpt_sweep_verdict(&s->rs);
		rpt_sweep_print(out, &s->rs);
		fflush(out);
		ret = write_reports(s) ? FR_EXIT_ENV : FR_EXIT_OK;
		free(pts);
		s->rs.points = NULL;
	}
	if (sweep_stop)
		ret = exit_for_signal(sweep_stop);
	else if (ret == FR_EXIT_OK && s->errors_seen)
		ret = FR_EXIT_SAMPLE_ERRORS;
out_sig:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
out_free:
	ms_dataset_close("sweep", &s->md, s->o.c.keep);
	if (s->md.gen_dir[0] && s->o.c.keep) {
		fprintf(stderr, "feedrate sweep: the generated dataset was "
			"kept: ");
		ms_print_path(stderr, s->md.gen_dir);
		fputc('\n', stderr);
	}
	state_free(s);
	free(s);
	return ret;
}
