/*
 * measure_point.c - one measurement point: its vCPUs, its cache state made
 * and verified, the one --ram protocol (a memory cgroup of the page cache
 * asked plus the run's own memory, measured on a fill epoch), the run in
 * its pinned child, and the hit ratio.
 *
 * DESIGN
 * Single-threaded: the measurement's threads live in the child
 * ldr_run_pinned forks, pinned before it creates any; this file only
 * prepares, waits and reads results. The caller's stop flag (set by its
 * signal handler) is forwarded to the child by the loader and checked
 * here between the fill epoch and the measured run.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "measure_internal.h"


#define MS_FUSE_MAGIC 0x65735546u     /* statfs(2) f_type of FUSE */
#define MS_OVERHEAD_S 1.5               /* child start, residency, exit */
#define MS_MIN_WINDOW_S 3.0             /* a budgeted window, at least */
#define MS_RAM_EPOCHS 2                 /* measured epochs of a ram point */
#define MS_RAM_RECAL 0.25               /* page cache this far off the
                                           asked size after the fill:
                                           recalibrate the limit */

/* ---- the page-cache state ---- */

/*
 * Does the filesystem under DIRFD take O_DIRECT for NAME? Opens it once
 * with O_DIRECT, as the reader would. Returns 1 refused (WHY says by
 * which filesystem), 0 taken, -errno when the file could not be opened
 * at all (nothing learnt).
 */
static int odirect_probe(int dirfd, const char *root, const char *name,
			 char *why, size_t why_len)
{
	struct stg_fs_info fs;
	const char *fs_type;
	char dev[STG_TEXT_MAX + 80];
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECT | O_CLOEXEC |
			O_NOCTTY);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno != EINVAL)
		return -errno;
	/* the reader falls back on exactly this (storage/backend.c) */
	ms_fs_describe(root, &fs, &fs_type, dev, sizeof(dev));
	snprintf(why, why_len, "O_DIRECT is refused by %s%s (open: EINVAL): "
		 "the reads went through the page cache",
		 fs_type[0] ? "the filesystem " : "this filesystem",
		 fs_type[0] ? fs_type : "");
	return 1;
}

/* The words for how a cold point's state was made, into OUT->how;
 * BUFFERED says why the reads go through the page cache (where
 * OUT->odirect_refused). */
static void cold_how(struct ms_cache_prep *out, const char *buffered)
{
	snprintf(out->how, sizeof(out->how), "every file evicted before the "
		 "run%s, then %s%s%s%s", out->reused ? " (already: the last "
		 "eviction held through O_DIRECT reads, a sample found it "
		 "evicted)" : "", out->odirect_refused ? "read through "
		 "the page cache because " : "read with O_DIRECT so that later "
		 "epochs stay cold", out->odirect_refused ? buffered : "",
		 out->odirect_refused ? ", so later epochs may be served from "
		 "it (the measured hit ratio says whether the point stayed "
		 "cold)" : "", out->evict_ineffective ?
		 "; eviction is INEFFECTIVE on this filesystem" : "");
}

void ms_prep_phases_add(struct ms_prep_phases *a,
			const struct ms_prep_phases *b)
{
	a->evict_s += b->evict_s;
	a->warm_s += b->warm_s;
	a->verify_s += b->verify_s;
	a->files += b->files;
	a->verify_sample += b->verify_sample;
	if (b->verify_bound > a->verify_bound)
		a->verify_bound = b->verify_bound;
	a->reused += b->reused;
}

/*
 * Is residency measurable on DS after an open? The probe of one file
 * says (PP), else every filesystem but FUSE, whose open() may drop what
 * it is asked to measure.
 */
static bool residency_known(const struct stg_dataset *ds,
			    const struct stg_cache_probe *pp)
{
	struct statfs sf;
	bool known = true;
	int fd;

	if (pp)
		return pp->warm == STG_WARM_PERSISTS ||
		       pp->warm == STG_WARM_NOT_CACHED;
	stg_watch_begin(stg_dataset_count(ds) ? stg_dataset_relpath(ds, 0,
			NULL) : NULL);
	fd = stg_dataset_open(ds, 0, O_RDONLY);
	if (fd >= 0) {
		if (fstatfs(fd, &sf) == 0 && sf.f_type == MS_FUSE_MAGIC)
			known = false;
		close(fd);
	}
	stg_watch_end();
	return known;
}

/*
 * The verification: the mean resident share of a random sample of DS's
 * files (every file when no more than the sample size), into *FRACTION
 * (< 0 when no file could be checked), timed into PH. Returns 0 or
 * -errno.
 */
