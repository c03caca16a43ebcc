/*
 * bufpool.c - a reader's buffer pool: one 4096-aligned region, cut by a
 * buddy allocator into power-of-two blocks of 4 KiB and up.
 *
 * DESIGN: the reader thread takes blocks (stg_pool_get); any thread gives
 * them back (stg_buf_release: decode workers finish with a sample long
 * after the reader handed it over). Both hold p->lock for a few list
 * operations only. The region is mapped once, so reads never allocate and
 * pages fault in once; one region is also what io_uring registers as a
 * fixed buffer. The cost is rounding: a block is the smallest power of
 * two that holds the file (a 110 KB JPEG takes 128 KiB, a 64 KiB file
 * 64 KiB). The byte (O_DIRECT: block) read past a file's end to see
 * whether it grew lands in the request's probe page, outside the pool,
 * so the pool of a reader is the bucket of max_sample_bytes, not twice.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "reader_internal.h"

static void list_push(struct stg_pool *p, int i, unsigned order)
{
	struct stg_buf *b = &p->blk[i];

	b->order = (uint8_t)order;
	b->free = 1;
	b->prev = -1;
	b->next = p->free_head[order];
	if (b->next >= 0)
		p->blk[b->next].prev = i;
	p->free_head[order] = i;
}

static void list_remove(struct stg_pool *p, int i)
{
	struct stg_buf *b = &p->blk[i];

	if (b->prev >= 0)
		p->blk[b->prev].next = b->next;
	else
		p->free_head[b->order] = b->next;
	if (b->next >= 0)
		p->blk[b->next].prev = b->prev;
	b->free = 0;
	b->next = b->prev = -1;
}

int stg_pool_init(struct stg_pool *p, uint64_t min_size)
{
	unsigned order = 0;
	uint64_t nblk;
	int err;

	while ((uint64_t)STG_ALIGN << order < min_size)
		order++;
	if (order >= 36)        /* 256 TiB: refuse nonsense */
		return -EINVAL;
	p->max_order = order;
	p->size = (uint64_t)STG_ALIGN << order;
	nblk = p->size / STG_ALIGN;
	if (nblk > (uint64_t)INT32_MAX)
		return -EINVAL;
	p->blk = calloc(nblk, sizeof(*p->blk));
	if (!p->blk)
		return -ENOMEM;
	p->base = mmap(NULL, p->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->base == MAP_FAILED) {
		err = -errno;
		goto err_blk;
	}
	err = -pthread_mutex_init(&p->lock, NULL);
	if (err)
		goto err_map;
	for (unsigned i = 0; i < sizeof(p->free_head) / sizeof(p->free_head[0]); i++)
		p->free_head[i] = -1;
	for (uint64_t i = 0; i < nblk; i++) {
		p->blk[i].pool = p;
		p->blk[i].data = p->base + i * STG_ALIGN;
		p->blk[i].next = p->blk[i].prev = -1;
	}
	list_push(p, 0, order);
	p->used = 0;
	return 0;
err_map:
	munmap(p->base, p->size);
err_blk:
	free(p->blk);
	p->blk = NULL;
	return err;
}

void stg_pool_fini(struct stg_pool *p)
{
	if (!p->blk)
		return;
	pthread_mutex_destroy(&p->lock);
	munmap(p->base, p->size);
	free(p->blk);
	p->blk = NULL;
}

struct stg_buf *stg_pool_get(struct stg_pool *p, uint64_t size)
{
	unsigned order = 0, k;
	int i;

	while ((uint64_t)STG_ALIGN << order < size)
		order++;
	if (order > p->max_order)
		return NULL;
	pthread_mutex_lock(&p->lock);
	for (k = order; k <= p->max_order && p->free_head[k] < 0; k++)
		;
	if (k > p->max_order) {
		pthread_mutex_unlock(&p->lock);
		return NULL;
	}
	i = p->free_head[k];
	list_remove(p, i);
	while (k > order) {
		k--;
		list_push(p, i + (1 << k), k);
	}
	p->blk[i].order = (uint8_t)order;
	p->blk[i].cap = (uint64_t)STG_ALIGN << order;
	p->used += p->blk[i].cap;
	pthread_mutex_unlock(&p->lock);
	return &p->blk[i];
}

void stg_buf_release(struct stg_buf *buf)
{
	struct stg_pool *p;
	unsigned order;
	int i;

	if (!buf || !buf->pool)     /* none, or a caller's memory */
		return;
	p = buf->pool;
	i = (int)(buf - p->blk);
	pthread_mutex_lock(&p->lock);
	order = buf->order;
	p->used -= (uint64_t)STG_ALIGN << order;
	while (order < p->max_order) {
		int b = i ^ (1 << order);

		if (!p->blk[b].free || p->blk[b].order != order)
			break;
		list_remove(p, b);
		if (b < i)
			i = b;
		order++;
	}
	list_push(p, i, order);
	pthread_mutex_unlock(&p->lock);
}
