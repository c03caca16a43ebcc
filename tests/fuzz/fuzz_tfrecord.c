/*
 * fuzz_tfrecord.c - libFuzzer target for TFRecord framing: the scanner,
 * the header walk and the unwrap (CRCs, then tf.train.Example).
 *
 * Input: byte 0 picks the mode and byte 1 the append size; byte 2 the
 * record bound. Mode even: the rest is the file as is (random bytes
 * rarely pass a length CRC). Mode odd: the rest is records, each a 16-bit
 * length and that many bytes of data, framed here with correct CRCs, then
 * one byte flipped (at bytes 3-4 of the input, when nonzero) and the file
 * cut (at bytes 5-6, when nonzero) - so the fuzzer reaches records and
 * Examples past the CRCs.
 *
 * Checks: the same records and end in one shot and in appends; records
 * adjacent, in bounds and within the bound; the walk counts the same
 * records and ends with the same error at the same offset; unwraps give
 * an image inside the record or a format error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_internal.h"
#include "fuzz_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fz_scan one, part;

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* the framed file of mode odd; returns its length */
static size_t frame_all(const uint8_t *in, size_t n, uint8_t *out)
{
	size_t o = 0;

	while (n >= 2) {
		size_t len = (size_t)in[0] | (size_t)in[1] << 8;

		in += 2;
		n -= 2;
		if (len > n)
			len = n;
		put_le(out + o, len, 8);
		put_le(out + o + 8, wl_crc32c_mask(wl_crc32c(0, out + o, 8)),
		       4);
		memcpy(out + o + 12, in, len);
		put_le(out + o + 12 + len,
		       wl_crc32c_mask(wl_crc32c(0, in, len)), 4);
		o += 16 + len;
		in += len;
		n -= len;
	}
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t bounds[] = { 1u << 20, 16, 17, 64, 300, 4096 };
	uint64_t max_record, count = 0, err_off = 0;
	uint8_t *file;
	size_t flen, chunk;
	struct fz_mem m;
	int walk;

	if (size < 7)
		return 0;
	chunk = (size_t)data[1] + 1;
	max_record = bounds[data[2] % (sizeof(bounds) / sizeof(bounds[0]))];
	/* mode odd adds 14 bytes per 2 bytes of input at most */
	file = malloc(size * 8 + 16);
	if (!file)
		return 0;
	if (data[0] & 1) {
		size_t flip = (size_t)data[3] | (size_t)data[4] << 8;
		size_t cut = (size_t)data[5] | (size_t)data[6] << 8;

		flen = frame_all(data + 7, size - 7, file);
		if (flip && flip - 1 < flen)
			file[flip - 1] ^= (uint8_t)(data[0] | 1);
		if (cut && cut < flen)
			flen = cut;
	} else {
		flen = size - 3;
		memcpy(file, data + 3, flen);
	}

	fz_scan(WL_FORMAT_TFRECORD, NULL, file, flen, flen, max_record, &one);
	fz_scan(WL_FORMAT_TFRECORD, NULL, file, flen, chunk, max_record,
		&part);
	fz_scan_same(&one, &part);
	for (size_t i = 0; i < one.nrec; i++) {
		const struct wl_record *r = &one.recs[i];
		struct wl_sample_view v;
		uint8_t *rec;
		int u;

		if (r->off != (i ? one.recs[i - 1].off + one.recs[i - 1].len :
			       0) || r->len < 16)
			abort();
		rec = fz_copy(file + r->off, r->len);
		u = wl_unwrap(WL_FORMAT_TFRECORD, NULL, rec, r->len, &v);
		if (u && u != -WL_ECRC && u != -WL_EBADREC &&
		    u != -WL_ENOIMAGE)
			abort();
		fz_view_check(u, rec, r->len, &v);
		free(rec);
	}

	m.p = file;
	m.n = flen;
	walk = wl_walk_count(WL_FORMAT_TFRECORD, fz_mem_pread, &m, flen,
			     max_record, &count, &err_off);
	if (walk != one.err || count != one.nrec ||
	    (walk && err_off != one.err_off))
		abort();
	free(file);
	return 0;
}
