#!/usr/bin/env python3
"""The largest system a GPU backend runs before it runs out of device memory: the search of
bench/deepmd_gpu.py --memory-limit, and its dry check.

search(runs, n0, ...) grows the system size n (cells or molecules per side; the atoms grow as
n^3) so that the atoms double at each step, n -> ceil(n * 2^(1/3)), while runs(n) says it
ran, then bisects n between the largest that ran and the smallest that did not until they
are adjacent or, with resolution r, until the atoms of the one that failed are within a
factor 1 + r of those of the one that ran. runs(n) returns True (it ran) or False (the
backend stopped with its out-of-memory error) and raises on any other failure. The search
assumes that a larger system needs more memory (the backends' buffers grow with the atoms
and pairs; only the tables are fixed).

out_of_memory(text) recognises the CUDA runtime's out-of-memory errors
(src/cuda/pk_cuda_runtime.cu): a cudaMalloc that failed with "out of memory", or one refused
by PAIRKIT_GPU_MEMORY_CAP, both with the advice "use fewer atoms per GPU". A pinned host
buffer (cudaMallocHost) that cannot be had is the host's memory, not the GPU's: not this.

`python3 bench/memory_limit.py` runs the dry check (ctest unit.bench_memory_limit): the
search against fake runners that fail above a given number of atoms, with a budget that
runs out, a size cap, a first size that fails and a failure that is not out of memory, and
out_of_memory on the runtime's messages."""
import math
import re
import sys

GROWTH = 2.0 ** (1.0 / 3.0)   # n per side grows by this: the atoms double

# "CUDA <call> (<what>) failed on <gpu>: out of memory; use fewer atoms per GPU ..." and
# "CUDA cudaMalloc (<what>, N bytes) refused on <gpu>: ... over the cap of C bytes
# (PAIRKIT_GPU_MEMORY_CAP); use fewer atoms per GPU ..."
OOM = re.compile(r"CUDA (cudaMalloc\b[^\n]*? failed on [^\n]*?: out of memory|"
                 r"cudaMalloc \([^\n]*? refused on [^\n]*? over the cap of \d+ bytes)"
                 r"[^\n]*; use fewer atoms per GPU")


def out_of_memory(text):
    """The line of text with the runtime's out-of-memory message, or None."""
    m = OOM.search(text)
    if not m:
        return None
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    return text[start:end if end >= 0 else len(text)]


class OutOfTime(Exception):
    """Raised by a runner whose run the time budget cut short: the search ends there."""


class Search:
    """Outcome: ok = largest n that ran (None: not even n0), bad = smallest n that ran out of
    memory (None: none did), trace = [(n, True/False)] in the order run, stopped = why the
    search ended before ok and bad were adjacent (None when they are)."""

    def __init__(self):
        self.ok = self.bad = self.stopped = None
        self.trace = []


