#!/usr/bin/env python3
"""Figures 3 and 12 of docs/reproductions/seed001.md, in the paper's form, from the full-run numbers in
that page's tables (the full study has not been run in one go, so no result store holds them all).

Both are drawn as `cclab reproduce seed001` draws them (python/cclab/studies/seed001/figure3.toml and
figure12.toml): against the bandwidth, a panel per delay, a line per queue size, with the numbers the
paper's text gives as reference lines. Missing cells (not run in full) are left out of their line.

    .venv/bin/python scripts/seed001_doc_figures.py
"""

from pathlib import Path

from cclab.plotting import lines_figure

OUT = Path(__file__).resolve().parent.parent / "docs" / "reproductions" / "figures" / "seed001"
BW = [100, 200, 500, 1000]
NAN = float("nan")

# Figure 3 table of seed001.md: utilisation[delay][qsize] per bandwidth (100, 200, 500, 1000 Mbit/s);
# the 500 Mbit/s at 100 ms and 1000 Mbit/s at 50 and 100 ms cells with window_ as cwnd_clamp (2026-11-24).
FIGURE3 = {
    20: {0.1: [0.772, 0.769, 0.988, 0.985], 0.2: [0.830, 0.987, 0.991, NAN], 0.5: [0.992, 0.994, 0.995, 0.990]},
    50: {0.1: [0.803, 0.983, 0.981, 0.964], 0.2: [0.987, 0.989, 0.987, 0.971], 0.5: [0.995, 0.996, 0.992, 0.974]},
    100: {0.1: [0.979, 0.975, 0.961, 0.927], 0.2: [0.988, 0.985, 0.973, 0.934], 0.5: [0.995, 0.993, 0.978, 0.948]},
}

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
    lines_figure(OUT / "figure3.png", "Figure 3: CTCP utilisation, PER = 1e-7 (full runs)", "bandwidth (Mbit/s)",
                 "link utilisation ratio", panels(FIGURE3, BW),
                 references=[("y", 1.0, "paper: close to 1 when queue > gamma")])
    lines_figure(OUT / "figure12.png", "Figure 12: TCP friendliness (full runs, 100 and 200 Mbit/s)",
                 "bandwidth (Mbit/s)", "Thr(TCP beside CTCP) / Thr_base", panels(FIGURE12, BW[:2]),
                 references=[("y", 1.0, "Thr_base (two TCP flows)")])


if __name__ == "__main__":
    main()
