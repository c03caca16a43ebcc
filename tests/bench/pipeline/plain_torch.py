#!/usr/bin/python3
"""A plain PyTorch DataLoader, timed by itself: the peer of
`feedrate run --pipeline torch` in bench_pipeline.sh.

The same pipeline as feedrate's runner (torchvision ImageFolder, PIL,
RandomResizedCrop(224), RandomHorizontalFlip, ToTensor, Normalize; a
DataLoader with shuffle, --workers persistent workers, prefetch_factor 2),
the same warm-up (2 s and 2 batches), then samples/s over --duration
seconds counted where the batches arrive, and the CPU time of the process
and its workers per sample. Run it pinned (taskset); prints one line
"plain_torch: samples_per_s=... samples=... seconds=...
cpu_ms_per_sample=...".
"""
import argparse
import os
import time


def cpu_s():
    """CPU seconds of this process and its live children (the workers)."""
    t = os.times()
    total = t[0] + t[1]
    me = os.getpid()
    for tid in os.listdir("/proc/%d/task" % me):
        try:
            with open("/proc/%d/task/%s/children" % (me, tid)) as f:
                kids = [int(x) for x in f.read().split()]
        except OSError:
            continue
        for k in kids:
            try:
                with open("/proc/%d/stat" % k) as f:
                    fl = f.read().rsplit(")", 1)[1].split()
                total += (int(fl[11]) + int(fl[12])) / \
                    os.sysconf("SC_CLK_TCK")
            except OSError:
                pass
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    import torch
    from torch.utils.data import DataLoader
    from torchvision import datasets, transforms

    tf = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406],
                             std=[0.229, 0.224, 0.225]),
    ])
    g = torch.Generator()
    g.manual_seed(a.seed)
    loader = DataLoader(datasets.ImageFolder(a.root, transform=tf),
                        batch_size=a.batch, shuffle=True,
                        num_workers=a.workers, persistent_workers=True,
                        prefetch_factor=2, generator=g)
    t0 = time.monotonic()
    seen = 0
    t_win = None
    samples = 0
    while True:
        for x, _ in loader:
            now = time.monotonic()
            seen += 1
            if t_win is None:
                if now - t0 >= 2.0 and seen >= 2:
                    t_win = now
                    c0 = cpu_s()
                continue
            samples += x.shape[0]
            if now - t_win >= a.duration:
                print("plain_torch: samples_per_s=%.1f samples=%d "
                      "seconds=%.2f cpu_ms_per_sample=%.3f" % (
                          samples / (now - t_win), samples, now - t_win,
                          (cpu_s() - c0) / samples * 1e3), flush=True)
                return


if __name__ == "__main__":
    main()
