/*
 * cmd_io.c - `feedrate io`: storage only, no decoding. Reads every file of
 * a dataset once (or in passes for --duration) through the chosen backend
 * and prints what fio would: bandwidth, IOPS, files/s and completion
 * latency percentiles, plus errors by kind and the backend that really ran.
 *
 * DESIGN: the main thread lists the dataset, prepares the page cache and
 * starts --threads reader threads; each creates its own stg_reader, waits
 * at a barrier, then claims file ids from one shared atomic ticket counter
 * (id = ticket mod count), keeps its reader full, and releases every buffer
 * as soon as it is reaped. Each thread owns its counters and histogram; the
 * main thread merges them after joining. SIGINT/SIGTERM only set `stop`:
 * threads stop claiming files and drain what is in flight. With --backend
 * auto the main thread first runs stg_backend_probe on a sample of the
 * dataset (its reads are not counted) and the threads use its choice.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "report.h"
#include "storage.h"

#define IO_MAX_KINDS 24
#define IO_BATCH 64

enum io_cache { IO_CACHE_ASIS, IO_CACHE_COLD, IO_CACHE_WARM };

struct io_opts {
	struct stg_reader_config rc;
	unsigned threads;
	enum io_cache cache;
	double duration;            /* 0: one pass */
	uint64_t max_sample_bytes;
	const char *list;
	const char *json;
	const char *dataset;
	bool quiet;
};

struct io_kind {
	int code;
	uint64_t count;
	size_t example;             /* a file id */
};

struct io_thread {
	pthread_t tid;
	struct io_run *run;
	struct stg_reader *r;
	int err;                    /* stg_reader_create's */
	struct stg_reader_stats st;
	struct io_kind kinds[IO_MAX_KINDS];
	unsigned nkinds;
	uint64_t evict_errors;
	uint64_t submit_errors;     /* requests the reader refused */
	uint64_t t_end;
	enum stg_backend_id backend;
	char reason[400];
	char notes[512];
};

struct io_run {
	const struct io_opts *o;
	struct stg_dataset *ds;
	int rootfd;
	size_t count;
	uint64_t limit;             /* tickets to hand out (one pass) */
	atomic_uint_fast64_t ticket;
	uint64_t t_start;
	uint64_t t_deadline;        /* 0: none */
	pthread_barrier_t ready;
	pthread_barrier_t go;
};

static volatile sig_atomic_t io_stop;

static void io_on_signal(int sig)
{
	io_stop = sig;
}

static uint64_t io_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void io_usage(FILE *f)
{
	fprintf(f,
"Usage: feedrate io [options] DATASET\n"
"\n"
"Read every file of DATASET (a folder, or the root of --list) whole, with no\n"
"decoding, and report bandwidth, files/s and completion latency percentiles,\n"
"comparable with fio.\n"
"\n"
"Options:\n"
"  --backend B          auto (default): a short probe reads a sample of\n"
"                       DATASET through each of io_uring and psync and\n"
"                       keeps psync only when it is clearly (1.2x) faster;\n"
"                       uring, psync or null (no disk: synthetic bytes)\n"
"  --threads N          reader threads, each with its own reader (default 1)\n"
"  --depth N            reads in flight per reader thread (default 32); psync\n"
"                       runs N pread threads per reader\n"
"  --block-size SIZE    bytes per read; large files are read in chunks of\n"
"                       this size, several in flight (default 128K)\n"
"  --cache cold|warm    evict every file before reading it, or read it all\n"
"                       once first (default: leave the page cache as it is)\n"
"  --direct             O_DIRECT reads (buffered where the filesystem refuses)\n"
"  --duration TIME      read in passes until TIME (\"30s\", \"5m\") is up\n"
"  --max-sample-bytes SIZE  larger files are counted as too large and not\n"
"                       read (default 1G)\n"
"  --list FILE          read the files named in FILE (\"PATH\" or\n"
"                       \"SIZE<TAB>PATH\" per line) instead of walking DATASET\n"
"  --json FILE|-        write the results as JSON (\"-\": standard output)\n"
"  -h, --help           this help\n"
"\n"
"Exit status: 0 ok, 2 usage error, 3 some files could not be read,\n"
"5 dataset or backend unusable, 130/143 interrupted.\n");
}

