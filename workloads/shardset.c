/*
 * shardset.c - a folder of shards opened for the engine: the format
 * detected (or given), the shard files listed, their records counted, and
 * the callbacks the engine's shard readers and workers use.
 *
 * Counting happens once, at open, before anything is measured, from the
 * first source that has a shard's count (count_all): the format's index
 * (MDS index.json; a TFRecord's DALI .idx beside it; token files' .idx,
 * headers or sizes), the count cache outside the dataset (formats/
 * count_cache.c, keyed by path, size and mtime), else a walk: the headers
 * of an uncompressed WebDataset or TFRecord shard walked with small reads
 * (formats.c's wl_walk_count: a read per tar member or per record, each a
 * round trip on an object store), a compressed shard decompressed and
 * scanned whole, once (its CPU time is count_s). DALI's readers do the
 * same walk when no index file is given. Clean walked counts go to the
 * cache. With opts.estimate (info) only a sample of the shards without
 * index or cached count is walked, the rest estimated by bytes.
 *
 * DESIGN (threads). wl_shardset_open and wl_shardset_close run on the
 * caller's thread, before and after the engine. Between them the set is
 * read-only: the listing, records[], base[], the MDS index, the token
 * files' layouts and the key are written once at open and never again,
 * so the engine's threads read them without a lock. The engine calls
 * back from its own threads:
 *   - reader threads (shard_stage.c, one scanner and one zstd decoder per
 *     shard being read): cb_scan_init, cb_scan_next, cb_dec_*. Each
 *     scanner and decoder belongs to the one reader that created it;
 *     cb_scan_init reads the set (which format, which MDS shard);
 *   - worker threads (the emulated vCPUs): uw_create / uw_apply /
 *     uw_destroy, one unwrap_ctx per worker (the inner transform's context
 *     inside it); uw_apply reads the set (shard_of's binary search over
 *     base[], the MDS shard) and writes only its context and its sample.
 * Counting at open may run PREAD-callback walks on the caller's thread
 * only; the engine is not running then.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "augment.h"
#include "shardset.h"

#define MDS_INDEX_MAX (64u << 20)
#define DEFAULT_MAX_RECORD (64ull << 20)

/* ---- names ---- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcasecmp(s + a - b, suffix);
}

static bool is_tar_name(const char *s, bool *zst)
{
	*zst = ends_with(s, ".tar.zst");
	return *zst || ends_with(s, ".tar");
}

/* A token file: .bin, .bin.zst (*ZST set) or .idx (*IDX set). */
static bool is_token_name(const char *s, bool *zst, bool *idx)
{
	*zst = ends_with(s, ".bin.zst");
	*idx = ends_with(s, ".idx");
	return *zst || *idx || ends_with(s, ".bin");
}

static bool is_image_name(const char *s)
{
	static const char *const ext[] = { ".jpg", ".jpeg", ".png", ".webp",
					   ".bmp", ".gif", ".tif", ".tiff" };

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (ends_with(s, ext[i]))
			return true;
	return false;
}

/* Does the file at FD start with a TFRecord frame (a length whose masked
 * CRC-32C follows it)? */
static bool frames_as_tfrecord(int fd)
{
	uint8_t h[12];
	uint32_t crc;

	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return false;
	memcpy(&crc, h + 8, 4);
	return wl_crc32c_mask(wl_crc32c(0, h, 8)) == crc;
}

int wl_format_detect(const char *root, enum wl_format *out, char *why,
		     size_t cap)
{
	unsigned tars = 0, images = 0, tfr = 0, dirs = 0, toks = 0;
	unsigned claimed = 0;           /* files a row claims by name */
	enum wl_format claimer = WL_FORMAT_AUTO, c;
	DIR *d;
	struct dirent *de;
	struct stat rst;
	int dfd, err = 0;
	bool zst, idx;

	*out = WL_FORMAT_FOLDER;
	if (!stat(root, &rst) && S_ISREG(rst.st_mode) &&
	    is_token_name(root, &zst, &idx)) {
		*out = WL_FORMAT_TOKENS;
		snprintf(why, cap, "a token file (.bin, .bin.zst, .idx)");
		return 0;
	}
	d = opendir(root);
	if (!d) {
		err = -errno;
		snprintf(why, cap, "cannot open %s: %s", root, strerror(errno));
		return err;
	}
	dfd = dirfd(d);
	for (int f = 0; f < WL_FORMAT_COUNT; f++) {
		const struct wl_format_row *row = wl_format_row(f);

		if (row->index_name && !faccessat(dfd, row->index_name, F_OK,
						  0)) {
			closedir(d);
			*out = (enum wl_format)f;
			snprintf(why, cap, "%s at the top: MDS", row->index_name);
			return 0;
		}
	}
	while ((de = readdir(d))) {
		struct stat st;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dfd, de->d_name, &st, 0))
			continue;
		if (S_ISDIR(st.st_mode)) {
			dirs++;
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		if (is_tar_name(de->d_name, &zst)) {
			tars++;
			continue;
		}
		if (is_image_name(de->d_name)) {
			images++;
			continue;
		}
		c = wl_format_claims(de->d_name);
		if (c != WL_FORMAT_AUTO && (!claimed || c == claimer)) {
			claimer = c;
			claimed++;
			continue;
		}
		fd = openat(dfd, de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* TFRecord by its framing, whatever the name (a .bin
		 * too); token files by name */
		if (frames_as_tfrecord(fd))
			tfr++;
		else if (is_token_name(de->d_name, &zst, &idx))
			toks++;
		close(fd);
	}
	closedir(d);
	if (tars && !images && tars >= dirs) {
		/* an ImageFolder with its original archive beside the class
		 * folders stays a folder */
		*out = WL_FORMAT_WDS;
		snprintf(why, cap, "%u .tar / .tar.zst files at the top: "
			 "WebDataset", tars);
	} else if (tfr && !images) {
		*out = WL_FORMAT_TFRECORD;
		snprintf(why, cap, "%u files framed as TFRecord at the top",
			 tfr);
	} else if (toks && !images && !tars) {
		*out = WL_FORMAT_TOKENS;
		snprintf(why, cap, "%u token files (.bin, .bin.zst, .idx) at "
			 "the top", toks);
	} else if (claimed && !images && !tars && !tfr && !toks) {
		*out = claimer;
		snprintf(why, cap, "%u %s files at the top", claimed,
			 wl_format_name(claimer));
	} else if (tars) {
		snprintf(why, cap, "%u folders beside %u .tar files at the "
			 "top: an image folder (--format wds reads the tars)",
			 dirs, tars);
	} else {
		snprintf(why, cap, "no shards at the top (%u folders, %u "
			 "images): an image folder", dirs, images);
	}
	return 0;
}

