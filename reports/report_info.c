/*
 * report_info.c - the report of `feedrate info`: what feedrate detects
 * about this machine (CPUs, quotas, SMT, NUMA, steal, RAM, GPUs, io_uring)
 * and about the storage under a path (filesystem, mount, block device and
 * its model, and on request how the page cache behaves there), as text
 * and as JSON. Reads struct rpt_info only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "shardset.h"
#include "rpt_json.h"

#define LABEL_W 18
#define LINE_W 80

/* ---- text output ---- */

/* ---- text output ---- */

/* "label   value", the value wrapped at spaces to LINE_W columns. */
static void kv(FILE *f, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void kv(FILE *f, const char *label, const char *fmt, ...)
{
	char val[2048];
	const char *p = val;
	bool first = true;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	do {
		size_t room = LINE_W - 2 - LABEL_W, n = strlen(p);

		if (n > room) {
			size_t cut = room;

			while (cut > room / 2 && p[cut] != ' ')
				cut--;
			n = p[cut] == ' ' ? cut : room;
		}
		fprintf(f, "  %-*s%.*s\n", LABEL_W, first ? label : "", (int)n, p);
		first = false;
		p += n;
		while (*p == ' ')
			p++;
	} while (*p);
}

static void human_bytes(char *buf, size_t cap, double b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (b >= 1024 && u < 4) {
		b /= 1024;
		u++;
	}
	snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

/* A user-visible text, escaped; "" stays "". Caller frees. */
static char *text(const char *s)
{
	char *t = rpt_path_text(s, strlen(s));

	return t ? t : strdup("?");
}

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

/* RAM, the cgroup memory limit and the GPUs. */
static void print_memory_gpus(FILE *f, const struct rpt_info *in)
{
	char a[32], b[32], *t, *u;

	if (in->mem.total_bytes >= 0) {
		human_bytes(a, sizeof(a), (double)in->mem.total_bytes);
		human_bytes(b, sizeof(b), (double)in->mem.available_bytes);
		if (in->mem.available_bytes >= 0)
			kv(f, "RAM", "%s (%s available)", a, b);
		else
			kv(f, "RAM", "%s", a);
	} else {
		kv(f, "RAM", "unknown");
	}
	if (in->mem.cgroup_limit_bytes >= 0) {
		human_bytes(a, sizeof(a), (double)in->mem.cgroup_limit_bytes);
		t = text(in->mem.cgroup_source);
		kv(f, "cgroup memory", "limit %s (from %s)", a, t);
		free(t);
	} else {
		kv(f, "cgroup memory", "no limit found");
	}
	if (!in->gpus.count) {
		kv(f, "GPUs", "no NVIDIA GPU found");
	} else {
		t = text(in->gpus.driver);
		kv(f, "GPUs", "%d NVIDIA GPU%s%s%s", in->gpus.count,
		   in->gpus.count == 1 ? "" : "s", *t ? ", driver " : "", t);
		free(t);
		for (int i = 0; i < in->gpus.count && i < STG_MAX_GPUS; i++) {
			t = text(in->gpus.gpu[i].model);
			u = text(in->gpus.gpu[i].bus);
			kv(f, "", "%s at %s", or_unknown(t), u);
			free(t);
			free(u);
		}
	}
}

static void print_machine(FILE *f, const struct rpt_info *in)
{
	const struct stg_cpu_info *c = &in->cpu;
	char *t, *u;

	fprintf(f, "Machine\n");
	t = text(in->dmi.product_name);
	u = text(in->dmi.sys_vendor);
	if (*u)
		kv(f, "product", "%s (%s)", or_unknown(t), u);
	else
		kv(f, "product", "%s", or_unknown(t));
	free(t);
	free(u);
	t = text(c->model);
	kv(f, "CPU model", "%s", or_unknown(t));
	free(t);
	if (c->quota_cpus > 0) {
		t = text(c->quota_source);
		kv(f, "usable vCPUs", "%.2f (affinity mask %d, cgroup quota %.2f "
		   "from %s)", c->usable_cpus, c->affinity_cpus, c->quota_cpus,
		   t);
		free(t);
	} else {
		kv(f, "usable vCPUs", "%.0f (affinity mask %d, no cgroup CPU "
		   "quota)", c->usable_cpus, c->affinity_cpus);
	}
	if (c->online_cpus > 0)
		kv(f, "online CPUs", "%d", c->online_cpus);
	if (c->cores > 0)
		kv(f, "SMT", "%d cores x %d thread%s per core", c->cores,
		   c->threads_per_core, c->threads_per_core == 1 ? "" : "s");
	else
		kv(f, "SMT", "unknown");
	{
		char kind[96];

		rpt_vcpu_kind_text(kind, sizeof(kind), c->vcpu_kind,
				   c->threads_per_core);
		kv(f, "vCPU kind", "%s", kind);
	}
	if (c->numa_nodes > 0)
		kv(f, "NUMA nodes", "%d", c->numa_nodes);
	else
		kv(f, "NUMA nodes", "unknown");
	if (c->steal_pct_interval >= 0 && c->steal_pct_boot >= 0)
		kv(f, "steal time", "%.1f %% over %.1f s, %.1f %% since boot%s",
		   c->steal_pct_interval, c->steal_interval_s,
		   c->steal_pct_boot, c->steal_pct_interval >= 5 ?
		   " (noisy neighbours)" : "");
	else if (c->steal_pct_boot >= 0)
		kv(f, "steal time", "%.1f %% since boot", c->steal_pct_boot);
	else
		kv(f, "steal time", "unknown");
	print_memory_gpus(f, in);
	kv(f, "io_uring", "%s", in->uring_why[0] ? in->uring_why :
	   in->uring_err ? "not available" : "available");
}

static void print_storage(FILE *f, const struct rpt_info *in)
{
	const struct stg_fs_info *fs = &in->fs;
	const struct stg_blockdev *bd = &fs->blockdev;
	char *t, *u;

	t = text(in->path);
	fprintf(f, "\nStorage under %s\n", t);
	free(t);
	if (in->fs_err) {
		kv(f, "error", "%s", strerror(-in->fs_err));
		return;
	}
	t = text(fs->path);
	kv(f, "path", "%s", t);
	free(t);
	if (fs->have_mount && strcmp(fs->mount.fstype, fs->fs_family))
		kv(f, "filesystem", "%s (statfs: %s)", fs->mount.fstype,
		   fs->fs_family);
	else
		kv(f, "filesystem", "%s", fs->fs_family);
	if (fs->have_mount) {
		t = text(fs->mount.mount_point);
		u = text(fs->mount.source);
		kv(f, "mount", "%s from %s", t, u);
		free(t);
		free(u);
		t = text(fs->mount.options);
		kv(f, "mount options", "%s", t);
		free(t);
		if (fs->server[0]) {
			t = text(fs->server_host[0] ? fs->server_host :
				 fs->server);
			u = text(fs->server);
			kv(f, "server", "%s%s%s%s", t, fs->server_host[0] ?
			   " (source " : "", fs->server_host[0] ? u : "",
			   fs->server_host[0] ? ")" : "");
			free(t);
			free(u);
		}
	} else {
		kv(f, "mount", "not found in /proc/self/mountinfo");
	}
	kv(f, "kind", "%s%s", fs->network ? "network or FUSE filesystem" :
	   "local filesystem", fs->page_cache_volatile ?
	   "; memory-backed: nothing can be cold" : "");
	if (fs->have_blockdev) {
		char part[96] = "";

		if (bd->partition[0])
			snprintf(part, sizeof(part), ", partition %s",
				 bd->partition);
		kv(f, "block device", "%s (%u:%u%s)%s%s", bd->name, bd->major,
		   bd->minor, part, bd->via[0] ? " under " : "", bd->via);
		t = text(bd->model);
		u = text(bd->vendor);
		kv(f, "device model", "%s%s%s%s", or_unknown(t), *u ? " (" : "",
		   u, *u ? ")" : "");
		free(t);
		free(u);
		if (bd->backing_file[0]) {
			t = text(bd->backing_file);
			kv(f, "loop backing", "%s", t);
			free(t);
		}
		/* virtio and some hypervisors' disks keep the kernel's
		 * default of 1: say what the flag is, not what it means */
		kv(f, "rotational", "%s", bd->rotational < 0 ? "unknown" :
		   bd->rotational ? "yes (kernel flag; virtual disks often "
		   "misreport it)" : "no");
		if (bd->nr_requests > 0)
			kv(f, "queue", "%d requests", bd->nr_requests);
	} else {
		kv(f, "block device", "none (%s)", fs->network ?
		   "network or FUSE" : "virtual or not found");
	}
	if (!in->probed)
		return;
	if (in->probe_err) {
		kv(f, "page cache", "not probed: %s", strerror(-in->probe_err));
		return;
	}
	t = text(in->probe_file);
	kv(f, "page cache", "probed on %s", t);
	free(t);
	kv(f, "eviction", "%s", stg_evict_result_text(in->probe.evict));
	kv(f, "warming", "%s", stg_warm_result_text(in->probe.warm));
}

/* Whether IN's format is one of shards, counted at open (its row says
 * so; a folder's or an .npy set's file is a sample: nothing to count). */
static bool has_shards(const struct rpt_info *in)
{
	enum wl_format f;

	return !wl_format_parse(in->format, &f) && !wl_format_can(f,
								 WL_CAP_FILES);
}

static void print_dataset(FILE *f, const struct rpt_info *in)
{
	char *t;

	if (!in->format[0])
		return;
	fprintf(f, "\nDataset\n");
	kv(f, "format", "%s (%s)", in->format, in->format_why);
	if (!has_shards(in))
		return;
	if (in->ds_err) {
		kv(f, "error", "%s", in->ds_why[0] ? in->ds_why :
		   strerror(-in->ds_err));
		return;
	}
	kv(f, "shards", "%llu (%llu zstd-compressed), %.1f MB",
	   (unsigned long long)in->shards,
	   (unsigned long long)in->compressed_shards, in->shard_bytes / 1e6);
	if (in->by_source[WL_COUNT_ESTIMATED])
		kv(f, "records", "about %llu, estimated in %.2f s: %llu of "
		   "%llu shards by %llu walked shards' records per byte "
		   "(`run` counts them all)", (unsigned long long)in->records,
		   in->count_s,
		   (unsigned long long)in->by_source[WL_COUNT_ESTIMATED],
		   (unsigned long long)in->shards,
		   (unsigned long long)in->by_source[WL_COUNT_SCANNED]);
	else
		kv(f, "records", "%llu, counted in %.2f s", (unsigned long long)
		   in->records, in->count_s);
	kv(f, "counted by", "index %llu, cache %llu, walk %llu, estimate "
	   "%llu (shards)", (unsigned long long)in->by_source[WL_COUNT_INDEX],
	   (unsigned long long)in->by_source[WL_COUNT_CACHE],
	   (unsigned long long)in->by_source[WL_COUNT_SCANNED],
	   (unsigned long long)in->by_source[WL_COUNT_ESTIMATED]);
	if (in->count_warnings) {
		t = text(in->count_warning);
		kv(f, "count warning", "%u (e.g. %s)", in->count_warnings, t);
		free(t);
	}
	for (unsigned i = 0; i < in->ds_nerr; i++) {
		t = text(in->ds_err_kinds[i].example);
		kv(f, "problem", "%s: %llu (e.g. %s)", in->ds_err_kinds[i].kind,
		   (unsigned long long)in->ds_err_kinds[i].count, t);
		free(t);
	}
}

/* ---- JSON output ---- */

static json_t *jint(int64_t v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

/* Strings from outside (sysfs, mountinfo) may hold any bytes. */
static json_t *jstr(const char *s)
{
	json_t *j = rpt_json_path(s);

	return j ? j : json_null();
}

static json_t *machine_json(const struct rpt_info *in)
{
	const struct stg_cpu_info *c = &in->cpu;
	json_t *gl = json_array();

	for (int i = 0; i < in->gpus.count && i < STG_MAX_GPUS; i++)
		json_array_append_new(gl, json_pack("{s:o,s:o}",
			"model", jstr(in->gpus.gpu[i].model),
			"bus", jstr(in->gpus.gpu[i].bus)));
	return json_pack("{s:o,s:o,s:{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s,"
			 "s:o,s:o,s:o,s:o},s:{s:o,s:o,s:o,s:o},s:{s:i,s:o,s:o},"
			 "s:{s:b,s:o}}",
		"product_name", jstr(in->dmi.product_name),
		"sys_vendor", jstr(in->dmi.sys_vendor),
		"cpu",
		"model", jstr(c->model),
		"affinity_cpus", jint(c->affinity_cpus),
		"quota_cpus", rpt_jnum_if(c->quota_cpus, c->quota_cpus > 0),
		"quota_source", jstr(c->quota_source),
		"usable_cpus", rpt_jnum_if(c->usable_cpus, c->usable_cpus > 0),
		"online_cpus", jint(c->online_cpus),
		"cores", jint(c->cores),
		"threads_per_core", jint(c->threads_per_core),
		"vcpu_kind", stg_vcpu_kind_name(c->vcpu_kind),
		"numa_nodes", jint(c->numa_nodes),
		"steal_pct_interval", rpt_jnum_if(c->steal_pct_interval,
					   c->steal_pct_interval >= 0),
		"steal_interval_s", rpt_jnum(c->steal_interval_s),
		"steal_pct_boot", rpt_jnum_if(c->steal_pct_boot, c->steal_pct_boot >= 0),
		"memory",
		"total_bytes", jint(in->mem.total_bytes),
		"available_bytes", jint(in->mem.available_bytes),
		"cgroup_limit_bytes", jint(in->mem.cgroup_limit_bytes),
		"cgroup_source", jstr(in->mem.cgroup_source),
		"gpus",
		"count", in->gpus.count,
		"driver", jstr(in->gpus.driver),
		"list", gl,
		"io_uring",
		"available", in->uring_err == 0,
		"reason", jstr(in->uring_why));
}

static json_t *storage_json(const struct rpt_info *in)
{
	const struct stg_fs_info *fs = &in->fs;
	const struct stg_blockdev *bd = &fs->blockdev;
	json_t *st, *j;

	if (in->fs_err)
		return json_pack("{s:o,s:s}", "path", jstr(in->path),
				 "error", strerror(-in->fs_err));
	st = json_pack("{s:o,s:s,s:I,s:b,s:b}",
		"path", jstr(fs->path),
		"fs_family", fs->fs_family,
		"statfs_magic", (json_int_t)fs->statfs_magic,
		"network", fs->network,
		"page_cache_volatile", fs->page_cache_volatile);
	if (!st)
		return NULL;
	j = fs->have_mount ? json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}",
		"fstype", jstr(fs->mount.fstype),
		"mount_point", jstr(fs->mount.mount_point),
		"source", jstr(fs->mount.source),
		"root", jstr(fs->mount.root),
		"options", jstr(fs->mount.options),
		"major_minor", json_sprintf("%u:%u", fs->mount.major,
					    fs->mount.minor)) : json_null();
	json_object_set_new(st, "mount", j);
	json_object_set_new(st, "server", fs->server[0] ? jstr(fs->server) :
			    json_null());
	json_object_set_new(st, "server_host", fs->server_host[0] ?
			    jstr(fs->server_host) : json_null());
	j = fs->have_blockdev ? json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,"
					  "s:o}",
		"name", jstr(bd->name),
		"major_minor", json_sprintf("%u:%u", bd->major, bd->minor),
		"partition", jstr(bd->partition),
		"model", jstr(bd->model),
		"vendor", jstr(bd->vendor),
		"via", jstr(bd->via),
		"backing_file", jstr(bd->backing_file),
		"rotational", bd->rotational < 0 ? json_null() :
			      json_boolean(bd->rotational),
		"nr_requests", jint(bd->nr_requests)) : json_null();
	json_object_set_new(st, "blockdev", j);
	if (in->probed && !in->probe_err)
		j = json_pack("{s:o,s:s,s:s,s:s,s:s,s:o,s:o,s:o}",
			"file", jstr(in->probe_file),
			"evict", in->probe.evict == STG_EVICT_EFFECTIVE ?
				 "effective" : in->probe.evict ==
				 STG_EVICT_INEFFECTIVE ? "ineffective" :
				 "unknown",
			"evict_text", stg_evict_result_text(in->probe.evict),
			"warm", in->probe.warm == STG_WARM_PERSISTS ? "persists" :
				in->probe.warm == STG_WARM_REFETCH_ON_OPEN ?
				"refetch_on_open" : in->probe.warm ==
				STG_WARM_NOT_CACHED ? "not_cached" : "unknown",
			"warm_text", stg_warm_result_text(in->probe.warm),
			"resident_after_warm",
			rpt_jnum_if(in->probe.resident_after_warm,
			     in->probe.resident_after_warm >= 0),
			"resident_after_reopen",
			rpt_jnum_if(in->probe.resident_after_reopen,
			     in->probe.resident_after_reopen >= 0),
			"resident_after_evict",
			rpt_jnum_if(in->probe.resident_after_evict,
			     in->probe.resident_after_evict >= 0));
	else if (in->probed)
		j = json_pack("{s:s}", "error", strerror(-in->probe_err));
	else
		j = json_null();
	json_object_set_new(st, "cache_probe", j);
	return st;
}