static int io_parse(int argc, char **argv, struct io_opts *o)
{
	static const struct option longopts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "threads", required_argument, NULL, 't' },
		{ "depth", required_argument, NULL, 'd' },
		{ "block-size", required_argument, NULL, 'B' },
		{ "cache", required_argument, NULL, 'c' },
		{ "direct", no_argument, NULL, 'D' },
		{ "duration", required_argument, NULL, 'T' },
		{ "max-sample-bytes", required_argument, NULL, 'M' },
		{ "list", required_argument, NULL, 'l' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long ul;
	uint64_t size;
	int c;

	memset(o, 0, sizeof(*o));
	o->threads = 1;
	o->rc.depth = 32;
	o->rc.block_size = 128 * 1024;
	o->max_sample_bytes = 1ull << 30;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (stg_backend_parse(optarg, &o->rc.backend))
				return cli_usage_error("io", "unknown backend "
					"'%s' (auto, uring, psync, null)", optarg);
			break;
		case 't':
			if (cli_parse_ulong(optarg, 1, 1024, &ul))
				return cli_usage_error("io", "--threads wants "
					"1..1024, not '%s'", optarg);
			o->threads = (unsigned)ul;
			break;
		case 'd':
			if (cli_parse_ulong(optarg, 1, 4096, &ul))
				return cli_usage_error("io", "--depth wants "
					"1..4096, not '%s'", optarg);
			o->rc.depth = (unsigned)ul;
			break;
		case 'B':
			if (cli_parse_size(optarg, &size) || size < 4096 ||
			    size > (64u << 20) || size % 4096)
				return cli_usage_error("io", "--block-size wants "
					"a multiple of 4K up to 64M, not '%s'",
					optarg);
			o->rc.block_size = (uint32_t)size;
			break;
		case 'c':
			if (!strcmp(optarg, "cold"))
				o->cache = IO_CACHE_COLD;
			else if (!strcmp(optarg, "warm"))
				o->cache = IO_CACHE_WARM;
			else
				return cli_usage_error("io", "--cache wants cold "
					"or warm, not '%s'", optarg);
			break;
		case 'D':
			o->rc.direct = true;
			break;
		case 'T':
			if (cli_parse_duration(optarg, &o->duration))
				return cli_usage_error("io", "bad --duration "
					"'%s'", optarg);
			break;
		case 'M':
			if (cli_parse_size(optarg, &size) || size == 0 ||
			    size > (64ull << 30))
				return cli_usage_error("io", "bad "
					"--max-sample-bytes '%s'", optarg);
			o->max_sample_bytes = size;
			break;
		case 'l':
			o->list = optarg;
			break;
		case 'j':
			o->json = optarg;
			break;
		case 'h':
			io_usage(stdout);
			return -1;
		case ':':
			return cli_usage_error("io", "option '%s' needs a value",
					       argv[optind - 1]);
		default:
			return cli_usage_error("io", "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("io", optind >= argc ?
				       "missing DATASET" : "one DATASET only");
	o->dataset = argv[optind];
	return 0;
}

static void io_count_error(struct io_thread *t, int code, size_t id)
{
	for (unsigned i = 0; i < t->nkinds; i++)
		if (t->kinds[i].code == code) {
			t->kinds[i].count++;
			return;
		}
	if (t->nkinds < IO_MAX_KINDS)
		t->kinds[t->nkinds++] = (struct io_kind){ code, 1, id };
}

/* Count and release N completions. */
static void io_handle(struct io_thread *t, const struct stg_completion *c,
		      int n)
{
	const bool evict = t->run->o->cache == IO_CACHE_COLD &&
			   t->run->o->duration > 0;

	for (int i = 0; i < n; i++) {
		size_t id = (size_t)c[i].user_data;

		if (c[i].result)
			io_count_error(t, c[i].result, id);
		stg_buf_release(c[i].buf);
		/* passes after the first must find the file cold again */
		if (evict && stg_cache_evict(t->run->rootfd,
				stg_dataset_relpath(t->run->ds, id, NULL)))
			t->evict_errors++;
	}
}