/* ---- counting ---- */

static void open_error(struct wl_shardset *s, int err, const char *rel,
		       uint64_t off, bool with_off)
{
	const char *kind = wl_fmt_err_name(err);
	struct wl_open_error *e = NULL;

	if (!kind)
		kind = stg_errname(err);
	for (unsigned i = 0; i < s->nerr; i++)
		if (!strcmp(s->err[i].kind, kind))
			e = &s->err[i];
	if (!e && s->nerr < WL_OPEN_ERRORS_MAX) {
		e = &s->err[s->nerr++];
		snprintf(e->kind, sizeof(e->kind), "%s", kind);
		if (with_off)
			snprintf(e->example, sizeof(e->example), "%s@%llu",
				 rel, (unsigned long long)off);
		else
			snprintf(e->example, sizeof(e->example), "%s", rel);
	}
	if (!e)
		e = &s->err[WL_OPEN_ERRORS_MAX - 1];
	e->count++;
}

static int64_t fd_pread(void *arg, void *buf, size_t len, uint64_t off)
{
	int fd = *(int *)arg;

	for (;;) {
		ssize_t n = pread(fd, buf, len, (off_t)off);

		if (n >= 0)
			return n;
		if (errno != EINTR)
			return -errno;
	}
}

/* Whether the set's format states every capability in CAPS. */
static bool set_can(const struct wl_shardset *s, unsigned caps)
{
	return wl_format_can(s->format, caps);
}

/* Start scanning shard ID of S into SC: the format's scanner, set to the
 * shard's MDS columns or token file. */
static void scan_start(const struct wl_shardset *s, struct wl_scanner *sc,
		       uint64_t id)
{
	const struct wl_mds_shard *mds = set_can(s, WL_CAP_INDEX) ?
		&s->mds.shards[s->mds_of[id]] : NULL;

	wl_scan_init(sc, s->format, mds, s->max_record);
	if (set_can(s, WL_CAP_TOKENS))
		wl_tok_scan_setup(sc, &s->tok[id], s->seq_len);
}

/* Decompress and scan compressed shard ID whole: its records in *COUNT.
 * Returns 0, a format code (the records after it lost) or -errno. */
static int count_by_scan(struct wl_shardset *s, uint64_t id, int fd,
			 uint64_t max_record, uint64_t *count,
			 uint64_t *err_off, uint64_t *raw,
			 volatile sig_atomic_t *stop)
{
	const size_t in_cap = 1u << 20;
	size_t win_cap = (size_t)max_record + WL_SCAN_LOOKAHEAD + in_cap,
	       win_len = 0, in_len = 0,
	       in_pos = 0;
	uint64_t win_base = 0, off = 0;
	uint8_t *in = malloc(in_cap), *win = malloc(win_cap);
	struct aug_zstd *z = NULL;
	struct wl_scanner sc;
	bool eof = false;
	int ret = 0;

	*count = 0;
	*err_off = 0;
	*raw = 0;
	if (!in || !win || aug_zstd_create(&z)) {
		ret = -ENOMEM;
		goto out;
	}
	scan_start(s, &sc, id);
	for (;;) {
		struct wl_record rec;
		int r = wl_scan_next(&sc, win, win_base, win_len, eof, &rec);

		if (r == 1) {
			(*count)++;
			continue;
		}
		if (r < 0) {
			*err_off = sc.err_off;
			ret = r;
			break;
		}
		if (eof) {
			*raw = win_base + win_len;
			break;
		}
		if (stop && *stop) {
			ret = -EINTR;
			break;
		}
		/* keep what the scanner still needs, then decompress more */
		if (sc.keep_from > win_base) {
			size_t drop = (size_t)(sc.keep_from - win_base);

			if (drop > win_len)
				drop = win_len;
			memmove(win, win + drop, win_len - drop);
			win_len -= drop;
			win_base += drop;
		}
		if (win_len == win_cap) {
			*err_off = win_base;
			ret = -WL_EBADHDR;      /* a record over max_record */
			break;
		}
		if (in_pos == in_len) {
			int64_t n = fd_pread(&fd, in, in_cap, off);

			if (n < 0) {
				ret = (int)n;
				break;
			}
			off += (uint64_t)n;
			in_len = (size_t)n;
			in_pos = 0;
			if (!n) {
				eof = true;
				if (aug_zstd_mid_frame(z)) {
					*err_off = win_base + win_len;
					ret = -WL_EZSTD;
					break;
				}
				continue;
			}
		}
		if (aug_zstd_run(z, in, in_len, &in_pos, win, win_cap,
				 &win_len)) {
			*err_off = win_base + win_len;
			ret = -WL_EZSTD;
			break;
		}
	}
out:
	aug_zstd_destroy(z);
	free(in);
	free(win);
	return ret;
}

