"""Argument types checked where the API begins, so that a wrong type is an InvalidInput
naming the argument instead of an error from deep inside (``role=None`` reaching SQLite as a
constraint failure, ``limit=5.5`` a binding error, ``remember(None)`` an assertion).

:func:`checked` reads a method's annotations once and, on every call, compares each given
argument with them: ``str``, ``int`` (not ``bool``), ``float`` (an int is fine), ``bool``,
``datetime``, ``date``, ``Path``, Literal choices (:mod:`memstore.kinds`), mappings,
iterables (not a bare string), callables, and unions of these with None. ``Any`` is not
checked. It costs about a microsecond a call.
"""

from __future__ import annotations

import functools
import inspect
import json
import types
import typing
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from memstore.errors import InvalidInput, InvalidQuery
from memstore.signatures import shown_signature
from memstore.times import aware_utc, storable

MAX_INT_BITS = 13_000  # about 3,900 digits: Python writes no integer of over 4,300
# Text the methods judge themselves (recall's query is an InvalidQuery, context's is only
# ranked, a message's content has its own message): the surrogate check leaves them alone.
OWN_TEXT = frozenset({"query", "word", "prefix", "content"})
GUARDED = frozenset({"content", "key"})  # the credential guard's: a refusal never echoes them
QUERY_PARTS = frozenset({"mode"})  # a bad recall mode is a bad query: InvalidQuery
MAX_POSITION = 2**63 - 1  # SQLite's largest integer: offsets beyond it are no position
MAX_READER_ITEMS = 1000  # the largest page a person asks for at the command line (--limit)
MAX_ID_CHARS = 64  # the width of the tables' id columns
P = ParamSpec("P")
R = TypeVar("R")
Check = Callable[[object], bool]
NAMES: dict[object, str] = {
    str: "text (str)",
    int: "an integer",
    float: "a number",
    bool: "True or False",
    datetime: "a datetime",
    date: "a date",
    Path: "a path",
    type(None): "None",
}


def checked(method: Callable[P, R]) -> Callable[P, R]:
    """``method`` with the types of its arguments checked on every call.

    The rules are read from the annotations on the first call: evaluating them when the
    class is defined would import every result model a method names, which a command that
    calls one method need not pay for.

    Raises (from the wrapped method):
        InvalidInput: Naming the first argument whose type does not match its annotation.
    """

    @functools.cache
    def signature() -> tuple[list[str], dict[str, tuple[Check, str]], bool]:
        """The positional names (``self`` first in a method, none in a static method), the
        rules, and whether a ``**kwargs`` takes any name (``**name: Unpack[TD]`` takes only
        TD's keys)."""
        parameters = inspect.signature(method).parameters
        names = [name for name, p in parameters.items() if p.kind <= p.KEYWORD_ONLY]
        hints = typing.get_type_hints(method)
        open_keywords = any(
            p.kind is p.VAR_KEYWORD and typing.get_origin(hints.get(name)) is not typing.Unpack
            for name, p in parameters.items()
        )
        return names, method_rules(method), open_keywords

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        names, rules, open_keywords = signature()
        for name, value in zip(names, args, strict=False):
            verify(rules, name, value)
        for name, value in kwargs.items():
            if name not in rules and name not in names and not open_keywords:
                raise TypeError(
                    f"{method.__qualname__}() got an unexpected keyword argument {name!r}"
                )
            verify(rules, name, value)
        return method(*args, **kwargs)

    wrapper.__signature__ = shown_signature(method)  # type: ignore[attr-defined]
    return wrapper


def method_rules(method: Callable[..., Any]) -> dict[str, tuple[Check, str]]:
    """The rule of each annotated argument of ``method``; a ``**name: Unpack[TD]`` argument
    gives a rule for each key of the TypedDict ``TD``."""
    hints = typing.get_type_hints(method)
    rules: dict[str, tuple[Check, str]] = {}
    for name, parameter in inspect.signature(method).parameters.items():
        hint = hints.get(name)
        if hint is None or name == "self":
            continue
        if parameter.kind is parameter.VAR_KEYWORD and typing.get_origin(hint) is typing.Unpack:
            (fields,) = typing.get_args(hint)
            rules |= {key: rule(value) for key, value in typing.get_type_hints(fields).items()}
        else:
            rules[name] = rule(hint)
    return rules


