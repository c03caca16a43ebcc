/*
 * test_gpu_decode.c - the gpu-decode pipeline (the host's share of a GPU
 * JPEG decode): which path each file takes and that it is counted, what
 * a sample's place in the batch and its payload hold (the file's bytes
 * for hw; libjpeg's coefficients and tables for hybrid, sizes checked
 * against a plain jpeg_read_coefficients), that the crop is the native
 * pipeline's, the errors a PNG and other bytes give, a run of the engine
 * over a folder, the pipeline's parsing and name, and the decoder rows
 * and the limit the verdict states from them.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <jpeglib.h>

#include "harness.h"
#include "loader.h"
#include "measure.h"
#include "report.h"
#include "workloads.h"

#define AUG_FIXTURE_DIR "tests/fixtures/jpeg"
#include "aug_testlib.h"

static const struct wl_workload *imagenet(void)
{
	const struct wl_workload *w = NULL;

	cr_assert_eq(wl_find("imagenet", &w), 0);
	return w;
}

/* A transform of MODE, its context, and one sample through it. */
struct gd {
	struct wl_transform_state ts;
	struct ldr_transform t;
	void *ctx;
	struct aug_gd_desc desc;
	struct ldr_step_times st;
};

static void gd_open(struct gd *g, enum aug_gd_mode mode)
{
	char desc[512];

	memset(g, 0, sizeof(*g));
	cr_assert_eq(wl_transform_gpu_decode(imagenet(), mode, 0, &g->ts,
					     &g->t, desc, sizeof(desc)), 0);
	cr_assert_eq(g->t.out_bytes, sizeof(struct aug_gd_desc));
	cr_assert(strstr(desc, mode == AUG_GD_MODE_HW ? "gpu-decode:hw" :
			 "gpu-decode:hybrid"));
	cr_assert_eq(g->t.ctx_create(g->t.arg, &g->ctx), 0);
}

static int gd_apply(struct gd *g, const void *data, size_t len, uint64_t id)
{
	memset(&g->st, 0, sizeof(g->st));
	return g->t.apply(g->ctx, data, len, 77, 3, id, &g->desc, &g->st);
}

static void gd_close(struct gd *g)
{
	g->t.ctx_destroy(g->ctx);
	wl_transform_state_release(&g->ts);
}

static uint8_t *jpeg_of(uint32_t w, uint32_t h, enum aug_enc_subsamp ss,
			bool progressive, size_t *len)
{
	struct aug_membuf b = { 0 };

	cr_assert_eq(tl_make_jpeg(w, h, 11, ss, 85, progressive, &b), 0);
	*len = b.len;
	return b.data;
}

/* ---- the reference: a plain libjpeg coefficient read ---- */

struct ref_err {
	struct jpeg_error_mgr mgr;
	jmp_buf jump;
};

static void ref_exit(j_common_ptr ci)
{
	longjmp(((struct ref_err *)(void *)ci->err)->jump, 1);
}

/*
 * The hybrid payload built independently: each component's quantization
 * table (64 uint16) then its blocks, row by row. Caller frees; *LEN and
 * the block counts filled.
 */