/* ---- token files ---- */

/* The first CAP bytes a compressed file FD decompresses to, into OUT:
 * *GOT fewer when it holds fewer. 0, -WL_EZSTD (*AT: the decompressed
 * offset) or -errno. */
static int tok_zstd_head(int fd, uint8_t *out, size_t cap, size_t *got,
			 uint64_t *at)
{
	uint8_t in[16384];
	struct aug_zstd *z = NULL;
	uint64_t off = 0;
	int ret = 0;

	*got = 0;
	*at = 0;
	if (aug_zstd_create(&z))
		return -ENOMEM;
	aug_zstd_reset(z);
	while (*got < cap) {
		int64_t n = fd_pread(&fd, in, sizeof(in), off);
		size_t pos = 0;

		if (n <= 0) {
			ret = (int)n;
			break;
		}
		off += (uint64_t)n;
		while (pos < (size_t)n && *got < cap && !ret)
			if (aug_zstd_run(z, in, (size_t)n, &pos, out, cap, got))
				ret = -WL_EZSTD;
		if (ret)
			break;
	}
	*at = *got;
	aug_zstd_destroy(z);
	return ret;
}

/* The .idx of token file REL (its stem + ".idx") read whole into *BUF
 * (freed by the caller); its name in NAME (CAP bytes). -ENOENT when
 * there is none. */
static int tok_idx_read(const struct wl_shardset *s, const char *rel,
			char *name, size_t cap, uint8_t **buf, size_t *len)
{
	const size_t stem = strlen(rel) - (ends_with(rel, ".bin.zst") ? 8 :
					   ends_with(rel, ".bin") ? 4 : 0);
	char path[4096];
	struct stat st;
	int fd, err = 0;
	int64_t got;

	*buf = NULL;
	*len = 0;
	if (stem == strlen(rel) ||
	    snprintf(name, cap, "%.*s.idx", (int)stem, rel) >= (int)cap ||
	    snprintf(path, sizeof(path), "%s/%s", stg_dataset_root(s->ds),
		     name) >= (int)sizeof(path))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > SIZE_MAX / 2) {
		close(fd);
		return -EINVAL;
	}
	*buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	got = fd_pread(&fd, *buf, (size_t)st.st_size, 0);
	close(fd);
	if (got != st.st_size)
		err = got < 0 ? (int)got : -EIO;
	if (err) {
		free(*buf);
		*buf = NULL;
		return err;
	}
	*len = (size_t)got;
	return 0;
}

/*
 * What token file ID (FD, SIZE bytes on disk) holds: its dtype, first
 * token and tokens (struct wl_tok_file), and so its records. See
 * wl_shardset_open's contract for the sources; an error past the
 * readable tokens is counted (with the file it is in and where) and costs
 * one failed record.
 */
static int tok_count(struct wl_shardset *s, uint64_t id, int fd,
		     uint64_t size, volatile sig_atomic_t *stop)
{
	struct wl_tok_file *f = &s->tok[id];
	const char *rel = stg_dataset_relpath(s->ds, id, NULL);
	const char *err_file = rel;
	uint64_t raw = size, eoff = 0, llmc_count = 0;
	uint8_t head[12], *idx = NULL;
	size_t got = 0, idx_len;
	char idx_name[4096];
	struct wl_idx_info info;
	int r, llmc = 0;

	f->dtype = s->flat_dtype;
	f->data_off = 0;
	f->tokens = UINT64_MAX;
	f->err = 0;
	f->err_off = 0;
	if (s->compressed[id]) {
		r = wl_zstd_content_size(fd_pread, &fd, size, &raw, &eoff);
		if (r < 0 && !wl_fmt_err_name(r))
			return r;
		if (r < 0 && eoff == 0) { /* not zstd at all: nothing to read */
			f->tokens = 0;
			f->err = r;
			f->err_off = eoff;
			goto done;
		}
		/* a fault after good frames or blocks: decompress to count
		 * the windows before it (the scan meets the fault again) */
		if (r < 0)
			r = 0;
		if (r == 0)
			raw = UINT64_MAX;
		s->raw_bytes[id] = r == 1 ? raw : 0;
	}
	r = tok_idx_read(s, rel, idx_name, sizeof(idx_name), &idx, &idx_len);
	if (r && r != -ENOENT) {
		free(idx);
		return r;
	}
	if (!r) {
		r = wl_idx_parse(idx, idx_len, raw, &info, &eoff);
		free(idx);
		f->dtype = info.dtype;
		f->data_off = info.data_off;
		f->tokens = info.tokens;
		if (r) {
			f->err = r;
			f->err_off = eoff;
			err_file = idx_name;
		}
		goto done;
	}
	/* no .idx: llm.c's header, or a flat stream */
	if (s->compressed[id]) {
		r = tok_zstd_head(fd, head, sizeof(head), &got, &eoff);
		if (r < 0 && !wl_fmt_err_name(r))
			return r;
		if (r < 0) {
			f->tokens = 0;
			f->err = r;
			f->err_off = eoff;
			goto done;
		}
	} else {
		int64_t n = fd_pread(&fd, head, sizeof(head), 0);

		if (n < 0)
			return (int)n;
		got = (size_t)n;
	}
	llmc = wl_llmc_header_parse(head, got, &f->dtype, &llmc_count);
	if (llmc < 0) {
		f->tokens = 0;
		f->err = llmc;
		f->err_off = 0;
		goto done;
	}
	if (llmc) {
		const unsigned isz = wl_tok_dtype_size(f->dtype);
		const uint64_t avail = raw == UINT64_MAX ? UINT64_MAX :
			raw > WL_LLMC_HEADER ? (raw - WL_LLMC_HEADER) / isz : 0;

		f->data_off = WL_LLMC_HEADER;
		f->tokens = llmc_count;
		if (avail < llmc_count) {       /* shorter than it says */
			f->tokens = avail;
			f->err = -WL_ETRUNCREC;
			f->err_off = raw;
		}
	} else if (raw != UINT64_MAX) {
		f->tokens = raw / wl_tok_dtype_size(f->dtype);
	}
	if (f->tokens == UINT64_MAX) {
		/* a frame without its size: decompress once to count */
		uint64_t count = 0, dec = 0;

		r = count_by_scan(s, id, fd, s->max_record, &count, &eoff,
				  &dec, stop);
		if (r == -EINTR)
			return r;
		if (r < 0 && !wl_fmt_err_name(r))
			return r;
		s->raw_bytes[id] = r ? 0 : dec;
		/* the tokens that give COUNT windows */
		f->tokens = count ? count * s->seq_len + 1 : 0;
		if (!r && dec > f->data_off)
			f->tokens = (dec - f->data_off) /
				    wl_tok_dtype_size(f->dtype);
		if (r) {
			f->err = r;
			f->err_off = eoff;
		}
	}
done:
	s->records[id] = wl_tok_windows(f->tokens, s->seq_len) + !!f->err;
	if (f->err)
		open_error(s, f->err, err_file, f->err_off, true);
	return 0;
}

