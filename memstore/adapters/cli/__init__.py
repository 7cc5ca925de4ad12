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
import sys
import threading

from memstore.adapters.cli.app import cli

__all__ = ["cli", "main"]

INTERRUPT_AGAIN_S = 0.05
"""How long after a Ctrl-C Python could not raise it is delivered again."""


def main() -> None:
    """Console entry point: run the ``memstore`` group on ``sys.argv``, with
    :func:`unraisable` as the process's hook for errors Python cannot raise."""
    sys.unraisablehook = unraisable
    cli()


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