static uint8_t *ref_coefs(const uint8_t *data, size_t len, size_t *out_len,
			  uint32_t wb[4], uint32_t hb[4], uint32_t rb[4],
			  uint32_t nr[4], int *ncomp)
{
	struct jpeg_decompress_struct ci;
	struct ref_err e;
	jvirt_barray_ptr *coefs;
	uint8_t *buf, *p;
	volatile size_t total = 0;

	ci.err = jpeg_std_error(&e.mgr);
	e.mgr.error_exit = ref_exit;
	if (setjmp(e.jump))
		cr_assert_fail("libjpeg failed on the reference read");
	jpeg_create_decompress(&ci);
	jpeg_mem_src(&ci, data, (unsigned long)len);
	jpeg_read_header(&ci, TRUE);
	coefs = jpeg_read_coefficients(&ci);
	*ncomp = ci.num_components;
	for (int c = 0; c < ci.num_components; c++) {
		const jpeg_component_info *cp = &ci.comp_info[c];

		wb[c] = cp->width_in_blocks;
		hb[c] = cp->height_in_blocks;
		/* libjpeg's arrays: whole MCUs (jdcoefct.c) */
		rb[c] = (wb[c] + (uint32_t)cp->h_samp_factor - 1) /
			(uint32_t)cp->h_samp_factor *
			(uint32_t)cp->h_samp_factor;
		nr[c] = (hb[c] + (uint32_t)cp->v_samp_factor - 1) /
			(uint32_t)cp->v_samp_factor *
			(uint32_t)cp->v_samp_factor;
		total += 128 + (size_t)rb[c] * nr[c] * sizeof(JBLOCK);
	}
	buf = p = malloc(total);
	cr_assert_not_null(buf);
	for (int c = 0; c < ci.num_components; c++) {
		for (int k = 0; k < DCTSIZE2; k++) {
			uint16_t q = ci.comp_info[c].quant_table->quantval[k];

			memcpy(p, &q, 2);
			p += 2;
		}
		for (uint32_t r = 0; r < nr[c]; r++) {
			JBLOCKARRAY row = ci.mem->access_virt_barray(
				(j_common_ptr)&ci, coefs[c], r, 1, FALSE);

			memcpy(p, row[0], (size_t)rb[c] * sizeof(JBLOCK));
			p += (size_t)rb[c] * sizeof(JBLOCK);
		}
	}
	jpeg_finish_decompress(&ci);
	jpeg_destroy_decompress(&ci);
	*out_len = total;
	return buf;
}

/* The hybrid payload of G's last sample equals the reference's. */
static void expect_coefs(const struct gd *g, const uint8_t *data, size_t len)
{
	uint32_t wb[4], hb[4], rb[4], nr[4];
	size_t n;
	int comps;
	uint8_t *ref = ref_coefs(data, len, &n, wb, hb, rb, nr, &comps);

	cr_expect_eq(g->desc.components, comps);
	cr_expect_eq(g->desc.payload_bytes, n, "payload %llu, reference %zu",
		     (unsigned long long)g->desc.payload_bytes, n);
	for (int c = 0; c < comps; c++) {
		cr_expect_eq(g->desc.w_blocks[c], wb[c]);
		cr_expect_eq(g->desc.h_blocks[c], hb[c]);
		cr_expect_eq(g->desc.row_blocks[c], rb[c]);
		cr_expect_eq(g->desc.rows[c], nr[c]);
		cr_expect_geq(rb[c], wb[c]);
		cr_expect_geq(nr[c], hb[c]);
	}
	cr_expect(g->desc.payload_bytes == n &&
		  !memcmp(g->desc.payload, ref, n), "coefficients differ");
	cr_expect_eq(g->st.staged_bytes, n);
	free(ref);
}

/* ALLOC over one fixed buffer (ARG) */
static void *gd_test_alloc(void *arg, size_t n)
{
	return n <= (4u << 20) ? arg : NULL;
}

/* ---- the paths ---- */

FR_TEST(gpu_decode, hw_stages_a_baseline_file_s_bytes_as_they_are)
{
	size_t len;
	uint8_t *j = jpeg_of(500, 375, AUG_ENC_420, false, &len);
	struct gd g;

	gd_open(&g, AUG_GD_MODE_HW);
	cr_assert_eq(gd_apply(&g, j, len, 5), 0);
	cr_expect_eq(g.desc.magic, AUG_GD_MAGIC);
	cr_expect_eq(g.desc.path, AUG_GD_HW);
	cr_expect_eq(g.st.path, AUG_GD_HW);
	cr_expect_str_eq(g.t.paths[g.st.path], "hw");
	cr_expect_eq(g.desc.width, 500);
	cr_expect_eq(g.desc.height, 375);
	cr_expect_eq(g.desc.components, 3);
	cr_expect_eq(g.desc.subsamp, AUG_GD_SS_420);
	cr_expect_str_eq(aug_gd_subsamp_name(g.desc.subsamp), "4:2:0");
	cr_expect_eq(g.desc.flags & (AUG_GD_PROGRESSIVE | AUG_GD_CMYK), 0);
	cr_assert_eq(g.desc.payload_bytes, len);
	cr_expect_eq(memcmp(g.desc.payload, j, len), 0);
	cr_expect_eq(g.st.staged_bytes, len);
	gd_close(&g);
	free(j);
}

