"""Time per atom-step against system size, ours against the peer, for the CPU benches.

plot(path, title, panels, machine): log-log, µs per atom-step over atoms, one line per code variant
and core layout; ours solid, the peer dashed; colour by core count, marker by variant.
panels maps a panel title ('' for one panel) to its series, each a dict with `kind` (the
code and variant, e.g. 'mdpd/pk, threads'), `cores`, `ours` (bool) and `points` [(atoms,
µs)]. Returns a line for the results file beside it: the PNG as a Markdown image, or why
there is none (matplotlib missing: Debian's python3-matplotlib)."""
import datetime
import math
import os

MARKERS = "os^Dv<>ph*"


def one_two_five(value, _):
    mantissa = value / 10 ** math.floor(math.log10(value))
    return f"{value:g}" if any(abs(mantissa - m) < 1e-6 for m in (2, 5)) else ""


def plot(path, title, panels, machine):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import ticker
    except ImportError:
        return ("Plot skipped: matplotlib is not installed for this Python (Debian: apt-get "
                "install python3-matplotlib, then run the bench with /usr/bin/python3).")
    fig, axes = plt.subplots(1, len(panels), figsize=(6.4 * len(panels), 4.8), squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    all_cores = sorted({s["cores"] for series in panels.values() for s in series})
    for ax, (name, series) in zip(axes[0], panels.items()):
        kinds = list(dict.fromkeys(s["kind"] for s in series))
        for s in series:
            pts = sorted(s["points"])
            ax.plot([p[0] for p in pts], [p[1] for p in pts],
                    linestyle="-" if s["ours"] else "--",
                    marker=MARKERS[kinds.index(s["kind"]) % len(MARKERS)],
                    color=colours[all_cores.index(s["cores"]) % len(colours)],
                    label=f"{s['kind']}, {s['cores']} core{'s' if s['cores'] > 1 else ''}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        # plain numbers: the measured sizes on x; 1, 2, 5 times powers of ten on y, over at
        # least one decade
        sizes = sorted({p[0] for s in series for p in s["points"]})
        ax.set_xticks(sizes, [f"{n:,}" for n in sizes])
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ys = [p[1] for s in series for p in s["points"]]
        widen = max(1.25, math.sqrt(12 * min(ys) / max(ys)))   # no marker on the frame
        ax.set_ylim(min(ys) / widen, max(ys) * widen)
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(ticker.FuncFormatter(one_two_five))
        ax.set_xlabel("atoms")
        ax.set_ylabel("µs per atom-step (pair)")
        ax.set_title(name)
        ax.grid(True, which="both", alpha=0.3)
    # one legend for all panels (their series share labels), below them, where it hides no line
    labels = {}
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            labels.setdefault(label, handle)
    fig.legend(list(labels.values()), list(labels), fontsize="small", loc="upper center",
               bbox_to_anchor=(0.5, 0.0), ncol=min(3, len(labels)))
    fig.tight_layout()
    fig.suptitle(f"{title}\n{machine}, {datetime.date.today()}", fontsize="medium", y=1.04)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return f"![{title}]({os.path.basename(path)})"
