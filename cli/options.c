/*
 * options.c - every option of every command, one row each, sorted by name
 * (rows of the key engine, workloads/keys.h). Ranges and defaults come
 * from the named constants the commands use; a value added to a values
 * list is accepted, listed by --help and by a bad value's error at once.
 */
#include "cli.h"
#include "cluster.h"
#include "gen_write.h"
#include "report_ckpt.h"

#define RSS (C_RUN | C_SWEEP)                   /* run and sweep */
static const struct wl_key_value backend_values[] = {
	{ "auto", STG_BACKEND_AUTO, RSS | C_IO | C_CKPT },
	{ "uring", STG_BACKEND_URING, RSS | C_IO | C_CKPT },
	{ "psync", STG_BACKEND_PSYNC, RSS | C_IO | C_CKPT },
	{ "null", STG_BACKEND_NULL, C_IO },     /* no image bytes to decode */
	{ 0 } };
static const struct wl_key_value cache_values[] = {
	{ "cold", STG_CACHE_COLD, C_ALL },
	{ "ram", STG_CACHE_RAM, C_SWEEP | C_COMPARE },  /* run: --ram SIZE */
	{ "warm", STG_CACHE_WARM, C_ALL }, { 0 } };
static const struct wl_key_value compression_values[] = {
	{ "none", 0, C_GEN }, { "zstd", 1, C_GEN }, { 0 } };
static const struct wl_key_value format_values[] = {
	{ "auto", WL_FORMAT_AUTO, RSS },
	{ "folder", WL_FORMAT_FOLDER, RSS | C_GEN },
	{ "wds", WL_FORMAT_WDS, RSS | C_GEN },
	{ "mds", WL_FORMAT_MDS, RSS | C_GEN },
	{ "tfrecord", WL_FORMAT_TFRECORD, RSS | C_GEN },
	{ "tokens", WL_FORMAT_TOKENS, RSS },    /* gen: the tokens workload */
	{ 0 } };
static const struct wl_key_value pipeline_values[] = {
	{ "native", MS_PIPELINE_NATIVE, RSS },
	{ "torch", MS_PIPELINE_TORCH, RSS },
	{ "python:FILE", MS_PIPELINE_FILE, RSS },
	{ "gpu-decode[:hw|:hybrid]", MS_PIPELINE_GPU_DECODE, RSS }, { 0 } };
static const struct wl_key_value sync_values[] = {
	{ "all", LDR_GPU_SYNC_ALL, RSS }, { "none", LDR_GPU_SYNC_NONE, RSS },
	{ 0 } };

#define SZ(x) ((double)(x))

