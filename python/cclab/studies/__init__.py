"""The studies cclab reproduces, one folder per study: `seed000/`, `seed001/`.

Each folder holds the study's experiment files (format: `cclab.experiment`) and the base scenarios they
name. They are package data, so they ship inside the wheel and `cclab reproduce` finds them wherever cclab
is installed, not only in a checkout.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def folder() -> Path:
    """This package's folder on disk, where the study folders are.

    cclab holds a compiled extension (the engine), which Python cannot import from a zip file, so an
    installed cclab is always a folder of files and importlib.resources hands back a real path.
    """
    found = resources.files(__name__)
    if not isinstance(found, Path):
        raise RuntimeError(f"cclab's studies are not files on disk ({found!r}); install cclab unzipped")
    return found
