"""What joins a credential's label to its value (":", "=", "→", a verb in one of the guard's
languages, a Chinese, Japanese or Korean particle), and which of those verbs also join
other words, so that a word of letters only after them is no password."""

from __future__ import annotations

import re

# Longer verbs first: an alternation takes the first that matches, and "is" alone left
# "is now" the value of "the wifi password is now Hunter22" (found by review).
VERBS = (
    r"is now|is still|will be|should be|has been (?:changed |set |reset )?to|has been"
    r"|(?:was |got )?(?:changed|set|reset|updated) to|ahora es|es ahora|será|sigue siendo"
    r"|est maintenant|est désormais|sera|était|ist jetzt|ist nun|ist noch"
    r"|(?:geändert|gesetzt) (?:auf|zu)|был[аои]?|будет|теперь"
    r"|is|was|are|es el|es la|es|era|est|ist|lautet|war|heißt|è|e'|é|luidt|to|jest|brzmi|это|—|-|"
    r"sono|são|sind|sont|(?<=[aeiouáéíóú]s[ \t])son|"
    r"on|är|er|je|είναι|هي|היא|là|adalah|este|és"
)
CJK_PARTICLES = r"是|为|為|は|が|는|은|이|가"
# Spaces and tabs only: a label never reaches across a line break to the next line's text.
CONNECTOR = (
    rf"[\"']?[ \t]*(?:[:=>]|(?P<arrow>→))[ \t]*|[ \t]+(?P<verb>{VERBS})(?:[ \t]*:)?[ \t]+"
    r"|[ \t]*,?[ \t]+(?:c'est|it's|it is|that's|das ist|es|è)[ \t]+"
    rf"|[ \t]*(?:{CJK_PARTICLES})[ \t]*"
)
# Polish "to" is also English "to", Finnish "on" English "on"; dashes also join words: after
# these, a word of letters only is no password. After a label of the verb's own language
# too: "Salasana on tärkeä", "Hasło to podstawa", "Пароль — ерунда" say what the password is
# like, and the state lists of those languages are short (found by review: taking the verb
# as "is" there, to catch "hasło to słonecznik", refused them).
# The plural verbs of Italian, Portuguese, Spanish, German and French too: the adjectives
# after them take plural endings the state lists do not hold ("le password sono scadute").
# Spanish "son" only after a plural ending in a vowel and s ("contraseñas son"): it is an
# English word ("gave the PIN to son Jake2", "my bus pass son Jake2": found by re-checks).
WEAK_VERBS = {"to", "-", "—", "on", "er", "je", "este", "és", "là", "es el", "es la"}
WEAK_VERBS |= {"sono", "são", "son", "sind", "sont"}
# A Japanese or Korean copula after a spaced value ends its clause: "パスワードは himawari
# です" (found by review: only "himawariです", glued, was read so); so does a closing corner
# bracket before the clause's end or a copula ("密码是「sunflower」。"), not one before more
# of the clause ("「qwerty」のような": found by the next reviews).
COPULA = r"(?:です|でした|だ|입니다|이에요|예요|야)(?![\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af])"
"""A copula, not the start of a longer word ("だけ", "だと", "야간": found by review)."""
CLOSED = re.compile(rf"[ \t]*{COPULA}|[」』】][ \t]*(?:$|[。.,;!?\n]|{COPULA})")
# An apostrophe after a value that makes it a possessive, with more of the phrase after it:
# the value is a name ("password is Movistar's default": found by review, the apostrophe was
# read as a closing quote).
POSSESSIVE = re.compile(r"['\u2019]s[ \t]+\w")


def weak(found: re.Match[str]) -> bool:
    """Whether the connector of a label's match ``found`` (groups ``verb`` and ``arrow``)
    may join other words than a label and its value: an arrow ("password → Bitwarden"), or
    a verb of :data:`WEAK_VERBS`, a colon after it or not ("le password sono: scadute"
    says what they are like: found by the re-check, a rule taking the colon for a value's
    sign refused it)."""
    return found["arrow"] is not None or (found["verb"] or "is").casefold() in WEAK_VERBS


def clause_closed(found: re.Match[str]) -> bool:
    """Whether a Japanese or Korean copula, or a corner bracket closing the clause, follows
    the value of ``found`` (see :data:`CLOSED`)."""
    return CLOSED.match(found.string, found.end("value")) is not None


def possessive(found: re.Match[str]) -> bool:
    """Whether the value of ``found`` is a possessive that a phrase goes on after (see
    :data:`POSSESSIVE`), and so does not end its clause."""
    return POSSESSIVE.match(found.string, found.end("value")) is not None


def assigned(found: re.Match[str]) -> bool:
    """Whether the connector of ``found`` is ``=``: code's assignment, where a quoted phrase
    is a value (``password="my dog rex 2019"``), not a description or an instruction
    (found by review: ``password: "minimum eight characters required"``, `the password is
    "taped under keyboard"` were refused)."""
    connector = found["filler"] is not None  # matched with a connector, not bare
    return connector and "=" in found.string[found.end("filler") : found.start("value")]
