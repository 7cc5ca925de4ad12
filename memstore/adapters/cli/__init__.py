"""The ``memstore`` command line: parse, one service call, print one JSON document.

The group and the one place where errors are printed (``{"error": {"type", "message"}}`` on
stderr, exit status 1, or 2 for usage errors) are in :mod:`.app`; the options several commands
share in :mod:`.options`; the commands, by what they work on, in :mod:`.history` (import,
sessions, conversation, message, delete-message), :mod:`.search` (recall, words, instances),
:mod:`.memories` (remember, memories, pin, unpin, delete-memory), :mod:`.maintenance` (check,
backup, diary, mcp) and :mod:`.transfer` (export, import-memories). The group imports a
command's module when the command is asked for, as :mod:`.catalog` says.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading

from memstore.adapters.cli.app import cli

__all__ = ["cli", "main"]

INTERRUPT_AGAIN_S = 0.05
"""How long after a Ctrl-C Python could not raise it is delivered again."""


def main() -> None:
    """Console entry point: run the ``memstore`` group on ``sys.argv``, with
    :func:`unraisable` as the process's hook for errors Python cannot raise, SIGTERM
    stopping a command as Ctrl-C does (:func:`terminated`), and a closed standard stream
    read or written as the null device (:func:`standard_streams`)."""
    sys.unraisablehook = unraisable
    signal.signal(signal.SIGTERM, terminated)
    standard_streams()
    cli()


def terminated(signum: int, frame: object) -> None:
    """SIGTERM's handler: stop the command as Ctrl-C does, its unit of work rolled back, its
    staged files removed and the JSON error printed (found by review: an export stopped so
    left its staging copy of the whole history; the MCP server keeps the default)."""
    raise KeyboardInterrupt


def standard_streams() -> None:
    """Give a standard stream the process was started without (``memstore check >&-``) the
    null device, so that a command neither fails on it with a traceback nor, having done its
    work, reports it as failed (found by review)."""
    for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, mode, encoding="utf-8"))  # noqa: SIM115


def unraisable(error: sys.UnraisableHookArgs) -> None:
    """Where Python reports an error it cannot raise (in a finalizer): a Ctrl-C landing
    there is delivered again, where it stops the command; any other is named without the
    object it came from. Python's own hook printed that object, a stored message's text
    among them, and lost the Ctrl-C: the command went on and exited 0 (found by review)."""
    if error.exc_type is not None and issubclass(error.exc_type, KeyboardInterrupt):
        # from another thread, a moment later, so that it is raised in the command once this
        # hook has returned, not in the hook (where Python would ignore it again)
        interrupt = threading.Timer(INTERRUPT_AGAIN_S, _thread.interrupt_main)
        interrupt.daemon = True
        interrupt.start()
        return
    name = error.exc_type.__name__ if error.exc_type is not None else "error"
    print(f"memstore: {name} ignored in a finalizer: {error.exc_value}", file=sys.stderr)