/* Fill the reader with claimed files; returns false when none are left. */
static bool io_fill(struct io_thread *t)
{
	struct io_run *run = t->run;

	for (;;) {
		struct stg_read_req req;
		uint64_t tk;
		size_t id;
		int64_t size;
		int err;

		if (io_stop || (run->t_deadline && io_now_ns() >= run->t_deadline))
			return false;
		tk = atomic_fetch_add_explicit(&run->ticket, 1,
					       memory_order_relaxed);
		if (run->limit && tk >= run->limit)
			return false;
		id = (size_t)(tk % run->count);
		size = stg_dataset_size(run->ds, id);
		req.dirfd = run->rootfd;
		req.name = stg_dataset_relpath(run->ds, id, NULL);
		req.size = size < 0 ? STG_SIZE_UNKNOWN : (uint64_t)size;
		req.user_data = id;
		err = stg_reader_submit(t->r, &req);
		while (err == -EAGAIN && stg_reader_pending(t->r)) {
			/* full (buffers): this ticket is ours, so make room
			 * and submit it again */
			struct stg_completion c[IO_BATCH];
			int n = stg_reader_reap(t->r, c, IO_BATCH, -1);

			if (n < 0)
				break;
			io_handle(t, c, n);
			err = stg_reader_submit(t->r, &req);
		}
		if (err) {
			io_count_error(t, err, id);
			t->submit_errors++;
			continue;
		}
		if (stg_reader_pending(t->r) >= t->run->o->rc.depth)
			return true;
	}
}

static void io_drain(struct io_thread *t)
{
	struct stg_completion c[IO_BATCH];
	int n;

	do {
		n = stg_reader_reap(t->r, c, IO_BATCH, -1);
		if (n > 0)
			io_handle(t, c, n);
	} while (n == IO_BATCH);
}

static void *io_thread_main(void *arg)
{
	struct io_thread *t = arg;
	struct io_run *run = t->run;

	t->err = stg_reader_create(&run->o->rc, &t->r);
	pthread_barrier_wait(&run->ready);
	pthread_barrier_wait(&run->go);
	if (t->err)
		return NULL;
	t->backend = stg_reader_backend(t->r);
	snprintf(t->reason, sizeof(t->reason), "%s",
		 stg_reader_backend_reason(t->r));
	for (;;) {
		bool more = io_fill(t);

		if (!more && !stg_reader_pending(t->r))
			break;
		io_drain(t);
		if (!more) {
			while (stg_reader_pending(t->r))
				io_drain(t);
			break;
		}
	}
	t->t_end = io_now_ns();
	stg_reader_stats(t->r, &t->st);
	snprintf(t->notes, sizeof(t->notes), "%s", stg_reader_notes(t->r));
	stg_reader_destroy(t->r);
	t->r = NULL;
	return NULL;
}

static void io_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000ull)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
}

static const double io_pcts[] = { 50.0, 90.0, 99.0, 99.9 };

static char *io_example_text(const struct io_run *run, size_t id)
{
	size_t len;
	const char *rel = stg_dataset_relpath(run->ds, id, &len);

	return rel ? rpt_path_text(rel, len) : NULL;
}

