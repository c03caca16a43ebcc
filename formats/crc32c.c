/*
 * crc32c.c - CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the
 * checksum of TFRecord framing.
 *
 * SSE4.2's crc32 instruction computes exactly this polynomial, 8 bytes an
 * instruction; CPUs without it use a byte-at-a-time table (built once,
 * 1 KiB). Debian's libisal-dev has a faster vectorised CRC but ships no
 * static archive, so it cannot go into `make static`.
 *
 * DESIGN (threads). wl_crc32c runs on any thread at once: the engine's
 * workers verify record CRCs while its readers' scanners check length
 * CRCs, and gen's writer threads frame records. The only shared state is
 * set once and read-only after: the table, built under pthread_once
 * (table_once orders its writes before every reader's loads), and
 * have_sse42, a relaxed _Atomic int that every thread may store (each
 * stores the same CPUID answer; -1 only means "not asked yet").
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "formats.h"

static uint32_t table[256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static _Atomic int have_sse42 = -1;   /* -1: not asked yet */

static void table_build(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		table[i] = c;
	}
}

static uint32_t crc_table(uint32_t c, const uint8_t *p, size_t len)
{
	pthread_once(&table_once, table_build);
	while (len--)
		c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t c, const uint8_t *p, size_t len)
{
	uint64_t c64;

	while (len && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi(c, *p++);
		len--;
	}
	c64 = c;
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c64 = __builtin_ia32_crc32di(c64, v);
		p += 8;
		len -= 8;
	}
	c = (uint32_t)c64;
	while (len--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}
#endif

uint32_t wl_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t c = ~crc;

#if defined(__x86_64__)
	int hw = atomic_load_explicit(&have_sse42, memory_order_relaxed);

	if (hw < 0) {
		__builtin_cpu_init();
		hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
		atomic_store_explicit(&have_sse42, hw, memory_order_relaxed);
	}
	if (hw)
		return ~crc_hw(c, p, len);
#endif
	return ~crc_table(c, p, len);
}
