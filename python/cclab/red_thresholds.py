"""RED's and adaptive RED's thresholds against the buffer they sit in, checked when a scenario is loaded.

The thresholds count mean packets of `mean_packet_size_bytes` (0: the scenario's packet size) in the
`queue_in_bytes` mode of ns-2's defaults, whose buffer is then `size` x that mean size in bytes (or the
byte size written), and plain packets otherwise (the engine's red.rs; `cclab queues red`). 0 asks for
automatic thresholds, which follow ns-2 and are not checked here: the studies ran them as they came out.

ns-2.35 (queue/red.cc) accepts any threshold above the buffer, qlim_, without a word. The average queue
is a moving average of what waits, which never exceeds the buffer, so it never reaches a threshold above:
- min_th at or above the buffer: RED never drops or marks early, and the queue is a drop-tail under
  another name. Never what a scenario means (a threshold in the wrong unit, or a buffer smaller than
  thought), so it is refused.
- max_th above the buffer (with min_th below it): RED still drops early, but the probability stops short of
  max_p, and the gentle slope and the outright drops above max_th never come. That is legal and can be
  meant (adaptive RED's target band, min_th + [0.4, 0.6] (max_th - min_th), may still lie inside the
  buffer), so it is run, with a warning that says how far the probability goes.
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping

from .engine import variant_parameters
from .errors import BadValue, ScenarioWarning

RED_DISCIPLINES = ("red", "ared")


def check_red_thresholds(discipline: str, params: Mapping[str, Any], limit_packets: int, limit_bytes: int | None,
                         packet_size: int, field: str) -> None:
    """Refuse a min_th at or above the buffer (BadValue at `min_th`); warn of a max_th above it, naming
    `field` (the queue's dotted path). Nothing to say for other disciplines or automatic thresholds."""
    if discipline not in RED_DISCIPLINES:
        return
    defaults = variant_parameters("queue", discipline, params.get("variant"))
    setting = {**defaults, **params}
    min_th, max_th = setting.get("min_th"), setting.get("max_th")
    # Not numbers: the type check named them already; 0 (automatic) or below: the engine's to judge.
    if not _number(min_th) or min_th <= 0 or not _number(max_th):
        return
    if "queue_in_bytes" not in setting:  # the engine cannot be asked: nothing to compare with
        return
    buffer, unit = _buffer(setting, limit_packets, limit_bytes, packet_size)
    if min_th >= buffer:
        raise BadValue(f"{min_th:g} is not below the buffer, {buffer:g} {unit}, so the average queue never "
                       "reaches it and RED never drops early", f"a min_th below {buffer:g}, or a larger size",
                       subpath=("min_th",))
    written = max_th > 0
    top = max_th if written else 3 * min_th  # the engine's automatic max_th
    if top > buffer:
        reach = float(setting.get("max_p", 0.1)) * (buffer - min_th) / (top - min_th)
        name = "max_th" if written else "max_th (3 x min_th when not given)"
        warnings.warn(ScenarioWarning(
            f"{field}.{name}: {top:g} is above the buffer, {buffer:g} {unit}; the average queue never "
            f"reaches it, so the early-drop probability stops at {reach:.3g} instead of max_p and the slope "
            "above max_th never applies"), stacklevel=2)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _buffer(setting: Mapping[str, Any], limit_packets: int, limit_bytes: int | None,
            packet_size: int) -> tuple[float, str]:
    """The buffer in the thresholds' unit, and that unit in words."""
    if setting["queue_in_bytes"]:
        mean = int(setting.get("mean_packet_size_bytes") or 0) or packet_size
        limit = limit_bytes if limit_bytes is not None else limit_packets * mean
        return limit / mean, f"mean packets of {mean} bytes ({limit} bytes; queue_in_bytes)"
    if limit_bytes is not None:  # a byte size: the byte limit binds first for data packets
        return min(limit_packets, limit_bytes // packet_size), f"packets of {packet_size} bytes"
    return limit_packets, "packets"
