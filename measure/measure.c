/*
 * measure.c - the parts of a measurement that `run` and `sweep` share:
 * the dataset (given or generated), the page-cache state, the memory
 * cgroup of a --ram point, one point in a pinned child, the hit ratio,
 * and the sweep's budget rule.
 *
 * DESIGN
 * Everything here runs in the command's single thread. The generator
 * starts and joins its own threads inside ms_dataset_open; a point's
 * threads live in the forked child ldr_run_pinned makes, which pins
 * itself (and its io_uring workers) before it creates any. The caller's
 * stop flag is set by its signal handler and read here between steps.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "measure.h"
#include "report.h"

#define MS_TMPFS_MAGIC 0x01021994
#define MS_RAMFS_MAGIC 0x858458f6

double ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

unsigned ms_usable_cpus(void)
{
	struct stg_cpu_info ci;
	cpu_set_t set;
	unsigned n = 1;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = (unsigned)CPU_COUNT(&set);
	/* a cgroup quota below the mask is what the VM really has */
	if (stg_detect_cpu(0, &ci) == 0 && ci.quota_cpus > 0 &&
	    ci.quota_cpus < n)
		n = ci.quota_cpus >= 1 ? (unsigned)ci.quota_cpus : 1;
	return n ? n : 1;
}

void ms_print_path(FILE *f, const char *p)
{
	char *t = rpt_path_text(p, strlen(p));

	fputs(t ? t : "?", f);
	free(t);
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) ? -errno : 0;
	return unlink(path) ? -errno : 0;
}

int ms_rm_tree(const char *dir)
{
	return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * A folder under which a dataset of NEED bytes can be generated: on a
 * disk-backed filesystem (not tmpfs/ramfs, where nothing can be cold),
 * writable, with room for it. Fills WHY with what was rejected.
 */
static const char *pick_tmp_parent(const char *asked, uint64_t need,
				   char *why, size_t why_len)
{
	const char *cand[4] = { "/var/tmp", getenv("TMPDIR"), "/tmp", "." };
	size_t n = 4, used = 0;

	why[0] = '\0';
	if (asked) {
		cand[0] = asked;
		n = 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct statfs sf;
		const char *c = cand[i], *no = NULL;
		int k;

		if (!c || !*c)
			continue;
		if (statfs(c, &sf))
			no = strerror(errno);
		else if ((uint64_t)sf.f_type == MS_TMPFS_MAGIC ||
			 (uint64_t)sf.f_type == MS_RAMFS_MAGIC)
			no = "memory-backed (tmpfs), nothing there can be cold";
		else if (access(c, W_OK | X_OK))
			no = "not writable";
		else if ((uint64_t)sf.f_bavail * (uint64_t)sf.f_bsize <
			 need + need / 10 + (64u << 20))
			no = "not enough free space";
		if (!no)
			return c;
		{
			/* a --tmpdir is the user's bytes: print them safely */
			char *t = rpt_path_text(c, strlen(c));

			k = snprintf(why + used, why_len - used, "%s%s: %s",
				     used ? "; " : "", t ? t : "?", no);
			free(t);
		}
		if (k > 0 && (size_t)k < why_len - used)
			used += (size_t)k;
	}
	return NULL;
}

/* ---- the GPUs judged against ---- */

/* Is C allowed in a --gpu-rate GPU name? */
static bool gpu_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-';
}

/* Does W have a row, of any kind, for the GPU NAME? */
static bool gpu_in_table(const struct wl_workload *w, const char *name)
{
	return wl_demand_find(w, name, WL_DEMAND_TRAIN) ||
	       wl_demand_find(w, name, WL_DEMAND_MLPERF);
}

/*
 * The --gpu-rate fallback for a GPU the table lacks: SPEC as COUNT,
 * NAME or COUNTxNAME into *OUT. Returns 0, or -EINVAL with WHY set.
 */