FR_TEST(gpu_decode, the_crop_and_flip_are_the_native_pipeline_s)
{
	size_t len;
	uint8_t *j = jpeg_of(640, 480, AUG_ENC_444, false, &len);
	struct aug_params p;
	struct aug_ctx *c;
	float *out;
	struct gd g;

	aug_params_default(&p);
	cr_assert_eq(aug_ctx_create(&p, &c), 0);
	out = malloc(aug_ctx_sample_bytes(c, false));
	cr_assert_not_null(out);
	gd_open(&g, AUG_GD_MODE_HW);
	for (uint64_t id = 0; id < 20; id++) {
		struct aug_stats s;

		cr_assert_eq(aug_train_sample(c, j, len, 77, 3, id, out, &s), 0);
		cr_assert_eq(gd_apply(&g, j, len, id), 0);
		cr_expect_eq(g.desc.crop.x, s.crop.x, "id %llu",
			     (unsigned long long)id);
		cr_expect_eq(g.desc.crop.y, s.crop.y);
		cr_expect_eq(g.desc.crop.w, s.crop.w);
		cr_expect_eq(g.desc.crop.h, s.crop.h);
		cr_expect_eq(!!(g.desc.flags & AUG_GD_FLIP), s.flipped);
	}
	gd_close(&g);
	aug_ctx_destroy(c);
	free(out);
	free(j);
}

FR_TEST(gpu_decode, hw_sends_progressive_files_down_the_hybrid_path)
{
	size_t len;
	uint8_t *j = jpeg_of(333, 251, AUG_ENC_420, true, &len);
	struct gd g;

	gd_open(&g, AUG_GD_MODE_HW);
	cr_assert_eq(gd_apply(&g, j, len, 1), 0);
	cr_expect_eq(g.desc.path, AUG_GD_HYBRID_PROGRESSIVE);
	cr_expect_str_eq(g.t.paths[g.st.path], "hybrid_progressive");
	cr_expect(g.desc.flags & AUG_GD_PROGRESSIVE);
	expect_coefs(&g, j, len);
	gd_close(&g);
	free(j);
}

FR_TEST(gpu_decode, hw_sends_cmyk_files_down_the_hybrid_path)
{
	size_t len;
	uint8_t *j = tl_fixture("cmyk.jpg", &len);
	struct gd g;

	cr_assert_not_null(j);
	gd_open(&g, AUG_GD_MODE_HW);
	cr_assert_eq(gd_apply(&g, j, len, 1), 0);
	cr_expect_eq(g.desc.path, AUG_GD_HYBRID_CMYK);
	cr_expect_str_eq(g.t.paths[g.st.path], "hybrid_cmyk");
	cr_expect(g.desc.flags & AUG_GD_CMYK);
	cr_expect_eq(g.desc.components, 4);
	expect_coefs(&g, j, len);
	gd_close(&g);
	free(j);
}

FR_TEST(gpu_decode, hybrid_stages_every_component_s_coefficients)
{
	static const enum aug_enc_subsamp ss[] = {
		AUG_ENC_444, AUG_ENC_422, AUG_ENC_420,
	};
	struct gd g;

	gd_open(&g, AUG_GD_MODE_HYBRID);
	for (size_t i = 0; i < sizeof(ss) / sizeof(ss[0]); i++) {
		size_t len;
		/* odd sizes: partial blocks and MCUs at the edges */
		uint8_t *j = jpeg_of(301, 203, ss[i], false, &len);

		cr_assert_eq(gd_apply(&g, j, len, i), 0);
		cr_expect_eq(g.desc.path, AUG_GD_HYBRID);
		cr_expect_eq(g.desc.subsamp, i == 0 ? AUG_GD_SS_444 :
			     i == 1 ? AUG_GD_SS_422 : AUG_GD_SS_420);
		/* luma: ceil(301 / 8) x ceil(203 / 8) blocks */
		cr_expect_eq(g.desc.w_blocks[0], 38);
		cr_expect_eq(g.desc.h_blocks[0], 26);
		expect_coefs(&g, j, len);
		free(j);
	}
	gd_close(&g);
}

