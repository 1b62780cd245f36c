"""Speed of the engine with every algorithm on seed 000's example (200 Mbit/s, 0.1 BDP, 2000 s).

Runs the engine binary (`target/release/cclab-sim`, built by `cargo build --release -p cclab-engine`) on the
engine config of examples/seed000-newreno.toml with each algorithm's default variant, and prints wall
time, data packets sent and packets per second, slowest last. Not part of the test run.

    python3 benchmarks/algorithms_speed.py [--duration 2000]
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=2000.0, help="simulated seconds (default 2000)")
    args = parser.parse_args()

    from cclab.engine import algorithm_list
    from cclab.scenario import load_scenario

    binary = ROOT / "target" / "release" / "cclab-sim"
    if not binary.exists():
        sys.exit("build the engine first: cargo build --release -p cclab-engine")
    rows = []
    for algorithm in algorithm_list():
        name = algorithm["name"]
        config = load_scenario(ROOT / "examples" / "seed000-newreno.toml", [
            f"flows.0.cc={name}", f"run.duration={args.duration:g}s", f"run.measure_from={args.duration / 2:g}s",
            "run.sample_interval=0"]).to_engine_config()
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(config, f)
        started = time.perf_counter()
        out = subprocess.run([str(binary), f.name], capture_output=True, text=True, check=True)
        wall = time.perf_counter() - started
        summary = json.loads(out.stdout)
        # packets_sent covers the measurement window (the second half); the run sends about twice that.
        packets = 2 * summary["flows"][0]["packets_sent"]
        rows.append((name, wall, packets, packets / wall, summary["flows"][0]["delivered_bps"] / 1e3))
        Path(f.name).unlink()
    rows.sort(key=lambda r: -r[3])
    print(f"{'algorithm':<10} {'wall s':>8} {'data pkts':>12} {'kpkt/s':>9} {'delivered kbit/s':>17}")
    for name, wall, packets, rate, kbps in rows:
        print(f"{name:<10} {wall:8.2f} {packets:12,d} {rate / 1e3:9,.0f} {kbps:17,.1f}")


if __name__ == "__main__":
    main()