static int gpus_fallback(const struct wl_workload *w, const char *spec,
			 const char *shown, struct ms_gpus *out, char *why,
			 size_t why_len)
{
	const char *p = spec, *name;
	unsigned long n = 0;
	bool sep = false;
	size_t len;

	while (isdigit((unsigned char)*p) && n <= WL_GPUS_MAX)
		n = n * 10 + (unsigned long)(*p++ - '0');
	if (n > WL_GPUS_MAX) {
		snprintf(why, why_len, "--gpus '%s': at most %u GPUs", shown,
			 WL_GPUS_MAX);
		return -EINVAL;
	}
	if (p == spec)
		n = 1;
	else if (*p == 'x' || *p == 'X' || *p == '*') {
		p++;
		sep = true;
	} else if (*p) {
		snprintf(why, why_len, "--gpus '%s': expected COUNTxGPU (e.g. "
			 "4xMYGPU), GPU or COUNT", shown);
		return -EINVAL;
	}
	name = p;
	len = strlen(name);
	if (sep && !len) {
		snprintf(why, why_len, "--gpus '%s': no GPU name after the "
			 "count", shown);
		return -EINVAL;
	}
	for (size_t i = 0; i < len; i++)
		if (!gpu_name_char(name[i])) {
			snprintf(why, why_len, "--gpus '%s': a GPU name is "
				 "letters, digits, '.', '_' and '-'", shown);
			return -EINVAL;
		}
	if (len > MS_GPU_NAME_MAX) {
		snprintf(why, why_len, "--gpus '%s': a GPU name has at most %d "
			 "characters", shown, MS_GPU_NAME_MAX);
		return -EINVAL;
	}
	if (len == 1 && (name[0] == 'x' || name[0] == 'X')) {
		snprintf(why, why_len, "--gpus '%s': no GPU count or name (e.g. "
			 "4xMYGPU)", shown);
		return -EINVAL;
	}
	if (len > 1 && (name[len - 1] == 'x' || name[len - 1] == 'X')) {
		char base[MS_GPU_NAME_MAX + 1];

		memcpy(base, name, len - 1);
		base[len - 1] = '\0';
		if (gpu_in_table(w, base)) {
			snprintf(why, why_len, "--gpus '%s': a stray '%c' after "
				 "the GPU name %s?", shown, name[len - 1],
				 base);
			return -EINVAL;
		}
	}
	out->count = (unsigned)n;
	out->type_given = len > 0;
	out->row = NULL;
	snprintf(out->type, sizeof(out->type), "%s", len ? name : "GPU");
	return 0;
}

int ms_gpus_resolve(const char *cmd, const struct wl_workload *w,
		    const char *spec, enum wl_demand_kind kind, double rate,
		    struct ms_gpus *out)
{
	struct wl_gpu_spec gs;
	char why[768], *shown;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!spec)
		spec = "1";
	shown = rpt_path_text(spec, strlen(spec));
	if (!shown) {
		fprintf(stderr, "feedrate %s: out of memory\n", cmd);
		return FR_EXIT_ENV;
	}
	for (const char *p = spec; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) {
			err = cli_usage_error(cmd, "--gpus '%s': a GPU name is "
					      "letters, digits, '.', '_' and "
					      "'-'", shown);
			goto out;
		}
	err = wl_gpu_spec_parse(w, spec, kind, &gs, why, sizeof(why));
	if (!err) {
		out->count = gs.count;
		out->type_given = gs.type_given;
		out->row = gs.row;
	} else if (rate > 0 && (err == -ENOENT || err == -ENODATA)) {
		/* with --gpu-rate a GPU the table lacks will do */
		err = gpus_fallback(w, spec, shown, out, why, sizeof(why));
	}
	if (err) {
		err = cli_usage_error(cmd, "%s", why);
		goto out;
	}
	if (rate > 0) {
		if (out->row)
			snprintf(out->type, sizeof(out->type), "%s",
				 out->type_given ? out->row->gpu : "GPU");
		out->detail = "user-given rate";
		out->demand = rate;
		out->demand_kind = "gpu-rate";
		out->demand_source = "--gpu-rate (given on the command line)";
		out->default_type = false;
		goto out;
	}
	snprintf(out->type, sizeof(out->type), "%s", out->row->gpu);
	out->detail = out->row->gpu_detail;
	out->demand = out->row->samples_per_s;
	out->demand_kind = wl_demand_kind_name(out->row->kind);
	out->demand_source = out->row->source;
	out->demand_est = out->row->est;
	out->default_type = !out->type_given;
