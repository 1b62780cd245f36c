"""`python -m cclab ...`, the same as the `cclab` command."""

from .cli import main

main()
