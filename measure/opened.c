/*
 * opened.c - what the command had opened when its thread got stuck: the
 * dataset (its folder, and once listed its files and bytes), the
 * filesystem under it, and the machine, for the watchdog's report.
 *
 * DESIGN
 * Threads: the command's thread records (ms_dataset_open,
 * ms_fs_describe) while it works; the watchdog thread reads a copy
 * (ms_opened_get) when it writes the report in that thread's place. One
 * mutex guards the record; it is never held across I/O, so a command
 * thread stuck in the kernel never holds it. The machine's facts are read
 * at ms_opened_get's time, from /proc and /sys only (never the dataset's
 * storage, which may be the one that stalled).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "measure.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ms_opened rec;

void ms_opened_dataset(const char *root, const struct ms_dataset *md)
{
	pthread_mutex_lock(&lock);
	if (root && strcmp(rec.path, root)) {
		/* another folder: what was known of the last one is not its */
		memset(&rec, 0, sizeof(rec));
		snprintf(rec.path, sizeof(rec.path), "%s", root);
	}
	rec.set = true;
	if (md && md->ds) {
		rec.listed = true;
		rec.generated = md->gen_dir[0] != '\0';
		rec.files = stg_dataset_count(md->ds);
		rec.bytes = stg_dataset_total_bytes(md->ds);
		snprintf(rec.format, sizeof(rec.format), "%s",
			 wl_format_name(md->format));
	}
	pthread_mutex_unlock(&lock);
}

void ms_opened_fs(const char *root, const char *fs_type, const char *dev)
{
	pthread_mutex_lock(&lock);
	if (!rec.set || !strcmp(rec.path, root)) {
		if (!rec.set)
			snprintf(rec.path, sizeof(rec.path), "%s", root);
		rec.set = true;
		snprintf(rec.fs_type, sizeof(rec.fs_type), "%s", fs_type);
		snprintf(rec.device, sizeof(rec.device), "%s", dev);
	}
	pthread_mutex_unlock(&lock);
}

void ms_opened_get(struct ms_opened *out)
{
	pthread_mutex_lock(&lock);
	*out = rec;
	pthread_mutex_unlock(&lock);
	memset(&out->cpu, 0, sizeof(out->cpu));
	memset(&out->mem, 0, sizeof(out->mem));
	out->cpu.vcpu_kind = STG_VCPU_UNKNOWN;
	out->mem.cgroup_limit_bytes = -1;
	out->machine = stg_detect_cpu(0, &out->cpu) == 0;
	if (stg_detect_mem(&out->mem))
		out->mem.total_bytes = 0;
}

void ms_opened_reset(void)
{
	pthread_mutex_lock(&lock);
	memset(&rec, 0, sizeof(rec));
	pthread_mutex_unlock(&lock);
}
