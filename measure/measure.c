/*
 * measure.c - what every measurement starts from: the dataset (given, or
 * a generated default on a disk-backed filesystem), the filesystem under
 * it, and the GPUs it is judged against.
 *
 * Single-threaded (the generator starts and joins its own threads).
 * Nothing here prints: failures come back as -errno with WHY.
 */
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "measure.h"


#define MS_TMPFS_MAGIC 0x01021994
#define MS_RAMFS_MAGIC 0x858458f6

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
		k = snprintf(why + used, why_len - used, "%s%s: %s",
			     used ? "; " : "", c, no);
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
				 "letters, digits, '.', '_' and '-'", spec);
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

int ms_gpus_resolve(const struct wl_workload *w, const char *spec,
		    enum wl_demand_kind kind, double rate,
		    struct ms_gpus *out, char *why, size_t why_len)
{
	struct wl_gpu_spec gs;
	int err = 0;

	memset(out, 0, sizeof(*out));
	why[0] = '\0';
	if (w->xform == WL_XFORM_TOKENS)
		out->tokens_per_sample = w->xp.seq_len;
	if (!spec)
		spec = "1";
	for (const char *p = spec; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) {
			snprintf(why, why_len, "--gpus '%s': a GPU name is "
				 "letters, digits, '.', '_' and '-'", spec);
			return -EINVAL;
		}
	err = wl_gpu_spec_parse(w, spec, kind, &gs, why, why_len);
	if (!err) {
		out->count = gs.count;
		out->type_given = gs.type_given;
		out->row = gs.row;
	} else if (rate > 0 && (err == -ENOENT || err == -ENODATA)) {
		/* with --gpu-rate a GPU the table lacks will do */
		err = gpus_fallback(w, spec, spec, out, why, why_len);
	}
	if (err)
		return err == -ENOMEM ? err : -EINVAL;
	if (rate > 0) {
		if (out->row)
			snprintf(out->type, sizeof(out->type), "%s",
				 out->type_given ? out->row->gpu : "GPU");
		out->detail = "user-given rate";
		out->demand = out->demand_single = rate;
		out->demand_total = out->count * rate;
		out->demand_basis = "gpu-rate";
		out->demand_kind = "gpu-rate";
		out->demand_source = "--gpu-rate (given on the command line)";
		out->default_type = false;
		return 0;
	}
	snprintf(out->type, sizeof(out->type), "%s", out->row->gpu);
	out->detail = out->row->gpu_detail;
	out->demand_single = out->row->samples_per_s;
	out->demand_total = wl_demand_total(out->row, out->count,
					    &out->demand_multi_measured);
	/* per GPU at the asked count: 8 GPUs that together eat less than
	 * 8 x one GPU each eat their share of the measured total */
	out->demand = out->count ? out->demand_total / out->count :
		      out->demand_single;
	out->demand_basis = wl_demand_basis_name(out->row->basis);
	out->demand_range_lo = out->row->range_lo;
	out->demand_range_hi = out->row->range_hi;
	out->demand_kind = wl_demand_kind_name(out->row->kind);
	out->demand_source = out->row->source;
	out->demand_est = out->row->basis == WL_BASIS_ESTIMATE;
	out->default_type = !out->type_given;
	return 0;
}

/* ---- the dataset ---- */

struct gen_progress_arg {
	const struct ms_dataset_opts *o;
};

static void gen_progress(void *arg, const struct wl_gen_stats *st, bool done)
{
	const struct ms_dataset_opts *o = ((struct gen_progress_arg *)arg)->o;

	o->progress(o->progress_arg, st->bytes, st->bytes_target, done);
}

static int generate(const struct ms_dataset_opts *o, struct ms_dataset *md,
		    char *why, size_t why_len)
{
	const uint64_t size = o->gen_size ? o->gen_size : MS_DEFAULT_GEN;
	struct gen_progress_arg pa = { o };
	struct wl_gen_opts go = { 0 };
	struct wl_gen_stats st;
	char rejected[1024], errpath[4096] = "";
	const char *parent;
	double t0;
	int err;

	if (!o->w->gen) {
		snprintf(why, why_len, "workload %s has no generator: give a "
			 "DATASET", o->w->name);
		return -ENOTSUP;
	}
	parent = pick_tmp_parent(o->tmpdir, size, rejected, sizeof(rejected));
	if (!parent) {
		snprintf(why, why_len, "no disk-backed folder to generate a "
			 "%.0f MB dataset in (%s); give a DATASET or --tmpdir",
			 size / 1e6, rejected);
		return -ENOSPC;
	}
	snprintf(md->gen_dir, sizeof(md->gen_dir), "%s/feedrate-%s.XXXXXX",
		 parent, o->tag ? o->tag : "data");
	if (!mkdtemp(md->gen_dir)) {
		err = -errno;
		snprintf(why, why_len, "cannot make a folder under %s: %s",
			 parent, strerror(-err));
		md->gen_dir[0] = '\0';
		return err;
	}
	go.size_bytes = size;
	go.seed = o->seed;
	go.jobs = stg_cpus_usable();
	if (go.jobs > WL_GEN_MAX_JOBS)
		go.jobs = WL_GEN_MAX_JOBS;
	if (o->progress) {
		go.progress = gen_progress;
		go.progress_arg = &pa;
	}
	go.stop = o->stop;
	go.err_path = errpath;
	go.err_path_len = sizeof(errpath);
	t0 = stg_now();
	err = o->w->gen->generate(o->w, md->gen_dir, &go, &st);
	md->gen_s = stg_now() - t0;
	if (err == -EINTR || (o->stop && *o->stop)) {
		snprintf(why, why_len, "interrupted while generating the "
			 "dataset; nothing was measured");
		return -EINTR;
	}
	if (err) {
		snprintf(why, why_len, "generating the dataset in %s failed: "
			 "%s", md->gen_dir, strerror(-err));
		return err;
	}
	return 0;
}

