/*
 * cluster_mpi.c - struct ms_comm over MPI (make MPI=1), and the launch
 * detection every build has.
 *
 * DESIGN
 * Threads: the rank's main thread makes every exchange of the protocol;
 * the stall watchdog's thread makes one more, only once the main thread
 * is stuck in the kernel on storage that stopped answering (its last
 * word to rank 0, ms_cluster_stalled). MPI is initialised at
 * MPI_THREAD_SERIALIZED and every MPI call here is made under MPI_LOCK,
 * so the two never call MPI at once, even when the main thread comes
 * back from the kernel; where the library gives less, comm->any_thread
 * is false and the watchdog leaves MPI alone. A forked child never
 * calls MPI: a measurement's child is forked after MPI_Init and
 * leaves with _exit, so MPI's state in it is never touched. Every call
 * is non-blocking (MPI_Isend/MPI_Irecv) and polled with MPI_Test until a
 * deadline, because MPI 3 has no timed collective: a peer that died
 * leaves a request that never completes, which is cancelled. Errors
 * return (MPI_ERRORS_RETURN) instead of aborting the job. At the end,
 * MPI_Finalize is called only when no peer was lost: it synchronises
 * with every rank, and would wait for a dead one.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "storage.h"

bool ms_comm_mpi_launched(unsigned *world)
{
	static const char *const size_vars[] = {
		"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE",
		"MPI_LOCALNRANKS",
	};
	const char *v = NULL;

	if (world)
		*world = 0;
	for (size_t i = 0; i < sizeof(size_vars) / sizeof(size_vars[0]) &&
	     !v; i++)
		v = getenv(size_vars[i]);
	if (!v && !getenv("PMIX_RANK") && !getenv("PMI_RANK"))
		return false;
	if (v && world)
		*world = (unsigned)strtoul(v, NULL, 10);
	return true;
}

#ifdef FEEDRATE_MPI
#include <mpi.h>

/* Every MPI call (see DESIGN): held for one call, never across a wait. */
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;

bool ms_comm_mpi_built(void)
{
	return true;
}

static void poll_sleep(unsigned *us)
{
	struct timespec ts = { 0, (long)*us * 1000 };

	nanosleep(&ts, NULL);
	if (*us < 2000)
		*us *= 2;
}

/* Poll RQ until done or DEADLINE. 1 done, 0 not yet, -EIO. */
static int poll_request(MPI_Request *rq, double deadline, MPI_Status *st)
{
	unsigned us = 50;
	int done = 0;

	for (;;) {
		int rc;

		pthread_mutex_lock(&mpi_lock);
		rc = MPI_Test(rq, &done, st);
		pthread_mutex_unlock(&mpi_lock);
		if (rc != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 1;
		if (stg_now() >= deadline)
			return 0;
		poll_sleep(&us);
	}
}

/*
 * Sends go from a copy of their own: a send to a dead peer never
 * completes, and is then left to MPI (MPI_Request_free) with its buffer,
 * which is never freed (a few dozen bytes, and only when a rank is lost).
 */
static int mpi_send(struct ms_comm *c, unsigned to, int tag, const void *buf,
		    size_t len, double deadline)
{
	MPI_Request rq;
	void *copy;
	int done;

	(void)c;
	if (len > (size_t)1 << 30)
		return -EMSGSIZE;
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	pthread_mutex_lock(&mpi_lock);
	done = MPI_Isend(copy, (int)len, MPI_BYTE, (int)to, tag,
			 MPI_COMM_WORLD, &rq);
	pthread_mutex_unlock(&mpi_lock);
	if (done != MPI_SUCCESS) {
		free(copy);
		return -EIO;
	}
	done = poll_request(&rq, deadline, MPI_STATUS_IGNORE);
	if (done == 1) {
		free(copy);
		return 0;
	}
	pthread_mutex_lock(&mpi_lock);
	MPI_Request_free(&rq);          /* COPY stays MPI's: see above */
	pthread_mutex_unlock(&mpi_lock);
	return done ? done : -ETIMEDOUT;
}

/* Receives are cancelled at their deadline, and waited for: a message
 * that matched meanwhile is taken, not lost. */
static int mpi_recv(struct ms_comm *c, unsigned from, int tag, void *buf,
		    size_t len, double deadline)
{
	MPI_Request rq;
	MPI_Status st;
	int n = 0, done, cancelled = 0;

	(void)c;
	if (len > (size_t)1 << 30)
		return -EMSGSIZE;
	pthread_mutex_lock(&mpi_lock);
	done = MPI_Irecv(buf, (int)len, MPI_BYTE, (int)from, tag,
			 MPI_COMM_WORLD, &rq);
	pthread_mutex_unlock(&mpi_lock);
	if (done != MPI_SUCCESS)
		return -EIO;
	done = poll_request(&rq, deadline, &st);
	if (done < 0)
		return done;
	pthread_mutex_lock(&mpi_lock);
	if (!done) {
		/* a cancelled receive completes at once (MPI 3.1, 3.8.4) */
		MPI_Cancel(&rq);
		MPI_Wait(&rq, &st);
		MPI_Test_cancelled(&st, &cancelled);
	}
	if (!cancelled && MPI_Get_count(&st, MPI_BYTE, &n) != MPI_SUCCESS)
		n = -1;
	pthread_mutex_unlock(&mpi_lock);
	if (cancelled)
		return -ETIMEDOUT;
	if ((size_t)n != len)
		return -EMSGSIZE;
	return 0;
}

static void mpi_close(struct ms_comm *c, bool failed)
{
	/* MPI_Finalize waits for every rank: not with one lost */
	if (!failed) {
		pthread_mutex_lock(&mpi_lock);
		MPI_Finalize();
		pthread_mutex_unlock(&mpi_lock);
	}
	free(c);
}

static const struct ms_comm_ops mpi_ops = {
	.send = mpi_send,
	.recv = mpi_recv,
	.close = mpi_close,
};

int ms_comm_mpi_open(int *argc, char ***argv, struct ms_comm **out,
		     char *why, size_t why_len)
{
	char name[MPI_MAX_PROCESSOR_NAME];
	struct ms_comm *c;
	int provided = 0, rank = 0, world = 0, n = 0;

	*out = NULL;
	why[0] = '\0';
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	/* the openib transport's fork warning does not apply: children
	 * never touch MPI memory (see DESIGN) */
	setenv("OMPI_MCA_mpi_warn_on_fork", "0", 0);
	if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) !=
	    MPI_SUCCESS) {
		snprintf(why, why_len, "MPI_Init_thread failed");
		free(c);
		return -EIO;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &world);
	if (MPI_Get_processor_name(name, &n) != MPI_SUCCESS || n <= 0)
		gethostname(name, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	c->ops = &mpi_ops;
	/* Open MPI 4 gives what is asked (up to MULTIPLE) */
	c->any_thread = provided >= MPI_THREAD_SERIALIZED;
	c->rank = (unsigned)rank;
	c->world = (unsigned)world;
	snprintf(c->host, sizeof(c->host), "%.*s", (int)sizeof(c->host) - 1,
		 name);
	*out = c;
	return 0;
}

#else /* !FEEDRATE_MPI */

bool ms_comm_mpi_built(void)
{
	return false;
}

int ms_comm_mpi_open(int *argc, char ***argv, struct ms_comm **out,
		     char *why, size_t why_len)
{
	(void)argc;
	(void)argv;
	*out = NULL;
	snprintf(why, why_len, "this feedrate was built without MPI: build "
		 "it with `make MPI=1` (Debian: libopenmpi-dev) to run it "
		 "under mpirun");
	return -ENOTSUP;
}

#endif
