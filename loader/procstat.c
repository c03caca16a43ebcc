/*
 * procstat.c - busy time per CPU from /proc/stat, to report the CPU time a
 * measurement's neighbours used outside its mask (a FUSE daemon, kernel
 * threads, interrupts): work the VM would have had to do on its own vCPUs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader.h"

/* Enough for /proc/stat of a machine with a few hundred CPUs. */
#define STAT_BUF (1u << 20)

static int parse_cpu_line(const char *line, struct ldr_cpu_times *out)
{
	unsigned long long v[10] = { 0 };
	int cpu, n;

	/* cpuN user nice system idle iowait irq softirq steal guest gnice */
	n = sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
		   &v[7], &v[8], &v[9]);
	if (n < 5 || cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	/* guest and guest_nice are already counted in user and nice */
	out->busy[cpu] = v[0] + v[1] + v[2] + v[5] + v[6];
	CPU_SET(cpu, &out->present);
	return 0;
}

int ldr_cpu_times_read(struct ldr_cpu_times *out)
{
	char *buf, *line;
	ssize_t got = 0;
	int fd, err = 0, lines = 0;

	CPU_ZERO(&out->present);
	buf = malloc(STAT_BUF);
	if (!buf)
		return -ENOMEM;
	fd = stg_sysroot_open("/proc/stat", O_RDONLY);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	/* /proc/stat is generated per read(): read until EOF */
	while ((size_t)got < STAT_BUF - 1) {
		ssize_t n = read(fd, buf + got, STAT_BUF - 1 - (size_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		got += n;
	}
	close(fd);
	if (err)
		goto out;
	buf[got] = '\0';
	for (line = buf; line && *line; ) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		/* "cpu " is the total; "cpuN " the per-CPU lines */
		if (!strncmp(line, "cpu", 3) && line[3] >= '0' &&
		    line[3] <= '9' && parse_cpu_line(line, out) == 0)
			lines++;
		line = nl ? nl + 1 : NULL;
	}
	if (!lines)
		err = -EINVAL;
out:
	free(buf);
	return err;
}

double ldr_cpu_times_busy_outside(const struct ldr_cpu_times *before,
				  const struct ldr_cpu_times *after,
				  const cpu_set_t *mask)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t ticks = 0;

	if (hz <= 0)
		hz = 100;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &before->present) ||
		    !CPU_ISSET(c, &after->present) ||
		    (mask && CPU_ISSET(c, mask)))
			continue;
		if (after->busy[c] > before->busy[c])
			ticks += after->busy[c] - before->busy[c];
	}
	return (double)ticks / (double)hz;
}
