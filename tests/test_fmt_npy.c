/*
 * test_fmt_npy.c - the .npy / .npz row of the format table: what it
 * states, which files it claims, detection by it, and its writer read
 * back by its reader (header, STORED zip members, zip64 records). numpy's
 * own files are test_volumes.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "fmt_npy.h"
#include "formats.h"
#include "harness.h"
#include "shardset.h"

static uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const uint8_t *p)
{
	return rd16(p) | rd16(p + 2) << 16;
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void touch(const char *dir, const char *name, const void *b, size_t n)
{
	char *p;
	int fd;

	cr_assert_geq(asprintf(&p, "%s/%s", dir, name), 0);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "%s", p);
	cr_assert_eq(write(fd, b, n), (ssize_t)n);
	close(fd);
	free(p);
}

/* A .npy of u8 (2, 3, 4), values 0..23, into B (WL_NPY_HEADER_MAX + 24
 * bytes); returns its length. */
static size_t tiny_npy(uint8_t *b)
{
	static const uint64_t shape[3] = { 2, 3, 4 };
	const size_t h = wl_npy_header(b, "|u1", shape, 3);

	for (unsigned i = 0; i < 24; i++)
		b[h + i] = (uint8_t)i;
	return h + 24;
}

FR_TEST(fmt_npy, the_row_states_a_file_per_sample_and_claims_npy_and_npz)
{
	const struct wl_format_row *row = wl_format_row(WL_FORMAT_NPY);
	enum wl_format f;

	cr_assert_not_null(row);
	cr_expect_str_eq(row->name, "npy");
	cr_expect(wl_format_can(WL_FORMAT_NPY, WL_CAP_DETECT | WL_CAP_FILES |
				WL_CAP_WRITE_FILES));
	/* no shard to open, count or cut; not the shard writer's */
	cr_expect(!wl_format_can(WL_FORMAT_NPY, WL_CAP_COUNT));
	cr_expect(!wl_format_can(WL_FORMAT_NPY, WL_CAP_SCAN));
	cr_expect(!wl_format_can(WL_FORMAT_NPY, WL_CAP_WRITE));
	cr_expect_null(row->layout, "gen --format does not offer it");
	cr_assert_eq(wl_format_parse("npy", &f), 0);
	cr_expect_eq(f, WL_FORMAT_NPY);
	/* of the other rows only the folder is a file per sample */
	for (int i = 0; i < WL_FORMAT_COUNT; i++)
		cr_expect_eq(wl_format_can((enum wl_format)i, WL_CAP_FILES),
			     i == WL_FORMAT_FOLDER || i == WL_FORMAT_NPY,
			     "%s", wl_format_name((enum wl_format)i));

	cr_expect_eq(wl_format_claims("case_00001_x.npy"), WL_FORMAT_NPY);
	cr_expect_eq(wl_format_claims("IMG_1_OF_2.NPZ"), WL_FORMAT_NPY);
	cr_expect_eq(wl_format_claims(".img_1.npz.tmp"), WL_FORMAT_AUTO);
	cr_expect_eq(wl_format_claims("a.jpg"), WL_FORMAT_AUTO);
	cr_expect_eq(wl_format_claims("npy"), WL_FORMAT_AUTO);
	cr_expect_eq(wl_format_claims(NULL), WL_FORMAT_AUTO);
}

FR_TEST(fmt_npy, a_folder_of_npy_and_npz_files_is_detected_as_npy)
{
	char *dir = fr_test_tmpdir(), *mixed;
	uint8_t b[WL_NPY_HEADER_MAX + 24];
	const size_t n = tiny_npy(b);
	enum wl_format f = WL_FORMAT_AUTO;
	char why[256];

	touch(dir, "a.npy", b, n);
	touch(dir, "b.npy", b, n);
	touch(dir, "c.npz", "PK\3\4", 4);
	cr_assert_eq(wl_format_detect(dir, &f, why, sizeof(why)), 0);
	cr_expect_eq(f, WL_FORMAT_NPY, "%s: %s", wl_format_name(f), why);
	cr_expect_str_eq(why, "3 npy files at the top");

	/* beside images they stay a folder's files */
	cr_assert_geq(asprintf(&mixed, "%s/mixed", dir), 0);
	cr_assert_eq(mkdir(mixed, 0755), 0);
	touch(mixed, "a.npy", b, n);
	touch(mixed, "d.jpg", "\xff\xd8\xff", 3);
	cr_assert_eq(wl_format_detect(mixed, &f, why, sizeof(why)), 0);
	cr_expect_eq(f, WL_FORMAT_FOLDER, "%s: %s", wl_format_name(f), why);
	free(mixed);
	fr_test_rmtree(dir);
}

