/*
 * cluster.h - one measurement across the ranks of an MPI launch: who is
 * where, a common window start, results gathered by rank 0, every step
 * with a deadline so a lost rank is named instead of hanging the others.
 *
 * The protocol (cluster.c) speaks through struct ms_comm, a transport of
 * tagged point-to-point messages with deadlines: MPI in the MPI=1 build
 * (cluster_mpi.c), an in-process one in the tests. MPI is called only by
 * the rank's own process, never by the pinned child that measures.
 */
#ifndef FEEDRATE_CLUSTER_H
#define FEEDRATE_CLUSTER_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage.h"

#define MS_CLUSTER_HOST_MAX 64
#define MS_CLUSTER_WHY_MAX 400          /* a lost rank's words (a stall's
                                           with its file's name) */
#define MS_CLUSTER_DEFAULT_TIMEOUT_S 300.0 /* a step's deadline (cache
                                              preparation included) */
#define MS_CLUSTER_GRACE_S 30.0         /* results after the window's end */
#define MS_CLUSTER_STOP_GRACE_S 0.3     /* ... once a stop signal came: mpirun
                                           kills 1 s after its SIGTERM
                                           (odls_base_sigkill_timeout) */

/*
 * The record one rank sends rank 0 (the protocol's, named as the cluster
 * report reads it): no pointers, sent as raw bytes (the same binary on
 * every node).
 */
/* A commutative digest of the sample ids one rank read in one epoch: the
 * ranks' digests add up to the cluster's (count and sum add, xor xors). */
struct rpt_cluster_digest {
	uint64_t count, sum, xor_;
};

#define RPT_CLUSTER_EPOCHS 4            /* epochs whose digests are kept */

/* One rank, as it reports itself to rank 0 (no pointers: sent as bytes). */
struct rpt_cluster_rank {
	unsigned rank;
	char host[MS_CLUSTER_HOST_MAX]; /* its node's name (raw bytes) */
	unsigned node;                  /* index of its host, in the order of
	                                   the hosts' first ranks */
	unsigned local_rank, local_size; /* among the ranks of its node */
	bool reported;                  /* its result reached rank 0 */
	char lost_why[MS_CLUSTER_WHY_MAX]; /* !reported: why, in words */
	char fail_text[MS_CLUSTER_WHY_MAX]; /* reported, but nothing measured:
	                                   why; "" when it measured */
	bool stalled;                   /* lost to its storage, which
	                                   stalled (lost_why or fail_text
	                                   says how) */
	unsigned vcpus;                 /* CPUs it ran on */
	char cpus[64];                  /* their list, "0-1" */
	bool cpus_shared;               /* its node has fewer CPUs than ranks:
	                                   it shares them (oversubscribed) */
	double measured_s;              /* its window */
	double start_skew_s;            /* its window began this long after
	                                   the common start rank 0 set (clock
	                                   offsets removed) */
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
	bool too_short;                 /* its window was too short to judge
	                                   its GPUs (bottleneck_why says why) */
	double solo_bytes_per_s;        /* its storage read alone (cold, every
	                                   other rank idle); < 0 not measured */
	unsigned digest_epochs;         /* complete epochs digested (at most
	                                   RPT_CLUSTER_EPOCHS) */
	struct rpt_cluster_digest digest[RPT_CLUSTER_EPOCHS];
};

struct ms_comm;

struct ms_comm_ops {
	/* Send LEN bytes of BUF to rank TO under TAG. 0, -ETIMEDOUT past
	 * DEADLINE (stg_now() seconds), or another -errno (the peer is
	 * gone). */
	int (*send)(struct ms_comm *c, unsigned to, int tag, const void *buf,
		    size_t len, double deadline);
	/* Receive exactly LEN bytes from rank FROM under TAG into BUF. 0,
	 * -ETIMEDOUT past DEADLINE (a message already there is taken even
	 * then), -EMSGSIZE on a size mismatch, another -errno. */
	int (*recv)(struct ms_comm *c, unsigned from, int tag, void *buf,
		    size_t len, double deadline);
	/* End: FAILED true when a peer was lost (no collective that would
	 * wait for it). Frees C. */
	void (*close)(struct ms_comm *c, bool failed);
};

struct ms_comm {
	const struct ms_comm_ops *ops;
	unsigned rank, world;
	bool any_thread;                /* a second thread may send while the
	                                   first is stuck outside the
	                                   transport (ms_cluster_stalled) */
	char host[MS_CLUSTER_HOST_MAX]; /* this process's node name */
	void *priv;
};

