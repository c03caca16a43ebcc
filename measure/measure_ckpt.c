/*
 * measure_ckpt.c - `feedrate ckpt`'s protocol: a sharded checkpoint saved
 * into an empty folder, made durable, evicted, restored, removed.
 *
 * DESIGN: the caller's thread checks the folder, starts one thread per
 * shard and waits. Sharded checkpointing has every rank write its own
 * file at the same moment, so the shard threads wait at a gate and
 * start together; each writes (or reads) its own file through its own
 * ring (storage/seqio.c) and stores its numbers in its own struct shard,
 * which the caller reads after the join. The folder's fsync, the
 * eviction, the residency check and the removal happen on the caller's
 * thread between the phases. The stop flag (SIGINT) is polled by the
 * shard threads before each block; whatever was created is removed
 * after a stop or a failure, and nothing else in the folder is touched
 * (the folder must be empty to begin with, and every file is created
 * with O_EXCL).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "measure.h"

#define CKPT_ALIGN 4096u

struct shard {
	pthread_t tid;
	unsigned rank;
	char name[64];
	uint64_t size;
	uint64_t seed;
	bool created;
	bool started;
	int err;
	double seconds;
	struct stg_seq_stats st;
	/* shared, read-only while the threads run */
	const struct ms_ckpt_config *cfg;
	const struct stg_seq_config *io;
	int dirfd;
	bool writing;
	struct gate *go;
};

/* Where the shard threads wait, so that they start at one moment. */
struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool open;
	bool abort;             /* a thread could not be made: nobody runs */
};

static void gb_text(char *buf, size_t len, uint64_t bytes)
{
	snprintf(buf, len, "%.2f GB", (double)bytes / 1e9);
}

int ms_ckpt_check_dir(const char *dir, uint64_t bytes, uint64_t *free_bytes,
		      char *why, size_t why_len)
{
	char parent[PATH_MAX], have[32], need_t[32];
	const char *where = dir;
	struct statvfs vfs;
	struct stat st;
	uint64_t need, slack;

	*free_bytes = 0;
	why[0] = '\0';
	if (stat(dir, &st) == 0) {
		DIR *d;
		struct dirent *e;

		if (!S_ISDIR(st.st_mode)) {
			snprintf(why, why_len, "%s is not a folder", dir);
			return -ENOTDIR;
		}
		d = opendir(dir);
		if (!d) {
			const int err = errno;

			snprintf(why, why_len, "cannot open %s: %s", dir,
				 strerror(err));
			return -err;
		}
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(why, why_len, "%s is not empty (it "
					 "holds %.200s): ckpt writes only into "
					 "an empty folder, and touches nothing "
					 "else", dir, e->d_name);
				closedir(d);
				return -ENOTEMPTY;
			}
		closedir(d);
	} else if (errno == ENOENT) {
		/* made by the run: its parent must exist */
		snprintf(parent, sizeof(parent), "%s", dir);
		where = dirname(parent);
	} else {
		const int err = errno;

		snprintf(why, why_len, "cannot look at %s: %s", dir,
			 strerror(err));
		return -err;
	}
	if (statvfs(where, &vfs)) {
		const int err = errno;

		snprintf(why, why_len, "cannot look at %s: %s", where,
			 strerror(err));
		return -err;
	}
	*free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	slack = bytes / 100 > MS_CKPT_SLACK_MIN ? bytes / 100 :
		MS_CKPT_SLACK_MIN;
	need = bytes + slack;
	if (*free_bytes < need) {
		gb_text(have, sizeof(have), *free_bytes);
		gb_text(need_t, sizeof(need_t), need);
		snprintf(why, why_len, "too little free space under %s: %s "
			 "(%llu bytes) free, the checkpoint needs %s (%llu "
			 "bytes and 1 %%, at least %llu MiB, for the "
			 "filesystem's own blocks)", where, have,
			 (unsigned long long)*free_bytes, need_t,
			 (unsigned long long)bytes,
			 (unsigned long long)(MS_CKPT_SLACK_MIN >> 20));
		return -ENOSPC;
	}
	return 0;
}

