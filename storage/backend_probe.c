/*
 * backend_probe.c - resolve `auto` by measuring: a short read of two
 * disjoint samples of the dataset, one through io_uring and one through
 * the pread pool, at the run's depth and cache state.
 *
 * DESIGN: single-threaded from the caller's point of view; the two
 * readers it makes (and psync's pool threads) live only inside
 * stg_backend_probe and belong to the calling thread, which should be the
 * measurement's own (pinned) thread so that the probe sees the CPUs the
 * run will have. Nothing is shared with the caller but the stop flag,
 * which is only read.
 *
 * Samples: 2 x PER files spread evenly over the ids, alternately to uring
 * and to psync, so both see the same mix of sizes and folders and no file
 * is read twice (a second read would find it warm, or a FUSE daemon's
 * cache hot). Each sample is read in two halves in the order uring,
 * psync, psync, uring: whatever warms up during the probe (a server's
 * connections, the dentry cache, the CPU's clock) is spread evenly.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader_internal.h"

#define PROBE_BUDGET_S 0.5
#define PROBE_MIN_PER 8u
#define PROBE_REAP 64

enum stg_backend_id stg_backend_decide(const struct stg_probe_side *uring,
				       const struct stg_probe_side *psync,
				       char *why, size_t len)
{
	const double u = uring->files ? uring->files_per_s : 0;
	const double p = psync->files ? psync->files_per_s : 0;
	enum stg_backend_id pick = STG_BACKEND_URING;
	char ratio[48] = "";

	if (psync->files >= STG_PROBE_MIN_FILES &&
	    (u <= 0 ? p > 0 : p >= STG_PROBE_PSYNC_MARGIN * u))
		pick = STG_BACKEND_PSYNC;
	if (u > 0 && p > 0)
		snprintf(ratio, sizeof(ratio), " (psync/uring %.2fx%s)", p / u,
			 pick == STG_BACKEND_URING && p > u ?
			 ", not clearly faster" : "");
	else if (psync->files < STG_PROBE_MIN_FILES)
		snprintf(ratio, sizeof(ratio), " (psync read %llu files: too "
			 "few to compare)", (unsigned long long)psync->files);
	if (why && len)
		snprintf(why, len, "uring %.0f files/s, psync %.0f files/s -> "
			 "%s%s", u, p, stg_backend_name(pick), ratio);
	return pick;
}

/* Read IDS[0..N) through R, depth in flight, until done or BUDGET_NS. */
static void probe_read(struct stg_reader *r, const struct stg_dataset *ds,
		       int rootfd, const size_t *ids, size_t n,
		       uint64_t budget_ns, volatile int *stop,
		       struct stg_probe_side *side)
{
	struct stg_completion c[PROBE_REAP];
	const uint64_t t0 = stg_now_ns(), deadline = t0 + budget_ns;
	size_t next = 0;

	while (next < n || stg_reader_pending(r)) {
		int got;

		while (next < n) {
			const int64_t size = stg_dataset_size(ds, ids[next]);
			struct stg_read_req req = {
				.dirfd = rootfd,
				.name = stg_dataset_relpath(ds, ids[next], NULL),
				.size = size < 0 ? STG_SIZE_UNKNOWN
						 : (uint64_t)size,
				.user_data = ids[next],
			};
			int err;

			if ((stop && *stop) || stg_now_ns() >= deadline) {
				next = n;       /* finish what is in flight */
				break;
			}
			err = stg_reader_submit(r, &req);
			if (err == -EAGAIN && stg_reader_pending(r))
				break;          /* full: reap first */
			next++;
			if (err)
				side->errors++;
		}
		if (!stg_reader_pending(r))
			continue;
		got = stg_reader_reap(r, c, PROBE_REAP, 50000000);
		if (got < 0 && got != -EINTR && got != -ETIME)
			break;
		for (int i = 0; i < got; i++) {
			if (c[i].result)
				side->errors++;
			else
				side->files++;
			stg_buf_release(c[i].buf);
		}
	}
	side->seconds += (double)(stg_now_ns() - t0) / 1e9;
}

static void probe_evict(const struct stg_dataset *ds, int rootfd,
			const size_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		stg_cache_evict(rootfd, stg_dataset_relpath(ds, ids[i], NULL));
}