out:
	free(shown);
	return err;
}

struct gen_progress_arg {
	const char *cmd;
	double last;
};

static void gen_progress(void *arg, const struct wl_gen_stats *st, bool done)
{
	struct gen_progress_arg *a = arg;
	const double t = ms_now();

	if (!done && t - a->last < 0.2)
		return;
	a->last = t;
	fprintf(stderr, "\r\033[Kfeedrate %s: generating a dataset: %.0f of "
		"%.0f MB", a->cmd, st->bytes / 1e6, st->bytes_target / 1e6);
	if (done)
		fputc('\n', stderr);
}

static int exit_for_signal(int sig)
{
	return sig == SIGTERM ? FR_EXIT_SIGTERM : FR_EXIT_SIGINT;
}

static int generate(const struct ms_dataset_opts *o, struct ms_dataset *md)
{
	const uint64_t size = o->gen_size ? o->gen_size : MS_DEFAULT_GEN;
	struct gen_progress_arg pa = { o->cmd, 0 };
	struct wl_gen_opts go = { 0 };
	struct wl_gen_stats st;
	char why[1024], errpath[4096] = "";
	const char *parent;
	double t0;
	int err;

	if (!o->w->gen) {
		fprintf(stderr, "feedrate %s: workload %s has no generator: "
			"give a DATASET\n", o->cmd, o->w->name);
		return FR_EXIT_USAGE;
	}
	parent = pick_tmp_parent(o->tmpdir, size, why, sizeof(why));
	if (!parent) {
		fprintf(stderr, "feedrate %s: no disk-backed folder to generate "
			"a %.0f MB dataset in (%s); give a DATASET or --tmpdir\n",
			o->cmd, size / 1e6, why);
		return FR_EXIT_ENV;
	}
	snprintf(md->gen_dir, sizeof(md->gen_dir), "%s/feedrate-%s.XXXXXX",
		 parent, o->cmd);
	if (!mkdtemp(md->gen_dir)) {
		fprintf(stderr, "feedrate %s: cannot make a folder under ",
			o->cmd);
		ms_print_path(stderr, parent);
		fprintf(stderr, ": %s\n", strerror(errno));
		md->gen_dir[0] = '\0';
		return FR_EXIT_ENV;
	}
	go.size_bytes = size;
	go.seed = o->seed;
	go.jobs = ms_usable_cpus();
	if (go.jobs > WL_GEN_MAX_JOBS)
		go.jobs = WL_GEN_MAX_JOBS;
	if (isatty(STDERR_FILENO)) {
		go.progress = gen_progress;
		go.progress_arg = &pa;
	}
	go.stop = o->stop;
	go.err_path = errpath;
	go.err_path_len = sizeof(errpath);
	t0 = ms_now();
	err = o->w->gen->generate(o->w, md->gen_dir, &go, &st);
	md->gen_s = ms_now() - t0;
	if (err == -EINTR || (o->stop && *o->stop)) {
		fprintf(stderr, "feedrate %s: interrupted while generating the "
			"dataset; nothing was measured\n", o->cmd);
		return exit_for_signal(o->stop ? *o->stop : SIGINT);
	}
	if (err) {
		fprintf(stderr, "feedrate %s: generating the dataset in ",
			o->cmd);
		ms_print_path(stderr, md->gen_dir);
		fprintf(stderr, " failed: %s\n", strerror(-err));
		return FR_EXIT_ENV;
	}
	return 0;
}

