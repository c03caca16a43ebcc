/*
 * measure_opts.h - what run, sweep and ckpt ask the same way (workload
 * and GPUs, the engine's knobs, the dataset, the pipelines), and how a
 * dataset and a point are set up from it (measure_opts.c). The command
 * line fills it (cli/common_opts.c); errors are the caller's to say.
 */
#ifndef FEEDRATE_MEASURE_OPTS_H
#define FEEDRATE_MEASURE_OPTS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "cluster.h"
#include "keys.h"
#include "measure.h"

#define MS_PIPELINES_MAX 4              /* --pipeline native,torch,... */
#define MS_MAX_SAMPLE_BYTES (64ull << 20)  /* run, sweep: without the
                                           workload's */
#define MS_RUN_SOLO_S 5.0               /* run --solo: a rank's reads
                                           alone, cold */

struct ms_common_opts {
	const char *workload;
	const char *gpus;               /* --gpus as given, NULL default */
	double gpu_rate;                /* 0: from the table */
	enum wl_demand_kind demand;
	bool demand_given;              /* --demand given (else the
	                                   workload's default_demand) */
	enum ldr_gpu_sync sync;
	unsigned batch;                 /* 0: the workload's, else
	                                   LDR_DEFAULT_BATCH */
	unsigned readers, depth;
	enum stg_backend_id backend;
	uint64_t seed, max_errors, max_sample_bytes, gen_size;
	bool max_sample_bytes_given;    /* else the workload's, if it has
	                                   one */
	const char *list, *json, *tmpdir;
	bool keep;                      /* --keep-dataset */
	const char *dataset;            /* NULL: generate one */
	/* --pipeline LIST, --python PATH, --workers W, --runner-timeout */
	struct ms_pipeline_spec pipes[MS_PIPELINES_MAX];
	unsigned npipes;                /* >= 1 after ms_common_defaults */
	char pipe_buf[1024];            /* the list as given; FILEs point in */
	unsigned workers;               /* --workers; 0: the default */
	const char *python;             /* --python, NULL: python3 on PATH */
	double runner_timeout;          /* 0: MS_PYTHON_TIMEOUT_S */
	/* --format, --shuffle-buffer, --read-size */
	enum wl_format format;          /* AUTO: detect */
	unsigned shuffle_buffer;        /* 0: LDR_DEFAULT_SHUFFLE_BUFFER */
	uint32_t read_size;             /* 0: STG_STREAM_BLOCK_DEFAULT */
};

/* --ram's value where a command takes a list of page-cache sizes. */
struct ms_ram_list {
	struct ms_ram_size v[MS_RAM_SIZES_MAX];
	unsigned n;
};

/*
 * The option rows' parsers (WL_K_CUSTOM) of what only measure/ types
 * hold: ms_val_ram, --ram: a size of at least MS_RAM_MIN_BYTES into a
 * uint64_t, or where the command takes a list, ms_ram_sizes_parse's list
 * into a struct ms_ram_list. ms_val_pipeline, --pipeline: one pipeline,
 * or a list of up to MS_PIPELINES_MAX, into the struct ms_common_opts at
 * DST. 0 or -EINVAL.
 */
wl_key_parse ms_val_ram, ms_val_pipeline;

/* *O zeroed, then the defaults (imagenet, tuned demand, GPUs in step,
 * 1 reader, LDR_DEFAULT_DEPTH, seed 1, 64M samples at most, a default
 * generated dataset). */
void ms_common_defaults(struct ms_common_opts *o);

/*
 * What O did not set, taken from workload W: --batch (W->batch),
 * --demand (W->default_demand), --max-sample-bytes (W->max_sample_bytes).
 * An option the user gave always wins.
 */
void ms_common_from_workload(struct ms_common_opts *o,
			     const struct wl_workload *w);

/* *D: the dataset O asks for workload W (TAG names a generated folder,
 * STOP is polled); no progress callback. */
void ms_common_dataset_opts(const struct ms_common_opts *o,
			    const struct wl_workload *w, const char *tag,
			    volatile sig_atomic_t *stop,
			    struct ms_dataset_opts *d);

/* A point of the common options: what it is measured on and with. */
struct ms_point_ask {
	const struct ms_common_opts *o;
	const struct wl_workload *w;
	const struct ms_gpus *gs;       /* judged against */
	const struct ms_dataset *md;
	const struct ms_pipeline_spec *pipe;  /* one of O's pipelines; NULL:
	                                   the native one, no transform of
	                                   its own */
	volatile sig_atomic_t *stop;
	stg_prep_progress_fn prep_progress;  /* NULL: none */
	void *prep_progress_arg;
};

/*
 * *P: the point A asks for (its window, cache and vCPUs left 0 for the
 * caller), with its transform (TS holds its state and must outlive P,
 * PIPELINE gets it in words) and, for A->pipe gpu-decode, gpu-decode's.
 * Returns 0, -ENOTSUP (the workload has no pipeline to measure) or the
 * transform's -errno; WHY says which.
 */
int ms_point_from_opts(const struct ms_point_ask *a, struct ms_point *p,
		       struct wl_transform_state *ts, char *pipeline,
		       size_t len, char *why, size_t why_len);

/* The records of an epoch of MD: its shards' records, else its files;
 * 0 when nothing is open. */
uint64_t ms_dataset_records(const struct ms_dataset *md);

/* ---- under mpirun ---- */

/* `run` under mpirun: what this rank asks of its point. */
struct ms_cluster_run_ask {
	const struct ms_common_opts *o;
	struct ms_point *p;             /* this rank's, set up from O */
	const struct ms_dataset *md;
	bool open_failed;               /* MD could not be opened */
	bool point_failed;              /* P could not be set up */
	double warmup_s;                /* --warmup: 0 default, < 0 none */
	double solo_s;                  /* --solo: <= 0 MS_RUN_SOLO_S */
	double window_s;                /* P's window; 0: epochs or samples */
	const double *solo;             /* the ranks' reads alone; NULL */
};

/* *C (its say left to the caller) and rank 0's check *CK of the point A
 * asks: the gate's margin (the warm-up and 3 s), the reads alone, the
 * text a failed rank sends, the exactly-once check's records. */
void ms_cluster_run_make(const struct ms_cluster_run_ask *a,
			 struct ms_cluster_run_cfg *c,
			 struct ms_cluster_check *ck);

/* *C's part of O's cluster sweep on MD (FAILED: MD could not be opened
 * on this rank): the reader, the records an epoch, the seed. The axes,
 * the budget and the callbacks are the caller's; the rest zeroed. */
void ms_cluster_sweep_make(const struct ms_common_opts *o,
			   const struct ms_dataset *md, bool failed,
			   struct ms_cluster_sweep_cfg *c);

#endif
