/*
 * measure_python.c - a point measured with a Python pipeline: the built-in
 * torchvision DataLoader (--pipeline torch) or the user's own make_loader
 * (--pipeline python:FILE), run by measure/torch_runner.py.
 *
 * DESIGN
 * Processes: the caller (single-threaded) writes the runner, carried in
 * the binary, into a private temporary folder (mkdtemp, 0700: the
 * script's folder is first on the runner's sys.path, so it must hold
 * nothing but the runner; and, for a sampled dataset, the list of its
 * files; all removed however the run ends), then forks the point's child
 * through ldr_child_run, which enters the memory cgroup and pins itself
 * first. The child forks the interpreter into a process group of its
 * own (so a terminal's ^C reaches feedrate only, and the group can be
 * killed as one: the DataLoader's worker processes are in it) with
 * PR_SET_PDEATHSIG, so it never outlives the child. Everything the
 * runner and its workers do is charged to the cgroup and bound to the
 * mask: they inherit both, and the runner reports each process's
 * Cpus_allowed_list and cgroup after its warm-up.
 * The child reads the runner's JSON lines (fd 3) and its stdout/stderr
 * (a pipe, whose tail is kept for a failure) with poll; a runner silent
 * for longer than the timeout is killed. The child's stop flag (its
 * SIGINT/SIGTERM handler) sends SIGINT to the runner, which sends its
 * partial figures and exits; after MS_PYTHON_STOP_GRACE_S the group is
 * killed. Whatever happens, the group is SIGKILLed before the runner is
 * reaped (the zombie leader keeps the group's id from being reused), so
 * no worker is left behind. The child sends the figures back as raw
 * struct bytes (struct py_out), as ldr_run_pinned does.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "judge.h"
#include "measure_internal.h"

#define PY_LINE_MAX (64u << 10)         /* a longer line is dropped */
#define PY_POLL_MS 200
#define PY_ARGV_MAX 40

/* ---- the pipeline's name ---- */

unsigned ms_pipeline_workers(unsigned asked, unsigned vcpus)
{
	if (asked)
		return asked;
	return vcpus > 1 ? vcpus - 1 : 1;
}

int ms_pipeline_parse(const char *s, struct ms_pipeline_spec *out)
{
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "native")) {
		out->kind = MS_PIPELINE_NATIVE;
		out->file = NULL;
		return 0;
	}
	if (!strcmp(s, "torch")) {
		out->kind = MS_PIPELINE_TORCH;
		out->file = NULL;
		return 0;
	}
	if (!strncmp(s, "python:", 7) && s[7]) {
		out->kind = MS_PIPELINE_FILE;
		out->file = s + 7;
		return 0;
	}
	if (!strcmp(s, "gpu-decode") || !strcmp(s, "gpu-decode:hw") ||
	    !strcmp(s, "gpu-decode:hybrid")) {
		out->kind = MS_PIPELINE_GPU_DECODE;
		out->file = NULL;
		out->gpudec = s[10] == '\0' ? MS_GPUDEC_AUTO : s[11] == 'h' &&
			      s[12] == 'w' ? MS_GPUDEC_HW : MS_GPUDEC_HYBRID;
		return 0;
	}
	return -EINVAL;
}

bool ms_pipeline_is_python(const struct ms_pipeline_spec *sp)
{
	return sp->kind == MS_PIPELINE_TORCH || sp->kind == MS_PIPELINE_FILE;
}

const char *ms_pipeline_name(const struct ms_pipeline_spec *sp, char *buf,
			     size_t len)
{
	switch (sp->kind) {
	case MS_PIPELINE_TORCH:
		snprintf(buf, len, "torch");
		break;
	case MS_PIPELINE_FILE:
		snprintf(buf, len, "python:%s", sp->file ? sp->file : "?");
		break;
	case MS_PIPELINE_GPU_DECODE:
		snprintf(buf, len, "gpu-decode%s", sp->gpudec == MS_GPUDEC_HW ?
			 ":hw" : sp->gpudec == MS_GPUDEC_HYBRID ? ":hybrid" :
			 "");
		break;
	default:
		snprintf(buf, len, "native");
		break;
	}
	return buf;
}

