/*
 * cpuset.c - the choice of the CPUs a measurement runs on.
 *
 * A cloud vCPU is a hyperthread: a VM with 4 vCPUs gets 2 cores with both
 * SMT threads each, on one NUMA node. To emulate it, K CPUs are taken as
 * whole cores (thread_siblings_list) inside one node (node cpulist). The
 * topology is read under the storage layer's sysroot so tests can describe
 * other machines with fixture trees.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

#define NODES_MAX 64

/* One core: the usable threads of one sibling group, in one node. */
struct core {
	int first;              /* lowest CPU of the sibling group */
	int node;
	unsigned nthreads;      /* usable threads */
	int cpu[8];             /* the usable threads, ascending */
	unsigned total;         /* threads in the group, usable or not */
};

struct topo {
	int node_of[CPU_SETSIZE];      /* -1: no node lists it */
	int nodes[NODES_MAX];          /* node ids found, ascending */
	unsigned nnodes;
	struct core *cores;
	unsigned ncores;
	bool smt;                      /* some group has > 1 thread */
};

/* Node ids and their CPU lists, from /sys/devices/system/node/nodeM. */
static int topo_read_nodes(struct topo *t)
{
	char path[PATH_MAX], list[4096];
	DIR *d;
	struct dirent *e;

	for (int c = 0; c < CPU_SETSIZE; c++)
		t->node_of[c] = -1;
	t->nnodes = 0;
	if (stg_sysroot_path("/sys/devices/system/node", path,
			     sizeof(path)) < 0)
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long id;
		cpu_set_t set;

		if (strncmp(e->d_name, "node", 4) ||
		    !isdigit((unsigned char)e->d_name[4]))
			continue;
		id = strtol(e->d_name + 4, &end, 10);
		if (*end || id < 0 || id > INT_MAX || t->nnodes >= NODES_MAX)
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/%s/cpulist", e->d_name);
		if (stg_sysroot_read(path, list, sizeof(list)) < 0 ||
		    stg_cpulist_parse(list, &set) < 0)
			continue;
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set) && t->node_of[c] < 0)
				t->node_of[c] = (int)id;
		t->nodes[t->nnodes++] = (int)id;
	}
	closedir(d);
	/* ascending ids: readdir order is arbitrary */
	for (unsigned i = 1; i < t->nnodes; i++)
		for (unsigned j = i; j > 0 && t->nodes[j - 1] > t->nodes[j]; j--) {
			int x = t->nodes[j];

			t->nodes[j] = t->nodes[j - 1];
			t->nodes[j - 1] = x;
		}
	return t->nnodes ? 0 : -ENOENT;
}

/*
 * Group the usable CPUs into cores. Returns 0, or -errno with BAD set to
 * the CPU whose sibling list could not be read.
 */
static int topo_read_cores(struct topo *t, const cpu_set_t *usable, int *bad)
{
	int seen[CPU_SETSIZE];  /* core index of a CPU already grouped */
	unsigned n = (unsigned)CPU_COUNT(usable);

	t->cores = calloc(n ? n : 1, sizeof(*t->cores));
	if (!t->cores)
		return -ENOMEM;
	t->ncores = 0;
	t->smt = false;
	for (int c = 0; c < CPU_SETSIZE; c++)
		seen[c] = -1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		cpu_set_t sib;
		struct core *k;
		int first = -1, err;

		if (!CPU_ISSET(c, usable) || seen[c] >= 0)
			continue;
		err = stg_cpu_siblings((unsigned)c, &sib);
		if (err < 0) {
			*bad = c;
			return err;
		}
		k = &t->cores[t->ncores];
		k->node = t->node_of[c];
		for (int s = 0; s < CPU_SETSIZE; s++) {
			if (!CPU_ISSET(s, &sib))
				continue;
			if (first < 0)
				first = s;
			k->total++;
			if (CPU_ISSET(s, usable) && seen[s] < 0 &&
			    k->nthreads < sizeof(k->cpu) / sizeof(k->cpu[0])) {
				k->cpu[k->nthreads++] = s;
				seen[s] = (int)t->ncores;
			}
		}
		k->first = first;
		if (k->total > 1)
			t->smt = true;
		t->ncores++;
	}
	return 0;
}

