"""The delete commands' shape: one id argument, the service's delete, its JSON result."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from memstore.adapters.cli.app import cli, conclude
from memstore.adapters.cli.opening import service_from

if TYPE_CHECKING:
    from memstore.service import MemoryService


Deletion = Callable[["MemoryService", str], bool]


def delete_command(name: str, argument: str) -> Callable[[Deletion], click.Command]:
    """Make ``delete(service, record_id)`` (the service's delete, True when it deleted) the
    command ``memstore NAME ARGUMENT``, which prints ``{"deleted", "id"}`` and exits 1 when
    nothing was deleted.

    Args:
        name: The command's name, e.g. ``delete-memory``.
        argument: The name of its one argument, the record's id, e.g. ``memory_id``.

    Returns:
        A decorator; the decorated function's docstring is the command's help.
    """

    def register(delete: Deletion) -> click.Command:
        @cli.command(name, help=delete.__doc__)
        @click.argument(argument)  # named as the API's, so that its errors name it
        @click.pass_context
        def command(ctx: click.Context, /, **given: str) -> None:
            from memstore.schemas import DeleteResult  # on first use, as the models

            deleted = delete(service_from(ctx), given[argument])
            conclude(ctx, DeleteResult(deleted=deleted, id=given[argument]), ok=deleted)

        return command

    return register
