/*
 * bench_list.c - list a folder tree (or a list file) with the dataset
 * walk, as tests/bench/list/bench_list.sh times it against find(1).
 * Prints "files BYTES" so the script can check both agree.
 *
 *   bench_list DIR            walk DIR
 *   bench_list --list FILE    read a list file (relative to its folder)
 */
#include <stdio.h>
#include <string.h>

#include "storage.h"

int main(int argc, char **argv)
{
	struct stg_dataset *ds;
	uint64_t errors = 0;
	int err;

	if (argc == 3 && !strcmp(argv[1], "--list"))
		err = stg_dataset_load_list(argv[2], NULL, NULL, &ds);
	else if (argc == 2)
		err = stg_dataset_scan(argv[1], NULL, &ds);
	else {
		fprintf(stderr, "usage: bench_list DIR | --list FILE\n");
		return 2;
	}
	if (err) {
		fprintf(stderr, "bench_list: %s\n", strerror(-err));
		return 1;
	}
	for (int k = 0; k < STG_DS_ERR_COUNT; k++)
		errors += stg_dataset_errors(ds, k);
	printf("%zu %llu %llu\n", stg_dataset_count(ds),
	       (unsigned long long)stg_dataset_total_bytes(ds),
	       (unsigned long long)errors);
	stg_dataset_destroy(ds);
	return 0;
}
