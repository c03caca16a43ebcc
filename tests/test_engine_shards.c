/*
 * test_engine_shards.c - the engine over sharded datasets (shard_stage.c)
 * with a toy format of its own, so that the engine is tested apart from
 * the real formats: a shard is records of [u32 length][payload], the
 * payload [u64 record id][filler]. Checked: every record once per epoch
 * whatever the readers, shuffle buffer and read size; zstd-compressed
 * shards; a shard that ends early, a bad length and a missing shard each
 * give exactly the records owed as failed samples, by kind, with the
 * shard and the byte offset; blocks read straight into small retained
 * blocks with several reads in flight, on io_uring and on psync, each
 * record checked byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_getFrameContentSize's codes */
#include <zstd.h>

#include "augment.h"
#include "harness.h"
#include "loader.h"

#define TOY_EBAD 7001
#define TOY_ESHORT 7002

/* ---- the toy format ---- */

struct toy_scan {
	uint64_t pos;
};

static void toy_init(void *arg, void *scan, uint64_t shard)
{
	(void)arg;
	(void)shard;
	((struct toy_scan *)scan)->pos = 0;
}

static int toy_next(void *scan, const uint8_t *win, uint64_t base,
		    size_t len, bool eof, uint64_t *off, uint64_t *rlen,
		    uint64_t *keep, uint64_t *err_off)
{
	struct toy_scan *t = scan;
	uint64_t end = base + len;
	uint32_t n;

	*keep = t->pos;
	if (t->pos == end)
		return 0;
	if (end - t->pos < 4)
		return eof ? -TOY_ESHORT : 0;
	memcpy(&n, win + (t->pos - base), 4);
	if (n < 8 || n > 1 << 20) {
		*err_off = t->pos;
		return -TOY_EBAD;
	}
	if (end - t->pos < 4 + (uint64_t)n) {
		if (eof) {
			*err_off = t->pos;
			return -TOY_ESHORT;
		}
		return 0;
	}
	*off = t->pos + 4;
	*rlen = n;
	t->pos += 4 + n;
	*keep = t->pos;
	return 1;
}

static const char *toy_err_name(int err)
{
	return err == -TOY_EBAD ? "toy_bad" : err == -TOY_ESHORT ? "toy_short"
							   : NULL;
}

static int dec_create(void *arg, void **dec)
{
	(void)arg;
	return aug_zstd_create((struct aug_zstd **)dec);
}

static void dec_destroy(void *dec) { aug_zstd_destroy(dec); }
static int dec_begin(void *dec, const uint8_t *first, size_t len,
		     uint64_t total, uint64_t cap)
{
	return aug_zstd_begin(dec, first, len, total, cap);
}

static int dec_run(void *dec, const uint8_t *in, size_t in_len,
		   size_t *in_pos, uint8_t *out, size_t cap, size_t *out_pos)
{
	return aug_zstd_run(dec, in, in_len, in_pos, out, cap, out_pos);
}

static int dec_end(void *dec)
{
	return aug_zstd_mid_frame(dec) ? -AUG_EZSTD : 0;
}

static const struct ldr_shard_ops toy_ops = {
	.scan_size = sizeof(struct toy_scan),
	.scan_init = toy_init,
	.scan_next = toy_next,
	.dec_create = dec_create,
	.dec_destroy = dec_destroy,
	.dec_begin = dec_begin,
	.dec_run = dec_run,
	.dec_end = dec_end,
	.truncated_err = -TOY_ESHORT,
	.err_name = toy_err_name,
};

/* ---- shards on disk ---- */

struct toyset {
	char *dir;
	struct stg_dataset *ds;
	uint64_t nshards;
	uint64_t *records;      /* per dataset id */
	uint8_t *compressed;
	uint64_t *raw;          /* decompressed bytes per shard */
	uint64_t total;
	uint64_t *rec_of_id;    /* record id -> its record count in shard */
	struct ldr_shards sh;
	enum stg_backend_id backend;    /* the readers' (AUTO) */
	bool direct;                    /* O_DIRECT reads */
};

/* record payloads are 8 .. toy_span + 7 bytes (a test may set it around
 * toyset_make) */
static uint32_t toy_span = 3000;

