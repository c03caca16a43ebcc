#!/usr/bin/python3
"""PyTorch peer of the augment benchmark.

Measures images/s of the standard torchvision ImageNet train transform
(ImageFolder + PIL loading, RandomResizedCrop(224), RandomHorizontalFlip,
ToTensor, Normalize) through a DataLoader with num_workers=0 and one intra-op
thread, i.e. the per-core rate of the pipeline most PyTorch users train with.

Storage is kept out of the measurement: every file is read once before the
timed passes, so the loader's reads are served from the page cache.

Rates are images per CPU-second of the process (user + system, so page
faults count), medians over the repeats; wall-clock rates are printed too.
The caller pins the process to one CPU (taskset) and picks the malloc
environment; this script reports what it measured on one line that starts
with "torch_peer:", as key=value pairs.
"""
import argparse
import os
import resource
import statistics
import sys
import time


def warm_page_cache(paths):
    """Reads every file once so the timed passes never wait for storage."""
    total = 0
    for p in paths:
        with open(p, "rb") as f:
            while True:
                chunk = f.read(1 << 20)
                if not chunk:
                    break
                total += len(chunk)
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", help="ImageFolder root (class folders below it)")
    ap.add_argument("--repeats", type=int, default=3,
                    help="timed passes (default 3); the median is reported")
    ap.add_argument("--images", type=int, default=0,
                    help="images per timed pass (default: the whole set)")
    ap.add_argument("--batch", type=int, default=32,
                    help="DataLoader batch size (default 32)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    import torch
    from torch.utils.data import DataLoader, RandomSampler
    from torchvision import datasets, transforms

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)

    tf = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406],
                             std=[0.229, 0.224, 0.225]),
    ])
    ds = datasets.ImageFolder(args.root, transform=tf)
    n = len(ds)
    if n == 0:
        print("torch_peer: error=no images under %s" % args.root)
        return 1
    per_pass = args.images if 0 < args.images <= n else n
    warm_page_cache([p for p, _ in ds.samples])

    rates = []       # images per CPU-second (user + system) of the process
    wall_rates = []  # images per wall-clock second
    faults = []
    for rep in range(args.repeats):
        g = torch.Generator()
        g.manual_seed(args.seed + rep)
        sampler = RandomSampler(ds, replacement=False,
                                num_samples=per_pass, generator=g)
        dl = DataLoader(ds, batch_size=args.batch, sampler=sampler,
                        num_workers=0)
        it = iter(dl)
        # The first batch pays for lazy initialisation (first decode,
        # allocator growth): it is a warm-up and is not timed.
        first, _ = next(it)
        done = 0
        flt0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        c0 = time.process_time()
        t0 = time.perf_counter()
        for x, _ in it:
            done += x.shape[0]
        t1 = time.perf_counter()
        c1 = time.process_time()
        flt1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        if done == 0:
            print("torch_peer: error=set too small for batch %d" % args.batch)
            return 1
        rates.append(done / (c1 - c0))
        wall_rates.append(done / (t1 - t0))
        faults.append((flt1 - flt0) / done)
        del first

    print("torch_peer: images=%d per_pass=%d batch=%d repeats=%d "
          "rate_median=%.1f rates=%s wall_rate_median=%.1f "
          "minflt_per_img=%.0f torch=%s "
          "torchvision=%s threads=%d cpus=%s"
          % (n, per_pass, args.batch, args.repeats,
             statistics.median(rates),
             ",".join("%.1f" % r for r in rates),
             statistics.median(wall_rates),
             statistics.median(faults), torch.__version__,
             __import__("torchvision").__version__,
             torch.get_num_threads(),
             ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
