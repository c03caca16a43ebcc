/*
 * cli_workload.c - --workload resolved: a built-in workload by name or a
 * job file (kept until exit), and the workloads listed for --help.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "jobfile.h"

/* The job file --workload loaded (kept until exit: the run points into
 * it; cli_check_reports protects its path). */
static const struct wl_workload *cli_job;

const char *cli_job_file(void)
{
	return cli_job ? cli_job->job_file : NULL;
}

/* NAME names a job file rather than a built-in: a path with a '/', a
 * name ending in .ini, or a file that exists. */
static bool names_a_file(const char *name)
{
	const size_t n = strlen(name);

	return strchr(name, '/') || (n > 4 && !strcmp(name + n - 4, ".ini")) ||
	       !access(name, F_OK);
}

int cli_workload(const char *cmd, const char *name,
		 const struct wl_workload **w)
{
	char names[256], why[1024];
	int err;

	if (!wl_find(name, w))
		return 0;
	if (!names_a_file(name)) {
		wl_names(names, sizeof(names));
		return cli_usage_error(cmd, "unknown workload '%s' (valid: %s)",
				       name, names);
	}
	err = wl_job_load(name, w, why, sizeof(why));
	if (err == -ENOMEM)
		return cli_fail(cmd, err, 0, "out of memory");
	if (err) {
		fprintf(stderr, "feedrate %s: --workload: ", cmd);
		cli_print_path(stderr, why);
		fprintf(stderr, "\nTry 'feedrate %s --help'.\n", cmd);
		return FR_EXIT_USAGE;
	}
	wl_job_free(cli_job);
	cli_job = *w;
	return 0;
}

void cli_workloads_usage(FILE *f)
{
	fprintf(f, "Workloads (-w NAME, or -w FILE.ini: a job file, see "
		"docs/job-files.md):\n");
	for (size_t i = 0; i < wl_count(); i++) {
		const struct wl_workload *w = wl_at(i);

		fprintf(f, "  %-12s %s\n", w->name, w->description);
	}
	fputc('\n', f);
}

FILE *cli_text_out(const char *const *paths, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (paths[k] && !strcmp(paths[k], "-"))
			return stderr;
	return stdout;
}
