/*
 * report_stall.c - the words and the JSON object for storage that
 * stalled (storage/watch.c decides; this only words it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "report.h"
#include "rpt_json.h"
#include "rpt_text.h"

void rpt_stall_text(const struct stg_stall *s, char *buf, size_t len)
{
	char *name = s->oldest[0] ? rpt_path_text(s->oldest,
						  strlen(s->oldest)) : NULL;

	snprintf(buf, len, "STALLED: the storage stopped answering: no read "
		 "completed for %.1f s (--stall-timeout %g s) while %u "
		 "read%s %s in flight, during the %s; the oldest waited "
		 "%.1f s%s%s", s->idle_s, s->timeout_s, s->inflight,
		 s->inflight == 1 ? "" : "s", s->inflight == 1 ? "was" :
		 "were", stg_phase_name(s->phase), s->oldest_age_s,
		 name ? ", on " : "", name ? name : "");
	free(name);
}

json_t *rpt_stall_json(const struct stg_stall *s)
{
	if (!s || !s->stalled)
		return json_null();
	return json_pack("{s:s,s:I,s:o,s:o,s:o,s:o}",
		"phase", stg_phase_name(s->phase),
		"reads_in_flight", (json_int_t)s->inflight,
		"oldest_age_s", rpt_jnum(s->oldest_age_s),
		"oldest_file", s->oldest[0] ? rpt_json_path(s->oldest) :
				json_null(),
		"no_completion_s", rpt_jnum(s->idle_s),
		"stall_timeout_s", rpt_jnum(s->timeout_s));
}

json_t *rpt_stall_partial_json(const char *command, const char *schema,
			       int schema_version,
			       const struct stg_stall *stall, int sig,
			       const char *note)
{
	json_t *root = json_object();

	if (!root)
		return NULL;
	if (schema)
		json_object_set_new(root, "schema", json_string(schema));
	json_object_set_new(root, "schema_version",
			    json_integer(schema_version));
	json_object_set_new(root, "command", json_string(command));
	json_object_set_new(root, "partial", json_true());
	json_object_set_new(root, "stopped_by", json_string(
		stall && stall->stalled ? "stalled" : sig ? "signal" :
		"error"));
	json_object_set_new(root, "signal", sig ? json_integer(sig) :
			    json_null());
	json_object_set_new(root, "stalled", rpt_stall_json(stall));
	json_object_set_new(root, "note", json_string(note ? note : ""));
	return root;
}

void rpt_stall_partial_opened(json_t *root, const struct ms_opened *o)
{
	json_t *ds, *m;

	if (!root || !o)
		return;
	ds = json_object();
	if (ds && o->set) {
		json_object_set_new(ds, "path", rpt_json_path(o->path));
		json_object_set_new(ds, "listed", json_boolean(o->listed));
		json_object_set_new(ds, "generated",
				    json_boolean(o->generated));
		json_object_set_new(ds, "files", o->listed ? json_integer(
			(json_int_t)o->files) : json_null());
		json_object_set_new(ds, "format", o->listed ?
				    json_string(o->format) : json_null());
		json_object_set_new(ds, "bytes", o->listed ? json_integer(
			(json_int_t)o->bytes) : json_null());
		json_object_set_new(ds, "fs_type", o->fs_type[0] ?
				    json_string(o->fs_type) : json_null());
		json_object_set_new(ds, "device", o->fs_type[0] ?
				    json_string(o->device) : json_null());
	}
	if (o->set && ds && !strcmp(json_string_value(json_object_get(root,
	    "command")) ? json_string_value(json_object_get(root,
	    "command")) : "", "io")) {
		/* io's report keys its dataset as a path, its count apart */
		json_object_set_new(root, "dataset", rpt_json_path(o->path));
		json_object_set_new(root, "files_listed", o->listed ?
				    json_integer((json_int_t)o->files) :
				    json_null());
		json_object_set_new(root, "dataset_detail", ds);
	} else {
		json_object_set_new(root, "dataset", o->set && ds ? ds :
				    (json_decref(ds), json_null()));
	}
	m = json_object();
	if (!m)
		return;
	json_object_set_new(m, "cpu_model", o->machine ?
			    json_string(o->cpu.model) : json_null());
	json_object_set_new(m, "vcpus", o->machine ? json_integer(
		(json_int_t)o->cpu.usable_cpus) : json_null());
	json_object_set_new(m, "threads_per_core", o->machine &&
			    o->cpu.threads_per_core > 0 ?
			    json_integer(o->cpu.threads_per_core) :
			    json_null());
	json_object_set_new(m, "vcpu_kind",
			    json_string(stg_vcpu_kind_name(o->cpu.vcpu_kind)));
	json_object_set_new(m, "ram_bytes", o->mem.total_bytes > 0 ?
			    json_integer(o->mem.total_bytes) : json_null());
	json_object_set_new(m, "ram_available_bytes", o->mem.total_bytes > 0 ?
			    json_integer(o->mem.available_bytes) :
			    json_null());
	json_object_set_new(m, "cgroup_limit_bytes",
			    o->mem.cgroup_limit_bytes >= 0 ?
			    json_integer(o->mem.cgroup_limit_bytes) :
			    json_null());
	json_object_set_new(root, "machine", m);
}

void rpt_stall_opened_print(FILE *f, const struct ms_opened *o)
{
	char a[32], b[32];

	if (!o)
		return;
	if (o->set) {
		fprintf(f, "  dataset    ");
		rpt_put_path(f, o->path);
		if (o->listed) {
			rpt_fmt_count(a, sizeof(a), (double)o->files);
			rpt_fmt_bytes(b, sizeof(b), (double)o->bytes);
			fprintf(f, ": %s files, %s", a, b);
		} else {
			fprintf(f, ": not listed yet");
		}
		if (o->fs_type[0])
			fprintf(f, " on %s%s%s", o->fs_type,
				o->device[0] ? ", " : "", o->device);
		fputc('\n', f);
	}
	if (o->machine)
		fprintf(f, "  machine    %s; %.0f vCPUs usable, %s\n",
			o->cpu.model[0] ? o->cpu.model : "CPU model unknown",
			o->cpu.usable_cpus, o->cpu.threads_per_core > 1 ?
			"SMT siblings present" : o->cpu.threads_per_core == 1 ?
			"no SMT siblings" : "SMT unknown");
}
