/*
 * tokens.h - token streams for LLM pre-training: the element types token
 * files store, the parsers of their headers (Megatron-LM's .idx, llm.c's
 * .bin header, zstd frame headers), the windows a sample is cut as, the
 * tokens transform, and the generator of synthetic token streams.
 *
 * A sample is a window of seq_len + 1 tokens cut the way Megatron's
 * GPTDataset cuts them (megatron/core/datasets/gpt_dataset.py,
 * helpers.cpp build_sample_idx): from one stream of tokens, documents
 * concatenated, sample i covers tokens [i * seq_len, (i + 1) * seq_len]
 * (inclusive), so windows cross document boundaries and consecutive
 * samples share one token (the last input is the next sample's first);
 * a stream of N tokens holds floor((N - 1) / seq_len) samples and the
 * tail is dropped. Here the stream is one file's tokens (a file's windows
 * never reach into another file).
 *
 * Conventions: 0 or a negative code (-WL_E* of formats.h, -errno).
 * Parsers take bytes and lengths and read nothing outside them.
 */
#ifndef FEEDRATE_TOKENS_H
#define FEEDRATE_TOKENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats.h"


/* The sequence length a token dataset is counted with when no workload
 * says one (feedrate info): the tokens workload's. */
#define WL_TOK_DEFAULT_SEQ_LEN 2048u

/* GPT-2's end-of-text token, which nanoGPT's prepare.py and Megatron's
 * --append-eod put after every document. */
#define WL_TOK_EOD 50256u

/*
 * What one token is stored as. 1-8 are Megatron's .idx dtype codes
 * (indexed_dataset.py DType: uint8 1, int8 2, int16 3, int32 4, int64 5,
 * float64 6, float32 7, uint16 8); U32 is llm.c's Llama-3 files', U64
 * and F16 are MDS ndarray dtypes. Little-endian throughout.
 */
enum wl_tok_dtype {
	WL_TOK_NONE = 0,
	WL_TOK_U8 = 1, WL_TOK_I8, WL_TOK_I16, WL_TOK_I32, WL_TOK_I64,
	WL_TOK_F64, WL_TOK_F32, WL_TOK_U16,
	WL_TOK_U32, WL_TOK_U64, WL_TOK_F16,
	WL_TOK_DTYPE_END
};

/* Bytes of one element (0 for NONE or an unknown value). */
unsigned wl_tok_dtype_size(enum wl_tok_dtype t);

/* "u16", "i32", ... ("?" for an unknown value). */
const char *wl_tok_dtype_name(enum wl_tok_dtype t);

/* True for the integer types (token ids); floats are not tokens. */
bool wl_tok_dtype_is_int(enum wl_tok_dtype t);

/* The element type of an MDS ndarray dtype code (8 u8, 9 i8, 16 u16, 17
 * i16, 18 f16, 32 u32, 33 i32, 34 f32, 64 u64, 65 i64, 66 f64; streaming's
 * encodings/tensor.py), NONE for another code. */
enum wl_tok_dtype wl_tok_dtype_of_mds(unsigned code);

/* Samples (windows of SEQ_LEN + 1) in a stream of TOKENS tokens. */
static inline uint64_t wl_tok_windows(uint64_t tokens, uint32_t seq_len)
{
	return tokens && seq_len ? (tokens - 1) / seq_len : 0;
}

/* ---- Megatron-LM indexed datasets: the .idx ---- */

/*
 * The .idx (megatron/core/datasets/indexed_dataset.py _IndexWriter):
 *   "MMIDIDX\0\0" (9) | u64 version = 1 | u8 dtype code | u64 S (sequence
 *   count) | u64 D (document count + 1) | i32 lengths[S] | i64
 *   pointers[S] | i64 document_indices[D]
 * little-endian, unaligned; a multimodal index has i8 modes[S] after.
 */
struct wl_idx_info {
	enum wl_tok_dtype dtype;
	uint64_t sequences;     /* S */
	uint64_t documents;     /* D - 1 */
	uint64_t data_off;      /* pointers[0]: the first token's byte in the
	                           .bin */
	uint64_t tokens;        /* the sum of the lengths; on an error in
	                           the lengths or pointers, of the sequences
	                           before it (the stream still readable) */
};

/* The fixed header's length, and its fields' offsets (for errors). */
#define WL_IDX_HEADER 34u