static size_t toy_record(uint8_t *p, uint64_t rid)
{
	uint32_t n = (uint32_t)(8 + (rid * 7919) % toy_span);

	memcpy(p, &n, 4);
	memcpy(p + 4, &rid, 8);
	for (uint32_t i = 8; i < n; i++)
		p[4 + i] = (uint8_t)(rid + i);
	return 4 + n;
}

/* NSHARDS shards of PER records each (shard i holds records i*PER ..);
 * ZSTD: every other shard compressed. */
static void toyset_make(struct toyset *t, unsigned nshards, unsigned per,
			bool zstd)
{
	char path[4096];
	size_t cap = (size_t)per * (toy_span + 100), len;
	uint8_t *buf = malloc(cap), *z = malloc(ZSTD_compressBound(cap));

	cr_assert(buf && z);
	memset(t, 0, sizeof(*t));
	t->dir = fr_test_tmpdir();
	t->raw = calloc(nshards, sizeof(*t->raw));
	for (unsigned s = 0; s < nshards; s++) {
		bool c = zstd && s % 2;
		int fd;

		len = 0;
		for (unsigned k = 0; k < per; k++)
			len += toy_record(buf + len, (uint64_t)s * per + k);
		t->raw[s] = len;    /* the listing's order is the shards' */
		snprintf(path, sizeof(path), "%s/shard-%04u.toy%s", t->dir, s,
			 c ? ".zst" : "");
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		cr_assert(fd >= 0);
		if (c && s % 4 == 3) {
			/* streamed without a pledged size: the frame does
			 * not say how big it is (the moving window) */
			ZSTD_CCtx *cc = ZSTD_createCCtx();
			ZSTD_inBuffer ib = { buf, len, 0 };
			ZSTD_outBuffer ob = { z, ZSTD_compressBound(cap), 0 };

			ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
			cr_assert_eq(ZSTD_compressStream2(cc, &ob, &ib,
							  ZSTD_e_end), 0);
			ZSTD_freeCCtx(cc);
			cr_assert_eq(ZSTD_getFrameContentSize(z, ob.pos),
				     ZSTD_CONTENTSIZE_UNKNOWN);
			cr_assert_eq(write(fd, z, ob.pos), (ssize_t)ob.pos);
		} else if (c) {
			size_t zl = ZSTD_compress(z, ZSTD_compressBound(cap),
						  buf, len, 3);

			cr_assert(!ZSTD_isError(zl));
			cr_assert_eq(write(fd, z, zl), (ssize_t)zl);
		} else {
			cr_assert_eq(write(fd, buf, len), (ssize_t)len);
		}
		close(fd);
	}
	free(buf);
	free(z);
	cr_assert_eq(stg_dataset_scan(t->dir, NULL, &t->ds), 0);
	t->nshards = stg_dataset_count(t->ds);
	cr_assert_eq(t->nshards, nshards);
	t->records = calloc(nshards, sizeof(*t->records));
	t->compressed = calloc(nshards, 1);
	for (uint64_t id = 0; id < nshards; id++) {
		const char *rel = stg_dataset_relpath(t->ds, id, NULL);

		t->records[id] = per;
		t->compressed[id] = strstr(rel, ".zst") != NULL;
	}
	t->total = (uint64_t)nshards * per;
	t->sh.records = t->records;
	t->sh.compressed = t->compressed;
	t->sh.raw_bytes = t->raw;
	t->sh.total = t->total;
	t->sh.ops = &toy_ops;
	t->sh.max_record = 1 << 20;
}

static void toyset_free(struct toyset *t)
{
	stg_dataset_destroy(t->ds);
	free(t->records);
	free(t->compressed);
	free(t->raw);
	fr_test_rmtree(t->dir);
}

/* ---- a transform that says which record it got ---- */

static int id_apply(void *ctx, const void *data, size_t len, uint64_t seed,
		    uint64_t epoch, uint64_t id, void *out,
		    struct ldr_step_times *st)
{
	uint64_t rid, v[3];

