/*
 * measure_run.c - `run`'s protocol on one node: the point measured and
 * how it ended (measure_run.h).
 */
#include <errno.h>
#include <string.h>

#include "measure_run.h"

int ms_run(struct ms_run *r, volatile sig_atomic_t *stop)
{
	r->uring_why[0] = '\0';
	r->err = ms_point_run(&r->p, r->res, &r->po);
	r->end = ms_run_end(r, r->po.rep.signal ? r->po.rep.signal : *stop);
	if (r->end == MS_RUN_NOT_STARTED && r->p.backend == STG_BACKEND_URING)
		stg_uring_probe(r->uring_why, sizeof(r->uring_why));
	return r->err;
}

enum ms_run_end ms_run_end(const struct ms_run *r, int signal)
{
	if (r->err == -ETIMEDOUT && r->po.rep.stalled)
		return MS_RUN_STALLED;
	if (r->po.measured)
		return MS_RUN_MEASURED;
	if (ms_pipeline_is_python(&r->p.pipe) && r->po.py.fail && !signal &&
	    r->err != -EINTR)
		return MS_RUN_PYTHON_FAILED;
	if (r->err == -EINTR || signal)
		return MS_RUN_INTERRUPTED;
	return MS_RUN_NOT_STARTED;
}