def search(runs, n0, atoms, max_atoms=None, resolution=0.0, out_of_time=lambda: False):
    """Largest n with runs(n) true, from n0 (see the module's text). atoms(n): the atoms of
    size n; a size over max_atoms is not run (growth stops there). out_of_time(): checked
    before every run; when true the search stops with the bracket it has."""
    s = Search()

    def attempt(n):
        if out_of_time():
            s.stopped = f"time budget used up before n = {n}"
            return None
        try:
            ran = bool(runs(n))
        except OutOfTime as e:
            s.stopped = f"n = {n} cut short by the time budget ({e})"
            return None
        s.trace.append((n, ran))
        if ran:
            s.ok = n
        else:
            s.bad = n
        return ran

    n = n0
    while True:   # grow: the atoms double
        ran = attempt(n)
        if ran is None or not ran:
            break
        nxt = max(n + 1, math.ceil(n * GROWTH))
        if max_atoms is not None and atoms(nxt) > max_atoms:
            s.stopped = f"n = {nxt} ({atoms(nxt)} atoms) is over the cap of {max_atoms} atoms"
            return s
        n = nxt
    while (s.stopped is None and s.ok is not None and s.bad - s.ok > 1 and
           atoms(s.bad) > (1.0 + resolution) * atoms(s.ok)):   # bisect
        if attempt((s.ok + s.bad) // 2) is None:
            break
    return s


def _self_test():
    failed = []

    def expect(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failed.append(what)

    def fcc(n):
        return 4 * n ** 3

    # the limit found exactly for limits at, between and near the grown sizes
    for limit in (6912, 6913, 100_000, 863_999, 864_000, 1_500_000, 2_000_000):
        s = search(lambda n: fcc(n) <= limit, 12, fcc)
        want = max(n for n in range(12, 200) if fcc(n) <= limit)
        runs = len(s.trace)
        expect(s.ok == want and s.bad == want + 1 and s.stopped is None and
               len({n for n, _ in s.trace}) == runs,
               f"limit {limit} atoms: largest n {s.ok} (want {want}), first failing {s.bad}, "
               f"{runs} runs, none repeated")
    # with a resolution of 10% in atoms, fewer runs and a bracket within it
    s = search(lambda n: fcc(n) <= 1_500_000, 12, fcc, resolution=0.1)
    expect(s.ok <= 72 < s.bad and fcc(s.bad) <= 1.1 * fcc(s.ok) and len(s.trace) < 13,
           f"resolution 10%: {fcc(s.ok)} ran, {fcc(s.bad)} failed, {len(s.trace)} runs")
    # growth doubles the atoms: sizes 12, 16, 21, 27, 35, 45, ...
    s = search(lambda n: fcc(n) <= 1_000_000, 12, fcc)
    grown = [n for n, _ in s.trace[:6]]
    expect(grown == [12, 16, 21, 27, 35, 45], f"growth sizes {grown}")
    # the first size already fails
    s = search(lambda n: False, 12, fcc)
    expect(s.ok is None and s.bad == 12 and s.trace == [(12, False)], "first size fails")
    # growth stops at the atom cap without a failure
    s = search(lambda n: True, 12, fcc, max_atoms=200_000)
    expect(s.ok == 35 and s.bad is None and "over the cap" in (s.stopped or ""),
           f"atom cap: largest run n {s.ok}, stopped: {s.stopped}")
    # the budget runs out during the bisection: the bracket so far is kept
    calls = []
    s = search(lambda n: calls.append(n) or fcc(n) <= 1_000_000, 12, fcc,
               out_of_time=lambda: len(calls) >= 10)
    expect(len(s.trace) == 10 and s.ok is not None and s.bad is not None and
           s.bad - s.ok > 1 and "budget" in (s.stopped or "") and
           fcc(s.ok) <= 1_000_000 < fcc(s.bad),
           f"budget: stopped after {len(s.trace)} runs with {s.ok} < limit < {s.bad}")

    # a run cut short by the budget ends the search with what it has
    def slow(n):
        if n > 30:
            raise OutOfTime("timed out after 5 s")
        return True
    s = search(slow, 12, fcc)
    expect(s.ok == 27 and s.bad is None and "cut short" in (s.stopped or ""),
           f"run cut short: largest n {s.ok}, stopped: {s.stopped}")
    # a failure that is not out of memory stops the search with that error
    def broken(n):
        if n > 20:
            raise RuntimeError("exit 1: cuBLAS handle creation failed (status 1)")
        return True
    try:
        search(broken, 12, fcc)
        expect(False, "a failure other than out of memory raises")
    except RuntimeError as e:
        expect("cuBLAS" in str(e), "a failure other than out of memory raises")

    # the runtime's messages (formats of src/cuda/pk_cuda_runtime.cu)
    advice = "use fewer atoms per GPU (more GPUs or a finer decomposition), or backend cpu"
    real = (f"CUDA cudaMalloc of 2147483648 bytes (holding 79456894976) (deepmd pair forces) "
            f"failed on NVIDIA H100 80GB HBM3 (device 0): out of memory; {advice}")
    capped = (f"CUDA cudaMalloc (deepmd pair forces, 1500000 bytes) refused on NVIDIA H100 "
              f"(device 0): it would hold 2500000 bytes, over the cap of 2000000 bytes "
              f"(PAIRKIT_GPU_MEMORY_CAP); {advice}")
    pinned = (f"CUDA cudaMallocHost (deepmd forces) failed on NVIDIA H100 (device 0): out of "
              f"memory; {advice}")
    other = ("CUDA cudaMemcpyAsync to the GPU (positions) failed on NVIDIA H100 (device 0): an "
             "illegal memory access was encountered; this is a bug or a failing GPU: please "
             "report it with the input")
    expect(out_of_memory("log: x\n" + real + "\n") == real, "cudaMalloc out of memory recognised")
    expect(out_of_memory(capped) == capped, "cap refusal recognised")
    expect(out_of_memory(pinned) is None, "pinned host buffer failure not taken for the GPU's")
    expect(out_of_memory(other) is None, "other CUDA error not taken for out of memory")
    print(f"{len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(_self_test())