/*
 * Is this process one rank of an MPI launch (Open MPI's, PMIx's or a
 * PMI environment variable says so)? *WORLD gets the launch's size when
 * known (0 otherwise). Any thread.
 */
bool ms_comm_mpi_launched(unsigned *world);

/* Was this binary built with MPI (make MPI=1)? */
bool ms_comm_mpi_built(void);

/*
 * Initialise MPI and open the transport over MPI_COMM_WORLD into *OUT.
 * Call once, first thing, from the main thread. Returns 0, -ENOTSUP in a
 * build without MPI, -EIO when MPI_Init failed (WHY says).
 */
int ms_comm_mpi_open(int *argc, char ***argv, struct ms_comm **out,
		     char *why, size_t why_len);

/* One peer as rank 0 sees it. */
struct ms_cluster_peer {
	char host[MS_CLUSTER_HOST_MAX];
	unsigned node, local_rank, local_size;
	bool alive;                     /* took every step so far */
	bool failed;                    /* said it could not measure */
	double clock_offset_s;          /* its CLOCK_REALTIME - rank 0's */
	bool stalled;                   /* lost to its storage: it said so
	                                   (ms_cluster_stalled) */
	char why[MS_CLUSTER_WHY_MAX];   /* !alive or failed: in words */
};

struct ms_cluster {
	struct ms_comm *comm;
	unsigned rank, world;
	unsigned node, nodes;           /* this rank's node, nodes in all */
	unsigned local_rank, local_size; /* among the ranks of its node */
	char host[MS_CLUSTER_HOST_MAX];
	double timeout_s;               /* each step's deadline */
	volatile sig_atomic_t *stop;    /* the command's stop flag */
	double stop_seen;               /* stg_now() when it was first seen */
	struct ms_cluster_peer *peers;  /* rank 0: WORLD of them; else NULL */
	double (*realtime)(void *arg);  /* the clock (tests inject offsets) */
	void *realtime_arg;
	bool lost_any;                  /* rank 0: a peer was lost; other
	                                   ranks: rank 0 was, or said so */
	double window_start;            /* rank 0: the last gate's start, in
	                                   its clock (0 none) */
	double wait_extra_s;            /* added to a rank's wait for rank 0
	                                   (a sweep's rank that sat out
	                                   points waits for them too) */
	unsigned active;                /* ranks 0 .. active-1 take part in
	                                   the steps (ms_cluster_set_active);
	                                   0: all */
};

/*
 * Only ranks 0 .. N-1 take part in the next steps (a sweep's point on N
 * ranks; N 0 or >= world: all). Every rank calls it with the same N; the
 * others skip the steps.
 */
void ms_cluster_set_active(struct ms_cluster *cl, unsigned n);

/*
 * Open the cluster over COMM: every rank tells rank 0 its node name,
 * rank 0 numbers the nodes (in the order of their first ranks) and tells
 * every rank its node, local rank and local size. TIMEOUT_S (> 0) bounds
 * each step; STOP is the command's signal flag. Returns 0, or -errno
 * (-ETIMEDOUT: rank 0 did not answer; WHY says). On rank 0 a rank that
 * never said hello is marked lost (peers[k].alive false), not an error.
 */
int ms_cluster_open(struct ms_cluster *cl, struct ms_comm *comm,
		    double timeout_s, volatile sig_atomic_t *stop,
		    char *why, size_t why_len);

/*
 * At start: when this process is one rank of an MPI launch, initialise MPI
 * and open the cluster into *CL (ms_comm_mpi_open, then ms_cluster_open
 * with the default step timeout and STOP). Returns 1 when CL is open, 0
 * when there is no cluster (no launch, or one rank in a build without
 * MPI: as on one node), -ENOTSUP when several ranks were launched and
 * this build has no MPI, or the -errno of opening; WHY then says what
 * failed (only rank 0 says -ENOTSUP's: "" on the others).
 */
int ms_cluster_launch(int *argc, char ***argv, struct ms_cluster *cl,
		      volatile sig_atomic_t *stop, char *why, size_t why_len);

