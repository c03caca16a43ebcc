/*
 * wl_instances.c - the catalog of cloud GPU shapes the sweep's verdict
 * checks ("on p4d.24xlarge this pipeline needs N of its 96 vCPUs").
 * Figures from ../shared/reference/instances.md; the *_recalled flags
 * carry its "mem" marks (recalled, not re-read from the provider).
 */
#include <stddef.h>
#include <strings.h>

#include "workloads.h"

#define SRC_AWS "AWS EC2 instance-type docs (accelerated computing)"
#define SRC_GCP "GCP accelerator-optimized machine docs; skypilot-catalog " \
	"gcp/vms.csv"
/* What one vCPU is on each cloud's GPU shapes (instances.md "vCPU is"). */
#define VK_AWS "AWS EC2 docs (reference/instances.md): one vCPU is one " \
	"hyperthread, 2 per core"
#define VK_GCP "GCP machine docs (reference/instances.md): one vCPU is " \
	"one hyperthread, 2 per core"
#define VK_AZ_ND "Azure size page: \"96 physical ... cores\""
#define VK_AZ_NC "Azure NC A100 v4 size page: \"non-multithreaded AMD " \
	"EPYC Milan processor cores\" (a vCPU is a core)"
#define SRC_AZ "Azure MicrosoftDocs/azure-compute-docs gpu-accelerated " \
	"size pages"

static const struct wl_instance instances[] = {
	/* name, cloud, gpus, gpu family, detail, its demand row, vCPUs,
	 * vCPU kind and its source, RAM GiB, recalled?, disk, recalled?,
	 * network, recalled?, source */
	{ "p3.2xlarge", "AWS", 1, "V100", "V100 16GB", "V100", 8,
	  STG_VCPU_THREAD, VK_AWS, 61, false, "EBS only", false,
	  "up to 10 Gbps", false, SRC_AWS },
	{ "p3.16xlarge", "AWS", 8, "V100", "V100 16GB", "V100", 64,
	  STG_VCPU_THREAD, VK_AWS, 488, false, "EBS only", false,
	  "25 Gbps", false, SRC_AWS },
	{ "p4d.24xlarge", "AWS", 8, "A100", "A100 40GB", "A100-40GB", 96,
	  STG_VCPU_THREAD, VK_AWS, 1152, false, "8x 1000 GB NVMe", false,
	  "4x 100 Gbps EFA", false, SRC_AWS },
	{ "p5.48xlarge", "AWS", 8, "H100", "H100 80GB", "H100", 192,
	  STG_VCPU_THREAD, VK_AWS, 2048, false, "8x 3800 GB NVMe", false,
	  "3200 Gbps EFA", false, SRC_AWS },
	{ "g4dn.xlarge", "AWS", 1, "T4", "T4 16GB", "T4", 4,
	  STG_VCPU_THREAD, VK_AWS, 16, false, "1x 125 GB NVMe", false,
	  "up to 25 Gbps", false, SRC_AWS },
	{ "g4dn.12xlarge", "AWS", 4, "T4", "T4 16GB", "T4", 48,
	  STG_VCPU_THREAD, VK_AWS, 192, false, "1x 900 GB NVMe", false,
	  "50 Gbps", false, SRC_AWS },
	{ "g5.xlarge", "AWS", 1, "A10G", "A10G 24GB", "A10G", 4,
	  STG_VCPU_THREAD, VK_AWS, 16, false, "1x 250 GB NVMe", false,
	  "up to 10 Gbps", false, SRC_AWS },
	{ "g5.48xlarge", "AWS", 8, "A10G", "A10G 24GB", "A10G", 192,
	  STG_VCPU_THREAD, VK_AWS, 768, false, "2x 3800 GB NVMe", false,
	  "100 Gbps", false, SRC_AWS },
	{ "g6.xlarge", "AWS", 1, "L4", "L4 24GB", "L4", 4,
	  STG_VCPU_THREAD, VK_AWS, 16, false, "1x 250 GB NVMe", false,
	  "up to 10 Gbps", false, SRC_AWS },
	{ "a2-highgpu-1g", "GCP", 1, "A100", "A100 40GB", "A100-40GB", 12,
	  STG_VCPU_THREAD, VK_GCP, 85, false, "none bundled", true,
	  "24 Gbps", true, SRC_GCP },
	{ "a2-highgpu-8g", "GCP", 8, "A100", "A100 40GB", "A100-40GB", 96,
	  STG_VCPU_THREAD, VK_GCP, 680, false, "none bundled", true,
	  "100 Gbps", true, SRC_GCP },
	{ "a3-highgpu-8g", "GCP", 8, "H100", "H100 80GB", "H100", 208,
	  STG_VCPU_THREAD, VK_GCP, 1872, false, "16x 375 GiB", true,
	  "1000 Gbps", false, SRC_GCP },
	{ "g2-standard-4", "GCP", 1, "L4", "L4 24GB", "L4", 4,
	  STG_VCPU_THREAD, VK_GCP, 16, false, "1x 375 GiB", true,
	  "10 Gbps", true, SRC_GCP },
	{ "Standard_ND96asr_v4", "Azure", 8, "A100", "A100 40GB", "A100-40GB", 96,
	  STG_VCPU_CORE, VK_AZ_ND, 900, false, "6000 GiB temp", false,
	  "8x 200 Gb HDR IB", false, SRC_AZ },
	{ "Standard_ND96isr_H100_v5", "Azure", 8, "H100", "H100 80GB", "H100", 96,
	  STG_VCPU_CORE, VK_AZ_ND, 1900, false, "8 NVMe, 28 TiB", false,
	  "8x 400 Gb IB", false, SRC_AZ },
	{ "Standard_NC24ads_A100_v4", "Azure", 1, "A100", "A100 80GB PCIe",
	  "A100-PCIe", 24,
	  STG_VCPU_CORE, VK_AZ_NC, 220, false, "1x 960 GiB NVMe", false,
	  "20 Gbps", false, SRC_AZ },
};

#define NINSTANCES (sizeof(instances) / sizeof(instances[0]))

size_t wl_instance_count(void)
{
	return NINSTANCES;
}

const struct wl_instance *wl_instance_at(size_t i)
{
	return i < NINSTANCES ? &instances[i] : NULL;
}

const struct wl_instance *wl_instance_find(const char *name)
{
	for (size_t i = 0; name && i < NINSTANCES; i++)
		if (!strcasecmp(instances[i].name, name))
			return &instances[i];
	return NULL;
}