int ms_dataset_open(const struct ms_dataset_opts *o, struct ms_dataset *md)
{
	double t0;
	int err, ret;

	memset(md, 0, sizeof(*md));
	if (!o->dataset) {
		ret = generate(o, md);
		if (ret)
			return ret;
		md->root = md->gen_dir;
	} else {
		md->root = o->dataset;
	}
	t0 = ms_now();
	if (o->list)
		err = stg_dataset_load_list(o->list, md->root, NULL, &md->ds);
	else
		err = stg_dataset_scan(md->root, NULL, &md->ds);
	md->list_s = ms_now() - t0;
	if (err) {
		fprintf(stderr, "feedrate %s: cannot list ", o->cmd);
		ms_print_path(stderr, o->list ? o->list : md->root);
		fprintf(stderr, ": %s\n", strerror(-err));
		return FR_EXIT_ENV;
	}
	if (!stg_dataset_count(md->ds)) {
		fprintf(stderr, "feedrate %s: no files in ", o->cmd);
		ms_print_path(stderr, o->list ? o->list : md->root);
		fprintf(stderr, "\n");
		return FR_EXIT_ENV;
	}
	return 0;
}

void ms_dataset_close(const char *cmd, struct ms_dataset *md, bool keep)
{
	stg_dataset_destroy(md->ds);
	md->ds = NULL;
	if (md->gen_dir[0] && !keep && ms_rm_tree(md->gen_dir)) {
		fprintf(stderr, "feedrate %s: could not remove the temporary "
			"dataset ", cmd);
		ms_print_path(stderr, md->gen_dir);
		fputc('\n', stderr);
	}
}

void ms_fs_describe(const char *root, struct stg_fs_info *fs,
		    const char **fs_type, char *dev, size_t dev_len)
{
	*fs_type = "";
	dev[0] = '\0';
	memset(fs, 0, sizeof(*fs));
	if (stg_detect_fs(root, fs))
		return;
	*fs_type = fs->have_mount ? fs->mount.fstype : fs->fs_family;
	if (fs->have_blockdev)
		snprintf(dev, dev_len, "%s%s%s", fs->blockdev.name,
			 fs->blockdev.model[0] ? ": " : "",
			 fs->blockdev.model);
}

/* ---- cache state ---- */

void ms_cache_prepare(const struct stg_dataset *ds, enum ms_cache c,
		      bool already_warm_ok, struct ms_cache_prep *out)
{
	struct stg_cache_probe probe;
	struct stg_ds_residency dr;
	const struct stg_cache_probe *pp = NULL;
	const size_t n = stg_dataset_count(ds);
	const double t0 = ms_now();
	uint64_t errs = 0;
	size_t first = 0;
	bool skip = false;
	int dirfd, err = 0;

	memset(out, 0, sizeof(*out));
	out->fraction = -1;
	if (c == MS_CACHE_WARM && already_warm_ok) {
		/* a sweep's warm points after the first: re-read only when
		 * the dataset no longer is resident */
		stg_cache_dataset_residency(ds, MS_RESIDENCY_FILES, NULL, &dr);
		skip = dr.known && dr.fraction >= 0.99;
	}
	/* does evicting and warming work here at all? one file tells */
	while (!skip && first < n && stg_dataset_size(ds, first) == 0)
		first++;
	dirfd = skip ? -1 : open(stg_dataset_root(ds), O_RDONLY |
				 O_DIRECTORY | O_CLOEXEC);
	if (first < n && dirfd >= 0 &&
	    stg_cache_probe(dirfd, stg_dataset_relpath(ds, first, NULL),
			    &probe) == 0)
		pp = &probe;
	if (dirfd >= 0)
		close(dirfd);

	if (skip)
		err = 0;
	else if (c == MS_CACHE_WARM)
		err = stg_cache_dataset_warm(ds, &errs);
	else
		err = stg_cache_dataset_evict(ds, &errs);
	if (err)
		snprintf(out->note, sizeof(out->note), "the page cache could "
			 "not be prepared (%s)", strerror(-err));
	else if (errs)
		snprintf(out->note, sizeof(out->note), "%llu files could not "
			 "be %s", (unsigned long long)errs,
			 c == MS_CACHE_WARM ? "warmed" : "evicted");
	stg_cache_dataset_residency(ds, MS_RESIDENCY_FILES, pp, &dr);
	if (dr.known)
		out->fraction = dr.fraction;
	out->evict_ineffective = pp && pp->evict == STG_EVICT_INEFFECTIVE;
	out->warm_refetch = pp && pp->warm == STG_WARM_REFETCH_ON_OPEN;

	switch (c) {
	case MS_CACHE_COLD:
		snprintf(out->how, sizeof(out->how), "every file evicted "
			 "before the run, then read with O_DIRECT so that later "
			 "epochs stay cold%s", out->evict_ineffective ?
			 "; eviction is INEFFECTIVE on this filesystem" : "");
		break;
	case MS_CACHE_WARM:
		snprintf(out->how, sizeof(out->how), "every file read once "
			 "before the run%s%s", out->warm_refetch ? "; but this "
			 "filesystem drops the cache at each open, so the run "
			 "cannot be warm" : "",
			 dr.known && dr.fraction < 0.99 ? "; NOT all of it "
			 "stayed resident (the dataset is larger than the page "
			 "cache can hold)" : "");
		break;
	case MS_CACHE_RAM:
		snprintf(out->how, sizeof(out->how), "every file evicted "
			 "before the run");
		break;
	}
	out->prep_s = ms_now() - t0;
}