/*
 * Take K CPUs from the cores of NODE (any node when ALL): whole cores of
 * two or more usable threads first, lowest numbers first; the remainder
 * from single-thread cores, then by splitting a core. Returns the CPUs
 * taken; *SPLIT gets the number of cores only partly taken, *PAIRED the
 * CPUs that sit with all their usable siblings and at least one of them.
 */
static unsigned take_cpus(const struct topo *t, int node, bool all,
			  unsigned k, cpu_set_t *set, unsigned *split,
			  unsigned *paired)
{
	unsigned got = 0;
	bool *used = calloc(t->ncores ? t->ncores : 1, sizeof(*used));

	CPU_ZERO(set);
	*split = 0;
	*paired = 0;
	if (!used)
		return 0;
	/* pass 1: whole multi-thread cores that fit */
	for (unsigned i = 0; i < t->ncores && got < k; i++) {
		const struct core *c = &t->cores[i];

		if ((!all && c->node != node) || c->nthreads < 2 ||
		    got + c->nthreads > k)
			continue;
		for (unsigned j = 0; j < c->nthreads; j++)
			CPU_SET(c->cpu[j], set);
		got += c->nthreads;
		*paired += c->nthreads;
		used[i] = true;
	}
	/* pass 2: cores with one usable thread (nothing is split) */
	for (unsigned i = 0; i < t->ncores && got < k; i++) {
		const struct core *c = &t->cores[i];

		if ((!all && c->node != node) || used[i] || c->nthreads != 1)
			continue;
		CPU_SET(c->cpu[0], set);
		got++;
		used[i] = true;
	}
	/* pass 3: split a core for what is left (odd K) */
	for (unsigned i = 0; i < t->ncores && got < k; i++) {
		const struct core *c = &t->cores[i];
		unsigned j;

		if ((!all && c->node != node) || used[i])
			continue;
		for (j = 0; j < c->nthreads && got < k; j++) {
			CPU_SET(c->cpu[j], set);
			got++;
		}
		if (j < c->nthreads)
			(*split)++;
		else if (j > 1)
			*paired += j;
		used[i] = true;
	}
	free(used);
	return got;
}

static void first_k(unsigned k, const cpu_set_t *usable, cpu_set_t *set)
{
	unsigned got = 0;

	CPU_ZERO(set);
	for (int c = 0; c < CPU_SETSIZE && got < k; c++)
		if (CPU_ISSET(c, usable)) {
			CPU_SET(c, set);
			got++;
		}
}

int ldr_cpus_choose(unsigned k, const cpu_set_t *usable,
		    struct ldr_cpu_choice *out)
{
	cpu_set_t mine;
	struct topo t;
	char list[160], why[80];
	unsigned nusable;
	int err, bad = -1, best_node = -1;
	unsigned best_paired = 0, best_split = 0;
	bool found = false;

	memset(out, 0, sizeof(*out));
	out->node = -1;
	if (!usable) {
		if (sched_getaffinity(0, sizeof(mine), &mine) < 0) {
			err = -errno;
			snprintf(out->how, sizeof(out->how),
				 "cannot read this process's CPU affinity: %s",
				 strerror(-err));
			return err;
		}
		usable = &mine;
	}
	nusable = (unsigned)CPU_COUNT(usable);
	stg_cpulist_format(usable, list, sizeof(list));
	if (k == 0) {
		snprintf(out->how, sizeof(out->how),
			 "--vcpus 0: at least one CPU is needed");
		return -EINVAL;
	}
	if (k > nusable) {
		snprintf(out->how, sizeof(out->how),
			 "--vcpus %u: only %u CPU%s usable (%s)", k, nusable,
			 nusable == 1 ? " is" : "s are", list);
		return -ERANGE;
	}
	out->count = k;

	memset(&t, 0, sizeof(t));
	topo_read_nodes(&t);    /* no nodes: one unknown node, said below */
	err = topo_read_cores(&t, usable, &bad);
	if (err == -ENOMEM) {
		snprintf(out->how, sizeof(out->how), "out of memory");
		free(t.cores);
		return err;
	}
	if (err < 0) {
		first_k(k, usable, &out->set);
		out->pick = LDR_CPU_PICK_FIRST;
		stg_cpulist_format(&out->set, list, sizeof(list));
		snprintf(out->how, sizeof(out->how),
			 "%u CPU%s, the first of the mask: %s (CPU topology "
			 "unreadable: cpu%d thread_siblings_list: %s)", k,
			 k == 1 ? "" : "s", list, bad, strerror(-err));
		free(t.cores);
		return 0;
	}