/* Odd block counts: libjpeg's arrays hold whole MCUs; the entropy
 * decoder writes the padding blocks an interleaved scan carries, and a
 * progressive file's separate scans leave them zero. The payload lies
 * in the staging memory as libjpeg's arrays do. */
FR_TEST(gpu_decode, hybrid_stages_the_mcu_padding_libjpeg_holds)
{
	static const struct {
		enum aug_enc_subsamp ss;
		bool progressive;
		uint32_t rb0, nr0;
	} cases[] = {
		{ AUG_ENC_420, false, 38, 26 },
		{ AUG_ENC_422, false, 38, 25 },
		{ AUG_ENC_420, true, 38, 26 },
		{ AUG_ENC_444, false, 37, 25 },
	};
	struct gd g;

	gd_open(&g, AUG_GD_MODE_HYBRID);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		/* 37 x 25 luma blocks */
		uint8_t *j = jpeg_of(289, 195, cases[i].ss,
				     cases[i].progressive, &len);

		cr_assert_eq(gd_apply(&g, j, len, i), 0);
		cr_expect_eq(g.desc.w_blocks[0], 37);
		cr_expect_eq(g.desc.h_blocks[0], 25);
		cr_expect_eq(g.desc.row_blocks[0], cases[i].rb0, "case %zu", i);
		cr_expect_eq(g.desc.rows[0], cases[i].nr0, "case %zu", i);
		expect_coefs(&g, j, len);
		free(j);
	}
	gd_close(&g);
}

static size_t nobuf_calls;

static void *nobuf_alloc(void *arg, size_t n)
{
	(void)arg;
	(void)n;
	nobuf_calls++;
	return NULL;
}

/* A staging area with no room fails the sample, once, before any scan is
 * decoded, and the decoder goes on with the next file. */
FR_TEST(gpu_decode, hybrid_without_staging_room_is_enobufs)
{
	const struct aug_rrc_opts rrc = { 0.08, 1.0, 3.0 / 4, 4.0 / 3, 10 };
	struct aug_decoder *d;
	struct aug_gd_desc desc;
	struct aug_gd_stats st;
	size_t len;
	bool png;
	uint8_t *j = jpeg_of(289, 195, AUG_ENC_420, false, &len);
	uint8_t *buf = malloc(4u << 20);

	cr_assert_not_null(buf);
	cr_assert_eq(aug_decoder_create(NULL, &d), 0);
	cr_expect_eq(aug_gd_stage(d, j, len, false, AUG_GD_MODE_HYBRID, &rrc,
				  0.5, 1, 0, 0, nobuf_alloc, NULL, &desc, &png,
				  &st), -ENOBUFS);
	cr_expect_eq(nobuf_calls, 1);
	cr_expect_null(desc.payload);
	cr_expect(strstr(aug_decoder_message(d), "staging"), "%s",
		  aug_decoder_message(d));
	cr_expect_eq(aug_gd_stage(d, j, len, false, AUG_GD_MODE_HYBRID, &rrc,
				  0.5, 1, 0, 0, gd_test_alloc, buf, &desc,
				  &png, &st), 0);
	cr_expect(desc.payload >= buf && desc.payload + desc.payload_bytes <=
		  buf + (4u << 20));
	aug_decoder_destroy(d);
	free(buf);
	free(j);
}

FR_TEST(gpu_decode, a_png_is_unsupported_and_other_bytes_are_not_a_format)
{
	size_t len;
	uint8_t *png = tl_read_file("tests/fixtures/png/gray.png", &len);
	static const char junk[] = "GIF89a not an image we decode";
	struct gd g;

	cr_assert_not_null(png);
	for (int m = 0; m < 2; m++) {
		gd_open(&g, m ? AUG_GD_MODE_HYBRID : AUG_GD_MODE_HW);
		cr_expect_eq(gd_apply(&g, png, len, 1), -LDR_EUNSUPPORTED);
		cr_expect_str_eq(g.st.err_kind, "png_not_gpu_decoded");
		cr_expect_eq(gd_apply(&g, junk, sizeof(junk), 2),
			     -LDR_ENOTFORMAT);
		cr_expect_null(g.st.err_kind);
		cr_expect_str_eq(ldr_sample_err_name(-LDR_ENOTFORMAT),
				 "not_format");
		gd_close(&g);
	}
	free(png);
}

