/*
 * fmt_write.c - the shard writers of fmt_write.h: WebDataset tar, MDS v2
 * and TFRecord, each shard written through one output buffer (and one
 * zstd stream when asked) into a hidden temporary file in the folder.
 *
 * Layouts followed: POSIX ustar and pax headers (IEEE Std 1003.1, the pax
 * utility's "ustar Interchange Format" and "pax Header Block"); MDS as
 * mosaicml/streaming writes it (streaming/base/format/mds/writer.py:
 * MDSWriter.encode_joint_shard and .encode_sample; base/writer.py:
 * Writer.write's size rule, JointWriter.flush_shard, Writer._write_index;
 * compression.py: Zstandard, extension "zstd"); TFRecord framing and
 * tf.train.Example (tensorflow/core/example/example.proto, feature.proto;
 * int64 lists packed, as proto3 writes repeated scalars).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "fmt_write.h"

#define FW_BUF (1u << 20)      /* output buffer: one write() per MiB */
#define FW_NAME 64
#define FW_KEY 4200            /* a key: a path of up to PATH_MAX, a suffix */
#define TAR_BLOCK 512u
#define TAR_MAX_SIZE 077777777777ull /* 11 octal digits */

struct fw_bytes {
	uint8_t *p;
	size_t len, cap;
};

struct wl_shard_writer;

/*
 * The write side of a row of the format table (formats.c states which
 * formats have one: WL_CAP_WRITE): how its shards are named, how a sample
 * goes in, and what ends a shard and the set. NULL hooks do nothing.
 */
struct fw_ops {
	const char *prefix;      /* final name: PREFIX, the shard number in
	                            DIGITS digits, EXT (+ ZSUFFIX) */
	int digits;
	const char *ext, *zsuffix;
	bool gather;             /* a shard is gathered in memory (MDS:
	                            its header, first, needs every offset) */
	bool named_at_close;     /* the final names hold the shard count
	                            (TFRecord): renamed when the set ends */
	bool zstd_checksum;      /* frames carry zstd's checksum */
	int (*add)(struct wl_shard_writer *w, const struct wl_shard_sample *s);
	int (*shard_end)(struct wl_shard_writer *w);  /* before the flush */
	int (*shard_named)(struct wl_shard_writer *w); /* after the rename */
	int (*set_end)(struct wl_shard_writer *w);    /* at close */
	int (*setup)(struct wl_shard_writer *w);      /* at create */
	uint64_t default_size;   /* --shard-size's default */
};

struct wl_shard_writer {
	struct wl_shard_opts o;  /* shard_size and zstd_level resolved */
	const struct fw_ops *ops; /* the format's write side */
	int dfd;
	ZSTD_CCtx *z;            /* NULL without zstd */
	uint8_t *buf;            /* output buffer, FW_BUF bytes */
	size_t len;
	/* the open shard: `open` once it holds a sample */
	bool open;
	int fd;                  /* -1 until its file is created */
	char tmp[FW_NAME + 8], fin[FW_NAME];
	uint64_t raw, out;       /* bytes handed in; bytes written */
	uint64_t samples, images;
	unsigned shard;          /* number of the open (or next) shard */
	bool closed;
	uint64_t added;          /* samples added, every shard */
	char prev_key[FW_KEY];   /* wds: the last sample's key */
	/* mds: the open shard's samples and their sizes; config; index */
	struct fw_bytes mds;
	uint32_t *sizes;
	size_t sizes_cap;
	json_t *mds_config;
	char *mds_config_text;
	size_t mds_config_len;
	json_t *mds_shards;
	struct fw_bytes rec;     /* tfrecord: one Example */
	struct wl_shard_stats st;
	char failed[FW_NAME];
};

