/*
 * bench_augment.c - per-core speed of feedrate's train transform against
 * libjpeg-turbo's full decode of the same files, in the same process.
 *
 * Every JPEG under DIR is read into memory first, so storage is out of the
 * measurement. Then, after an untimed validation pass (which also grows
 * every scratch buffer), each repeat runs one pass over all files per mode:
 *
 *   decode       libjpeg-turbo alone: full decode to RGB, JDCT_ISLOW, fancy
 *                upsampling (CMYK/YCCK files to CMYK, which libjpeg cannot
 *                convert), one decompressor reused for every file.
 *   train        aug_train_sample() with the default parameters:
 *                RandomResizedCrop 224 (ROI and DCT-scaled decode), flip,
 *                normalize to CHW float32.
 *   train-full   the same transform with ROI and DCT-scaled decode off
 *                (full decode + resize): what the two decode tricks save.
 *
 * Rates are images per CPU-second of this process (user + system, so page
 * faults count), medians over the repeats; wall-clock rates are printed
 * beside them. The caller pins the process to one CPU (taskset); a wider
 * affinity mask is reported as a warning. Single-threaded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jpeglib.h>

#include "augment.h"

#define MAX_REPEATS 101

enum mode { M_DECODE = 0, M_TRAIN, M_TRAIN_FULL, M_COUNT };
static const char *const mode_name[M_COUNT] = { "decode", "train",
						"train-full" };

struct sample {
	char *path;
	size_t off, len;     /* bytes in the shared buffer */
	bool bad;            /* failed in some mode: excluded from every mode */
};

struct set {
	struct sample *s;
	size_t n, cap;
	uint8_t *buf;
	size_t bytes;
};

/* ---- the decode-only peer: libjpeg-turbo directly ---- */

struct jerr {
	struct jpeg_error_mgr pub;
	jmp_buf jb;
	int warnings;
};

struct peer {
	struct jpeg_decompress_struct cinfo;
	struct jerr err;
	uint8_t *pix;
	size_t pix_cap;
};

static void jerr_exit(j_common_ptr ci)
{
	struct jerr *e = (struct jerr *)ci->err;

	longjmp(e->jb, 1);
}

static void jerr_message(j_common_ptr ci, int level)
{
	struct jerr *e = (struct jerr *)ci->err;

	if (level < 0)
		e->warnings++;
}

static int peer_init(struct peer *p)
{
	memset(p, 0, sizeof(*p));
	p->cinfo.err = jpeg_std_error(&p->err.pub);
	p->err.pub.error_exit = jerr_exit;
	p->err.pub.emit_message = jerr_message;
	if (setjmp(p->err.jb))
		return -ENOMEM;
	jpeg_create_decompress(&p->cinfo);
	return 0;
}

static void peer_fini(struct peer *p)
{
	jpeg_destroy_decompress(&p->cinfo);
	free(p->pix);
}

/*
 * Full decode of one file; grows the pixel buffer only when `grow` (the
 * validation pass), so timed passes never allocate. 0, -ENOMEM or -EIO
 * (a libjpeg error or warning).
 */
static int peer_decode(struct peer *p, const uint8_t *buf, size_t len,
		       bool grow)
{
	struct jpeg_decompress_struct *ci = &p->cinfo;
	JSAMPROW rows[16];
	size_t stride;

	p->err.warnings = 0;
	if (setjmp(p->err.jb)) {
		jpeg_abort_decompress(ci);
		return -EIO;
	}
	jpeg_mem_src(ci, buf, (unsigned long)len);
	jpeg_read_header(ci, TRUE);
	ci->dct_method = JDCT_ISLOW;
	ci->do_fancy_upsampling = TRUE;
	ci->out_color_space = (ci->jpeg_color_space == JCS_CMYK ||
			       ci->jpeg_color_space == JCS_YCCK) ?
			      JCS_CMYK : JCS_RGB;
	jpeg_start_decompress(ci);
	stride = (size_t)ci->output_width * (size_t)ci->output_components;
	if (stride * 16 > p->pix_cap) {
		uint8_t *np;

		if (!grow) {
			jpeg_abort_decompress(ci);
			return -ENOMEM;
		}
		np = realloc(p->pix, stride * 16);
		if (!np) {
			jpeg_abort_decompress(ci);
			return -ENOMEM;
		}
		p->pix = np;
		p->pix_cap = stride * 16;
	}
	/* Decoded rows land in a 16-row strip, rewritten in turn: the peer
	 * pays for the whole decode but not for a full-image store that the
	 * transform does not need either. */
	for (int i = 0; i < 16; i++)
		rows[i] = p->pix + (size_t)i * stride;
	while (ci->output_scanline < ci->output_height)
		jpeg_read_scanlines(ci, rows, 16);
	jpeg_finish_decompress(ci);
	return p->err.warnings ? -EIO : 0;
}