FR_TEST(gpu_decode, damaged_files_fail_with_the_native_kinds)
{
	size_t len, clen;
	uint8_t *j = jpeg_of(320, 240, AUG_ENC_420, false, &len);
	uint8_t *corrupt = tl_fixture("corrupt_header.jpg", &clen);
	struct gd g;

	cr_assert_not_null(corrupt);
	gd_open(&g, AUG_GD_MODE_HYBRID);
	/* cut inside the entropy-coded data: the hybrid path reads it */
	cr_expect_eq(gd_apply(&g, j, len / 2, 1), -LDR_ETRUNCATED);
	cr_expect_eq(gd_apply(&g, corrupt, clen, 2), -LDR_ECORRUPT);
	/* and the decoder goes on with the next file */
	cr_expect_eq(gd_apply(&g, j, len, 3), 0);
	gd_close(&g);
	gd_open(&g, AUG_GD_MODE_HW);
	/* hw parses headers only: a header cut short is still seen */
	cr_expect_eq(gd_apply(&g, j, 100, 1), -LDR_ETRUNCATED);
	gd_close(&g);
	free(corrupt);
	free(j);
}

/* ---- a run of the engine over a folder ---- */

struct seen {
	uint64_t samples, bad, payload;
	uint64_t hw_sum;        /* of the hw payloads' hashes */
	unsigned batch;
};

/* FNV-1a of N bytes at P: a payload's identity, summed in any order. */
static uint64_t fnv(const uint8_t *p, uint64_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (uint64_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static void on_batch(void *arg, uint64_t b, const void *data, unsigned n)
{
	const struct aug_gd_desc *d = data;
	struct seen *s = arg;

	(void)b;
	for (unsigned i = 0; i < n; i++) {
		s->samples++;
		if (d[i].magic != AUG_GD_MAGIC) {
			s->bad++;       /* a failed sample: zeros */
			continue;
		}
		s->payload += d[i].payload_bytes;
		/* the batch's own bytes, there when the GPU takes them */
		if (d[i].path == AUG_GD_HW &&
		    (d[i].payload[0] != 0xff || d[i].payload[1] != 0xd8))
			s->bad += 1000;
		if (d[i].path == AUG_GD_HW)
			s->hw_sum += fnv(d[i].payload, d[i].payload_bytes);
	}
}

static void write_file(const char *dir, const char *name, const void *p,
		       size_t n)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, p, n), (ssize_t)n);
	close(fd);
}

/* A hw run over DIR (a_run_counts_...'s folder): what it counted, what
 * the batches held; the readers read straight into the staging area,
 * buffered or with O_DIRECT (DIRECT: 4 KiB-aligned, whole blocks). */
static void run_folder_hw(const char *dir, bool direct, uint64_t
			  expect_staged, uint64_t expect_hw_sum)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct seen seen = { 0 };
	struct ldr_config cfg;
	struct gd g;

	cr_assert_not_null(res);
	gd_open(&g, AUG_GD_MODE_HW);
	memset(&cfg, 0, sizeof(cfg));
	cfg.seed = 5;
	cfg.world = 1;
	cfg.warmup_s = -1;
	cfg.epochs = 1;
	cfg.batch = 4;
	cfg.workers = 2;
	cfg.reader.depth = 8;
	cfg.reader.max_sample_bytes = 1 << 22;
	cfg.reader.direct = direct;
	cfg.transform = g.t;
	cfg.on_batch = on_batch;
	cfg.on_batch_arg = &seen;
	cr_assert_eq(stg_dataset_scan(dir, NULL, (struct stg_dataset **)
				      &cfg.ds), 0);
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_expect_eq(seen.samples, 14, "direct=%d", direct);
	cr_expect_eq(seen.bad, 1, "only the PNG fails (%llu), direct=%d",
		     (unsigned long long)seen.bad, direct);
	cr_expect_str_eq(res->path_names[0], "hw");
	cr_expect_str_eq(res->path_names[2], "hybrid_progressive");
	cr_expect_eq(res->path_samples[AUG_GD_HW], 10);
	cr_expect_eq(res->path_samples[AUG_GD_HYBRID], 0);
	cr_expect_eq(res->path_samples[AUG_GD_HYBRID_PROGRESSIVE], 2);
	cr_expect_eq(res->path_samples[AUG_GD_HYBRID_CMYK], 1);
	cr_expect_eq(res->errors, 1);
	cr_expect_eq(res->err_kinds, 1);
	cr_expect_str_eq(res->err[0].kind, "png_not_gpu_decoded");
	/* every payload byte staged, counted and seen in the batches */
	cr_expect_eq(res->staged_bytes, expect_staged, "direct=%d", direct);
	cr_expect_eq(seen.payload, expect_staged, "direct=%d", direct);
	/* the hw payloads are the files' bytes, whole, when the batch is
	 * consumed */
	cr_expect_eq(seen.hw_sum, expect_hw_sum, "direct=%d", direct);
	cr_expect_gt(res->stage_held_bytes, 0);
	cr_expect_gt(res->stage_batch_max, 0);
	stg_dataset_destroy((struct stg_dataset *)cfg.ds);
	gd_close(&g);
	free(res);
}

