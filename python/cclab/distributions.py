"""Random quantities as a scenario writes them -> the engine's distribution tables.

A quantity that may be random (a start, a duration, a transfer size, a time between arrivals) is written
as a plain value or as a one-key table naming its distribution:

    { fixed = "20s" }                          always this
    { uniform = ["0s", "100s"] }               uniform over [low, high]
    { exponential = "20s" }                    exponential with this mean
    { pareto = { shape = 1.2, mean = "50KB" } }     Pareto (type I), shape > 1, with this mean
    { lognormal = { mean = "50KB", sigma = 1.0 } }  exp(normal), with this mean and sigma of the normal
    { empirical = "sizes.cdf" }                a piecewise-linear CDF: a file of `value cdf` lines
    { empirical = { values = [...], cdf = [...] } }

Values carry their unit ("20s", "50KB") and are parsed by the caller's unit parser, so the engine gets
integers (ns, bytes) or, for means, exact numbers in those units. The engine draws (crates/engine/src/
traffic/dist.rs); nothing is drawn here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .errors import BadValue
from .link_models import scenario_dir

DISTRIBUTION_ACCEPTED = ("a value, or a table with one of fixed, uniform, exponential, pareto, lognormal, "
                         "empirical (e.g. { exponential = \"20s\" })")


@dataclass(frozen=True)
class Drawn:
    """A distribution in engine form (`{"exponential": 2e10}`) and its mean in base units."""

    engine: dict
    mean: float


def parse_distribution(value: Any, parse_unit: Callable[[Any], int], what: str) -> Drawn:
    """A plain value (-> fixed) or a one-key distribution table -> Drawn, in the units of `parse_unit`."""
    if isinstance(value, Drawn):
        return value
    if not isinstance(value, dict):
        amount = parse_unit(value)
        return Drawn({"fixed": amount}, float(amount))
    if len(value) != 1:
        raise BadValue(f"a distribution table names one distribution, not {sorted(value)}", DISTRIBUTION_ACCEPTED)
    (name, spec), = value.items()
    try:
        return _parse(name, spec, parse_unit, what)
    except BadValue as exc:
        raise BadValue(exc.message, exc.accepted, subpath=(name, *exc.subpath)) from None


def _parse(name: str, spec: Any, parse_unit: Callable[[Any], int], what: str) -> Drawn:
    if name == "fixed":
        amount = parse_unit(spec)
        return Drawn({"fixed": amount}, float(amount))
    if name == "uniform":
        if not isinstance(spec, list) or len(spec) != 2:
            raise BadValue(f"{spec!r} is not a range", f"[low, high], two {what}s")
        low, high = parse_unit(spec[0]), parse_unit(spec[1])
        if low > high:
            raise BadValue(f"the range {spec!r} runs backwards", "low <= high")
        return Drawn({"uniform": [low, high]}, (low + high) / 2)
    if name == "exponential":
        mean = _positive_mean(spec, parse_unit)
        return Drawn({"exponential": float(mean)}, float(mean))
    if name in ("pareto", "lognormal"):
        shape_key = "shape" if name == "pareto" else "sigma"
        if not isinstance(spec, dict) or set(spec) != {shape_key, "mean"}:
            raise BadValue(f"{spec!r} is not a {name} table", f"{{ {shape_key} = ..., mean = ... }}")
        shape = spec[shape_key]
        if isinstance(shape, bool) or not isinstance(shape, (int, float)):
            raise BadValue(f"{shape!r} is not a number", "a number", subpath=(shape_key,))
        if name == "pareto" and not shape > 1:
            raise BadValue(f"shape {shape} gives an infinite mean", "a shape above 1", subpath=(shape_key,))
        if name == "lognormal" and not shape >= 0:
            raise BadValue(f"sigma {shape} is negative", "a sigma of at least 0", subpath=(shape_key,))
        try:
            mean = _positive_mean(spec["mean"], parse_unit)
        except BadValue as exc:
            raise BadValue(exc.message, exc.accepted, subpath=("mean",)) from None
        return Drawn({name: {shape_key: float(shape), "mean": float(mean)}}, float(mean))
    if name == "empirical":
        values, cdf = _empirical(spec, parse_unit)
        mean = values[0] * cdf[0] + sum((cdf[i] - cdf[i - 1]) * (values[i] + values[i - 1]) / 2
                                        for i in range(1, len(values)))
        return Drawn({"empirical": {"values": [float(v) for v in values], "cdf": cdf}}, mean)
    raise BadValue(f"{name!r} is not a distribution", DISTRIBUTION_ACCEPTED)


def _positive_mean(spec: Any, parse_unit: Callable[[Any], int]) -> int:
    mean = parse_unit(spec)
    if mean <= 0:
        raise BadValue(f"{spec!r} is not a positive mean", "a mean above 0")
    return mean


def _empirical(spec: Any, parse_unit: Callable[[Any], int]) -> tuple[list[int], list[float]]:
    if isinstance(spec, str):
        path = Path(spec)
        if not path.is_absolute():
            path = (scenario_dir.get() or Path.cwd()) / path
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise BadValue(f"{spec!r} cannot be read ({exc.strerror or exc})", "a file of `value cdf` lines") from None
        except UnicodeDecodeError as exc:  # a binary file named by mistake
            raise BadValue(f"{spec!r} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})",
                           "a text file of `value cdf` lines") from None
        values, cdf = [], []
        for number, line in enumerate(lines, 1):
            line = line.split("#", 1)[0].replace(",", " ").strip()
            if not line:
                continue
            parts = line.split()
            try:
                values.append(parse_unit(parts[0]))
            except BadValue as exc:   # the value's own error (a rate or a duration without its unit)
                raise BadValue(f"{spec}:{number}: {exc.message}", exc.accepted) from None
            try:
                cdf.append(float(parts[1]))
            except (IndexError, ValueError):
                raise BadValue(f"{spec}:{number}: {line!r} is not `value cdf`",
                               "a value and a probability") from None
    elif isinstance(spec, dict) and set(spec) == {"values", "cdf"}:
        values = [parse_unit(v) for v in spec["values"]]
        cdf = [float(c) for c in spec["cdf"]]
    else:
        raise BadValue(f"{spec!r} is not an empirical distribution", "a file name or { values = [...], cdf = [...] }")
    if not values or len(values) != len(cdf):
        raise BadValue("values and cdf differ in length or are empty", "one probability per value")
    if any(b < a for a, b in zip(values, values[1:])) or any(b < a for a, b in zip(cdf, cdf[1:])):
        raise BadValue("values and cdf must both be non-decreasing", "a CDF listed from its smallest value")
    if cdf[0] < 0 or cdf[-1] != 1:
        raise BadValue(f"the cdf runs from {cdf[0]} to {cdf[-1]}", "probabilities from at least 0 up to exactly 1")
    return values, cdf