/* ---- the runner's lines ---- */

static void copy_str(char *dst, size_t len, const json_t *v)
{
	const char *s = json_string_value(v);

	snprintf(dst, len, "%s", s ? s : "");
}

/* The end of S that fits ROOM bytes (with its NUL): from a line's start
 * where one is in that end, else from a UTF-8 character's first byte. */
static const char *tail_fit(const char *s, size_t room)
{
	const size_t n = strlen(s);
	const char *p, *nl;

	if (!room || n < room)
		return room ? s : s + n;
	p = s + n - (room - 1);
	nl = strchr(p, '\n');
	if (nl && nl[1])
		return nl + 1;
	while (*p && ((unsigned char)*p & 0xc0) == 0x80)
		p++;
	return p;
}

/* The end of V's string that fits DST (LEN bytes): a traceback's last
 * lines are what says what went wrong. */
static void copy_tail(char *dst, size_t len, const json_t *v)
{
	const char *s = json_string_value(v);

	snprintf(dst, len, "%s", s ? tail_fit(s, len) : "");
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : 0;
}

/* KEY of O as a count: negative, NaN or absurd figures from a runner
 * (a user's loader may hand back anything) read 0, never wrap. */
static uint64_t count(const json_t *o, const char *key)
{
	const double v = num(o, key);

	return v > 0 && v < 9e18 ? (uint64_t)v : 0;
}

static void line_proc(struct ms_python_info *info, const json_t *p,
		      bool worker)
{
	struct ms_python_proc *pr;

	if (!json_is_object(p) || info->nprocs >= MS_PYTHON_PROCS_MAX)
		return;
	pr = &info->procs[info->nprocs++];
	pr->pid = (int)num(p, "pid");
	pr->worker = worker;
	copy_str(pr->cpus, sizeof(pr->cpus), json_object_get(p, "cpus"));
	copy_str(pr->cgroup, sizeof(pr->cgroup), json_object_get(p, "cgroup"));
}

static void line_hello(struct ms_python_info *info, const json_t *o)
{
	const json_t *v = json_object_get(o, "versions");

	copy_str(info->python, sizeof(info->python),
		 json_object_get(v, "python"));
	copy_str(info->torch, sizeof(info->torch), json_object_get(v, "torch"));
	copy_str(info->torchvision, sizeof(info->torchvision),
		 json_object_get(v, "torchvision"));
	copy_str(info->pillow, sizeof(info->pillow),
		 json_object_get(v, "pillow"));
	copy_str(info->libjpeg, sizeof(info->libjpeg),
		 json_object_get(v, "libjpeg"));
	info->workers = (unsigned)count(o, "workers");
	info->batch = (unsigned)count(o, "batch");
}

static void line_done(struct ldr_result *res, struct ms_python_info *info,
		      const json_t *o)
{
	const json_t *each = json_object_get(o, "au_per_gpu");
	size_t i;
	json_t *v;

	info->done = true;
	res->stopped_by_signal = json_is_true(json_object_get(o, "stopped"));
	res->warmup_incomplete =
		json_is_true(json_object_get(o, "warmup_incomplete"));
	res->samples = count(o, "samples");
	res->batches = count(o, "batches");
	res->measured_s = num(o, "measured_s");
	res->warmup_s = num(o, "warmup_s");
	res->au = num(o, "au");
	res->gpu_compute_s = num(o, "compute_s");
	res->gpu_wait_s = num(o, "wait_s");
	res->step_time_s = num(o, "step_s");
	res->epochs_done = count(o, "epochs");
	res->read_bytes = count(o, "read_bytes");
	info->main_cpu_s = num(o, "main_cpu_s");
	info->workers_cpu_s = num(o, "workers_cpu_s");
	json_array_foreach(each, i, v)
		if (i < sizeof(res->au_per_gpu) / sizeof(res->au_per_gpu[0]))
			res->au_per_gpu[i] = json_number_value(v);
}

int ms_python_line(const char *line, struct ldr_result *res,
		   struct ms_python_info *info)
{
	json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
	const char *t = json_string_value(json_object_get(o, "t"));

