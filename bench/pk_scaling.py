"""What the CPU benches against a peer code share: the --cores list and the layouts a core
count runs as, parallel efficiency, a timed command under the benchmark lock (with MPI ranks
when asked), and the head lines and the writing of a results file.

Layouts: a code with OpenMP threads (ours) runs n cores as 1 MPI rank of n threads and as n
ranks of one thread; a code without (LAMMPS mdpd, amoeba, n2p2's hdnnp) as n ranks only.
Parallel efficiency = t(1 core) / (n * t(n cores)), t per atom-step, same code, same size.

A timed run (run_timed) holds the benchmark lock and measures how much other work (builds,
tests: they take no lock) the machine did meanwhile; a run that did not have its cores to
itself is repeated, and the table says how disturbed the kept runs were."""
import datetime
import fcntl
import os
import platform
import resource
import shlex
import subprocess
import sys
import time

LOCK = "/tmp/pk-bench.lock"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cores(text):
    """'1,2' -> [1, 2]; 'all' (alone or in the list) is this machine's core count."""
    out = []
    for item in text.split(","):
        n = os.cpu_count() if item.strip() == "all" else int(item)
        if n < 1:
            raise SystemExit(f"--cores: {item!r} is not a core count")
        if n not in out:
            out.append(n)
    return out


def add_result_options(ap):
    """The options every peer bench takes: --tries, --out and --plot."""
    ap.add_argument("--tries", type=int, default=3, help="runs of one measurement at most, "
                    "while other processes take the cores it needs (1: never repeat)")
    ap.add_argument("--out")
    ap.add_argument("--plot", help="PNG path (default: --out with .png)")


def layouts(n, threaded):
    """(MPI ranks, threads per rank) to run n cores with."""
    if n == 1:
        return [(1, 1)]
    return [(1, n), (n, 1)] if threaded else [(n, 1)]


def efficiency(t1, tn, n):
    return t1 / (n * tn)


def n_cores(row):
    return row["ranks"] * row["threads"]


def add_scaling(rows, peer_of, key="pair"):
    """Rows are dicts with `variant` (the code and its options), `ours`, `atoms`, `ranks`,
    `threads` and the time per atom-step under `key`. Adds `eff`, the parallel efficiency
    against the 1-core row of the same variant and size (None without one), and to our rows
    `ratio`, the time of the peer variant peer_of(row) on as many cores over ours."""
    one = {(r["variant"], r["atoms"]): r[key] for r in rows if n_cores(r) == 1}
    peer = {(r["variant"], r["atoms"], n_cores(r)): r[key] for r in rows if not r["ours"]}
    for r in rows:
        t1 = one.get((r["variant"], r["atoms"]))
        r["eff"] = efficiency(t1, r[key], n_cores(r)) if t1 else None
        if r["ours"]:
            t = peer.get((peer_of(r), r["atoms"], n_cores(r)))
            r["ratio"] = t / r[key] if t else None


def layout(row):
    """'1 core', '2 threads', '2 MPI ranks' or '2 ranks x 2 threads'."""
    if n_cores(row) == 1:
        return "1 core"
    if row["ranks"] == 1:
        return f"{row['threads']} threads"
    if row["threads"] == 1:
        return f"{row['ranks']} MPI ranks"
    return f"{row['ranks']} ranks x {row['threads']} threads"


def series(rows, key="pair"):
    """pk_plot series: one per variant, layout kind (threads or ranks) and core count."""
    out = {}
    for r in rows:
        how = "" if n_cores(r) == 1 else (", threads" if r["ranks"] == 1 else ", MPI ranks")
        s = out.setdefault((r["variant"] + how, n_cores(r)),
                           {"kind": r["variant"] + how, "cores": n_cores(r), "ours": r["ours"],
                            "points": []})
        s["points"].append((r["atoms"], r[key]))
    return list(out.values())


def fmt(value, spec=".2f", none="–"):
    return none if value is None else format(value, spec)


def command(cmd, ranks, mpirun="mpirun", lock=True):
    """cmd under `mpirun -np ranks` when ranks > 1, under the benchmark lock when lock: no two
    timed runs of anyone's benchmarks on this machine overlap."""
    if ranks > 1:
        cmd = [*shlex.split(mpirun), "-np", str(ranks), *cmd]
    return ["flock", LOCK, *cmd] if lock else list(cmd)