FR_TEST(gpu_decode, a_run_counts_each_path_and_stages_every_byte)
{
	char *dir = fr_test_tmpdir();
	struct gd ref;
	uint64_t expect_staged = 0, expect_hw_sum = 0;
	size_t plen, clen;
	uint8_t *png = tl_read_file("tests/fixtures/png/gray.png", &plen);
	uint8_t *cmyk = tl_fixture("cmyk.jpg", &clen);

	cr_assert_not_null(png);
	cr_assert_not_null(cmyk);
	gd_open(&ref, AUG_GD_MODE_HW);
	for (unsigned i = 0; i < 12; i++) {
		char name[32];
		size_t len;
		uint8_t *j = jpeg_of(160 + 8 * i, 120 + 4 * i, AUG_ENC_420,
				     i % 6 == 5, &len);

		snprintf(name, sizeof(name), "img%02u.jpg", i);
		write_file(dir, name, j, len);
		cr_assert_eq(gd_apply(&ref, j, len, i), 0);
		expect_staged += ref.desc.payload_bytes;
		if (ref.desc.path == AUG_GD_HW)
			expect_hw_sum += fnv(j, len);
		free(j);
	}
	write_file(dir, "cmyk.jpg", cmyk, clen);
	cr_assert_eq(gd_apply(&ref, cmyk, clen, 99), 0);
	expect_staged += ref.desc.payload_bytes;
	write_file(dir, "photo.png", png, plen);
	gd_close(&ref);
	run_folder_hw(dir, false, expect_staged, expect_hw_sum);
	run_folder_hw(dir, true, expect_staged, expect_hw_sum);
	fr_test_rmtree(dir);
	free(png);
	free(cmyk);
}

/* ---- the pipeline's name, the decoder rows, the limit ---- */

FR_TEST(gpu_decode, the_pipeline_parses_and_names_its_path)
{
	static const struct {
		const char *s;
		enum ms_gpudec m;
		const char *name;
	} ok[] = {
		{ "gpu-decode", MS_GPUDEC_AUTO, "gpu-decode" },
		{ "gpu-decode:hw", MS_GPUDEC_HW, "gpu-decode:hw" },
		{ "gpu-decode:hybrid", MS_GPUDEC_HYBRID, "gpu-decode:hybrid" },
	};
	static const char *const bad[] = {
		"gpu-decode:", "gpu-decode:nvjpg", "gpu-decodes", "gpu",
		"gpu-decode:hwx",
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct ms_pipeline_spec sp = { 0 };

		cr_assert_eq(ms_pipeline_parse(ok[i].s, &sp), 0, "%s", ok[i].s);
		cr_expect_eq(sp.kind, MS_PIPELINE_GPU_DECODE);
		cr_expect_eq(sp.gpudec, ok[i].m);
		cr_expect_not(ms_pipeline_is_python(&sp));
		cr_expect_str_eq(ms_pipeline_name(&sp, buf, sizeof(buf)),
				 ok[i].name);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ms_pipeline_spec sp = { 0 };

		cr_expect_eq(ms_pipeline_parse(bad[i], &sp), -EINVAL, "%s",
			     bad[i]);
	}
}