static int verify_sample(const struct stg_dataset *ds,
			 const struct ms_prep_ctl *ctl,
			 struct ms_prep_phases *ph, double *fraction)
{
	const size_t n = stg_dataset_count(ds);
	const size_t k = stg_sample_size(MS_VERIFY_BOUND,
					 MS_VERIFY_CONFIDENCE);
	struct stg_prep_opts o = { .cpus = ctl->cpus,
				   .progress = ctl->progress,
				   .progress_arg = ctl->progress_arg };
	struct stg_prep_result r;
	size_t *ids = NULL;
	double bound;
	int err;

	*fraction = -1;
	if (k < n) {
		err = stg_sample_ids(n, k, ctl->seed, &ids);
		if (err)
			return err;
		o.ids = ids;
		o.nids = k;
	}
	stg_watch_phase(STG_PHASE_VERIFY);
	err = stg_prep_run(ds, STG_PREP_VERIFY, &o, &r);
	free(ids);
	ph->verify_s += r.seconds;
	if (err)
		return err;
	ph->verify_sample += r.files;
	bound = stg_sample_bound(r.files, n, MS_VERIFY_CONFIDENCE);
	if (r.files && bound > ph->verify_bound)
		ph->verify_bound = bound;
	if (r.files)
		*fraction = r.resident_sum / (double)r.files;
	return 0;
}

/* Does FRACTION say state C already holds? */
static bool state_holds(enum stg_cache_state c, double fraction)
{
	if (fraction < 0)
		return false;
	return c == STG_CACHE_WARM ? fraction >= 1 - MS_STATE_HOLDS :
				     fraction <= MS_STATE_HOLDS;
}

/* Evict or warm every file of DS (state C), timed into OUT. */
static void prepare_files(const struct stg_dataset *ds,
			  enum stg_cache_state c,
			  const struct ms_prep_ctl *ctl,
			  struct ms_cache_prep *out)
{
	const struct stg_prep_opts o = { .cpus = ctl->cpus,
					 .progress = ctl->progress,
					 .progress_arg = ctl->progress_arg };
	const bool warm = c == STG_CACHE_WARM;
	struct stg_prep_result r;
	int err;

	stg_watch_phase(warm ? STG_PHASE_WARMING : STG_PHASE_EVICTION);
	err = stg_prep_run(ds, warm ? STG_PREP_WARM : STG_PREP_EVICT, &o, &r);

	*(warm ? &out->ph.warm_s : &out->ph.evict_s) += r.seconds;
	out->ph.files += r.files;
	if (!err && r.errors && !r.files)
		err = r.first_err;
	if (err)
		snprintf(out->note, sizeof(out->note), "the page cache could "
			 "not be prepared (%s)", strerror(-err));
	else if (r.errors)
		snprintf(out->note, sizeof(out->note), "%llu files could not "
			 "be %s (%s)", (unsigned long long)r.errors,
			 warm ? "warmed" : "evicted", strerror(-r.first_err));
	else if (r.stopped)
		snprintf(out->note, sizeof(out->note), "stopped after %llu of "
			 "%zu files", (unsigned long long)r.files,
			 stg_dataset_count(ds));
	if (r.uring)
		snprintf(out->method, sizeof(out->method), "io_uring: openat, "
			 "%s and close linked into direct descriptors, 32 "
			 "files a submission, %u worker%s", warm ? "read" :
			 "fadvise", r.workers, r.workers == 1 ? "" : "s");
	else
		snprintf(out->method, sizeof(out->method), "system calls on "
			 "%u worker%s (%.180s)", r.workers, r.workers == 1 ?
			 "" : "s", r.why);
}