	if (!o)
		return -EPROTO;
	if (!t) {
		;
	} else if (!strcmp(t, "hello")) {
		line_hello(info, o);
	} else if (!strcmp(t, "procs")) {
		const json_t *ws = json_object_get(o, "workers");
		size_t i;
		json_t *w;

		info->nprocs = 0;
		line_proc(info, json_object_get(o, "main"), false);
		json_array_foreach(ws, i, w)
			line_proc(info, w, true);
		res->warmup_s = num(o, "warmup_s");
	} else if (!strcmp(t, "tick")) {
		res->samples = count(o, "samples");
		res->measured_s = num(o, "t_s");
		if (res->series_len < LDR_SERIES_MAX) {
			struct ldr_series_point *sp =
				&res->series[res->series_len++];

			memset(sp, 0, sizeof(*sp));
			sp->t_s = num(o, "t_s");
			sp->samples_per_s = num(o, "rate");
			sp->au = num(o, "au");
		}
	} else if (!strcmp(t, "done")) {
		line_done(res, info, o);
	} else if (!strcmp(t, "error")) {
		const char *kind = json_string_value(json_object_get(o,
								     "kind"));

		info->fail = kind && !strcmp(kind, "missing") ?
			     MS_PYTHON_MISSING_MODULE : MS_PYTHON_USER_ERROR;
		copy_str(info->module, sizeof(info->module),
			 json_object_get(o, "module"));
		copy_tail(info->tail, sizeof(info->tail),
			  json_object_get(o, "text"));
	}
	json_decref(o);
	return 0;
}

void ms_python_finish(struct ldr_result *res, const struct ms_python_info *info,
		      unsigned vcpus, double au_threshold)
{
	const double thr = jdg_threshold(au_threshold);
	double busy;

	res->readers = 0;
	res->workers = info->workers;
	res->batch = info->batch;
	res->prefetch = 2 * info->workers;
	res->samples_per_s = res->measured_s > 0 ?
			     (double)res->samples / res->measured_s : 0;
	res->read_bytes_per_s = res->measured_s > 0 ?
				(double)res->read_bytes / res->measured_s : 0;
	res->worker_cpu_s = info->workers_cpu_s;
	res->consumer_cpu_s = info->main_cpu_s;
	res->process_cpu_s = info->main_cpu_s + info->workers_cpu_s;
	snprintf(res->backend, sizeof(res->backend), "python");
	snprintf(res->backend_reason, sizeof(res->backend_reason), "the "
		 "Python loader reads its files itself (Python file I/O in "
		 "its worker processes; bytes read: their /proc/PID/io "
		 "rchar)");
	busy = res->measured_s > 0 && vcpus ?
	       res->process_cpu_s / (res->measured_s * vcpus) : 0;
	if (res->gpus && res->batches && jdg_fed(res->au, thr)) {
		res->bottleneck = LDR_BOTTLENECK_GPU;
		snprintf(res->bottleneck_why, sizeof(res->bottleneck_why),
			 "AU %.1f %% >= %.0f %%", res->au * 100, thr * 100);
	} else if (jdg_cpu_busy(busy)) {
		res->bottleneck = LDR_BOTTLENECK_CPU;
		snprintf(res->bottleneck_why, sizeof(res->bottleneck_why),
			 "the loader's processes kept the %u vCPU%s %.0f %% "
			 "busy", vcpus, vcpus == 1 ? "" : "s", busy * 100);
	} else {
		res->bottleneck = LDR_BOTTLENECK_UNKNOWN;
		snprintf(res->bottleneck_why, sizeof(res->bottleneck_why),
			 "the loader's processes kept the %u vCPU%s only %.0f "
			 "%% busy; what held them (storage, the loader's own "
			 "waits) cannot be seen inside a Python loader",
			 vcpus, vcpus == 1 ? "" : "s", busy * 100);
	}
}

/* ---- failures in words ---- */

/* Debian's package for a module the torch pipeline imports. */
static const char *module_package(const char *m, const char **pip)
{
	if (!strcmp(m, "PIL")) {
		*pip = "pillow";
		return "python3-pil";
	}
	if (!strcmp(m, "torchvision")) {
		*pip = "torchvision";
		return "python3-torchvision";
	}
	*pip = "torch";
	return "python3-torch";
}