	/* the node that holds K usable CPUs and pairs best */
	for (unsigned i = 0; i < t.nnodes; i++) {
		cpu_set_t set;
		unsigned split, paired;

		if (take_cpus(&t, t.nodes[i], false, k, &set, &split,
			      &paired) < k)
			continue;
		if (!found || paired > best_paired ||
		    (paired == best_paired && split < best_split)) {
			found = true;
			best_node = t.nodes[i];
			best_split = split;
			best_paired = paired;
			out->set = set;
		}
	}
	if (found) {
		out->node = best_node;
		snprintf(why, sizeof(why), "on NUMA node %d", best_node);
	} else {
		unsigned paired;

		take_cpus(&t, 0, true, k, &out->set, &best_split, &paired);
		if (t.nnodes)
			snprintf(why, sizeof(why), "spanning NUMA nodes (no "
				 "node has %u usable CPUs)", k);
		else
			snprintf(why, sizeof(why), "(NUMA nodes unknown)");
	}
	out->split_cores = best_split;
	out->pick = t.smt ? LDR_CPU_PICK_SMT_PAIRS : LDR_CPU_PICK_NO_SMT;
	stg_cpulist_format(&out->set, list, sizeof(list));
	if (!t.smt)
		snprintf(out->how, sizeof(out->how),
			 "%u CPU%s (no SMT siblings on this machine) %s: %s", k,
			 k == 1 ? "" : "s", why, list);
	else if (best_split)
		snprintf(out->how, sizeof(out->how),
			 "%u CPU%s as SMT sibling pairs %s, %u core%s split: %s",
			 k, k == 1 ? "" : "s", why, best_split,
			 best_split == 1 ? "" : "s", list);
	else
		snprintf(out->how, sizeof(out->how),
			 "%u CPU%s as SMT sibling pairs %s: %s", k,
			 k == 1 ? "" : "s", why, list);
	free(t.cores);
	return 0;
}

/* ---- the share of one local rank ---- */

int ldr_cpus_node_share(const cpu_set_t *usable, unsigned local_rank,
			unsigned local_size, cpu_set_t *out, bool *shared)
{
	cpu_set_t mine;
	struct topo t;
	unsigned n, units, lo, hi, u = 0;
	int bad = -1, err;
	bool by_core;

	if (shared)
		*shared = false;
	CPU_ZERO(out);
	if (!local_size || local_rank >= local_size)
		return -EINVAL;
	if (!usable) {
		if (sched_getaffinity(0, sizeof(mine), &mine) < 0)
			return -errno;
		usable = &mine;
	}
	n = (unsigned)CPU_COUNT(usable);
	if (!n)
		return -EINVAL;
	if (n < local_size) {
		/* more ranks than CPUs: they share, one CPU each, in turn */
		unsigned want = local_rank % n;

		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, usable) && u++ == want) {
				CPU_SET(c, out);
				break;
			}
		if (shared)
			*shared = true;
		return 0;
	}
	/* cores in the order of their lowest usable CPU; a topology that
	 * cannot be read leaves each CPU a core of its own */
	memset(&t, 0, sizeof(t));
	for (int c = 0; c < CPU_SETSIZE; c++)
		t.node_of[c] = -1;
	err = topo_read_cores(&t, usable, &bad);
	if (err == -ENOMEM) {
		free(t.cores);
		return err;
	}
	by_core = !err && t.ncores >= local_size;
	units = by_core ? t.ncores : n;
	/* slice l is units [l x units / size, (l + 1) x units / size) */
	lo = (unsigned)((uint64_t)local_rank * units / local_size);
	hi = (unsigned)((uint64_t)(local_rank + 1) * units / local_size);
	if (by_core) {
		for (unsigned i = lo; i < hi; i++)
			for (unsigned j = 0; j < t.cores[i].nthreads; j++)
				CPU_SET(t.cores[i].cpu[j], out);
	} else {
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, usable)) {
				if (u >= lo && u < hi)
					CPU_SET(c, out);
				u++;
			}
	}
	free(t.cores);
	return 0;
}