void ms_cache_prepare(const struct stg_dataset *ds, enum stg_cache_state c,
		      const struct ms_prep_ctl *ctl, struct ms_cache_prep *out)
{
	static const struct ms_prep_ctl none;
	struct stg_cache_probe probe;
	const struct stg_cache_probe *pp = NULL;
	const size_t n = stg_dataset_count(ds);
	const double t0 = stg_now();
	double t, fraction = -1;
	size_t first = 0;
	bool known;
	int dirfd;

	if (!ctl)
		ctl = &none;
	memset(out, 0, sizeof(*out));
	out->fraction = -1;
	out->ph.verify_bound = -1;
	if (ctl->already_ok)
		stg_watch_phase(STG_PHASE_VERIFY);
	if (ctl->already_ok && residency_known(ds, NULL) &&
	    !verify_sample(ds, ctl, &out->ph, &fraction) &&
	    state_holds(c, fraction)) {
		/* a sweep's point after one that left this state (a warm
		 * point's, or a cold point's O_DIRECT reads): keep it */
		out->reused = true;
		out->ph.reused = 1;
		out->fraction = fraction;
		snprintf(out->method, sizeof(out->method), "none: a sample "
			 "found the state already made");
	} else {
		/* does evicting and warming work here at all? one file
		 * tells */
		t = stg_now();
		while (first < n && stg_dataset_size(ds, first) == 0)
			first++;
		stg_watch_phase(STG_PHASE_PROBE);
		stg_watch_begin(first < n ? stg_dataset_relpath(ds, first,
				NULL) : NULL);
		dirfd = open(stg_dataset_root(ds), O_RDONLY | O_DIRECTORY |
			     O_CLOEXEC);
		if (first < n && dirfd >= 0 &&
		    stg_cache_probe(dirfd, stg_dataset_relpath(ds, first,
				    NULL), &probe) == 0)
			pp = &probe;
		if (first < n && dirfd >= 0 && c == STG_CACHE_COLD)
			out->odirect_refused = odirect_probe(dirfd,
				stg_dataset_root(ds), stg_dataset_relpath(ds,
				first, NULL), out->odirect_why,
				sizeof(out->odirect_why)) == 1;
		if (dirfd >= 0)
			close(dirfd);
		stg_watch_end();
		out->ph.verify_s += stg_now() - t;
		prepare_files(ds, c, ctl, out);
		known = residency_known(ds, pp);
		if (known && !verify_sample(ds, ctl, &out->ph, &fraction))
			out->fraction = fraction;
	}
	out->evict_ineffective = pp && pp->evict == STG_EVICT_INEFFECTIVE;
	out->warm_refetch = pp && pp->warm == STG_WARM_REFETCH_ON_OPEN;

	switch (c) {
	case STG_CACHE_COLD:
		cold_how(out, "O_DIRECT is refused here");
		break;
	case STG_CACHE_WARM:
		snprintf(out->how, sizeof(out->how), "every file read once "
			 "before the run%s%s%s", out->reused ? " (already: a "
			 "sample found it resident)" : "", out->warm_refetch ?
			 "; but this filesystem drops the cache at each open, "
			 "so the run cannot be warm" : "", out->fraction >= 0 &&
			 out->fraction < 1 - MS_STATE_HOLDS ? "; NOT all of "
			 "it stayed resident (the dataset is larger than the "
			 "page cache can hold)" : "");
		break;
	case STG_CACHE_RAM:
		snprintf(out->how, sizeof(out->how), "every file evicted "
			 "before the run%s", out->reused ? " (already: a sample "
			 "found it evicted)" : "");
		break;
	default:
		break;
	}
	out->prep_s = stg_now() - t0;
}

/* ---- the memory cgroup of a ram point ---- */

uint64_t ms_own_memory(unsigned workers, unsigned gpus, unsigned batch,
		       size_t out_bytes, unsigned readers, unsigned depth,
		       uint64_t max_read, uint64_t seen_peak)
{
	const unsigned prefetch = ldr_default_prefetch(gpus);
	uint64_t formula, seen = 0;

	if (!batch)
		batch = LDR_DEFAULT_BATCH;
	formula = (uint64_t)prefetch * batch * out_bytes +
		  (uint64_t)workers * (48u << 20) +
		  (uint64_t)(readers ? readers : 1) * depth * max_read +
		  (96u << 20);
	if (seen_peak) {
		seen = seen_peak + (64u << 20);
		/* more GPUs than the earlier children had: their slots */
		if (gpus > 2)
			seen += (uint64_t)(prefetch - ldr_default_prefetch(0)) *
				batch * out_bytes;
	}
	return seen > formula ? seen : formula;
}

uint64_t ms_own_recalibrated(uint64_t fill_own, uint64_t page_cache,
			     unsigned gpus, uint64_t slot_bytes)
{
	uint64_t margin = fill_own / 20 + (8u << 20);

	/* all of the margin goes to the page cache when the run stays put,
	 * and more than an eighth would carry it past LDR_RAM_SLACK */
	if (margin > page_cache / 8)
		margin = page_cache / 8;
	if (margin < (8u << 20))
		margin = 8u << 20;
	return fill_own + margin + (uint64_t)(ldr_default_prefetch(gpus) -
		ldr_default_prefetch(0)) * slot_bytes;
}

uint64_t ms_own_after_limit(uint64_t own, uint64_t peak, uint64_t limit)
{
	if (!limit || peak + (64u << 10) < limit)
		return 0;
	return own + own / 4 + (64u << 20);
}

enum ms_fill_next ms_ram_fill_next(bool failed, bool at_limit, bool off,
				   bool raised, bool recalibrated)
{
	if (failed)
		return at_limit && !raised && !recalibrated ? MS_FILL_RAISE :
							      MS_FILL_FAIL;
	return off && !recalibrated ? MS_FILL_RECAL : MS_FILL_DONE;
}

