/*
 * test_backend_uring_edges.c - the io_uring backend on older kernels and
 * at teardown, and the buffer pool's size: timed waits without
 * IORING_FEAT_EXT_ARG, a destroy interrupted by signals while a read
 * blocks, and a default reader that pins no more than its largest sample.
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>

#include "harness.h"
#include "test_backend_util.h"

/* Read N files through R reaping with TIMEOUT_NS waits (short ones make
 * the backend wait with a timeout again and again). */
static void read_with_timeouts(struct stg_reader *r, struct tb_file *f,
			       size_t n, struct tb_result *res,
			       int64_t timeout_ns)
{
	struct stg_completion c[16];
	size_t next = 0, done = 0;
	unsigned idle = 0;

	for (size_t i = 0; i < n; i++)
		res[i].result = 1;
	while (done < n) {
		int got;

		while (next < n) {
			int err = stg_reader_submit(r, &f[next].req);

			if (err == -EAGAIN)
				break;
			cr_assert_eq(err, 0, "submit: %s", stg_strerror(err));
			next++;
		}
		got = stg_reader_reap(r, c, 16, timeout_ns);
		cr_assert_geq(got, 0, "reap: %s", stg_strerror(got));
		idle = got ? 0 : idle + 1;
		cr_assert_lt(idle, 20000u, "no completion for 20000 reaps");
		for (int i = 0; i < got; i++) {
			struct tb_result *t = &res[c[i].user_data];

			cr_assert_eq(t->result, 1, "completed twice");
			t->result = c[i].result;
			t->len = c[i].len;
			t->sum = c[i].data ? tb_fnv(TB_FNV0, c[i].data, c[i].len)
					   : 0;
			stg_buf_release(c[i].buf);
			done++;
		}
	}
}

/*
 * Before 5.11 liburing waits with a timeout by queueing an
 * IORING_OP_TIMEOUT whose completion has user_data LIBURING_UDATA_TIMEOUT;
 * the backend must step over it, not take it for a chunk.
 */
FR_TEST(backend_uring, timed_waits_without_ext_arg_read_every_byte)
{
	enum { N = 300 };
	char *dir;
	struct tb_file *f;
	struct tb_result *res;
	struct stg_reader_config cfg = {
		.backend = STG_BACKEND_URING,
		.depth = 32,
		.block_size = 16 * 1024,
		.force_async = true,
	};
	struct stg_reader_stats st;
	struct stg_reader *r;

	if (!tb_backend_usable(STG_BACKEND_URING))
		cr_skip_test("io_uring unavailable");
	dir = fr_test_tmpdir();
	f = calloc(N, sizeof(*f));
	res = calloc(N, sizeof(*res));
	cr_assert(f && res);
	for (size_t i = 0; i < N; i++) {
		tb_make_file(dir, &f[i], i, 1000 + (i * 7919) % 90000,
			     (uint32_t)i + 1);
		f[i].req.user_data = i;
	}
	stg_uring_test_no_ext_arg = true;
	cr_assert_eq(stg_reader_create(&cfg, &r), 0);
	stg_uring_test_no_ext_arg = false;
	read_with_timeouts(r, f, N, res, 1000000);
	for (size_t i = 0; i < N; i++) {
		cr_expect_eq(res[i].result, 0, "f%zu: %s", i,
			     stg_strerror(res[i].result));
		cr_expect_eq(res[i].len, f[i].size, "f%zu", i);
		cr_expect_eq(res[i].sum, f[i].sum, "f%zu bytes differ", i);
	}
	stg_reader_stats(r, &st);
	cr_expect_eq(st.files_ok, N);
	cr_expect_eq(stg_reader_pending(r), 0);
	stg_reader_destroy(r);
	free(f);
	free(res);
	fr_test_rmtree(dir);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	cr_assert(d, "no /proc/self/fd");
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;           /* the directory's own descriptor */
}

static atomic_uint signals_seen;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add(&signals_seen, 1);
}

struct destroyer {
	struct stg_reader *r;
	atomic_bool done;
};

static void *destroy_thread(void *arg)
{
	struct destroyer *d = arg;

	stg_reader_destroy(d->r);
	atomic_store(&d->done, true);
	return NULL;
}

/*
 * A destroy whose wait for in-flight reads is interrupted by signals still
 * ends every read (cancelled or finished) and closes every file: no
 * descriptor left open, no read still writing into the freed pool. The
 * read blocks on an empty FIFO; later the test writes to it, so a destroy
 * that only waits still ends (one that cancels never needs it).
 */
