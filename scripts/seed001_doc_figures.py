#!/usr/bin/env python3
"""Figure 12 of docs/reproductions/seed001.md, in the paper's form, from the full-run numbers in that
page's table (Figure 12 has been run in full at 100 and 200 Mbit/s only, so no result store holds its
grid; Figure 3's pictures come from `cclab reproduce seed001 --only figure3`).

It is drawn as `cclab reproduce seed001` draws it (python/cclab/studies/seed001/figure12.toml): the
ratio against the bandwidth, a panel per delay, a line per queue size, with the baseline at 1.

    .venv/bin/python scripts/seed001_doc_figures.py
"""

from pathlib import Path

from cclab.plotting import lines_figure

OUT = Path(__file__).resolve().parent.parent / "docs" / "reproductions" / "figures" / "seed001"
BW = [100, 200, 500, 1000]

# Figure 12 table: Thr(Reno beside CTCP) / Thr_base, run at 100 and 200 Mbit/s only.
FIGURE12 = {
    20: {0.1: [0.19, 0.12], 0.5: [0.95, 0.97]},
    50: {0.1: [0.14, 0.92], 0.5: [0.94, 0.91]},
    100: {0.1: [0.95, 0.99], 0.5: [0.85, 0.65]},
}


def panels(table: dict, bws: list[int]) -> list:
    out = []
    for delay, by_queue in table.items():
        lines = []
        for variant, (qsize, values) in enumerate(by_queue.items()):
            points = [(bw, v) for bw, v in zip(bws, values) if v == v]
            lines.append((f"qsize={qsize:g} BDP", "compound", [p[0] for p in points], [p[1] for p in points],
                          [0.0] * len(points), variant))
        out.append((f"delay = {delay} ms", lines))
    return out


def main() -> None:
    lines_figure(OUT / "figure12.png", "Figure 12: TCP friendliness (full runs, 100 and 200 Mbit/s)",
                 "bandwidth (Mbit/s)", "Thr(TCP beside CTCP) / Thr_base", panels(FIGURE12, BW[:2]),
                 references=[("y", 1.0, "Thr_base (two TCP flows)")])


if __name__ == "__main__":
    main()
