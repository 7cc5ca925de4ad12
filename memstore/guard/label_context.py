"""What around a label says its value is no credential of the user's: Spanish "clave"
qualifying the noun before it, a key file's name at the end of a path, a statistic about
everyone's passwords. :mod:`memstore.guard.labels` asks these of each label it finds."""

from __future__ import annotations

import re

NOUN_REACH = 40  # characters before "clave" that hold its noun, longer than any of them
# Nouns Spanish "clave" qualifies ("Palabras clave", "Dato clave: 1500", "año clave"): after
# any other word ("Wifi clave:", "Usuario: admin Clave: 887766") it names a key or PIN.
CLAVE_NOUNS = {
    "palabra", "palabras", "dato", "datos", "fecha", "fechas", "año", "años", "momento",
    "momentos", "número", "numero", "números", "punto", "puntos", "pieza", "factor", "factores",
    "elemento", "elementos", "tema", "temas", "idea", "ideas", "pregunta", "papel", "figura",
    "jugador", "personaje", "mensaje", "concepto", "conceptos", "aspecto", "aspectos", "paso",
    "pasos", "frase", "término", "términos", "día", "hora", "cifra", "cifras", "parte", "país",
    "sector", "cargo", "testigo", "partido", "escena", "capítulo", "lección", "rol",
}  # fmt: skip


def names_no_credential(found: re.Match[str]) -> bool:
    """Whether what stands around the label makes its value no credential of the user's:
    :func:`adjectival`, :func:`in_a_path` or :func:`in_a_statistic`."""
    return adjectival(found) or in_a_path(found) or in_a_statistic(found)


def adjectival(found: re.Match[str]) -> bool:
    """Whether the label is Spanish "clave" qualifying the word before it ("Dato clave:
    1500 euros", "Fecha clave: 2025"; found by review: refused as PINs)."""
    label = found["pin"] or found["key"] or ""
    if label.casefold() != "clave":
        return False
    # the word before, within a few characters: splitting all the text before each label
    # took a text of "clave " repeated quadratic time
    start = found.start()
    before = found.string[max(start - NOUN_REACH, 0) : start].split()
    return bool(before) and before[-1].casefold() in CLAVE_NOUNS


# What says a label's value is a statistic about everyone's, not the user's: "the most common
# password in 2023 was 123456" (found by review), with no owner ("Diego's most used password
# is ...") and a value everyone's list holds (found by the next review: "Top floor door
# code: 4471" and "His most common password: Hunter2024!" passed).
STATISTIC = re.compile(
    r"\b(?:the|a|an)[ \t]+(?:most (?:common|popular|frequent)|commonest|top \d+)"
    r"(?:[ \t]+\w+){0,2}[ \t]+$",
    re.IGNORECASE,
)
STATISTIC_REACH = 40  # characters before a label that hold its qualifier
COMMON_VALUES = re.compile(
    r"[\"'`]?(?:\d{1,9}|password1?|qwerty(?:uiop)?|abc123|letmein|iloveyou|admin|welcome)"
    r"[\"'`.,;!?)]*",
    re.IGNORECASE,
)


def in_a_statistic(found: re.Match[str]) -> bool:
    """Whether the words just before the label make its value everyone's (see
    :data:`STATISTIC`), and the value is one of :data:`COMMON_VALUES`."""
    start = found.start()
    before = found.string[max(start - STATISTIC_REACH, 0) : start]
    common = COMMON_VALUES.fullmatch(found["value"]) is not None
    return common and STATISTIC.search(before) is not None


# A path's folders up to a file's name: rooted (~/, ./, ../, /, C:\), with a folder at least.
PATH_BEFORE = re.compile(r"(?:^|\s)(?:~|\.{1,2}|[A-Za-z]:)?[/\\](?:[^\s/\\]+[/\\])+$")


def in_a_path(found: re.Match[str]) -> bool:
    """Whether the label is a file's name at the end of a rooted path, with no connector after
    it ("ssh -i ~/.ssh/deploy_key ubuntu@host": found by review), not a word a slash joins
    to another ("wifi/password Xk9!mPq2", found by the next review)."""
    start = found.start()
    return found["bare"] is not None and PATH_BEFORE.search(found.string, 0, start) is not None