/* ---- loading the set ---- */

static bool is_jpeg_name(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot && (!strcasecmp(dot, ".jpeg") || !strcasecmp(dot, ".jpg"));
}

static int set_add(struct set *st, const char *path)
{
	if (st->n == st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 1024;
		struct sample *ns = realloc(st->s, ncap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		st->s = ns;
		st->cap = ncap;
	}
	st->s[st->n] = (struct sample){ .path = strdup(path) };
	if (!st->s[st->n].path)
		return -ENOMEM;
	st->n++;
	return 0;
}

static int set_walk(struct set *st, const char *dir, int depth)
{
	struct dirent **ents;
	int n, err = 0;

	if (depth > 8)
		return 0;
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		struct stat sb;
		char *path;

		if (err || name[0] == '.' ||
		    asprintf(&path, "%s/%s", dir, name) < 0) {
			free(ents[i]);
			continue;
		}
		if (stat(path, &sb) == 0) {
			if (S_ISDIR(sb.st_mode))
				err = set_walk(st, path, depth + 1);
			else if (S_ISREG(sb.st_mode) && is_jpeg_name(name))
				err = set_add(st, path);
		}
		free(path);
		free(ents[i]);
	}
	free(ents);
	return err;
}

/* Reads every file into one buffer (touched as it is filled). */
static int set_load(struct set *st)
{
	size_t total = 0, off = 0;

	for (size_t i = 0; i < st->n; i++) {
		struct stat sb;

		if (stat(st->s[i].path, &sb) != 0)
			return -errno;
		st->s[i].len = (size_t)sb.st_size;
		total += (size_t)sb.st_size;
	}
	st->buf = malloc(total ? total : 1);
	if (!st->buf)
		return -ENOMEM;
	for (size_t i = 0; i < st->n; i++) {
		struct sample *s = &st->s[i];
		size_t got = 0;
		int fd = open(s->path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return -errno;
		while (got < s->len) {
			ssize_t r = read(fd, st->buf + off + got, s->len - got);

			if (r <= 0) {
				close(fd);
				return r < 0 ? -errno : -EIO;
			}
			got += (size_t)r;
		}
		close(fd);
		s->off = off;
		off += s->len;
	}
	st->bytes = total;
	return 0;
}

static void set_free(struct set *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->s[i].path);
	free(st->s);
	free(st->buf);
}