/* A memory cgroup of LIMIT bytes into *CG (NULL on failure), HOW says. */
static int ram_cgroup(uint64_t limit, struct ldr_memcg **cg, char *how,
		      size_t how_len)
{
	char why[160];
	int err = ldr_memcg_create(limit, cg, why, sizeof(why));

	if (!err) {
		snprintf(how, how_len, "dataset evicted, then run inside a "
			 "memory cgroup (v%d) whose limit is the page cache "
			 "asked plus the run's own memory (batch slots, read "
			 "buffers, threads), measured on a fill epoch",
			 ldr_memcg_version(*cg));
		return 0;
	}
	*cg = NULL;
	snprintf(how, how_len, "no memory cgroup could be made (%s): the run's "
		 "page cache was NOT limited, so samples/s is an upper bound; "
		 "the hit ratio is estimated", why[0] ? why : "?");
	return err;
}

/* ---- the run in its pinned child ---- */

static void point_config(const struct ms_point *p, struct ldr_config *cfg)
{
	const uint64_t maxsz = stg_dataset_max_size(p->ds);

	memset(cfg, 0, sizeof(*cfg));
	cfg->ds = p->ds;
	cfg->shards = p->shards;
	cfg->reader.backend = p->backend;
	cfg->reader.depth = p->depth;
	cfg->reader.max_sample_bytes = maxsz && maxsz < p->max_sample_bytes ?
		maxsz : p->max_sample_bytes;
	cfg->reader.direct = p->cache == STG_CACHE_COLD;
	cfg->readers = p->readers;
	cfg->workers = p->workers;
	cfg->batch = p->batch;
	cfg->transform = p->transform;
	cfg->seed = p->seed;
	cfg->rank = p->rank;
	cfg->world = p->world ? p->world : 1;
	cfg->start_realtime = p->start_realtime;
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
	cfg->backend_probe.evict = p->cache != STG_CACHE_WARM;
}

/* Run P's engine configuration on CPUS in CG. 0 when it measured. */
static int point_child(const struct ms_point *p, const struct stg_dataset *ds,
		       const struct ldr_memcg *cg, struct ldr_result *res,
		       struct ms_point_out *out)
{
	struct ms_point q = *p;
	struct ldr_config cfg;
	int err;

	q.ds = ds;
	memset(&out->rep, 0, sizeof(out->rep));
	out->err = 0;
	out->err_text[0] = '\0';
	/* a Python pipeline: its runner in the same pinned child and
	 * cgroup; DS other than P's is a ram point's sample */
	if (ms_pipeline_is_python(&p->pipe))
		return ms_python_point(p, ds, ds != p->ds, &out->cpus.set, cg,
				       res, out);
	point_config(&q, &cfg);
	err = ldr_run_pinned(&cfg, &out->cpus.set, cg, res, &out->rep);
	out->err = err;
	if (!err)
		return 0;
	{
		/* a rank with no sample: the engine says why there */
		const char *why = out->rep.why[0] ? out->rep.why :
				  err == -ENODATA ? res->bottleneck_why : "";

		snprintf(out->err_text, sizeof(out->err_text), "%s%s%.*s",
			 err == -ENODATA ? "no sample to read" :
			 strerror(-err), why[0] ? ": " : "", 400, why);
	}
	/* did the run start at all? A killed child's running totals
	 * (partial) are no measurement */
	if (res->window_partial || (!res->backend[0] && !res->samples &&
				    !res->errors && res->measured_s <= 0))
		return err;
	return 0;
}

uint64_t ms_point_own_memory(const struct ms_point *p,
			     const struct stg_dataset *ds)
{
	uint64_t maxsz = stg_dataset_max_size(ds), own, peak = 0;
	struct rusage ru;

	if (!getrusage(RUSAGE_CHILDREN, &ru))
		peak = (uint64_t)ru.ru_maxrss * 1024;
	if (maxsz > p->max_sample_bytes)
		maxsz = p->max_sample_bytes;
	own = ms_own_memory(p->workers, p->gpus, p->batch,
			    p->transform.out_bytes, p->readers,
			    p->depth ? p->depth : LDR_DEFAULT_DEPTH, maxsz, peak);
	/* shards: each reader's records and window on top */
	if (p->shards)
		own += (uint64_t)(p->readers ? p->readers : 1) *
		       ldr_shard_reader_bytes(p->shards, ds, p->readers,
			       p->depth, p->workers ? p->workers : p->vcpus);
	/* gpu-decode: each prefetched batch's staging area, at twice its
	 * first chunk (the fill epoch measures it) */
	if (p->transform.stage_bytes)
		own += (uint64_t)ldr_default_prefetch(p->gpus) * 2 *
		       p->transform.stage_bytes;
	/* a Python loader: an interpreter with torch in the main process
	 * and in each worker (the fill epoch measures it) */
	if (ms_pipeline_is_python(&p->pipe) &&
	    own < MS_PYTHON_OWN_BASE + (uint64_t)p->pipe.workers *
					MS_PYTHON_OWN_WORKER)
		own = MS_PYTHON_OWN_BASE + (uint64_t)p->pipe.workers *
					   MS_PYTHON_OWN_WORKER;
	return own;
}

