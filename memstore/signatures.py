"""The signature a checked method shows to ``help()`` and ``inspect.signature``: each
``**name: Unpack[TD]`` argument spelled out as the keyword arguments the TypedDict ``TD``
takes, as ``../shared/CONTRACT.md`` lists them (``recall(query, *, mode="any", ...,
session_id=None, role=None, since=None, until=None, ...)``).

The annotations are read as written, none evaluated: a method's types name result models
that a command imports only when it calls one (start-up, README)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any, ForwardRef

SHOWN_DEFAULTS: dict[tuple[str, str], object] = {
    ("WordArguments", "scope"): "history",
    ("WordArguments", "offset"): 0,
}
"""What a left-out key of a TypedDict means, where giving that value does the same and is
not None (a memory's category stays None: left out, a duplicate keeps its own, where
``fact`` would overwrite it; found by review)."""
UNPACKED = re.compile(r"Unpack\[(\w+)\]")


def shown_signature(method: Callable[..., Any]) -> inspect.Signature:
    """``method``'s signature, each ``**name: Unpack[TD]`` argument (``TD`` a name of the
    method's module) replaced by a keyword-only argument for each key of ``TD``, in the order
    ``TD`` declares them, its bases' first."""
    signature = inspect.signature(method)
    shown: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        typed = unpacked(method, parameter)
        if typed is None:
            shown.append(parameter)
            continue
        shown += [
            inspect.Parameter(
                key,
                inspect.Parameter.KEYWORD_ONLY,
                default=SHOWN_DEFAULTS.get((typed.__name__, key)),
                annotation=hint.__forward_arg__ if isinstance(hint, ForwardRef) else hint,
            )
            for key, hint in typed.__annotations__.items()
        ]
    return signature.replace(parameters=shown)


def unpacked(method: Callable[..., Any], parameter: inspect.Parameter) -> Any:
    """The TypedDict a ``**name: Unpack[TD]`` parameter of ``method`` takes (``TD`` named in
    the method's module); None for any other parameter."""
    if parameter.kind is not inspect.Parameter.VAR_KEYWORD:
        return None
    found = UNPACKED.fullmatch(str(parameter.annotation))
    return None if found is None else getattr(method, "__globals__", {}).get(found.group(1))