static int io_write_json(const struct io_opts *o, const struct io_run *run,
			 const struct io_thread *sum, double secs,
			 const char *cache_text)
{
	json_t *root = json_object(), *pct = json_object(), *clat = json_object();
	json_t *errs = json_object(), *kinds = json_object(), *opts = json_object();
	json_t *lerr = json_object();
	json_t *lex = json_object();
	char key[32];
	int err;

	if (!root || !pct || !clat || !errs || !kinds || !opts || !lerr ||
	    !lex) {
		err = -ENOMEM;
		goto out;
	}
	json_object_set_new(root, "command", json_string("io"));
	json_object_set_new(root, "dataset", rpt_json_path(o->dataset));
	json_object_set_new(root, "backend",
			    json_string(stg_backend_name(sum->backend)));
	json_object_set_new(root, "backend_reason", json_string(sum->reason));
	json_object_set_new(root, "notes", json_string(sum->notes));
	json_object_set_new(opts, "threads", json_integer(o->threads));
	json_object_set_new(opts, "depth", json_integer(o->rc.depth));
	json_object_set_new(opts, "block_size", json_integer(o->rc.block_size));
	json_object_set_new(opts, "cache", json_string(cache_text));
	json_object_set_new(opts, "direct", json_boolean(o->rc.direct));
	json_object_set_new(opts, "duration_s", json_real(o->duration));
	json_object_set_new(opts, "max_sample_bytes",
			    json_integer((json_int_t)o->max_sample_bytes));
	json_object_set_new(root, "options", opts);
	opts = NULL;
	json_object_set_new(root, "files_listed", json_integer((json_int_t)run->count));
	json_object_set_new(root, "files", json_integer((json_int_t)sum->st.files_ok));
	json_object_set_new(root, "io_bytes", json_integer((json_int_t)sum->st.bytes));
	json_object_set_new(root, "total_ios", json_integer((json_int_t)sum->st.reads));
	json_object_set_new(root, "runtime_s", json_real(secs));
	json_object_set_new(root, "bw_bytes",
			    json_integer((json_int_t)(secs > 0 ? (double)sum->st.bytes / secs : 0)));
	json_object_set_new(root, "iops", json_real(secs > 0 ? (double)sum->st.reads / secs : 0));
	json_object_set_new(root, "files_per_s",
			    json_real(secs > 0 ? (double)sum->st.files_ok / secs : 0));
	for (unsigned i = 0; i < sizeof(io_pcts) / sizeof(io_pcts[0]); i++) {
		snprintf(key, sizeof(key), "%f", io_pcts[i]);
		json_object_set_new(pct, key, json_integer((json_int_t)
			stg_histo_percentile(&sum->st.clat, io_pcts[i])));
	}
	json_object_set_new(clat, "min", json_integer((json_int_t)
		(sum->st.clat.count ? sum->st.clat.min : 0)));
	json_object_set_new(clat, "max", json_integer((json_int_t)sum->st.clat.max));
	json_object_set_new(clat, "mean", json_real(stg_histo_mean(&sum->st.clat)));
	json_object_set_new(clat, "percentile", pct);
	pct = NULL;
	json_object_set_new(root, "clat_ns", clat);
	clat = NULL;
	json_object_set_new(errs, "total", json_integer((json_int_t)sum->st.errors));
	for (unsigned i = 0; i < sum->nkinds; i++) {
		json_t *k = json_object();
		char *ex = io_example_text(run, sum->kinds[i].example);

		json_object_set_new(k, "count",
				    json_integer((json_int_t)sum->kinds[i].count));
		json_object_set_new(k, "message",
				    json_string(stg_strerror(sum->kinds[i].code)));
		json_object_set_new(k, "example", ex ? json_string(ex) : json_null());
		free(ex);
		json_object_set_new(kinds, stg_errname(sum->kinds[i].code), k);
	}
	json_object_set_new(errs, "kinds", kinds);
	kinds = NULL;
	json_object_set_new(root, "errors", errs);
	errs = NULL;
	for (int k = 0; k < STG_DS_ERR_COUNT; k++) {
		uint64_t n = stg_dataset_errors(run->ds, (enum stg_ds_err)k);
		const char *ex = stg_dataset_error_example(run->ds,
							   (enum stg_ds_err)k);

		if (!n)
			continue;
		json_object_set_new(lerr, stg_ds_err_name((enum stg_ds_err)k),
				    json_integer((json_int_t)n));
		/* one example path per kind, beside the counts */
		if (ex)
			json_object_set_new(lex,
					    stg_ds_err_name((enum stg_ds_err)k),
					    rpt_json_path(ex));
	}
	json_object_set_new(root, "listing_errors", lerr);
	lerr = NULL;
	json_object_set_new(root, "listing_error_examples", lex);
	lex = NULL;
	err = rpt_json_write(root, o->json);
out:
	json_decref(root);
	json_decref(pct);
	json_decref(clat);
	json_decref(errs);
	json_decref(kinds);
	json_decref(opts);
	json_decref(lerr);
	json_decref(lex);
	return err;
}

