"""The memory commands: remember (or update) one, list them, delete one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from memstore.adapters.cli import options
from memstore.adapters.cli.app import cli, emit
from memstore.adapters.cli.deleting import delete_command
from memstore.adapters.cli.opening import service_from
from memstore.kinds import Category

if TYPE_CHECKING:
    from memstore.service import MemoryService


@cli.command()
@click.argument("content")
@click.option(
    "--category",
    type=options.choice(Category),
    help="What kind of memory it is (fact for a new one; an update keeps it).",
)
@click.option("--key", help="Semantic key; new content under it supersedes the old value.")
@click.option("--expires", "expires_at", help="ISO 8601 expiry; local time without a zone.")
@click.option("--supersedes", help="Id of an active memory this one replaces.")
@click.option("--memory-id", help="Update this memory instead (its id is kept).")
@click.pass_context
def remember(ctx: click.Context, /, content: str, **fields: Any) -> None:
    """Remember CONTENT (third person, naming the user), or update a memory.

    Example: memstore remember "Diego prefers Spanish." --category preference --key language
    """
    emit(service_from(ctx, new_ok=True).remember(content, **fields))


@cli.command()
@click.option("--category", type=options.choice(Category), help="Only this category.")
@click.option(
    "--all",
    "include_inactive",
    is_flag=True,
    help="Also superseded, candidate and expired memories.",
)
@options.page
@click.pass_context
def memories(ctx: click.Context, /, **page: Any) -> None:
    """List memories: pinned first, then newest first.

    Example: memstore memories --category preference --all
    """
    emit(service_from(ctx).list_memories(**page))


PINNING = {
    "pin": (True, "Pin a memory: pinned memories come first in the context and in listings."),
    "unpin": (False, "Unpin a memory (it stays in force, among the others by its last change)."),
}
"""The two commands that set a memory's pin, each with its help's first line."""


def pin_command(name: str) -> None:
    """Register ``memstore NAME MEMORY_ID``, which sets the memory's pin as :data:`PINNING`
    says and prints the memory."""
    pinned, summary = PINNING[name]

    @cli.command(name, help=f"{summary}\n\nExample: memstore {name} mem_{'0123456789abcdef' * 2}")
    @click.argument("memory_id")
    @click.pass_context
    def command(ctx: click.Context, /, memory_id: str) -> None:
        emit(service_from(ctx).pin_memory(memory_id, pinned))


for pinning in PINNING:
    pin_command(pinning)


@delete_command("delete-memory", "memory_id")
def delete_memory(service: MemoryService, memory_id: str) -> bool:
    """Delete one memory and its source links (conversation history stays).

    Example: memstore delete-memory mem_0123456789abcdef0123456789abcdef
    """
    return service.delete_memory(memory_id)
