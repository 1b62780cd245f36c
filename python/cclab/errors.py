"""The one exception hierarchy of cclab.

Every error a person can cause (a bad unit, an unknown key, an engine that is not built) is a
`CclabError` whose message says what was wrong and what would be accepted, so the CLI can print it
as one line without a traceback. Programming errors stay ordinary Python exceptions.

    CclabError
     +-- BadValue          one value that does not parse (raised by units and validators)
     +-- ScenarioError     one or more problems in a scenario, each with the field it concerns
     +-- SimulationError   the engine failed or is unavailable
          +-- EngineUnavailable

and one warning, ScenarioWarning, for a valid value that does not do what it says.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:  # pydantic is only needed to convert its errors, not to define ours
    from pydantic import ValidationError


class CclabError(Exception):
    """Base of every error cclab reports to a person."""


class ScenarioWarning(UserWarning):
    """A scenario that is valid and runs, but whose value does not do what it says (a RED max_th above
    the buffer). The CLI prints it as one `warning: ...` line; a program sees an ordinary warning."""


class BadValue(CclabError, ValueError):
    """A value that does not mean what was hoped, e.g. '200Mbs' for a rate.

    It is also a ValueError so that pydantic validators may raise it directly; the scenario loader
    then recovers `message`, `accepted` and `subpath` from it. `subpath` lets a validator of a whole
    table point at the key inside it that is wrong.
    """

    def __init__(self, message: str, accepted: str | None = None, subpath: tuple = ()):
        self.message = message
        self.accepted = accepted
        self.subpath = tuple(subpath)
        super().__init__(_join(message, accepted))


@dataclass(frozen=True)
class Problem:
    """One problem in a scenario: the dotted field (`flows.0.cc`), what is wrong, what is accepted."""

    field: str
    message: str
    accepted: str | None = None

    def __str__(self) -> str:
        return f"scenario error: {self.field or '(top level)'}: {_join(self.message, self.accepted)}"


class ScenarioError(CclabError):
    """A scenario that cannot be run. `str()` gives one line per problem."""

    def __init__(self, field: str, message: str, accepted: str | None = None):
        self.problems: list[Problem] = [Problem(field, message, accepted)]
        super().__init__(str(self.problems[0]))

    @classmethod
    def from_problems(cls, problems: Iterable[Problem]) -> "ScenarioError":
        problems = list(problems)
        if not problems:
            raise ValueError("a ScenarioError needs at least one problem")
        error = cls(problems[0].field, problems[0].message, problems[0].accepted)
        error.problems = problems
        error.args = ("\n".join(str(p) for p in problems),)
        return error

    # The first problem, for callers that only ever expect one.
    @property
    def field(self) -> str:
        return self.problems[0].field

    @property
    def message(self) -> str:
        return self.problems[0].message

    @property
    def accepted(self) -> str | None:
        return self.problems[0].accepted

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


class SimulationError(CclabError):
    """The engine rejected a run or failed inside it."""


class EngineUnavailable(SimulationError):
    """The compiled engine `cclab._engine` cannot be imported (not built yet)."""


def _join(message: str, accepted: str | None) -> str:
    return f"{message}; use {accepted}" if accepted else message


# --- pydantic errors -> problems -------------------------------------------------------------------

def scenario_error_from_validation(exc: "ValidationError") -> ScenarioError:
    """Turn pydantic's error list into a ScenarioError with one plain line per problem."""
    return ScenarioError.from_problems(_problem(e) for e in exc.errors())


def field_path(loc: Iterable) -> str:
    """('flows', 0, 'cc') -> 'flows.0.cc', the same spelling `--set` uses. A key that is not a bare TOML key
    is quoted as TOML quotes it (`network."size "`, `""`), so that an empty or odd key still names a field."""
    return ".".join(_key(part) for part in loc)


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(part) -> str:
    if not isinstance(part, str) or _BARE_KEY.match(part):
        return str(part)
    return json.dumps(part, ensure_ascii=False)


def _problem(err: dict) -> Problem:
    loc = tuple(err["loc"])
    ctx = err.get("ctx") or {}
    cause = ctx.get("error")
    if isinstance(cause, BadValue):
        return Problem(field_path(loc + cause.subpath), cause.message, cause.accepted)
    value = err.get("input")
    kind = err["type"]
    message, accepted = _MESSAGES.get(kind, (None, None))
    if message is None:
        # A type we have no wording for: pydantic's own sentence, without its "Value error, " prefix.
        text = str(cause) if cause is not None else err["msg"]
        return Problem(field_path(loc), text)
    return Problem(field_path(loc), message.format(value=_show(value), **ctx),
                   accepted.format(**ctx) if accepted else None)


def _show(value) -> str:
    """A value as the person wrote it in TOML, roughly: strings quoted, booleans lower case."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return repr(value)


_MESSAGES: dict[str, tuple[str | None, str | None]] = {
    "missing": ("missing; this key is required", None),
    "extra_forbidden": ("unknown key", None),
    "int_type": ("{value} is not an integer", "a whole number without quotes"),
    "int_from_float": ("{value} is not an integer", "a whole number"),
    "float_type": ("{value} is not a number", "a number without quotes"),
    "bool_type": ("{value} is not a boolean", "true or false"),
    "string_type": ("{value} is not a string", "a quoted string"),
    "list_type": ("{value} is not a list", "a list"),
    "dict_type": ("{value} is not a table", "a table"),
    "model_type": ("{value} is not a table", "a table"),
    "model_attributes_type": ("{value} is not a table", "a table"),
    "literal_error": ("{value} is not accepted", "one of {expected}"),
    "greater_than": ("{value} is too small", "a number greater than {gt}"),
    "greater_than_equal": ("{value} is too small", "a number of at least {ge}"),
    "less_than": ("{value} is too large", "a number less than {lt}"),
    "less_than_equal": ("{value} is too large", "a number of at most {le}"),
    "too_short": ("{value} is too short", "at least {min_length} entries"),
    "too_long": ("{value} is too long", "at most {max_length} entries"),
}