/*
 * The fill epoch(s) of a ram point on DS: a cgroup of the page cache
 * asked plus the run's own memory, one unmeasured epoch; the room raised
 * when the first fill was killed at the limit (ms_own_after_limit), and
 * the limit recalibrated once from the cgroup's peak (ms_ram_fill_next):
 * at most three fills. *CG is left in place for the measured run.
 * Returns 0, or -errno when the fill failed.
 */
static int ram_fill(const struct ms_point *p, const struct stg_dataset *ds,
		    double window, struct ldr_memcg **cg,
		    struct ldr_result *res, struct ms_point_out *out)
{
	struct ms_point f = *p;
	int err;

	out->own_bytes = ms_point_own_memory(p, ds);
	out->cgroup_limit_bytes = out->page_cache_bytes + out->own_bytes;
	/* the fill epoch: another shuffle, no GPU, not measured */
	f.epochs = 1;
	f.samples = 0;
	f.warmup_s = -1;
	/* budgeted: a quarter of what is left, 10 s when nothing is */
	f.duration_s = p->window_s > 0 ? (window > 0 ? window / 4 + 5 : 10) :
		       0;
	f.gpus = 0;
	for (int attempt = 0; attempt < 3; attempt++) {
		uint64_t cache = 0, own = 0, raised_own = 0;
		bool off = false;
		enum ms_fill_next next;

		if (attempt) {
			const double t = stg_now();

			stg_cache_dataset_evict(ds, NULL);
			out->prep.ph.evict_s += stg_now() - t;
		}
		err = ram_cgroup(out->cgroup_limit_bytes, cg, out->cg_how,
				 sizeof(out->cg_how));
		out->hit_estimated = err != 0;
		if (err)
			out->cgroup_limit_bytes = 0;
		f.seed = p->seed + 7919 + (uint64_t)attempt;
		if (p->stop && *p->stop)
			return -EINTR;
		memset(res, 0, sizeof(*res));
		err = point_child(&f, ds, *cg, res, out);
		if (p->stop && *p->stop)
			return -EINTR;
		/* killed at the cgroup's limit: the room it lacked */
		if (err && *cg && !ldr_memcg_peak(*cg, &own))
			raised_own = ms_own_after_limit(out->own_bytes, own,
						out->cgroup_limit_bytes);
		/*
		 * The own-memory figure is an estimate. The cgroup's peak
		 * less the page cache it held after the fill is what the
		 * run itself took: when the page cache is more than 25 %
		 * off the asked size, set the limit from it.
		 */
		if (!err && *cg && !ldr_memcg_usage(*cg, NULL, &cache))
			off = fabs((double)cache -
				   (double)out->page_cache_bytes) >
			      MS_RAM_RECAL * (double)out->page_cache_bytes;
		next = ms_ram_fill_next(err != 0, raised_own != 0, off,
					out->limit_raised,
					out->limit_recalibrated);
		if (next == MS_FILL_FAIL)
			return err;
		if (next == MS_FILL_DONE)
			break;
		if (next == MS_FILL_RAISE) {
			out->own_bytes = raised_own;
			out->limit_raised = true;
		} else {
			if (ldr_memcg_peak(*cg, &own))
				own = 0;
			if (own > cache)
				own -= cache;
			else if (out->cgroup_limit_bytes > cache)
				own = out->cgroup_limit_bytes - cache;
			else
				break;
			/* short of a margin and the measured run's GPUs'
			 * batches, the kernel kills the run */
			out->own_bytes = ms_own_recalibrated(own,
				out->page_cache_bytes, p->gpus,
				(uint64_t)(p->batch ? p->batch :
				LDR_DEFAULT_BATCH) * p->transform.out_bytes +
				2 * p->transform.stage_bytes);
			out->limit_recalibrated = true;
		}
		out->cgroup_limit_bytes = out->page_cache_bytes +
					  out->own_bytes;
		ldr_memcg_destroy(*cg);
		*cg = NULL;
	}
	return 0;
}

/*
 * The dataset a ram point reads: DS, or an evenly spread sample of it
 * when P is budgeted and its epochs would not fit (*SUB then owns it).
 */