static void io_print(const struct io_opts *o, const struct io_run *run,
		     const struct io_thread *sum, double secs,
		     const char *cache_text, uint64_t evict_errors)
{
	FILE *f = (o->json && !strcmp(o->json, "-")) ? stderr : stdout;
	char *ds = rpt_path_text(o->dataset, strlen(o->dataset));
	double mb = (double)sum->st.bytes / 1e6;
	char p[4][32];

	fprintf(f, "feedrate io: %s\n", ds ? ds : "?");
	free(ds);
	fprintf(f, "  backend   %s (%s)\n", stg_backend_name(sum->backend),
		sum->reason);
	if (sum->notes[0])
		fprintf(f, "  notes     %s\n", sum->notes);
	fprintf(f, "  setup     %u thread%s, depth %u, block %u KiB, cache %s%s\n",
		o->threads, o->threads == 1 ? "" : "s", o->rc.depth,
		o->rc.block_size / 1024, cache_text,
		o->rc.direct ? ", O_DIRECT" : "");
	fprintf(f, "  read      %llu of %zu files, %.1f MB in %.3f s\n",
		(unsigned long long)sum->st.files_ok, run->count, mb, secs);
	fprintf(f, "  speed     %.1f MB/s, %.0f files/s, %.0f IOPS\n",
		secs > 0 ? mb / secs : 0.0,
		secs > 0 ? (double)sum->st.files_ok / secs : 0.0,
		secs > 0 ? (double)sum->st.reads / secs : 0.0);
	for (int i = 0; i < 4; i++)
		io_fmt_ns(p[i], sizeof(p[i]),
			  stg_histo_percentile(&sum->st.clat, io_pcts[i]));
	fprintf(f, "  clat      p50 %s, p90 %s, p99 %s, p99.9 %s\n",
		p[0], p[1], p[2], p[3]);
	if (!sum->st.errors) {
		fprintf(f, "  errors    none\n");
	} else {
		fprintf(f, "  errors    %llu\n", (unsigned long long)sum->st.errors);
		for (unsigned i = 0; i < sum->nkinds; i++) {
			char *ex = io_example_text(run, sum->kinds[i].example);

			fprintf(f, "    %-10s %llu  %s, e.g. %s\n",
				stg_errname(sum->kinds[i].code),
				(unsigned long long)sum->kinds[i].count,
				stg_strerror(sum->kinds[i].code), ex ? ex : "?");
			free(ex);
		}
	}
	for (int k = 0; k < STG_DS_ERR_COUNT; k++) {
		uint64_t n = stg_dataset_errors(run->ds, (enum stg_ds_err)k);
		const char *ex = stg_dataset_error_example(run->ds,
							   (enum stg_ds_err)k);
		char *ext;

		if (!n)
			continue;
		ext = ex ? rpt_path_text(ex, strlen(ex)) : NULL;
		fprintf(f, "  listing   %llu %s, e.g. %s\n", (unsigned long long)n,
			stg_ds_err_name((enum stg_ds_err)k), ext ? ext : "?");
		free(ext);
	}
	if (evict_errors)
		fprintf(f, "  cache     %llu files could not be evicted\n",
			(unsigned long long)evict_errors);
}

/* Add thread T's results into SUM. */
static void io_merge(struct io_thread *sum, const struct io_thread *t)
{
	sum->st.files_ok += t->st.files_ok;
	sum->st.bytes += t->st.bytes;
	sum->st.reads += t->st.reads;
	sum->st.errors += t->st.errors;
	sum->st.too_large += t->st.too_large;
	sum->st.direct_refused += t->st.direct_refused;
	stg_histo_merge(&sum->st.clat, &t->st.clat);
	sum->evict_errors += t->evict_errors;
	sum->st.errors += t->submit_errors;
	for (unsigned i = 0; i < t->nkinds; i++) {
		unsigned j;

		for (j = 0; j < sum->nkinds; j++)
			if (sum->kinds[j].code == t->kinds[i].code)
				break;
		if (j == sum->nkinds) {
			if (sum->nkinds == IO_MAX_KINDS)
				continue;
			sum->kinds[sum->nkinds++] = (struct io_kind){
				t->kinds[i].code, 0, t->kinds[i].example };
		}
		sum->kinds[j].count += t->kinds[i].count;
	}
	if (t->t_end > sum->t_end)
		sum->t_end = t->t_end;
}

