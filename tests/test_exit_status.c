/*
 * test_exit_status.c - the README's exit-status table and report-path
 * rule, command by command, through the real binary ($FEEDRATE_BIN;
 * skipped when unset).
 *
 * Report paths: for run, sweep (--json, --csv, --html), io and info
 * (--json), a loop device, a folder, a new file inside the dataset and
 * one of the dataset's own files are refused with exit 2 before anything
 * is read: the dataset given holds a dangling link, so a command that
 * went on would list it and end with 3 and a report on stdout instead.
 * The device keeps its bytes, the folder stays empty, the dataset is the
 * same entry for entry. Accepted: /dev/null, "-", a FIFO and a symbolic
 * link to a regular file (which then holds the JSON report, the link
 * kept).
 *
 * The table: an empty dataset is 5 for run, sweep and io; an unreadable
 * subfolder is 3 for run and io, counted as a listing error; a JPEG cut
 * in its headers is 3 for run, a file over --max-sample-bytes 3 for io,
 * each counted under its kind; compare: a file that is not JSON is 2, a
 * missing one 5.
 *
 * exit_status runs nothing that measures; exit_status_slow does.
 */
#include <linux/loop.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>

#include "fault_testlib.h"

/* ---- small helpers ---- */

static char *join(const char *dir, const char *name)
{
	char *p;

	cr_assert_gt(asprintf(&p, "%s/%s", dir, name), 0);
	return p;
}

/* The whole of PATH, NUL-terminated; *LEN its size (may be NULL). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	size_t n = 0, cap = 0;
	size_t got;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			s = realloc(s, cap);
			cr_assert_not_null(s);
		}
		got = fread(s + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	fclose(f);
	s[n] = '\0';
	if (len)
		*len = n;
	return s;
}

/* ARGV without argv[0]: PRE (NULL-ended), then the rest (NULL-ended). */
static void args_cat(const char **argv, size_t cap, const char *const *pre,
		     const char *const *rest)
{
	size_t n = 0;

	for (; pre && *pre; pre++) {
		cr_assert_lt(n + 1, cap);
		argv[n++] = *pre;
	}
	for (; rest && *rest; rest++) {
		cr_assert_lt(n + 1, cap);
		argv[n++] = *rest;
	}
	argv[n] = NULL;
}

/* A generated dataset of N files, DIR/data (images under train/). */
static char *gen_dataset(const char *dir, const char *n)
{
	char *data = join(dir, "data");
	const char *args[] = { "gen", "-q", "--files", n, data, NULL };
	struct fault_run r;

	fault_exec2(dir, args, NULL, NULL, &r);
	cr_assert_eq(r.status, 0, "feedrate gen exited %d (stderr in %s)",
		     r.status, r.err);
	return data;
}

static char found_file[4096];

static int find_one(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)ftw;
	if (flag != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	snprintf(found_file, sizeof(found_file), "%s", path);
	return 1;
}

/* A regular file under DS (malloc'd). */
static char *any_file(const char *ds)
{
	found_file[0] = '\0';
	nftw(ds, find_one, 16, FTW_PHYS);
	cr_assert_neq(found_file[0], '\0', "no file under %s", ds);
	return strdup(found_file);
}

/*
 * A dataset a command would list and then end with 3 on (six JPEGs and
 * a dangling link): a refusal that came after the listing shows as an
 * exit other than 2 and a report on stdout.
 */
static char *make_refusal_dataset(const char *dir)
{
	char *ds = make_dataset(dir);
	char *lnk = join(ds, "c1/gone.JPEG");

	cr_assert_eq(symlink("nowhere.JPEG", lnk), 0, "%s", strerror(errno));
	free(lnk);
	return ds;
}

/* ---- the commands that write reports ---- */

static const char *const run_pre[] = {
	"run", "--duration", "1", "--warmup", "0", "--vcpus", "1", "--gpus",
	"0", NULL };
/* should a refusal ever fail, the sweep that follows stays short */
static const char *const sweep_pre[] = {
	"sweep", "--budget", "30s", "--vcpus", "1", "--cache", "warm",
	"--no-check", NULL };
static const char *const io_pre[] = { "io", NULL };
static const char *const info_pre[] = { "info", "--steal-interval", "0",
					NULL };