static const struct stg_dataset *ram_dataset(const struct ms_point *p,
					     double window,
					     struct stg_dataset **sub,
					     struct ms_point_out *out)
{
	const size_t n = stg_dataset_count(p->ds);
	const unsigned batch = p->batch ? p->batch : LDR_DEFAULT_BATCH;
	/* at least 4 batches, and enough files for the sample's page
	 * cache to be held to its size beside the run's own memory */
	const size_t hold = p->window_s > 0 ? ms_ram_hold_files(n,
		p->ram_bytes, ms_point_own_memory(p, p->ds)) : 0;
	/* fill (twice when the limit is corrected), then the measured */
	const size_t k = p->window_s > 0 ?
		ms_ram_sample_files(n, p->rate_hint, window, 2 + MS_RAM_EPOCHS,
				    hold > (size_t)batch * 4 ? hold :
				    (size_t)batch * 4) : n;
	int err;

	*sub = NULL;
	/* a python:FILE loader lists its files itself, the whole dataset:
	 * never a sample, or the page cache would be sized for less */
	if (k < n && p->shards) {
		/* the shard counts go with the whole listing */
		snprintf(out->note, sizeof(out->note), "a sharded dataset is "
			 "read whole: no sample of its shards was taken, so "
			 "this ram point may run past its share of the "
			 "budget");
		return p->ds;
	}
	if (k < n && p->pipe.kind == MS_PIPELINE_FILE) {
		snprintf(out->note, sizeof(out->note), "the python:FILE "
			 "pipeline reads the whole dataset (its make_loader "
			 "lists the files): no sample was taken, so this ram "
			 "point may run past its share of the budget");
		return p->ds;
	}
	if (k < n) {
		err = stg_dataset_sample(p->ds, k, sub);
		if (!err)
			return *sub;
		snprintf(out->note, sizeof(out->note), "a sample of the "
			 "dataset could not be made (%s): all of it was read",
			 strerror(-err));
	}
	return p->ds;
}

/*
 * A ram point before its measured run: the dataset it reads (*DS: P's, or
 * a sample in *SUB), the page cache modelled, the cgroup (*CG) and its
 * fill epochs. Returns 0, 1 when the fill failed (said in OUT->err_text),
 * or -EINTR.
 */
static int ram_prepare(const struct ms_point *p, double start,
		       const struct stg_dataset **ds, struct stg_dataset **sub,
		       struct ldr_memcg **cg, struct ldr_result *res,
		       struct ms_point_out *out)
{
	const uint64_t total = stg_dataset_total_bytes(p->ds);
	double window = 0;
	char text[sizeof(out->err_text)];
	int err;

	if (p->window_s > 0)
		window = p->window_s - (stg_now() - start) - 2 * MS_OVERHEAD_S;
	*ds = ram_dataset(p, window, sub, out);
	out->page_cache_bytes = p->ram_bytes;
	if (total && *ds != p->ds)
		out->page_cache_bytes = (uint64_t)((double)p->ram_bytes *
			(double)stg_dataset_total_bytes(*ds) / total);
	if (out->page_cache_bytes < (1u << 20))
		out->page_cache_bytes = 1u << 20;
	err = ram_fill(p, *ds, window, cg, res, out);
	if (err == -EINTR)
		return err;
	if (err) {
		memcpy(text, out->err_text, sizeof(text));
		snprintf(out->err_text, sizeof(out->err_text), "the fill epoch "
			 "failed: %.450s", text[0] ? text : strerror(-err));
		return 1;
	}
	return 0;
}

/*
 * How long Q's measured run lasts: budgeted (Q->window_s > 0), what is
 * left of its share after START less a warm-up (a ram raw-feed point:
 * two epochs, capped by it); else the engine's own limits, and a ram
 * point given none runs two epochs (the steady state needs them).
 */
static void point_length(struct ms_point *q, double start)
{
	if (q->window_s > 0) {
		const double window = q->window_s - (stg_now() - start) -
				      LDR_DEFAULT_WARMUP_S - MS_OVERHEAD_S;

		q->warmup_s = 0;
		q->duration_s = fmax(window, MS_MIN_WINDOW_S);
		q->epochs = 0;
		q->samples = 0;
		if (q->cache == STG_CACHE_RAM && !q->gpus) {
			q->epochs = MS_RAM_EPOCHS;
			q->duration_s += LDR_DEFAULT_WARMUP_S;
		}
	} else if (q->cache == STG_CACHE_RAM && !q->epochs && !q->samples &&
		   q->duration_s <= 0) {
		q->epochs = MS_RAM_EPOCHS;
	}
}

/*
 * The reader as Q's measured run used it, into OUT: its depth, its mean
 * read latency, and (cold) whether O_DIRECT was refused, by the probe
 * before the run or by the run's reader (its notes say so).
 */
