/* Stand-ins until storage's system-facts layer lands (removed then). */
#include <sched.h>
#include <time.h>

#include "storage.h"

double stg_now(void);
unsigned stg_cpus_usable(void);

double stg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

unsigned stg_cpus_usable(void)
{
	struct stg_cpu_info ci;
	cpu_set_t set;
	unsigned n = 1;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = (unsigned)CPU_COUNT(&set);
	if (stg_detect_cpu(0, &ci) == 0 && ci.quota_cpus > 0 &&
	    ci.quota_cpus < n)
		n = ci.quota_cpus >= 1 ? (unsigned)ci.quota_cpus : 1;
	return n ? n : 1;
}
