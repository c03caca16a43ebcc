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

#define RPT_CLUSTER_NODES_MAX 256      /* nodes the per-node figures keep */

/* The cluster's figures, from the ranks that reported. A rank counts when
 * it reported and measured (reported && !fail_text[0]); "lost" ranks did
 * not report, "failed" ones reported a fail_text. */
struct rpt_cluster_totals {
	unsigned reported, lost, failed;
	double samples_per_s;           /* the sum over ranks (same window) */
	double bytes_per_s;
	double per_node_samples_per_s[RPT_CLUSTER_NODES_MAX]; /* by node
	                                   index (first 256) */
	double per_node_bytes_per_s[RPT_CLUSTER_NODES_MAX];
	unsigned nodes_seen;            /* nodes with a rank that counts */
	int slowest_node;               /* -1 none */
	double slowest_below_median;    /* fraction below the nodes' median */
	double au;                      /* over every emulated GPU; < 0 none */
	unsigned nodes_fed;             /* nodes whose every rank is at AU >=
	                                   the threshold */
	double solo_sum_bytes_per_s;    /* the ranks' reads alone, summed;
	                                   < 0 not measured */
	unsigned storage_bound_ranks;   /* counted ranks whose bottleneck
	                                   is "storage" */
	double storage_ceiling_bytes_per_s; /* cold and storage-bound: the
	                                   cluster's read rate; < 0 unknown */
	double node_needs_bytes_per_s;  /* the reads one node's GPUs need */
	int nodes_before_storage_bound; /* K: ceiling / node needs; -1
	                                   unknown */
	double max_skew_s;
};

/*
 * Sum C's ranks into *T (pure; any thread). Only ranks that count
 * (reported, no fail_text) add to the sums. A node is fed when every rank
 * launched on it counts and measured AU >= the threshold (a node with a
 * lost rank is not; none is in a raw feed). The slowest node is the one
 * with the least samples/s among nodes with a counted rank, -1 with fewer
 * than two such nodes; slowest_below_median = (median - slowest) /
 * median. solo_sum_bytes_per_s is -1 unless every counted rank measured
 * its read alone. The storage ceiling is the cluster's bytes_per_s when
 * the cache was "cold" and at least half the counted ranks were limited
 * by storage; node_needs_bytes_per_s = gpus_per_rank x the largest
 * local_size x demand_per_gpu x bytes_per_sample (0 unknown, and in a
 * raw feed); nodes_before_storage_bound = floor(ceiling / node needs)
 * when both are known. max_skew_s is the largest |start_skew_s|.
 */
void rpt_cluster_totals(const struct rpt_cluster *c,
			struct rpt_cluster_totals *t);

/*
 * The one-line verdict into BUF (LEN bytes, always terminated when LEN >
 * 0), e.g. "this storage feeds 3 nodes x 8 x A100 at >= 90 % AU; past 12
 * nodes it is storage-bound" (GPUs a node: gpus_per_rank x ranks a node),
 * "this storage feeds 2 of 3 nodes x 8 x A100 at >= 90 % AU (the slowest,
 * host X, falls short: limited by cpu); ...", in a raw feed "the cluster
 * reads N samples/s (M MB/s); no GPU emulated"; when K is unknown it says
 * what would tell ("not storage-bound at 3 nodes: the storage ceiling is
 * above 131.0 MB/s", or "measure cold"); lost or failed ranks and a
 * signal end it with "; partial: rank 2 (host) lost, stopped by SIGINT".
 */
void rpt_cluster_verdict(const struct rpt_cluster *c, char *buf, size_t len);

/*
 * The human report on F: what was measured (command, dataset, filesystem
 * and server, cache, window, ranks and nodes, GPUs), the totals, the
 * slowest node, the storage ceiling against the ranks' reads alone, the
 * exactly-once check, lost and failed ranks with their reasons, the
 * signal and notes, the per-node and per-rank tables, the verdict last.
 * Host names and other texts from the ranks are escaped as paths.
 */
void rpt_cluster_print(FILE *f, const struct rpt_cluster *c);

