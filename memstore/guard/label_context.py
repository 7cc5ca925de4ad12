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
# password in 2023 was 123456" (found by review), with no owner between the label and the
# value ("... for our wifi is", "... I use is"), and a value from the lists of everyone's
# passwords (found by the next reviews: "Top floor door code: 4471", "His most common
# password: Hunter2024!" and "The most common door code: 4471" passed).
STATISTIC = re.compile(
    r"\b(?:the|a|an)[ \t]+(?:(?:second |third )?most (?:common|popular|frequent|used)"
    r"|commonest|top \d+|weakest|worst)(?:[ \t]+[\w-]+){0,2}[ \t]+$",
    re.IGNORECASE,
)
STATISTIC_REACH = 40  # characters before a label that hold its qualifier
COMMON_VALUES = re.compile(
    r"[\"'`]?(?:1234(?:5(?:6(?:7(?:89?)?)?)?)?|0000|1111|111111|123123|654321|password1?"
    r"|qwerty(?:uiop)?|azerty|qwertz|abc123|letmein|iloveyou|admin|welcome|monkey)"
    r"[\"'`.,;!?)]*",
    re.IGNORECASE,
)
OWNED = re.compile(r"\b(?:my|our|his|her|their|your|I|we|at work|at home|here)\b", re.IGNORECASE)


def in_a_statistic(found: re.Match[str]) -> bool:
    """Whether the words just before the label make its value everyone's (see
    :data:`STATISTIC`): the value one of :data:`COMMON_VALUES`, and no owner after the label."""
    start = found.start()
    if COMMON_VALUES.fullmatch(found["value"]) is None:
        return False
    if OWNED.search(found.string, start, found.start("value")):
        return False
    return STATISTIC.search(found.string[max(start - STATISTIC_REACH, 0) : start]) is not None


# What follows a key file's name in a command: a destination (user@host), another path, an
# option ("ssh -i ~/.ssh/deploy_key ubuntu@host", found by review), not a value.
DESTINATION = re.compile(r"[\w.+-]+@[\w.:-]+(?::\S*)?|[-~/.$%]\S*")


def in_a_path(found: re.Match[str]) -> bool:
    """Whether the label is a file's name at the end of a path ("/" or "\\" just before it)
    with no connector after it, followed by a command's next argument (:data:`DESTINATION`),
    not a value ("wifi/password Xk9!mPq2vL" and "~/secrets/password Xk9!mPq2vL" are refused:
    found by the next reviews). Only the character before the label is read: searching back
    for the path's root took time growing with the square of the text's length."""
    start = found.start()
    slash = found.string[start - 1 : start] in ("/", "\\")
    return found["bare"] is not None and slash and DESTINATION.fullmatch(found["value"]) is not None