def verify(rules: Mapping[str, tuple[Check, str]], name: str, value: object) -> None:
    """Raise InvalidInput when ``value`` does not pass the rule for argument ``name``, or is
    text that is not valid Unicode (a lone surrogate, which SQLite cannot hold)."""
    own = name in OWN_TEXT
    if isinstance(value, str) and not own and not value.isascii() and not valid_unicode(value):
        raise InvalidInput(name, "holds text that is not valid Unicode (a lone surrogate).")
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:  # found by review:
        raise InvalidInput(name, "is an integer of thousands of digits.")  # a ValueError
    found = rules.get(name)
    if found is not None and not found[0](value):
        try:
            shown = "" if name in GUARDED else repr(value)
        except ValueError:  # a nested integer of thousands of digits (found by review)
            shown = ""
        shown = shown if len(shown) <= 60 else shown[:59] + "…"
        error = InvalidQuery if name in QUERY_PARTS else InvalidInput
        raise error(name, f"must be {found[1]}, not {type(value).__name__} {shown}".rstrip() + ".")


def valid_unicode(text: str) -> bool:
    """Whether ``text`` encodes as UTF-8: no lone surrogate, which SQLite cannot hold (a
    byte that is not UTF-8 in a file name or a shell argument decodes to one)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def rule(hint: Any) -> tuple[Check, str]:
    """The check of one annotation, and what it accepts in words."""
    options = typing.get_args(hint) if is_union(hint) else (hint,)
    parts = [one_rule(option) for option in options]
    checks = [check for check, _ in parts]
    return (lambda value: any(check(value) for check in checks)), " or ".join(
        words for _, words in parts
    )


def is_union(hint: Any) -> bool:
    """Whether ``hint`` is ``X | Y`` (or ``Optional``/``Union``)."""
    return isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union


def one_rule(hint: Any) -> tuple[Check, str]:
    """The check of one member of an annotation."""
    origin = typing.get_origin(hint) or hint
    if hint is Any:
        return (lambda value: True), "anything"
    if origin is typing.Literal:
        members = typing.get_args(hint)
        return (lambda value: value in members), "one of " + ", ".join(members)
    if origin is int:
        return (lambda value: isinstance(value, int) and not isinstance(value, bool)), NAMES[int]
    if origin is float:
        return (
            lambda value: isinstance(value, int | float) and not isinstance(value, bool)
        ), NAMES[float]
    if origin in (Mapping, dict):
        return (lambda value: isinstance(value, Mapping)), "a mapping (a dict)"
    if origin is Iterable:
        return (
            lambda value: isinstance(value, Iterable) and not isinstance(value, str | bytes | Path)
        ), "a list"
    if origin is Callable:
        return callable, "a function"
    kind: type = origin
    return (lambda value: isinstance(value, kind)), NAMES.get(kind, kind.__name__)


def position(value: int, argument: str, hint: str) -> None:
    """Raise InvalidInput unless ``value`` is a position SQLite can hold (0 to 2**63 - 1);
    ``hint`` says where a valid one comes from."""
    if not 0 <= value <= MAX_POSITION:
        raise InvalidInput(argument, f"is {value}; use {hint}.")


def aware(value: datetime | None, argument: str) -> datetime | None:
    """``value`` in UTC, or None.

    Raises:
        InvalidInput: If ``value`` has no time zone or leaves the years 1-9999 in UTC.
    """
    return None if value is None else aware_utc(value, argument)


def stored_time(value: datetime | None, argument: str) -> datetime | None:
    """``value`` in UTC, or None, for a time memstore stores (see
    :func:`memstore.times.storable`).

    Raises:
        InvalidInput: If ``value`` has no time zone or lies within a day of the calendar's
            ends in UTC.
    """
    return None if value is None else storable(aware_utc(value, argument), argument)


UNPRINTABLE = frozenset({"Cc", "Zl", "Zp"})  # controls and line breaks
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Characters that change the direction text is shown in (other format characters, such as
the joiners of emoji and of Persian or Hindi words, are ordinary text)."""


