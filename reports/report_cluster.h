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

#include "cluster.h"      /* the rank record (struct rpt_cluster_rank) */
#include "rpt_setup.h"

struct json_t;

#define RPT_CLUSTER_HOST_MAX MS_CLUSTER_HOST_MAX

/* The whole report, filled by the command on rank 0. */
struct rpt_cluster {
	const char *command;            /* "run", "io" */
	struct rpt_setup setup;         /* workload (NULL for io), dataset,
	                                   format, listing, fs_type and
	                                   fs_server, cache, the GPUs each
	                                   rank emulated (gpu_count per rank;
	                                   gpu_type NULL: raw feed) */
	double window_s;                /* the window asked of every rank */
	unsigned world;                 /* ranks launched */
	unsigned nodes;                 /* distinct hosts among them */
	const struct rpt_cluster_rank *ranks; /* WORLD of them, by rank */

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

/* ---- small helpers shared with report_cluster_sweep.c ---- */

/* R counts in the totals: it reported and measured (no fail_text). */
bool rpt_cluster_rank_counts(const struct rpt_cluster_rank *r);

/* The GPUs on one node of C: gpus_per_rank x the most ranks a node holds. */
unsigned rpt_cluster_node_gpus(const struct rpt_cluster *c);

/* "SIGINT", "SIGTERM", "SIGKILL", "SIGHUP", else "a signal" (static). */
const char *rpt_cluster_signal_name(int sig);

/* C is partial: a signal stopped it or a rank, or a rank was lost or
 * failed (T: its totals). */
bool rpt_cluster_partial(const struct rpt_cluster *c,
			 const struct rpt_cluster_totals *t);

/* The text of a fixed array of SIZE bytes (it may lack its NUL when sent
 * as bytes), made printable by rpt_path_text; pass strlen + 1 for a C
 * string. malloc'd; NULL when out of memory. */
char *rpt_cluster_fixed_text(const char *a, size_t size);

/* JSON conventions of the cluster reports (new references):
 * a path-like text escaped as a path, null when NULL or
 * ""; our own words as they are when valid UTF-8, else escaped. */
struct json_t *rpt_cluster_json_str(const char *s);
struct json_t *rpt_cluster_json_text(const char *s);


struct rpt_buf;

/* Append to B a fixed array's text (SIZE bytes at most), escaped as a
 * path, then for HTML; B's ok turns false when out of memory. */
void rpt_cluster_html_fixed(struct rpt_buf *b, const char *a, size_t size);


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
	struct rpt_setup setup;         /* as a point's (rpt_cluster) */
	unsigned world, nodes;          /* launched */
	double window_s;                /* each point's */
	const struct rpt_cluster_point *points;
	size_t npoints;
	int signal;                     /* stopped by this: partial */
	const char *notes;
};

#define RPT_CLUSTER_SERIES_MAX 64     /* points a series keeps */
#define RPT_CLUSTER_SCALING JDG_CLUSTER_SCALING /* judge.h */

/*
 * The scaling of one (cache, vCPUs) series: the total at R ranks against
 * R x the total at 1 rank (efficiency), the largest rank count still at
 * >= 90 % efficiency, and where the series turned storage-bound. Pure.
 */
struct rpt_cluster_series {
	const char *cache;
	unsigned vcpus;
	size_t first, n;                /* first: index of its first point in
	                                   plan order; n: its points, listed
	                                   in point[] */
	size_t point[RPT_CLUSTER_SERIES_MAX]; /* indexes into points[], by
	                                   increasing ranks */
	double samples_per_s[RPT_CLUSTER_SERIES_MAX]; /* each point's total
	                                   (rpt_cluster_totals); < 0 when no
	                                   rank of it counted */
	double bytes_per_s[RPT_CLUSTER_SERIES_MAX]; /* likewise */
	double efficiency[RPT_CLUSTER_SERIES_MAX]; /* per point of the
	                                   series, < 0 unknown */
	unsigned scales_to;             /* ranks at >= 90 % efficiency; 0
	                                   unknown (no 1-rank figure) */
	int storage_bound_from;         /* ranks from which most ranks were
	                                   storage-bound; -1 never */
};

/*
 * The series of S into OUT (at most MAX); returns how many. A series is
 * the points with the same cache state (by name) and vCPUs, in the order
 * of their first points, each by increasing ranks (the first
 * RPT_CLUSTER_SERIES_MAX kept; a second point of the same ranks is
 * ignored). efficiency[i] = total(ranks i) / (ranks i x total(1 rank)),
 * totals in samples/s over the point's counted ranks but divided by the
 * ranks launched (a lost rank lowers it); unknown (< 0) for every point
 * when the 1-rank point is missing or none of it counted or it measured
 * 0, and for a point none of whose ranks counted. scales_to = the largest
 * ranks whose efficiency >= RPT_CLUSTER_SCALING (1 with only the 1-rank
 * point). storage_bound_from = the smallest ranks from which every later
 * point had at least half of its counted ranks (and at least one)
 * limited by "storage". Pure; any thread.
 */
size_t rpt_cluster_sweep_series(const struct rpt_cluster_sweep *s,
				struct rpt_cluster_series *out, size_t max);