static const struct report_opt {
	const char *cmd;
	const char *const *pre;
	const char *opt;
} report_opts[] = {
	{ "run", run_pre, "--json" },
	{ "sweep", sweep_pre, "--json" },
	{ "sweep", sweep_pre, "--csv" },
	{ "sweep", sweep_pre, "--html" },
	{ "io", io_pre, "--json" },
	{ "info", info_pre, "--json" },
};

#define N_REPORT_OPTS (sizeof(report_opts) / sizeof(report_opts[0]))

/*
 * Every command refuses TARGET as its report path with exit 2, before it
 * lists DS: nothing on stdout (no report, no progress), and a reason on
 * stderr that names the command and holds WORDS.
 */
static void expect_refused_everywhere(const char *dir, const char *ds,
				      const char *target, const char *words)
{
	for (size_t i = 0; i < N_REPORT_OPTS; i++) {
		const struct report_opt *ro = &report_opts[i];
		const char *rest[] = { ro->opt, target, ds, NULL };
		const char *args[32];
		char who[64];
		struct fault_run r;
		char *out, *err;

		args_cat(args, 32, ro->pre, rest);
		fault_exec2(dir, args, NULL, NULL, &r);
		out = slurp(r.out, NULL);
		err = slurp(r.err, NULL);
		cr_expect_eq(r.status, 2, "%s %s %s: exit %d, expected 2; "
			     "stderr: %s", ro->cmd, ro->opt, target, r.status,
			     err);
		cr_expect_str_empty(out, "%s %s %s printed on stdout (it went "
				    "on after the refusal): %.300s", ro->cmd,
				    ro->opt, target, out);
		snprintf(who, sizeof(who), "feedrate %s: ", ro->cmd);
		cr_expect(strstr(err, who) && strstr(err, words),
			  "%s %s %s: the reason does not say \"%s\": %s",
			  ro->cmd, ro->opt, target, words, err);
		free(out);
		free(err);
	}
}

/* ---- a real block device (as tests/test_outpath.c attaches it) ---- */

#include "loop_testlib.h"

/* ---- refused report paths ---- */