FR_TEST(gpu_decode, every_demand_gpu_has_a_decoder_row_with_its_source)
{
	const struct wl_workload *w = imagenet();

	for (size_t i = 0; i < w->ndemand; i++) {
		const struct wl_gpu_decoder *d;

		if (w->demand[i].kind != WL_DEMAND_TRAIN)
			continue;
		d = wl_gpu_decoder_find(w->demand[i].gpu);
		cr_assert_not_null(d, "%s has no decoder row",
				   w->demand[i].gpu);
		cr_expect(d->source && *d->source && d->kind && *d->kind);
		cr_expect(d->img_per_s == 0 || (d->range_lo <= d->img_per_s &&
			  d->img_per_s <= d->range_hi));
	}
	cr_expect(wl_gpu_decoder_find("a100")->hw);
	cr_expect(wl_gpu_decoder_find("H200")->hw);
	cr_expect_not(wl_gpu_decoder_find("T4")->hw);
	cr_expect_null(wl_gpu_decoder_find("MYGPU"));
}

FR_TEST(gpu_decode, the_gpu_s_decoder_is_the_limit_only_below_the_demand)
{
	struct rpt_gpu_decode g;
	char text[512];

	rpt_gpu_decode_fill(&g, "A100", "hw");
	cr_assert(g.known && g.hw && g.img_per_s > 0);
	/* injected demands either side of the stated capacity */
	cr_expect_not(rpt_gpu_decode_limit(&g, g.img_per_s * 0.9, text,
					   sizeof(text)));
	cr_expect_str_eq(text, "");
	cr_expect(rpt_gpu_decode_limit(&g, g.img_per_s * 1.1, text,
				       sizeof(text)));
	cr_expect(strstr(text, "the GPU's decoder, not the VM, is the limit"));
	/* a capacity no source states is never the limit */
	rpt_gpu_decode_fill(&g, "T4", "hybrid");
	cr_expect_not(rpt_gpu_decode_limit(&g, 1e9, text, sizeof(text)));
	rpt_gpu_decode_modelled(&g, text, sizeof(text));
	cr_expect(strstr(text, "modelled: the CPU share measured here, the "
			 "GPU share from "));
	rpt_gpu_decode_fill(&g, "MYGPU", "hw");
	cr_expect_not(g.known);
	rpt_gpu_decode_modelled(&g, text, sizeof(text));
	cr_expect(strstr(text, "not stated"));
}

/* ---- the command line ---- */

/* `feedrate run --pipeline gpu-decode --gpus GPUS` over DATA: its JSON. */
static json_t *cli_run(const char *dir, const char *data, const char *gpus)
{
	char out[4096];
	char *argv[] = { (char *)fr_test_bin(), "run", "--pipeline",
			 "gpu-decode", "--gpus", (char *)gpus, "--vcpus", "1",
			 "--epochs", "1", "--cache", "warm", "--json", out,
			 (char *)data, NULL };
	json_error_t e;
	json_t *j;
	int rc;

	snprintf(out, sizeof(out), "%s/out.json", dir);
	rc = fr_test_run(dir, argv, 300);
	cr_assert_eq(rc, 0, "feedrate run exited %d", rc);
	j = json_load_file(out, 0, &e);
	cr_assert_not_null(j, "%s", e.text);
	return j;
}