int ms_ram_cgroup(uint64_t limit, struct ldr_memcg **cg, char *how,
		  size_t how_len)
{
	char why[256];
	int err = ldr_memcg_create(limit, cg, why, sizeof(why));

	if (!err) {
		snprintf(how, how_len, "dataset evicted, then run inside a "
			 "memory cgroup (v%d) limited to this size, so the page "
			 "cache can hold no more (the run's own memory, batch "
			 "slots and read buffers, counts against it too)",
			 ldr_memcg_version(*cg));
		return 0;
	}
	*cg = NULL;
	snprintf(how, how_len, "no memory cgroup could be made (%s): the run's "
		 "page cache was NOT limited, so samples/s is an upper bound; "
		 "the hit ratio is estimated", why);
	return err;
}

/* ---- one point ---- */

void ms_point_config(const struct ms_point *p, struct ldr_config *cfg)
{
	const uint64_t maxsz = stg_dataset_max_size(p->ds);

	memset(cfg, 0, sizeof(*cfg));
	cfg->ds = p->ds;
	cfg->reader.backend = p->backend;
	cfg->reader.depth = p->depth;
	cfg->reader.max_sample_bytes = maxsz && maxsz < p->max_sample_bytes ?
		maxsz : p->max_sample_bytes;
	cfg->reader.direct = p->cache == MS_CACHE_COLD;
	cfg->readers = p->readers;
	cfg->workers = p->workers;
	cfg->batch = p->batch;
	cfg->transform = p->transform;
	cfg->seed = p->seed;
	cfg->rank = 0;
	cfg->world = 1;
	cfg->gpus = p->gpus;
	cfg->gpu_rate = p->gpu_rate;
	cfg->gpu_sync = p->sync;
	cfg->au_threshold = p->au_threshold;
	cfg->warmup_s = p->warmup_s;
	cfg->duration_s = p->duration_s;
	cfg->epochs = p->epochs;
	cfg->samples = p->samples;
	cfg->max_errors = p->max_errors;
	cfg->stop = p->stop;
	/* one read in ten is probed for residency first: a cachestat (or
	 * mincore) and an extra open, small beside a decode, and enough
	 * probes for a hit ratio in a short run */
	cfg->probe_fraction = 0.1;
	/* auto: measure both backends in the child, at this point's depth
	 * and cache state (cold and --ram points start evicted) */
	cfg->probe_backend = true;
	cfg->backend_probe.evict = p->cache != MS_CACHE_WARM;
}

int ms_point_measure(const struct ms_point *p, struct ldr_result *res,
		     struct ms_point_out *out)
{
	struct ldr_config cfg;
	int err;

	memset(out, 0, sizeof(*out));
	ms_point_config(p, &cfg);
	err = ldr_run_pinned(&cfg, p->cpus, p->memcg, res, &out->rep);
	out->err = err;
	out->started = true;
	if (err) {
		snprintf(out->err_text, sizeof(out->err_text), "%s%s%s",
			 err == -ENODATA ? "no sample to read" : strerror(-err),
			 out->rep.why[0] ? ": " : "", out->rep.why);
		/* did the run start at all? */
		if (!res->backend[0] && !res->samples && !res->errors &&
		    res->measured_s <= 0) {
			out->started = false;
			return err;
		}
	}
	return 0;
}

