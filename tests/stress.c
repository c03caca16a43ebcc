/*
 * stress.c - the threaded stress driver. Criterion crashes under
 * ThreadSanitizer, so multi-threaded paths are exercised here, by plain C
 * that prints "N passed, N failed" as its last line. STRESS_ONLY=NAME
 * runs one scenario (storage, pipeline, augment, shards).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	const char *only = getenv("STRESS_ONLY");
	int passed = 0, failed = 0;

	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		int f;

		if (only && *only && strcmp(only, scenarios[i].name))
			continue;

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
