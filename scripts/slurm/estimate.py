#!/usr/bin/env python3
"""What cluster work costs: CPU-hours and memory per task, from throughputs
measured on this machine (scripts/slurm/measure.sh writes them) and table
sizes counted here.

    scripts/slurm/estimate.py RATES.json

The size of a table is its index size: positions per side to move as the
Syzygy encoding counts them before removing illegal ones (kings as the 462
pairs without pawns, or 64 x 64 with the pawns' a-h mirror; like pieces as
combinations). The measured rates are per index entry of the tables they
were measured on, counted the same way, so the constant cancels. The table
names come from data/syzygy-md5.txt (the official list).
"""
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def index_size(name: str) -> int:
    white, black = name.split("v")
    groups = {}
    for side, pieces in (("w", white[1:]), ("b", black[1:])):
        for p in pieces:
            groups[(side, p)] = groups.get((side, p), 0) + 1
    pawns = {k: n for k, n in groups.items() if k[1] == "P"}
    others = {k: n for k, n in groups.items() if k[1] != "P"}
    if pawns:
        size = 64 * 64 // 2  # kings; the a-h mirror halves the pawn tables
        free_pawn = 48
        for n in pawns.values():
            size *= math.comb(free_pawn, n)
            free_pawn -= n
        free = 62 - sum(pawns.values())
    else:
        size = 462
        free = 62
    for n in others.values():
        size *= math.comb(free, n)
        free -= n
    return size


def tables(pieces: int):
    names = set()
    for line in (ROOT / "data/syzygy-md5.txt").read_text().split("\n"):
        parts = line.split()
        if len(parts) == 2 and parts[1].endswith(".rtbw"):
            name = parts[1][:-5]
            if len(name) - 1 == pieces:
                names.add(name)
    return sorted(names)


def hours(seconds: float) -> str:
    return f"{seconds / 3600:,.1f}"


def gib(b: float) -> str:
    return f"{b / 2**30:,.1f} GiB"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: estimate.py RATES.json (from scripts/slurm/measure.sh)")
    r = json.loads(Path(sys.argv[1]).read_text())
    # CPU-seconds and bytes per index entry, pawnless and with pawns apart.
    def per_entry(key):
        m = r[key]
        return m["cpu_seconds"] / index_size(m["material"]), m.get("memory_bytes", 0) / index_size(m["material"])

    sweep_pl, sweep_pl_mem = per_entry("sweep_pawnless")
    sweep_p, sweep_p_mem = per_entry("sweep_pawns")
    probe, _ = per_entry("probe")
    solve = {rule: per_entry(f"solve_{rule}")[0] for rule in ("50", "75", "100")}

    print("## Measured here (one thread, CPU-seconds per million index entries)")
    for key in ("sweep_pawnless", "sweep_pawns", "probe", "solve_50", "solve_75", "solve_100"):
        m = r[key]
        e = index_size(m["material"])
        extra = f", {gib(m['memory_bytes'])} bound" if m.get("memory_bytes") else ""
        print(f"- {key}: {m['material']} {m.get('what', '')}: {m['cpu_seconds']:.1f} CPU-s for "
              f"{e:,} entries = {1e6 * m['cpu_seconds'] / e:.3f}{extra}")

    print("\n## 1. Every 6-piece table with the sweep engine (one task per table)")
    six = tables(6)
    total, biggest = 0.0, (0, "")
    for t in six:
        e = index_size(t)
        pawns = "P" in t
        total += e * (sweep_p if pawns else sweep_pl)
        mem = e * (sweep_p_mem if pawns else sweep_pl_mem)
        biggest = max(biggest, (mem, t))
    print(f"- {len(six)} tables, {hours(total)} CPU-hours in all;"
          f" the largest task needs {gib(biggest[0])} ({biggest[1]})")

    print("\n## 2. KRBNvKQN (7 pieces, the 517-move record) with the probe engine, in shards")
    e = index_size("KRBNvKQN")
    cpu = e * probe
    print(f"- {e:,} index entries, {hours(cpu)} CPU-hours"
          f" (e.g. 1000 shards of {cpu / 1000 / 3600:.1f} CPU-hours each);"
          " the probe engine needs little memory beyond the tables' page cache")

    print("\n## 3. Every 5-piece material under rules 50, 75 and 100 with the solver")
    five = tables(5)
    for rule in ("50", "75", "100"):
        cpu = sum(index_size(t) for t in five) * solve[rule]
        print(f"- rule {rule}: {len(five)} materials, {hours(cpu)} CPU-hours")
    cpu = sum(index_size(t) for t in five) * sum(solve.values())
    print(f"- all three: {hours(cpu)} CPU-hours; each task needs its solve's bound"
          f" (`fiftymove solve --plan`), at most {gib(max(r['solve_memory_bytes'], 0))} here")


if __name__ == "__main__":
    main()