/*
 * The JSON report (a new object, docs/report-schema.md "Cluster
 * report"): schema "feedrate.cluster", schema_version
 * (RPT_RUN_SCHEMA_VERSION), command, samples_per_s (the cluster total),
 * bytes_per_s, ranks[] each with rank, host, samples_per_s, bytes_per_s,
 * ...; nodes[] (the per-node table: the count of nodes is node_count),
 * slowest_node, storage, exactly_once, gpus, partial, signal, verdict.
 * Unknown numbers are null. NULL when out of memory.
 */
struct json_t *rpt_cluster_json(const struct rpt_cluster *c);

/*
 * One self-contained HTML page (malloc'd; the caller frees it): the
 * verdict, the totals, the node and rank tables (rows of class "node"
 * with data-node, "slowest"; "rank" with data-rank, "lost") and an
 * inline SVG bar chart of samples/s per rank (rect class "bar" with
 * data-rank and data-sps). Everything from outside is escaped. NULL when
 * out of memory.
 */
char *rpt_cluster_html(const struct rpt_cluster *c);


/* ---- sweep under mpirun: ranks x cache states x vCPUs ---- */

/* One point of a cluster sweep: ranks 0 .. RANKS-1 took part (the others
 * idled), each on VCPUS CPUs, in one cache state. */
struct rpt_cluster_point {
	unsigned ranks;                 /* ranks that took part */
	unsigned nodes;                 /* nodes they span */
	unsigned vcpus;                 /* per rank */
	const char *cache;              /* "cold", "warm" */
	struct rpt_cluster report;      /* its cluster report (world = RANKS,
	                                   ranks[] of RANKS) */
};

/* The whole sweep, filled by the command on rank 0. Points are in plan
 * order: for each cache state, for each vCPU count, ranks 1, 2, 4 ... R. */
struct rpt_cluster_sweep {
	const char *workload, *dataset, *format, *fs_type, *fs_server;
	uint64_t files, bytes, records;
	unsigned world, nodes;          /* launched */
	double window_s;                /* each point's */
	const char *gpu_type;           /* NULL: raw feed */
	unsigned gpus_per_rank;
	double demand_per_gpu, au_threshold, bytes_per_sample;
	const char *demand_kind, *demand_basis, *demand_source;
	const struct rpt_cluster_point *points;
	size_t npoints;
	int signal;                     /* stopped by this: partial */
	const char *notes;
};

/*
 * The scaling of one (cache, vCPUs) series: the total at R ranks against
 * R x the total at 1 rank (efficiency), the largest rank count still at
 * >= 90 % efficiency, and where the series turned storage-bound. Pure.
 */
struct rpt_cluster_series {
	const char *cache;
	unsigned vcpus;
	size_t first, n;                /* its points: points[first .. +n) */
	double efficiency[64];          /* per point of the series, < 0
	                                   unknown */
	unsigned scales_to;             /* ranks at >= 90 % efficiency */
	int storage_bound_from;         /* ranks from which most ranks were
	                                   storage-bound; -1 never */
};

/* The series of S into OUT (at most MAX); returns how many. */
size_t rpt_cluster_sweep_series(const struct rpt_cluster_sweep *s,
				struct rpt_cluster_series *out, size_t max);

/* The one-line verdict: how far the storage scales, per cache state. */
void rpt_cluster_sweep_verdict(const struct rpt_cluster_sweep *s, char *buf,
			       size_t len);

/* The human report: one table per series (ranks, nodes, samples/s, MB/s,
 * per rank, efficiency, AU, limit), lost ranks, the verdict. */
void rpt_cluster_sweep_print(FILE *f, const struct rpt_cluster_sweep *s);

/* JSON: schema "feedrate.cluster_sweep", points[] (ranks, nodes, vcpus,
 * cache, samples_per_s, bytes_per_s, efficiency, au, limit, and the
 * point's cluster report under "cluster"), series[], verdict. */
struct json_t *rpt_cluster_sweep_json(const struct rpt_cluster_sweep *s);

/* One self-contained HTML page: the tables and an SVG plot of samples/s
 * against ranks, one line per series. */
char *rpt_cluster_sweep_html(const struct rpt_cluster_sweep *s);

#endif