const char *ms_python_fail_text(const struct ms_python_info *info,
				char *buf, size_t len)
{
	const char *pip = "";
	const char *head = NULL;        /* words before the tail */
	const char *deb;

	switch (info->fail) {
	case MS_PYTHON_NO_INTERPRETER:
		snprintf(buf, len, "no Python interpreter: tried %s; install "
			 "Debian's python3 or name one with --python PATH "
			 "(--pipeline native needs none)",
			 info->interpreter[0] ? info->interpreter : "python3");
		break;
	case MS_PYTHON_MISSING_MODULE:
		deb = module_package(info->module[0] ? info->module : "torch",
				     &pip);
		snprintf(buf, len, "%s has no module '%s': install Debian's "
			 "%s (apt-get install python3-torch python3-torchvision "
			 "python3-pil, or 'make deps') or pip's %s, or name an "
			 "interpreter that has it with --python PATH (the "
			 "python3 first on PATH is often not the one with "
			 "torch); --pipeline native needs none of it",
			 info->interpreter, info->module[0] ? info->module :
			 "torch", deb, pip);
		break;
	case MS_PYTHON_USER_ERROR:
		head = "the Python loader raised:\n";
		break;
	case MS_PYTHON_TIMEOUT:
		head = info->tail[0] ? "the Python runner sent nothing for "
		       "longer than its timeout and was killed; its last "
		       "output:\n" : "the Python runner sent nothing for "
		       "longer than its timeout and was killed";
		break;
	case MS_PYTHON_CRASH:
		head = info->tail[0] ? "the Python runner ended without its "
		       "figures; its last output:\n" : "the Python runner "
		       "ended without its figures";
		break;
	default:
		snprintf(buf, len, "no failure");
		break;
	}
	/* the words, then as much of the tail's end as BUF holds */
	if (head)
		snprintf(buf, len, "%s%s", head, tail_fit(info->tail,
			 len > strlen(head) ? len - strlen(head) : 1));
	return buf;
}

/* ---- the interpreter and the runner's file ---- */

/* NAME (a path, or a name looked up in PATH) into OUT. 0 or -ENOENT. */
static int find_interpreter(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char *dirs, *save = NULL, *d;

	if (!name || !*name)
		name = "python3";
	snprintf(out, len, "%s", name);
	if (strchr(name, '/'))
		return access(name, X_OK) ? -ENOENT : 0;
	dirs = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	if (!dirs)
		return -ENOMEM;
	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char cand[512];

		snprintf(cand, sizeof(cand), "%s/%s", *d ? d : ".", name);
		if (!access(cand, X_OK)) {
			snprintf(out, len, "%s", cand);
			free(dirs);
			return 0;
		}
	}
	free(dirs);
	snprintf(out, len, "%s (not found in PATH)", name);
	return -ENOENT;
}

/*
 * A private directory (mkdtemp, 0700) under $TMPDIR (else /tmp), its name
 * into DIR. The runner's file goes inside it, never straight into /tmp:
 * Python puts a script's folder first on sys.path, and a shared folder
 * would let anyone plant a json.py or a torch/ the runner imports with
 * feedrate's rights. 0 or -errno.
 */
static int temp_dir_make(char *dir, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp || access(tmp, W_OK))
		tmp = "/tmp";
	if ((size_t)snprintf(dir, len, "%s/feedrate-runner-XXXXXX", tmp) >=
	    len) {
		dir[0] = '\0';
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -errno;
	}
	return 0;
}

/* LEN bytes of DATA into a new file PATH (0600, never an existing one).
 * 0 or -errno (PATH then removed). */
static int file_write(const char *path, const void *data, size_t len)
{
	const char *p = data;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -errno;
	while (len && !err) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			err = n < 0 ? -errno : -EIO;
		else {
			p += n;
			len -= (size_t)n;
		}
	}
	if (close(fd) && !err)
		err = -errno;
	if (err)
		unlink(path);
	return err;
}

/* The files of the sample DS, one relative path a line, into a new file
 * PATH. 0 or -errno. */
