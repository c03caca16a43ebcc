#!/usr/bin/python3
"""Compares feedrate's train/eval outputs with PIL doing the same steps.

    bench_aug_vs_pil OUT DCT FILES... | /usr/bin/python3 vs_pil.py

Train: PIL crop((x, y, x+w, y+h)).resize((224, 224), BILINEAR), mirrored
when the sample was flipped (torchvision's RandomResizedCrop on PIL).
Eval: resize the short side to 256 (long side int(256*long/short)),
centre crop 224 with int(round((n - 224) / 2)) (torchvision Resize +
CenterCrop). Both decode with the system libjpeg (PIL's defaults: ISLOW
IDCT, fancy upsampling). Prints per kind: samples, mean |diff|, p99, max.
"""
import sys

try:
    from PIL import Image
except ImportError:
    print("vs_pil: PIL is not installed (python3-pil); skipped")
    sys.exit(0)

BIL = Image.BILINEAR
stats = {}
for line in sys.stdin:
    f = line.split()
    kind, path, raw = f[0], f[1], f[2]
    im = Image.open(path).convert("RGB")
    if kind == "train":
        x, y, w, h, flip, den = map(int, f[3:9])
        ref = im.crop((x, y, x + w, y + h)).resize((224, 224), BIL)
        if flip:
            ref = ref.transpose(Image.FLIP_LEFT_RIGHT)
        kind += " (DCT-scaled)" if den > 1 else " (full resolution)"
    else:
        den = int(f[3])
        W, H = im.size
        if W <= H:
            nw, nh = 256, int(256 * H / W)
        else:
            nw, nh = int(256 * W / H), 256
        l, t = int(round((nw - 224) / 2.0)), int(round((nh - 224) / 2.0))
        ref = im.resize((nw, nh), BIL).crop((l, t, l + 224, t + 224))
        kind += " (DCT-scaled)" if den > 1 else " (full resolution)"
    hist = stats.setdefault(kind, [0] * 256)
    for a, b in zip(ref.tobytes(), open(raw, "rb").read()):
        hist[abs(a - b)] += 1
for kind, hist in sorted(stats.items()):
    n = sum(hist)
    mean = sum(i * c for i, c in enumerate(hist)) / n
    acc, p99 = 0, 0
    for i, c in enumerate(hist):
        acc += c
        if acc >= 0.99 * n:
            p99 = i
            break
    worst = max(i for i, c in enumerate(hist) if c)
    print("%-28s samples %4d  mean |diff| %.3f  p99 %d  max %d  exact %.1f%%"
          % (kind, n // (224 * 224 * 3), mean, p99, worst, 100.0 * hist[0] / n))
