"""One sentence for what pydantic found wrong in a record read back from an export."""

from __future__ import annotations

from pydantic import ValidationError

from memstore.errors import InvalidInput


def describe(error: ValidationError) -> str:
    """Each problem of ``error`` as ``field: what is wrong``, joined by "; " (the field path
    of a nested value dotted, e.g. ``memory.status: Input should be 'active', ...``)."""
    parts = []
    for problem in error.errors(include_url=False):
        field = ".".join(str(part) for part in problem["loc"])
        parts.append(f"{field}: {problem['msg']}" if field else problem["msg"])
    return "; ".join(parts)


def refused(where: str, reason: str) -> InvalidInput:
    """The error (argument ``path``) of an export that cannot be imported as it is: where,
    what is wrong, and that nothing was imported."""
    return InvalidInput("path", f"{where}: {reason}; nothing was imported. Fix it and retry.")