/* ---- the reports ---- */

void rpt_info_print(FILE *f, const struct rpt_info *in)
{
	print_machine(f, in);
	if (in->path)
		print_storage(f, in);
	print_dataset(f, in);
}

static json_t *dataset_json(const struct rpt_info *in)
{
	json_t *d, *errs, *src;

	d = json_pack("{s:s,s:s}", "format", in->format, "format_basis",
		      in->format_why);
	if (!d || !has_shards(in))
		return d;
	if (in->ds_err) {
		json_object_set_new(d, "error", json_string(in->ds_why[0] ?
				    in->ds_why : strerror(-in->ds_err)));
		return d;
	}
	json_object_set_new(d, "shards", json_integer((json_int_t)in->shards));
	json_object_set_new(d, "compressed_shards",
			    json_integer((json_int_t)in->compressed_shards));
	json_object_set_new(d, "bytes",
			    json_integer((json_int_t)in->shard_bytes));
	json_object_set_new(d, "records",
			    json_integer((json_int_t)in->records));
	json_object_set_new(d, "count_s", rpt_jnum(in->count_s));
	json_object_set_new(d, "records_source",
			    json_string(in->records_source ?
					in->records_source : "index"));
	src = json_object();
	for (int i = 0; src && i < WL_COUNT_SOURCES; i++)
		json_object_set_new(src, wl_count_source_name(
			(enum wl_count_source)i),
			json_integer((json_int_t)in->by_source[i]));
	json_object_set_new(d, "records_by_source", src);
	json_object_set_new(d, "count_warnings",
			    json_integer(in->count_warnings));
	json_object_set_new(d, "count_warning", in->count_warnings ?
			    jstr(in->count_warning) : json_null());
	errs = json_array();
	for (unsigned i = 0; errs && i < in->ds_nerr; i++)
		json_array_append_new(errs, json_pack("{s:s,s:I,s:o}", "kind",
			in->ds_err_kinds[i].kind, "count",
			(json_int_t)in->ds_err_kinds[i].count, "example",
			jstr(in->ds_err_kinds[i].example)));
	json_object_set_new(d, "errors", errs);
	return d;
}