FR_TEST(exit_status, a_loop_device_report_path_is_exit_2_and_keeps_its_bytes,
	.fini = loop_detach)
{
	char *dir, *ds;
	uint64_t dev_before, ds_before;

	loop_attach();
	dir = fr_test_tmpdir();
	ds = make_refusal_dataset(dir);
	dev_before = loop_digest();
	ds_before = tree_digest(ds);
	expect_refused_everywhere(dir, ds, loop.dev, "block device");
	cr_expect_eq(loop_digest(), dev_before, "%s changed", loop.dev);
	cr_expect_eq(tree_digest(ds), ds_before, "the dataset changed");
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(exit_status, a_folder_report_path_is_exit_2_and_stays_empty)
{
	char *dir = fault_tmpdir(), *ds = make_refusal_dataset(dir);
	char *folder = join(dir, "reports");
	uint64_t before;

	cr_assert_eq(mkdir(folder, 0755), 0);
	before = tree_digest(ds);
	expect_refused_everywhere(dir, ds, folder, "is a folder");
	/* a writer would have left its temporary file in there */
	cr_expect_eq(rmdir(folder), 0, "%s is not empty any more: %s", folder,
		     strerror(errno));
	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	free(folder);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(exit_status, a_new_report_file_inside_the_dataset_is_exit_2_and_not_made)
{
	char *dir = fault_tmpdir(), *ds = make_refusal_dataset(dir);
	char *target = join(ds, "report.json");
	uint64_t before = tree_digest(ds);

	expect_refused_everywhere(dir, ds, target, "inside");
	cr_expect_neq(access(target, F_OK), 0, "%s was created", target);
	/* nor a temporary file next to it */
	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	free(target);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(exit_status, a_dataset_file_as_report_path_is_exit_2_and_left_as_it_was)
{
	char *dir = fault_tmpdir(), *ds = make_refusal_dataset(dir);
	char *target = join(ds, "c1/good_0.JPEG"), *was, *now;
	size_t was_len, now_len;
	uint64_t before = tree_digest(ds);

	was = slurp(target, &was_len);
	expect_refused_everywhere(dir, ds, target, "inside");
	now = slurp(target, &now_len);
	cr_expect(was_len == now_len && !memcmp(was, now, was_len),
		  "%s changed (%zu bytes, was %zu)", target, now_len, was_len);
	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	free(now);
	free(was);
	free(target);
	free(ds);
	fr_test_rmtree(dir);
}

/* ---- accepted report paths ---- */

/* Reads what a command writes into a FIFO, so the writer never blocks
 * on a full pipe. */
static struct {
	int fd;
	int stop;                       /* atomic: the writer has exited */
	char buf[1 << 20];
	size_t len;
	pthread_t th;
} drain = { .fd = -1 };

static void *drain_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p = { .fd = drain.fd, .events = POLLIN };
		/* read STOP before polling: data written before the exit
		 * is then always seen by this or the next poll */
		int stop = __atomic_load_n(&drain.stop, __ATOMIC_ACQUIRE);
		ssize_t n;

		if (poll(&p, 1, 50) <= 0) {
			if (stop)
				return NULL;
			continue;
		}
		n = read(drain.fd, drain.buf + drain.len,
			 sizeof(drain.buf) - 1 - drain.len);
		if (n > 0)
			drain.len += (size_t)n;
		else if (stop || drain.len == sizeof(drain.buf) - 1)
			return NULL;
	}
}

static void drain_start(const char *fifo)
{
	/* O_RDWR: the FIFO has a reader from the start, so the command's
	 * open does not wait for one and the test cannot hang there */
	drain.fd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	cr_assert_geq(drain.fd, 0, "%s: %s", fifo, strerror(errno));
	drain.len = 0;
	drain.stop = 0;
	cr_assert_eq(pthread_create(&drain.th, NULL, drain_main, NULL), 0);
}

static void drain_finish(void)
{
	__atomic_store_n(&drain.stop, 1, __ATOMIC_RELEASE);
	pthread_join(drain.th, NULL);
	close(drain.fd);
	drain.fd = -1;
	drain.buf[drain.len] = '\0';
}

enum target_kind { T_DEV_NULL, T_STDOUT, T_FIFO, T_SYMLINK };

static const char *const target_names[] = { "/dev/null", "-", "a FIFO",
					    "a symlink to a file" };

/* ROOT is CMD's JSON report (info's has no "command": its "machine"). */
static void expect_report_of(const json_t *root, const char *cmd,
			     const char *where)
{
	cr_assert(json_is_object(root), "%s: %s wrote no JSON object", where,
		  cmd);
	if (!strcmp(cmd, "info"))
		cr_expect(json_is_object(json_object_get(root, "machine")),
			  "%s: info's report has no machine", where);
	else
		cr_expect_str_eq(json_string_value(json_object_get(root,
								   "command"))
				 ?: "", cmd, "%s: not %s's report", where, cmd);
}

/*
 * CMD (its arguments PRE) on DS with --json going to a target of KIND:
 * accepted (exit 0), and the report where the target says.
 */
static void expect_accepted(const char *dir, const char *ds, const char *cmd,
			    const char *const *pre, enum target_kind kind)
{
	const char *what = target_names[kind];
	char *fifo = join(dir, "pipe"), *real = join(dir, "real.json");
	char *lnk = join(dir, "link.json"), *out, *err;
	const char *target = kind == T_DEV_NULL ? "/dev/null" :
			     kind == T_STDOUT ? "-" :
			     kind == T_FIFO ? fifo : lnk;
	const char *rest[] = { "--json", target, ds, NULL };
	const char *args[32];
	struct fault_run r;
	json_error_t jerr;
	json_t *root = NULL;
	struct stat st;
	char where[128];

	snprintf(where, sizeof(where), "%s --json %s", cmd, what);
	if (kind == T_FIFO) {
		cr_assert_eq(mkfifo(fifo, 0600), 0, "%s", strerror(errno));
		drain_start(fifo);
	}
	if (kind == T_SYMLINK) {
		put_bytes(real, "old", 3);
		cr_assert_eq(symlink(real, lnk), 0, "%s", strerror(errno));
	}
	args_cat(args, 32, pre, rest);
	fault_exec2(dir, args, NULL, NULL, &r);
	if (kind == T_FIFO)
		drain_finish();
	out = slurp(r.out, NULL);
	err = slurp(r.err, NULL);
	cr_expect_eq(r.status, 0, "%s: exit %d, expected 0; stderr: %s", where,
		     r.status, err);

	switch (kind) {
	case T_DEV_NULL:
		/* the text report still comes */
		cr_expect_str_not_empty(out, "%s: no text report on stdout",
					where);
		break;
	case T_STDOUT:
		/* the JSON alone: text on stdout would break the parse */
		root = json_loads(out, 0, &jerr);
		cr_expect_not_null(root, "%s: stdout is not JSON: %s (line "
				   "%d): %.300s", where, jerr.text, jerr.line,
				   out);
		break;
	case T_FIFO:
		root = json_loads(drain.buf, 0, &jerr);
		cr_expect_not_null(root, "%s: what came through is not JSON: %s "
				   "(%zu bytes)", where, jerr.text, drain.len);
		cr_expect(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode),
			  "%s: the FIFO was replaced", where);
		break;
	case T_SYMLINK:
		root = json_load_file(real, 0, &jerr);
		cr_expect_not_null(root, "%s: the link's file holds no JSON: %s",
				   where, jerr.text);
		cr_expect(lstat(lnk, &st) == 0 && S_ISLNK(st.st_mode),
			  "%s: the link was replaced by a file", where);
		break;
	}
	if (root)
		expect_report_of(root, cmd, where);
	json_decref(root);
	unlink(fifo);
	unlink(lnk);
	unlink(real);
	free(out);
	free(err);
	free(lnk);
	free(real);
	free(fifo);
}