static void point_reader(const struct ms_point *q,
			 const struct ldr_result *res, struct ms_point_out *out)
{
	const unsigned depth = q->depth ? q->depth : LDR_DEFAULT_DEPTH;

	out->reads_in_flight_max = res->readers * depth;
	out->read_latency_s = res->read_lat.count ?
			      stg_histo_mean(&res->read_lat) / 1e9 : -1;
	/* the probe opened one file; the reader notes any it refused */
	if (q->cache == STG_CACHE_COLD && !out->prep.odirect_refused &&
	    strstr(res->reader_notes, "O_DIRECT refused")) {
		out->prep.odirect_refused = true;
		snprintf(out->prep.odirect_why, sizeof(out->prep.odirect_why),
			 "O_DIRECT was refused by the filesystem for some "
			 "files: those reads went through the page cache");
		cold_how(&out->prep, "O_DIRECT is refused here");
		out->odirect_refused = true;
		memcpy(out->odirect_why, out->prep.odirect_why,
		       sizeof(out->odirect_why));
	}
}

/* A cluster's gate told the point will not run (see struct ms_point). */
static void gate_off(const struct ms_point *p)
{
	double start;

	if (p->gate)
		p->gate(p->gate_arg, false, &start);
}

int ms_point_run(const struct ms_point *p, struct ldr_result *res,
		 struct ms_point_out *out)
{
	const double start = stg_now();
	const struct stg_dataset *ds = p->ds;
	struct stg_dataset *sub = NULL;
	struct ldr_memcg *cg = NULL;
	struct ms_point q = *p;
	int err;

	memset(out, 0, sizeof(*out));
	out->hit_ratio = -1;
	out->read_latency_s = -1;
	out->prep.fraction = -1;
	err = ldr_cpus_choose(p->vcpus ? p->vcpus : p->cpus_from ?
			      (unsigned)CPU_COUNT(p->cpus_from) :
			      stg_cpus_usable(), p->cpus_from, &out->cpus);
	if (err) {
		snprintf(out->err_text, sizeof(out->err_text), "%s",
			 out->cpus.how[0] ? out->cpus.how : strerror(-err));
		gate_off(p);
		return 0;
	}
	q.workers = p->workers ? p->workers : out->cpus.count;
	if (ms_pipeline_is_python(&p->pipe) && !p->pipe.workers)
		q.pipe.workers = ms_pipeline_workers(0, out->cpus.count);
	if (p->cache_by_other) {
		/* made (and verified) by the node's first rank before the
		 * gate opens */
		out->prep.fraction = -1;
		snprintf(out->prep.how, sizeof(out->prep.how), "prepared by "
			 "another rank of this node");
	} else {
		const struct ms_prep_ctl ctl = {
			.already_ok = p->already_ok,
			.cpus = &out->cpus.set,
			.seed = p->seed,
			.progress = p->prep_progress,
			.progress_arg = p->prep_progress_arg,
		};

		ms_cache_prepare(p->ds, p->cache, &ctl, &out->prep);
	}
	out->odirect_refused = out->prep.odirect_refused;
	memcpy(out->odirect_why, out->prep.odirect_why,
	       sizeof(out->odirect_why));
	/* the storage stalled while the cache was prepared */
	if (ldr_watchdog_stall(&out->rep.stall)) {
		out->rep.stalled = true;
		gate_off(p);
		return -ETIMEDOUT;
	}
	/* the child starts with a stop flag of its own: a signal that came
	 * while the cache was prepared is honoured here */
	if (p->stop && *p->stop) {
		gate_off(p);
		return -EINTR;
	}
	if (p->cache == STG_CACHE_RAM) {
		err = ram_prepare(&q, start, &ds, &sub, &cg, res, out);
		if (err) {
			gate_off(p);
			err = out->rep.stalled ? -ETIMEDOUT : err < 0 ? err :
			      0;                        /* 1: said, failed */
			goto out;
		}
	}
	out->sample_files = stg_dataset_count(ds);
	out->sample_bytes = stg_dataset_total_bytes(ds);
	if (p->stop && *p->stop) {
		gate_off(p);
		err = -EINTR;
		goto out;
	}
	point_length(&q, start);
	if (p->gate) {
		err = p->gate(p->gate_arg, true, &q.start_realtime);
		if (err) {
			snprintf(out->err_text, sizeof(out->err_text), "%s",
				 err == -ECANCELED ? "rank 0 called the "
				 "run off before the window" : err ==
				 -ETIMEDOUT ? "no word from rank 0 before "
				 "the window (it is lost, or a step timed "
				 "out)" : strerror(-err));
			err = p->stop && *p->stop ? -EINTR : 0;
			goto out;
		}
	}
	memset(res, 0, sizeof(*res));
	err = point_child(&q, ds, cg, res, out);
	if (err) {
		err = out->rep.stalled ? -ETIMEDOUT : p->stop && *p->stop ?
		      -EINTR : 0;
		goto out;
	}
	out->measured = true;
	if (cg) {
		uint64_t cache = 0;

		if (!ldr_memcg_usage(cg, NULL, &cache))
			out->cache_seen_bytes = cache;
		/*
		 * When the page cache still grew well past the asked size
		 * (a small dataset, an own-memory figure larger than the
		 * run's), the cgroup did not limit it: the point ran warm
		 * and its hit ratio can only be estimated.
		 */
		if (!ms_ram_limited(out->page_cache_bytes,
				    out->cache_seen_bytes)) {
			out->ram_not_limited = true;
			out->hit_estimated = true;
			if (!out->note[0] &&
			    !ms_ram_holdable(out->page_cache_bytes,
					     out->own_bytes))
				snprintf(out->note, sizeof(out->note), "its "
					 "page cache (%.1f MB) is too small "
					 "to be limited beside the run's own "
					 "%.1f MB in one cgroup: a few %% of "
					 "the latter is more than %.0f %% of "
					 "it (a larger sample would do)",
					 (double)out->page_cache_bytes / 1e6,
					 (double)out->own_bytes / 1e6,
					 (LDR_RAM_SLACK - 1) * 100);
		}
	}
	point_reader(&q, res, out);
	if (ms_pipeline_is_python(&p->pipe)) {
		/* its reads are its own: neither probed nor replayable, and
		 * buffered (no O_DIRECT): cold holds for its first epoch */
		snprintf(out->hit_src, sizeof(out->hit_src), "unknown: a "
			 "Python loader's reads are not probed");
		if (p->cache == STG_CACHE_COLD) {
			out->prep.odirect_refused = true;
			snprintf(out->prep.odirect_why,
				 sizeof(out->prep.odirect_why), "a Python "
				 "loader reads through the page cache (no "
				 "O_DIRECT): only its first epoch is surely "
				 "cold");
			cold_how(&out->prep, "a Python loader does not use "
				 "O_DIRECT");
			out->odirect_refused = true;
			memcpy(out->odirect_why, out->prep.odirect_why,
			       sizeof(out->odirect_why));
		}
		err = 0;
		goto out;
	}
	out->hit_ratio = ms_hit_ratio(ds, p->seed, out->page_cache_bytes,
				      out->hit_estimated, res, out->hit_src,
				      sizeof(out->hit_src));
	if (p->cache != STG_CACHE_RAM && !out->hit_estimated &&
	    !res->probed_bytes)
		out->hit_ratio = -1;
	err = 0;
out:
	ldr_memcg_destroy(cg);
	stg_dataset_destroy(sub);
	return err;
}

