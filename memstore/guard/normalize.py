"""The forms of a text the guard scans: what a pasted credential looks like once the ways of
hiding it from a plain pattern are undone.

NFKC turns fullwidth and other compatibility forms into their plain letters (fullwidth
``ghp_``, U+FF47 U+FF48 U+FF50 U+FF3F, is ``ghp_``; U+FF1A is ``:``); tabs are read as
spaces; control characters are dropped, and also read as spaces; terminal escape sequences
are scanned kept and dropped whole; format characters, the zero-width space and joiner among
them, are dropped; a run of single characters with one space between each
(``g h p _ 6 R ...``) is also scanned joined up; and so is a short line ending in a colon
with the line of one word after it (``Password:`` above its value).
"""

from __future__ import annotations

import re
import unicodedata

LINK = re.compile(r"\b(?:https?|ftp)://\S+|\bdata:[\w/+.-]+;base64,\S+", re.IGNORECASE)
SPACED_OUT = re.compile(r"(?<!\S)(?:\S(?: +|-))+\S(?!\S)")  # "g h p", "g  h  p", "g-h-p"
MIN_SPACED_CHARS = 8  # shorter spaced runs are initials, lists, "a b c"
GROUPED_KEY = re.compile(r"\b(AKIA|ASIA)((?: [A-Z0-9]{4}){4})\b")  # "AKIA Z7Q4 L2M9 ..."
# Control characters but tab and line ends: dropped, as a token may hide one inside; and
# read as spaces too, as no pattern reads one as the end of a value (both found by review:
# "pin: 4821\x01" passed, then "password: Sun\x01flower77!" once read as a space).
CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")
# Terminal escape sequences (ECMA-48: CSI with its parameters, OSC up to its end, ESC and one
# character), dropped whole in one of the forms scanned: their tail ("[0m", "]0;t") was read
# as a label's value (found by review).
ESCAPE = re.compile(
    "(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]"
    "|(?:\x1b\\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\\\|\x9c)?"
    "|\x1b[ -/]*[0-~]"
)
# Tabs, vertical tabs and form feeds, read as spaces: the label patterns spell the spaces
# between their words (found by review: "wifi\tpassword:\tHunter22" passed).
SPACING = re.compile("[\t\x0b\x0c]")
# A line of at most three words ending in a colon (and the emphasis closing it), then a line
# of one word, maybe after a blank line, that ends the text or a paragraph or comes before a
# line holding a colon (another field): a label and its value as a form, a note or a
# password manager lays them out ("Password:\nLucy1987!\nURL: ..."), also read as one line
# (found by review: every label missed its value there, as no label reads across a line
# break). The next reviews found what must stay apart: a heading and its sentence
# ("Passwort:\n2024 geändert"), a heading and a list ("Shared password:\nNetflix\nAmazon
# Prime"), code and the statement under it ("if not password:\n    return", indented
# further), and a form's next label ("Password:\nConfirm:").
LABEL_LINE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<label>(?:[^\s:]+[ \t]+){0,2}[^\s:]+)[ \t]*:"
    r"[ \t]*(?P<close>\*\*|__|\*|_)?[ \t]*\r?\n(?:[ \t]*\r?\n)?(?P<next>[ \t]*)(?P<value>\S*[^\s:])"
    r"(?=[ \t]*(?:\Z|\r?\n[ \t]*(?:\Z|\r?\n|[^\n:]*:)))",
    re.MULTILINE,
)


def labelled_lines(text: str) -> str:
    """Each label line of ``text`` (:data:`LABEL_LINE`) with its value on one line, a line
    each, without the emphasis opening it when its closing mark came after the colon
    ("_Password:_" is "Password:"; "*Password*:" is kept whole, for the labels to read as a
    pair: found by review); a value indented under its label (code's body) left out. Only
    those lines: scanning the whole text again made the guard two to three times slower on a
    form (found by review)."""
    return "\n".join(
        f"{found['label'].lstrip('*_') if found['close'] else found['label']}: {found['value']}"
        for found in LABEL_LINE.finditer(text)
        if len(found["next"]) <= len(found["indent"])
    )


# Characters shown as nothing that are not format characters: Hangul fillers, the combining
# grapheme joiner, Mongolian and other variation selectors, the supplementary ones too (found
# by review: U+E0100 between a token's characters hid it).
INVISIBLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]"
)


def variants(text: str) -> list[str]:
    """``text`` normalised (NFKC, tabs read as spaces, terminal escape sequences dropped
    whole, control characters dropped, format characters dropped); when it holds control
    characters or tabs, the same with control characters read as spaces, and the text as
    written (NFKC, format characters dropped), as the guard read it before (reviews found
    credentials only that form shows: a CSI start taking a token's first letter for its
    end, a form feed inside a password); and each of those again with its spaced-out runs
    of at least :data:`MIN_SPACED_CHARS` characters joined, and with a label's line joined
    to its value's (see :func:`plain_and_joined`), when that differs."""
    written = unicodedata.normalize("NFKC", text)
    bare = ESCAPE.sub("", SPACING.sub(" ", written))
    forms = [CONTROL.sub("", bare)]
    if CONTROL.search(written) or SPACING.search(written):  # and as written, as read before
        forms += [CONTROL.sub(" ", bare), written]
    return [variant for form in dict.fromkeys(forms) for variant in plain_and_joined(form)]


def plain_and_joined(text: str) -> list[str]:
    """``text`` with its format and invisible characters dropped, and that again with its
    spaced-out runs joined, when it differs; and the label lines of each with their values
    (:func:`labelled_lines`), when it has any."""
    plain = text
    if not plain.isascii():
        plain = "".join(char for char in plain if unicodedata.category(char) != "Cf")
        plain = INVISIBLE.sub("", plain)
    joined = GROUPED_KEY.sub(lambda found: found[1] + found[2].replace(" ", ""), plain)
    joined = SPACED_OUT.sub(join_run, joined)
    lined = [labelled_lines(form) for form in (plain, joined)]
    return list(dict.fromkeys((plain, joined, *filter(None, lined))))


def join_run(found: re.Match[str]) -> str:
    """A spaced-out run without its spaces, when it is long enough to hide a token."""
    run = found.group()
    letters = re.sub(r" +|(?<=\S)-(?=\S)", "", run)
    return letters if len(letters) >= MIN_SPACED_CHARS else run


def without_links(text: str) -> str:
    """``text`` with its web links and ``data:`` URIs blanked: a shared image's URL carries
    signed tokens and long ids (a ``?token=`` JWT, a base64 image) that are not the user's
    credentials."""
    return LINK.sub(" ", text) if "://" in text or "data:" in text else text
