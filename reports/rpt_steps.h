/*
 * rpt_steps.h - the commands' steps in words, past their options: what
 * each says while it runs (progress callbacks), what it refuses before
 * it starts, and its end (the reports printed and written, the exit
 * code). One thread each; the progress callbacks run where their
 * measure/ or gen/ function calls them, the watchdog's report on its
 * thread.
 */
#ifndef FEEDRATE_RPT_STEPS_H
#define FEEDRATE_RPT_STEPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gen_write.h"
#include "measure.h"
#include "measure_opts.h"
#include "report.h"
#include "report_ckpt.h"

/*
 * `feedrate info` past its options (reports/rpt_info_run.c): the machine
 * (steal sampled over INTERVAL s), and with PATH its filesystem, dataset
 * format and, with PROBE, the page-cache probe; the text report on stdout
 * (not when JSON is "-"), the JSON to JSON when given; PATH's failure
 * said on stderr. Returns 0 or FR_EXIT_ENV (PATH cannot be looked at,
 * JSON cannot be written, out of memory).
 */
int rpt_info_run(const char *path, double interval, bool probe,
		 const char *json);

/*
 * io's end on one node: the text report (on stderr when JSON is "-",
 * else stdout), the JSON to JSON when given, a stall the watchdog saw.
 * Returns the exit code: the stall's, FR_EXIT_ENV (JSON unwritable),
 * FR_EXIT_SAMPLE_ERRORS (read or listing errors), else FR_EXIT_OK.
 */
int rpt_iorun_report(const struct rpt_setup *setup,
		     const struct ms_io_config *cfg,
		     const struct ms_io_result *res, const char *json);

/* ms_io_run's progress (ARG unused): a page-cache problem said on
 * stderr before the run. */
void rpt_iorun_progress(enum ms_io_event ev, const struct ms_io_result *sofar,
			void *arg);

/* gen's summary on F of what request G (checked, run) wrote: the line of
 * its kind (rpt_gen_done), with the zstd level and jobs it ran with. */
void rpt_gen_request_done(FILE *f, const struct wl_gen_request *g,
			  const struct wl_gen_stats *st,
			  const struct wl_shard_stats *sst);

/* gen's progress (a wl_gen_opts progress; ARG unused): rpt_gen_progress
 * on stderr, at most ten times a second; for a terminal. Called by one
 * worker at a time. */
void rpt_gen_progress_tty(void *arg, const struct wl_gen_stats *st,
			  bool done);

/* Request G failed with RC (wl_gen_request_run's; ERRPATH where): said
 * on F (rpt_gen_failed). Returns the exit code: FR_EXIT_USAGE for DIR
 * not an empty folder, SIG's for -EINTR, else FR_EXIT_ENV. */
int rpt_gen_request_failed(FILE *f, const struct wl_gen_request *g, int rc,
			   const struct wl_gen_stats *st,
			   const struct wl_shard_stats *sst,
			   const char *errpath, int sig);

/* ---- what the commands share (reports/rpt_steps.c) ---- */

/*
 * Before anything is read: for each Python pipeline of PIPES (N), the
 * FILE can be read (else FR_EXIT_USAGE) and interpreter PYTHON (NULL:
 * python3 on PATH; runner deadline TIMEOUT_S, 0 the default) has what it
 * needs (ms_python_probe: else the message naming the interpreter, the
 * module, its packages and --python, and FR_EXIT_ENV). INFO (N entries)
 * gets each probe's versions. Returns 0 or the exit code (said for CMD).
 */
int rpt_pipelines_check(const char *cmd, const struct ms_pipeline_spec *pipes,
			unsigned n, const char *python, double timeout_s,
			struct ms_python_info *info);

/* The watchdog's report (its thread, while the command's waits in the
 * kernel; ARG: the struct rpt_partial naming it): rpt_partial_write with
 * what the command opened, then the supervised process ends with its
 * status. Returns that status. */
int rpt_watch_report(void *arg, const struct stg_stall *stall, int sig);

/* ---- run and sweep set up from their common options (rpt_steps.c) ----
 * Each returns 0 or the exit code, said for CMD. */

/* --workload NAME into *W (wl_workload_resolve): FR_EXIT_USAGE or
 * FR_EXIT_ENV. */
int rpt_workload(const char *cmd, const char *name,
		 const struct wl_workload **w);

/* The GPUs O asks of workload W (--gpus, --gpu-rate, --demand) into *GS,
 * and gpu-decode's path in O's pipelines (ms_gpu_decode_resolve). */
int rpt_gpus(const char *cmd, const struct wl_workload *w,
	     struct ms_common_opts *o, struct ms_gpus *gs);

/* The dataset O asks for W into *MD (generated without a DATASET, a
 * progress line on a terminal; STOP polled), and O's pipelines fit it. */
int rpt_dataset_open(const char *cmd, const struct wl_workload *w,
		     const struct ms_common_opts *o,
		     volatile sig_atomic_t *stop, struct ms_dataset *md);

/* Close MD (KEEP: --keep-dataset), saying where a kept one is. */
void rpt_dataset_close(const char *cmd, struct ms_dataset *md, bool keep);

/* ms_point_from_opts on A into *P (TS, PIPELINE as there), with the
 * preparation's progress line on a terminal (A->stop its argument). */
int rpt_point(const char *cmd, const struct ms_point_ask *a,
	      struct ms_point *p, struct wl_transform_state *ts,
	      char *pipeline, size_t len);

/* ---- ckpt (reports/rpt_ckpt_run.c) ---- */

/* The bytes A asks for (--params x --bytes-per-param, or --size) into
 * *BYTES: 0, or FR_EXIT_USAGE (said) when out of range. */
int rpt_ckpt_bytes(const struct rpt_ckpt_ask *a, uint64_t *bytes);

/* ms_ckpt_run's progress (ARG unused): writing, then saved, on stderr. */
void rpt_ckpt_progress(enum ms_ckpt_event ev, const struct ms_ckpt_result *r,
		       void *arg);

/* DIR refused before anything is written (ms_ckpt_check_dir), said with
 * its numbers: 0, FR_EXIT_USAGE (not an empty folder, no room) or
 * FR_EXIT_ENV. */
int rpt_ckpt_check_dir(const char *dir, uint64_t bytes);

/* R zeroed, with its setup: DIR's machine and storage, the GPUs GS (the
 * machine is static: one report at a time). */
void rpt_ckpt_setup(const char *dir, const struct ms_gpus *gs,
		    struct rpt_ckpt *r);

/*
 * The end of a ckpt run that returned ERR: R printed (on stderr when
 * JSON is "-") and written to JSON. Returns the exit code: SIG's (or
 * SIGINT's for -EINTR), a stall's, the report file's, FR_EXIT_USAGE for
 * a folder that changed, FR_EXIT_ENV for another ERR, else FR_EXIT_OK.
 */
int rpt_ckpt_end(const struct rpt_ckpt *r, const char *json, int err,
		 int sig);

#endif /* FEEDRATE_RPT_STEPS_H */
