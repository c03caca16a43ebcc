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

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage.h"

#define MS_CLUSTER_HOST_MAX 64
#define MS_CLUSTER_DEFAULT_TIMEOUT_S 300.0 /* a step's deadline (cache
                                              preparation included) */
#define MS_CLUSTER_GRACE_S 30.0         /* results after the window's end */
#define MS_CLUSTER_STOP_GRACE_S 0.3     /* ... once a stop signal came: mpirun
                                           kills 1 s after its SIGTERM
                                           (odls_base_sigkill_timeout) */

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
	char why[200];                  /* !alive or failed: in words */
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

#endif