/* ---- timing ---- */

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long minflt_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, size_t n)
{
	double tmp[MAX_REPEATS];

	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* Sums of the per-sample statistics of the train mode. */
struct split {
	uint64_t n, decode_ns, resize_ns, post_ns, total_ns;
	double src_px, decoded_px;   /* decoded area in full-res pixels */
	uint64_t denom[9];
	uint64_t fallback, flipped;
};

static void split_add(struct split *sp, const struct aug_stats *s)
{
	const double d = s->scale_denom ? s->scale_denom : 1;

	sp->n++;
	sp->decode_ns += s->decode_ns;
	sp->resize_ns += s->resize_ns;
	sp->post_ns += s->post_ns;
	sp->total_ns += s->total_ns;
	sp->src_px += (double)s->src_w * s->src_h;
	sp->decoded_px += (double)s->decoded.w * s->decoded.h * d * d;
	if (s->scale_denom < 9)
		sp->denom[s->scale_denom]++;
	sp->fallback += s->fallback;
	sp->flipped += s->flipped;
}

struct bench {
	struct set set;
	struct peer peer;
	struct aug_ctx *ctx[M_COUNT];   /* train modes only */
	void *out;
	uint64_t seed;
	size_t used;                    /* files not excluded */
};

/* One sample in one mode. */
static int run_one(struct bench *b, enum mode m, size_t i, uint64_t epoch,
		   bool grow, struct aug_stats *st)
{
	const struct sample *s = &b->set.s[i];
	const uint8_t *bytes = b->set.buf + s->off;

	if (m == M_DECODE)
		return peer_decode(&b->peer, bytes, s->len, grow);
	return aug_train_sample(b->ctx[m], bytes, s->len, b->seed, epoch, i,
				b->out, st);
}

/* One timed pass of mode m over every usable file. */
static int run_pass(struct bench *b, enum mode m, uint64_t epoch,
		    double *cpu_s, double *wall_s, long *faults,
		    struct split *sp)
{
	const long f0 = minflt_now();
	const uint64_t w0 = clock_ns(CLOCK_MONOTONIC);
	const uint64_t c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	struct aug_stats st;
	int fails = 0;

	for (size_t i = 0; i < b->set.n; i++) {
		if (b->set.s[i].bad)
			continue;
		if (run_one(b, m, i, epoch, false, &st) != 0) {
			fails++;
			continue;
		}
		if (sp)
			split_add(sp, &st);
	}
	*cpu_s = (double)(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / 1e9;
	*wall_s = (double)(clock_ns(CLOCK_MONOTONIC) - w0) / 1e9;
	*faults = minflt_now() - f0;
	return fails;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: bench_augment [--repeats N] [--seed S] [--no-train-full] DIR\n"
		"Per-core images/s of the train transform against libjpeg-turbo's\n"
		"full decode of the same files (every *.JPEG/*.jpg under DIR).\n"
		"Pin it to one CPU (taskset -c N). Prints a final 'result:' line.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "repeats", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "no-train-full", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct bench b = { .seed = 1 };
	double cpu[M_COUNT][MAX_REPEATS], wall[M_COUNT][MAX_REPEATS];
	double rate[M_COUNT], wrate[M_COUNT];
	long flt[M_COUNT] = { 0 };
	struct split sp = { 0 }, spf = { 0 };
	bool modes[M_COUNT] = { true, true, true };
	unsigned long repeats = 3;
	struct aug_params prm;
	cpu_set_t cs;
	size_t bad = 0;
	int opt, err, rc = 1, ncpu;

	while ((opt = getopt_long(argc, argv, "r:s:Fh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			repeats = strtoul(optarg, NULL, 10);
			if (repeats < 1 || repeats > MAX_REPEATS) {
				fprintf(stderr, "bench_augment: --repeats 1..%d\n",
					MAX_REPEATS);
				return 2;
			}
			break;
		case 's':
			b.seed = strtoull(optarg, NULL, 0);
			break;
		case 'F':
			modes[M_TRAIN_FULL] = false;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}

	CPU_ZERO(&cs);
	ncpu = sched_getaffinity(0, sizeof(cs), &cs) == 0 ? CPU_COUNT(&cs) : -1;

	err = set_walk(&b.set, argv[optind], 0);
	if (!err)
		err = set_load(&b.set);
	if (err) {
		fprintf(stderr, "bench_augment: loading %s: %s\n", argv[optind],
			strerror(-err));
		goto out;
	}
	if (b.set.n == 0) {
		fprintf(stderr, "bench_augment: no JPEG files under %s\n",
			argv[optind]);
		goto out;
	}

	if (peer_init(&b.peer) != 0) {
		fprintf(stderr, "bench_augment: libjpeg init failed\n");
		goto out;
	}
	aug_params_default(&prm);
	err = aug_ctx_create(&prm, &b.ctx[M_TRAIN]);
	if (!err) {
		prm.roi_decode = false;
		prm.dct_scale = false;
		err = aug_ctx_create(&prm, &b.ctx[M_TRAIN_FULL]);
	}
	if (!err) {
		b.out = malloc(aug_ctx_sample_bytes(b.ctx[M_TRAIN], false));
		if (!b.out)
			err = -ENOMEM;
	}
	if (err) {
		fprintf(stderr, "bench_augment: augment context: %s\n",
			aug_strerror(err));
		goto out_peer;
	}

	/* Validation and warm-up: every mode sees every file once; a file
	 * that fails anywhere is left out of every mode, so all modes
	 * measure the same files. */
	for (size_t i = 0; i < b.set.n; i++) {
		for (int m = 0; m < M_COUNT; m++) {
			if (!modes[m])
				continue;
			err = run_one(&b, m, i, 0, true, NULL);
			if (err) {
				fprintf(stderr, "bench_augment: %s: %s fails: %s\n",
					b.set.s[i].path, mode_name[m],
					m == M_DECODE ? "libjpeg error" :
					aug_strerror(err));
				b.set.s[i].bad = true;
				bad++;
				break;
			}
		}
	}
	b.used = b.set.n - bad;
	if (b.used == 0) {
		fprintf(stderr, "bench_augment: no usable files\n");
		goto out_peer;
	}

	printf("bench_augment: %zu files (%.1f MiB, read into memory first), "
	       "%zu excluded, %lu repeats, kernels %s, affinity %d CPU%s\n",
	       b.used, (double)b.set.bytes / 1048576.0, bad, repeats,
	       aug_isa_name(aug_ctx_isa(b.ctx[M_TRAIN])), ncpu,
	       ncpu == 1 ? "" : "s (WARNING: not pinned to one CPU)");

	/* Modes interleave inside each repeat, so drift in the machine's
	 * speed (other tenants, frequency) spreads over all of them. */
	for (unsigned long r = 0; r < repeats; r++) {
		for (int m = 0; m < M_COUNT; m++) {
			long f;
			int fails;

			if (!modes[m])
				continue;
			fails = run_pass(&b, m, r + 1, &cpu[m][r], &wall[m][r],
					 &f, m == M_TRAIN ? &sp :
					 m == M_TRAIN_FULL ? &spf : NULL);
			flt[m] += f;
			if (fails) {
				fprintf(stderr, "bench_augment: %d files failed "
					"in a timed %s pass\n", fails,
					mode_name[m]);
				goto out_peer;
			}
		}
	}

	printf("  %-11s %12s %12s %10s %10s\n", "mode", "img/s (cpu)",
	       "img/s (wall)", "us/img", "faults/img");
	for (int m = 0; m < M_COUNT; m++) {
		double rc_[MAX_REPEATS], rw[MAX_REPEATS];

		if (!modes[m])
			continue;
		for (unsigned long r = 0; r < repeats; r++) {
			rc_[r] = (double)b.used / cpu[m][r];
			rw[r] = (double)b.used / wall[m][r];
		}
		rate[m] = median(rc_, repeats);
		wrate[m] = median(rw, repeats);
		printf("  %-11s %12.1f %12.1f %10.1f %10.2f\n", mode_name[m],
		       rate[m], wrate[m], 1e6 / rate[m],
		       (double)flt[m] / ((double)b.used * repeats));
	}

	printf("train split, mean per image: decode %.0f us (%.0f%%), "
	       "resize+flip %.0f us (%.0f%%), normalize/CHW %.0f us (%.0f%%), "
	       "total %.0f us\n",
	       sp.decode_ns / 1e3 / sp.n, 100.0 * sp.decode_ns / sp.total_ns,
	       sp.resize_ns / 1e3 / sp.n, 100.0 * sp.resize_ns / sp.total_ns,
	       sp.post_ns / 1e3 / sp.n, 100.0 * sp.post_ns / sp.total_ns,
	       sp.total_ns / 1e3 / sp.n);
	printf("train decode work: %.0f%% of the source pixels decoded "
	       "(ROI + DCT scaling); scale 1/1 %.0f%%, 1/2 %.0f%%, 1/4 %.0f%%, "
	       "1/8 %.0f%%; centre fallback %.1f%%, flipped %.1f%%\n",
	       100.0 * sp.decoded_px / sp.src_px,
	       100.0 * sp.denom[1] / sp.n, 100.0 * sp.denom[2] / sp.n,
	       100.0 * sp.denom[4] / sp.n, 100.0 * sp.denom[8] / sp.n,
	       100.0 * sp.fallback / sp.n, 100.0 * sp.flipped / sp.n);
	if (modes[M_TRAIN_FULL])
		printf("train-full split, mean per image: decode %.0f us, "
		       "resize+flip %.0f us, normalize/CHW %.0f us; "
		       "ROI/DCT decode makes train %.2fx faster\n",
		       spf.decode_ns / 1e3 / spf.n, spf.resize_ns / 1e3 / spf.n,
		       spf.post_ns / 1e3 / spf.n,
		       rate[M_TRAIN] / rate[M_TRAIN_FULL]);
	printf("ratio train / decode: %.2fx (target >= 1.0x: %s)\n",
	       rate[M_TRAIN] / rate[M_DECODE],
	       rate[M_TRAIN] >= rate[M_DECODE] ? "met" : "NOT met");
	printf("result: train_rate=%.1f decode_rate=%.1f train_full_rate=%.1f "
	       "train_wall_rate=%.1f decode_wall_rate=%.1f\n",
	       rate[M_TRAIN], rate[M_DECODE],
	       modes[M_TRAIN_FULL] ? rate[M_TRAIN_FULL] : 0.0,
	       wrate[M_TRAIN], wrate[M_DECODE]);
	rc = 0;
out_peer:
	peer_fini(&b.peer);
out:
	aug_ctx_destroy(b.ctx[M_TRAIN]);
	aug_ctx_destroy(b.ctx[M_TRAIN_FULL]);
	free(b.out);
	set_free(&b.set);
	return rc;
}
