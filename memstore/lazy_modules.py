"""Modules imported on first use, so that a command imports the code it runs and no more
(issue 18's start-up): the service's concerns (:mod:`memstore.service`)."""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name``, imported on the first attribute read: every read
    passes to the imported module. ``importlib.import_module`` holds the import lock, so
    threads that read at once import the module once and each get its finished attributes.
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(importlib.import_module(self._name), attribute)

    def __repr__(self) -> str:
        return f"<LazyModule {self._name}>"