	(void)ctx;
	(void)seed;
	(void)st;
	memcpy(&rid, data, 8);
	for (size_t i = 8; i < len; i++)
		if (((const uint8_t *)data)[i] != (uint8_t)(rid + i))
			return -EIO;
	v[0] = rid + 1;         /* 0 stays "failed" */
	v[1] = epoch;
	v[2] = id;
	memcpy(out, v, sizeof(v));
	return 0;
}

static const struct ldr_transform id_tf = {
	.name = "toy-id", .out_bytes = 24, .apply = id_apply,
};

struct seen {
	uint64_t n;
	uint32_t *count;        /* per record id */
	uint64_t failed, id_mismatch;
	uint64_t *order, norder;  /* record ids in position order */
};

static void on_batch(void *arg, uint64_t batch, const void *data,
		     unsigned samples)
{
	struct seen *s = arg;
	const uint64_t *v = data;

	(void)batch;
	for (unsigned i = 0; i < samples; i++, v += 3) {
		if (!v[0]) {
			s->failed++;
			continue;
		}
		if (v[0] - 1 >= s->n)
			continue;
		s->count[v[0] - 1]++;
		if (s->order)
			s->order[s->norder++] = v[0] - 1;
		/* the engine's id of a record is its place in the shards' order
		 * of the listing, the same numbering as the toy's */
		if (v[2] != v[0] - 1)
			s->id_mismatch++;
	}
}

static void run_epochs(struct toyset *t, unsigned readers, unsigned shuffle,
		       uint32_t read_size, uint64_t epochs, struct seen *s,
		       struct ldr_result *res)
{
	struct ldr_config cfg;

	memset(s, 0, sizeof(*s));
	s->n = t->total;
	s->count = calloc(t->total, sizeof(*s->count));
	s->order = calloc(t->total * epochs, sizeof(*s->order));
	t->sh.shuffle_buffer = shuffle;
	t->sh.read_size = read_size;
	memset(&cfg, 0, sizeof(cfg));
	cfg.ds = t->ds;
	cfg.shards = &t->sh;
	cfg.reader.backend = t->backend;
	cfg.reader.direct = t->direct;
	cfg.readers = readers;
	cfg.workers = 2;
	cfg.batch = 7;
	cfg.transform = id_tf;
	cfg.seed = 11;
	cfg.epochs = epochs;
	cfg.warmup_s = -1;
	cfg.on_batch = on_batch;
	cfg.on_batch_arg = s;
	cr_assert_eq(ldr_run(&cfg, res), 0);
}

FR_TEST(engine_shards, every_record_once_per_epoch_whatever_the_readers)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	static const unsigned readers[] = { 1, 3 }, shuffle[] = { 1, 50, 1000 };
	static const uint32_t rs[] = { 4096, 65536, 1 << 20 };
	struct toyset t;

	toyset_make(&t, 9, 37, false);
	for (unsigned a = 0; a < 2; a++)
		for (unsigned b = 0; b < 3; b++) {
			struct seen s;

			run_epochs(&t, readers[a], shuffle[b], rs[b], 2, &s,
				   res);
			cr_assert_eq(res->errors, 0);
			cr_assert_eq(s.failed, 0);
			cr_assert_eq(s.id_mismatch, 0);
			cr_assert_eq(res->epochs_done, 2);
			for (uint64_t i = 0; i < t.total; i++)
				cr_assert_eq(s.count[i], 2, "record %lu seen "
					     "%u times (readers %u, shuffle "
					     "%u)", (unsigned long)i,
					     s.count[i], readers[a],
					     shuffle[b]);
			free(s.count);
			free(s.order);
		}
	toyset_free(&t);
	free(res);
}

FR_TEST(engine_shards, compressed_shards_give_the_same_records)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct toyset t;
	struct seen s;

	toyset_make(&t, 8, 41, true);
	run_epochs(&t, 2, 20, 4096, 1, &s, res);
	cr_assert_eq(res->errors, 0);
	for (uint64_t i = 0; i < t.total; i++)
		cr_assert_eq(s.count[i], 1);
	free(s.count);
	free(s.order);
	toyset_free(&t);
	free(res);
}

/*
 * Records point into the reader's retained blocks. With a tiny window
 * (records up to 3 KiB, 4 KiB reads, 12 KiB blocks) and three blocks per
 * reader, a block comes round again and again while records cut from it
 * still sit in the shuffle buffer or the work queue: a block rewritten
 * under one of them would hand a worker other bytes (id_apply checks
 * every byte of every record and fails the sample).
 */
