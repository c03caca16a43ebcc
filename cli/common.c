/*
 * common.c - what the commands share past their options (those are in
 * common_opts.c): the dataset and GPUs run and sweep open, messages and
 * exit codes for measure/'s -errno, report paths and files, and the stop
 * flag the signal handler sets.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "jobfile.h"
#include "report.h"
#include "cluster.h"
#include "rpt_text.h"

volatile sig_atomic_t cli_stop;

/* ---- messages, exit codes, signals ---- */

void cli_print_path(FILE *f, const char *p)
{
	rpt_put_path(f, p);
}

int cli_exit_for_signal(int sig)
{
	return sig == SIGTERM ? FR_EXIT_SIGTERM : FR_EXIT_SIGINT;
}

int cli_fail(const char *cmd, int err, int sig, const char *why)
{
	fprintf(stderr, "feedrate %s: ", cmd);
	cli_print_path(stderr, why && *why ? why : strerror(-err));
	fputc('\n', stderr);
	if (err == -EINTR)
		return cli_exit_for_signal(sig ? sig : SIGINT);
	if (err == -EINVAL || err == -ENOTSUP)
		return FR_EXIT_USAGE;
	return FR_EXIT_ENV;
}

static void on_signal(int sig)
{
	cli_stop = sig;
}

void cli_signals_catch(struct sigaction old[2])
{
	struct sigaction sa;

	cli_stop = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
}

void cli_signals_restore(const struct sigaction old[2])
{
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
}

/* ---- the watchdog: stalls, and signals a stuck thread cannot see ---- */

double cli_stall_timeout;

static struct {
	const char *cmd, *json, *schema;
	int version;
	bool running;
} cli_wd;

/* The watchdog's report (its thread; the command's waits in the
 * kernel): what the command can say without its own thread. */
static int watch_report(void *arg, const struct stg_stall *stall, int sig)
{
	FILE *out = cli_wd.json && !strcmp(cli_wd.json, "-") ? stderr :
		    stdout;
	const char *note = stall ? "the command's thread waits in the "
		"kernel on the stalled storage: this report holds what the "
		"command knew when it stopped, and the thread is left to the "
		"kernel" : "interrupted while a thread waits in the kernel "
		"(storage not answering): the command ended without it";
	char line[700];
	struct ms_opened op;    /* what it opened before: dataset, machine */
	int ret;

	(void)arg;
	ms_opened_get(&op);
	if (stall)
		rpt_stall_text(stall, line, sizeof(line));
	fprintf(out, "feedrate %s (PARTIAL: %s)\n", cli_wd.cmd, stall ?
		"the storage STALLED" : "interrupted");
	if (stall)
		fprintf(out, "  %s\n", line);
	fprintf(out, "  %s\n", note);
	rpt_stall_opened_print(out, &op);
	fflush(out);
	ret = stall ? cli_stall_exit(cli_wd.cmd, stall) :
	      cli_exit_for_signal(sig);
	if (cli_wd.json) {
		json_t *root = rpt_stall_partial_json(cli_wd.cmd,
			cli_wd.schema, cli_wd.version, stall, sig, note);

		rpt_stall_partial_opened(root, &op);
		if (root)
			json_object_set_new(root, "feedrate_version",
					    json_string(FEEDRATE_VERSION));
		if (cli_write_report(cli_wd.cmd, cli_wd.json, root, NULL,
				     "JSON") && !stall && !sig)
			ret = FR_EXIT_ENV;
		json_decref(root);
	}
	fflush(stderr);
	ldr_supervised_done(ret);
	return ret;
}

int cli_watch_start(const char *cmd, const char *json, const char *schema,
		    int version)
{
	struct ldr_watchdog_opts o = {
		.stall_timeout_s = cli_stall_timeout,
		.stop = &cli_stop,
		.report = watch_report,
		.no_signal_takeover = cli_cluster != NULL,
	};
	int err;

	cli_wd.cmd = cmd;
	/* under mpirun only rank 0 writes the report file */
	cli_wd.json = cli_cluster && cli_cluster->rank != 0 ? NULL : json;
	cli_wd.schema = schema;
	cli_wd.version = version;
	err = stg_watch_init();
	if (!err)
		err = ldr_watchdog_start(&o);
	if (err)
		return cli_fail(cmd, err, 0, "cannot start the stall watchdog");
	cli_wd.running = true;
	return 0;
}

