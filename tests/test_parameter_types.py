"""A queue or algorithm parameter of the wrong type is refused when the scenario loads, naming the parameter.

The engine's own message names only the table ('red: invalid type: string "5ms", expected f64'), so a
person with several parameters in it could not tell which was wrong; and in a sweep the mistake became a
failed run after the others had run, where `cclab run` and the sweep's check before the first run can say
it at once. The types are those of the engine's defaults (`cclab queues --json`, `cclab algorithms --json`).
"""

import pytest

from engine_required import need

need("cclab._engine")

from cclab.errors import ScenarioError  # noqa: E402
from cclab.scenario import load_scenario  # noqa: E402

BASE = {"network": {"bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"size": "100"}}},
        "flows": [{"cc": "newreno"}], "run": {"duration": "5s"}}


def problem(override: str) -> str:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(BASE, [override])
    assert len(caught.value.problems) == 1, str(caught.value)
    return str(caught.value)


@pytest.mark.parametrize("override, expected", [
    # RED's min_th is a float (default 0.0: ns-2's automatic threshold): a duration string is not one.
    ('network.bottleneck.queue={ discipline = "red", size = "100", min_th = "5ms" }',
     "scenario error: network.bottleneck.queue.min_th: '5ms' is not a number; use a number, without quotes "
     "(default 0.0)"),
    ('network.bottleneck.queue={ discipline = "red", size = "100", gentle = "yes" }',
     "scenario error: network.bottleneck.queue.gentle: 'yes' is not true or false; use true or false"),
    # The engine's name of a duration takes nanoseconds; the same key without _ns takes a unit.
    ('network.bottleneck.queue={ discipline = "codel", size = "100", target_ns = "5ms" }',
     "scenario error: network.bottleneck.queue.target_ns: '5ms' is not a whole number; use a whole number of "
     'nanoseconds, without quotes (default 5000000), or target = "5ms" with a unit'),
    ('network.bottleneck.queue={ discipline = "fq_codel", size = "100", flows = 10.5 }',
     "scenario error: network.bottleneck.queue.flows: 10.5 is not a whole number; use a whole number, without "
     "quotes (default 1024)"),
    ('flows.0.cc={ name = "bbr", min_rtt_window_ns = "10s" }',
     "scenario error: flows.0.cc.min_rtt_window_ns: '10s' is not a whole number; use a whole number of "
     "nanoseconds, without quotes (default 10000000000)"),
    ('flows.0.cc={ name = "cubic", beta = "0.8" }',
     "scenario error: flows.0.cc.beta: '0.8' is not a number; use a number, without quotes (default 0.7001953125)"),
    ('flows.0.cc={ name = "cubic", hystart = 1 }',
     "scenario error: flows.0.cc.hystart: 1 is not true or false; use true or false"),
    # A name the engine does not list for the algorithm (before: the engine's refusal at the run).
    ('flows.0.cc={ name = "reno", beta = 0.5 }',
     "scenario error: flows.0.cc.beta: unknown parameter 'beta' of newreno; use one of name, variant, counting, window "
     "(`cclab algorithms newreno`)"),
])
def test_a_parameter_of_the_wrong_type_is_named(override, expected):
    assert problem(override) == expected


def test_values_of_the_right_type_still_load():
    # An integer where a float is expected is a number all the same; ranges stay the engine's to judge.
    load_scenario(BASE, ['network.bottleneck.queue={ discipline = "red", size = "100", min_th = 5, max_p = 0.2, '
                         'gentle = false, target_delay = "5ms" }'])
    load_scenario(BASE, ['network.bottleneck.queue={ discipline = "codel", size = "100", target_ns = 5000000 }'])
    load_scenario(BASE, ['flows.0.cc={ name = "cubic", variant = "linux-2.6.22", beta = 1, hystart = true, '
                         'counting = "acks" }'])
