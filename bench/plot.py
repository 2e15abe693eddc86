#!/usr/bin/env python3
"""Draws the headline benchmark results as PNG plots (matplotlib), from the JSON the
benchmarks write:

    python3 bench/memory.py --quick --out bench/plots/data/memory.json
    python3 bench/memory.py --no-writes ... --out bench/plots/data/memory-recall.json  # optional:
        # larger data sets for the recall plot (else memory.json's are drawn)
    python3 bench/turn.py --quick --out bench/plots/data/turn.json
    python3 bench/langgraph_peer.py --quick | tail -n 1 > bench/plots/data/langgraph.json
    python3 bench/quality.py --quick --out bench/plots/data/quality.json
    python3 bench/plot.py                      # reads bench/plots/data, writes bench/plots

Plots (each skipped, saying so, when its JSON is missing):

- ``throughput.png``: remember, amend and a turn (five calls, and ``record_turn``) as a
  share of the bare SQL they must do, at 1 and 8 clients, with each target;
- ``recall_latency.png``: recall p50 and p99 against the bare per-agent top-10, by data
  set size, and for the big agent by number of matching rows (the p99 target line);
- ``quality.png``: hit@5 per recall mode and question type;
- ``adapters.png``: the LangGraph checkpointer and store against LangGraph's Postgres
  backends, at 1 and 8 clients, with each target.

Every number drawn is one the benchmark printed in the same run; nothing is typed in.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

# The targets, from the benchmarks that state them (bench/ is on sys.path when this
# file runs; bench/langgraph_peer.py's are read where they are drawn).
from memory import BIG_AGENT_P99_MS, WRITE_TARGET
from turn import RECORD_TURN_TARGET, TURN_TARGET

HERE = Path(__file__).resolve().parent


def _load(directory: Path, name: str) -> dict[str, Any] | None:
    path = directory / f"{name}.json"
    if not path.exists():
        print(f"plot: {path} is missing: {name} skipped", file=sys.stderr)
        return None
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _machine(results: dict[str, Any]) -> str:
    m = results.get("machine") or {}
    server = str(m.get("server") or "").split(" on ")[0]
    return f"{m.get('cores', '?')} cores; {server}".strip("; ")


def _short_label(label: str) -> str:
    """'5,000 entries / 50 agents (+ one agent with 10,000; table 15,000)' ->
    '5,000 entries\n/ 50 agents\n(table 15,000)'."""
    head, _, rest = label.partition(" (")
    out = head.replace(" / ", "\n/ ")
    if "table " in rest:
        out += "\n(table " + rest.split("table ")[1].rstrip(")") + ")"
    return out


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # no display, no GUI toolkit
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {"figure.dpi": 110, "font.size": 9, "axes.spines.top": False, "axes.spines.right": False}
    )
    return plt


def throughput(memory: dict[str, Any] | None, turn: dict[str, Any] | None, out: Path) -> bool:
    """Product throughput over the bare floor, per operation and client count."""
    bars: list[tuple[str, int, float, float]] = []  # (operation, clients, ratio, target)
    notes = []
    if memory is not None:
        writes = memory.get("writes") or []
        first = writes[0]["dataset"] if writes else None
        for w in writes:
            if w["dataset"] != first or w.get("agent_state") is None:
                continue
            base = w.get("bare (btree_gin)") or w.get("bare (our index shape)")
            if base:
                bars.append((w["op"], int(w["clients"]), w["agent_state"] / base, WRITE_TARGET))
        if first:
            notes.append(f"memory.py: {first.split(' (')[0]}")
    if turn is not None:
        for r in turn.get("turn") or []:
            if r.get("shape") != "one statement":
                continue
            for label, name, target in (
                ("agent_state", "turn, five calls", TURN_TARGET),
                ("record_turn", "record_turn", RECORD_TURN_TARGET),
            ):
                if r.get(label) is not None:
                    bars.append((name, int(r["clients"]), r[label] / r["bare"], target))
        notes.append("turn.py: vs the bare one-statement turn")
    if not bars:
        print("plot: no write results: throughput.png skipped", file=sys.stderr)
        return False
    plt = _plt()
    ops = list(dict.fromkeys(b[0] for b in bars))
    clients = sorted({b[1] for b in bars})
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    width = 0.8 / len(clients)
    colours = ["#4c72b0", "#dd8452", "#55a868"]
    for j, c in enumerate(clients):
        xs, ys = [], []
        for i, op in enumerate(ops):
            for b in bars:
                if b[0] == op and b[1] == c:
                    xs.append(i + (j - (len(clients) - 1) / 2) * width)
                    ys.append(b[2])
        rects = ax.bar(
            xs, ys, width, label=f"{c} client{'s' if c > 1 else ''}", color=colours[j % 3]
        )
        ax.bar_label(rects, fmt="%.2fx", fontsize=8, padding=2)
    for i, op in enumerate(ops):
        target = next(b[3] for b in bars if b[0] == op)
        ax.hlines(target, i - 0.45, i + 0.45, colors="#c44e52", linestyles="--", linewidth=1.5)
    ax.plot([], [], color="#c44e52", linestyle="--", label="target")
    ax.axhline(1.0, color="#999", linewidth=0.8)
    ax.set_xticks(range(len(ops)), ops)
    ax.set_ylabel("throughput / bare SQL of the same work")
    ax.set_ylim(0, 1.1)
    ax.set_title("Writes against their bare-SQL floor (same run, same server)")
    ax.legend(loc="upper right", fontsize=8)
    fig.text(
        0.01,
        0.01,
        "; ".join(notes) + f"; {_machine(memory or turn or {})}",
        fontsize=7,
        color="#555",
    )
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(out / "throughput.png")
    plt.close(fig)
    return True


def recall_latency(memory: dict[str, Any] | None, out: Path) -> bool:
    """Recall p50/p99 against the bare query: by data set, and by matching rows."""
    if memory is None or not memory.get("datasets"):
        print("plot: no recall results: recall_latency.png skipped", file=sys.stderr)
        return False
    product = "agent_state.recall"
    plt = _plt()
    datasets = memory["datasets"]
    sweep = next((ds["sweep"] for ds in datasets if ds.get("sweep")), None)
    fig, axes = plt.subplots(1, 2 if sweep else 1, figsize=(9 if sweep else 5, 3.8))
    ax = axes[0] if sweep else axes
    labels, ours50, ours99, bare50, bare99 = [], [], [], [], []
    for ds in datasets:
        r = ds.get("recall") or {}
        base = r.get("bare (btree_gin)") or r.get("bare on our table (owner)")
        if product not in r or base is None:
            continue
        labels.append(_short_label(ds["label"]))
        ours50.append(r[product]["p50"] * 1e3)
        ours99.append(r[product]["p99"] * 1e3)
        bare50.append(base["p50"] * 1e3)
        bare99.append(base["p99"] * 1e3)
    xs = range(len(labels))
    ax.plot(xs, ours50, "o-", color="#4c72b0", label="recall p50")
    ax.plot(xs, ours99, "o--", color="#4c72b0", label="recall p99")
    ax.plot(xs, bare50, "s-", color="#999", label="bare top-10 p50")
    ax.plot(xs, bare99, "s--", color="#999", label="bare top-10 p99")
    ax.set_xticks(list(xs), labels, fontsize=8)
    ax.set_ylabel("ms per call (one client)")
    ax.set_ylim(bottom=0)
    ax.set_title("Recall, random agents, by data set size")
    ax.legend(fontsize=7)
    if sweep:
        ax2 = axes[1]
        pts = [s for s in sweep if product in s]
        matches = [s["matches"] for s in pts]
        base_key = (
            "bare (btree_gin)" if "bare (btree_gin)" in pts[0] else "bare on our table (owner)"
        )
        ax2.plot(
            matches,
            [s[product]["p50"] * 1e3 for s in pts],
            "o-",
            color="#4c72b0",
            label="recall p50",
        )
        ax2.plot(
            matches,
            [s[product]["p99"] * 1e3 for s in pts],
            "o--",
            color="#4c72b0",
            label="recall p99",
        )
        ax2.plot(
            matches,
            [s[base_key]["p99"] * 1e3 for s in pts],
            "s--",
            color="#999",
            label="bare p99 (ranks every match)",
        )
        ax2.axhline(BIG_AGENT_P99_MS, color="#c44e52", linestyle="--", label="p99 target")
        ax2.set_xscale("log")
        ax2.set_yscale("log")
        from matplotlib.ticker import FuncFormatter

        ax2.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax2.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax2.set_xlabel("entries matching the word (big agent)")
        ax2.set_ylabel("ms per call")
        ax2.set_title("Exact top-10 in the big agent, by matches")
        ax2.legend(fontsize=7)
    fig.text(0.01, 0.01, f"bench/memory.py; {_machine(memory)}", fontsize=7, color="#555")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(out / "recall_latency.png")
    plt.close(fig)
    return True


def quality(results: dict[str, Any] | None, out: Path) -> bool:
    """hit@5 per mode and question type."""
    if results is None or not results.get("summary"):
        print("plot: no quality results: quality.png skipped", file=sys.stderr)
        return False
    summary: dict[str, dict[str, dict[str, float]]] = results["summary"]
    modes: list[str] = results.get("modes") or sorted(next(iter(summary.values())))
    groups = list(summary)
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    width = 0.8 / len(modes)
    colours = ["#999999", "#4c72b0", "#55a868", "#dd8452"]
    for j, mode in enumerate(modes):
        xs = [i + (j - (len(modes) - 1) / 2) * width for i in range(len(groups))]
        ys = [summary[g][mode]["hit@5"] for g in groups]
        rects = ax.bar(
            xs,
            ys,
            width,
            label=f"match {mode!r}" if mode in ("all", "any") else mode,
            color=colours[j % 4],
        )
        ax.bar_label(rects, fmt="%.2f", fontsize=7, padding=1)
    n = {g: int(next(iter(summary[g].values())).get("n", 0)) for g in groups}
    ax.set_xticks(range(len(groups)), [f"{g}\n({n[g]} questions)" for g in groups])
    ax.set_ylabel("hit@5 (answer in the top 5)")
    ax.set_ylim(0, 1.25)
    sizes = results.get("sizes") or {}
    ax.set_title(
        f"Retrieval quality: {sizes.get('memories', '?')} memories, "
        f"{sizes.get('questions', '?')} questions"
    )
    ax.legend(fontsize=8, ncol=len(modes), loc="upper center")
    skipped = results.get("skipped")
    note = f"bench/quality.py; {_machine(results)}" + (f"; skipped: {skipped}" if skipped else "")
    fig.text(0.01, 0.01, note, fontsize=7, color="#555")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(out / "quality.png")
    plt.close(fig)
    return True


def adapters(results: dict[str, Any] | None, out: Path) -> bool:
    """Our LangGraph adapters over LangGraph's Postgres backends (calls/s ratio)."""
    if results is None:
        return False
    rows = [
        (k, v)
        for k, v in results.items()
        if isinstance(v, dict) and "ratio" in v and not k.startswith("storage")
    ]
    if not rows:
        print("plot: no adapter results: adapters.png skipped", file=sys.stderr)
        return False
    plt = _plt()
    ops = list(dict.fromkeys(k.split(" @")[0] for k, _ in rows))
    many = sorted({k.split(" @")[1] for k, _ in rows if " @" in k})
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    height = 0.38
    for j, (suffix, label, colour) in enumerate(
        [("", "1 client", "#4c72b0")] + [(f" @{c}", f"{c} clients", "#dd8452") for c in many]
    ):
        ys, xs = [], []
        for i, op in enumerate(ops):
            v = results.get(op + suffix)
            if v is not None:
                ys.append(i + (j - 0.5) * height)
                xs.append(v["ratio"])
        rects = ax.barh(ys, xs, height, label=label, color=colour)
        ax.bar_label(rects, fmt="%.2fx", fontsize=7, padding=2)
    # The benchmark's own targets (bench/langgraph_peer.py), per client count.
    from langgraph_peer import target_for

    for j, clients in enumerate([1] + [int(c) for c in many]):
        for i, op in enumerate(ops):
            target = target_for(op, clients)
            if target is not None:
                y = i + (j - 0.5) * height
                ax.vlines(target, y - height / 2, y + height / 2, colors="#c44e52", linestyles="--")
    ax.plot([], [], color="#c44e52", linestyle="--", label="target")
    ax.axvline(1.0, color="#999", linewidth=0.8)
    ax.set_yticks(range(len(ops)), ops)
    ax.invert_yaxis()
    widest = max(v["ratio"] for _, v in rows)
    ax.set_xlim(0, max(2.1, widest * 1.4))  # room for the legend right of the bars
    ax.set_xlabel("agent_state calls/s / LangGraph's Postgres backend calls/s")
    ax.set_title("LangGraph checkpointer and store against LangGraph's own")
    ax.legend(fontsize=8, loc="lower right")
    storage = results.get("storage bytes per store item")
    note = "bench/langgraph_peer.py"
    if storage:
        note += f"; storage per store item {storage['ours']:.0f} B vs {storage['peer']:.0f} B"
    fig.text(0.01, 0.01, note, fontsize=7, color="#555")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(out / "adapters.png")
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--data",
        type=Path,
        default=HERE / "plots" / "data",
        help="the benchmarks' JSON (memory, turn, langgraph, quality .json)",
    )
    ap.add_argument("--out", type=Path, default=HERE / "plots", help="where the PNGs go")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    memory = _load(args.data, "memory")
    turn = _load(args.data, "turn")
    drawn = [
        name
        for name, ok in (
            ("throughput.png", throughput(memory, turn, args.out)),
            (
                "recall_latency.png",
                recall_latency(_load(args.data, "memory-recall") or memory, args.out),
            ),
            ("quality.png", quality(_load(args.data, "quality"), args.out)),
            ("adapters.png", adapters(_load(args.data, "langgraph"), args.out)),
        )
        if ok
    ]
    print(f"plot: wrote {', '.join(drawn) or 'nothing'} to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
