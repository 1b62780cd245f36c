"""RED and adaptive RED thresholds against the queue's buffer, checked when a scenario loads
(cclab.red_thresholds): a min_th the average can never reach is refused, naming the field, its value and
the buffer in the thresholds' unit; a max_th above the buffer runs, with a warning saying how far the drop
probability goes. ns-2 accepted both silently, and so did cclab.

Needs `cclab._engine`: the thresholds' unit depends on the variant's defaults, which the engine lists.
"""

import copy
import warnings

import pytest

from engine_required import need

need("cclab._engine")

from cclab.errors import ScenarioError, ScenarioWarning  # noqa: E402
from cclab.scenario import load_scenario  # noqa: E402
from conftest import run_cli  # noqa: E402

BASE = {"network": {"packet_size": 1500, "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"size": "100"}}},
        "flows": [{"cc": "newreno"}], "run": {"duration": "5s"}}


def with_queue(queue: dict) -> dict:
    raw = copy.deepcopy(BASE)
    raw["network"]["bottleneck"]["queue"] = queue
    return raw


def problem(raw: dict) -> str:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(raw)
    assert len(caught.value.problems) == 1, str(caught.value)
    return str(caught.value)


@pytest.mark.parametrize("queue, expected", [
    # ns-2's defaults (red, ared ns2): thresholds and buffer in mean packets of 500 bytes, the buffer being
    # size x 500 bytes, so 100 is the buffer whatever the packet size.
    ({"discipline": "red", "size": "100", "min_th": 100},
     "scenario error: network.bottleneck.queue.min_th: 100 is not below the buffer, 100 mean packets of 500 bytes "
     "(50000 bytes; queue_in_bytes), so the average queue never reaches it and RED never drops early; use a min_th "
     "below 100, or a larger size"),
    # A byte size in queue_in_bytes mode: 150 KB are 300 mean packets of 500 bytes.
    ({"discipline": "ared", "size": "150KB", "min_th": 400, "max_th": 900},
     "network.bottleneck.queue.min_th: 400 is not below the buffer, 300 mean packets of 500 bytes (150000 bytes; "
     "queue_in_bytes)"),
    # floyd2001 counts packets; a byte size binds at 100 packets of 1500 bytes.
    ({"discipline": "ared", "variant": "floyd2001", "size": "150KB", "min_th": 120},
     "network.bottleneck.queue.min_th: 120 is not below the buffer, 100 packets of 1500 bytes,"),
    ({"discipline": "red", "size": "100", "queue_in_bytes": False, "min_th": 250.5, "max_th": 400},
     "network.bottleneck.queue.min_th: 250.5 is not below the buffer, 100 packets,"),
])
def test_a_min_th_at_or_above_the_buffer_is_refused(queue, expected):
    assert expected in problem(with_queue(queue))


def test_links_name_their_queue():
    raw = {"network": {"links": [{"from": "a", "to": "b", "rate": "10Mbps", "delay": "10ms",
                                  "queue": {"discipline": "red", "size": "20", "min_th": 30, "max_th": 60}}]},
           "flows": [{"cc": "newreno", "route": ["a", "b"]}], "run": {"duration": "5s"}}
    assert "network.links.0.queue.min_th: 30 is not below the buffer, 20 mean packets" in problem(raw)


@pytest.mark.parametrize("queue, expected", [
    ({"discipline": "red", "size": "100", "min_th": 20, "max_th": 150},
     # p_b at the buffer: 0.1 x (100 - 20) / (150 - 20) = 0.0615
     "network.bottleneck.queue.max_th: 150 is above the buffer, 100 mean packets of 500 bytes (50000 bytes; "
     "queue_in_bytes); the average queue never reaches it, so the early-drop probability stops at 0.0615 "
     "instead of max_p"),
    # max_th not given is 3 x min_th; max_p 0.2 x (100 - 40) / (120 - 40) = 0.15
    ({"discipline": "ared", "size": "100", "min_th": 40, "max_p": 0.2},
     "network.bottleneck.queue.max_th (3 x min_th when not given): 120 is above the buffer, 100 mean packets of "
     "500 bytes (50000 bytes; queue_in_bytes); the average queue never reaches it, so the early-drop probability "
     "stops at 0.15"),
])
def test_a_max_th_above_the_buffer_runs_with_a_warning(queue, expected):
    with pytest.warns(ScenarioWarning) as caught:
        config = load_scenario(with_queue(queue)).to_engine_config()
    assert expected in str(caught[0].message)
    assert config["bottleneck"]["queue"]["params"]["min_th"] == queue["min_th"]


@pytest.mark.parametrize("queue", [
    {"discipline": "red", "size": "100", "min_th": 20, "max_th": 100},   # max_th at the buffer
    {"discipline": "red", "size": "5"},                                  # automatic: ns-2's, as the studies ran
    {"discipline": "ared", "variant": "floyd2001", "size": "150KB", "min_th": 30},  # 90 of 100 packets
    {"discipline": "droptail", "size": "100"},
])
def test_thresholds_within_the_buffer_or_automatic_say_nothing(queue):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_scenario(with_queue(queue))


def test_the_cli_prints_the_warning_as_one_line_and_runs(tmp_path):
    path = tmp_path / "red.toml"
    path.write_text('[network.bottleneck]\nrate = "10Mbps"\ndelay = "10ms"\n'
                    'queue = { discipline = "red", size = "100", min_th = 20, max_th = 150 }\n'
                    '[[flows]]\ncc = "newreno"\n[run]\nduration = "1s"\n', encoding="utf-8")
    process = run_cli("run", str(path), "--json")
    assert process.returncode == 0, process.stderr
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: network.bottleneck.queue.max_th: 150 is above"), lines
    path.write_text(path.read_text().replace("min_th = 20", "min_th = 120"), encoding="utf-8")
    process = run_cli("run", str(path))
    assert process.returncode == 2 and process.stderr.startswith(
        "error: scenario error: network.bottleneck.queue.min_th: 120 is not below the buffer"), process.stderr
