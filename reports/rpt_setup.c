/*
 * rpt_setup.c - the reports' setup (rpt_setup.h): filled once from what a
 * command opened, written once per report form. Plain copies and keys;
 * nothing here measures or decides.
 */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "judge.h"
#include "measure.h"
#include "report.h"
#include "rpt_json.h"
#include "rpt_setup.h"

static const char *nz(const char *s)
{
	return s ? s : "";
}

static void fill_dataset(struct rpt_setup *s, const struct ms_dataset *md,
			 bool keep)
{
	const struct stg_dataset *ds = md->ds;

	s->generated = md->gen_dir[0] != '\0';
	s->kept = s->generated && keep;
	s->files = ds ? stg_dataset_count(ds) : 0;
	s->bytes = ds ? stg_dataset_total_bytes(ds) : 0;
	s->format = wl_format_name(md->shards ||
				   wl_format_can(md->format, WL_CAP_FILES) ?
				   md->format : WL_FORMAT_FOLDER);
	s->records = md->shards ? md->shards->total : s->files;
	s->compressed_shards = md->shards ? md->shards->compressed_shards : 0;
	s->records_source = md->shards ?
		wl_count_source_name(md->shards->source) : "listing";
	s->count_warnings = md->shards ? md->shards->count_warnings : 0;
	s->count_warning = s->count_warnings ? md->shards->count_warning :
			   NULL;
}

static void fill_machine(struct rpt_setup *s, const struct ms_machine *m)
{
	s->fs_type = m->fs_type;
	s->fs_device = m->fs_device;
	s->fs_server = m->fs.server;
	s->fs_network = m->fs.network;
	s->cpu_model = m->cpu.model;
	s->vcpus_total = m->vcpus_usable;
	s->threads_per_core = m->cpu.threads_per_core;
	s->vcpu_kind = m->cpu.vcpu_kind;
	s->ram_total = m->mem.total_bytes > 0 ? (uint64_t)m->mem.total_bytes :
		       0;
	s->ram_available = m->mem.available_bytes > 0 ?
			   (uint64_t)m->mem.available_bytes : 0;
	s->cgroup_limit = m->mem.cgroup_limit_bytes;
	s->instance_type = m->dmi.product_name;
	s->vendor = m->dmi.sys_vendor;
	s->gpus_present = m->gpus.count;
}

static void fill_gpus(struct rpt_setup *s, const struct ms_gpus *gs)
{
	s->gpu_count = gs->count;
	s->gpu_default = gs->default_type;
	s->gpu_type = gs->type;
	s->gpu_detail = gs->detail;
	s->demand_per_gpu = gs->demand;
	s->demand_single = gs->demand_single;
	s->demand_total = gs->demand_total;
	s->demand_multi_measured = gs->demand_multi_measured;
	s->demand_basis = gs->demand_basis;
	s->demand_range_lo = gs->demand_range_lo;
	s->demand_range_hi = gs->demand_range_hi;
	s->demand_kind = gs->demand_kind;
	s->demand_source = gs->demand_source;
	s->demand_est = gs->demand_est;
	s->tokens_per_sample = gs->tokens_per_sample;
}

void rpt_setup_fill(struct rpt_setup *s, const struct rpt_setup_src *in)
{
	memset(s, 0, sizeof(*s));
	s->version = in->version;
	s->cgroup_limit = -1;
	if (in->w) {
		s->workload = in->w->name;
		s->workload_file = in->w->job_file;
		s->au_threshold = in->w->au_threshold;
	}
	s->dataset = in->dataset ? in->dataset : in->md ? in->md->root : NULL;
	if (in->md)
		fill_dataset(s, in->md, in->keep);
	if (in->m)
		fill_machine(s, in->m);
	if (in->gs)
		fill_gpus(s, in->gs);
	s->bytes_per_sample = rpt_bytes_per_sample(s->bytes, s->records);
	s->list = in->list;
	s->backend_asked = in->backend >= 0 ?
		stg_backend_name((enum stg_backend_id)in->backend) : NULL;
	s->depth = in->depth;
	s->cache = in->cache >= 0 ?
		stg_cache_state_name((enum stg_cache_state)in->cache) : NULL;
	s->ram_bytes = in->cache == STG_CACHE_RAM ? in->ram_bytes : 0;
	s->gpu_sync_all = in->gpu_sync_all;
	s->max_errors = in->max_errors;
	s->seed = in->seed;
	s->pipeline = in->pipeline;
}