/*
 * A rank whose own thread is stuck in the kernel on storage that stopped
 * answering (its listing, its eviction, its read alone, io's readers),
 * called by its stall watchdog's thread: never returns to that stuck
 * thread's steps, and never calls MPI_Finalize.
 *
 * A rank other than 0 sends WHY (the stall in words) to rank 0, which
 * names the rank lost with it at whichever step it waits for the rank
 * (each of rank 0's waits on a rank also listens for this word), and
 * goes on with the others. It then waits, without MPI, for the job's end
 * (mpirun's SIGTERM once rank 0 has written its report and exited: *STOP)
 * or for the longest rank 0 may take to get there (a step's deadlines
 * after the window); 0 then, -errno when the word could not be sent.
 *
 * On rank 0 (its own point cannot go on): every peer still taking part
 * has until DEADLINE (stg_now() seconds) to send its own stall; those
 * that do are lost with their words, the others with OTHERS_WHY. OUT
 * gets the ranks' records as ms_cluster_collect's (MINE, rank 0's own,
 * copied in; ranks malloc'd); 0 or -ENOMEM.
 *
 * -ENOTSUP (nothing done) where the transport takes one thread only
 * (comm->any_thread false).
 */
struct ms_cluster_result;
int ms_cluster_stalled(struct ms_cluster *cl, const char *why,
		       const struct rpt_cluster_rank *mine, double deadline,
		       const char *others_why, struct ms_cluster_result *out);

/* Say goodbye (rank 0 tells every rank whether MPI_Finalize is safe: no
 * rank lost), free what ms_cluster_open allocated, close the transport. */
void ms_cluster_close(struct ms_cluster *cl);

/*
 * The gate before the measured window, after this rank prepared its cache
 * (OK false: it could not, and will not measure). Every rank says ready;
 * rank 0 measures each ready rank's clock offset (a ping-pong), picks the
 * start MARGIN_S from now, and sends every rank the start in its own
 * clock. *START_REALTIME gets this rank's start (CLOCK_REALTIME seconds).
 * Returns 0 (go), -ECANCELED (rank 0 called the run off: a stop signal, or
 * no rank is ready), -ETIMEDOUT (rank 0 did not answer), or -errno.
 */
int ms_cluster_gate(struct ms_cluster *cl, bool ok, double margin_s,
		    double *start_realtime);

/*
 * Every rank sends its result (LEN bytes of MINE) to rank 0; rank 0 gets
 * them into ALL (WORLD x LEN bytes, its own copied in) and GOT[k] says
 * which arrived. Rank 0 waits until DEADLINE (stg_now() seconds; shortened
 * to MS_CLUSTER_STOP_GRACE_S after a stop signal); a rank whose result
 * did not come is marked lost with a reason. Returns 0, or -errno on a
 * rank other than 0 whose send failed.
 */
int ms_cluster_gather(struct ms_cluster *cl, const void *mine, size_t len,
		      void *all, bool *got, double deadline);

/*
 * Rank 0's LEN bytes of BUF to every active rank (a plan every rank must
 * walk alike). 0, or on another rank -errno when none came.
 */
int ms_cluster_bcast(struct ms_cluster *cl, void *buf, size_t len);

/*
 * Each rank in turn (0, 1, ... WORLD-1) runs FN(ARG) alone while the
 * others wait: rank 0 sends a rank its turn and waits for its DONE (the
 * figure FN returned), up to TURN_S + the timeout. On rank 0, SOLO
 * (WORLD doubles; NULL: not kept) gets each rank's figure (-1: lost or
 * none). Returns 0 or -errno.
 */
int ms_cluster_each_alone(struct ms_cluster *cl,
			  double (*fn)(void *arg), void *arg, double turn_s,
			  double *solo);

/*
 * The files of DS rank RANK of WORLD reads alone: ids RANK, RANK+WORLD,
 * ... as a new dataset in *OUT (the caller destroys it). 0, -ENODATA
 * when the rank has none, or -errno.
 */
int ms_cluster_files(const struct stg_dataset *ds, unsigned rank,
		     unsigned world, struct stg_dataset **out);

/* What a rank reads alone (ms_cluster_read_alone). */
struct ms_cluster_alone {
	const struct stg_dataset *files;
	struct stg_reader_config rc;    /* the reads as the run makes them:
	                                   backend, depth, block size */
	unsigned threads;               /* reader threads (0: 1) */
	double seconds;
	volatile sig_atomic_t *stop;
};

/*
 * Read A->files cold (evicted, O_DIRECT where the filesystem takes it)
 * for A->seconds: the storage's bytes/s for this rank alone, or -1 when
 * nothing could be read. For ms_cluster_each_alone.
 */
double ms_cluster_read_alone(const struct ms_cluster_alone *a);