/* A warning about a count's source: A and B, joined, are what it says. */
static void count_warn(struct wl_shardset *s, const char *a, const char *b)
{
	s->count_warnings++;
	if (!s->count_warning[0])
		snprintf(s->count_warning, sizeof(s->count_warning), "%s%s",
			 a, b);
}

#define SIDE_INDEX_MAX (256u << 20)

/* Shard ID's count from its side index (REL + suffix, else REL's stem +
 * suffix) into *COUNT: true when one was there and fits the shard of
 * SIZE bytes; a stale or corrupt one is a warning (the walk follows). */
static bool side_index_count(struct wl_shardset *s, const char *rel,
			     uint64_t size, uint64_t *count)
{
	const char *suffix = wl_format_row(s->format)->side_index;
	const char *root = stg_dataset_root(s->ds), *dot, *slash;
	char path[4096];

	for (int pass = 0; pass < 2; pass++) {
		struct stat st;
		char *text;
		int64_t got;
		int fd, n, r;

		dot = strrchr(rel, '.');
		slash = strrchr(rel, '/');
		if (pass == 1 && (!dot || (slash && dot < slash)))
			break;
		n = pass == 0 ? snprintf(path, sizeof(path), "%s/%s%s", root,
					 rel, suffix) :
			snprintf(path, sizeof(path), "%s/%.*s%s", root,
				 (int)(dot - rel), rel, suffix);
		if (n < 0 || (size_t)n >= sizeof(path))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		    (uint64_t)st.st_size > SIDE_INDEX_MAX) {
			close(fd);
			continue;
		}
		text = malloc((size_t)st.st_size + 1);
		got = text ? fd_pread(&fd, text, (size_t)st.st_size, 0) : -1;
		close(fd);
		r = got == st.st_size ?
			wl_side_index_count(s->format, text, (size_t)got, size,
					    count) : -WL_EBADINDEX;
		free(text);
		if (!r)
			return true;
		count_warn(s, path + strlen(root) + 1, ": a stale or corrupt "
			   "index (it does not fit the shard); the shard is "
			   "walked");
	}
	return false;
}

enum count_pass {
	COUNT_ALL,              /* every source, the walk included */
	COUNT_LOOKUP,           /* index and cache only: *PENDING when none */
	COUNT_WALK,             /* the walk only (after COUNT_LOOKUP) */
};

/* Count shard ID's records (the sources in wl_shardset_open's order) into
 * s->records[id], its source into SRC[id]. */
static int count_shard(struct wl_shardset *s, uint64_t id, uint64_t max_rec,
		       volatile sig_atomic_t *stop,
		       struct wl_count_cache *cc, enum count_pass pass,
		       uint8_t *src, bool *pending)
{
	const char *rel = stg_dataset_relpath(s->ds, id, NULL);
	int fd = stg_dataset_open(s->ds, id, O_RDONLY);
	uint64_t count = 0, err_off = 0, raw = 0;
	int64_t mtime_ns = 0;
	struct stat st;
	int ret;

	*pending = false;
	if (fd < 0) {
		open_error(s, set_can(s, WL_CAP_INDEX) && fd == -ENOENT ?
			   -WL_EMISSING : fd, rel, 0, false);
		/* MDS: the index says how many it held; read as failed
		 * samples. Others: nothing to read. */
		if (!set_can(s, WL_CAP_INDEX))
			s->records[id] = 0;
		return 0;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		open_error(s, ret, rel, 0, false);
		s->records[id] = 0;
		return 0;
	}
	mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000ll +
		   st.st_mtim.tv_nsec;
	if (pass != COUNT_WALK)
		s->bytes += (uint64_t)st.st_size;
	src[id] = WL_COUNT_INDEX;
	if (set_can(s, WL_CAP_INDEX)) {        /* counted by the index */
		close(fd);
		return 0;
	}
	if (set_can(s, WL_CAP_TOKENS)) {       /* by sizes, .idx, headers */
		ret = tok_count(s, id, fd, (uint64_t)st.st_size, stop);
		close(fd);
		return ret;
	}
	if (pass != COUNT_WALK) {
		if (s->side_indexes && !s->compressed[id] &&
		    side_index_count(s, rel, (uint64_t)st.st_size, &count)) {
			s->records[id] = count;
			close(fd);
			return 0;
		}
		src[id] = WL_COUNT_CACHE;
		if (wl_count_cache_get(cc, rel, (uint64_t)st.st_size, mtime_ns,
				       &count, &raw)) {
			s->records[id] = count;
			if (s->compressed[id])
				s->raw_bytes[id] = raw;
			close(fd);
			return 0;
		}
		if (pass == COUNT_LOOKUP) {
			*pending = true;
			close(fd);
			return 0;
		}
	}
	src[id] = WL_COUNT_SCANNED;
	if (s->compressed[id])
		ret = count_by_scan(s, id, fd, max_rec, &count, &err_off,
				    &s->raw_bytes[id], stop);
	else
		ret = wl_walk_count(s->format, fd_pread, &fd,
				    (uint64_t)st.st_size, max_rec, &count,
				    &err_off);
	close(fd);
	if (ret == -EINTR)
		return ret;
	s->records[id] = count;
	if (ret) {
		open_error(s, ret, rel, err_off, wl_fmt_err_name(ret) != NULL);
		if (wl_fmt_err_name(ret))
			s->records[id]++;   /* the error: a failed sample */
	} else if (wl_count_cache_put(cc, rel, (uint64_t)st.st_size, mtime_ns,
				      count, s->compressed[id] ?
				      s->raw_bytes[id] : 0)) {
		return -ENOMEM;
	}
	return 0;
}