FR_TEST(fmt_npy, info_names_an_npy_set_and_counts_no_shards,
	.timeout = 120)
{
	char *dir = fr_test_tmpdir(), *ds, *json;
	uint8_t b[WL_NPY_HEADER_MAX + 24];
	const size_t n = tiny_npy(b);
	json_error_t je;
	json_t *j, *d;

	cr_assert_geq(asprintf(&ds, "%s/ds", dir), 0);
	cr_assert_geq(asprintf(&json, "%s/info.json", dir), 0);
	cr_assert_eq(mkdir(ds, 0755), 0);
	touch(ds, "case_00000_x.npy", b, n);
	touch(ds, "case_00001_x.npy", b, n);
	{
		char *argv[] = { (char *)fr_test_bin(), "info",
				 "--steal-interval", "0", "--json", json, ds,
				 NULL };

		cr_assert_eq(fr_test_run(dir, argv, 100), 0);
	}
	j = json_load_file(json, 0, &je);
	cr_assert_not_null(j, "%s", je.text);
	d = json_object_get(j, "dataset");
	cr_assert_not_null(d);
	cr_expect_str_eq(json_string_value(json_object_get(d, "format")),
			 "npy");
	cr_expect_str_eq(json_string_value(json_object_get(d,
				"format_basis")), "2 npy files at the top");
	cr_expect_null(json_object_get(d, "shards"), "nothing to count");
	json_decref(j);
	free(json);
	free(ds);
	fr_test_rmtree(dir);
}

FR_TEST(fmt_npy, the_written_header_parses_back_for_every_shape_and_dtype)
{
	static const struct {
		const char *descr;
		enum aug_vol_dtype dt;
		unsigned size;
	} dts[] = {
		{ "|u1", AUG_VOL_U8, 1 }, { "|i1", AUG_VOL_I8, 1 },
		{ "<i2", AUG_VOL_I16, 2 }, { "<u2", AUG_VOL_U16, 2 },
		{ "<f4", AUG_VOL_F32, 4 },
	};
	static const uint64_t shapes[][8] = {
		{ 7 }, { 0, 3 }, { 128, 256, 256 }, { 1, 2, 3, 4 },
		{ 12345678901ull, 1, 1, 1, 1, 1, 1, 9 },
		/* the longest header: 20-digit sides after a 1-digit one
		 * (more elements than the reader takes: NPY_SHAPE) */
		{ 1, 10000000000000000000ull, 10000000000000000000ull,
		  10000000000000000000ull, 10000000000000000000ull,
		  10000000000000000000ull, 10000000000000000000ull,
		  10000000000000000000ull },
	};
	static const unsigned nds[] = { 1, 2, 3, 4, 8, 8 };
	const size_t longest = 5;

	for (size_t d = 0; d < sizeof(dts) / sizeof(dts[0]); d++)
		for (size_t s = 0; s < sizeof(nds) / sizeof(nds[0]); s++) {
			uint8_t b[WL_NPY_HEADER_MAX];
			const size_t h = wl_npy_header(b, dts[d].descr,
						       shapes[s], nds[s]);
			struct wl_npy npy;
			struct wl_vol_err e;
			int rc;

			cr_assert_leq(h, sizeof(b));
			cr_expect_eq(h % 64, 0u, "numpy aligns to 64");
			cr_expect_eq(b[h - 1], '\n');
			/* the data is not there: parsed, then found short
			 * unless the array is empty */
			rc = wl_npy_parse(b, h, &npy, &e);
			if (s == longest) {
				cr_expect_eq(h, 256u);
				cr_expect_eq(e.fault, WL_VF_NPY_SHAPE);
				continue;
			}
			if (rc) {
				cr_expect_eq(rc, -AUG_ETRUNCATED, "%s nd %u",
					     dts[d].descr, nds[s]);
				cr_expect_eq(e.fault, WL_VF_NPY_SHORT);
				continue;
			}
			cr_expect_eq(npy.dtype, dts[d].dt);
			cr_expect_eq(npy.itemsize, dts[d].size);
			cr_expect_eq(npy.ndim, nds[s]);
			cr_expect_eq(npy.data_off, h);
			cr_expect_eq(memcmp(npy.shape, shapes[s],
					    nds[s] * sizeof(uint64_t)), 0);
			cr_expect_eq(npy.data_bytes, 0u);
		}
	/* with its data: the shape and the bytes come back */
	{
		uint8_t b[WL_NPY_HEADER_MAX + 24];
		const size_t n = tiny_npy(b);
		struct wl_npy npy;

		cr_assert_eq(wl_npy_parse(b, n, &npy, NULL), 0);
		cr_expect(npy.shape[0] == 2 && npy.shape[1] == 3 &&
			  npy.shape[2] == 4 && npy.data_bytes == 24);
		cr_expect_eq(b[npy.data_off + 23], 23);
	}
}

