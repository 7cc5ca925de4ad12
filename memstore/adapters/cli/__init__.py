"""The ``memstore`` command line: parse, one service call, print one JSON document.

The group and the one place where errors are printed (``{"error": {"type", "message"}}`` on
stderr, exit status 1, or 2 for usage errors) are in :mod:`.app`; the options several commands
share in :mod:`.options`; the commands, by what they work on, in :mod:`.history` (import,
conversation, message, delete-message), :mod:`.search` (recall, words, instances),
:mod:`.memories` (remember, memories, delete-memory), :mod:`.maintenance` (check, backup,
diary, mcp) and :mod:`.transfer` (export, import-memories).
"""

# Importing the command modules registers their commands on the group.
from memstore.adapters.cli import history, maintenance, memories, search, transfer  # noqa: F401
from memstore.adapters.cli.app import cli

__all__ = ["cli", "main"]


def main() -> None:
    """Console entry point: run the ``memstore`` group on ``sys.argv``."""
    cli()
