# torch_runner.py - feedrate's runner for --pipeline torch and
# --pipeline python:FILE. feedrate carries this file inside its binary,
# writes it into a private temporary folder (0700: Python puts the
# script's folder first on sys.path) and starts it with the chosen
# interpreter inside a measurement point's pinned child (and memory
# cgroup), so the DataLoader and its worker processes run on the point's
# vCPUs. It reports to feedrate as JSON lines on the file descriptor given
# by --fd; everything else it (or the user's FILE) prints goes to the
# stdout/stderr feedrate keeps the tail of.
#
# Lines sent ("t" is the type):
#   phase    {"t":"phase","what":...}           a long step starts
#   hello    versions, pid, batch, workers       after the imports
#   procs    pid, cpus and cgroup of the main    after the warm-up
#            process and of its children (the loader's workers)
#   tick     cumulative counts of the window     about once a second
#   done     the totals of the window            at the end (also after
#                                                SIGINT, with "stopped")
#   error    kind ("missing", "user", "runtime"), module, text
#
# The emulated GPUs run here, in the main process: each step holds a batch
# for batch / rate seconds (time.sleep: the GPU computes while the
# DataLoader's workers keep producing), synchronous across the GPUs
# (--sync all: a step starts when every GPU has its batch) or each on its
# own (--sync none). AU = compute / (compute + wait for a batch).
import argparse
import json
import os
import platform
import sys
import time
import traceback

OUT = None
RUNNER_PID = os.getpid()


