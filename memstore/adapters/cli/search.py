"""The search commands: recall, and the word index (``words``, ``instances``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from memstore.adapters.cli import options
from memstore.adapters.cli.app import cli, emit
from memstore.adapters.cli.opening import service_from

if TYPE_CHECKING:
    from memstore.schemas import RecallResult


@cli.command()
@click.argument("query")
@options.mode
@options.filters
@options.limit("Most conversations: 1 to 1000; max_results (8) by default.")
@click.option("--no-history", is_flag=True, help="Search memories only.")
@click.option("--full", is_flag=True, help="Print every message whole, never clipped.")
@click.pass_context
def recall(ctx: click.Context, /, query: str, no_history: bool, **filters: Any) -> None:
    """Search past conversations and memories for QUERY (literal text, never syntax).

    Example: memstore recall "jardín azul" --mode phrase --since 2026-10-01T00:00:00+02:00
    """
    result = service_from(ctx).recall(query, history=not no_history, **filters)
    filtered = any(filters[name] is not None for name in FILTERS)
    emit(result, recall_view(query, filters["mode"], filtered))


FILTERS = ("session_id", "role", "since", "until", "speaker")  # of options.filters


def recall_view(query: str, mode: str, filtered: bool) -> Callable[[RecallResult], str]:
    """The text view of a recall of ``query`` in ``mode``, ``filtered`` or not (the views
    module, and pydantic with it, imported only when text is printed)."""

    def render(found: RecallResult) -> str:
        from memstore.adapters.cli.views import recall_text

        return recall_text(found, query, mode, filtered=filtered)

    return render


@cli.command()
@click.argument("prefix", default="")
@options.word_query
@click.pass_context
def words(ctx: click.Context, /, prefix: str, **query: Any) -> None:
    """List indexed words starting with PREFIX, with occurrence and document counts.

    Example: memstore words jard --scope all
    """
    emit(service_from(ctx).search_words(prefix, **query))


@cli.command()
@click.argument("word")
@options.word_query
@click.pass_context
def instances(ctx: click.Context, /, word: str, **query: Any) -> None:
    """Show every occurrence of one WORD with its position and an excerpt.

    Example: memstore instances café --role user --limit 8
    """
    emit(service_from(ctx).word_instances(word, **query))
