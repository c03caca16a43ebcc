#!/usr/bin/python3
"""Reference statistics of torchvision's RandomResizedCrop.get_params.

Derivation: see docs/crop_reference.md. Pure Python (no numpy):

    /usr/bin/python3 docs/crop_reference.py

For each image size W x H it integrates, over the log-ratio u (midpoint
rule, N points) and exactly over the area fraction s (the rounded crop
sides are step functions of s, so [0.08, 1] splits into intervals on which
w and h are constant), the per-try acceptance probability and the moments
of an accepted crop. Tries are independent, so the crop returned is an
accepted try's with probability 1 - (1 - p)^10 and the centre fallback
otherwise.
"""
import math
import sys

SCALE = (0.08, 1.0)
RATIO = (3.0 / 4.0, 4.0 / 3.0)
TRIES = 10
N = int(sys.argv[1]) if len(sys.argv) > 1 else 4000


def py_round(x):
    return round(x)          # Python's round: ties to even, as torchvision


def fallback(W, H):
    in_ratio = W / H
    if in_ratio < min(RATIO):
        w = W
        h = int(py_round(w / min(RATIO)))
    elif in_ratio > max(RATIO):
        h = H
        w = int(py_round(h * max(RATIO)))
    else:
        w, h = W, H
    return w, h


def stats(W, H):
    A = W * H
    l0, l1 = math.log(RATIO[0]), math.log(RATIO[1])
    s0, s1 = SCALE
    p_acc = m_area = m_area2 = m_logr = m_logr2 = 0.0
    rmin, rmax = float("inf"), 0.0
    for i in range(N + 1):
        # midpoints, plus the two end points for the ratio extremes only
        if i < N:
            u = l0 + (i + 0.5) / N * (l1 - l0)
            weight = 1.0 / N
        else:
            u, weight = None, 0.0
        for uu in ([u] if u is not None else [l0, l1]):
            r = math.exp(uu)
            cuts = {s0, s1}
            # w = round(sqrt(A s r)) changes where sqrt(A s r) = k + 0.5
            for side, c in ((A * r, None), (A / r, None)):
                k0 = int(math.sqrt(side * s0) - 0.5)
                k1 = int(math.sqrt(side * s1) + 0.5) + 1
                for k in range(max(k0, 0), k1 + 1):
                    s = (k + 0.5) ** 2 / side
                    if s0 < s < s1:
                        cuts.add(s)
            cuts = sorted(cuts)
            for a, b in zip(cuts, cuts[1:]):
                sm = 0.5 * (a + b)
                w = py_round(math.sqrt(A * sm * r))
                h = py_round(math.sqrt(A * sm / r))
                if not (0 < w <= W and 0 < h <= H):
                    continue
                ratio = w / h
                rmin, rmax = min(rmin, ratio), max(rmax, ratio)
                if weight == 0.0:
                    continue
                ds = (b - a) / (s1 - s0) * weight
                fa = w * h / A
                lr = math.log(ratio)
                p_acc += ds
                m_area += ds * fa
                m_area2 += ds * fa * fa
                m_logr += ds * lr
                m_logr2 += ds * lr * lr
    q = (1.0 - p_acc) ** TRIES          # fallback rate
    fw, fh = fallback(W, H)
    fa = fw * fh / A
    flr = math.log(fw / fh)
    # moments of the returned crop: accepted-try law mixed with fallback
    ea = (1 - q) * m_area / p_acc + q * fa
    ea2 = (1 - q) * m_area2 / p_acc + q * fa * fa
    el = (1 - q) * m_logr / p_acc + q * flr
    el2 = (1 - q) * m_logr2 / p_acc + q * flr * flr
    return dict(p_acc=p_acc, fallback=q, area=ea, area_sd=math.sqrt(ea2 - ea * ea),
                logr=el, logr_sd=math.sqrt(max(el2 - el * el, 0.0)),
                rmin=rmin, rmax=rmax, fb_w=fw, fb_h=fh)


if __name__ == "__main__":
    print("| image | accept/try | fallback rate | mean area | sd area | "
          "mean log(w/h) | sd log(w/h) | w/h range (accepted) | fallback crop |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for W, H in ((500, 375), (375, 500), (1000, 100), (100, 1000)):
        s = stats(W, H)
        print("| %dx%d | %.6f | %.6e | %.6f | %.6f | %+.6f | %.6f | %.6f .. %.6f | %dx%d |"
              % (W, H, s["p_acc"], s["fallback"], s["area"], s["area_sd"],
                 s["logr"], s["logr_sd"], s["rmin"], s["rmax"], s["fb_w"], s["fb_h"]))