static int io_prepare_cache(const struct io_opts *o, struct io_run *run,
			    uint64_t *errors)
{
	if (o->cache == IO_CACHE_COLD)
		return stg_cache_dataset_evict(run->ds, errors);
	if (o->cache == IO_CACHE_WARM)
		return stg_cache_dataset_warm(run->ds, errors);
	return 0;
}

/*
 * After warming: does a fresh open still find a warmed file resident? A
 * FUSE mount without kernel_cache (s3fs's default) drops a file's pages at
 * every open, so "warm" there re-fetches every file; say so rather than
 * let the numbers pass for page-cache reads.
 */
static void io_check_warm(const struct io_run *run)
{
	for (size_t id = 0; id < run->count && id < 8; id++) {
		uint64_t res, total;

		if (stg_dataset_size(run->ds, id) <= 0 ||
		    stg_cache_residency(run->rootfd,
					stg_dataset_relpath(run->ds, id, NULL),
					&res, &total) || !total)
			continue;
		if (res * 2 < total)
			fprintf(stderr, "feedrate io: --cache warm: a warmed "
				"file is not resident after a re-open; this "
				"filesystem drops a file's page cache at every "
				"open (FUSE without kernel_cache), so every read "
				"below fetches from the storage\n");
		return;
	}
}

