/*
 * rpt_setup.h - the report kit's setup: what a command measured, where and
 * against what (the workload, the dataset and the storage under it, the
 * machine, the GPUs judged against, the engine's knobs), the same struct
 * in the run, sweep, io, ckpt and cluster reports. Filled in one place
 * (rpt_setup_fill, from what the command opened), written in one place
 * (rpt_setup_json: each report's setup keys, as its schema names them).
 *
 * Strings are borrowed: from the command's options, measure/'s structs or
 * static tables; whatever they point to must outlive the report. Paths
 * are raw bytes, escaped where they are written.
 */
#ifndef FEEDRATE_RPT_SETUP_H
#define FEEDRATE_RPT_SETUP_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "storage.h"

struct rpt_setup {
	const char *version;            /* feedrate's */
	/* what was measured */
	const char *workload;           /* "imagenet"; NULL none (io, ckpt) */
	const char *workload_file;      /* its job file: "builtin:NAME.ini"
	                                   or a path (raw bytes) */
	const char *dataset;            /* the folder read (ckpt: written);
	                                   raw bytes */
	const char *list;               /* --list file, or NULL */
	bool generated;                 /* a temporary synthetic dataset */
	bool kept;                      /* ... and it was kept */
	uint64_t files, bytes;          /* the listing */
	const char *format;             /* "folder", "wds", "mds", ...; NULL
	                                   not known (io) */
	uint64_t records;               /* samples per epoch (folder: files;
	                                   shards: their records) */
	uint64_t compressed_shards;
	const char *records_source;     /* "index", "cache", "scanned",
	                                   "estimated" (the weakest a shard's
	                                   count came from); "listing": files */
	unsigned count_warnings;        /* side index / count cache problems */
	const char *count_warning;      /* the first, NULL none */
	/* the storage under it */
	const char *fs_type;            /* "ext4", "fuse.s3fs"; "" unknown */
	const char *fs_device;          /* "name: model", "" unknown */
	const char *fs_server;          /* "127.0.0.1:/export", "" unknown */
	bool fs_network;
	/* the machine */
	const char *cpu_model;
	unsigned vcpus_total;           /* usable CPUs */
	int threads_per_core;           /* largest SMT sibling group; <= 0
	                                   unknown */
	enum stg_vcpu_kind vcpu_kind;   /* what one vCPU is here */
	uint64_t ram_total, ram_available;
	int64_t cgroup_limit;           /* -1 none */
	const char *instance_type, *vendor;   /* DMI, "" unknown */
	int gpus_present;               /* NVIDIA GPUs seen */
	/* the GPUs judged against */
	const char *gpu_type;           /* "A100"; NULL none */
	const char *gpu_detail;         /* "A100 80GB" */
	unsigned gpu_count;             /* 0 = raw feed, no consumer (under
	                                   mpirun: per rank) */
	double demand_per_gpu;          /* samples/s one GPU eats at the
	                                   asked count (demand_total /
	                                   gpu_count; demand_single at 0) */
	double demand_single;           /* one GPU alone (the row's figure) */
	double demand_total;            /* gpu_count GPUs together; 0 none */
	bool demand_multi_measured;     /* demand_total is the source's
	                                   measured multi-GPU figure */
	const char *demand_basis;       /* "measured", "derived", "estimate",
	                                   "gpu-rate" */
	double demand_range_lo, demand_range_hi; /* per GPU; 0 none */
	const char *demand_kind;        /* "train", "mlperf", "ceiling",
	                                   "gpu-rate" */
	const char *demand_source;
	unsigned tokens_per_sample;     /* token workloads: seq_len (a
	                                   sample's new tokens); 0 others */
	bool demand_est;                /* the row is an estimate */
	bool gpu_default;               /* type not given: the default */
	double au_threshold;            /* <= 0: LDR_DEFAULT_AU_THRESHOLD */
	double bytes_per_sample;        /* stored bytes a sample needs read
	                                   (bytes / records); 0 unknown */
	/* the engine's knobs */
	const char *pipeline;           /* the pipeline in words */
	const char *backend_asked;      /* --backend as given */
	unsigned depth;                 /* reads in flight per reader */
	bool gpu_sync_all;
	uint64_t max_errors;            /* --max-errors, 0 = none */
	uint64_t seed;
	/* page cache */
	const char *cache;              /* "cold", "warm", "ram"; NULL none */
	uint64_t ram_bytes;             /* --ram SIZE, 0 otherwise */
};

struct ms_machine;
struct ms_dataset;
struct ms_gpus;
struct wl_workload;

/* What a command opened, as rpt_setup_fill reads it. NULL: not opened. */
struct rpt_setup_src {
	const char *version;            /* feedrate's */
	const struct ms_machine *m;     /* the machine, the storage under the
	                                   dataset (ms_machine_detect) */
	const struct ms_dataset *md;    /* the listing */
	const char *dataset;            /* as given; NULL: MD's root */
	const struct wl_workload *w;
	const struct ms_gpus *gs;
	/* the options that shape the measurement */
	const char *list;
	bool keep;                      /* --keep-dataset */
	int backend;                    /* enum stg_backend_id; < 0 not asked */
	unsigned depth;
	int cache;                      /* enum stg_cache_state; < 0 none */
	uint64_t ram_bytes;             /* the ram state's page cache */
	bool gpu_sync_all;
	uint64_t max_errors;
	uint64_t seed;
	const char *pipeline;           /* in words */
};

/*
 * S (zeroed first) from what IN names: the version, the workload and its
 * AU threshold, the dataset's listing (files, bytes, format, records),
 * the machine and the storage under the dataset, the GPUs and their
 * demand row, the options. Everything IN points to must outlive S. Pure
 * copies; any thread.
 */
void rpt_setup_fill(struct rpt_setup *s, const struct rpt_setup_src *in);

/* The reports that carry a setup, each with its own keys for it. */
enum rpt_setup_form {
	RPT_SETUP_RUN,
	RPT_SETUP_SWEEP,
	RPT_SETUP_CKPT,
	RPT_SETUP_CLUSTER,
	RPT_SETUP_CLUSTER_SWEEP,
	RPT_SETUP_IO,
};

/*
 * S's keys of report FORM on ROOT (docs/report-schema.md names them per
 * report): run: workload, workload_file, machine, gpus and the dataset
 * object; sweep: feedrate_version, workload, workload_file, pipeline,
 * machine, storage (without backend), dataset, gpus; ckpt:
 * feedrate_version, dir, machine, storage; cluster and cluster sweep:
 * workload, dataset, format, files, bytes, records, fs, gpus (cluster:
 * cache too); io: dataset. Unknown numbers are null. Returns 0, or
 * -ENOMEM (ROOT may then lack some).
 */
int rpt_setup_json(json_t *root, const struct rpt_setup *s,
		   enum rpt_setup_form form);

#endif /* FEEDRATE_RPT_SETUP_H */
