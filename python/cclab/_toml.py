"""tomllib is in the standard library from Python 3.11; 3.10 (still supported) uses its twin tomli."""

try:
    import tomllib
except ImportError:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib  # type: ignore[no-redef]

loads = tomllib.loads
TOMLDecodeError = tomllib.TOMLDecodeError