FR_TEST(backend_uring, destroy_interrupted_by_signals_closes_every_file)
{
	/* modes 0, 1: destroy cancels (buffered, IOSQE_ASYNC); mode 2:
	 * it only waits, so the signals interrupt that wait */
	for (int mode = 0; mode < 3; mode++) {
		const int async = mode == 1;
		char *dir;
		char path[600];
		struct sigaction sa = { .sa_handler = on_usr1 };
		struct stg_reader_config cfg = {
			.backend = STG_BACKEND_URING,
			.depth = 4,
			.force_async = async,
		};
		struct stg_read_req req;
		struct stg_completion c;
		struct destroyer d = { 0 };
		pthread_t t;
		struct timespec t0, now;
		bool wrote = false;
		int wfd, before;

		if (!tb_backend_usable(STG_BACKEND_URING))
			cr_skip_test("io_uring unavailable");
		dir = fr_test_tmpdir();
		snprintf(path, sizeof(path), "%s/fifo", dir);
		cr_assert_eq(mkfifo(path, 0600), 0);
		/* a writer end held open: the reader's open does not block,
		 * its read does */
		wfd = open(path, O_RDWR | O_CLOEXEC);
		cr_assert_geq(wfd, 0);
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = 0;        /* no SA_RESTART */
		cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
		before = count_fds();
		cr_assert_eq(stg_reader_create(&cfg, &d.r), 0);
		req = (struct stg_read_req){
			.dirfd = AT_FDCWD, .name = path, .size = 100000,
		};
		cr_assert_eq(stg_reader_submit(d.r, &req), 0);
		/* the read is in the kernel and finds nothing to read */
		cr_assert_eq(stg_reader_reap(d.r, &c, 1, 20000000), 0);
		atomic_store(&signals_seen, 0);
		stg_uring_test_exit_no_cancel = mode == 2;
		cr_assert_eq(pthread_create(&t, NULL, destroy_thread, &d), 0);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (!atomic_load(&d.done)) {
			double s;

			pthread_kill(t, SIGUSR1);
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
			clock_gettime(CLOCK_MONOTONIC, &now);
			s = (double)(now.tv_sec - t0.tv_sec) +
			    (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
			if (s > (mode == 2 ? 0.3 : 3) && !wrote) {
				cr_assert_eq(write(wfd, "x", 1), 1);
				wrote = true;
			}
			cr_assert_lt(s, 30.0, "destroy hangs");
		}
		pthread_join(t, NULL);
		stg_uring_test_exit_no_cancel = false;
		cr_log_info("mode %d: %u signals during destroy, fifo "
			    "written: %d", mode, atomic_load(&signals_seen),
			    wrote);
		if (mode < 2)
			cr_expect_not(wrote, "destroy waited for the blocked "
				      "read instead of cancelling it");
		else
			cr_expect_gt(atomic_load(&signals_seen), 10u);
		close(wfd);
		cr_expect_eq(count_fds(), before - 1,
			     "mode %d: descriptors left open by destroy",
			     mode);
		signal(SIGUSR1, SIG_DFL);
		fr_test_rmtree(dir);
	}
}

static long vm_pin_kb(void)
{
	FILE *fp = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(fp);
	return kb;
}

/* A default reader's pool is the bucket of max_sample_bytes (64 MiB), not
 * the next one up, and registering it pins no more than that. */
FR_TEST(backend_pool, default_reader_pins_no_more_than_max_sample_bytes)
{
	struct stg_reader_config cfg = { .backend = STG_BACKEND_URING };
	struct stg_reader *r;
	long before, after;

	if (!tb_backend_usable(STG_BACKEND_URING))
		cr_skip_test("io_uring unavailable");
	before = vm_pin_kb();
	cr_assert_eq(stg_reader_create(&cfg, &r), 0);
	after = vm_pin_kb();
	cr_expect_eq(r->pool.size, 64ull << 20, "pool %llu bytes",
		     (unsigned long long)r->pool.size);
	cr_log_info("VmPin %ld kB -> %ld kB, pool %llu KiB, notes: %s",
		    before, after, (unsigned long long)r->pool.size / 1024,
		    stg_reader_notes(r));
	if (before >= 0 && strstr(stg_reader_notes(r), "not registered") == NULL)
		cr_expect_leq(after - before, 64l * 1024,
			      "VmPin grew by %ld kB", after - before);
	stg_reader_destroy(r);
}

/*
 * Files whose size fills their buffer exactly (a power of two, and the
 * whole pool) are read whole, and growth past them still shows, on every
 * backend that reads a disk, buffered and O_DIRECT.
 */
FR_TEST(backend_pool, files_filling_their_buffer_read_whole_and_growth_shows)
{
	for (int b = 0; b < TB_NBACKENDS; b++) {
		if (tb_backends[b] == STG_BACKEND_NULL ||
		    !tb_backend_usable(tb_backends[b]))
			continue;
		for (int direct = 0; direct < 2; direct++) {
			char *dir = fr_test_tmpdir();
			struct tb_file f[6];
			struct tb_result res[6];
			struct stg_reader_config cfg = {
				.backend = tb_backends[b],
				.depth = 4,
				.block_size = 64 * 1024,
				.max_sample_bytes = 256 * 1024,
				.max_inflight_bytes = 4096,
				.direct = direct,
			};
			struct stg_reader *r;

			tb_make_file(dir, &f[0], 0, 65536, 1);
			tb_make_file(dir, &f[1], 1, 262144, 2); /* the pool */
			tb_make_file(dir, &f[2], 2, 4096, 3);
			tb_make_file(dir, &f[3], 3, 65536, 4);  /* grows */
			tb_make_file(dir, &f[4], 4, 262144, 5); /* grows */
			tb_make_file(dir, &f[5], 5, 131072, 6); /* grows */
			cr_assert_eq(truncate(f[3].path, 65537), 0);
			cr_assert_eq(truncate(f[4].path, 262144 + 4096), 0);
			cr_assert_eq(truncate(f[5].path, 131072 + 5000), 0);
			cr_assert_eq(stg_reader_create(&cfg, &r), 0);
			cr_expect_eq(r->pool.size, 262144);
			tb_read_all(r, f, 6, res);
			for (int i = 0; i < 3; i++) {
				cr_expect_eq(res[i].result, 0, "%s direct=%d "
					     "f%d: %s",
					     stg_backend_name(tb_backends[b]),
					     direct, i,
					     stg_strerror(res[i].result));
				cr_expect_eq(res[i].sum, f[i].sum);
			}
			for (int i = 3; i < 6; i++)
				cr_expect_eq(res[i].result, -STG_EGREW,
					     "%s direct=%d f%d: %s",
					     stg_backend_name(tb_backends[b]),
					     direct, i,
					     stg_strerror(res[i].result));
			stg_reader_destroy(r);
			fr_test_rmtree(dir);
		}
	}
}