struct rpt_demand_words rpt_setup_demand_words(const struct rpt_setup *s)
{
	return (struct rpt_demand_words){
		.gpu_type = s->gpu_type, .gpu_detail = s->gpu_detail,
		.count = s->gpu_count, .single = s->demand_single,
		.total = s->demand_total,
		.multi_measured = s->demand_multi_measured,
		.basis = s->demand_basis, .range_lo = s->demand_range_lo,
		.range_hi = s->demand_range_hi, .kind = s->demand_kind,
		.source = s->demand_source, .default_type = s->gpu_default,
		.tokens_per_sample = s->tokens_per_sample,
		.bytes_per_sample = rpt_bytes_per_sample(s->bytes, s->format ?
							 s->records : s->files),
	};
}

/* ---- the keys of each report ---- */

/* Our own words: as they are when valid UTF-8, else escaped as a path. */
static json_t *jtext(const char *s)
{
	json_t *j = json_string(nz(s));

	return j ? j : rpt_json_path(nz(s));
}

/* A path-like text escaped as a path, null when NULL or "". */
static json_t *jpath_or_null(const char *s)
{
	return s && *s ? rpt_json_path(s) : json_null();
}

static uint64_t records_of(const struct rpt_setup *s)
{
	return s->format ? s->records : s->files;
}

static int run_keys(json_t *root, const struct rpt_setup *s)
{
	json_t *ds = json_object(), *g = json_object();

	if (!ds || !g) {
		json_decref(ds);
		json_decref(g);
		return -ENOMEM;
	}
	json_object_set_new(root, "workload", json_string(nz(s->workload)));
	json_object_set_new(root, "workload_file",
			    rpt_json_path(nz(s->workload_file)));
	json_object_set_new(root, "machine", json_pack("{s:s,s:o}",
		"vcpu_kind", stg_vcpu_kind_name(s->vcpu_kind),
		"threads_per_core", s->threads_per_core > 0 ?
		json_integer(s->threads_per_core) : json_null()));
	json_object_set_new(g, "type", json_string(nz(s->gpu_type)));
	json_object_set_new(g, "detail", json_string(nz(s->gpu_detail)));
	json_object_set_new(g, "count", json_integer(s->gpu_count));
	json_object_set_new(g, "demand_per_gpu", rpt_jnum(s->demand_per_gpu));
	json_object_set_new(g, "demand_kind", json_string(nz(s->demand_kind)));
	json_object_set_new(g, "demand_source",
			    json_string(nz(s->demand_source)));
	json_object_set_new(g, "demand_estimated",
			    json_boolean(s->demand_est));
	json_object_set_new(g, "demand_basis",
			    json_string(nz(s->demand_basis)));
	json_object_set_new(g, "demand_single", rpt_jnum(s->demand_single));
	json_object_set_new(g, "demand_total", rpt_jnum(s->demand_total));
	json_object_set_new(g, "demand_multi_measured",
			    json_boolean(s->demand_multi_measured));
	json_object_set_new(g, "demand_range", s->demand_range_lo > 0 ?
			    json_pack("[o,o]", rpt_jnum(s->demand_range_lo),
				      rpt_jnum(s->demand_range_hi)) :
			    json_null());
	json_object_set_new(g, "default_type", json_boolean(s->gpu_default));
	rpt_demand_json_extra(g, s->tokens_per_sample, s->gpu_count ?
			      s->demand_total : s->demand_single,
			      rpt_bytes_per_sample(s->bytes, records_of(s)));
	json_object_set_new(g, "sync", json_string(s->gpu_sync_all ? "all" :
						    "none"));
	json_object_set_new(g, "au_threshold",
			    rpt_jnum(jdg_threshold(s->au_threshold)));
	json_object_set_new(root, "gpus", g);
	json_object_set_new(ds, "path", rpt_json_path(nz(s->dataset)));
	json_object_set_new(ds, "generated", json_boolean(s->generated));
	json_object_set_new(ds, "files", json_integer((json_int_t)s->files));
	json_object_set_new(ds, "format", json_string(s->format ? s->format :
						      "folder"));
	json_object_set_new(ds, "records",
			    json_integer((json_int_t)records_of(s)));
	json_object_set_new(ds, "records_source",
			    json_string(nz(s->records_source)));
	json_object_set_new(ds, "count_warnings",
			    json_integer((json_int_t)s->count_warnings));
	json_object_set_new(ds, "count_warning", s->count_warning ?
			    rpt_json_path(s->count_warning) : json_null());
	json_object_set_new(ds, "compressed_shards",
			    json_integer((json_int_t)s->compressed_shards));
	json_object_set_new(ds, "bytes", json_integer((json_int_t)s->bytes));
	json_object_set_new(ds, "fs_type", json_string(nz(s->fs_type)));
	json_object_set_new(ds, "device", json_string(nz(s->fs_device)));
	json_object_set_new(root, "dataset", ds);
	return 0;
}

