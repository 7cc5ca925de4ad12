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
# these, a word of letters only is no password, unless the label is of the language whose
# "is" the verb is (found by review: "hasło to słonecznik", "пароль — подсолнух" passed).
WEAK_VERBS = {"to", "-", "—", "on", "er", "je", "este", "és", "là", "es el", "es la"}
NATIVE_LABELS = {
    "to": ("hasł", "hasl"),
    "-": ("парол",),
    "—": ("парол",),
    "on": ("salasana",),
    "er": ("passord", "adgangskode", "kodeord"),
    "je": ("heslo",),
    "là": ("mật khẩu",),
}
# A Japanese or Korean copula after a spaced value ends its clause: "パスワードは himawari
# です" (found by review: only "himawariです", glued, was read so).
COPULA = re.compile(r"[ \t]*(?:です|でした|だ|입니다|이에요|예요|야)")


def weak(found: re.Match[str]) -> bool:
    """Whether the connector of a password label's match ``found`` (groups ``verb``,
    ``arrow`` and ``password``) may join other words than a label and its value: an arrow
    ("password → Bitwarden"), or a verb of :data:`WEAK_VERBS` after a label of another
    language than the verb's."""
    if found["arrow"] is not None:
        return True
    verb = (found["verb"] or "is").casefold()
    native = NATIVE_LABELS.get(verb, ())
    return verb in WEAK_VERBS and not (found["password"] or "").casefold().startswith(native)


def copula_follows(found: re.Match[str]) -> bool:
    """Whether a Japanese or Korean copula follows the value of ``found``."""
    return COPULA.match(found.string, found.end("value")) is not None