static void held_blocks_case(bool zstd, unsigned readers)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct toyset t;
	struct seen s;

	toyset_make(&t, 9, 37, zstd);
	t.sh.max_record = 8192;
	t.sh.blocks = 3;
	run_epochs(&t, readers, 50, 4096, 2, &s, res);
	cr_assert_eq(res->errors, 0);
	cr_assert_eq(s.failed, 0);
	cr_assert_eq(s.id_mismatch, 0);
	for (uint64_t i = 0; i < t.total; i++)
		cr_assert_eq(s.count[i], 2, "record %lu seen %u times",
			     (unsigned long)i, s.count[i]);
	/* the blocks were needed back while held: records were moved */
	cr_assert_gt(res->records_moved, 0);
	cr_assert_lt(res->records_moved, 2 * t.total);
	free(s.count);
	free(s.order);
	toyset_free(&t);
	free(res);
}

FR_TEST(engine_shards, a_block_is_not_reused_while_a_record_points_into_it)
{
	held_blocks_case(false, 1);
	held_blocks_case(false, 3);
}

FR_TEST(engine_shards, a_decompressed_block_is_not_reused_while_held)
{
	held_blocks_case(true, 1);
	held_blocks_case(true, 2);
}

/* Shard changes in position order: 1 per shard in file order, many when
 * the buffer mixes them. */
static uint64_t shard_switches(const struct seen *s, unsigned per)
{
	uint64_t n = 0;

	for (uint64_t i = 1; i < s->norder; i++)
		n += s->order[i] / per != s->order[i - 1] / per;
	return n;
}

FR_TEST(engine_shards, a_shuffle_buffer_mixes_shards_and_none_keeps_order)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct toyset t;
	struct seen s;

	toyset_make(&t, 4, 16, false);
	run_epochs(&t, 1, 1, 4096, 1, &s, res);
	cr_assert_eq(s.norder, t.total);
	cr_assert_eq(shard_switches(&s, 16), 3, "one reader, no buffer: "
		     "shard after shard");
	for (uint64_t i = 1; i < s.norder; i++)
		if (s.order[i] / 16 == s.order[i - 1] / 16)
			cr_assert_eq(s.order[i], s.order[i - 1] + 1,
				     "a shard's records in file order");
	free(s.count);
	free(s.order);
	run_epochs(&t, 1, 32, 4096, 1, &s, res);
	cr_assert_eq(s.norder, t.total);
	cr_assert_gt(shard_switches(&s, 16), 10, "a 32-record buffer mixes "
		     "neighbouring shards");
	free(s.count);
	free(s.order);
	toyset_free(&t);
	free(res);
}

/* Overwrite LEN bytes at OFF of shard file NAME. */
static void poke(const struct toyset *t, const char *name, off_t off,
		 const void *b, size_t len)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	fd = open(path, O_WRONLY);
	cr_assert(fd >= 0);
	cr_assert_eq(pwrite(fd, b, len, off), (ssize_t)len);
	close(fd);
}

static const struct ldr_err_count *find_err(const struct ldr_result *r,
					    const char *kind)
{
	for (unsigned i = 0; i < r->err_kinds; i++)
		if (!strcmp(r->err[i].kind, kind))
			return &r->err[i];
	return NULL;
}