def utf8_text(o):
    """O with its strings valid UTF-8: a non-UTF-8 name's bytes (Python
    holds them as lone surrogates, which json.dumps escapes and feedrate's
    JSON parser refuses, dropping the whole line) as \\xNN text."""
    if isinstance(o, str):
        try:
            b = o.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            b = o.encode("utf-8", "backslashreplace")
        return b.decode("utf-8", "backslashreplace")
    if isinstance(o, dict):
        return {utf8_text(k): utf8_text(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [utf8_text(v) for v in o]
    return o


def send(obj):
    # the last lines ("done", "error") start on a line of their own: a
    # SIGINT may have cut the line before them short
    lead = "\n" if obj.get("t") in ("done", "error") else ""
    OUT.write(lead + json.dumps(utf8_text(obj), separators=(",", ":")) +
              "\n")
    OUT.flush()


def tb_tail(lines=12, chars=4000):
    """The traceback's last LINES lines, its last CHARS characters at most
    (an exception's message may be huge; its end says most)."""
    text = traceback.format_exc().rstrip().splitlines()
    return "\n".join(text[-lines:])[-chars:]


def proc_field(pid, key):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def proc_cgroup(pid):
    """The memory controller's cgroup of PID (v1), else the v2 path."""
    v2 = ""
    try:
        with open("/proc/%d/cgroup" % pid) as f:
            for line in f:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) != 3:
                    continue
                if "memory" in parts[1].split(","):
                    return parts[2]
                if parts[0] == "0":
                    v2 = parts[2]
    except OSError:
        pass
    return v2


def proc_children(pid):
    """Child processes of PID, from every task's children list."""
    kids = []
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                    kids.extend(int(x) for x in f.read().split())
            except OSError:
                pass
    except OSError:
        pass
    return sorted(set(kids))


def proc_cpu_s(pid):
    """user + system CPU seconds of process PID; None when gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_rchar(pid):
    """Bytes PID has read with read() and friends (/proc/PID/io rchar):
    in a loader's worker, its files."""
    try:
        with open("/proc/%d/io" % pid) as f:
            for line in f:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


class CpuClock:
    """CPU seconds of this process and its children since start(): the
    live children from /proc, those already reaped from os.times()."""

    def start(self):
        t = os.times()
        self.self0 = t[0] + t[1]
        self.reaped0 = t[2] + t[3]
        self.kids0 = {}
        self.rchar0 = {}
        for k in proc_children(os.getpid()):
            c = proc_cpu_s(k)
            if c is not None:
                self.kids0[k] = c
            r = proc_rchar(k)
            if r is not None:
                self.rchar0[k] = r

    def read_bytes(self):
        """Bytes the live children read since start()."""
        total = 0
        for k in proc_children(os.getpid()):
            r = proc_rchar(k)
            if r is not None:
                total += r - self.rchar0.get(k, 0)
        return max(total, 0)

    def read(self):
        t = os.times()
        main = t[0] + t[1] - self.self0
        kids = t[2] + t[3] - self.reaped0
        live = set()
        for k in proc_children(os.getpid()):
            c = proc_cpu_s(k)
            if c is not None:
                live.add(k)
                kids += c - self.kids0.get(k, 0.0)
        # a worker replaced in the window (persistent_workers=False):
        # os.times() counts all its CPU, its part before the window too
        for k, c0 in self.kids0.items():
            if k not in live:
                kids -= c0
        return main, max(kids, 0.0)


def versions():
    v = {"python": platform.python_version(),
         "executable": sys.executable}
    for name in ("torch", "torchvision"):
        mod = sys.modules.get(name)
        if mod is not None:
            v[name] = getattr(mod, "__version__", "?")
    try:
        import PIL
        from PIL import features
        v["pillow"] = getattr(PIL, "__version__", "?")
        # "jpg" is the libjpeg API level (6.2 for libjpeg-turbo); the
        # release is what a user compares, where Pillow knows it
        jpg = features.version("jpg")
        turbo = features.check_feature("libjpeg_turbo")
        if turbo:
            try:
                jpg = features.version("libjpeg_turbo") or jpg
            except ValueError:
                pass
        if jpg:
            v["libjpeg"] = ("libjpeg-turbo " if turbo else "libjpeg ") + jpg
    except Exception:
        pass
    return v


def batch_len(b):
    """Samples in batch B: the first dimension of its first tensor (or
    array), else len()."""
    def first_dim(x):
        shape = getattr(x, "shape", None)
        if shape is not None and len(shape) > 0:
            return int(shape[0])
        return None

    n = first_dim(b)
    if n is not None:
        return n
    items = None
    if isinstance(b, dict):
        items = list(b.values())
    elif isinstance(b, (list, tuple)):
        items = b
    if items:
        for x in items:
            n = first_dim(x)
            if n is not None:
                return n
    return len(b)


def list_paths(list_path, root):
    """The files of LIST_PATH (feedrate's list format: "PATH" or
    "SIZE<TAB>PATH" a line; relative to ROOT), as bytes, in its order."""
    broot = os.fsencode(root)
    paths = []
    with open(list_path, "rb") as f:
        for line in f:
            line = line.rstrip(b"\n")
            head, tab, rest = line.partition(b"\t")
            if tab and head.isdigit():
                line = rest
            if line:
                paths.append(os.path.normpath(os.path.join(broot, line)))
    return paths


def list_class(path, broot):
    """ImageFolder's class of PATH: its first folder below the root (the
    folder holding it where it lies outside the root)."""
    rel = os.path.relpath(path, broot)
    if os.sep.encode() in rel and not rel.startswith(b".."):
        return rel.split(os.sep.encode(), 1)[0]
    return os.path.basename(os.path.dirname(path))


class ListDataset:
    """ImageFolder's samples for the files of a list, without walking the
    tree (a --list or a ram point's sample may leave class folders empty,
    which ImageFolder refuses): classes are the sorted names of the
    folders the files are in, as ImageFolder numbers them."""

    def __init__(self, paths, root, loader, transform):
        broot = os.fsencode(root)
        cls = [list_class(p, broot) for p in paths]
        index = {c: i for i, c in enumerate(sorted(set(cls)))}
        self.samples = [(os.fsdecode(p), index[c])
                        for p, c in zip(paths, cls)]
        self.loader = loader
        self.transform = transform

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        path, target = self.samples[i]
        return self.transform(self.loader(path)), target


def worker_init(_):
    """A DataLoader worker dies with the runner (PR_SET_PDEATHSIG,
    SIGKILL), whatever ends it: none is left behind."""
    try:
        import ctypes
        import signal
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))
    except Exception:
        pass
    if os.getppid() != RUNNER_PID:
        os._exit(0)         # the runner died before prctl


def make_torch_loader(a):
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
    if a.list:
        ds = ListDataset(list_paths(a.list, a.root), a.root,
                         datasets.folder.default_loader, tf)
        if not len(ds):
            raise ValueError("the list %s names no file" % a.list)
    else:
        ds = datasets.ImageFolder(a.root, transform=tf)
    g = torch.Generator()
    g.manual_seed(a.seed)
    return DataLoader(ds, batch_size=a.batch, shuffle=True,
                      num_workers=a.workers, persistent_workers=a.workers > 0,
                      prefetch_factor=2 if a.workers > 0 else None,
                      worker_init_fn=worker_init, generator=g)


def make_file_loader(a):
    import importlib.util
    # FILE's own folder first on sys.path, as `python FILE` has it: its
    # neighbour modules import (the runner's private folder holds none)
    sys.path.insert(0, os.path.dirname(os.path.abspath(a.file)))
    spec = importlib.util.spec_from_file_location("feedrate_user_loader",
                                                  a.file)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load %s as a Python file" % a.file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not hasattr(mod, "make_loader"):
        raise AttributeError("%s defines no make_loader(root, batch_size, "
                             "num_workers, seed[, files=])" % a.file)
    kw = {}
    if a.list and accepts_files(mod.make_loader):
        # --list: the loader is told the files, when it takes them
        kw["files"] = [os.fsdecode(p) for p in list_paths(a.list, a.root)]
    return mod.make_loader(a.root, a.batch, a.workers, a.seed, **kw)