/* A STORED zip of members x.npy and y.npy (the .npy of tiny_npy, y's
 * values + 100) written with the row's writer, into a malloc'd buffer. */
static uint8_t *write_npz(size_t *len)
{
	uint8_t npy[2][WL_NPY_HEADER_MAX + 24], *z = malloc(4096), *p;
	const char *names[2] = { "x.npy", "y.npy" };
	uint64_t off[2], size;
	uint32_t crc[2];
	uint64_t cd_off;
	size_t cd_len = 0;

	cr_assert_not_null(z);
	size = tiny_npy(npy[0]);
	tiny_npy(npy[1]);
	for (unsigned i = 0; i < 24; i++)
		npy[1][size - 24 + i] += 100;
	p = z;
	for (unsigned m = 0; m < 2; m++) {
		off[m] = (uint64_t)(p - z);
		p += wl_zip_local(p, names[m], 5, size);
		memcpy(p, npy[m], size);
		p += size;
		crc[m] = wl_zip_crc32(0, npy[m], size);
		/* the CRC is known after the bytes: patched in */
		z[off[m] + WL_ZIP_LOCAL_CRC_AT] = (uint8_t)crc[m];
		z[off[m] + WL_ZIP_LOCAL_CRC_AT + 1] = (uint8_t)(crc[m] >> 8);
		z[off[m] + WL_ZIP_LOCAL_CRC_AT + 2] = (uint8_t)(crc[m] >> 16);
		z[off[m] + WL_ZIP_LOCAL_CRC_AT + 3] = (uint8_t)(crc[m] >> 24);
	}
	cd_off = (uint64_t)(p - z);
	for (unsigned m = 0; m < 2; m++) {
		const size_t k = wl_zip_central(p, names[m], 5, crc[m], size,
						off[m]);

		cr_expect_eq(k, wl_zip_central_len(5, size, off[m]));
		p += k;
		cd_len += k;
	}
	p += wl_zip_end(p, 2, cd_off, cd_len);
	*len = (size_t)(p - z);
	cr_assert_leq(*len, 4096u);
	return z;
}