static void side_rate(struct stg_probe_side *s)
{
	s->files_per_s = s->seconds > 0 ? (double)s->files / s->seconds : 0;
}

int stg_backend_probe(const struct stg_dataset *ds,
		      const struct stg_reader_config *cfg,
		      const struct stg_probe_opts *opts,
		      struct stg_probe_result *out)
{
	const struct stg_probe_opts defaults = { 0 };
	struct stg_reader_config rc = cfg ? *cfg : (struct stg_reader_config){ 0 };
	const size_t n = stg_dataset_count(ds);
	struct stg_reader *ru = NULL, *rp = NULL;
	size_t per, *uids = NULL, *pids = NULL, h;
	uint64_t budget_ns;
	unsigned depth;
	char why[320];
	int rootfd = -1, err;

	if (!opts)
		opts = &defaults;
	memset(out, 0, sizeof(*out));
	out->chosen = STG_BACKEND_URING;
	depth = rc.depth ? rc.depth : STG_DEFAULT_DEPTH;
	if (stg_uring_probe(why, sizeof(why))) {
		out->chosen = STG_BACKEND_PSYNC;
		snprintf(out->reason, sizeof(out->reason), "auto: %s; using psync",
			 why);
		return 0;
	}
	per = opts->files ? opts->files : 2 * (size_t)depth;
	if (!opts->files && per < PROBE_MIN_PER)
		per = PROBE_MIN_PER;
	if (per > n / 2)
		per = n / 2;
	if (per < STG_PROBE_MIN_FILES) {
		snprintf(out->reason, sizeof(out->reason), "auto: io_uring "
			 "available; %zu files are too few to probe psync "
			 "against it", n);
		return 0;
	}
	budget_ns = (uint64_t)((opts->budget_s > 0 ? opts->budget_s
						    : PROBE_BUDGET_S) * 1e9);
	uids = malloc(per * sizeof(*uids));
	pids = malloc(per * sizeof(*pids));
	if (!uids || !pids) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0, m = 2 * per; i < m; i++) {
		/* i x n / m without overflow: i < m <= n */
		size_t id = i * (n / m) + i * (n % m) / m;

		if (i % 2)
			pids[i / 2] = id;
		else
			uids[i / 2] = id;
	}
	rootfd = stg_dataset_root_open(ds);
	if (rootfd < 0) {
		err = rootfd;
		goto fail;
	}
	rc.reason = NULL;
	rc.backend = STG_BACKEND_URING;
	err = stg_reader_create(&rc, &ru);
	if (err)
		goto fail;
	rc.backend = STG_BACKEND_PSYNC;
	err = stg_reader_create(&rc, &rp);
	if (err)
		goto fail;

	/* uring, psync, psync, uring: half a sample, half the budget each */
	h = per / 2;
	if (opts->evict) {
		probe_evict(ds, rootfd, uids, per);
		probe_evict(ds, rootfd, pids, per);
	}
	probe_read(ru, ds, rootfd, uids, h, budget_ns / 2, opts->stop,
		   &out->uring);
	probe_read(rp, ds, rootfd, pids, h, budget_ns / 2, opts->stop,
		   &out->psync);
	probe_read(rp, ds, rootfd, pids + h, per - h, budget_ns / 2,
		   opts->stop, &out->psync);
	probe_read(ru, ds, rootfd, uids + h, per - h, budget_ns / 2,
		   opts->stop, &out->uring);
	if (opts->evict) {
		probe_evict(ds, rootfd, uids, per);
		probe_evict(ds, rootfd, pids, per);
	}
	side_rate(&out->uring);
	side_rate(&out->psync);
	out->measured = true;
	out->chosen = stg_backend_decide(&out->uring, &out->psync, why,
					 sizeof(why));
	snprintf(out->reason, sizeof(out->reason), "auto: probe at depth %u, "
		 "%s: %s", depth, opts->evict ? "cold" : "as cached", why);
	err = 0;
	goto out;
fail:
	snprintf(out->reason, sizeof(out->reason), "auto: io_uring available; "
		 "the probe against psync failed (%s)", strerror(-err));
out:
	stg_reader_destroy(ru);
	stg_reader_destroy(rp);
	if (rootfd >= 0)
		close(rootfd);
	free(uids);
	free(pids);
	return err;
}
