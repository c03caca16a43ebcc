/*
 * test_instances.c - the instance catalog: every shape has sane figures,
 * names are unique, the "mem" marks of the reference are carried, and
 * lookups work.
 */
#include <string.h>

#include "harness.h"
#include "workloads.h"

FR_TEST(instances, every_shape_has_sane_figures_and_a_source)
{
	const size_t n = wl_instance_count();

	cr_assert_geq(n, 16);
	for (size_t i = 0; i < n; i++) {
		const struct wl_instance *in = wl_instance_at(i);

		cr_assert_not_null(in);
		cr_assert(in->gpus >= 1 && in->gpus <= 16, "%s", in->name);
		cr_assert(in->vcpus >= 4 && in->vcpus <= 256, "%s", in->name);
		cr_assert(in->ram_gib >= 16 && in->ram_gib <= 4096, "%s",
			  in->name);
		cr_assert(in->source && *in->source, "%s", in->name);
		cr_assert(in->gpu && strchr(in->gpu, ' ') == NULL, "%s: the "
			  "family is one word", in->name);
		for (size_t j = 0; j < i; j++)
			cr_assert_str_neq(in->name, wl_instance_at(j)->name);
	}
	cr_assert_null(wl_instance_at(n));
}

FR_TEST(instances, lookup_and_recalled_marks)
{
	const struct wl_instance *p4d = wl_instance_find("P4D.24xlarge");
	const struct wl_instance *a2 = wl_instance_find("a2-highgpu-8g");

	cr_assert_not_null(p4d);
	cr_assert_eq(p4d->vcpus, 96);
	cr_assert_eq(p4d->gpus, 8);
	cr_assert_str_eq(p4d->gpu, "A100");
	cr_assert(!p4d->ram_recalled);
	cr_assert_not_null(a2);
	cr_assert_not(a2->ram_recalled, "680 GiB is confirmed");
	cr_assert_str_eq(p4d->gpu_row, "A100-40GB", "p4d carries A100 40GB");
	cr_assert_eq(p4d->vcpu_kind, STG_VCPU_THREAD);
	cr_assert_eq(wl_instance_find("Standard_ND96asr_v4")->vcpu_kind,
		     STG_VCPU_CORE);
	cr_assert_eq(wl_instance_find("Standard_ND96isr_H100_v5")->vcpu_kind,
		     STG_VCPU_CORE);
	cr_assert_float_eq(wl_instance_find("a3-highgpu-8g")->ram_gib, 1872,
			   1e-9);
	cr_assert_null(wl_instance_find("no-such-shape"));
}
