#!/usr/bin/python3
"""PyTorch DataLoader peer for the end-to-end benchmark, all cores.

Measures images/s (wall clock) of the standard torchvision ImageNet train
pipeline (ImageFolder + PIL, RandomResizedCrop(224), RandomHorizontalFlip,
ToTensor, Normalize) through a DataLoader with --workers worker processes,
each with one intra-op thread: the pipeline most PyTorch users train with,
given as many processes as feedrate gets CPUs. The files are read once first
so the loader reads from the page cache (feedrate's side runs --cache warm).

Each timed pass draws --images samples (default: the whole set, at least
--min-images by drawing with replacement) after one untimed warm-up batch
per worker. Prints one line starting with "torch_workers:" of key=value
pairs; rate_median is the median over --repeats passes.
"""
import argparse
import os
import statistics
import sys
import time


def warm_page_cache(paths):
    for p in paths:
        with open(p, "rb") as f:
            while f.read(1 << 20):
                pass


def proc_cpu_s(pid):
    """user + system CPU seconds of process PID so far; None when gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # fields[0] is the state (field 3); utime and stime are fields 14, 15
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loader_cpu_s(it):
    """CPU seconds of this process and the loader's worker processes, or
    None once a worker has exited (its clock can no longer be read)."""
    total = sum(os.times()[:2])
    for w in getattr(it, "_workers", []):
        c = proc_cpu_s(w.pid)
        if c is None or not w.is_alive():
            return None
        total += c
    return total


def worker_init(_):
    import torch
    torch.set_num_threads(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", help="ImageFolder root (class folders below it)")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--min-images", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    import torch
    from torch.utils.data import DataLoader, RandomSampler
    from torchvision import datasets, transforms

    torch.set_num_threads(1)
    tf = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406],
                             std=[0.229, 0.224, 0.225]),
    ])
    ds = datasets.ImageFolder(args.root, transform=tf)
    if len(ds) == 0:
        print("torch_workers: error=no images under %s" % args.root)
        return 1
    warm_page_cache([p for p, _ in ds.samples])
    n = max(len(ds), args.min_images)
    rates = []
    cpu_rates = []  # images per CPU-second, main process and workers
    for rep in range(args.repeats):
        g = torch.Generator()
        g.manual_seed(args.seed + rep)
        sampler = RandomSampler(ds, replacement=n > len(ds), num_samples=n,
                                generator=g)
        extra = {"worker_init_fn": worker_init} if args.workers else {}
        dl = DataLoader(ds, batch_size=args.batch, sampler=sampler,
                        num_workers=args.workers, **extra)
        it = iter(dl)
        # one batch per worker pays for process start-up: not timed
        for _ in range(max(1, args.workers)):
            next(it)
        done = 0
        c0 = loader_cpu_s(it)
        t0 = time.perf_counter()
        c_done, c1 = 0, c0
        for x, _ in it:
            done += x.shape[0]
            # CPU clocks can be read while the workers live: keep the
            # last reading and the images delivered by then
            c = loader_cpu_s(it)
            if c is not None:
                c_done, c1 = done, c
        t1 = time.perf_counter()
        del it, dl
        rates.append(done / (t1 - t0))
        cpu_rates.append(c_done / (c1 - c0) if c0 is not None and c1 > c0
                         else 0.0)
    print("torch_workers: workers=%d images=%d per_pass=%d batch=%d "
          "rate_median=%.1f rates=%s cpu_rate_median=%.1f torch=%s cpus=%s"
          % (args.workers, len(ds), n, args.batch, statistics.median(rates),
             ",".join("%.1f" % r for r in rates),
             statistics.median(cpu_rates), torch.__version__,
             ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
