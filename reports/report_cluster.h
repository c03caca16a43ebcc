/*
 * report_cluster.h - the cluster report of a run, sweep or io launched
 * through MPI: what every rank measured over the same window, summed by
 * rank 0 into totals, a per-node table, the slowest node and a verdict.
 *
 * Ranks send struct rpt_cluster_rank as raw bytes (the same binary on
 * every node), so it holds no pointers. Everything here is pure: the
 * totals and the verdict are arithmetic on the ranks' figures.
 */
#ifndef FEEDRATE_REPORT_CLUSTER_H
#define FEEDRATE_REPORT_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_t;

#define RPT_CLUSTER_HOST_MAX 64

/* A commutative digest of the sample ids one rank read in one epoch: the
 * ranks' digests add up to the cluster's (count and sum add, xor xors). */
struct rpt_cluster_digest {
	uint64_t count, sum, xor_;
};

#define RPT_CLUSTER_EPOCHS 4            /* epochs whose digests are kept */

/* One rank, as it reports itself to rank 0 (no pointers: sent as bytes). */
struct rpt_cluster_rank {
	unsigned rank;
	char host[RPT_CLUSTER_HOST_MAX]; /* its node's name (raw bytes) */
	unsigned node;                  /* index of its host, in the order of
	                                   the hosts' first ranks */
	unsigned local_rank, local_size; /* among the ranks of its node */
	bool reported;                  /* its result reached rank 0 */
	char lost_why[200];             /* !reported: why, in words */
	char fail_text[256];            /* reported, but nothing measured:
	                                   why; "" when it measured */
	unsigned vcpus;                 /* CPUs it ran on */
	char cpus[64];                  /* their list, "0-1" */
	bool cpus_shared;               /* its node has fewer CPUs than ranks:
	                                   it shares them (oversubscribed) */
	double measured_s;              /* its window */
	double start_skew_s;            /* its window began this long after
	                                   rank 0's (clock offsets removed) */
	uint64_t samples, samples_failed, errors;
	uint64_t read_bytes;            /* in the window */
	double samples_per_s, bytes_per_s;
	unsigned gpus;                  /* emulated on this rank (0: raw feed) */
	double au;                      /* < 0: no GPU emulated */
	unsigned gpus_fed;              /* of the run's GPU type, at the AU
	                                   threshold, from its own feed */
	char bottleneck[16];            /* "cpu", "storage", "gpu", "unknown" */
	char bottleneck_why[384];
	double hit_ratio;               /* < 0 unknown */
	int signal;                     /* SIGINT/SIGTERM that stopped it */
	double solo_bytes_per_s;        /* its storage read alone (cold, every
	                                   other rank idle); < 0 not measured */
	unsigned digest_epochs;         /* complete epochs digested (at most
	                                   RPT_CLUSTER_EPOCHS) */
	struct rpt_cluster_digest digest[RPT_CLUSTER_EPOCHS];
};

/* The whole report, filled by the command on rank 0. */
struct rpt_cluster {
	const char *command;            /* "run", "io" */
	const char *workload;           /* NULL for io */
	const char *dataset;            /* raw bytes */
	const char *format;
	const char *fs_type;            /* "nfs4", "fuse.s3fs" */
	const char *fs_server;          /* "127.0.0.1:/export", "" unknown */
	const char *cache;              /* "cold", "warm", "ram" */
	uint64_t files, bytes, records;
	double window_s;                /* the window asked of every rank */
	unsigned world;                 /* ranks launched */
	unsigned nodes;                 /* distinct hosts among them */
	const struct rpt_cluster_rank *ranks; /* WORLD of them, by rank */

	/* the GPUs each rank emulated (as --gpus on one VM) */
	const char *gpu_type;           /* "A100"; NULL: raw feed */
	unsigned gpus_per_rank;
	double demand_per_gpu;          /* samples/s one GPU eats */
	double au_threshold;
	const char *demand_kind, *demand_basis, *demand_source;
	double bytes_per_sample;        /* stored bytes a sample needs read */

	/* exactly once per epoch, across ranks */
	int every_sample_once;          /* 1 checked and true, 0 false, -1
	                                   not checked (no complete epoch) */
	unsigned epochs_checked;
	char once_how[256];             /* the check, in words */

	int signal;                     /* the run was stopped by this */
	const char *notes;              /* other remarks, "" none */
};

/* The cluster's figures, from the ranks that reported. */
struct rpt_cluster_totals {
	unsigned reported, lost, failed;
	double samples_per_s;           /* the sum over ranks (same window) */
	double bytes_per_s;
	double per_node_samples_per_s[256]; /* by node index (first 256) */
	unsigned nodes_seen;
	int slowest_node;               /* -1 none */
	double slowest_below_median;    /* fraction below the nodes' median */
	double au;                      /* over every emulated GPU; < 0 none */
	unsigned nodes_fed;             /* nodes whose every rank is at AU >=
	                                   the threshold */
	double solo_sum_bytes_per_s;    /* the ranks' reads alone, summed;
	                                   < 0 not measured */
	double storage_ceiling_bytes_per_s; /* cold and storage-bound: the
	                                   cluster's read rate; < 0 unknown */
	double node_needs_bytes_per_s;  /* the reads one node's GPUs need */
	int nodes_before_storage_bound; /* K: ceiling / node needs; -1
	                                   unknown */
	double max_skew_s;
};

/* Sum C's ranks into *T (pure). */
void rpt_cluster_totals(const struct rpt_cluster *c,
			struct rpt_cluster_totals *t);

/* The one-line verdict, e.g. "this storage feeds 3 nodes x 8 x A100; past
 * 12 nodes it is storage-bound". */
void rpt_cluster_verdict(const struct rpt_cluster *c, char *buf, size_t len);

/* The human report on F. */
void rpt_cluster_print(FILE *f, const struct rpt_cluster *c);

/* The JSON report (a new object): schema_version, command,
 * samples_per_s (the cluster total), bytes_per_s, ranks[] each with rank,
 * host, samples_per_s, bytes_per_s, ...; nodes[], slowest_node, verdict.
 * NULL when out of memory. */
struct json_t *rpt_cluster_json(const struct rpt_cluster *c);

/* One self-contained HTML page (malloc'd), NULL when out of memory. */
char *rpt_cluster_html(const struct rpt_cluster *c);

#endif