/* CMD accepts each of the four targets on a 20-file dataset. */
static void accepted_targets(const char *cmd, const char *const *pre)
{
	char *dir = fault_tmpdir(), *ds = gen_dataset(dir, "20");
	uint64_t before = tree_digest(ds);

	for (int k = T_DEV_NULL; k <= T_SYMLINK; k++)
		expect_accepted(dir, ds, cmd, pre, (enum target_kind)k);
	cr_expect_eq(tree_digest(ds), before, "the dataset changed");
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(exit_status, info_reports_to_dev_null_stdout_a_fifo_and_a_symlink)
{
	accepted_targets("info", info_pre);
}

FR_TEST(exit_status_slow, run_reports_to_dev_null_stdout_a_fifo_and_a_symlink)
{
	accepted_targets("run", run_pre);
}

FR_TEST(exit_status_slow, io_reports_to_dev_null_stdout_a_fifo_and_a_symlink)
{
	accepted_targets("io", io_pre);
}

/* ---- the table ---- */

FR_TEST(exit_status, an_empty_dataset_is_exit_5_for_run_sweep_and_io)
{
	static const struct {
		const char *cmd;
		const char *const *pre;
	} cmds[] = { { "run", run_pre }, { "sweep", sweep_pre },
		     { "io", io_pre } };
	char *dir = fault_tmpdir(), *empty = join(dir, "empty");

	cr_assert_eq(mkdir(empty, 0755), 0);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *rest[] = { empty, NULL };
		const char *args[32];
		struct fault_run r;
		char *err;

		args_cat(args, 32, cmds[i].pre, rest);
		fault_exec2(dir, args, NULL, NULL, &r);
		err = slurp(r.err, NULL);
		cr_expect_eq(r.status, 5, "%s on an empty folder: exit %d, "
			     "expected 5; stderr: %s", cmds[i].cmd, r.status,
			     err);
		cr_expect_not_null(strstr(err, "no files"), "%s: %s",
				   cmds[i].cmd, err);
		free(err);
	}
	free(empty);
	fr_test_rmtree(dir);
}

/*
 * R's listing errors, run's (dataset.listing_errors, .listing_error_kinds
 * {KIND: {count, example}}) or io's (listing_errors {KIND: count},
 * listing_error_examples {KIND: example}): the total, and whether some
 * kind's example holds NAME.
 */
