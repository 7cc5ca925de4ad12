"""What the command line says of a usage or input error: the option a user typed rather
than the API argument behind it, and a usage error without the words it would repeat."""

from __future__ import annotations

import click


def option_name(ctx: click.Context | None, argument: str) -> str:
    """What the command line calls the API's ``argument`` in the command of ``ctx`` or a
    command above it (``--expires`` for ``expires_at``, ``QUERY`` for ``query``), or
    ``argument`` itself when no parameter takes it."""
    while ctx is not None:
        for param in ctx.command.params:
            if param.name == argument:
                return long_name(param)
        ctx = ctx.parent
    return argument


def long_name(param: click.Parameter) -> str:
    """An option's long name (``--expires``), or an argument's metavar (``QUERY``)."""
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return param.human_readable_name


def unechoed(message: str) -> str:
    """A usage error's message, without the extra arguments click repeats: the words of a
    memory typed without quotes, a refused secret among them (found by review)."""
    if not message.startswith("Got unexpected extra argument"):
        return message
    return (
        "Got unexpected extra arguments (not repeated here): the command takes fewer (see "
        "its --help); text with spaces goes in quotes."
    )


def dash_hint(error: click.UsageError) -> str:
    """For an unknown short option of a command that takes arguments (``recall -garden`` is
    read as ``-g``), how to pass an argument that starts with a dash; else nothing."""
    if not isinstance(error, click.NoSuchOption) or error.option_name.startswith("--"):
        return ""
    ctx = error.ctx
    if ctx is None or ctx.parent is None:
        return ""
    arguments = [param for param in ctx.command.params if isinstance(param, click.Argument)]
    if not arguments:
        return ""
    example = f"memstore {ctx.info_name} -- -{(arguments[0].name or 'text').upper()}"
    return f" An argument that starts with a dash goes after --, as in: {example}"