static int list_write(const struct stg_dataset *ds, const char *path)
{
	size_t n = stg_dataset_count(ds), cap = 4096, used = 0;
	char *buf = malloc(cap);
	int err;

	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t l;
		const char *rel = stg_dataset_relpath(ds, i, &l);

		if (memchr(rel, '\n', l))
			continue;       /* a name a line cannot hold */
		if (used + l + 1 > cap) {
			char *nb;

			while (used + l + 1 > cap)
				cap *= 2;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		memcpy(buf + used, rel, l);
		used += l;
		buf[used++] = '\n';
	}
	err = file_write(path, buf, used);
	free(buf);
	return err;
}

/* The runner's private files: its folder, the runner and a sample's list
 * ("" where not written). */
struct py_files {
	char dir[4096];
	char script[4200];
	char list[4200];
};

/* Remove F's files and its folder (whatever of them was made). */
static void py_files_remove(struct py_files *f)
{
	if (f->list[0])
		unlink(f->list);
	if (f->script[0])
		unlink(f->script);
	if (f->dir[0])
		rmdir(f->dir);
	f->list[0] = f->script[0] = f->dir[0] = '\0';
}

/* F's folder with the runner and, for SAMPLE (NULL none), its list.
 * 0 or -errno (nothing left behind). */
static int py_files_make(struct py_files *f, const struct stg_dataset *sample)
{
	int err;

	memset(f, 0, sizeof(*f));
	err = temp_dir_make(f->dir, sizeof(f->dir));
	if (err)
		return err;
	snprintf(f->script, sizeof(f->script), "%s/runner.py", f->dir);
	err = file_write(f->script, ms_torch_runner_py,
			 ms_torch_runner_py_len);
	if (err) {
		f->script[0] = '\0';
	} else if (sample) {
		snprintf(f->list, sizeof(f->list), "%s/sample.list", f->dir);
		err = list_write(sample, f->list);
		if (err)
			f->list[0] = '\0';
	}
	if (err)
		py_files_remove(f);
	return err;
}

/* ---- the runner, in the point's child ---- */

struct py_arg {
	char *argv[PY_ARGV_MAX];
	char bufs[PY_ARGV_MAX][64];     /* numbers for argv */
	char paths[3][4096 + 16];       /* --file=, --root=, --list=: one
	                                   word each, so a name starting
	                                   with '-' is not an option */
	const char *interpreter;
	double timeout_s;
	unsigned vcpus;
	double au_threshold;
	unsigned gpus;
	bool probe;
};

struct py_out {
	struct ldr_result res;
	struct ms_python_info info;
};

/* Keep the last bytes of the runner's output in TAIL (LEN bytes). */
static void tail_add(char *tail, size_t len, const char *buf, size_t n)
{
	size_t have = strlen(tail);

	if (n >= len - 1) {
		memcpy(tail, buf + n - (len - 1), len - 1);
		tail[len - 1] = '\0';
		return;
	}
	if (have + n >= len) {
		size_t drop = have + n - (len - 1);

		memmove(tail, tail + drop, have - drop + 1);
		have -= drop;
	}
	memcpy(tail + have, buf, n);
	tail[have + n] = '\0';
}

static __attribute__((noreturn)) void
runner_exec(const struct py_arg *a, int json_w, int out_w, pid_t parent)
{
	int nul = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(126);
	if (nul >= 0)
		dup2(nul, STDIN_FILENO);
	dup2(out_w, STDOUT_FILENO);
	dup2(out_w, STDERR_FILENO);
	dup2(json_w, 3);        /* without O_CLOEXEC: the runner's --fd 3 */
	execv(a->interpreter, a->argv);
	_exit(127);
}

/* What runner_read found. */
enum {
	PY_READ_BYTES = 1,              /* bytes came */
	PY_READ_LINE = 2,               /* a JSON line was completed */
	PY_READ_EOF = 4,                /* no more will come */
};

#define PY_READ_CHUNKS 64               /* 512 KiB a call: a runner that
                                           keeps printing cannot hold
                                           the loop (stop, timeout) */

/* Read what is there on FD, until it would block, EOF or PY_READ_CHUNKS
 * reads: lines into RES/INFO (LINE, PY_LINE_MAX + 1 bytes, holds a
 * partial one; *USED is PY_LINE_MAX + 1 once it is too long, and the
 * line is then dropped), or output into OUTTAIL. Returns PY_READ_*
 * flags. */