static json_int_t listing_errors(const struct fault_run *r, bool io,
				 const char *name, bool *named)
{
	const json_t *kinds, *v;
	const char *k;
	json_int_t total = 0;

	cr_assert_not_null(r->json, "no JSON report (exit %d, stderr in %s)",
			   r->status, r->err);
	*named = false;
	if (io) {
		const json_t *ex = json_object_get(r->json,
						   "listing_error_examples");

		kinds = json_object_get(r->json, "listing_errors");
		json_object_foreach((json_t *)kinds, k, v) {
			const char *e = json_string_value(json_object_get(ex, k));

			total += json_integer_value(v);
			*named |= e && strstr(e, name);
		}
		return total;
	}
	kinds = json_object_get(json_object_get(r->json, "dataset"),
				"listing_error_kinds");
	json_object_foreach((json_t *)kinds, k, v) {
		const char *e = json_string_value(json_object_get(v, "example"));

		*named |= e && strstr(e, name);
	}
	return json_integer_value(json_object_get(
		json_object_get(r->json, "dataset"), "listing_errors"));
}

FR_TEST(exit_status_slow, an_unreadable_subfolder_is_exit_3_and_counted_by_run_and_io)
{
	char *dir = fault_tmpdir_root("needs root to drop CAP_DAC_OVERRIDE "
				      "and CAP_DAC_READ_SEARCH");
	char *ds = gen_dataset(dir, "20"), *locked = join(ds, "train/locked");
	char *file = any_file(ds), *inside = join(locked, "x.JPEG");
	char json[4096];
	const char *run_args[32], *io_args[8];
	const char *rest[] = { "--epochs", "1", "--json", json, ds, NULL };
	static const char *const io_rest_pre[] = { "io", "--json", NULL };
	const char *io_rest[] = { json, ds, NULL };
	struct fault_opts o = { .as = FAULT_NO_DAC };
	struct fault_run r;
	bool named;
	char *data;
	size_t len;

	/* a folder with a file the listing would otherwise take */
	cr_assert_eq(mkdir(locked, 0755), 0);
	data = slurp(file, &len);
	put_bytes(inside, data, len);
	free(data);
	cr_assert_eq(chmod(locked, 0), 0);
	snprintf(json, sizeof(json), "%s/report.json", dir);

	/* run: every file once (--epochs 1) rather than --duration 1 */
	args_cat(run_args, 32, (const char *const[]){ "run", "--warmup", "0",
		 "--vcpus", "1", "--gpus", "0", NULL }, rest);
	fault_exec2(dir, run_args, json, &o, &r);
	cr_expect_eq(r.status, 3, "run: exit %d, expected 3 (stderr in %s)",
		     r.status, r.err);
	cr_expect_eq(listing_errors(&r, false, "train/locked", &named), 1,
		     "run: dataset.listing_errors is not 1");
	cr_expect(named, "run: no listing error names train/locked");
	cr_expect_eq(error_total(&r), 0, "run: sample errors counted too");
	fault_run_free(&r);
	unlink(json);

	args_cat(io_args, 8, io_rest_pre, io_rest);
	fault_exec2(dir, io_args, json, &o, &r);
	cr_expect_eq(r.status, 3, "io: exit %d, expected 3 (stderr in %s)",
		     r.status, r.err);
	cr_expect_eq(listing_errors(&r, true, "train/locked", &named), 1,
		     "io: listing_errors do not add up to 1");
	cr_expect(named, "io: no listing error names train/locked");
	cr_expect_eq(error_total(&r), 0, "io: sample errors counted too");
	fault_run_free(&r);

	chmod(locked, 0755);
	free(inside);
	free(file);
	free(locked);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(exit_status_slow, a_truncated_jpeg_is_exit_3_and_counted_by_run)
{
	char *dir = fault_tmpdir(), *ds = gen_dataset(dir, "20");
	char *file = any_file(ds), *data, json[4096];
	const char *name = strrchr(file, '/') + 1;
	const char *rest[] = { "--epochs", "1", "--json", json, ds, NULL };
	const char *args[32];
	struct fault_run r;
	size_t len, sos = 0;

	/*
	 * Cut inside the headers, halfway to the start of scan: damage in
	 * the entropy-coded data counts only when the random crop's rows
	 * reach it, a header every decode reads.
	 */
	data = slurp(file, &len);
	for (size_t i = 2; i + 1 < len && !sos; i++)
		if ((unsigned char)data[i] == 0xff &&
		    (unsigned char)data[i + 1] == 0xda)
			sos = i;
	cr_assert_gt(sos, 8, "%s has no start of scan", file);
	put_bytes(file, data, sos / 2);
	free(data);
	snprintf(json, sizeof(json), "%s/report.json", dir);

	args_cat(args, 32, (const char *const[]){ "run", "--warmup", "0",
		 "--vcpus", "1", "--gpus", "0", NULL }, rest);
	fault_exec2(dir, args, json, NULL, &r);
	cr_expect_eq(r.status, 3, "run: exit %d, expected 3 (stderr in %s)",
		     r.status, r.err);
	expect_kind(&r, "truncated", name);
	cr_expect_eq(error_total(&r), error_count(&r, "truncated", NULL),
		     "errors of other kinds were counted too");
	fault_run_free(&r);
	free(file);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(exit_status_slow, a_file_over_the_sample_cap_is_exit_3_and_counted_by_io)
{
	char *dir = fault_tmpdir(), *ds = gen_dataset(dir, "20");
	char *file = any_file(ds), *big, json[4096];
	const char *args[] = { "io", "--max-sample-bytes", "4M", "--json",
			       json, ds, NULL };
	struct fault_run r;
	int fd;

	/* next to the generated files (each well under 4 MiB): 8 MiB,
	 * sparse */
	*strrchr(file, '/') = '\0';
	big = join(file, "big.JPEG");
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "%s: %s", big, strerror(errno));
	cr_assert_eq(ftruncate(fd, 8 << 20), 0);
	close(fd);
	snprintf(json, sizeof(json), "%s/report.json", dir);

	fault_exec2(dir, args, json, NULL, &r);
	cr_expect_eq(r.status, 3, "io: exit %d, expected 3 (stderr in %s)",
		     r.status, r.err);
	expect_kind(&r, "file_over_cap", "big.JPEG");
	cr_expect_eq(error_total(&r), error_count(&r, "file_over_cap", NULL),
		     "errors of other kinds were counted too");
	fault_run_free(&r);
	free(big);
	free(file);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(exit_status, compare_on_a_file_that_is_not_json_is_exit_2)
{
	char *dir = fault_tmpdir(), *file = join(dir, "notes.txt"), *err;
	const char *args[] = { "compare", file, NULL };
	struct fault_run r;

	put_bytes(file, "this is no report\n", 18);
	fault_exec2(dir, args, NULL, NULL, &r);
	err = slurp(r.err, NULL);
	cr_expect_eq(r.status, 2, "compare: exit %d, expected 2; stderr: %s",
		     r.status, err);
	cr_expect_not_null(strstr(err, "not a JSON report"), "%s", err);
	free(err);
	free(file);
	fr_test_rmtree(dir);
}

FR_TEST(exit_status, compare_on_a_missing_file_is_exit_5)
{
	char *dir = fault_tmpdir(), *file = join(dir, "gone.json"), *err;
	const char *args[] = { "compare", file, NULL };
	struct fault_run r;

	fault_exec2(dir, args, NULL, NULL, &r);
	err = slurp(r.err, NULL);
	cr_expect_eq(r.status, 5, "compare: exit %d, expected 5; stderr: %s",
		     r.status, err);
	cr_expect_not_null(strstr(err, "cannot read"), "%s", err);
	free(err);
	free(file);
	fr_test_rmtree(dir);
}

FR_TEST(exit_status, two_reports_to_one_file_spelled_twice_are_exit_2)
{
	char *dir = fault_tmpdir(), *a = join(dir, "r.json"), *err;
	char *data = join(dir, "data");
	char b[4200];
	const char *args[] = { "sweep", "--json", a, "--csv", b, data, NULL };
	struct fault_run r;

	cr_assert_eq(mkdir(data, 0755), 0);
	/* the same file through "." and ".." */
	snprintf(b, sizeof(b), "%s/./../%s/r.json", dir, strrchr(dir, '/') + 1);
	fault_exec2(dir, args, NULL, NULL, &r);
	err = slurp(r.err, NULL);
	cr_expect_eq(r.status, 2, "sweep: exit %d, expected 2; stderr: %s",
		     r.status, err);
	cr_expect_not_null(strstr(err, "two reports name one file"), "%s",
			   err);
	cr_expect_eq(access(a, F_OK), -1, "a report was written");
	free(err);
	free(a);
	free(data);
	fr_test_rmtree(dir);
}