/* The shards in PENDING (N of them, ids) not walked: their records (and
 * a compressed one's decompressed bytes) from WL_COUNT_SAMPLE walked ones,
 * spread over them, by bytes. */
static int count_sampled(struct wl_shardset *s, const uint64_t *pending,
			 size_t n, uint64_t max_rec,
			 volatile sig_atomic_t *stop, struct wl_count_cache *cc,
			 uint8_t *src)
{
	double recs = 0, bytes = 0, raw = 0, zbytes = 0;
	bool walked_any = false, dummy;
	size_t next = 0;

	for (size_t k = 0; k < WL_COUNT_SAMPLE; k++) {
		uint64_t id = pending[k * n / WL_COUNT_SAMPLE];
		double size = (double)stg_dataset_size(s->ds, id);
		int err = count_shard(s, id, max_rec, stop, cc, COUNT_WALK, src,
				      &dummy);

		if (err)
			return err;
		recs += (double)s->records[id];
		bytes += size;
		if (s->compressed[id]) {
			raw += (double)s->raw_bytes[id];
			zbytes += size;
		}
		walked_any = true;
	}
	for (size_t k = 0; k < n; k++) {
		uint64_t id = pending[k];
		double size = (double)stg_dataset_size(s->ds, id);

		if (next < WL_COUNT_SAMPLE &&
		    id == pending[next * n / WL_COUNT_SAMPLE]) {
			next++;         /* walked above */
			continue;
		}
		src[id] = WL_COUNT_ESTIMATED;
		s->records[id] = walked_any && bytes > 0 ?
			(uint64_t)(size * recs / bytes + 0.5) : 0;
		if (!s->records[id])
			s->records[id] = 1;
		if (s->compressed[id])
			s->raw_bytes[id] = zbytes > 0 ?
				(uint64_t)(size * raw / zbytes + 0.5) : 0;
	}
	return 0;
}

/* Count every shard of S: lookups first, then the walks (all of them, or
 * with ESTIMATE a sample), then the count cache saved. */
static int count_all(struct wl_shardset *s, uint64_t max_rec,
		     const struct wl_shardset_opts *o)
{
	size_t n = stg_dataset_count(s->ds), npend = 0;
	bool sample = o->estimate && set_can(s, WL_CAP_ESTIMATE);
	struct wl_count_cache *cc = NULL;
	uint64_t *pending = NULL;
	uint8_t *src = calloc(n ? n : 1, 1);
	char why[320], root[4096];
	int err = 0;

	pending = calloc(n ? n : 1, sizeof(*pending));
	if (!src || !pending) {
		err = -ENOMEM;
		goto out;
	}
	if (set_can(s, WL_CAP_COUNT_CACHE)) {
		if (!realpath(stg_dataset_root(s->ds), root))
			snprintf(root, sizeof(root), "%s",
				 stg_dataset_root(s->ds));
		err = wl_count_cache_open(root, wl_format_name(s->format),
					  o->count_cache_dir, &cc);
		if (err)
			goto out;
		if (wl_count_cache_problems(cc, why, sizeof(why)))
			count_warn(s, why, "");
	}
	for (size_t i = 0; i < n; i++) {
		bool pend;

		err = count_shard(s, i, max_rec, o->stop, cc,
				  cc ? COUNT_LOOKUP : COUNT_ALL, src, &pend);
		if (!err && o->stop && *o->stop)
			err = -EINTR;
		if (err)
			goto out;
		if (pend)
			pending[npend++] = i;
	}
	if (sample && npend > WL_COUNT_SAMPLE) {
		err = count_sampled(s, pending, npend, max_rec, o->stop, cc,
				    src);
	} else {
		for (size_t k = 0; !err && k < npend; k++) {
			bool pend;

			err = count_shard(s, pending[k], max_rec, o->stop, cc,
					  COUNT_WALK, src, &pend);
			if (!err && o->stop && *o->stop)
				err = -EINTR;
		}
	}
	if (err)
		goto out;
	if (wl_count_cache_save(cc, why, sizeof(why)))
		count_warn(s, why, "");
	s->source = WL_COUNT_INDEX;
	for (size_t i = 0; i < n; i++) {
		s->by_source[src[i]]++;
		if (src[i] > s->source)
			s->source = (enum wl_count_source)src[i];
	}
out:
	wl_count_cache_free(cc);
	free(pending);
	free(src);
	return err;
}

