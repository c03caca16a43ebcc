"""An example FILE for `feedrate run|sweep --pipeline python:docs/my_loader.py`.

feedrate imports this file in its runner and calls

    make_loader(root, batch_size, num_workers, seed)

once, inside the measurement point's pinned child and memory cgroup, then
iterates what it returns, epoch after epoch, feeding the batches to its
emulated GPUs. Return any iterable of batches: a torch DataLoader, a
WebDataset pipeline, FFCV's or DALI's CPU loader where they are installed.
A batch's sample count is the first dimension of its first tensor (or
array), else len(batch). Start worker processes from here as usual: they
inherit the point's CPUs and cgroup, and feedrate ends them with the run.

This one is a plain ImageFolder loader with a Dataset of its own, to
show where your own transforms go.
"""
import os

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms


class JpegFolder(Dataset):
    """Every .jpg/.jpeg under ROOT, labelled by its first folder."""

    def __init__(self, root, transform):
        self.items = []
        classes = {}
        for folder, _, files in sorted(os.walk(root)):
            for name in sorted(files):
                if name.lower().endswith((".jpg", ".jpeg")):
                    rel = os.path.relpath(folder, root).split(os.sep)[0]
                    label = classes.setdefault(rel, len(classes))
                    self.items.append((os.path.join(folder, name), label))
        self.transform = transform

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, label = self.items[i]
        with open(path, "rb") as f:
            img = Image.open(f).convert("RGB")
        return self.transform(img), label


def make_loader(root, batch_size, num_workers, seed):
    tf = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406],
                             std=[0.229, 0.224, 0.225]),
    ])
    g = torch.Generator()
    g.manual_seed(seed)
    return DataLoader(JpegFolder(root, tf), batch_size=batch_size,
                      shuffle=True, num_workers=num_workers,
                      persistent_workers=num_workers > 0,
                      prefetch_factor=2 if num_workers > 0 else None,
                      generator=g)