json_t *rpt_info_json(const struct rpt_info *in)
{
	json_t *root = json_pack("{s:s,s:o}", "feedrate_version", in->version,
				 "machine", machine_json(in));

	if (root && in->path)
		json_object_set_new(root, "storage", storage_json(in));
	if (root && in->format[0])
		json_object_set_new(root, "dataset", dataset_json(in));
	return root;
}

void rpt_info_fill_shards(struct rpt_info *in, const struct wl_shardset *s)
{
	in->shards = stg_dataset_count(s->ds);
	in->records = s->total;
	in->compressed_shards = s->compressed_shards;
	in->shard_bytes = s->bytes;
	in->count_s = s->count_s;
	in->records_source = wl_count_source_name(s->source);
	for (int i = 0; i < WL_COUNT_SOURCES && i < 4; i++)
		in->by_source[i] = s->by_source[i];
	in->count_warnings = s->count_warnings;
	memcpy(in->count_warning, s->count_warning,
	       sizeof(in->count_warning));
	in->ds_nerr = s->nerr;
	for (unsigned i = 0; i < s->nerr && i < 8; i++) {
		memcpy(in->ds_err_kinds[i].kind, s->err[i].kind,
		       sizeof(in->ds_err_kinds[i].kind));
		in->ds_err_kinds[i].count = s->err[i].count;
		memcpy(in->ds_err_kinds[i].example, s->err[i].example,
		       sizeof(in->ds_err_kinds[i].example));
	}
}