/*
 * Parse the .idx image P (N bytes) of a .bin of BIN_SIZE bytes
 * (UINT64_MAX: not known). Checks, in file order: the magic, version 1,
 * an integer dtype code, that S and D fit the file, every length >= 0,
 * pointers[0] within the .bin, each sequence starting where the one before
 * it ends (the writer's pointers are the running sum of lengths x item
 * size, and the windows cut the .bin as one stream) and ending within the
 * .bin, document_indices starting at 0, never decreasing and ending at S.
 * Bytes past document_indices (a multimodal index's modes) are ignored.
 * Returns 0, or -WL_EBADINDEX with *ERR_OFF the .idx offset of the first
 * field found wrong (OUT->tokens as said above). Pure: any thread.
 */
int wl_idx_parse(const uint8_t *p, size_t n, uint64_t bin_size,
		 struct wl_idx_info *out, uint64_t *err_off);

/* ---- llm.c's .bin header ---- */

#define WL_LLMC_HEADER 1024u    /* 256 x int32 */
#define WL_LLMC_MAGIC_GPT2 20240520
#define WL_LLMC_MAGIC_LLAMA3 20240801

/*
 * Is H (N bytes, the file's first bytes) llm.c's header (dev/data/
 * data_common.py write_datafile: int32 magic, version, token count, then
 * zeros to 1024 bytes)? Magic 20240520 with version 1 holds uint16 tokens,
 * magic 20240801 with version 7 uint32. Returns 1 with *DTYPE and *COUNT
 * (header[2]) set, 0 when it is not (a flat nanoGPT file: see
 * fmt_tokens.c for the chance of a false match), -WL_EBADHDR for the
 * magic with another version or a negative count.
 */
int wl_llmc_header_parse(const uint8_t *h, size_t n, enum wl_tok_dtype *dtype,
			 uint64_t *count);

/* ---- zstd frames, walked without decompressing ---- */

/*
 * The decompressed size of a file of SIZE bytes of zstd frames (RFC 8878)
 * read through PREAD: each frame's header (its content size field) and
 * its blocks' 3-byte headers are read, skippable frames skipped. Returns
 * 1 with *CONTENT set when every frame records its size, 0 when one does
 * not (a frame written through a pipe: decompress to know), or -WL_EZSTD
 * with *ERR_OFF (the compressed offset) for bytes that are not a frame or
 * a frame cut short; -errno from PREAD.
 */
int wl_zstd_content_size(wl_pread_fn pread, void *arg, uint64_t size,
			 uint64_t *content, uint64_t *err_off);

/* ---- one token file, as the shard set holds it ---- */

/* What the open learnt of a token file (a shard of WL_FORMAT_TOKENS). */
struct wl_tok_file {
	uint64_t data_off;      /* the first token's byte in the (decompressed)
	                           stream: 0, llm.c's 1024, or pointers[0] */
	uint64_t tokens;        /* tokens the windows are cut from: the file's,
	                           or those before an error (UINT64_MAX: not
	                           known yet, while counting) */
	enum wl_tok_dtype dtype;
	int err;                /* an error met past those tokens, 0 none:
	                           the shard's last record fails with it */
	uint64_t err_off;
};

/*
 * Set a scanner (wl_scan_init'ed for WL_FORMAT_TOKENS) to cut windows of
 * SEQ_LEN + 1 tokens of file F: record i is stream bytes [data_off + i x
 * seq_len x size, data_off + ((i + 1) x seq_len + 1) x size); a record
 * starts one token before the one before it ends, and keep_from allows
 * that. With F->tokens known it gives exactly wl_tok_windows(tokens)
 * records, then F->err (at F->err_off) if any, and skips the rest of the
 * stream; unknown, it cuts while whole windows come and ends cleanly at
 * the end of the stream (a tail of fewer tokens is dropped). A window
 * over the scanner's max_record is -WL_EBADHDR.
 */
void wl_tok_scan_setup(struct wl_scanner *s, const struct wl_tok_file *f,
		       uint32_t seq_len);

/* ---- the tokens transform ---- */

#define WL_TOKEN_SPAN_MAGIC 0x6e6b6f74u   /* "tokn" */

/*
 * What the shard set's transform (wl_shardset_transform) hands the tokens
 * transform as a sample's bytes: not the record itself but this span of
 * it, since the conversion needs the element type the record does not
 * carry (the file's .idx or header, the MDS column's encoding say it).
 */
struct wl_token_span {
	uint32_t magic;         /* WL_TOKEN_SPAN_MAGIC */
	enum wl_tok_dtype dtype;
	const uint8_t *data;    /* the tokens, little-endian */
	size_t len;             /* bytes */
};

#endif /* FEEDRATE_TOKENS_H */