static json_t *sweep_gpus(const struct rpt_setup *s)
{
	const double total = s->demand_total > 0 ? s->demand_total :
			     s->demand_per_gpu * s->gpu_count;
	json_t *g = json_pack("{s:s,s:s,s:i,s:o,s:s,s:s,s:b,s:o}",
		"type", nz(s->gpu_type), "detail", nz(s->gpu_detail),
		"count", (int)s->gpu_count,
		"demand_per_gpu", rpt_jnum(s->demand_per_gpu),
		"demand_kind", nz(s->demand_kind),
		"demand_source", nz(s->demand_source),
		"demand_estimated", s->demand_est,
		"au_threshold", rpt_jnum(jdg_threshold(s->au_threshold)));

	if (!g)
		return NULL;
	json_object_set_new(g, "demand_basis",
			    json_string(nz(s->demand_basis)));
	json_object_set_new(g, "demand_single", rpt_jnum(
		s->demand_single > 0 ? s->demand_single : s->demand_per_gpu));
	json_object_set_new(g, "demand_total", rpt_jnum(total));
	json_object_set_new(g, "demand_multi_measured",
			    json_boolean(s->demand_multi_measured));
	rpt_demand_json_extra(g, s->tokens_per_sample, s->gpu_count ? total :
			      (s->demand_single > 0 ? s->demand_single :
			       s->demand_per_gpu),
			      rpt_bytes_per_sample(s->bytes, records_of(s)));
	return g;
}

static void sweep_keys(json_t *root, const struct rpt_setup *s)
{
	const int tpc = s->threads_per_core;

	json_object_set_new(root, "feedrate_version",
			    json_string(nz(s->version)));
	json_object_set_new(root, "workload", json_string(nz(s->workload)));
	json_object_set_new(root, "workload_file",
			    rpt_json_path(nz(s->workload_file)));
	json_object_set_new(root, "pipeline", json_string(nz(s->pipeline)));
	json_object_set_new(root, "machine", json_pack(
		"{s:s,s:i,s:i,s:s,s:I,s:I,s:o,s:s,s:s,s:i}",
		"cpu_model", nz(s->cpu_model), "vcpus", (int)s->vcpus_total,
		"threads_per_core", tpc,
		"vcpu_kind", stg_vcpu_kind_name(s->vcpu_kind ? s->vcpu_kind :
		tpc > 1 ? STG_VCPU_THREAD : tpc == 1 ? STG_VCPU_CORE :
		STG_VCPU_UNKNOWN),
		"ram_bytes", (json_int_t)s->ram_total,
		"ram_available_bytes", (json_int_t)s->ram_available,
		"cgroup_limit_bytes", s->cgroup_limit >= 0 ?
		json_integer(s->cgroup_limit) : json_null(),
		"instance_type", nz(s->instance_type),
		"vendor", nz(s->vendor), "gpus_present", s->gpus_present));
	json_object_set_new(root, "storage", json_pack("{s:s,s:s,s:b}",
		"fs_type", nz(s->fs_type), "device", nz(s->fs_device),
		"network", s->fs_network));
	json_object_set_new(root, "dataset", json_pack("{s:o,s:b,s:I,s:I,s:s,"
		"s:I}", "path", rpt_json_path(nz(s->dataset)),
		"generated", s->generated, "files", (json_int_t)s->files,
		"bytes", (json_int_t)s->bytes, "format",
		s->format ? s->format : "folder", "records",
		(json_int_t)records_of(s)));
	json_object_set_new(root, "gpus", sweep_gpus(s));
}