/* ---- the hit ratio ---- */

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
	return (double)seen <= LDR_RAM_SLACK * (double)asked;
}

bool ms_ram_holdable(uint64_t asked, uint64_t own)
{
	return asked >= ms_ram_holdable_min(own);
}

uint64_t ms_ram_holdable_min(uint64_t own)
{
	const double moves = (double)own / 20 + (double)(8u << 20);

	return (uint64_t)ceil(moves / (LDR_RAM_SLACK - 1));
}

size_t ms_ram_hold_files(size_t n_files, uint64_t ram_bytes, uint64_t own)
{
	const uint64_t least = ms_ram_holdable_min(own);
	double k;

	/* no sample of a page cache too small to hold helps */
	if (!n_files || ram_bytes < least)
		return 0;
	k = ceil((double)n_files * (double)least / (double)ram_bytes);
	return k >= (double)n_files ? n_files : (size_t)k;
}

double ms_ram_hold_s(const struct ms_point *p, uint64_t ram_bytes,
		     double rate)
{
	const size_t n = stg_dataset_count(p->ds);
	size_t k;

	if (rate <= 0 || !n)
		return 0;
	k = ms_ram_hold_files(n, ram_bytes, ms_point_own_memory(p, p->ds));
	/* as ms_ram_sample_files counts: the fill (twice at most), the
	 * measured epochs, 10 % to spare */
	return (double)k * (2 + MS_RAM_EPOCHS) * 1.1 / rate;
}


double ms_lru_steady(const struct stg_dataset *ds, uint64_t seed,
		     uint64_t ram)
{
	struct ldr_lru_estimate est;

	if (ldr_lru_estimate_run(ds, seed, 0, 1, false, 4, ram, &est))
		return -1;
	return est.steady;
}