const struct wl_key cli_options[] = {
{ "backend", 0, WL_K_ENUM, "B", RSS | C_IO | C_CKPT, .values = backend_values,
  .defs = { { RSS | C_IO | C_CKPT, .text = "auto" } }, .group = G_ENGINE,
  .help = "how reads (ckpt: writes) are issued: auto (io: a short probe "
  "keeps psync only when clearly (1.2x) faster; else io_uring where this "
  "process may use it), uring, psync (pread/pwrite threads) or null (io: "
  "no disk, synthetic bytes)" },
{ "batch", 'b', WL_K_UINT, "N", RSS, .lo = 1, .hi = WL_BATCH_MAX,
  .defs = { { RSS, LDR_DEFAULT_BATCH, "the workload's, else %s" } },
  .group = G_WORKLOAD, .help = "samples per batch" },
{ "block-size", 0, WL_K_SIZE, "SIZE", C_IO | C_CKPT, .lo = 4096,
  .hi = SZ(64u << 20), .step = 4096, .defs = { { C_IO,
  STG_DEFAULT_BLOCK_SIZE }, { C_CKPT, STG_SEQ_BLOCK_DEFAULT } },
  .group = G_ENGINE, .help = "bytes per read (ckpt: per write and read); "
  "larger files are read in chunks of this size, several in flight" },
{ "budget", 'B', WL_K_TIME, "TIME", C_SWEEP, .gt = true,
  .defs = { { C_SWEEP, CLI_SWEEP_BUDGET_S } }, .group = G_MEASURE,
  .help = "the whole sweep; see the rule below" },
{ "bytes-per-param", 0, WL_K_REAL, "B", C_CKPT, .gt = true, .hi = 1024,
  .defs = { { C_CKPT, RPT_CKPT_BYTES_PER_PARAM } }, .group = G_MEASURE,
  .help = "bytes per parameter: 14 is a saved mixed-precision Adam "
  "checkpoint (bf16/fp16 weights 2 + fp32 master 4 + two fp32 moments 8; "
  "gradients are not saved), 16 training memory with gradients, 12 fp32 "
  "weights and moments, 2 bf16 weights only" },
{ "cache", 0, WL_K_ENUM, "STATE", RSS | C_IO, C_SWEEP,
  .values = cache_values, .defs = { { C_RUN, .text = "cold" },
  { C_SWEEP, .text = "all" }, { C_IO, .text = "the page cache as it is" } },
  .group = G_MEASURE, .help = "cold: evict every file first (run and "
  "sweep also read with O_DIRECT so every epoch stays cold; buffered, "
  "and said, where the filesystem refuses it); warm: read the dataset "
  "into the page cache first; ram (sweep): the page cache of --ram; "
  "both verified" },
{ "ckpt", 0, WL_K_TEXT, "FILE", C_SWEEP, .group = G_REPORT,
  .help = "the JSON report of 'feedrate ckpt' on this VM: its save and "
  "restore times and rates, shown in every report" },
{ "ckpt-budget", 0, WL_K_CUSTOM, "PCT", C_CKPT, .gt = true, .hi = 100,
  .defs = { { C_CKPT, RPT_CKPT_DEFAULT_BUDGET * 100 } }, .group = G_MEASURE,
  .help = "the share of time saving may take",
  .want = "a percentage between 0 and 100 (5 or 5%)",
  .parse = wl_key_percent },
{ "compression", 0, WL_K_ENUM, "C", C_GEN, .values = compression_values,
  .defs = { { C_GEN, .text = "none" } }, .group = G_DATASET,
  .help = "zstd: wds writes shard-000000.tar.zst (the tar as one zstd "
  "frame), mds shard.00000.mds.zstd, the tokens workload "
  "tokens-00000.bin.zst (without: Megatron .idx/.bin pairs)" },
{ "cost-cache", 0, WL_K_ENUM, "STATE", C_COMPARE, .values = cache_values,
  .defs = { { C_COMPARE, .text = "each report's slowest measured state" } },
  .group = G_REPORT, .help = "the cache state priced" },
{ "csv", 0, WL_K_TEXT, "FILE", C_SWEEP, .group = G_REPORT, .help = "one row "
  "per point" },
{ "demand", 0, WL_K_ENUM, "K", RSS | C_CKPT, .values = wl_demand_values,
  .defs = { { RSS | C_CKPT, .text = "the workload's (train for imagenet)" } },
  .group = G_WORKLOAD, .help = "which GPU demand rows judge: train (or tuned): "
  "the tuned training throughput, its recipe's own data loader; mlperf: "
  "MLPerf Storage's emulated accelerators; ceiling: the GPU fed by GPU-side "
  "decode (MLPerf Training), what would starve it if the input pipeline "
  "were perfect" },
{ "depth", 0, WL_K_UINT, "N", RSS | C_IO | C_CKPT, .lo = 1, .hi = 4096,
  .defs = { { RSS | C_IO, LDR_DEFAULT_DEPTH }, { C_CKPT,
  STG_SEQ_DEPTH_DEFAULT } }, .group = G_ENGINE, .help = "I/O requests in "
  "flight: reads per reader (psync: N pread threads per reader); ckpt: "
  "blocks per shard, fewer where they would pass its memory cap" },
{ "direct", 0, WL_K_FLAG, NULL, C_IO | C_CKPT, .group = G_ENGINE,
  .help = "O_DIRECT reads (ckpt: writes and reads; io: buffered where "
  "the filesystem refuses)" },
{ "duration", 'd', WL_K_TIME, "TIME", C_RUN | C_IO, .gt = true,
  .defs = { { C_RUN, LDR_DEFAULT_DURATION_S }, { C_IO,
  .text = "its files once" } }, .group = G_MEASURE,
  .help = "measured time (run: after the warm-up; io: read in passes "
  "until it is up)" },
{ "epoch-samples", 0, WL_K_COUNT, "N", C_CKPT | C_COMPARE, .lo = 1,
  .hi = 1e16, .defs = { { C_COMPARE, .text = "each report's dataset "
  "files, one sample per file" } }, .group = G_REPORT,
  .help = "samples per epoch (1281167, 1.2M): ckpt: with the GPUs' "
  "demand, the epoch time and one save per epoch; compare: the cost per "
  "epoch" },
{ "epochs", 0, WL_K_UINT, "N", C_RUN, .lo = 1, .group = G_MEASURE,
  .help = "stop after N epochs" },
{ "files", 'n', WL_K_UINT, "N", C_GEN, .lo = 1, .hi = 1e8,
  .group = G_MEASURE, .help = "write exactly N files (instead of --size)" },
{ "format", 'f', WL_K_ENUM, "F", RSS | C_GEN, .values = format_values,
  .defs = { { RSS, .text = "auto: detected" }, { C_GEN, .text = "the "
  "workload's, e.g. tfrecord for resnet50, else folder" } },
  .group = G_DATASET, .help = "how the dataset is stored: folder (one "
  "image file per sample, as ImageFolder), wds (WebDataset .tar / .tar.zst "
  "shards), mds (MosaicML MDS: index.json), tfrecord (tf.train.Example "
  "records), tokens (token streams)" },
{ "from", 0, WL_K_TEXT, "SRC", C_GEN, .group = G_DATASET, .help = "convert "
  "the ImageFolder SRC instead: its folders sorted bytewise are the classes "
  "(labels 0, 1, ... as torchvision numbers them), its .jpg, .jpeg, .png "
  "and .webp files go in byte for byte; SRC is only read, and DIR may not "
  "lie inside it" },
{ "gen-size", 0, WL_K_SIZE, "SIZE", RSS, .lo = SZ(1u << 20),
  .defs = { { RSS, MS_DEFAULT_GEN } }, .group = G_DATASET,
  .help = "size of the generated dataset" },
{ "gpu-rate", 0, WL_K_REAL, "R", RSS | C_CKPT, .gt = true, .hi = 1e12,
  .defs = { { RSS | C_CKPT, .text = "the demand table's" } },
  .group = G_WORKLOAD, .help = "samples/s one GPU eats" },
{ "gpu-sync", 0, WL_K_ENUM, "MODE", RSS, .values = sync_values,
  .defs = { { RSS, .text = "all" } }, .group = G_WORKLOAD,
  .help = "all: the GPUs step together; none: independently" },
{ "gpus", 'g', WL_K_TEXT, "SPEC", RSS | C_CKPT, .defs = { { RSS,
  .text = "1 GPU of the workload's default type" }, { C_CKPT, 1 } },
  .group = G_WORKLOAD, .help = "emulated GPUs: 8xA100, 2xH100, A100; run "
  "also takes 0, the raw feed rate with no consumer; ckpt: one shard per "
  "GPU rank" },
{ "help", 'h', WL_K_FLAG, NULL, C_ALL, .group = G_OTHER, .help = "this help" },
{ "html", 0, WL_K_TEXT, "FILE", RSS | C_IO | C_COMPARE, .group = G_REPORT,
  .help = "one self-contained HTML page (run and io: the cluster report, "
  "under mpirun)" },
{ "interval", 0, WL_K_TIME, "TIME", C_CKPT, .gt = true, .group = G_MEASURE,
  .help = "a checkpoint interval to judge (30m, 1h)" },
{ "jobs", 'j', WL_K_UINT, "N", C_GEN, .lo = 1, .hi = WL_GEN_MAX_JOBS,
  .defs = { { C_GEN, WL_GEN_FROM_JOBS, "the CPUs this process may use; "
  "with --from, %s readers" } }, .group = G_ENGINE,
  .help = "worker threads; same output for any N" },
{ "json", 0, WL_K_TEXT, "FILE|-", RSS | C_IO | C_CKPT | C_INFO,
  .group = G_REPORT, .help = "the results as JSON (docs/report-schema.md); "
  "\"-\" is stdout, and the text report then goes to stderr" },
{ "keep", 0, WL_K_FLAG, NULL, C_CKPT, .group = G_ENGINE,
  .help = "keep the shards after the run" },
{ "keep-dataset", 0, WL_K_FLAG, NULL, RSS, .group = G_DATASET,
  .help = "keep the generated dataset and print its path" },
{ "list", 0, WL_K_TEXT, "FILE", RSS | C_IO, .group = G_DATASET,
  .help = "read the files named in FILE (\"PATH\" or \"SIZE<TAB>PATH\" "
  "per line), relative to DATASET" },
{ "max-errors", 0, WL_K_UINT, "N", RSS, .lo = 1, .group = G_ENGINE,
  .help = "stop when N samples have failed (exit 4)" },
{ "max-sample-bytes", 0, WL_K_SIZE, "SIZE", RSS | C_IO,
  .lo = WL_SAMPLE_BYTES_MIN, .hi = WL_SAMPLE_BYTES_MAX, .defs = { { RSS,
  MS_MAX_SAMPLE_BYTES, "the workload's, else %s" }, { C_IO,
  CLI_IO_MAX_SAMPLE_BYTES } }, .group = G_DATASET, .help = "larger files "
  "are counted as over the cap, not read; with shards, the largest record" },
{ "mpi-timeout", 0, WL_K_TIME, "TIME", C_RUN | C_IO, .gt = true,
  .defs = { { C_RUN | C_IO, MS_CLUSTER_DEFAULT_TIMEOUT_S } },
  .group = G_MPI, .help = "a rank silent this long in a step is reported "
  "lost and the others go on" },
{ "no-check", 0, WL_K_FLAG, NULL, C_SWEEP, .group = G_MEASURE, .help = "skip "
  "the runs with emulated GPUs" },
{ "params", 0, WL_K_COUNT, "N", C_CKPT, .lo = 1, .hi = 1e16,
  .group = G_MEASURE, .help = "parameters: 7B, 70B, 1.5B, 350M (decimal)" },
{ "pipeline", 0, WL_K_CUSTOM, "P", RSS, C_SWEEP, .values = pipeline_values,
  .defs = { { RSS, .text = "native" } }, .group = G_PIPELINE,
  .help = "native: feedrate's own, the class of DALI's CPU path; torch: a "
  "torchvision ImageFolder DataLoader with PIL; python:FILE: FILE's "
  "make_loader(root, batch_size, num_workers, seed); gpu-decode: the CPU's "
  "share of DALI's mixed JPEG decoder, hw (headers parsed, bytes staged; the "
  "default where the GPU has a hardware decoder) or hybrid (entropy decode to "
  "coefficients), the GPU's share modelled from a cited source; sweep takes a "
  "list (no repeats, e.g. native,torch) and gives a verdict for each",
  .parse = ms_val_pipeline },
{ "price", 0, WL_K_CUSTOM, "USD_PER_HOUR", C_SWEEP | C_COMPARE, C_COMPARE,
  .gt = true, .hi = 1e6, .group = G_REPORT, .help = "the hourly price, on-demand or "
  "spot as you pay it: USD per million samples and per epoch at the feed "
  "the GPUs get; compare: NAME=USD_PER_HOUR for candidate NAME (its "
  "instance type, else its report's file name), repeated, and the "
  "cheapest candidate that feeds its GPUs",
  .want = "USD per hour, more than 0 (e.g. 32.77; compare: NAME=USD)",
  .parse = wl_key_named_real },
{ "probe-cache", 0, WL_K_FLAG, NULL, C_INFO, .group = G_MEASURE,
  .help = "check on one file under PATH that eviction and warming work "
  "(reads that file once, leaves it evicted)" },
{ "python", 0, WL_K_TEXT, "PATH", RSS, .defs = { { RSS, .text = "python3 "
  "on PATH" } }, .group = G_PIPELINE,
  .help = "the interpreter of torch and python:FILE" },
{ "quiet", 'q', WL_K_FLAG, NULL, C_GEN, .group = G_OTHER,
  .help = "no progress line" },
{ "ram", 0, WL_K_CUSTOM, "SIZE", RSS, C_SWEEP, .defs = { { C_SWEEP,
  .text = "50%, then 25% and 75% as the budget allows" } }, .group = G_MEASURE,
  .help = "the steady state of a VM whose page cache is SIZE: the dataset "
  "evicted, then a memory cgroup of SIZE plus the run's own memory, the "
  "hit ratio measured (an LRU estimate, said so, where no cgroup can be "
  "made); run: 2 epochs unless --epochs or --duration say otherwise; "
  "sweep: the first at every vCPU count, the others at all vCPUs",
  .want = "a size of at least 1M (sweep: a list of up to 8 sizes or "
  "shares of the dataset, e.g. 16G or 25%,50%,75%)", .parse = ms_val_ram },
{ "read-size", 0, WL_K_SIZE, "SIZE", RSS, .lo = 4096, .hi = SZ(256u << 20),
  .step = 4096, .defs = { { RSS, STG_STREAM_BLOCK_DEFAULT } },
  .group = G_DATASET, .help = "shards: bytes per sequential read" },
{ "readers", 0, WL_K_UINT, "N", RSS, .lo = 1, .hi = 256,
  .defs = { { RSS, 1 } }, .group = G_ENGINE, .help = "reader threads" },
{ "reserve-ram-per-gpu", 0, WL_K_SIZE, "SIZE", C_SWEEP, .defs = { {
  C_SWEEP, .text = "its pinned batches, 2 x batch x sample size, + 2G" } },
  .group = G_WORKLOAD, .help = "host RAM each GPU's training process "
  "needs, subtracted wherever the verdict says \"fits\" or \"spare\"" },
{ "reserve-vcpus-per-gpu", 0, WL_K_REAL, "N", C_SWEEP, .hi = 1024,
  .defs = { { C_SWEEP, RPT_RESERVE_VCPUS_PER_GPU } }, .group = G_WORKLOAD,
  .help = "vCPUs each GPU's training process needs, subtracted likewise" },
{ "runner-timeout", 0, WL_K_TIME, "TIME", RSS, .gt = true,
  .defs = { { RSS, MS_PYTHON_TIMEOUT_S } }, .group = G_PIPELINE,
  .help = "a Python runner silent this long is killed" },
{ "samples", 0, WL_K_UINT, "N", C_RUN, .lo = 1, .group = G_MEASURE,
  .help = "stop after at least N measured samples (whole batches)" },
{ "seed", 0, WL_K_UINT, "N", RSS | C_GEN | C_CKPT,
  .defs = { { RSS | C_GEN | C_CKPT, 1 } }, .group = G_ENGINE,
  .help = "the shuffle and augmentation seed; gen: the same seed and "
  "request give identical files; ckpt: the shards' bytes" },
{ "shard-size", 0, WL_K_SIZE, "SIZE", C_GEN, .lo = 1, .defs = { { C_GEN,
  .text = "100M, mds 64M as MDSWriter's size_limit" } }, .group = G_DATASET,
  .help = "a shard's uncompressed bytes at most; a shard is closed before "
  "a sample would pass it and holds at least one sample" },
{ "shards", 0, WL_K_UINT, "N", C_CKPT, .lo = 1, .hi = MS_CKPT_MAX_SHARDS,
  .defs = { { C_CKPT, .text = "the GPU count" } }, .group = G_MEASURE,
  .help = "shards, whatever --gpus says" },
{ "shuffle-buffer", 0, WL_K_UINT, "N", RSS, .lo = 1, .hi = 1000000,
  .defs = { { RSS, LDR_DEFAULT_SHUFFLE_BUFFER } }, .group = G_DATASET,
  .help = "shards: records each reader shuffles within, as WebDataset's "
  "shuffle(); 1 reads each shard in order; shards are shuffled per epoch" },
{ "size", 's', WL_K_SIZE, "SIZE", C_GEN | C_CKPT, .lo = 1,
  .group = G_MEASURE, .help = "the bytes written: gen stops once its "
  "files total SIZE; ckpt: the checkpoint's bytes (instead of --params)" },
{ "solo", 0, WL_K_TIME, "TIME", C_RUN | C_IO, .defs = { { C_RUN,
  MS_RUN_SOLO_S }, { C_IO, .text = "as --duration, or its files once" } },
  .group = G_MPI, .help = "cold: before the window each rank reads its "
  "share alone this long, the others idle, so the cluster's total is set "
  "against the sum of the nodes alone; 0 skips" },
{ "stall-timeout", 0, WL_K_TIME, "TIME", RSS | C_IO | C_CKPT | C_GEN,
  .lo = 0.1, .hi = 86400, .defs = { { RSS | C_IO | C_CKPT | C_GEN,
  LDR_DEFAULT_STALL_TIMEOUT_S } }, .group = G_ENGINE, .help = "no read "
  "(ckpt: or write; gen: of --from's SRC) completed for TIME while some "
  "are in flight: stop, report the storage STALLED with what was measured, "
  "exit 6" },
{ "steal-interval", 0, WL_K_TIME, "TIME", C_INFO, .hi = 60,
  .defs = { { C_INFO, CLI_STEAL_INTERVAL_S } }, .group = G_MEASURE,
  .help = "sample steal time over TIME; 0 skips" },
{ "step-time", 0, WL_K_TIME, "TIME", C_CKPT, .gt = true, .group = G_MEASURE,
  .help = "seconds per training step (0.8s, 2s)" },
{ "threads", 0, WL_K_UINT, "N", C_IO, .lo = 1, .hi = 1024,
  .defs = { { C_IO, 1 } }, .group = G_ENGINE,
  .help = "reader threads, each with its own reader" },
{ "tmpdir", 0, WL_K_TEXT, "DIR", RSS, .defs = { { RSS, .text = "/var/tmp, "
  "else $TMPDIR, /tmp or the current folder; never tmpfs" } },
  .group = G_DATASET, .help = "where to generate the dataset" },
{ "vcpus", 'c', WL_K_UINT, "K", RSS, C_SWEEP, .lo = 1, .hi = CPU_SETSIZE,
  .defs = { { C_RUN, .text = "every usable CPU" }, { C_SWEEP, .text = "1, "
  "2, 4, ... up to every usable CPU, plus the total" } }, .group = G_MEASURE,
  .help = "emulate a VM with K vCPUs: a child pinned to K CPUs taken as "
  "SMT sibling pairs; sweep: a list of counts, e.g. 1,2,8" },
{ "warmup", 0, WL_K_CUSTOM, "TIME", C_RUN, .defs = { { C_RUN,
  LDR_DEFAULT_WARMUP_S, "%ss and 2 batches per GPU" } }, .group = G_MEASURE,
  .help = "warm-up excluded from the numbers; 0 for none",
  .want = "a duration (e.g. 5s), 0 for none", .parse = wl_key_warmup },
{ "workers", 0, WL_K_UINT, "W", RSS, .lo = 1, .hi = 4096, .defs = { { RSS,
  .text = "the point's vCPUs - 1, at least 1" } }, .group = G_PIPELINE,
  .help = "DataLoader worker processes; run: also the native pipeline's "
  "transform threads (default: K)" },
{ "workload", 'w', WL_K_TEXT, "NAME|FILE", RSS | C_GEN | C_CKPT,
  .defs = { { RSS | C_GEN | C_CKPT, .text = "imagenet" } },
  .group = G_WORKLOAD, .help = "a workload below, or a job file (FILE.ini) "
  "describing your own; it sets the defaults of --batch, --demand and "
  "--max-sample-bytes (ckpt: whose GPU demand table)" },
{ "zstd-level", 0, WL_K_UINT, "N", C_GEN, .lo = 1, .hi = WL_ZSTD_MAX_LEVEL,
  .defs = { { C_GEN, WL_ZSTD_DEFAULT_LEVEL } }, .group = G_DATASET,
  .help = "zstd's level (needs --compression zstd)" },
};

const size_t cli_noptions = sizeof(cli_options) / sizeof(cli_options[0]);
