/*
 * measure_internal.h - what measure/'s files share and nobody else uses.
 */
#ifndef FEEDRATE_MEASURE_INTERNAL_H
#define FEEDRATE_MEASURE_INTERNAL_H

#include <sched.h>

#include "measure.h"

/* ---- the cluster's stalled ranks (cluster.c; ms_cluster_stalled in
 * cluster_run.c) ---- */
struct ms_cluster;

/* A rank other than 0: WHY to rank 0 (TAG_STALLED). 0 or -errno. */
int ms_cluster_stalled_say(struct ms_cluster *cl, const char *why);

/* Rank 0: each peer taking part until DEADLINE for its word; the silent
 * ones lost with OTHERS_WHY. */
void ms_cluster_stalled_hear(struct ms_cluster *cl, double deadline,
			     const char *others_why);

/* How long a rank other than 0 may wait for rank 0 now (stg_now()
 * seconds). */
double ms_cluster_rank0_deadline(struct ms_cluster *cl);

/*
 * Run Q's Python pipeline (Q->pipe) on DS in a child pinned to CPUS and
 * inside CG (either may be NULL), as ldr_run_pinned runs the engine: the
 * child starts the runner (its own process group, so its DataLoader
 * workers share the child's mask and cgroup) and reads its JSON lines.
 * ROOT is the dataset folder; SAMPLED: DS is a sample of it (the runner
 * then reads only DS's files). Fills *RES and OUT->py, OUT->rep,
 * OUT->err and OUT->err_text. Returns 0 when the runner gave its
 * window's figures, else -errno (-ENOPKG a module is missing, -ECANCELED
 * the loader raised, -ETIMEDOUT it fell silent, -EINTR stopped before any
 * figure, -ECHILD it ended without them).
 */
int ms_python_point(const struct ms_point *q, const struct stg_dataset *ds,
		    bool sampled, const cpu_set_t *cpus,
		    const struct ldr_memcg *cg, struct ldr_result *res,
		    struct ms_point_out *out);

/* The runner's text, carried inside the binary (generated at build time
 * from measure/torch_runner.py). */
extern const unsigned char ms_torch_runner_py[];
extern const unsigned long ms_torch_runner_py_len;

#endif /* FEEDRATE_MEASURE_INTERNAL_H */
