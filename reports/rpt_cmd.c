/*
 * rpt_cmd.c - how a command ends: exit status for -errno (one table),
 * failure and stall lines, report files, the watchdog's partial report,
 * progress lines. The partial report runs on the watchdog's thread: it
 * reads only what the command set before starting the watchdog.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"
#include "rpt_cmd.h"
#include "rpt_text.h"
#include "workloads.h"

/* -errno to exit status; EINTR takes the signal's. */
static const struct {
	int err, exit;
} exit_for_errno[] = {
	{ -EINVAL, FR_EXIT_USAGE },
	{ -ENOTSUP, FR_EXIT_USAGE },
};

int rpt_exit_for_signal(int sig)
{
	return sig == SIGTERM ? FR_EXIT_SIGTERM : FR_EXIT_SIGINT;
}

int rpt_exit_for_errno(int err, int sig)
{
	if (err == -EINTR)
		return rpt_exit_for_signal(sig ? sig : SIGINT);
	for (size_t i = 0; i < sizeof(exit_for_errno) /
	     sizeof(exit_for_errno[0]); i++)
		if (exit_for_errno[i].err == err)
			return exit_for_errno[i].exit;
	return FR_EXIT_ENV;
}

int rpt_fail(const char *cmd, int err, int sig, const char *why)
{
	fprintf(stderr, "feedrate %s: ", cmd);
	rpt_put_path(stderr, why && *why ? why : strerror(-err));
	fputc('\n', stderr);
	return rpt_exit_for_errno(err, sig);
}

int rpt_usage(const char *cmd, const char *why)
{
	fprintf(stderr, "feedrate %s: ", cmd);
	rpt_put_path(stderr, why);
	fprintf(stderr, "\nTry 'feedrate %s --help'.\n", cmd);
	return FR_EXIT_USAGE;
}

void rpt_workloads_usage(FILE *f)
{
	fprintf(f, "Workloads (-w NAME, or -w FILE.ini: a job file, see "
		"docs/job-files.md):\n");
	for (size_t i = 0; i < wl_count(); i++) {
		const struct wl_workload *w = wl_at(i);

		fprintf(f, "  %-12s %s\n", w->name, w->description);
	}
	fputc('\n', f);
}

int rpt_stall_exit(const char *cmd, const struct stg_stall *stall)
{
	char line[700];

	rpt_stall_text(stall, line, sizeof(line));
	fprintf(stderr, "feedrate %s: %s\n", cmd, line);
	return FR_EXIT_STALLED;
}

void rpt_note_add(char *notes, size_t len, const char *fmt, ...)
{
	size_t used = strlen(notes);
	va_list ap;

	if (used && used + 2 < len) {
		memcpy(notes + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	rpt_vcat(notes, len, fmt, ap);
	va_end(ap);
}

int rpt_write_report(const char *cmd, const char *path, json_t *json,
		     char *text, const char *what)
{
	int err;

	if (json)
		err = rpt_json_write(json, path);
	else
		err = text ? rpt_file_write(path, text, strlen(text)) : -ENOMEM;
	free(text);
	if (!err)
		return 0;
	fprintf(stderr, "feedrate %s: cannot write the %s report to ", cmd,
		what);
	rpt_put_path(stderr, path);
	fprintf(stderr, ": %s\n", strerror(-err));
	return FR_EXIT_ENV;
}

int rpt_check_reports(const char *cmd, const char *const *paths, size_t n,
		      const char *const *roots, size_t n_roots)
{
	char why[1024];

	for (size_t k = 0; k < n; k++) {
		if (!paths[k])
			continue;
		if (rpt_out_path_check(paths[k], roots, n_roots, why,
				       sizeof(why))) {
			/* WHY is printable already */
			fprintf(stderr, "feedrate %s: %s\nTry 'feedrate %s "
				"--help'.\n", cmd, why, cmd);
			return FR_EXIT_USAGE;
		}
		for (size_t j = 0; j < k; j++) {
			if (paths[j] && rpt_out_path_same(paths[j], paths[k]))
				return rpt_usage(cmd, strcmp(paths[k], "-") ?
					"two reports name one file" : "only "
					"one report can go to stdout ('-')");
		}
	}
	return 0;
}

FILE *rpt_text_out(const char *const *paths, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (paths[k] && !strcmp(paths[k], "-"))
			return stderr;
	return stdout;
}

int rpt_partial_write(const struct rpt_partial *p,
		      const struct ms_opened *op,
		      const struct stg_stall *stall, int sig)
{
	FILE *out = p->json && !strcmp(p->json, "-") ? stderr : stdout;
	const char *note = stall ? "the command's thread waits in the "
		"kernel on the stalled storage: this report holds what the "
		"command knew when it stopped, and the thread is left to the "
		"kernel" : "interrupted while a thread waits in the kernel "
		"(storage not answering): the command ended without it";
	char line[700];
	int ret;

	if (stall)
		rpt_stall_text(stall, line, sizeof(line));
	fprintf(out, "feedrate %s (PARTIAL: %s)\n", p->cmd, stall ?
		"the storage STALLED" : "interrupted");
	if (stall)
		fprintf(out, "  %s\n", line);
	fprintf(out, "  %s\n", note);
	rpt_stall_opened_print(out, op);
	fflush(out);
	ret = stall ? rpt_stall_exit(p->cmd, stall) : rpt_exit_for_signal(sig);
	if (p->json) {
		json_t *root = rpt_stall_partial_json(p->cmd, p->schema,
			p->version, stall, sig, note);

		rpt_stall_partial_opened(root, op);
		if (root)
			json_object_set_new(root, "feedrate_version",
					    json_string(FEEDRATE_VERSION));
		if (rpt_write_report(p->cmd, p->json, root, NULL, "JSON") &&
		    !stall && !sig)
			ret = FR_EXIT_ENV;
		json_decref(root);
	}
	fflush(stderr);
	return ret;
}

void rpt_default_gen_progress(void *arg, uint64_t bytes, uint64_t target,
			      bool done)
{
	static double last;
	const double t = stg_now();

	if (!done && t - last < 0.2)
		return;
	last = t;
	fprintf(stderr, "\r\033[Kfeedrate %s: generating a dataset: %.0f of "
		"%.0f MB", (const char *)arg, bytes / 1e6, target / 1e6);
	if (done)
		fputc('\n', stderr);
}

int rpt_prep_progress_tty(void *arg, enum stg_prep_op op, uint64_t done,
			  uint64_t total, double elapsed_s)
{
	const volatile sig_atomic_t *stop = arg;
	char line[160];

	rpt_prep_progress_line(line, sizeof(line), stg_prep_op_name(op),
			       done, total, elapsed_s);
	/* the phase's last call clears it: the report says the times */
	if (done >= total)
		fprintf(stderr, "\r\033[K");
	else
		fprintf(stderr, "\r\033[Kfeedrate: preparing the page "
			"cache: %s", line);
	fflush(stderr);
	return stop && *stop != 0;
}

void rpt_dataset_closed(const char *cmd, const char *dir, bool keep,
			bool failed)
{
	if (dir[0] && keep) {
		fprintf(stderr, "feedrate %s: the generated dataset was kept: ",
			cmd);
		rpt_put_path(stderr, dir);
		fputc('\n', stderr);
	}
	if (failed && dir[0]) {
		fprintf(stderr, "feedrate %s: could not remove the temporary "
			"dataset ", cmd);
		rpt_put_path(stderr, dir);
		fputc('\n', stderr);
	}
}
