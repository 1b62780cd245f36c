"""Which parts of a study `cclab reproduce` runs, and which it leaves out and why.

A study is a folder of parts (experiment files). A full run takes every part but two kinds:
- heavy parts (`heavy = true`: seed003's response-1e-8 costs hours), unless asked for with
  `--with-heavy` or named with `--only` (quick mode runs them, scaled down like the rest);
- parts named with `--without`.

With `--write-docs` nothing is computed: every selected run must be stored, and a left-out part comes
back in if all its runs happen to be stored (the pages then show it); one that is not stays out, and the
pages say how many of its runs are stored (`LeftOut`, kept in the values' source.json).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from .errors import CclabError
from .experiment import Experiment, is_heavy, load_experiment
from .store import results_version


@dataclass(frozen=True)
class LeftOut:
    """A part a run goes without. `stored` and `runs` are counted only for --write-docs (else 0)."""
    part: str
    experiment_id: str
    why: str          # "heavy" or "without"
    stored: int = 0
    runs: int = 0


@dataclass(frozen=True)
class Selection:
    experiments: list[Experiment]
    left_out: list[LeftOut]

    def notices(self, study: str, write_docs: bool) -> list[str]:
        """What the person running the study should be told about the parts left out (to stderr)."""
        heavy = [x.part for x in self.left_out if x.why == "heavy"]
        without = [x.part for x in self.left_out if x.why == "without"]
        lines = []
        if heavy:
            lines.append(f"{study}: left out, heavy: " + ", ".join(heavy) + " (add --with-heavy, or name one with "
                         "--only, to run it" + ("; the docs say it is not in their data)" if write_docs else ")"))
        if without and write_docs:
            lines.append(f"{study}: left out with --without: " + ", ".join(without)
                         + " (the docs say it is not in their data)")
        return lines

    def source_records(self) -> list[tuple[str, int, int, str]]:
        """(experiment id, runs stored, runs, why) of each part the docs go without (doc_numbers.write_source)."""
        return [(x.experiment_id, x.stored, x.runs, x.why) for x in self.left_out]


def select_parts(study: str, parts: Mapping[str, str], files: Mapping[str, Path], only: Sequence[str] = (),
                 without: Sequence[str] = (), quick: bool = False, with_heavy: bool = False,
                 write_docs: bool = False, store_root: Path | None = None) -> Selection:
    """The experiments to run for `study`. `parts` maps a part name to its experiment id, `files` an
    experiment id to its file; `only` and `without` are part names already known to exist."""
    if without and only:
        raise CclabError("--without leaves parts out of a full run; with --only, name just the parts to run")
    heavy = [p for p in parts if is_heavy(files[parts[p]])]
    why = {p: "without" for p in without}
    if not (only or quick or with_heavy):
        why.update({p: "heavy" for p in heavy if p not in why})
    chosen = list(only) or [p for p in parts if p not in why]
    left_out = [LeftOut(p, parts[p], why[p]) for p in parts if p in why]
    if write_docs:
        chosen, left_out = _stored_for_docs(study, parts, files, chosen, left_out, store_root,
                                            asked_heavy=with_heavy and bool(heavy))
    if not chosen:
        raise CclabError(f"every part of {study} is left out ({', '.join(x.part for x in left_out)}); "
                         "nothing to run or write")
    return Selection([load_experiment(files[parts[p]]) for p in chosen], left_out)


def _stored_for_docs(study: str, parts: Mapping[str, str], files: Mapping[str, Path], chosen: list[str],
                     left_out: list[LeftOut], store_root: Path, asked_heavy: bool):
    """--write-docs computes nothing: every chosen run must be stored, and a left-out part whose runs are
    all stored comes back in."""
    from .reproduce import missing_runs
    missing, total = missing_runs([load_experiment(files[parts[p]]) for p in chosen], store_root) \
        if chosen else (0, 0)
    if missing:
        flag = " --with-heavy" if asked_heavy else ""
        raise CclabError(f"{missing} of {total} runs of {study} are not in the store {store_root} for "
                         f"cclab {results_version()}; run `cclab reproduce {study}{flag}` first (the docs are "
                         "written from stored runs only)")
    still_out = []
    for x in left_out:
        missing, total = missing_runs([load_experiment(files[x.experiment_id])], store_root)
        if missing:
            still_out.append(LeftOut(x.part, x.experiment_id, x.why, total - missing, total))
    out = {x.part for x in still_out}
    return [p for p in parts if p not in out], still_out