void cli_watch_stop(void)
{
	if (cli_wd.running)
		ldr_watchdog_stop();
	cli_wd.running = false;
}

void cli_watch_claim(void)
{
	if (cli_wd.running && !ldr_watchdog_claim())
		ldr_watchdog_park();
}

bool cli_watch_stalled(struct stg_stall *out)
{
	return ldr_watchdog_stall(out);
}

int cli_stall_exit(const char *cmd, const struct stg_stall *stall)
{
	char line[700];

	rpt_stall_text(stall, line, sizeof(line));
	fprintf(stderr, "feedrate %s: %s\n", cmd, line);
	return FR_EXIT_STALLED;
}

/* ---- the dataset and the GPUs ---- */

void cli_gen_progress(void *arg, uint64_t bytes, uint64_t target, bool done)
{
	static double last;
	const double t = stg_now();

	if (!done && t - last < 0.2)
		return;
	last = t;
	fprintf(stderr, "\r\033[Kfeedrate %s: generating a dataset: %.0f of "
		"%.0f MB", (const char *)arg, bytes / 1e6, target / 1e6);
	if (done)
		fputc('\n', stderr);
}

int cli_dataset_open(const char *cmd, const struct wl_workload *w,
		     const struct cli_common_opts *o, struct ms_dataset *md)
{
	struct ms_dataset_opts d;
	char why[2048];
	int err;

	memset(&d, 0, sizeof(d));
	d.w = w;
	d.tag = cmd;
	d.dataset = o->dataset;
	d.list = o->list;
	d.tmpdir = o->tmpdir;
	d.gen_size = o->gen_size;
	d.seed = o->seed;
	d.stop = &cli_stop;
	d.format = o->format;
	d.shard.read_size = o->read_size;
	d.shard.shuffle_buffer = o->shuffle_buffer;
	d.shard.max_record = o->max_sample_bytes;
	d.shard.stop = &cli_stop;
	/* token workloads cut windows; a workload may name its payload */
	d.shard.seq_len = w->xform == WL_XFORM_TOKENS ? w->xp.seq_len : 0;
	d.shard.key = w->xp.key;
	if (isatty(STDERR_FILENO)) {
		d.progress = cli_gen_progress;
		d.progress_arg = (void *)cmd;
	}
	err = ms_dataset_open(&d, md, why, sizeof(why));
	if (err)
		return cli_fail(cmd, err, cli_stop, why);
	for (unsigned i = 0; md->shards && i < o->npipes; i++)
		if (ms_pipeline_is_python(&o->pipes[i]))
			return cli_usage_error(cmd, "--pipeline %s reads an "
				"image folder; this dataset is %s shards: "
				"measure them with the native pipeline",
				o->pipes[i].kind == MS_PIPELINE_TORCH ?
				"torch" : "python:FILE",
				wl_format_name(md->format));
	return 0;
}

void cli_dataset_close(const char *cmd, struct ms_dataset *md, bool keep)
{
	char dir[sizeof(md->gen_dir)];

	memcpy(dir, md->gen_dir, sizeof(dir));
	if (dir[0] && keep) {
		fprintf(stderr, "feedrate %s: the generated dataset was kept: ",
			cmd);
		cli_print_path(stderr, dir);
		fputc('\n', stderr);
	}
	if (ms_dataset_close(md, keep) && dir[0]) {
		fprintf(stderr, "feedrate %s: could not remove the temporary "
			"dataset ", cmd);
		cli_print_path(stderr, dir);
		fputc('\n', stderr);
	}
}

int cli_gpus(const char *cmd, const struct wl_workload *w,
	     const struct cli_common_opts *o, struct ms_gpus *gs)
{
	char why[768];
	int err;

	if (w->xform == WL_XFORM_NONE) {
		/* said before anything is generated or read */
		return cli_usage_error(cmd, "workload %s has no pipeline to "
				       "measure", w->name);
	}
	err = ms_gpus_resolve(w, o->gpus, o->demand, o->gpu_rate, gs, why,
			      sizeof(why));

	if (err == -EINVAL) {
		cli_fail(cmd, err, 0, why);
		fprintf(stderr, "Try 'feedrate %s --help'.\n", cmd);
		return FR_EXIT_USAGE;
	}
	return err ? cli_fail(cmd, err, 0, "out of memory") : 0;
}