static int runner_read(int fd, bool json_fd, char *line, size_t *used,
		       struct py_out *o, char *outtail, size_t tail_len)
{
	char buf[8192];
	int got = 0;

	for (int chunk = 0; chunk < PY_READ_CHUNKS; chunk++) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR) {
			chunk--;
			continue;
		}
		if (n == 0)
			return got | PY_READ_EOF;
		if (n < 0)
			return errno == EAGAIN ? got : got | PY_READ_EOF;
		got |= PY_READ_BYTES;
		if (!json_fd) {
			tail_add(outtail, tail_len, buf, (size_t)n);
			continue;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (*used < PY_LINE_MAX)
					line[(*used)++] = buf[i];
				else
					*used = PY_LINE_MAX + 1;
				continue;
			}
			if (*used <= PY_LINE_MAX) {
				line[*used] = '\0';
				ms_python_line(line, &o->res, &o->info);
				got |= PY_READ_LINE;
			}
			*used = 0;
		}
	}
	return got;
}

static int py_child(void *arg, volatile int *stop, void *out, size_t len)
{
	const struct py_arg *a = arg;
	struct py_out *o = out;
	const double timeout = a->timeout_s > 0 ? a->timeout_s :
			       MS_PYTHON_TIMEOUT_S;
	char outtail[sizeof(o->info.tail)] = "";
	int jp[2] = { -1, -1 }, op[2] = { -1, -1 };
	double last, stop_at = -1;
	char *line = malloc(PY_LINE_MAX + 1);
	size_t used = 0;
	bool exited = false, json_eof = false, out_eof = false;
	siginfo_t si;
	int status = 0, err = 0;
	const pid_t self = getpid();
	pid_t pid;

	(void)len;
	if (!line || pipe2(jp, O_CLOEXEC) || pipe2(op, O_CLOEXEC)) {
		free(line);
		return -errno;
	}
	pid = fork();
	if (pid == 0)
		runner_exec(a, jp[1], op[1], self);
	close(jp[1]);
	close(op[1]);
	if (pid < 0) {
		err = -errno;
		goto out;
	}
	setpgid(pid, pid);
	fcntl(jp[0], F_SETFL, O_NONBLOCK);
	fcntl(op[0], F_SETFL, O_NONBLOCK);
	last = stg_now();
	while (!o->info.done && !exited) {
		struct pollfd pf[2] = {
			{ .fd = json_eof ? -1 : jp[0], .events = POLLIN },
			{ .fd = out_eof ? -1 : op[0], .events = POLLIN },
		};
		const double now = stg_now();

		if (*stop && stop_at < 0) {
			kill(pid, SIGINT);
			stop_at = now;
		}
		if (stop_at >= 0 && now - stop_at > MS_PYTHON_STOP_GRACE_S)
			break;
		if (now - last > timeout) {
			o->info.fail = MS_PYTHON_TIMEOUT;
			break;
		}
		if (poll(pf, 2, PY_POLL_MS) > 0) {
			if (pf[0].revents) {
				int r = runner_read(jp[0], true, line, &used,
						    o, outtail,
						    sizeof(outtail));

				if (r & PY_READ_LINE)
					last = stg_now();
				json_eof = r & PY_READ_EOF;
			}
			if (pf[1].revents)
				out_eof = runner_read(op[0], false, line,
						      &used, o, outtail,
						      sizeof(outtail)) &
					  PY_READ_EOF;
		}
		/* seen, not reaped: the zombie leader holds the group's id
		 * until the group is killed below */
		si.si_pid = 0;
		if (!waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG |
			    WNOWAIT) && si.si_pid == pid)
			exited = true;
	}
	/* what it wrote before it exited is in the pipes: its last lines
	 * (a long traceback spans many reads) and its last output; its
	 * workers may still hold them open and write on, so until they
	 * would block, and 8 MiB at most */
	for (int r = PY_READ_BYTES, k = 0; k < 16 && !json_eof &&
	     !o->info.done && (r & PY_READ_BYTES) && !(r & PY_READ_EOF); k++)
		r = runner_read(jp[0], true, line, &used, o, outtail,
				sizeof(outtail));
	for (int r = PY_READ_BYTES, k = 0; k < 16 && !out_eof &&
	     (r & PY_READ_BYTES) && !(r & PY_READ_EOF); k++)
		r = runner_read(op[0], false, line, &used, o, outtail,
				sizeof(outtail));
	/* the whole group (its DataLoader workers), before the reap */
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
out:
	close(jp[0]);
	close(op[0]);
	free(line);
	if (!o->info.tail[0] && o->info.fail != MS_PYTHON_MISSING_MODULE)
		memcpy(o->info.tail, outtail, sizeof(outtail));
	if (err)
		return err;
	if (a->probe && o->info.python[0] && o->info.fail == MS_PYTHON_OK)
		return 0;
	if (o->info.done && o->info.fail == MS_PYTHON_OK) {
		o->res.gpus = a->gpus;
		ms_python_finish(&o->res, &o->info, a->vcpus,
				 a->au_threshold);
		return 0;
	}
	if (o->info.fail == MS_PYTHON_MISSING_MODULE)
		return -ENOPKG;
	if (o->info.fail == MS_PYTHON_USER_ERROR)
		return -ECANCELED;
	if (o->info.fail == MS_PYTHON_TIMEOUT)
		return -ETIMEDOUT;
	if (stop_at >= 0)
		return -EINTR;
	o->info.fail = MS_PYTHON_CRASH;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(o->info.tail, sizeof(o->info.tail), "%s could not be "
			 "started", a->interpreter);
	return -ECHILD;
}

