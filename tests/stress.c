/*
 * stress.c - the threaded stress driver. Criterion crashes under
 * ThreadSanitizer, so multi-threaded paths are exercised here, by plain C
 * that prints "N passed, N failed" as its last line.
 */
#include <stdio.h>

#include "stress.h"

static const struct {
	const char *name;
	int (*fn)(void);
} scenarios[] = {
	{ "storage", stress_storage },
	{ "pipeline", stress_pipeline },
	{ "augment", stress_augment },
	{ "shards", stress_shards },
};

int main(void)
{
	int passed = 0, failed = 0;

	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		int f;

		printf("stress: %s\n", scenarios[i].name);
		fflush(stdout);
		f = scenarios[i].fn();
		if (f)
			failed++;
		else
			passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