FR_TEST(engine_shards, broken_shards_owe_their_records_as_failed_samples)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	const struct ldr_err_count *c;
	char path[4096];
	uint32_t bad = 0xFFFFFFFFu;
	struct toyset t;
	struct seen s;
	uint64_t good = 0;

	toyset_make(&t, 5, 20, false);
	/* shard 1: the 4th record's length is garbage (at its offset) */
	{
		uint8_t tmp[4096];
		size_t off = 0;

		for (unsigned k = 0; k < 3; k++)
			off += toy_record(tmp, 20 + k);
		poke(&t, "shard-0001.toy", (off_t)off, &bad, 4);
		snprintf(path, sizeof(path), "@%zu", off);
	}
	/* shard 2: cut short inside its last record */
	{
		char p2[4096];

		snprintf(p2, sizeof(p2), "%s/shard-0002.toy", t.dir);
		cr_assert_eq(truncate(p2, 20 * 100), 0);
	}
	/* shard 3: gone after the listing */
	{
		char p3[4096];

		snprintf(p3, sizeof(p3), "%s/shard-0003.toy", t.dir);
		cr_assert_eq(unlink(p3), 0);
	}
	run_epochs(&t, 2, 10, 4096, 1, &s, res);
	for (uint64_t i = 0; i < t.total; i++)
		good += s.count[i];
	/* every position was filled: good + failed = one epoch */
	cr_assert_eq(good + s.failed, t.total);
	cr_assert_eq(res->errors, s.failed);
	c = find_err(res, "toy_bad");
	cr_assert_not_null(c);
	cr_assert_eq(c->count, 17, "the 17 records after the bad length");
	cr_assert(strstr(c->example, "shard-0001.toy") &&
		  strstr(c->example, path), "example %s", c->example);
	c = find_err(res, "toy_short");
	cr_assert_not_null(c);
	cr_assert_gt(c->count, 0);
	cr_assert(strstr(c->example, "shard-0002.toy"), "%s", c->example);
	c = find_err(res, "ENOENT");
	cr_assert_not_null(c);
	cr_assert_eq(c->count, 20);
	for (uint64_t i = 0; i < 20; i++)
		cr_assert_eq(s.count[i], 1, "shard 0 is whole");
	for (uint64_t i = 20; i < 23; i++)
		cr_assert_eq(s.count[i], 1, "shard 1 before the bad length");
	free(s.count);
	free(s.order);
	toyset_free(&t);
	free(res);
}

/* A skip when this process may make no io_uring ring. */
static void need_uring(void)
{
	struct stg_stream_config c = {
		.backend = STG_BACKEND_URING, .caller_blocks = true,
	};
	struct stg_stream *st;
	int err = stg_stream_create(&c, &st);

	if (err)
		cr_skip_test("io_uring refused here (%s)", strerror(-err));
	stg_stream_destroy(st);
}

/*
 * An uncompressed shard's blocks are read straight into the reader's
 * retained blocks, up to 8 reads in flight: with 4 KiB reads into 12 KiB
 * blocks (three per reader), reads land in the next block while the
 * window is still in this one, and blocks come round again and again
 * while records and reads point into them. A read that landed in the
 * wrong place, a record's tail not copied before the block it goes on
 * in, or a block reused while a read lands in it hands a worker other
 * bytes (id_apply checks every byte of every record). SPAN: records'
 * sizes; MAX_RECORD: the window's bound.
 */
static void straight_case(enum stg_backend_id be, uint32_t span,
			  uint64_t max_record, unsigned readers, bool direct)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct toyset t;
	struct seen s;

	if (be == STG_BACKEND_URING)
		need_uring();
	toy_span = span;
	toyset_make(&t, 9, 37, false);
	toy_span = 3000;
	t.backend = be;
	t.direct = direct;
	t.sh.max_record = max_record;
	t.sh.blocks = 3;
	t.sh.read_depth = 8;
	run_epochs(&t, readers, 50, 4096, 2, &s, res);
	cr_assert_str_eq(res->backend, stg_backend_name(be));
	cr_assert_eq(res->errors, 0, "%s: %lu errors", stg_backend_name(be),
		     (unsigned long)res->errors);
	cr_assert_eq(s.failed, 0);
	cr_assert_eq(s.id_mismatch, 0);
	for (uint64_t i = 0; i < t.total; i++)
		cr_assert_eq(s.count[i], 2, "%s: record %lu seen %u times",
			     stg_backend_name(be), (unsigned long)i,
			     s.count[i]);
	free(s.count);
	free(s.order);
	toyset_free(&t);
	free(res);
}

FR_TEST(engine_shards, blocks_read_straight_in_give_whole_records_uring)
{
	straight_case(STG_BACKEND_URING, 3000, 8192, 1, false);
	straight_case(STG_BACKEND_URING, 3000, 8192, 3, false);
}

FR_TEST(engine_shards, blocks_read_straight_in_give_whole_records_psync)
{
	straight_case(STG_BACKEND_PSYNC, 3000, 8192, 1, false);
	straight_case(STG_BACKEND_PSYNC, 3000, 8192, 3, false);
}

