"""The ``memstore`` command line: parse, one service call, print one JSON document.

The group and the one place where errors are printed (``{"error": {"type", "message"}}`` on
stderr, exit status 1, or 2 for usage errors) are in :mod:`.app`; the options several commands
share in :mod:`.options`; the commands, by what they work on, in :mod:`.history` (import,
sessions, conversation, message, delete-message), :mod:`.search` (recall, words, instances),
:mod:`.memories` (remember, memories, pin, unpin, delete-memory), :mod:`.maintenance` (check,
backup, diary, mcp) and :mod:`.transfer` (export, import-memories). The group imports a
command's module when the command is asked for, as :mod:`.catalog` says.
"""

from memstore.adapters.cli.app import cli

__all__ = ["cli", "main"]


def main() -> None:
    """Console entry point: run the ``memstore`` group on ``sys.argv``."""
    cli()