/* ---- listing ---- */


static int list_files(struct wl_shardset *s, const char *root, char *why,
		      size_t cap)
{
	struct stg_dataset *all = NULL;
	char **names = NULL;
	uint64_t *sizes = NULL;
	size_t n = 0, count;
	int err = stg_dataset_scan(root, NULL, &all);

	if (err) {
		snprintf(why, cap, "cannot list %s: %s", root, strerror(-err));
		return err;
	}
	count = stg_dataset_count(all);
	names = calloc(count ? count : 1, sizeof(*names));
	sizes = calloc(count ? count : 1, sizeof(*sizes));
	if (!names || !sizes) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t id = 0; id < count; id++) {
		const char *rel = stg_dataset_relpath(all, id, NULL);
		const char *base = strrchr(rel, '/');
		bool zst = false, take;

		base = base ? base + 1 : rel;
		if (base[0] == '.')
			continue;
		/* side indexes are looked for only where the listing has
		 * one: on an object store a miss costs round trips */
		if (set_can(s, WL_CAP_SIDE_INDEX) &&
		    ends_with(base, wl_format_row(s->format)->side_index))
			s->side_indexes = true;
		if (set_can(s, WL_CAP_BY_FRAMING)) {
			int fd = stg_dataset_open(all, id, O_RDONLY);

			/* by framing, not by name: DALI's train.tfrecord.idx
			 * beside the shards is not one */
			take = fd >= 0 && frames_as_tfrecord(fd);
			if (fd >= 0)
				close(fd);
		} else if (set_can(s, WL_CAP_TOKENS)) {
			bool idx;

			/* an .idx is read with its .bin, not as a shard */
			take = is_token_name(base, &zst, &idx) && !idx;
		} else {
			take = is_tar_name(base, &zst);
		}
		if (!take)
			continue;
		names[n] = (char *)rel;
		sizes[n] = (uint64_t)stg_dataset_size(all, id);
		n++;
	}
	if (!n) {
		snprintf(why, cap, "no %s shards in %s",
			 wl_format_name(s->format), root);
		err = -ENODATA;
		goto out;
	}
	err = stg_dataset_from_names(root, (const char *const *)names, sizes,
				     n, &s->ds);
	if (err)
		snprintf(why, cap, "cannot list the shards of %s: %s", root,
			 strerror(-err));
out:
	free(names);
	free(sizes);
	stg_dataset_destroy(all);
	return err;
}

/* ROOT is one token file: a dataset of it alone, its folder the root.
 * Naming x.idx opens x.bin, else x.bin.zst. */
static int list_token_file(struct wl_shardset *s, const char *root,
			   char *why, size_t cap)
{
	const char *slash = strrchr(root, '/');
	char name[4096];
	const char *names[1] = { name };
	struct stat st;
	uint64_t size;
	bool zst, idx;
	int dfd, err;

	if (slash == root)
		snprintf(s->root, sizeof(s->root), "/");
	else if (slash)
		snprintf(s->root, sizeof(s->root), "%.*s", (int)(slash - root),
			 root);
	else
		snprintf(s->root, sizeof(s->root), ".");
	if (snprintf(name, sizeof(name), "%s", slash ? slash + 1 : root) >=
	    (int)sizeof(name))
		return -ENAMETOOLONG;
	is_token_name(name, &zst, &idx);
	dfd = open(s->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		err = -errno;
		snprintf(why, cap, "cannot open %s: %s", s->root,
			 strerror(errno));
		return err;
	}
	if (idx) {
		const size_t stem = strlen(name) - 4;

		snprintf(name + stem, sizeof(name) - stem, ".bin");
		if (faccessat(dfd, name, F_OK, 0))
			snprintf(name + stem, sizeof(name) - stem, ".bin.zst");
		if (faccessat(dfd, name, F_OK, 0)) {
			close(dfd);
			snprintf(why, cap, "%s: no %.*s.bin or .bin.zst beside "
				 "it", root, (int)stem, name);
			return -ENOENT;
		}
	}
	err = fstatat(dfd, name, &st, 0) ? -errno : 0;
	close(dfd);
	if (err) {
		snprintf(why, cap, "cannot open %s/%s: %s", s->root, name,
			 strerror(-err));
		return err;
	}
	size = (uint64_t)st.st_size;
	err = stg_dataset_from_names(s->root, names, &size, 1, &s->ds);
	if (err)
		snprintf(why, cap, "cannot list %s: %s", root, strerror(-err));
	return err;
}

