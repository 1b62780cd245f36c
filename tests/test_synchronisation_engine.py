"""Loss-event times from the compiled engine reach Result, and the synchronisation ratio is computed on a run.

Needs `cclab._engine`: skipped until it is built, an error in CI (tests/engine_required.py).
"""

import numpy as np
import pytest

from engine_required import need

need("cclab._engine")

import cclab  # noqa: E402
from cclab.analysis.synchronisation import SynchronisationError  # noqa: E402

# Four NewReno flows through a 20 Mbit/s DropTail bottleneck with a 1-BDP buffer (20 Mbit/s x 40 ms / 12 kbit
# = 66 packets): every flow overflows the queue many times in 60 s.
SCENARIO = {
    "network": {"packet_size": 1500,
                "bottleneck": {"rate": "20Mbps", "delay": "20ms", "queue": {"size": "1bdp"}}},
    "flows": [{"cc": "newreno", "count": 4, "access_delay": {"spread": ["1ms", "10ms"]}}],
    "run": {"duration": "60s", "measure_from": "0s", "sample_interval": "1s", "record_loss_events": True},
}


def test_loss_events_reach_the_result_and_give_a_ratio():
    result = cclab.run(SCENARIO)
    events = result.loss_events
    assert list(events.columns) == ["flow", "time_ns"]
    per_flow = events.groupby("flow")["time_ns"]
    # Each flow's events are in time order, inside the run, and (measuring from 0) at least as many as the
    # summary's fast-recovery episodes: the list adds timeouts taken from Open.
    assert all(np.all(np.diff(times.to_numpy()) > 0) for _, times in per_flow)
    assert events["time_ns"].between(0, 60_000_000_000).all()
    summary = result.flows.set_index("flow")["loss_events"]
    assert all(per_flow.size()[f] >= summary[f] >= 1 for f in range(4))
    one = result.synchronisation(1)
    everyone = result.synchronisation(4)
    assert one.ratio == 1.0 and one.intervals_with_loss > 0
    assert 0.0 <= everyone.ratio <= 1.0 and everyone.intervals_synchronised <= one.intervals_synchronised


def test_without_record_loss_events_there_are_no_times_and_no_ratio():
    # Off by default (the list grows with simulated time): no times, and asking for a ratio says what to set.
    result = cclab.run({**SCENARIO, "run": {**SCENARIO["run"], "record_loss_events": False, "duration": "2s"}})
    assert result.loss_events.empty
    with pytest.raises(SynchronisationError, match="record_loss_events"):
        result.synchronisation(1)