int cmd_io(int argc, char **argv)
{
	struct io_opts o;
	struct io_run run;
	struct io_thread *th = NULL, sum;
	struct stg_probe_result probe;
	struct sigaction sa, old_int, old_term;
	uint64_t cache_errors = 0;
	const char *cache_text;
	double secs;
	int ret, err;

	ret = io_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? FR_EXIT_OK : ret;
	memset(&run, 0, sizeof(run));
	run.o = &o;
	run.rootfd = -1;
	if (o.list)
		err = stg_dataset_load_list(o.list, o.dataset, NULL, &run.ds);
	else
		err = stg_dataset_scan(o.dataset, NULL, &run.ds);
	if (err) {
		char *t = rpt_path_text(o.list ? o.list : o.dataset,
					strlen(o.list ? o.list : o.dataset));

		fprintf(stderr, "feedrate io: cannot list %s: %s\n", t ? t : "?",
			strerror(-err));
		free(t);
		return FR_EXIT_ENV;
	}
	run.count = stg_dataset_count(run.ds);
	run.rootfd = open(stg_dataset_root(run.ds),
			  O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (run.rootfd < 0) {
		fprintf(stderr, "feedrate io: cannot open the dataset folder: "
			"%s\n", strerror(errno));
		ret = FR_EXIT_ENV;
		goto out_ds;
	}
	/* the pool needs room for the largest file that will be read */
	o.rc.max_sample_bytes = o.max_sample_bytes;
	if (run.count && stg_dataset_max_size(run.ds) < o.max_sample_bytes)
		o.rc.max_sample_bytes = stg_dataset_max_size(run.ds);
	if (!o.rc.max_sample_bytes)
		o.rc.max_sample_bytes = 4096;
	cache_text = o.cache == IO_CACHE_COLD ? "cold" :
		     o.cache == IO_CACHE_WARM ? "warm" : "as found";
	if (run.count && o.rc.backend != STG_BACKEND_NULL &&
	    io_prepare_cache(&o, &run, &cache_errors) < 0)
		fprintf(stderr, "feedrate io: the page cache could not be made "
			"%s for any file\n", cache_text);
	else if (run.count && o.cache == IO_CACHE_WARM &&
		 o.rc.backend != STG_BACKEND_NULL)
		io_check_warm(&run);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = io_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	if (o.rc.backend == STG_BACKEND_AUTO && run.count) {
		/* choose by measuring here, at this depth and cache state;
		 * the probe's reads are not counted below */
		const struct stg_probe_opts po = {
			.evict = o.cache == IO_CACHE_COLD,
			.stop = (volatile int *)&io_stop,
		};

		stg_backend_probe(run.ds, &o.rc, &po, &probe);
		o.rc.backend = probe.chosen;
		o.rc.reason = probe.reason;
	}

	th = calloc(o.threads, sizeof(*th));
	if (!th) {
		ret = FR_EXIT_ENV;
		goto out_sig;
	}
	run.limit = o.duration > 0 ? 0 : run.count;
	atomic_init(&run.ticket, 0);
	pthread_barrier_init(&run.ready, NULL, o.threads + 1);
	pthread_barrier_init(&run.go, NULL, o.threads + 1);
	if (!run.count) {
		run.limit = 0;
		run.t_deadline = 1;     /* nothing to read: stop at once */
	}
	for (unsigned i = 0; i < o.threads; i++) {
		th[i].run = &run;
		err = pthread_create(&th[i].tid, NULL, io_thread_main, &th[i]);
		if (err) {
			fprintf(stderr, "feedrate io: cannot start a thread: "
				"%s\n", strerror(err));
			_exit(FR_EXIT_ENV);
		}
	}
	pthread_barrier_wait(&run.ready);
	err = 0;
	for (unsigned i = 0; i < o.threads; i++)
		if (th[i].err && !err)
			err = th[i].err;
	if (err) {
		io_stop = -1;
		pthread_barrier_wait(&run.go);
		for (unsigned i = 0; i < o.threads; i++) {
			pthread_join(th[i].tid, NULL);
			stg_reader_destroy(th[i].r);
		}
		fprintf(stderr, "feedrate io: cannot start the %s backend: %s\n",
			stg_backend_name(o.rc.backend), strerror(-err));
		if (o.rc.backend == STG_BACKEND_URING) {
			char why[400];

			stg_uring_probe(why, sizeof(why));
			fprintf(stderr, "  %s\n", why);
		}
		ret = FR_EXIT_ENV;
		goto out_barrier;
	}
	run.t_start = io_now_ns();
	if (o.duration > 0)
		run.t_deadline = run.t_start + (uint64_t)(o.duration * 1e9);
	pthread_barrier_wait(&run.go);
	memset(&sum, 0, sizeof(sum));
	stg_histo_init(&sum.st.clat);
	for (unsigned i = 0; i < o.threads; i++) {
		pthread_join(th[i].tid, NULL);
		io_merge(&sum, &th[i]);
	}
	sum.backend = th[0].backend;
	memcpy(sum.reason, th[0].reason, sizeof(sum.reason));
	memcpy(sum.notes, th[0].notes, sizeof(sum.notes));
	if (!run.count)
		sum.backend = o.rc.backend;
	secs = sum.t_end > run.t_start ? (double)(sum.t_end - run.t_start) / 1e9
				       : 0.0;
	io_print(&o, &run, &sum, secs, cache_text,
		 cache_errors + sum.evict_errors);
	ret = FR_EXIT_OK;
	if (o.json) {
		err = io_write_json(&o, &run, &sum, secs, cache_text);
		if (err) {
			fprintf(stderr, "feedrate io: cannot write %s: %s\n",
				o.json, strerror(-err));
			ret = FR_EXIT_ENV;
		}
	}
	if (ret == FR_EXIT_OK && sum.st.errors)
		ret = FR_EXIT_SAMPLE_ERRORS;
	if (io_stop == SIGINT)
		ret = FR_EXIT_SIGINT;
	else if (io_stop == SIGTERM)
		ret = FR_EXIT_SIGTERM;
out_barrier:
	pthread_barrier_destroy(&run.ready);
	pthread_barrier_destroy(&run.go);
	free(th);
out_sig:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	close(run.rootfd);
out_ds:
	stg_dataset_destroy(run.ds);
	return ret;
}