static void *shard_main(void *arg)
{
	struct shard *s = arg;
	bool abort;
	double t0;

	pthread_mutex_lock(&s->go->mu);
	while (!s->go->open)
		pthread_cond_wait(&s->go->cv, &s->go->mu);
	abort = s->go->abort;
	pthread_mutex_unlock(&s->go->mu);
	if (abort) {
		s->err = -EAGAIN;
		return NULL;
	}
	t0 = stg_now();
	if (s->writing)
		s->err = stg_seq_write(s->dirfd, s->name, s->size, s->seed,
				       s->io, &s->created, &s->st);
	else
		s->err = stg_seq_read(s->dirfd, s->name, s->seed, s->io,
				      &s->st);
	s->seconds = stg_now() - t0;
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Run one phase (WRITING or reading) over the N shards S. Returns 0 or
 * the first error (a real one before -EINTR); the phase's numbers go to
 * *PH, the shards' own numbers stay in S.
 */
static int ckpt_phase(struct shard *s, unsigned n, bool writing,
		      struct ms_ckpt_phase *ph, double *t0, char *why,
		      size_t why_len)
{
	struct gate go = { .mu = PTHREAD_MUTEX_INITIALIZER,
			   .cv = PTHREAD_COND_INITIALIZER };
	double *secs = calloc(n, sizeof(*secs));
	unsigned started = 0;
	int err = 0;

	stg_watch_phase(writing ? STG_PHASE_SAVE : STG_PHASE_RESTORE);
	memset(ph, 0, sizeof(*ph));
	if (!secs) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	for (unsigned k = 0; k < n; k++) {
		s[k].writing = writing;
		s[k].go = &go;
		s[k].err = 0;
		memset(&s[k].st, 0, sizeof(s[k].st));
		s[k].seconds = 0;
		if (pthread_create(&s[k].tid, NULL, shard_main, &s[k]))
			break;
		s[k].started = true;
		started++;
	}
	pthread_mutex_lock(&go.mu);
	go.open = true;
	go.abort = started < n;
	*t0 = stg_now();
	pthread_cond_broadcast(&go.cv);
	pthread_mutex_unlock(&go.mu);
	for (unsigned k = 0; k < n; k++)
		if (s[k].started)
			pthread_join(s[k].tid, NULL);
	if (started < n) {
		free(secs);
		snprintf(why, why_len, "cannot start %u shard threads", n);
		return -EAGAIN;
	}
	for (unsigned k = 0; k < n; k++) {
		s[k].started = false;
		if (s[k].err && (!err || err == -EINTR)) {
			err = s[k].err;
			if (err != -EINTR)
				snprintf(why, why_len, "shard %u (%s/%s): %s "
					 "failed: %s%s", s[k].rank,
					 s[k].cfg->dir, s[k].name,
					 writing ? "writing" : "reading",
					 strerror(-err), err == -ENOSPC ||
					 err == -EDQUOT ? " (the disk filled "
					 "up)" : "");
			else
				snprintf(why, why_len, "interrupted");
		}
		ph->bytes += s[k].st.bytes;
		secs[k] = s[k].seconds;
		if (s[k].st.sync_s > ph->sync_max_s)
			ph->sync_max_s = s[k].st.sync_s;
	}
	qsort(secs, n, sizeof(*secs), cmp_double);
	ph->shard_min_s = secs[0];
	ph->shard_max_s = secs[n - 1];
	ph->shard_median_s = n % 2 ? secs[n / 2] :
			     (secs[n / 2 - 1] + secs[n / 2]) / 2;
	free(secs);
	return err;
}

/* Remove the shards the run created (and the folder it made). */
static void ckpt_remove(const char *dir, int dirfd, struct shard *s,
			unsigned n, struct ms_ckpt_result *out)
{
	bool all = true;

	for (unsigned k = 0; k < n; k++) {
		if (!s[k].created)
			continue;
		if (unlinkat(dirfd, s[k].name, 0) && errno != ENOENT)
			all = false;
		else
			s[k].created = false;
	}
	if (all && out->made_dir && rmdir(dir))
		all = false;
	out->removed_all = all;
}

/* Evict every shard; the share still resident after it into OUT. */
static void ckpt_evict(int dirfd, const struct shard *s, unsigned n,
		       struct ms_ckpt_result *out)
{
	uint64_t res = 0, tot = 0;
	bool known = true;

	for (unsigned k = 0; k < n; k++) {
		uint64_t r, t;

		stg_cache_evict(dirfd, s[k].name);
		if (stg_cache_residency(dirfd, s[k].name, &r, &t))
			known = false;
		res += r;
		tot += t;
	}
	out->resident_before_restore = known && tot ? (double)res / tot :
				       known ? 0 : -1;
}

static void ckpt_event(const struct ms_ckpt_config *cfg,
		       enum ms_ckpt_event ev, const struct ms_ckpt_result *out)
{
	if (cfg->progress)
		cfg->progress(ev, out, cfg->progress_arg);
}

/* The shards' sizes and names; buffers within MS_CKPT_MEM_MAX. */
static struct shard *ckpt_plan(const struct ms_ckpt_config *cfg,
			       struct stg_seq_config *io,
			       struct ms_ckpt_result *out)
{
	const unsigned n = cfg->shards;
	const uint64_t total = (cfg->bytes + CKPT_ALIGN - 1) / CKPT_ALIGN *
			       CKPT_ALIGN;
	uint64_t per = (total / n + CKPT_ALIGN - 1) / CKPT_ALIGN * CKPT_ALIGN;
	struct shard *s = calloc(n, sizeof(*s));

	if (!s)
		return NULL;
	*io = cfg->io;
	io->stop = cfg->stop;
	if (!io->block_size)
		io->block_size = STG_SEQ_BLOCK_DEFAULT;
	if (!io->depth)
		io->depth = STG_SEQ_DEPTH_DEFAULT;
	while ((uint64_t)n * io->depth * io->block_size > MS_CKPT_MEM_MAX &&
	       io->block_size > (1u << 20))
		io->block_size /= 2;
	while ((uint64_t)n * io->depth * io->block_size > MS_CKPT_MEM_MAX &&
	       io->depth > 1)
		io->depth--;
	if (per < CKPT_ALIGN)
		per = CKPT_ALIGN;
	out->shards = n;
	out->shard_bytes = per;
	out->bytes = 0;
	out->block_size = io->block_size;
	out->depth = io->depth;
	for (unsigned k = 0; k < n; k++) {
		const uint64_t at = (uint64_t)k * per;

		s[k].rank = k;
		s[k].size = at >= total ? 0 : total - at < per ? total - at :
			    per;
		s[k].seed = cfg->seed * 1000003ull + k;
		s[k].cfg = cfg;
		s[k].io = io;
		snprintf(s[k].name, sizeof(s[k].name), MS_CKPT_SHARD_FMT, k);
		out->bytes += s[k].size;
	}
	return s;
}

int ms_ckpt_run(const struct ms_ckpt_config *cfg, struct ms_ckpt_result *out)
{
	struct stg_seq_config io;
	struct shard *s = NULL;
	int dirfd = -1, err;
	double t0 = 0;

	memset(out, 0, sizeof(*out));
	out->resident_before_restore = -1;
	if (!cfg->shards || cfg->shards > MS_CKPT_MAX_SHARDS || !cfg->bytes) {
		snprintf(out->err_text, sizeof(out->err_text), "1 to %u "
			 "shards of at least one byte", MS_CKPT_MAX_SHARDS);
		return -EINVAL;
	}
	err = ms_ckpt_check_dir(cfg->dir, cfg->bytes, &out->free_before,
				out->err_text, sizeof(out->err_text));
	if (err)
		return err;
	s = ckpt_plan(cfg, &io, out);
	if (!s) {
		snprintf(out->err_text, sizeof(out->err_text), "out of memory");
		return -ENOMEM;
	}
	if (mkdir(cfg->dir, 0755) == 0)
		out->made_dir = true;
	else if (errno != EEXIST) {
		err = -errno;
		snprintf(out->err_text, sizeof(out->err_text), "cannot make "
			 "%s: %s", cfg->dir, strerror(-err));
		goto out;
	}
	dirfd = open(cfg->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		err = -errno;
		snprintf(out->err_text, sizeof(out->err_text), "cannot open "
			 "%s: %s", cfg->dir, strerror(-err));
		goto out;
	}
	for (unsigned k = 0; k < cfg->shards; k++)
		s[k].dirfd = dirfd;
	ckpt_event(cfg, MS_CKPT_EV_WRITING, out);
	err = ckpt_phase(s, cfg->shards, true, &out->save, &t0,
			 out->err_text, sizeof(out->err_text));
	out->backend = s[0].st.backend;
	snprintf(out->backend_reason, sizeof(out->backend_reason), "%s",
		 s[0].st.reason);
	if (err)
		goto out;
	{
		const double t = stg_now();

		/* the new names are durable only once the folder is */
		if (fsync(dirfd)) {
			err = -errno;
			snprintf(out->err_text, sizeof(out->err_text),
				 "syncing %s failed: %s", cfg->dir,
				 strerror(-err));
			goto out;
		}
		out->dir_sync_s = stg_now() - t;
	}
	out->save.seconds = stg_now() - t0;
	out->save.bytes_per_s = out->save.seconds > 0 ?
				out->save.bytes / out->save.seconds : 0;
	out->save.done = true;
	ckpt_event(cfg, MS_CKPT_EV_SAVED, out);
	if (cfg->stop && *cfg->stop) {
		err = -EINTR;
		snprintf(out->err_text, sizeof(out->err_text), "interrupted");
		goto out;
	}
	ckpt_evict(dirfd, s, cfg->shards, out);
	ckpt_event(cfg, MS_CKPT_EV_RESTORING, out);
	err = ckpt_phase(s, cfg->shards, false, &out->restore, &t0,
			 out->err_text, sizeof(out->err_text));
	out->restore.seconds = stg_now() - t0;
	for (unsigned k = 0; k < cfg->shards; k++)
		out->bad_pages += s[k].st.bad_pages;
	if (err)
		goto out;
	out->restore.bytes_per_s = out->restore.seconds > 0 ?
				   out->restore.bytes / out->restore.seconds :
				   0;
	out->restore.done = true;
out:
	if (s && dirfd >= 0 && (err || !cfg->keep))
		ckpt_remove(cfg->dir, dirfd, s, cfg->shards, out);
	else if (s && dirfd < 0 && out->made_dir)
		out->removed_all = rmdir(cfg->dir) == 0;
	out->kept = !err && cfg->keep;
	if (dirfd >= 0)
		close(dirfd);
	free(s);
	return err;
}

void ms_ckpt_machine(const char *dir, struct ms_machine *m)
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
	ms_machine_detect(where, m);
}