/* ARGV for the runner at SCRIPT from Q (MODE torch/file, LIST or ""). */
static void py_argv(struct py_arg *a, const struct ms_point *q,
		    const char *script, const char *root, const char *list,
		    unsigned workers, bool probe)
{
	unsigned n = 0, b = 0;

#define ARG(s) (a->argv[n++] = (char *)(s))
#define NUM(fmt, v) (snprintf(a->bufs[b], sizeof(a->bufs[b]), fmt, v), \
		     ARG(a->bufs[b++]))
#define PATH(i, opt, v) (snprintf(a->paths[i], sizeof(a->paths[i]), \
				  "%s=%s", opt, v), ARG(a->paths[i]))
	ARG(a->interpreter);
	ARG("-u");
	ARG(script);
	ARG("--fd");
	ARG("3");
	ARG("--mode");
	ARG(q->pipe.kind == MS_PIPELINE_FILE ? "file" : "torch");
	if (probe) {
		ARG("--probe");
	} else {
		if (q->pipe.kind == MS_PIPELINE_FILE)
			PATH(0, "--file", q->pipe.file);
		PATH(1, "--root", root);
		if (list && *list)
			PATH(2, "--list", list);
		ARG("--batch");
		NUM("%u", q->batch ? q->batch : LDR_DEFAULT_BATCH);
		ARG("--workers");
		NUM("%u", workers);
		ARG("--seed");
		NUM("%llu", (unsigned long long)q->seed);
		ARG("--gpus");
		NUM("%u", q->gpus);
		ARG("--rate");
		NUM("%.17g", q->gpu_rate);
		ARG("--sync");
		ARG(q->sync == LDR_GPU_SYNC_NONE ? "none" : "all");
		ARG("--warmup");
		NUM("%.17g", q->warmup_s);
		ARG("--duration");
		NUM("%.17g", q->duration_s);
		ARG("--epochs");
		NUM("%llu", (unsigned long long)q->epochs);
		ARG("--samples");
		NUM("%llu", (unsigned long long)q->samples);
	}
	a->argv[n] = NULL;
#undef ARG
#undef NUM
#undef PATH
}

/* Run the runner for Q (probe: imports only; SAMPLE: the files of a ram
 * point's sample, NULL none) on CPUS in CG into *PO. */
static int py_run(const struct ms_point *q, const char *root,
		  const struct stg_dataset *sample, bool probe,
		  const cpu_set_t *cpus, const struct ldr_memcg *cg,
		  unsigned vcpus, struct py_out *po,
		  struct ldr_child_report *rep)
{
	const struct ldr_child_opts opts = { .cpus = cpus, .memcg = cg };
	struct py_files files;
	char interp[512];
	struct py_arg a;
	int err;