double ms_hit_ratio(const struct stg_dataset *ds, uint64_t seed,
		    uint64_t ram, bool estimated, const struct ldr_result *res,
		    char *src, size_t src_len)
{
	src[0] = '\0';
	if (estimated) {
		struct ldr_lru_estimate est;
		const uint64_t ep = res->epochs_done > 2 ? res->epochs_done : 2;

		if (ldr_lru_estimate_run(ds, seed, 0, 1, false, ep, ram,
					 &est))
			return -1;
		snprintf(src, src_len, "estimated: LRU simulation of this run's "
			 "access order over %llu epochs; first epoch %.1f %%, "
			 "steady %.1f %%", (unsigned long long)est.epochs,
			 est.first_epoch * 100, est.steady * 100);
		return est.steady;
	}
	if (!res->probed_bytes)
		return -1;
	if (res->probed_reads < MS_MIN_PROBES) {
		snprintf(src, src_len, "too few probes: %llu read%s probed with "
			 "%s in the measured window, at least %u needed",
			 (unsigned long long)res->probed_reads,
			 res->probed_reads == 1 ? "" : "s",
			 res->probe_method[0] ? res->probe_method : "?",
			 MS_MIN_PROBES);
		return -1;
	}
	snprintf(src, src_len, "measured: %llu reads probed with %s before "
		 "they were issued, in the measured window",
		 (unsigned long long)res->probed_reads,
		 res->probe_method[0] ? res->probe_method : "?");
	return (double)res->probed_hit_bytes / (double)res->probed_bytes;
}

bool ms_ram_limited(uint64_t asked, uint64_t seen)
{
	if (!seen)
		return true;
	return (double)seen <= MS_RAM_SLACK * (double)asked;
}

/* ---- the budget rule ---- */

/* Index of the point to drop next: most vCPUs, then the later cache. */
static size_t next_to_drop(const struct ms_plan_point *p, size_t n)
{
	size_t best = n;

	for (size_t i = 0; i < n; i++) {
		if (p[i].dropped)
			continue;
		if (best == n || p[i].vcpus > p[best].vcpus ||
		    (p[i].vcpus == p[best].vcpus && p[i].cache > p[best].cache))
			best = i;
	}
	return best;
}

double ms_plan_budget(struct ms_plan_point *p, size_t n, unsigned nconfirm,
		      double confirm_s, double left_s, double min_point_s,
		      unsigned *confirm_kept)
{
	size_t kept = 0;
	double avail;

	for (size_t i = 0; i < n; i++)
		kept += !p[i].dropped;
	*confirm_kept = nconfirm;
	if (!kept) {
		*confirm_kept = 0;
		return 0;
	}
	avail = left_s - nconfirm * confirm_s;
	if (avail / kept < min_point_s) {
		/* the checks go before any point does */
		*confirm_kept = 0;
		avail = left_s;
	}
	while (kept > 1 && avail / kept < min_point_s) {
		p[next_to_drop(p, n)].dropped = true;
		kept--;
	}
	return avail > 0 ? avail / kept : 0;
}

size_t ms_ram_sample_files(size_t n_files, double rate, double window_s,
			   unsigned epochs, size_t min_files)
{
	double fit;

	if (rate <= 0 || window_s <= 0 || !epochs)
		return n_files;
	fit = rate * window_s / (epochs * 1.1);
	if (fit >= (double)n_files)
		return n_files;
	if (fit < (double)min_files)
		return min_files < n_files ? min_files : n_files;
	return (size_t)fit;
}

/* ---- the options run and sweep share ---- */

int ms_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

void ms_common_defaults(struct ms_common_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->workload = "imagenet";
	o->demand = WL_DEMAND_TRAIN;
	o->sync = LDR_GPU_SYNC_ALL;
	o->readers = 1;
	o->depth = 32;
	o->seed = 1;
	o->backend_text = "auto";
	o->max_sample_bytes = 64ull << 20;
	o->gen_size = MS_DEFAULT_GEN;
}

