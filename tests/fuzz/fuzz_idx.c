/*
 * fuzz_idx.c - libFuzzer target for the token files' headers: Megatron's
 * .idx parser, then the window scanner over the stream the .idx
 * describes; llm.c's header and the zstd frame walk on the same bytes.
 *
 * Input: the .idx's bytes (the seeds are real ones); its last byte picks
 * the sequence length (1..64) and the append size of the scan.
 *
 * Checks: a parse is 0 or bad_index at an offset inside the input; a
 * parsed index fits the input (34 + 12 S + 8 D bytes), has an integer
 * dtype and tokens inside the .bin it was given; one byte less of .bin
 * (when the last sequence is not empty) is bad_index with fewer tokens.
 * The scanner cuts exactly floor((tokens - 1) / L) windows of L + 1
 * tokens, each one token before the last one's end, in one shot and in
 * appends alike. The zstd walk and llm.c's parse answer their codes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_internal.h"
#include "tokens.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SCAN_MAX (1u << 20)     /* streams scanned: at most this long */

struct mem {
	const uint8_t *p;
	size_t n;
};

static int64_t mem_pread(void *arg, void *buf, size_t len, uint64_t off)
{
	const struct mem *m = arg;

	if (off >= m->n)
		return 0;
	if (len > m->n - off)
		len = m->n - off;
	memcpy(buf, m->p + off, len);
	return (int64_t)len;
}

/* Cut a zero stream of LEN bytes for F in appends of CHUNK; the windows
 * in *N (their offsets checked against the rule). */
static void scan(const struct wl_tok_file *f, uint32_t L, uint64_t len,
		 size_t chunk, uint64_t *n)
{
	const unsigned size = wl_tok_dtype_size(f->dtype);
	uint8_t *zero = calloc(len ? len : 1, 1);
	struct wl_scanner s;
	uint64_t base = 0, fed = 0;

	if (!zero)
		abort();
	*n = 0;
	wl_scan_init(&s, WL_FORMAT_TOKENS, NULL, 1u << 20);
	wl_tok_scan_setup(&s, f, L);
	for (;;) {
		struct wl_record rec;
		const bool eof = fed == len;
		int r = wl_scan_next(&s, zero, base, (size_t)(fed - base), eof,
				     &rec);

		if (r == 1) {
			if (rec.off != f->data_off + *n * L * size ||
			    rec.len != (L + 1ull) * size ||
			    rec.off + rec.len > fed || rec.off < base)
				abort();
			(*n)++;
			continue;
		}
		if (r < 0 || r > 1)
			abort();        /* no error was set, and enough bytes */
		if (eof)
			break;
		if (s.keep_from < base || s.keep_from > fed)
			abort();
		base = s.keep_from;
		fed += len - fed < chunk ? len - fed : chunk;
	}
	free(zero);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *p = malloc(size ? size : 1);     /* exact: ASan sees past */
	struct wl_idx_info info, less;
	struct mem m = { p, size };
	uint64_t off, content, bin_end;
	enum wl_tok_dtype dt;
	uint64_t count;
	uint32_t L = size ? 1 + data[size - 1] % 64 : 1;
	int r;

	if (!p)
		abort();
	memcpy(p, data, size);
	r = wl_idx_parse(p, size, UINT64_MAX, &info, &off);
	if (r && (r != -WL_EBADINDEX || off >= (size ? size : 1)))
		abort();
	if (!r) {
		const unsigned isz = wl_tok_dtype_size(info.dtype);

		if (!wl_tok_dtype_is_int(info.dtype) || !isz ||
		    WL_IDX_HEADER + 12 * info.sequences +
		    8 * (info.documents + 1) > size)
			abort();
		bin_end = info.data_off + info.tokens * isz;
		if (wl_idx_parse(p, size, bin_end, &less, &off))
			abort();        /* the .bin it needs is enough */
		/* a byte less cuts the last sequence that has tokens */
		if (info.tokens && (wl_idx_parse(p, size, bin_end - 1, &less,
						 &off) != -WL_EBADINDEX ||
				    less.tokens >= info.tokens))
			abort();
		if (bin_end <= SCAN_MAX) {
			struct wl_tok_file f = {
				.data_off = info.data_off,
				.tokens = info.tokens,
				.dtype = info.dtype,
			};
			uint64_t a, b;

			scan(&f, L, bin_end, bin_end ? bin_end : 1, &a);
			scan(&f, L, bin_end, 1 + data[size - 1] % 97, &b);
			if (a != b || a != wl_tok_windows(info.tokens, L))
				abort();
		}
	}
	r = wl_llmc_header_parse(p, size, &dt, &count);
	if (r != 0 && r != 1 && r != -WL_EBADHDR)
		abort();
	if (r == 1 && dt != WL_TOK_U16 && dt != WL_TOK_U32)
		abort();
	r = wl_zstd_content_size(mem_pread, &m, size, &content, &off);
	if (r != 0 && r != 1 && !(r == -WL_EZSTD && off <= size))
		abort();
	free(p);
	return 0;
}