/* Records up to 40 KiB in 4 KiB reads: a record's tail is often longer
 * than the gap before the next block's first read, and the blocks landed
 * there move up past it. */
FR_TEST(engine_shards, a_tail_longer_than_the_gap_moves_the_landed_blocks)
{
	straight_case(STG_BACKEND_URING, 40000, 48 << 10, 1, false);
	straight_case(STG_BACKEND_PSYNC, 40000, 48 << 10, 2, false);
}

/* O_DIRECT reads land on pages only: every place a block is read into
 * (a shard's first, the first after a gap, after a moved tail) is
 * page-aligned, and a shard's last, short block is read whole (where the
 * filesystem refuses O_DIRECT, the reads are buffered and this checks
 * the rest). */
FR_TEST(engine_shards, blocks_read_straight_in_with_o_direct)
{
	straight_case(STG_BACKEND_URING, 3000, 8192, 2, true);
	straight_case(STG_BACKEND_PSYNC, 3000, 8192, 1, true);
	straight_case(STG_BACKEND_URING, 40000, 48 << 10, 1, true);
}

/*
 * A shard cut short, read straight in with reads in flight: the records
 * before the cut are whole, the rest fail as short (none points past the
 * file's end), on each backend.
 */
static void truncated_case(enum stg_backend_id be)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	const struct ldr_err_count *c;
	char path[4096];
	uint8_t tmp[4096];
	size_t cut = 0;
	unsigned whole = 0;
	struct toyset t;
	struct seen s;

	if (be == STG_BACKEND_URING)
		need_uring();
	toyset_make(&t, 3, 40, false);
	/* shard 1, cut in the middle of its 26th record */
	for (unsigned k = 0; k < 25; k++)
		cut += toy_record(tmp, 40 + k);
	whole = 25;
	cut += 6;
	snprintf(path, sizeof(path), "%s/shard-0001.toy", t.dir);
	cr_assert_eq(truncate(path, (off_t)cut), 0);
	t.backend = be;
	t.sh.max_record = 8192;
	t.sh.blocks = 3;
	t.sh.read_depth = 8;
	run_epochs(&t, 1, 10, 4096, 1, &s, res);
	cr_assert_eq(s.failed, 40 - whole);
	cr_assert_eq(res->errors, 40 - whole);
	c = find_err(res, "toy_short");
	cr_assert_not_null(c);
	cr_assert_eq(c->count, 40 - whole);
	cr_assert(strstr(c->example, "shard-0001.toy"), "%s", c->example);
	for (uint64_t i = 0; i < t.total; i++)
		cr_assert_eq(s.count[i], i >= 40 + whole && i < 80 ? 0u : 1u,
			     "%s: record %lu seen %u times",
			     stg_backend_name(be), (unsigned long)i,
			     s.count[i]);
	cr_assert_eq(s.id_mismatch, 0);
	free(s.count);
	free(s.order);
	toyset_free(&t);
	free(res);
}

FR_TEST(engine_shards, a_truncated_shard_read_straight_in_owes_its_tail)
{
	truncated_case(STG_BACKEND_URING);
	truncated_case(STG_BACKEND_PSYNC);
}

/* ---- shards split by rank ---- */

/* Rank RANK of WORLD reads EPOCHS epochs of T into S (counts per record
 * added to S->count) and RES. Returns ldr_run's result. */
static int run_rank(struct toyset *t, unsigned rank, unsigned world,
		    uint64_t epochs, struct seen *s, struct ldr_result *res)
{
	struct ldr_config cfg;

	t->sh.shuffle_buffer = 16;
	t->sh.read_size = 4096;
	memset(&cfg, 0, sizeof(cfg));
	cfg.ds = t->ds;
	cfg.shards = &t->sh;
	cfg.readers = 2;
	cfg.workers = 2;
	cfg.batch = 5;
	cfg.transform = id_tf;
	cfg.seed = 11;
	cfg.rank = rank;
	cfg.world = world;
	cfg.epochs = epochs;
	cfg.warmup_s = -1;
	cfg.on_batch = on_batch;
	cfg.on_batch_arg = s;
	return ldr_run(&cfg, res);
}