/*
 * The one-line verdict into BUF (LEN bytes, terminated when LEN > 0):
 * per cache state (in plan order; with several vCPU counts, the series
 * with the most vCPUs a rank, named), e.g. "cold: the storage scales to 2
 * ranks (2 nodes) at >= 90 % efficiency, storage-bound from 3 ranks
 * (131.0 MB/s in all); warm: scales to 4 ranks (4 nodes)"; a series that
 * stops scaling says its last point's efficiency ("(44 % at 3 ranks)");
 * cold and never storage-bound: "not storage-bound up to R ranks (M MB/s
 * in all)". With GPUs emulated each cache state adds "feeds N nodes x G x
 * TYPE at >= 90 % AU": the point with the most nodes whose every node was
 * fed. "; partial: ..." ends it when a signal stopped the sweep or a point
 * lost ranks.
 */
void rpt_cluster_sweep_verdict(const struct rpt_cluster_sweep *s, char *buf,
			       size_t len);

/*
 * The human report on F: what was swept (workload, dataset, filesystem
 * and server, window, ranks and nodes launched, GPUs), one table per
 * series (ranks, nodes, samples/s, MB/s, samples/s per counted rank,
 * efficiency, AU, limit: the bottleneck of most counted ranks, ranks lost
 * or failed), the missing ranks by name and why, the verdict last.
 */
void rpt_cluster_sweep_print(FILE *f, const struct rpt_cluster_sweep *s);

/*
 * JSON (a new object, docs/report-schema.md "Cluster sweep"): schema
 * "feedrate.cluster_sweep", schema_version (RPT_RUN_SCHEMA_VERSION),
 * points[] (ranks, nodes, vcpus, cache, samples_per_s, bytes_per_s,
 * per_rank_samples_per_s, efficiency, au, limit, lost, and the point's
 * rpt_cluster_json under "cluster"), series[], partial, signal, verdict.
 * Unknown numbers are null. NULL when out of memory.
 */
struct json_t *rpt_cluster_sweep_json(const struct rpt_cluster_sweep *s);

/*
 * One self-contained HTML page (malloc'd; the caller frees it): the
 * verdict, what was swept, a table per series (table class "series" with
 * data-cache and data-vcpus; rows class "point" with data-ranks) and an
 * inline SVG plot of samples/s against ranks, one polyline (class
 * "series") per series. Everything from outside is escaped. NULL when out
 * of memory.
 */
char *rpt_cluster_sweep_html(const struct rpt_cluster_sweep *s);

/* ---- filled from measure/'s results (report_cluster_fill.c) ---- */

struct rpt_run;
struct ldr_result;
struct ms_point_out;

/*
 * R's figures (R already holds this rank's identity, ms_cluster_rank_init)
 * from its run's report RR, result RES and point PO.
 */
void rpt_cluster_rank_fill(struct rpt_cluster_rank *r,
			   const struct rpt_run *rr,
			   const struct ldr_result *res,
			   const struct ms_point_out *po, bool cpus_shared);

/* Rank 0's cluster report *C of `run` from its own run report RR
 * (DATASET when RR names none; FS_SERVER, WINDOW_S, SIGNAL, NOTES as the
 * report's). */
void rpt_cluster_from_run(struct rpt_cluster *c, const struct rpt_run *rr,
			  const char *dataset, const char *fs_server,
			  double window_s, int signal, const char *notes);

/* *C (zeroed first) of COMMAND over a window of WINDOW_S: its setup
 * from IN (rpt_setup_fill; no GPU type in a raw feed). */
struct rpt_setup_src;
void rpt_cluster_fill(struct rpt_cluster *c, const char *command,
		      const struct rpt_setup_src *in, double window_s);

/* This rank's record R (its identity already in, ms_cluster_rank_init) of
 * a point PO with result RES, judged as a run of IN's workload and GPUs
 * on a dataset of FILES_TOTAL files; STOP the command's signal, SHARED
 * whether its CPUs were shared. */
void rpt_cluster_rank_from_point(struct rpt_cluster_rank *r,
				 const struct rpt_setup_src *in,
				 const struct ms_point_out *po,
				 const struct ldr_result *res,
				 size_t files_total, int stop, bool shared);

/* Rank 0's cluster report *C of `io` reading DATASET (MD's listing, M's
 * machine and storage under it) as CFG asked (its cache state, as asked;
 * its window), stopped by SIGNAL (0 none). Everything pointed to must
 * outlive C. */
struct ms_io_config;
struct ms_machine;
struct ms_dataset;
void rpt_cluster_from_io(struct rpt_cluster *c, const struct ms_io_config *cfg,
			 const struct ms_machine *m,
			 const struct ms_dataset *md, const char *dataset,
			 int signal);

/* C's ranks, world, nodes and exactly-once check from rank 0's R (whose
 * ranks C then borrows). */
void rpt_cluster_take(struct rpt_cluster *c, const struct ms_cluster_result *r);

/*
 * The cluster sweep's report *S from its points R, each point's report
 * BASE's fields (command, dataset, GPUs) with its own cache and ranks
 * (borrowed from R); WORLD and NODES launched. S->points is malloc'd
 * (free it). Returns 0, or -1 out of memory.
 */
int rpt_cluster_sweep_fill(struct rpt_cluster_sweep *s,
			   const struct rpt_cluster *base, unsigned world,
			   unsigned nodes,
			   const struct ms_cluster_sweep_result *r);

#endif