/* ---- the commands' steps under mpirun (cluster_run.c, cluster_io.c,
 * cluster_sweep.c) ---- */

struct ms_point;
struct ms_point_out;
struct ms_io_config;
struct ms_io_result;
struct ldr_result;

/*
 * This rank's share of its node's usable CPUs (the sysroot's online CPUs
 * this process may run on) into *SET; *SHARED: fewer CPUs than ranks,
 * they share. Returns 0, or -errno with *WHY in words.
 */
int ms_cluster_cpus(const struct ms_cluster *cl, cpu_set_t *set,
		    bool *shared, const char **why);

/*
 * Each rank in turn reads its share of DS's files (ids rank, rank +
 * world, ...) cold for SECONDS with RC on THREADS readers while the others
 * wait; DS NULL: this rank reads nothing but takes its turn. On rank 0,
 * SOLO (world doubles) gets each rank's bytes/s (-1: none). 0 or -errno.
 */
int ms_cluster_solo(struct ms_cluster *cl, const struct stg_dataset *ds,
		    const struct stg_reader_config *rc, unsigned threads,
		    double seconds, double *solo);

/* The gate of a cluster point (struct ms_point's gate, ARG one of these):
 * the window starts MARGIN_S after every rank is ready. */
struct ms_cluster_gate {
	struct ms_cluster *cl;
	double margin_s;
};
int ms_cluster_point_gate(void *arg, bool ok, double *start_realtime);

/*
 * After this rank's point returned (main thread): where its storage
 * stalled, the command's thread takes the report from the stall watchdog
 * (ldr_watchdog_claim), which would otherwise write one itself and end
 * the rank LDR_STALL_END_S after the stall, while the rank still has its
 * record to send: the gather with rank 0 waits longer than that, and a
 * rank ended without MPI_Finalize makes mpirun abort the whole job. When
 * the watchdog writes it already, parks (never returns).
 */
void ms_cluster_point_claim(const struct ms_point_out *po);

/* This rank's record, its identity only: reported, figures unknown (-1). */
void ms_cluster_rank_init(const struct ms_cluster *cl,
			  struct rpt_cluster_rank *r);

/* What rank 0 checks the ranks' records against. */
struct ms_cluster_check {
	const double *solo;             /* the ranks' reads alone; NULL */
	double window_s;                /* each rank's window; 0: unknown
	                                   (a number of epochs or samples) */
	uint64_t samples_per_epoch;     /* for the exactly-once check; 0: no
	                                   epochs (io) */
	uint64_t seed;
	bool shards;
};

/* Rank 0's view of the ranks after a point. */
struct ms_cluster_result {
	unsigned world;                 /* ranks that took part */
	unsigned stalled;               /* of them, lost to their storage
	                                   (reported "lost: STALLED", or
	                                   named so by ms_cluster_stalled) */
	unsigned nodes;                 /* distinct hosts among them */
	struct rpt_cluster_rank *ranks; /* WORLD of them (malloc'd) */
	int every_sample_once;          /* 1 checked and true, 0 false, -1
	                                   not checked */
	unsigned epochs_checked;
	char once_how[256];             /* the check, in words */
};

/*
 * Send MINE to rank 0; on rank 0 gather every active rank's record into
 * *OUT (a lost one is named after the common window's end plus a grace;
 * its ranks malloc'd, the caller frees them), check that every sample was
 * read once per epoch. Elsewhere OUT->ranks is NULL. Returns 0, 1 (rank
 * 0: a rank was lost or failed) or -ENOMEM.
 */
int ms_cluster_collect(struct ms_cluster *cl,
		       const struct ms_cluster_check *run,
		       const struct rpt_cluster_rank *mine,
		       struct ms_cluster_result *out);

/* `run` under mpirun: one point on this rank's share. */
struct ms_cluster_run_cfg {
	struct ms_point *p;             /* set up by the caller (its rank,
	                                   world, CPUs and gate are set here) */
	bool failed;                    /* P could not be set up: this rank
	                                   walks the steps, saying FAIL_TEXT */
	const char *fail_text;
	double margin_s;                /* the gate's margin */
	const struct stg_dataset *ds;   /* read alone first (SOLO non-NULL) */
	struct stg_reader_config rc;
	unsigned readers;
	double solo_s;
	void (*say)(void *arg, int err, const char *why); /* a setup error */
	void *say_arg;
};

