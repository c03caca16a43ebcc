/*
 * test_backend_uring_open.c - when the io_uring backend stops opening
 * files with openat() on its own thread and opens them through the ring:
 * the rule (stg_uring_open_slow) on injected latencies, never on this
 * machine's own openat() speed. The real switch on an s3fs mount is in
 * test_storage_real_slow.c.
 */
#include <stdint.h>

#include "harness.h"
#include "reader_internal.h"

#define WINDOW STG_URING_OPEN_WINDOW
#define SLOW STG_URING_OPEN_SLOW_NS

struct open_case {
	const char *name;
	unsigned opens;
	uint64_t open_ns;       /* all the window's opens together */
	bool ring;
};

static const struct open_case open_cases[] = {
	{ "a local disk: 5 us each", WINDOW, WINDOW * 5000ull, false },
	{ "just below the mean: 1 ns short in all", WINDOW,
	  WINDOW * SLOW - 1, false },
	{ "at the mean", WINDOW, WINDOW * SLOW, true },
	{ "just above the mean", WINDOW, WINDOW * SLOW + 1, true },
	{ "s3fs: 2 ms each", WINDOW, WINDOW * 2000000ull, true },
	{ "one slow open among fast ones, mean above", WINDOW,
	  (WINDOW - 1) * 1000ull + WINDOW * SLOW, true },
	{ "window not full, however slow", WINDOW - 1,
	  (WINDOW - 1) * 1000000000ull, false },
	{ "window not full, one open", 1, 1000000000ull, false },
	{ "no open yet", 0, 0, false },
	{ "a fuller window is judged the same: below", 2 * WINDOW,
	  2 * WINDOW * SLOW - 1, false },
	{ "a fuller window is judged the same: at", 2 * WINDOW,
	  2 * WINDOW * SLOW, true },
};

FR_TEST(backend_uring_open, ring_opens_once_a_full_window_averaged_the_threshold)
{
	for (size_t i = 0; i < sizeof(open_cases) / sizeof(open_cases[0]);
	     i++) {
		const struct open_case *c = &open_cases[i];

		cr_expect_eq(stg_uring_open_slow(c->opens, c->open_ns), c->ring,
			     "%s: %u opens in %llu ns gave %s", c->name,
			     c->opens, (unsigned long long)c->open_ns,
			     c->ring ? "openat" : "ring opens");
	}
}