def accepts_files(fn):
    """Does FN take a keyword argument files= (or **kwargs)?"""
    import inspect
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "files" and p.kind in (p.POSITIONAL_OR_KEYWORD,
                                                 p.KEYWORD_ONLY) or
               p.kind == p.VAR_KEYWORD for p in params)


class Gpus:
    """G emulated GPUs eating at RATE samples/s each; G = 0: a drain."""

    def __init__(self, g, rate, batch, sync_all):
        self.g = g
        self.sync_all = sync_all
        self.step = batch / rate if g and rate > 0 else 0.0
        self.compute = [0.0] * max(g, 1)
        self.wait = [0.0] * max(g, 1)
        self.free_at = [0.0] * max(g, 1)

    def reset(self, t_win):
        """The window opens at T_WIN: a step already running counts for
        its part inside it."""
        self.compute = [max(0.0, f - t_win) for f in self.free_at]
        self.wait = [0.0] * max(self.g, 1)

    def close(self, now, t_win):
        """The window ends at NOW: a step still running counts only up to
        NOW, and a GPU idle since its last step waited until NOW. Each
        GPU's compute + wait is then the window."""
        for k in range(len(self.free_at)):
            if self.free_at[k] > now:
                self.compute[k] = max(0.0, self.compute[k] -
                                      (self.free_at[k] - now))
            else:
                self.wait[k] += max(0.0, now - max(self.free_at[k], t_win))

    def au(self):
        c, w = sum(self.compute), sum(self.wait)
        return c / (c + w) if c + w > 0 else 0.0

    def au_each(self):
        return [c / (c + w) if c + w > 0 else 0.0
                for c, w in zip(self.compute, self.wait)]