/*
 * This rank's point on its share of the node's CPUs, its window started
 * with every other rank's (each rank's read alone before, into SOLO on
 * rank 0, when SOLO is non-NULL). RES and PO get the point (PO->err_text
 * when it could not run). *SHARED as ms_cluster_cpus. Returns 0, or
 * -EINVAL when this rank did not measure.
 */
int ms_cluster_run(struct ms_cluster *cl, const struct ms_cluster_run_cfg *c,
		   struct ldr_result *res, struct ms_point_out *po,
		   double *solo, bool *shared);

/*
 * `io` under mpirun: rank r reads files r, r + world, ... of DS (NULL:
 * its listing failed; it walks the steps saying so); first each rank alone
 * in turn for SOLO_S (<= 0: CFG's duration) when SOLO is non-NULL (rank
 * 0's gets the rates), then all together from one start, with CFG (its
 * cache prepared before the gate). *R gets this rank's record. Returns 0
 * or -EIO (R->fail_text says why).
 */
int ms_cluster_io(struct ms_cluster *cl, struct ms_io_config *cfg,
		  const struct stg_dataset *ds, double solo_s, double *solo,
		  struct ms_io_result *res, struct rpt_cluster_rank *r);

#define MS_CLUSTER_SWEEP_MAX_RANKS 32   /* rank counts 1, 2, 4 ... R */

/* What `sweep` under mpirun asks; the command's own parts as callbacks. */
struct ms_cluster_sweep_cfg {
	const unsigned *vcpus;          /* counts per rank (those above rank
	                                   0's share are left out); none: 1, 2,
	                                   4 ... its share */
	unsigned nvcpus;
	bool cold, warm;                /* the cache states measured */
	double budget_s;                /* shared by the points' windows */
	const struct stg_dataset *ds;   /* read alone (cold); NULL: failed */
	struct stg_reader_config rc;
	unsigned readers;
	uint64_t samples_per_epoch, seed;
	bool shards;
	bool failed;                    /* this rank walks the steps saying so */
	/* set up P from the command's options; 0 or an exit code (said) */
	int (*point_base)(void *arg, struct ms_point *p);
	/* this rank's record of a measured point */
	void (*record)(void *arg, const struct ms_point_out *po,
		       const struct ldr_result *res, bool shared,
		       struct rpt_cluster_rank *mine);
	/* rank 0, before each point */
	void (*progress)(void *arg, enum stg_cache_state cache,
			 unsigned vcpus, unsigned ranks);
	void *arg;
};

/* One point of the sweep, as rank 0 gathered it. */
struct ms_cluster_sweep_point {
	unsigned ranks, vcpus;
	enum stg_cache_state cache;
	struct ms_cluster_result res;
};

struct ms_cluster_sweep_result {
	struct ms_cluster_sweep_point *points;  /* rank 0: in plan order */
	size_t npoints;
	double window_s;                /* each point's window */
	bool lost;                      /* a rank was lost or failed */
	/* the point being walked: its ranks (0 between points and in the
	 * read alone), vCPUs and cache state */
	unsigned at_ranks, at_vcpus;
	enum stg_cache_state at_cache;
};

/*
 * The ranks taking part (1, 2, 4 ... R, in rank order) x the cache states
 * x each rank's vCPU counts, every point a cluster point (a common window,
 * rank 0 gathers). Every rank walks the same plan (rank 0's, sent to all);
 * a rank outside a point's ranks skips it. Returns 0 or -ENOMEM; free *OUT
 * with ms_cluster_sweep_free.
 */
int ms_cluster_sweep(struct ms_cluster *cl,
		     const struct ms_cluster_sweep_cfg *c,
		     struct ms_cluster_sweep_result *out);
void ms_cluster_sweep_free(struct ms_cluster_sweep_result *r);

/*
 * Rank 0's own thread is stuck in the kernel while ms_cluster_sweep walks
 * R (a point's cache preparation on storage that stopped answering): the
 * point being walked is appended to R with RES (the ranks as
 * ms_cluster_stalled heard them; its ranks are taken, RES->ranks NULL on
 * return), R->lost set. -ENOTSUP when the walk is in no point (before
 * the first, or in the read alone). The watchdog's thread: it reads R
 * under the walk's lock, and R holds still afterwards (the walk's thread
 * is stuck, or parks at ldr_watchdog_claim when it comes back).
 */
int ms_cluster_sweep_stalled(struct ms_cluster_sweep_result *r,
			     struct ms_cluster_result *res);

#endif