FR_TEST(gpu_decode_cli, the_path_follows_the_gpu_s_decoder_and_is_reported)
{
	char *dir = fr_test_tmpdir();
	char data[4096];
	char *gen[] = { (char *)fr_test_bin(), "gen", "-q", "--files", "48",
			data, NULL };
	static const struct { const char *gpus, *name, *path; } cases[] = {
		{ "1xA100", "gpu-decode:hw", "hw" },
		{ "1xT4", "gpu-decode:hybrid", "hybrid" },
	};

	snprintf(data, sizeof(data), "%s/data", dir);
	cr_assert_eq(fr_test_run(dir, gen, 300), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j = cli_run(dir, data, cases[i].gpus);
		json_t *p = json_object_get(j, "pipeline");
		json_t *gd = json_object_get(p, "gpu_decode");
		json_t *by = json_object_get(gd, "samples_by_path");

		cr_expect_str_eq(json_string_value(json_object_get(p, "name")),
				 cases[i].name);
		cr_expect_str_eq(json_string_value(json_object_get(gd, "path")),
				 cases[i].path);
		cr_expect_gt(json_integer_value(json_object_get(by,
					       cases[i].path)), 0);
		cr_expect(strstr(json_string_value(json_object_get(gd,
				 "modelled")), "modelled: the CPU share "
				 "measured here, the GPU share from "));
		cr_expect_gt(json_integer_value(json_object_get(gd,
			     "staged_bytes")), 0);
		json_decref(j);
	}
	fr_test_rmtree(dir);
}

FR_TEST(gpu_decode_cli, a_workload_that_is_not_images_is_a_usage_error)
{
	char *dir = fr_test_tmpdir();
	char *argv[] = { (char *)fr_test_bin(), "run", "--workload", "tokens",
			 "--pipeline", "gpu-decode", "/nonexistent", NULL };
	char path[4096];
	size_t len;
	char *err;

	cr_assert_eq(fr_test_run(dir, argv, 60), 2);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	err = (char *)tl_read_file(path, &len);
	cr_assert_not_null(err);
	err[len] = '\0';
	cr_expect(strstr(err, "not an image workload"), "%s", err);
	free(err);
	fr_test_rmtree(dir);
}

/* a sweep with a 24 s budget: the slow tier (make test), not make check */
FR_TEST(gpu_decode_cli_slow, a_sweep_gives_gpu_decode_s_row_beside_native_s,
	.timeout = 240)
{
	char *dir = fr_test_tmpdir();
	char data[4096], out[4096];
	char *gen[] = { (char *)fr_test_bin(), "gen", "-q", "--files", "48",
			data, NULL };
	char *argv[] = { (char *)fr_test_bin(), "sweep", "--pipeline",
			 "native,gpu-decode", "--gpus", "1xA100", "--vcpus",
			 "1", "--cache", "warm", "--budget", "24s",
			 /* small batches: 4 of them fit a window on a
			  * loaded machine, so the points are judged */
			 "--batch", "16", "--no-check", "--json", out, data,
			 NULL };
	json_error_t e;
	json_t *j, *by, *n, *g;

	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(out, sizeof(out), "%s/sweep.json", dir);
	cr_assert_eq(fr_test_run(dir, gen, 300), 0);
	cr_assert_eq(fr_test_run(dir, argv, 300), 0);
	j = json_load_file(out, 0, &e);
	cr_assert_not_null(j, "%s", e.text);
	by = json_object_get(json_object_get(j, "verdict"), "by_pipeline");
	n = json_object_get(by, "native");
	g = json_object_get(by, "gpu-decode:hw");
	cr_assert_not_null(n);
	cr_assert_not_null(g, "no gpu-decode:hw row");
	cr_expect(json_is_integer(json_object_get(g, "gpus_fed")));
	cr_expect(strstr(json_string_value(json_object_get(g, "modelled")),
			 "modelled: the CPU share measured here"));
	/* where both were judged: the CPU saved is native's less its own,
	 * and the reserve is added to vCPUs per GPU */
	if (json_is_number(json_object_get(g, "cpu_saved_s_per_sample")))
		cr_expect_float_eq(json_number_value(json_object_get(g,
			"cpu_saved_s_per_sample")),
			json_number_value(json_object_get(n,
			"cpu_s_per_sample")) - json_number_value(
			json_object_get(g, "cpu_s_per_sample")), 1e-9);
	if (json_is_number(json_object_get(g, "vcpus_per_gpu")))
		cr_expect_float_eq(json_number_value(json_object_get(g,
			"vcpus_per_gpu_with_reserve")), json_number_value(
			json_object_get(g, "vcpus_per_gpu")) + 1.0, 1e-9);
	cr_expect(json_is_boolean(json_object_get(g, "storage_limits")));
	json_decref(j);
	fr_test_rmtree(dir);
}