static void ckpt_keys(json_t *root, const struct rpt_setup *s)
{
	json_object_set_new(root, "feedrate_version", json_string(
		nz(s->version)));
	json_object_set_new(root, "dir", rpt_json_path(nz(s->dataset)));
	json_object_set_new(root, "machine", json_pack(
		"{s:s, s:s, s:s, s:i}",
		"instance_type", nz(s->instance_type),
		"vendor", nz(s->vendor), "cpu_model", nz(s->cpu_model),
		"vcpus", (int)s->vcpus_total));
	json_object_set_new(root, "storage", json_pack(
		"{s:s, s:s, s:b}", "fs_type", nz(s->fs_type),
		"device", nz(s->fs_device), "network", s->fs_network));
}

/* cluster and cluster sweep: GPUs emulated, a type and a count a rank */
static void cluster_keys(json_t *root, const struct rpt_setup *s,
			 bool with_cache)
{
	const bool emulated = s->gpu_type && *s->gpu_type && s->gpu_count;

	json_object_set_new(root, "workload", s->workload ?
			    jtext(s->workload) : json_null());
	json_object_set_new(root, "dataset", rpt_json_path(nz(s->dataset)));
	json_object_set_new(root, "format", jpath_or_null(s->format));
	json_object_set_new(root, "files", json_integer((json_int_t)s->files));
	json_object_set_new(root, "bytes", json_integer((json_int_t)s->bytes));
	json_object_set_new(root, "records",
			    json_integer((json_int_t)s->records));
	json_object_set_new(root, "fs", json_pack("{s:o,s:o}", "type",
		jpath_or_null(s->fs_type), "server",
		jpath_or_null(s->fs_server)));
	if (with_cache)
		json_object_set_new(root, "cache", jpath_or_null(s->cache));
	json_object_set_new(root, "gpus", json_pack("{s:o,s:i,s:o,s:o,s:o,"
		"s:o,s:o,s:o}", "type", emulated ? jtext(s->gpu_type) :
		json_null(), "per_rank", (int)s->gpu_count, "demand_per_gpu",
		rpt_jnum_if(s->demand_per_gpu, s->demand_per_gpu > 0),
		"au_threshold", rpt_jnum(jdg_threshold(s->au_threshold)),
		"kind", jpath_or_null(s->demand_kind),
		"basis", jpath_or_null(s->demand_basis),
		"source", jpath_or_null(s->demand_source),
		"bytes_per_sample", rpt_jnum_if(s->bytes_per_sample,
						s->bytes_per_sample > 0)));
}

int rpt_setup_json(json_t *root, const struct rpt_setup *s,
		   enum rpt_setup_form form)
{
	switch (form) {
	case RPT_SETUP_RUN:
		return run_keys(root, s);
	case RPT_SETUP_SWEEP:
		sweep_keys(root, s);
		break;
	case RPT_SETUP_CKPT:
		ckpt_keys(root, s);
		break;
	case RPT_SETUP_CLUSTER:
	case RPT_SETUP_CLUSTER_SWEEP:
		cluster_keys(root, s, form == RPT_SETUP_CLUSTER);
		break;
	case RPT_SETUP_IO:
		json_object_set_new(root, "dataset",
				    rpt_json_path(nz(s->dataset)));
		break;
	}
	return 0;
}