def busy_seconds():
    """CPU seconds the machine's cores have been busy since boot (/proc/stat: user, nice,
    system, irq, softirq, steal)."""
    with open("/proc/stat") as fh:
        f = [int(v) for v in fh.readline().split()[1:9]]
    return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / os.sysconf("SC_CLK_TCK")


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_timed(cmd, cores, tries=3, **kwargs):
    """subprocess.run(cmd, stdout=PIPE, text=True, **kwargs) under the benchmark lock;
    returns (the CompletedProcess, others, cpu): others is the number of cores that other
    processes kept busy during the run (the machine's busy time less this run's CPU time,
    over its wall time), cpu the run's CPU seconds (all its processes). A run on `cores` cores that met more than the machine's other cores' worth of
    work (+ 0.15) is repeated after a pause, up to `tries` runs in all, lock released in
    between; the least disturbed is returned."""
    best = None
    for attempt in range(tries):
        if attempt:
            time.sleep(10 * attempt)
        with open(LOCK, "a") as lock:      # the same lock as flock(1) takes
            fcntl.flock(lock, fcntl.LOCK_EX)
            busy0, cpu0, t0 = busy_seconds(), children_cpu(), time.monotonic()
            out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, **kwargs)
            wall = time.monotonic() - t0
            cpu = children_cpu() - cpu0
            others = max(0.0, (busy_seconds() - busy0) - cpu) / wall
        if best is None or others < best[1]:
            best = (out, others, cpu)
        if out.returncode or others <= (os.cpu_count() - cores) + 0.15:
            break
        print(f"  (other work on {others:.2f} cores during the run: "
              f"{'repeating it' if attempt + 1 < tries else 'kept the least disturbed'})",
              file=sys.stderr, flush=True)
    return best


def env(threads, **extra):
    """The environment of a timed run: `threads` OpenMP threads that sleep when idle (other
    ranks or jobs get the core), Open MPI allowed to run as root."""
    return dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive",
                OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", **extra)


def machine():
    """'host: CPU model, N cores, M GiB'."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next(l.split(":", 1)[1].strip() for l in fh if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        memory = f", {mem:.0f} GiB"
    except (ValueError, OSError):
        memory = ""
    return f"{platform.node()}: {model}, {os.cpu_count()} cores{memory}"


def commit():
    """HEAD's short hash, and whether src/ differs from it (what the plugin was built from,
    assuming it was built from this tree)."""
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "src"],
                           capture_output=True, text=True).stdout.strip()
    return head + (" + uncommitted changes in src/" if dirty else "")


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def head_lines(title, argv, peer, loads, others=None):
    """The lines every results section starts with: title and date, machine, commit, peer
    version, load average (1 minute, min/max over the timed runs), the other work during
    the kept runs (run_timed's `others`, when given) and the command."""
    lines = [f"# {title} ({now()})", "",
             f"Machine: {machine()}. PairKit commit {commit()}. Peer: {peer}.",
             f"Load average (1 min) before the timed runs: min {min(loads):.2f}, max "
             f"{max(loads):.2f} ({os.cpu_count()} is this machine full)."]
    if others:
        lines[-1] += (f" Other processes' work during the kept runs: median "
                      f"{sorted(others)[len(others) // 2]:.2f} cores, max {max(others):.2f} "
                      f"(a run that met more than the cores it left free was repeated, "
                      f"--tries runs at most).")
    return lines + ["", "Command: `" + " ".join(shlex.quote(a) for a in argv) + "`", ""]


def write_results(path, text):
    """Write text at the head of path; what the file held before stays below it (history)."""
    old = ""
    if os.path.exists(path):
        with open(path) as fh:
            old = fh.read()
    with open(path, "w") as fh:
        fh.write(text + ("\n---\n\n" + old if old else ""))


def plot_path(opt_plot, opt_out):
    """--plot, else --out with .png for .md, else None (no plot)."""
    if opt_plot:
        return opt_plot
    return os.path.splitext(opt_out)[0] + ".png" if opt_out else None