/* ---- notes and report files ---- */

void cli_note_add(char *notes, size_t len, const char *fmt, ...)
{
	size_t used = strlen(notes);
	va_list ap;

	if (used && used + 2 < len) {
		memcpy(notes + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	rpt_vcat(notes, len, fmt, ap);
	va_end(ap);
}

int cli_write_report(const char *cmd, const char *path, json_t *json,
		     char *text, const char *what)
{
	int err;

	if (json)
		err = rpt_json_write(json, path);
	else
		err = text ? rpt_file_write(path, text, strlen(text)) : -ENOMEM;
	free(text);
	if (!err)
		return 0;
	fprintf(stderr, "feedrate %s: cannot write the %s report to ", cmd,
		what);
	cli_print_path(stderr, path);
	fprintf(stderr, ": %s\n", strerror(-err));
	return FR_EXIT_ENV;
}

/* ---- the point every measurement starts from ---- */

/* Preparation's progress line on a terminal's stderr (cleared by the
 * next line the command prints). */
static int prep_progress_tty(void *arg, enum stg_prep_op op, uint64_t done,
			     uint64_t total, double elapsed_s)
{
	char line[160];

	(void)arg;
	rpt_prep_progress_line(line, sizeof(line), stg_prep_op_name(op),
			       done, total, elapsed_s);
	/* the phase's last call clears it: the report says the times */
	if (done >= total)
		fprintf(stderr, "\r\033[K");
	else
		fprintf(stderr, "\r\033[Kfeedrate: preparing the page "
			"cache: %s", line);
	fflush(stderr);
	return cli_stop != 0;
}

int cli_point_base(const char *cmd, const struct cli_common_opts *o,
		   const struct wl_workload *w, const struct ms_gpus *gs,
		   const struct ms_dataset *md, struct ms_point *p,
		   struct wl_transform_state *ts, char *pipeline, size_t len)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->ds = md->ds;
	p->shards = md->shards ? &md->shards->ldr : NULL;
	p->readers = o->readers;
	p->backend = o->backend;
	p->depth = o->depth;
	p->max_sample_bytes = o->max_sample_bytes;
	p->batch = o->batch;
	p->seed = o->seed;
	p->gpus = gs->count;
	p->gpu_rate = gs->demand;
	p->sync = o->sync;
	p->au_threshold = w->au_threshold;
	p->max_errors = o->max_errors;
	p->stop = (volatile int *)&cli_stop;
	if (isatty(STDERR_FILENO))
		p->prep_progress = prep_progress_tty;
	err = wl_transform_make(w, ts, &p->transform, pipeline, len);
	if (err == -ENOTSUP) {
		fprintf(stderr, "feedrate %s: workload %s has no pipeline to "
			"measure\n", cmd, w->name);
		return FR_EXIT_USAGE;
	}
	if (err)
		return cli_fail(cmd, err, 0, "the transform cannot start");
	if (md->shards)     /* records are unwrapped before the decode */
		wl_shardset_transform(md->shards, &p->transform,
				      &p->transform);
	return 0;
}

int cli_check_reports(const char *cmd, const char *const *paths, size_t n,
		      const char *dataset, const char *list)
{
	/* a report never overwrites what the run reads, job file included */
	const char *roots[3] = { dataset, list, cli_job_file() };
	char why[1024];

	for (size_t k = 0; k < n; k++) {
		if (!paths[k])
			continue;
		if (rpt_out_path_check(paths[k], roots, 3, why, sizeof(why))) {
			/* WHY is printable already */
			fprintf(stderr, "feedrate %s: %s\nTry 'feedrate %s "
				"--help'.\n", cmd, why, cmd);
			return FR_EXIT_USAGE;
		}
		for (size_t j = 0; j < k; j++)
			if (paths[j] && rpt_out_path_same(paths[j], paths[k]))
				return cli_usage_error(cmd, strcmp(paths[k],
					"-") ? "two reports name one file" :
					"only one report can go to stdout "
					"('-')");
	}
	return 0;
}