static void split_case(unsigned world)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct ldr_digest sum[2] = { { 0 } }, want;
	uint64_t samples = 0, per_rank_min = UINT64_MAX, per_rank_max = 0;
	struct toyset t;
	struct seen s;

	cr_assert_not_null(res);
	toyset_make(&t, 7, 13, true);
	memset(&s, 0, sizeof(s));
	s.n = t.total;
	s.count = calloc(t.total, sizeof(*s.count));
	for (unsigned r = 0; r < world; r++) {
		uint64_t got;

		cr_assert_eq(run_rank(&t, r, world, 2, &s, res), 0, "rank %u",
			     r);
		cr_assert_eq(res->errors, 0);
		cr_assert_eq(res->digest_epochs, 2, "rank %u of %u", r, world);
		for (unsigned e = 0; e < 2; e++)
			ldr_digest_merge(&sum[e], &res->epoch_digest[e]);
		got = res->samples + res->samples_failed;
		/* a rank reads whole shards: 13 records each */
		cr_assert_eq(got % (2 * 13), 0, "rank %u read %lu", r,
			     (unsigned long)got);
		samples += got;
		if (got < per_rank_min)
			per_rank_min = got;
		if (got > per_rank_max)
			per_rank_max = got;
	}
	cr_assert_eq(s.failed, 0);
	cr_assert_eq(s.id_mismatch, 0);
	/* the union is every record exactly once per epoch */
	for (uint64_t i = 0; i < t.total; i++)
		cr_assert_eq(s.count[i], 2, "world %u: record %lu read %u "
			     "times", world, (unsigned long)i, s.count[i]);
	cr_assert_eq(ldr_digest_expected(t.total, 11, 0, world, false, true,
					 &want), 0);
	for (unsigned e = 0; e < 2; e++)
		cr_assert(ldr_digest_equal(&sum[e], &want), "world %u epoch %u:"
			  " %lu records, want %lu", world, e,
			  (unsigned long)sum[e].count,
			  (unsigned long)want.count);
	cr_assert_eq(samples, 2 * t.total);
	/* 7 shards: ranks differ by one shard at most */
	cr_assert_leq(per_rank_max - per_rank_min, 2 * 13);
	free(s.count);
	toyset_free(&t);
	free(res);
}

FR_TEST(engine_shards, two_ranks_split_the_shards_and_read_each_record_once)
{
	split_case(2);
}

FR_TEST(engine_shards, three_ranks_split_the_shards_and_read_each_record_once)
{
	split_case(3);
}

FR_TEST(engine_shards, one_rank_digests_every_record_per_epoch)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct ldr_digest want;
	struct toyset t;
	struct seen s;

	cr_assert_not_null(res);
	toyset_make(&t, 5, 11, false);
	run_epochs(&t, 2, 8, 4096, 3, &s, res);
	cr_assert_eq(res->digest_epochs, 3);
	cr_assert_eq(ldr_digest_expected(t.total, 0, 0, 1, false, true,
					 &want), 0);
	for (unsigned e = 0; e < 3; e++)
		cr_assert(ldr_digest_equal(&res->epoch_digest[e], &want),
			  "epoch %u", e);
	free(s.count);
	free(s.order);
	toyset_free(&t);
	free(res);
}

FR_TEST(engine_shards, a_rank_without_a_shard_is_told_why)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct toyset t;
	struct seen s;

	cr_assert_not_null(res);
	toyset_make(&t, 2, 5, false);
	memset(&s, 0, sizeof(s));
	s.n = t.total;
	s.count = calloc(t.total, sizeof(*s.count));
	cr_assert_eq(run_rank(&t, 2, 3, 1, &s, res), -ENODATA);
	cr_assert(strstr(res->bottleneck_why, "rank 2 of 3 has no shard: the "
			 "dataset has 2 shards") != NULL, "%s",
		  res->bottleneck_why);
	/* the ranks with one each still read it */
	cr_assert_eq(run_rank(&t, 1, 3, 1, &s, res), 0);
	cr_assert_eq(res->samples, 5);
	free(s.count);
	toyset_free(&t);
	free(res);
}