int ms_dataset_open(const struct ms_dataset_opts *o, struct ms_dataset *md,
		    char *why, size_t why_len)
{
	const char *shown;
	double t0;
	int err;

	memset(md, 0, sizeof(*md));
	why[0] = '\0';
	if (!o->dataset) {
		err = generate(o, md, why, why_len);
		if (err)
			return err;
		md->root = md->gen_dir;
	} else {
		md->root = o->dataset;
	}
	ms_opened_dataset(md->root, NULL);     /* for the watchdog */
	{
		/* its filesystem too, watched: it may be what stalls */
		struct stg_fs_info fs;
		const char *type;
		char dev[256];

		stg_watch_phase(STG_PHASE_LISTING);
		stg_watch_begin(".");
		ms_fs_describe(md->root, &fs, &type, dev, sizeof(dev));
		stg_watch_end();
	}
	t0 = stg_now();
	md->format = o->list ? WL_FORMAT_FOLDER : o->format;
	if (md->format == WL_FORMAT_AUTO) {
		/* it looks into the folder: watched, as the listing is */
		stg_watch_begin(".");
		err = wl_format_detect(md->root, &md->format, md->format_why,
				       sizeof(md->format_why));
		stg_watch_end();
		if (err) {
			snprintf(why, why_len, "cannot list %s: %s", md->root,
				 strerror(-err));
			return err;
		}
		/* no shards seen: a token workload's streams (a folder of
		 * images stays one: resnet50 reads an ImageFolder too) */
		if (md->format == WL_FORMAT_FOLDER && o->w &&
		    o->w->format == WL_FORMAT_TOKENS) {
			md->format = (enum wl_format)o->w->format;
			snprintf(md->format_why, sizeof(md->format_why),
				 "workload %s's format", o->w->name);
		}
	} else {
		snprintf(md->format_why, sizeof(md->format_why), "%s",
			 o->list ? "--list names image files" : "--format");
	}
	if (!wl_format_can(md->format, WL_CAP_FILES)) {
		stg_watch_phase(STG_PHASE_LISTING);
		err = wl_shardset_open(md->root, md->format, &o->shard,
				       &md->shards, why, why_len);
		md->list_s = stg_now() - t0;
		if (err && !why[0])
			snprintf(why, why_len, "cannot open %s as %s: %s",
				 md->root, wl_format_name(md->format),
				 err < -4096 ? "format error" : strerror(-err));
		if (!err) {
			md->ds = md->shards->ds;
			ms_opened_dataset(NULL, md);
		}
		return err;
	}
	stg_watch_phase(STG_PHASE_LISTING);
	if (o->list)
		err = stg_dataset_load_list(o->list, md->root, NULL, &md->ds);
	else
		err = stg_dataset_scan(md->root, NULL, &md->ds);
	md->list_s = stg_now() - t0;
	shown = o->list ? o->list : md->root;
	if (err) {
		snprintf(why, why_len, "cannot list %s: %s", shown,
			 strerror(-err));
		return err;
	}
	if (!stg_dataset_count(md->ds)) {
		snprintf(why, why_len, "no files in %s", shown);
		return -ENODATA;
	}
	ms_opened_dataset(NULL, md);
	return 0;
}

int ms_dataset_close(struct ms_dataset *md, bool keep)
{
	int err = 0;

	if (md->shards)
		wl_shardset_free(md->shards);   /* it owns the listing */
	else
		stg_dataset_destroy(md->ds);
	md->shards = NULL;
	md->ds = NULL;
	if (md->gen_dir[0] && !keep)
		err = ms_rm_tree(md->gen_dir);
	return err;
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
	ms_opened_fs(root, *fs_type, dev);
}


void ms_machine_detect(const char *root, struct ms_machine *m)
{
	memset(m, 0, sizeof(*m));
	stg_detect_cpu(0, &m->cpu);
	stg_detect_mem(&m->mem);
	stg_detect_dmi(&m->dmi);
	stg_detect_gpus(&m->gpus);
	ms_fs_describe(root, &m->fs, &m->fs_type, m->fs_device,
		       sizeof(m->fs_device));
	m->vcpus_usable = stg_cpus_usable();
}