int wl_write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n) {
		const ssize_t k = write(fd, p, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int bytes_reserve(struct fw_bytes *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	uint8_t *p;

	if (b->len + more <= b->cap)
		return 0;
	while (cap < b->len + more)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}


/* Remembers which file failed; returns RC. */
static int fail(struct wl_shard_writer *w, int rc, const char *name)
{
	if (rc && !w->failed[0])
		snprintf(w->failed, sizeof(w->failed), "%s", name);
	return rc;
}

/* ---- output: buffer, zstd, file ---- */

static int out_flush(struct wl_shard_writer *w)
{
	const int rc = wl_write_all(w->fd, w->buf, w->len);

	if (!rc)
		w->out += w->len;
	w->len = 0;
	return rc;
}

/* Feeds N bytes (none with ZSTD_e_end) through the zstd stream. */
static int out_zstd(struct wl_shard_writer *w, const void *p, size_t n,
		    ZSTD_EndDirective end)
{
	ZSTD_inBuffer in = { p, n, 0 };
	int rc;

	for (;;) {
		ZSTD_outBuffer ob = { w->buf + w->len, FW_BUF - w->len, 0 };
		const size_t r = ZSTD_compressStream2(w->z, &ob, &in, end);

		if (ZSTD_isError(r))
			return ZSTD_getErrorCode(r) ==
			       ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
		w->len += ob.pos;
		if (w->len == FW_BUF && (rc = out_flush(w)))
			return rc;
		if (end == ZSTD_e_end ? r == 0 : in.pos == in.size)
			return 0;
	}
}

/* N bytes of the shard's (uncompressed) stream. */
static int out_put(struct wl_shard_writer *w, const void *p, size_t n)
{
	int rc;

	w->raw += n;
	if (w->z)
		return out_zstd(w, p, n, ZSTD_e_continue);
	if (w->len + n > FW_BUF && (rc = out_flush(w)))
		return rc;
	if (n >= FW_BUF) {
		rc = wl_write_all(w->fd, p, n);
		if (!rc)
			w->out += n;
		return rc;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
	return 0;
}

static int out_zeros(struct wl_shard_writer *w, size_t n)
{
	static const uint8_t zero[2 * TAR_BLOCK];

	return n ? out_put(w, zero, n) : 0;
}

/* TFRecord's count is added to its names when the writer closes. */
static void shard_names(struct wl_shard_writer *w)
{
	snprintf(w->fin, sizeof(w->fin), "%s%0*u%s%s", w->ops->prefix,
		 w->ops->digits, w->shard, w->ops->ext,
		 w->z ? w->ops->zsuffix : "");
	snprintf(w->tmp, sizeof(w->tmp), ".%s.tmp", w->fin);
}

/* Creates the open shard's temporary file and starts its stream. */
static int shard_create(struct wl_shard_writer *w, uint64_t pledged)
{
	w->fd = openat(w->dfd, w->tmp, O_WRONLY | O_CREAT | O_EXCL |
		       O_CLOEXEC, 0644);
	if (w->fd < 0)
		return fail(w, -errno, w->fin);
	w->len = 0;
	w->raw = w->out = 0;
	if (w->z) {
		ZSTD_CCtx_reset(w->z, ZSTD_reset_session_only);
		if (pledged && ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(w->z,
								      pledged)))
			return -EIO;
	}
	return 0;
}

/* Starts a shard for the first sample: wds and tfrecord stream into their
 * file; MDS gathers the shard in memory (its header comes first). */
static int shard_begin(struct wl_shard_writer *w)
{
	shard_names(w);
	w->open = true;
	w->samples = w->images = 0;
	w->fd = -1;
	w->mds.len = 0;
	w->raw = 0;
	return w->ops->gather ? 0 : shard_create(w, 0);
}

/* Removes the open shard (after a failure, or when dropped). */
static void shard_drop(struct wl_shard_writer *w)
{
	if (!w->open)
		return;
	if (w->fd >= 0) {
		close(w->fd);
		unlinkat(w->dfd, w->tmp, 0);
	}
	w->fd = -1;
	w->open = false;
	w->len = 0;
}

/* MDS: the shard file as MDSWriter.encode_joint_shard lays it out. */
static int mds_emit(struct wl_shard_writer *w)
{
	const uint64_t n = w->samples;
	const size_t hlen = 4 * (size_t)(n + 2);
	const uint64_t base = hlen + w->mds_config_len;
	uint8_t *h = malloc(hlen);
	uint64_t off = base;
	int rc;

	if (!h)
		return -ENOMEM;
	put_le32(h, (uint32_t)n);
	for (uint64_t i = 0; i <= n; i++) {
		put_le32(h + 4 * (i + 1), (uint32_t)off);
		if (i < n)
			off += w->sizes[i];
	}
	rc = shard_create(w, base + w->mds.len);
	if (!rc)
		rc = out_put(w, h, hlen);
	if (!rc)
		rc = out_put(w, w->mds_config_text, w->mds_config_len);
	if (!rc)
		rc = out_put(w, w->mds.p, w->mds.len);
	free(h);
	return rc;
}

/* MDS: the index entry of the shard just written. */
static int mds_index_add_named(struct wl_shard_writer *w,
			       const char *raw_name);

/* The completed shard in the index (its raw name without .zstd). */
static int mds_index_add(struct wl_shard_writer *w)
{
	char raw_name[FW_NAME];

	snprintf(raw_name, sizeof(raw_name), "shard.%05u.mds", w->shard);
	return mds_index_add_named(w, raw_name);
}

static int mds_index_add_named(struct wl_shard_writer *w,
			       const char *raw_name)
{
	json_t *e = json_deep_copy(w->mds_config);
	json_t *zip = w->z ? json_pack("{s:s,s:I,s:{}}", "basename", w->fin,
				       "bytes", (json_int_t)w->out, "hashes") :
		      json_null();
	json_t *raw = json_pack("{s:s,s:I,s:{}}", "basename", raw_name,
				"bytes", (json_int_t)w->raw, "hashes");

	if (!e || !zip || !raw ||
	    json_object_set_new(e, "samples", json_integer((json_int_t)
							   w->samples)) ||
	    json_object_set_new(e, "raw_data", raw) ||
	    json_object_set_new(e, "zip_data", zip) ||
	    json_array_append_new(w->mds_shards, e)) {
		json_decref(e);
		return -ENOMEM;
	}
	return 0;
}

/* Completes the open shard and gives it its final name (TFRecord: at
 * close). On failure the shard is removed. */
static int shard_finish(struct wl_shard_writer *w)
{
	int rc = 0;

	if (!w->open)
		return 0;
	if (w->ops->shard_end)
		rc = w->ops->shard_end(w);
	if (!rc && w->z)
		rc = out_zstd(w, NULL, 0, ZSTD_e_end);
	if (!rc)
		rc = out_flush(w);
	if (rc) {
		shard_drop(w);
		return fail(w, rc, w->fin);
	}
	rc = close(w->fd) && errno != EINTR ? -errno : 0;
	w->fd = -1;
	if (!rc && !w->ops->named_at_close &&
	    renameat(w->dfd, w->tmp, w->dfd, w->fin))
		rc = -errno;
	if (!rc && w->ops->shard_named && (rc = w->ops->shard_named(w)))
		unlinkat(w->dfd, w->fin, 0);
	if (rc) {
		unlinkat(w->dfd, w->tmp, 0);
		w->open = false;
		return fail(w, rc, w->fin);
	}
	w->open = false;
	w->st.shards++;
	w->st.samples += w->samples;
	w->st.bytes += w->out;
	w->st.raw_bytes += w->raw;
	w->st.image_bytes += w->images;
	w->shard++;
	return 0;
}

/* ---- WebDataset ---- */

static unsigned ndigits(size_t n)
{
	unsigned d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* A ustar header for NAME (its first 100 bytes; longer names go in a pax
 * header before it), SIZE bytes, type TYPE, mode 0644, mtime 0. */
static void tar_header(uint8_t h[TAR_BLOCK], const char *name, size_t nlen,
		       uint64_t size, char type)
{
	unsigned sum = 0;

	memset(h, 0, TAR_BLOCK);
	memcpy(h, name, nlen < 100 ? nlen : 100);
	memcpy(h + 100, "0000644", 8);
	memcpy(h + 108, "0000000", 8);           /* uid */
	memcpy(h + 116, "0000000", 8);           /* gid */
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
	memcpy(h + 136, "00000000000", 12);      /* mtime: reproducible */
	h[156] = (uint8_t)type;
	memcpy(h + 257, "ustar", 6);             /* magic, NUL-terminated */
	memcpy(h + 263, "00", 2);                /* version */
	memset(h + 148, ' ', 8);
	for (unsigned i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
}

static size_t tar_pad(uint64_t n)
{
	return (size_t)((TAR_BLOCK - n % TAR_BLOCK) % TAR_BLOCK);
}

/* The pax record "LEN path=NAME\n": its length (LEN counts itself). */
static size_t pax_len(size_t nlen)
{
	const size_t body = 7 + nlen;   /* " path=" NAME "\n" */
	size_t n = body + 1;

	while (ndigits(n) + body != n)
		n = ndigits(n) + body;
	return n;
}

/* Bytes one member takes: its header(s), data and padding. */
static uint64_t tar_member_bytes(size_t nlen, uint64_t size)
{
	uint64_t b = TAR_BLOCK + size + tar_pad(size);

	if (nlen > 100)
		b += TAR_BLOCK + pax_len(nlen) + tar_pad(pax_len(nlen));
	return b;
}

static int tar_member(struct wl_shard_writer *w, const char *name,
		      const void *data, size_t size)
{
	const size_t nlen = strlen(name);
	uint8_t h[TAR_BLOCK];
	int rc;

	if (nlen > 100) {
		const size_t plen = pax_len(nlen);
		char *rec = malloc(plen + 1);

		if (!rec)
			return -ENOMEM;
		snprintf(rec, plen + 1, "%zu path=%s\n", plen, name);
		tar_header(h, "././@PaxHeader", 14, plen, 'x');
		rc = out_put(w, h, TAR_BLOCK);
		if (!rc)
			rc = out_put(w, rec, plen);
		if (!rc)
			rc = out_zeros(w, tar_pad(plen));
		free(rec);
		if (rc)
			return rc;
	}
	tar_header(h, name, nlen, size, '0');
	rc = out_put(w, h, TAR_BLOCK);
	if (!rc)
		rc = out_put(w, data, size);
	if (!rc)
		rc = out_zeros(w, tar_pad(size));
	return rc;
}

static const char *image_ext(enum wl_image_kind k)
{
	return k == WL_IMAGE_PNG ? "png" : k == WL_IMAGE_WEBP ? "webp" : "jpg";
}

/* WebDataset's key ends at the first dot of the member's base name, and
 * only consecutive members with one key make a sample: dots in the last
 * part become '_', an empty last part "_", and a key equal to the one
 * before gets the sample's number. */
static void wds_key(struct wl_shard_writer *w, const char *key,
		    char out[FW_KEY])
{
	char *base;

	snprintf(out, FW_KEY - 24, "%s", key);
	base = strrchr(out, '/');
	base = base ? base + 1 : out;
	for (char *p = base; *p; p++)
		if (*p == '.')
			*p = '_';
	if (!*base)
		strcpy(base, "_");
	if (!strcmp(out, w->prev_key))
		snprintf(out + strlen(out), 24, "_%llu",
			 (unsigned long long)w->added);
	memcpy(w->prev_key, out, strlen(out) + 1);
}

static int wds_add(struct wl_shard_writer *w, const struct wl_shard_sample *s)
{
	char key[FW_KEY], img[FW_KEY + 8], cls[FW_KEY + 8], label[24];
	uint64_t need;
	int rc;

	if (s->len > TAR_MAX_SIZE)
		return -EFBIG;
	wds_key(w, s->key, key);
	snprintf(img, sizeof(img), "%s.%s", key, image_ext(s->kind));
	snprintf(cls, sizeof(cls), "%s.cls", key);
	snprintf(label, sizeof(label), "%lld", (long long)s->label);
	need = tar_member_bytes(strlen(img), s->len) +
	       tar_member_bytes(strlen(cls), strlen(label));
	if (w->open && w->raw + need + 2 * TAR_BLOCK > w->o.shard_size &&
	    (rc = shard_finish(w)))
		return rc;
	if (!w->open && (rc = shard_begin(w)))
		return rc;
	rc = tar_member(w, img, s->data, s->len);
	if (!rc)
		rc = tar_member(w, cls, label, strlen(label));
	return rc;
}

/* ---- MDS ---- */

/* MDSWriter's rule: a shard counts 4 + 4 + its config, and each sample
 * its encoding + 4 (its offset); the shard is flushed when the next
 * sample would take it past size_limit. */
static int mds_add(struct wl_shard_writer *w, const struct wl_shard_sample *s)
{
	const uint64_t slen = 4 + (uint64_t)s->len + 8;
	const uint64_t fixed = 8 + w->mds_config_len;
	uint8_t head[4], lab[8];
	int rc;

	if (fixed + slen + 4 > UINT32_MAX)
		return -EFBIG;   /* offsets are uint32 */
	if (w->open && fixed + w->mds.len + 4 * w->samples + slen + 4 >
		       w->o.shard_size && (rc = shard_finish(w)))
		return rc;
	if (!w->open && (rc = shard_begin(w)))
		return rc;
	if (w->samples >= w->sizes_cap) {
		const size_t cap = w->sizes_cap ? 2 * w->sizes_cap : 1024;
		uint32_t *p = realloc(w->sizes, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		w->sizes = p;
		w->sizes_cap = cap;
	}
	if (bytes_reserve(&w->mds, slen))
		return -ENOMEM;
	/* columns sorted by name: image (variable: its size first), label */
	put_le32(head, (uint32_t)s->len);
	put_le64(lab, (uint64_t)s->label);
	memcpy(w->mds.p + w->mds.len, head, 4);
	memcpy(w->mds.p + w->mds.len + 4, s->data, s->len);
	memcpy(w->mds.p + w->mds.len + 4 + s->len, lab, 8);
	w->mds.len += slen;
	w->sizes[w->samples] = (uint32_t)slen;
	return 0;
}

/* The config MDSWriter.get_config returns, and its text as
 * json.dumps(obj, sort_keys=True) writes it (jansson's default
 * separators are Python's: ", " and ": "). */
static int mds_config_make(struct wl_shard_writer *w)
{
	char comp[16];

	snprintf(comp, sizeof(comp), "zstd:%d", w->o.zstd_level);
	w->mds_config = json_pack("{s:[ss],s:[ss],s:[ni],s:o,s:s,s:[],s:I,s:i}",
				  "column_encodings",
				  w->o.image_kind == WL_IMAGE_PNG ? "png" :
				  "jpeg", "int",
				  "column_names", "image", "label",
				  "column_sizes", 8,
				  "compression", w->z ? json_string(comp) :
				  json_null(),
				  "format", "mds",
				  "hashes",
				  "size_limit", (json_int_t)w->o.shard_size,
				  "version", 2);
	w->mds_shards = json_array();
	if (!w->mds_config || !w->mds_shards)
		return -ENOMEM;
	w->mds_config_text = json_dumps(w->mds_config, JSON_SORT_KEYS);
	if (!w->mds_config_text)
		return -ENOMEM;
	w->mds_config_len = strlen(w->mds_config_text);
	return 0;
}

/* index.json as Writer._write_index writes it, through a temporary. */
static int mds_index_write(struct wl_shard_writer *w)
{
	json_t *root = json_pack("{s:O,s:i}", "shards", w->mds_shards,
				 "version", 2);
	char *text = root ? json_dumps(root, JSON_SORT_KEYS) : NULL;
	int fd, rc;

	json_decref(root);
	if (!w->st.shards) {    /* no index for an empty set */
		free(text);
		return 0;
	}
	if (!text)
		return fail(w, -ENOMEM, "index.json");
	fd = openat(w->dfd, ".index.json.tmp", O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC, 0644);
	if (fd < 0) {
		free(text);
		return fail(w, -errno, "index.json");
	}
	rc = wl_write_all(fd, text, strlen(text));
	free(text);
	if (close(fd) && !rc && errno != EINTR)
		rc = -errno;
	if (!rc && renameat(w->dfd, ".index.json.tmp", w->dfd, "index.json"))
		rc = -errno;
	if (rc)
		unlinkat(w->dfd, ".index.json.tmp", 0);
	return fail(w, rc, "index.json");
}

/* ---- TFRecord ---- */

/* One feature of the Example: bytes or one int64. */
struct pb_feat {
	const char *key;
	const uint8_t *bytes;   /* NULL: an int64 */
	size_t blen;
	int64_t i;
};

/* BytesList / Int64List (field 1 of it), then Feature around it. */
static size_t pb_list_len(const struct pb_feat *f)
{
	const size_t v = f->bytes ? f->blen : wl_pb_vlen((uint64_t)f->i);

	return 1 + wl_pb_vlen(v) + v;
}

static size_t pb_feature_len(const struct pb_feat *f)
{
	const size_t l = pb_list_len(f);

	return 1 + wl_pb_vlen(l) + l;
}

/* The map entry {1: key, 2: Feature}. */
static size_t pb_entry_len(const struct pb_feat *f)
{
	const size_t k = strlen(f->key), fl = pb_feature_len(f);

	return 1 + wl_pb_vlen(k) + k + 1 + wl_pb_vlen(fl) + fl;
}

static uint8_t *pb_entry(uint8_t *p, const struct pb_feat *f)
{
	const size_t k = strlen(f->key);

	*p++ = 0x0a;                            /* Features.feature entry */
	p = wl_pb_varint(p, pb_entry_len(f));
	*p++ = 0x0a;                            /* key */
	p = wl_pb_varint(p, k);
	memcpy(p, f->key, k);
	p += k;
	*p++ = 0x12;                            /* value: Feature */
	p = wl_pb_varint(p, pb_feature_len(f));
	*p++ = f->bytes ? 0x0a : 0x1a;          /* bytes_list / int64_list */
	p = wl_pb_varint(p, pb_list_len(f));
	*p++ = 0x0a;                            /* value (packed for int64) */
	if (f->bytes) {
		p = wl_pb_varint(p, f->blen);
		memcpy(p, f->bytes, f->blen);
		return p + f->blen;
	}
	p = wl_pb_varint(p, wl_pb_vlen((uint64_t)f->i));
	return wl_pb_varint(p, (uint64_t)f->i);
}

/* tf.train.Example {1: Features {1: map<string, Feature>}} into w->rec,
 * keys in sorted order. */
static int tfr_example(struct wl_shard_writer *w,
		       const struct wl_shard_sample *s)
{
	const char *fmt = s->kind == WL_IMAGE_PNG ? "png" :
			  s->kind == WL_IMAGE_WEBP ? "webp" : "jpeg";
	const struct pb_feat f[] = {
		{ .key = "image/class/label", .i = s->label },
		{ .key = "image/encoded", .bytes = s->data, .blen = s->len },
		{ .key = "image/format", .bytes = (const uint8_t *)fmt,
		  .blen = strlen(fmt) },
		{ .key = "image/height", .i = s->height },
		{ .key = "image/width", .i = s->width },
	};
	const size_t nf = s->width && s->height ? 5 : 3;
	size_t feats = 0;
	uint8_t *p;

	for (size_t i = 0; i < nf; i++) {
		const size_t e = pb_entry_len(&f[i]);

		feats += 1 + wl_pb_vlen(e) + e;
	}
	w->rec.len = 0;
	if (bytes_reserve(&w->rec, 1 + wl_pb_vlen(feats) + feats))
		return -ENOMEM;
	p = w->rec.p;
	*p++ = 0x0a;                            /* Example.features */
	p = wl_pb_varint(p, feats);
	for (size_t i = 0; i < nf; i++)
		p = pb_entry(p, &f[i]);
	w->rec.len = (size_t)(p - w->rec.p);
	return 0;
}

static int tfr_add(struct wl_shard_writer *w, const struct wl_shard_sample *s)
{
	uint8_t head[12], foot[4];
	int rc = tfr_example(w, s);

	if (rc)
		return rc;
	if (w->open && w->raw + 16 + w->rec.len > w->o.shard_size &&
	    (rc = shard_finish(w)))
		return rc;
	if (!w->open && (rc = shard_begin(w)))
		return rc;
	put_le64(head, w->rec.len);
	put_le32(head + 8, wl_crc32c_mask(wl_crc32c(0, head, 8)));
	put_le32(foot, wl_crc32c_mask(wl_crc32c(0, w->rec.p, w->rec.len)));
	rc = out_put(w, head, sizeof(head));
	if (!rc)
		rc = out_put(w, w->rec.p, w->rec.len);
	if (!rc)
		rc = out_put(w, foot, sizeof(foot));
	return rc;
}

/* The complete shards' final names, now that their count is known. */
static int tfr_rename_all(struct wl_shard_writer *w)
{
	const unsigned n = (unsigned)w->st.shards;

	for (unsigned k = 0; k < n; k++) {
		char tmp[FW_NAME], fin[FW_NAME];

		snprintf(tmp, sizeof(tmp), ".train-%05u.tfrecord.tmp", k);
		snprintf(fin, sizeof(fin), "train-%05u-of-%05u.tfrecord", k,
			 n);
		if (renameat(w->dfd, tmp, w->dfd, fin))
			return fail(w, -errno, fin);
	}
	return 0;
}

/* ---- the writer ---- */

static int wds_shard_end(struct wl_shard_writer *w)
{
	return out_zeros(w, 2 * TAR_BLOCK);
}

/* Indexed by the format table's rows; a row without add has no writer. */
static const struct fw_ops fw_table[WL_FORMAT_COUNT] = {
	[WL_FORMAT_WDS] = {
		.prefix = "shard-", .digits = 6, .ext = ".tar",
		.zsuffix = ".zst",
		/* a tar.zst gets a checksum as the zstd CLI writes one */
		.zstd_checksum = true, .add = wds_add,
		.shard_end = wds_shard_end,
		.default_size = WL_SHARD_DEFAULT_BYTES,
	},
	[WL_FORMAT_MDS] = {
		/* MDS's frames are python-zstd's (content size, no checksum) */
		.prefix = "shard.", .digits = 5, .ext = ".mds",
		.zsuffix = ".zstd", .gather = true,
		.add = mds_add, .shard_end = mds_emit,
		.shard_named = mds_index_add, .set_end = mds_index_write,
		.setup = mds_config_make,
		.default_size = WL_MDS_DEFAULT_SIZE_LIMIT,
	},
	[WL_FORMAT_TFRECORD] = {
		.prefix = "train-", .digits = 5, .ext = ".tfrecord",
		.zsuffix = "",
		.named_at_close = true, .add = tfr_add,
		.set_end = tfr_rename_all,
		.default_size = WL_SHARD_DEFAULT_BYTES,
	},
};

int wl_shard_writer_create(int dfd, const struct wl_shard_opts *o,
			   struct wl_shard_writer **out)
{
	const struct wl_format_row *row = wl_format_row(o->format);
	struct wl_shard_writer *w;

	*out = NULL;
	if (!wl_format_can(o->format, WL_CAP_WRITE) ||
	    !fw_table[o->format].add ||
	    (o->zstd && !wl_format_can(o->format, WL_CAP_COMPRESS)) ||
	    o->zstd_level < 0 || o->zstd_level > WL_ZSTD_MAX_LEVEL ||
	    (row->max_shard_bytes && o->shard_size >= row->max_shard_bytes))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->o = *o;
	w->ops = &fw_table[o->format];
	w->dfd = dfd;
	w->fd = -1;
	if (!w->o.zstd_level)
		w->o.zstd_level = WL_ZSTD_DEFAULT_LEVEL;
	if (!w->o.shard_size)
		w->o.shard_size = w->ops->default_size;
	w->buf = malloc(FW_BUF);
	if (!w->buf)
		goto nomem;
	if (o->zstd) {
		w->z = ZSTD_createCCtx();
		if (!w->z ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->z,
				ZSTD_c_compressionLevel, w->o.zstd_level)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->z,
				ZSTD_c_checksumFlag, w->ops->zstd_checksum)))
			goto nomem;
	}
	if (w->ops->setup && w->ops->setup(w))
		goto nomem;
	*out = w;
	return 0;
nomem:
	wl_shard_writer_destroy(w);
	return -ENOMEM;
}

int wl_shard_writer_add(struct wl_shard_writer *w,
			const struct wl_shard_sample *s)
{
	int rc;

	if (w->closed)
		return -EINVAL;
	rc = w->ops->add(w, s);
	if (rc)
		return fail(w, rc, w->fin);
	w->samples++;
	w->images += s->len;
	w->added++;
	return 0;
}

int wl_shard_writer_close(struct wl_shard_writer *w, bool keep_open)
{
	int rc = 0, r;

	if (w->closed)
		return 0;
	w->closed = true;
	if (keep_open)
		rc = shard_finish(w);
	else
		shard_drop(w);
	if (w->ops->set_end && (r = w->ops->set_end(w)) && !rc)
		rc = r;
	if (!rc && syncfs(w->dfd))
		rc = -errno;
	return rc;
}

void wl_shard_writer_stats(const struct wl_shard_writer *w,
			   struct wl_shard_stats *st)
{
	*st = w->st;
}

const char *wl_shard_writer_failed_name(const struct wl_shard_writer *w)
{
	return w->failed;
}

void wl_shard_writer_destroy(struct wl_shard_writer *w)
{
	if (!w)
		return;
	shard_drop(w);
	ZSTD_freeCCtx(w->z);
	free(w->buf);
	free(w->mds.p);
	free(w->sizes);
	json_decref(w->mds_config);
	free(w->mds_config_text);
	json_decref(w->mds_shards);
	free(w->rec.p);
	free(w);
}