static int list_mds(struct wl_shardset *s, const char *root, char *why,
		    size_t cap)
{
	char path[4096], **names = NULL;
	uint64_t *sizes = NULL;
	char *text = NULL;
	struct stat st;
	int fd, err = 0;
	ssize_t got;

	if (snprintf(path, sizeof(path), "%s/index.json", root) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, cap, "cannot open %s: %s", path, strerror(errno));
		return err;
	}
	if (fstat(fd, &st) || st.st_size > MDS_INDEX_MAX) {
		close(fd);
		snprintf(why, cap, "%s: unreadable or over %u MiB", path,
			 MDS_INDEX_MAX >> 20);
		return -WL_EBADINDEX;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		close(fd);
		return -ENOMEM;
	}
	got = fd_pread(&fd, text, (size_t)st.st_size, 0);
	close(fd);
	if (got != st.st_size) {
		free(text);
		snprintf(why, cap, "%s: short read", path);
		return got < 0 ? (int)got : -EIO;
	}
	text[got] = '\0';
	err = wl_mds_index_parse(text, (size_t)got, &s->mds, why, cap);
	free(text);
	if (err)
		return err;
	if (!s->mds.nshards) {
		snprintf(why, cap, "%s names no shard", path);
		return -ENODATA;
	}
	names = calloc(s->mds.nshards, sizeof(*names));
	sizes = calloc(s->mds.nshards, sizeof(*sizes));
	s->mds_of = calloc(s->mds.nshards, sizeof(*s->mds_of));
	s->records = calloc(s->mds.nshards, sizeof(*s->records));
	s->compressed = calloc(s->mds.nshards, 1);
	s->raw_bytes = calloc(s->mds.nshards, sizeof(*s->raw_bytes));
	if (!names || !sizes || !s->mds_of || !s->records || !s->compressed ||
	    !s->raw_bytes) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < s->mds.nshards; i++) {
		const struct wl_mds_shard *sh = &s->mds.shards[i];
		bool zip = sh->zip_name[0];

		if (zip && strncmp(sh->compression, "zstd", 4)) {
			snprintf(why, cap, "%s: shard %s is compressed with "
				 "%s; only zstd is read", path, sh->zip_name,
				 sh->compression);
			err = -WL_EBADINDEX;
			goto out;
		}
		names[i] = (char *)(zip ? sh->zip_name : sh->raw_name);
		sizes[i] = zip ? sh->zip_bytes : sh->raw_bytes;
		if (strstr(names[i], "..") || names[i][0] == '/') {
			snprintf(why, cap, "%s: shard name not usable", path);
			err = -WL_EBADINDEX;
			goto out;
		}
	}
	err = stg_dataset_from_names(root, (const char *const *)names, sizes,
				     s->mds.nshards, &s->ds);
	if (err)
		goto out;
	/* the listing keeps the index's order: ds id i is index shard i */
	for (unsigned i = 0; i < s->mds.nshards; i++) {
		s->mds_of[i] = i;
		s->records[i] = s->mds.shards[i].samples;
		s->compressed[i] = s->mds.shards[i].zip_name[0] != 0;
		s->raw_bytes[i] = s->mds.shards[i].raw_bytes;
	}
out:
	free(names);
	free(sizes);
	return err;
}

/* ---- the engine's callbacks ---- */

static void cb_scan_init(void *arg, void *scan, uint64_t shard)
{
	scan_start(arg, scan, shard);
}

static int cb_scan_next(void *scan, const uint8_t *win, uint64_t win_base,
			size_t win_len, bool eof, uint64_t *off,
			uint64_t *len, uint64_t *keep_from, uint64_t *err_off)
{
	struct wl_scanner *sc = scan;
	struct wl_record rec = { 0 };
	int ret = wl_scan_next(sc, win, win_base, win_len, eof, &rec);

	*off = rec.off;
	*len = rec.len;
	*keep_from = sc->keep_from;
	*err_off = sc->err_off;
	return ret;
}

static int cb_dec_create(void *arg, void **dec)
{
	(void)arg;
	return aug_zstd_create((struct aug_zstd **)dec);
}

static void cb_dec_destroy(void *dec)
{
	aug_zstd_destroy(dec);
}

static int cb_dec_begin(void *dec, const uint8_t *first, size_t len,
			uint64_t total, uint64_t out_cap)
{
	return aug_zstd_begin(dec, first, len, total, out_cap);
}

static int cb_dec_run(void *dec, const uint8_t *in, size_t in_len,
		      size_t *in_pos, uint8_t *out, size_t cap,
		      size_t *out_pos)
{
	return aug_zstd_run(dec, in, in_len, in_pos, out, cap, out_pos) ?
		-WL_EZSTD : 0;
}

static int cb_dec_end(void *dec)
{
	return aug_zstd_mid_frame(dec) ? -WL_EZSTD : 0;
}

int wl_shardset_open(const char *root, enum wl_format f,
		     const struct wl_shardset_opts *o,
		     struct wl_shardset **out, char *why, size_t cap)
{
	struct wl_shardset_opts none = { 0 };
	struct wl_shardset *s;
	uint64_t max_rec;
	size_t n;
	double t0;
	int err;