def unprintable(value: str) -> bool:
    """Whether ``value`` holds a control character (NUL, ESC), a line break (U+2028) or a
    bidi control (U+202E): what no id or name shown on a line may hold."""
    return any(unicodedata.category(char) in UNPRINTABLE or char in BIDI_CONTROLS for char in value)


def chosen_id(value: str, argument: str) -> str:
    """A caller-chosen id, as given: 1 to :data:`MAX_ID_CHARS` characters, not all of them
    spaces, none of them a control character, a line break or a bidi control.

    Raises:
        InvalidInput: For a longer or blank id, or one holding such a character (NUL, a
            newline, U+202E).
    """
    if not 1 <= len(value) <= MAX_ID_CHARS:
        raise InvalidInput(
            argument, f"is {len(value)} characters; an id takes 1 to {MAX_ID_CHARS}."
        )
    if not value.strip():
        raise InvalidInput(argument, "is blank; give an id with a letter or digit in it.")
    if unprintable(value):
        raise InvalidInput(
            argument,
            "holds a control character, a line break or a bidi control (NUL, a newline, "
            "U+202E...); remove it.",
        )
    return value


def json_object(
    value: Mapping[str, Any] | None, argument: str, most: int | None = None
) -> dict[str, Any]:
    """``value`` as a dict that JSON can hold (string keys; no NaN or infinity; valid
    Unicode), in at most ``most`` characters of JSON when given.

    Raises:
        InvalidInput: If JSON cannot hold it, it holds a lone surrogate, or it is longer.
    """
    copied = dict(value or {})
    try:
        text = json.dumps(copied, allow_nan=False, ensure_ascii=False)
        text.encode("utf-8")
    except UnicodeEncodeError as error:  # an export writes it as UTF-8 (found by review)
        raise InvalidInput(
            argument, "holds text that is not valid Unicode (a lone surrogate)."
        ) from error
    except (TypeError, ValueError, RecursionError) as error:
        raise InvalidInput(argument, f"must be JSON: {error}.") from error
    if not all(isinstance(key, str) for key in copied):
        raise InvalidInput(argument, "must be JSON: its keys must be text.")
    if most is not None and len(text) > most:
        raise InvalidInput(argument, f"is {len(text)} characters of JSON; at most {most}.")
    return dict(json.loads(json.dumps(copied)))  # as stored: tuples as lists, keys as text


MAX_SOURCE_REF_CHARS = 4200
"""The longest source reference: a log's path (4,096 bytes at most on Linux), ``#byte=`` and
an offset. Every page showing a message repeats it (found by review: one of 20,000
characters made each page of a 8,000-character budget 20,000 long, and a message's chunks
one character each)."""


def given_ref(reference: str | None) -> str | None:
    """``reference`` as a message's identity, when it is given.

    Raises:
        InvalidInput: If it is blank: every message given one would be the first message
            given it (found by review: ``source_ref=""`` made each later message return the
            first, and dropped it); or longer than :data:`MAX_SOURCE_REF_CHARS`.
    """
    if reference is not None and not reference.strip():
        raise InvalidInput("source_ref", "is blank; give a reference, or None for none.")
    if reference is not None and len(reference) > MAX_SOURCE_REF_CHARS:
        raise InvalidInput(
            "source_ref",
            f"is {len(reference)} characters; at most {MAX_SOURCE_REF_CHARS} are allowed "
            "(a log's path, #byte= and an offset).",
        )
    return reference