	memset(&a, 0, sizeof(a));
	memset(po, 0, sizeof(*po));
	memset(rep, 0, sizeof(*rep));
	err = find_interpreter(q->pipe.python, interp, sizeof(interp));
	snprintf(po->info.interpreter, sizeof(po->info.interpreter), "%s",
		 interp);
	if (err) {
		po->info.fail = MS_PYTHON_NO_INTERPRETER;
		return err;
	}
	err = py_files_make(&files, sample);
	if (err) {
		snprintf(po->info.tail, sizeof(po->info.tail), "the runner "
			 "could not be written to a private temporary folder: "
			 "%s", strerror(-err));
		po->info.fail = MS_PYTHON_CRASH;
		return err;
	}
	a.interpreter = interp;
	a.timeout_s = q->pipe.timeout_s;
	a.vcpus = vcpus;
	a.au_threshold = q->au_threshold;
	a.gpus = q->gpus;
	a.probe = probe;
	py_argv(&a, q, files.script, root, files.list[0] ? files.list :
		q->pipe.list, ms_pipeline_workers(q->pipe.workers, vcpus),
		probe);
	err = ldr_child_run(&opts, py_child, &a, po, sizeof(*po), rep);
	/* success, failure or an interrupted child: the folder goes */
	py_files_remove(&files);
	if (!err)
		err = rep->fn_result;
	else if (!po->info.fail) {
		po->info.fail = MS_PYTHON_CRASH;
		snprintf(po->info.tail, sizeof(po->info.tail), "%s",
			 rep->why);
	}
	snprintf(po->info.interpreter, sizeof(po->info.interpreter), "%s",
		 interp);
	return err;
}

int ms_python_probe(const struct ms_pipeline_spec *sp,
		    struct ms_python_info *info, char *why, size_t why_len)
{
	struct ms_point q;
	struct ldr_child_report rep;
	struct py_out *po = calloc(1, sizeof(*po));
	int err;

	if (!po)
		return -ENOMEM;
	memset(&q, 0, sizeof(q));
	q.pipe = *sp;
	/* importing torch may take long on a busy VM: the probe is not the
	 * user's loader, it gets the default at least */
	q.pipe.timeout_s = sp->timeout_s > MS_PYTHON_TIMEOUT_S ?
			   sp->timeout_s : MS_PYTHON_TIMEOUT_S;
	err = py_run(&q, "", NULL, true, NULL, NULL, 1, po, &rep);
	*info = po->info;
	free(po);
	if (why_len)
		why[0] = '\0';
	if (!err && !info->python[0]) {
		err = -ECHILD;
		info->fail = MS_PYTHON_CRASH;
	}
	if (err)
		ms_python_fail_text(info, why, why_len);
	return err;
}

int ms_python_point(const struct ms_point *q, const struct stg_dataset *ds,
		    bool sampled, const cpu_set_t *cpus,
		    const struct ldr_memcg *cg, struct ldr_result *res,
		    struct ms_point_out *out)
{
	const unsigned vcpus = cpus ? (unsigned)CPU_COUNT(cpus) : 1;
	/* calloc: every path copies *PO out, a failed start's too */
	struct py_out *po = calloc(1, sizeof(*po));
	int err;

	if (!po)
		return -ENOMEM;
	err = py_run(q, stg_dataset_root(ds), sampled &&
		     q->pipe.kind == MS_PIPELINE_TORCH ? ds : NULL, false,
		     cpus, cg, vcpus, po, &out->rep);
	memcpy(res, &po->res, sizeof(*res));
	out->py = po->info;
	free(po);
	out->err = err;
	if (err) {
		char text[sizeof(out->err_text)];

		snprintf(out->err_text, sizeof(out->err_text), "%s",
			 out->py.fail ? ms_python_fail_text(&out->py, text,
			 sizeof(text)) : strerror(-err));
	}
	if (out->rep.signal && q->stop)
		*q->stop = out->rep.signal;
	return err;
}
