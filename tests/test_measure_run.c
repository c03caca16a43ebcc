/*
 * test_measure_run.c - how a run's measurement ended (ms_run_end), the
 * case its report words: a stall outranks numbers, numbers outrank a
 * Python runner's failure, a failure a signal caused is an interruption,
 * and anything else never started. Made-up point reports, no child.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "harness.h"
#include "measure_run.h"

struct end_case {
	const char *what;
	enum ms_pipeline kind;
	int err;
	bool stalled, measured;
	enum ms_python_fail fail;
	int signal;
	enum ms_run_end want;
};

static const struct end_case cases[] = {
	{ "a stall killed the child", MS_PIPELINE_NATIVE, -ETIMEDOUT, true,
	  false, 0, 0, MS_RUN_STALLED },
	{ "a stall outranks a partial window", MS_PIPELINE_NATIVE,
	  -ETIMEDOUT, true, true, 0, 0, MS_RUN_STALLED },
	{ "a timeout that is no stall", MS_PIPELINE_NATIVE, -ETIMEDOUT,
	  false, false, 0, 0, MS_RUN_NOT_STARTED },
	{ "the window gave numbers", MS_PIPELINE_NATIVE, 0, false, true, 0,
	  0, MS_RUN_MEASURED },
	{ "numbers, then a signal", MS_PIPELINE_NATIVE, -EINTR, false, true,
	  0, SIGINT, MS_RUN_MEASURED },
	{ "torch's runner raised", MS_PIPELINE_TORCH, -ECHILD, false, false,
	  MS_PYTHON_USER_ERROR, 0, MS_RUN_PYTHON_FAILED },
	{ "python:FILE missing a module", MS_PIPELINE_FILE, -ECHILD, false,
	  false, MS_PYTHON_MISSING_MODULE, 0, MS_RUN_PYTHON_FAILED },
	{ "a runner failure a signal caused", MS_PIPELINE_TORCH, -ECHILD,
	  false, false, MS_PYTHON_CRASH, SIGTERM, MS_RUN_INTERRUPTED },
	{ "a runner stopped by -EINTR", MS_PIPELINE_TORCH, -EINTR, false,
	  false, MS_PYTHON_CRASH, 0, MS_RUN_INTERRUPTED },
	{ "a native run's python field is ignored", MS_PIPELINE_NATIVE,
	  -ECHILD, false, false, MS_PYTHON_USER_ERROR, 0,
	  MS_RUN_NOT_STARTED },
	{ "a signal before numbers", MS_PIPELINE_NATIVE, 0, false, false, 0,
	  SIGINT, MS_RUN_INTERRUPTED },
	{ "-EINTR with no signal recorded", MS_PIPELINE_NATIVE, -EINTR,
	  false, false, 0, 0, MS_RUN_INTERRUPTED },
	{ "the child could not start", MS_PIPELINE_NATIVE, -ENOMEM, false,
	  false, 0, 0, MS_RUN_NOT_STARTED },
};

FR_TEST(measure_run, each_end_is_told_in_its_order)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct end_case *c = &cases[i];
		static struct ms_run r;

		memset(&r, 0, sizeof(r));
		r.p.pipe.kind = c->kind;
		r.err = c->err;
		r.po.rep.stalled = c->stalled;
		r.po.measured = c->measured;
		r.po.py.fail = c->fail;
		cr_expect_eq(ms_run_end(&r, c->signal), c->want, "%s: %d, not %d",
			     c->what, ms_run_end(&r, c->signal), c->want);
	}
}