FR_TEST(fmt_npy, a_written_npz_is_found_and_opened_member_by_member)
{
	size_t len;
	uint8_t *z = write_npz(&len);
	struct wl_vol_reader *r;
	struct wl_vol_array a;
	struct wl_zip_member m;
	struct wl_vol_err e;

	cr_assert_eq(wl_vol_reader_create(0, &r), 0);
	cr_assert_eq(wl_zip_find(z, len, "y", &m, &e), 0, "%s at %llu",
		     wl_vol_fault_name(e.fault), (unsigned long long)e.off);
	cr_expect_eq(m.method, 0);
	cr_expect_eq(m.name_len, 5u);
	cr_expect_eq(memcmp(m.name, "y.npy", 5), 0);
	/* the local header's zip64 extra, as zipfile's force_zip64 writes */
	cr_expect_eq(rd16(z + m.header_off + 28), 20u);
	cr_expect_eq(rd16(z + m.header_off + 30 + 5), 1u);
	cr_expect_eq(rd64(z + m.header_off + 30 + 5 + 4), m.usize);

	cr_assert_eq(wl_vol_open(r, z, len, NULL, &a, &e), 0, "%s",
		     wl_vol_fault_name(e.fault));
	cr_expect_eq(a.inflated, 0u, "STORED: read in place");
	cr_expect(a.arr.dims[0] == 2 && a.arr.dims[1] == 3 &&
		  a.arr.dims[2] == 4);
	cr_expect_eq(a.arr.dtype, AUG_VOL_U8);
	cr_expect_eq(a.arr.data[5], 5);
	cr_assert_eq(wl_vol_open(r, z, len, "y", &a, &e), 0);
	cr_expect_eq(a.arr.data[5], 105);

	/* a flipped byte in a member: its CRC no longer matches */
	z[m.data_off + m.usize - 1] ^= 1;
	cr_expect_eq(wl_vol_open(r, z, len, "y", &a, &e), -AUG_ECORRUPT);
	cr_expect_eq(e.fault, WL_VF_CRC);
	wl_vol_reader_destroy(r);
	free(z);
}

FR_TEST(fmt_npy, zip64_fields_are_written_past_zipfiles_limit)
{
	const uint64_t big = 3ull << 30, far = 5ull << 30;
	uint8_t c[128], end[WL_ZIP_END_MAX];
	size_t k;

	/* below the limit: plain fields, no extra */
	k = wl_zip_central(c, "x.npy", 5, 0x12345678u, 1000, 2000);
	cr_expect_eq(k, 46u + 5);
	cr_expect_eq(rd32(c + 20), 1000u);
	cr_expect_eq(rd32(c + 42), 2000u);
	cr_expect_eq(rd16(c + 6), 20u);

	/* sizes and offset past it: 0xFFFFFFFF and the zip64 extra holds
	 * usize, csize, offset in that order (APPNOTE 4.5.3) */
	k = wl_zip_central(c, "x.npy", 5, 0x12345678u, big, far);
	cr_expect_eq(k, wl_zip_central_len(5, big, far));
	cr_expect_eq(k, 46u + 5 + 4 + 24);
	cr_expect_eq(rd32(c + 16), 0x12345678u);
	cr_expect_eq(rd32(c + 20), 0xffffffffu);
	cr_expect_eq(rd32(c + 24), 0xffffffffu);
	cr_expect_eq(rd32(c + 42), 0xffffffffu);
	cr_expect_eq(rd16(c + 6), 45u);
	cr_expect_eq(rd16(c + 51), 1u);
	cr_expect_eq(rd16(c + 53), 24u);
	cr_expect_eq(rd64(c + 55), big);
	cr_expect_eq(rd64(c + 63), big);
	cr_expect_eq(rd64(c + 71), far);
	/* only the offset past it: 8 bytes of extra */
	cr_expect_eq(wl_zip_central_len(5, 1000, far), 46u + 5 + 4 + 8);

	/* end records: the zip64 pair only when the directory is far */
	cr_expect_eq(wl_zip_end(end, 2, 4000, 102), 22u);
	cr_expect_eq(rd32(end), 0x06054b50u);
	cr_expect_eq(rd32(end + 16), 4000u);
	cr_expect_eq(wl_zip_end(end, 2, far, 102), 56u + 20 + 22);
	cr_expect_eq(rd32(end), 0x06064b50u);
	cr_expect_eq(rd64(end + 48), far);
	cr_expect_eq(rd32(end + 56), 0x07064b50u);
	cr_expect_eq(rd64(end + 64), far + 102);
	cr_expect_eq(rd32(end + 76), 0x06054b50u);
	cr_expect_eq(rd32(end + 76 + 16), 0xffffffffu);
}