int ms_parse_common(const char *cmd, int c, const char *arg,
		    struct ms_common_opts *o)
{
	unsigned long ul;
	uint64_t u;
	char *end;

	switch (c) {
	case 'w':
		o->workload = arg;
		return 1;
	case 'g':
		o->gpus = arg;
		return 1;
	case MS_OPT_GPU_RATE:
		errno = 0;
		o->gpu_rate = strtod(arg, &end);
		if (errno || end == arg || *end ||
		    !(o->gpu_rate > 0) || !isfinite(o->gpu_rate))
			return cli_usage_error(cmd, "--gpu-rate wants "
				"samples/s > 0, not '%s'", arg);
		return 1;
	case MS_OPT_DEMAND:
		if (!strcasecmp(arg, "tuned") || !strcasecmp(arg, "train"))
			o->demand = WL_DEMAND_TRAIN;
		else if (!strcasecmp(arg, "mlperf"))
			o->demand = WL_DEMAND_MLPERF;
		else
			return cli_usage_error(cmd, "--demand wants tuned or "
				"mlperf, not '%s'", arg);
		return 1;
	case MS_OPT_SYNC:
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
	case MS_OPT_READERS:
		if (cli_parse_ulong(arg, 1, 256, &ul))
			return cli_usage_error(cmd, "--readers wants 1..256, "
				"not '%s'", arg);
		o->readers = (unsigned)ul;
		return 1;
	case MS_OPT_SEED:
		if (ms_parse_u64(arg, &o->seed))
			return cli_usage_error(cmd, "bad --seed '%s'", arg);
		return 1;
	case MS_OPT_MAXERR:
		if (ms_parse_u64(arg, &o->max_errors) || !o->max_errors)
			return cli_usage_error(cmd, "--max-errors wants a "
				"count >= 1, not '%s'", arg);
		return 1;
	case MS_OPT_BACKEND:
		if (stg_backend_parse(arg, &o->backend))
			return cli_usage_error(cmd, "unknown backend '%s' "
				"(auto, uring, psync)", arg);
		if (o->backend == STG_BACKEND_NULL)
			return cli_usage_error(cmd, "the null backend has no "
				"image bytes to decode; it is for 'feedrate "
				"io' and engine tests");
		o->backend_text = arg;
		return 1;
	case MS_OPT_DEPTH:
		if (cli_parse_ulong(arg, 1, 4096, &ul))
			return cli_usage_error(cmd, "--depth wants 1..4096, "
				"not '%s'", arg);
		o->depth = (unsigned)ul;
		return 1;
	case MS_OPT_MAXBYTES:
		if (cli_parse_size(arg, &u) || u < 4096 || u > (16ull << 30))
			return cli_usage_error(cmd, "bad --max-sample-bytes "
				"'%s' (4K..16G)", arg);
		o->max_sample_bytes = u;
		return 1;
	case MS_OPT_LIST:
		o->list = arg;
		return 1;
	case MS_OPT_JSON:
		o->json = arg;
		return 1;
	case MS_OPT_KEEP:
		o->keep = true;
		return 1;
	case MS_OPT_TMPDIR:
		o->tmpdir = arg;
		return 1;
	case MS_OPT_GENSIZE:
		if (cli_parse_size(arg, &o->gen_size) ||
		    o->gen_size < (1u << 20))
			return cli_usage_error(cmd, "--gen-size wants a size "
				"of at least 1M, not '%s'", arg);
		return 1;
	default:
		return 0;
	}
}

int ms_parse_bad(const char *cmd, int c, char **argv)
{
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value",
				       argv[optind - 1]);
	return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int ms_parse_dataset(const char *cmd, int argc, char **argv,
		     struct ms_common_opts *o)
{
	if (optind + 1 < argc)
		return cli_usage_error(cmd, "one DATASET only");
	o->dataset = optind < argc ? argv[optind] : NULL;
	if (o->list && !o->dataset)
		return cli_usage_error(cmd, "--list needs the DATASET folder "
				       "its relative paths start from");
	return 0;
}
