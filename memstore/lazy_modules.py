"""Modules imported on first use, so that a command imports the code it runs and no more
(issue 18's start-up): the service's concerns (:mod:`memstore.service`)."""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name``, imported on the first attribute read: every read and
    write of an attribute passes to the imported module (a test's monkeypatch reaches it).
    ``importlib.import_module`` holds the module's import lock while it runs the module, so
    threads that read at once import it once and each get its finished attributes.
    """

    __slots__ = ("_name",)  # no instance __dict__: reading it reads the module's

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attribute: str) -> Any:
        if attribute == "_name":  # not set: made without __init__
            raise AttributeError(attribute)
        return getattr(importlib.import_module(self._name), attribute)

    def __setattr__(self, attribute: str, value: Any) -> None:
        setattr(importlib.import_module(self._name), attribute, value)

    def __delattr__(self, attribute: str) -> None:
        delattr(importlib.import_module(self._name), attribute)

    def __reduce__(self) -> tuple[type[LazyModule], tuple[str]]:
        return LazyModule, (self._name,)  # a copy stands for the same module

    def __repr__(self) -> str:
        return f"<LazyModule {self._name}>"