def run(a):
    global OUT
    send({"t": "phase", "what": "import"})
    if a.mode == "torch":
        for mod in ("torch", "torchvision", "PIL"):
            try:
                __import__(mod)
            except ImportError:
                send({"t": "error", "kind": "missing", "module": mod,
                      "text": tb_tail(3)})
                return 3
    send({"t": "hello", "pid": os.getpid(), "versions": versions(),
          "batch": a.batch, "workers": a.workers, "mode": a.mode})
    if a.probe:
        return 0

    send({"t": "phase", "what": "make_loader"})
    try:
        loader = make_torch_loader(a) if a.mode == "torch" else \
            make_file_loader(a)
    except KeyboardInterrupt:
        send({"t": "done", "stopped": True, "samples": 0, "batches": 0,
              "measured_s": 0, "warmup_s": 0, "au": 0, "epochs": 0,
              "main_cpu_s": 0, "workers_cpu_s": 0, "warmup_incomplete":
              True})
        return 0
    except BaseException:
        send({"t": "error", "kind": "user", "text": tb_tail()})
        return 1
    if a.mode == "file":
        # the versions of what FILE imported (torch is not imported for
        # it: a loader may not need it)
        send({"t": "hello", "pid": os.getpid(), "versions": versions(),
              "batch": a.batch, "workers": a.workers, "mode": a.mode})

    gpus = Gpus(a.gpus, a.rate, a.batch, a.sync == "all")
    clock = CpuClock()
    warm_s = a.warmup if a.warmup > 0 else (2.0 if a.warmup == 0 else 0.0)
    warm_batches = 2 * max(a.gpus, 1) if a.warmup == 0 else 0
    t_start = time.monotonic()
    t_win = None            # start of the measured window
    samples = batches = 0   # in the window
    seen_batches = 0        # since the start
    epochs = 0
    stopped = False
    last_tick = 0.0
    tick_samples = 0
    tick_t = 0.0
    procs_sent = False

    def window_open(now):
        return now - t_start >= warm_s and seen_batches >= warm_batches

    def finished(now):
        if a.epochs and epochs >= a.epochs:
            return True
        if t_win is None:
            return False
        if a.duration > 0 and now - t_win >= a.duration:
            return True
        if a.samples and samples >= a.samples:
            return True
        return False

    send({"t": "phase", "what": "first_batch"})
    if a.warmup < 0:
        # no warm-up: the window is the whole iteration
        t_win = t_start
        clock.start()
        last_tick = tick_t = t_start
    try:
        it = iter(loader)
        while True:
            # one step: G batches (sync all), or one GPU's next batch
            need = gpus.g if gpus.sync_all and gpus.g else 1
            got = []
            t0 = time.monotonic()
            if not gpus.sync_all and gpus.g:
                k = min(range(gpus.g), key=lambda i: gpus.free_at[i])
                if gpus.free_at[k] > t0:
                    time.sleep(gpus.free_at[k] - t0)
                    t0 = time.monotonic()
            end_epoch = False
            while len(got) < need:
                try:
                    got.append(next(it))
                except StopIteration:
                    epochs += 1
                    if a.epochs and epochs >= a.epochs:
                        end_epoch = True
                        break
                    it = iter(loader)
            t1 = time.monotonic()
            if not got:
                break
            n = [batch_len(b) for b in got]
            seen_batches += len(got)
            if t_win is not None:
                samples += sum(n)
                batches += len(got)
                if gpus.g:
                    # a GPU waits from the end of its last step (or the
                    # window's start) until its batch is there: also
                    # while the loop fetched for the other GPUs
                    for i in (range(gpus.g) if gpus.sync_all else (k,)):
                        gpus.wait[i] += max(0.0, t1 - max(gpus.free_at[i],
                                                          t_win))
                        gpus.compute[i] += gpus.step
            if gpus.g:
                if gpus.sync_all:
                    for i in range(gpus.g):
                        gpus.free_at[i] = t1 + gpus.step
                    time.sleep(gpus.step)
                else:
                    gpus.free_at[k] = t1 + gpus.step
            now = time.monotonic()
            if not procs_sent and (t_win is None and window_open(now) or
                                   t_win is not None):
                if t_win is None:
                    t_win = now
                    clock.start()
                    gpus.reset(t_win)
                    tick_t = last_tick = now
                procs_sent = True
                kids = proc_children(os.getpid())
                me = os.getpid()
                send({"t": "procs", "main": {
                    "pid": me, "cpus": proc_field(me, "Cpus_allowed_list"),
                    "cgroup": proc_cgroup(me)},
                    "workers": [{"pid": k2,
                                 "cpus": proc_field(k2, "Cpus_allowed_list"),
                                 "cgroup": proc_cgroup(k2)} for k2 in kids],
                    "warmup_s": t_win - t_start})
            elif t_win is not None and now - last_tick >= 1.0:
                send({"t": "tick", "t_s": now - t_win, "samples": samples,
                      "rate": (samples - tick_samples) / (now - tick_t),
                      "au": gpus.au() if gpus.g else 0.0})
                tick_samples = samples
                tick_t = now
                last_tick = now
            elif t_win is None and now - last_tick >= 1.0:
                send({"t": "phase", "what": "warmup"})
                last_tick = now
            if end_epoch or finished(now):
                break
    except KeyboardInterrupt:
        stopped = True
    except BaseException:
        send({"t": "error", "kind": "user", "text": tb_tail()})
        return 1
    now = time.monotonic()
    read_bytes = 0
    if t_win is None:
        # the run ended inside the warm-up: the window is the whole run
        main_cpu = kids_cpu = 0.0
        measured = now - t_start
        warmup_incomplete = True
    else:
        main_cpu, kids_cpu = clock.read()
        read_bytes = clock.read_bytes()
        measured = now - t_win
        if gpus.g:
            gpus.close(now, t_win)
        warmup_incomplete = False
    send({"t": "done", "stopped": stopped, "samples": samples,
          "batches": batches, "measured_s": measured,
          "warmup_s": (t_win - t_start) if t_win is not None else measured,
          "au": gpus.au() if gpus.g else 0.0,
          "au_per_gpu": gpus.au_each() if gpus.g else [],
          "compute_s": sum(gpus.compute) if gpus.g else 0.0,
          "wait_s": sum(gpus.wait) if gpus.g else 0.0,
          "step_s": gpus.step, "epochs": epochs,
          "main_cpu_s": main_cpu, "workers_cpu_s": kids_cpu,
          "read_bytes": read_bytes,
          "warmup_incomplete": warmup_incomplete})
    return 0


def main():
    global OUT
    ap = argparse.ArgumentParser()
    ap.add_argument("--fd", type=int, required=True)
    ap.add_argument("--mode", choices=("torch", "file"), default="torch")
    ap.add_argument("--file", default="")
    ap.add_argument("--root", default="")
    ap.add_argument("--list", default="")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--gpus", type=int, default=0)
    ap.add_argument("--rate", type=float, default=0.0)
    ap.add_argument("--sync", choices=("all", "none"), default="all")
    ap.add_argument("--warmup", type=float, default=0.0)
    ap.add_argument("--duration", type=float, default=0.0)
    ap.add_argument("--epochs", type=int, default=0)
    ap.add_argument("--samples", type=int, default=0)
    ap.add_argument("--probe", action="store_true")
    a = ap.parse_args()
    OUT = os.fdopen(a.fd, "w", buffering=1)
    try:
        code = run(a)
    except KeyboardInterrupt:
        code = 0
    except BaseException:
        send({"t": "error", "kind": "runtime", "text": tb_tail()})
        code = 1
    OUT.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    # no interpreter shutdown: the loader's workers are ended by feedrate
    # (their process group), and a user's loader may hang in its atexit
    os._exit(code)


if __name__ == "__main__":
    main()
