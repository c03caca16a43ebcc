/*
 * rpt_steps.c - steps the commands share, in words: the Python
 * pipelines checked before anything is read, and the report the stall
 * watchdog writes when the command's own thread cannot.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rpt_cmd.h"
#include "rpt_steps.h"
#include "rpt_text.h"

int rpt_pipelines_check(const char *cmd, const struct ms_pipeline_spec *pipes,
			unsigned n, const char *python, double timeout_s,
			struct ms_python_info *info)
{
	for (unsigned i = 0; i < n; i++) {
		struct ms_pipeline_spec sp = pipes[i];
		char why[2048];
		int err;

		memset(&info[i], 0, sizeof(info[i]));
		if (!ms_pipeline_is_python(&sp))
			continue;
		if (sp.kind == MS_PIPELINE_FILE && access(sp.file, R_OK)) {
			fprintf(stderr, "feedrate %s: --pipeline python:", cmd);
			rpt_put_path(stderr, sp.file);
			fprintf(stderr, ": %s\n", strerror(errno));
			return FR_EXIT_USAGE;
		}
		sp.python = python;
		sp.timeout_s = timeout_s;
		err = ms_python_probe(&sp, &info[i], why, sizeof(why));
		if (err == -ENOMEM)
			return rpt_fail(cmd, err, 0, "out of memory");
		if (err) {
			fprintf(stderr, "feedrate %s: --pipeline %s: ", cmd,
				sp.kind == MS_PIPELINE_TORCH ? "torch" :
				"python:FILE");
			rpt_put_path(stderr, why);
			fputc('\n', stderr);
			return FR_EXIT_ENV;
		}
	}
	return 0;
}

int rpt_watch_report(void *arg, const struct stg_stall *stall, int sig)
{
	struct ms_opened op;    /* what it opened before: dataset, machine */
	int ret;

	ms_opened_get(&op);
	ret = rpt_partial_write(arg, &op, stall, sig);

	ldr_supervised_done(ret);
	return ret;
}