	*out = NULL;
	why[0] = '\0';
	if (!o)
		o = &none;
	if (!wl_format_can(f, WL_CAP_COUNT | WL_CAP_SCAN))
		return -EINVAL;
	if (o->flat_dtype && !wl_tok_dtype_is_int(o->flat_dtype))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->format = f;
	max_rec = o->max_record ? o->max_record : DEFAULT_MAX_RECORD;
	s->max_record = max_rec;
	s->tokens = set_can(s, WL_CAP_TOKENS) || o->seq_len;
	s->seq_len = o->seq_len ? o->seq_len : WL_TOK_DEFAULT_SEQ_LEN;
	s->flat_dtype = o->flat_dtype ? o->flat_dtype : WL_TOK_U16;
	snprintf(s->key, sizeof(s->key), "%s", o->key && *o->key ? o->key :
		 set_can(s, WL_CAP_INDEX) && s->tokens ? "tokens" : "");
	if (set_can(s, WL_CAP_INDEX)) {
		err = list_mds(s, root, why, cap);
	} else {
		struct stat rst;

		if (set_can(s, WL_CAP_TOKENS) && !stat(root, &rst) &&
		    S_ISREG(rst.st_mode))
			err = list_token_file(s, root, why, cap);
		else
			err = list_files(s, root, why, cap);
		if (!err) {
			n = stg_dataset_count(s->ds);
			s->records = calloc(n, sizeof(*s->records));
			s->compressed = calloc(n, 1);
			s->raw_bytes = calloc(n, sizeof(*s->raw_bytes));
			if (set_can(s, WL_CAP_TOKENS))
				s->tok = calloc(n, sizeof(*s->tok));
			if (!s->records || !s->compressed || !s->raw_bytes ||
			    (set_can(s, WL_CAP_TOKENS) && !s->tok))
				err = -ENOMEM;
			for (size_t i = 0; !err && i < n; i++) {
				const char *rel = stg_dataset_relpath(s->ds, i,
								      NULL);
				/* .tar.zst, .bin.zst: the formats that
				 * compress */
				s->compressed[i] =
					set_can(s, WL_CAP_COMPRESS) &&
					ends_with(rel, ".zst");
			}
		}
	}
	if (err)
		goto fail;
	n = stg_dataset_count(s->ds);
	s->base = calloc(n ? n : 1, sizeof(*s->base));
	if (!s->base) {
		err = -ENOMEM;
		goto fail;
	}
	t0 = stg_now();
	err = count_all(s, max_rec, o);
	if (err)
		goto fail;
	s->count_s = stg_now() - t0;
	for (size_t i = 0; i < n; i++) {
		s->base[i] = s->total;
		s->total += s->records[i];
		s->compressed_shards += s->compressed[i];
	}
	if (!s->total) {
		snprintf(why, cap, "no record in the %zu %s shards of %s", n,
			 wl_format_name(f), root);
		err = -ENODATA;
		goto fail;
	}
	s->ops = (struct ldr_shard_ops){
		.scan_size = sizeof(struct wl_scanner),
		.scan_init = cb_scan_init,
		.scan_next = cb_scan_next,
		.dec_create = cb_dec_create,
		.dec_destroy = cb_dec_destroy,
		.dec_begin = cb_dec_begin,
		.dec_run = cb_dec_run,
		.dec_end = cb_dec_end,
		.truncated_err = -WL_ETRUNCREC,
		.missing_err = -WL_EMISSING,
		.err_name = wl_fmt_err_name,
		.arg = s,
	};
	s->ldr = (struct ldr_shards){
		.records = s->records,
		.compressed = s->compressed,
		.raw_bytes = s->raw_bytes,
		.total = s->total,
		.ops = &s->ops,
		.read_size = o->read_size,
		.shuffle_buffer = o->shuffle_buffer,
		/* the readers' window: a record and the scanner's look */
		.max_record = max_rec + WL_SCAN_LOOKAHEAD,
	};
	*out = s;
	return 0;
fail:
	wl_shardset_free(s);
	return err;
}

void wl_shardset_free(struct wl_shardset *s)
{
	if (!s)
		return;
	stg_dataset_destroy(s->ds);
	free(s->records);
	free(s->compressed);
	free(s->raw_bytes);
	free(s->base);
	free(s->mds_of);
	free(s->tok);
	wl_mds_index_free(&s->mds);
	free(s);
}

/* ---- the transform: unwrap, then the workload's own ---- */

struct unwrap_ctx {
	const struct wl_shardset *s;
	void *inner;
};

static int uw_create(void *arg, void **ctx)
{
	const struct wl_shardset *s = arg;
	struct unwrap_ctx *c = calloc(1, sizeof(*c));
	int err = 0;

	*ctx = NULL;
	if (!c)
		return -ENOMEM;
	c->s = s;
	if (s->inner.ctx_create)
		err = s->inner.ctx_create(s->inner.arg, &c->inner);
	if (err) {
		free(c);
		return err;
	}
	*ctx = c;
	return 0;
}

static void uw_destroy(void *ctx)
{
	struct unwrap_ctx *c = ctx;

	if (c && c->s->inner.ctx_destroy && c->inner)
		c->s->inner.ctx_destroy(c->inner);
	free(c);
}

/* The shard holding record ID: the last base <= ID. */
static uint64_t shard_of(const struct wl_shardset *s, uint64_t id)
{
	uint64_t lo = 0, hi = stg_dataset_count(s->ds);

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (s->base[mid] <= id)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int uw_apply(void *ctx, const void *data, size_t len, uint64_t seed,
		    uint64_t epoch, uint64_t id, void *out,
		    struct ldr_step_times *st)
{
	struct unwrap_ctx *c = ctx;
	const struct wl_shardset *s = c->s;
	const struct wl_mds_shard *mds = NULL;
	struct wl_sample_view v;
	uint64_t t0 = stg_now_ns();
	int err;

	if (set_can(s, WL_CAP_INDEX))
		mds = &s->mds.shards[s->mds_of[shard_of(s, id)]];
	err = wl_unwrap_key(s->format, mds, s->key, data, len, &v);
	t0 = stg_now_ns() - t0;
	if (!err && s->tokens) {
		struct wl_token_span sp = {
			.magic = WL_TOKEN_SPAN_MAGIC,
			.dtype = v.elem_type,
			.data = v.image,
			.len = v.image_len,
		};

		if (set_can(s, WL_CAP_TOKENS))  /* the file's own dtype */
			sp.dtype = s->tok[shard_of(s, id)].dtype;
		else if (!sp.dtype)
			sp.dtype = WL_TOK_I64;
		err = s->inner.apply(c->inner, &sp, sizeof(sp), seed, epoch,
				     id, out, st);
	} else if (!err) {
		/* the inner transform sets the step times: add after */
		err = s->inner.apply(c->inner, v.image, v.image_len, seed,
				     epoch, id, out, st);
	}
	if (st)
		st->other_s += (double)t0 / 1e9;
	return err;
}

int wl_shardset_transform(struct wl_shardset *s,
			  const struct ldr_transform *inner,
			  struct ldr_transform *out)
{
	s->inner = *inner;
	*out = *inner;
	out->arg = s;
	out->ctx_create = uw_create;
	out->ctx_destroy = uw_destroy;
	out->apply = uw_apply;
	return 0;
}
