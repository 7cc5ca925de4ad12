"""What around a label says its value is no credential of the user's: a word naming
another thing of it ("Token ID"), Spanish "clave" qualifying the noun before it, a key
file's name at the end of a path, a statistic about everyone's passwords.
:mod:`memstore.guard.labels` asks these of each label it finds."""

from __future__ import annotations

import re

from memstore.guard.values import UNITS

# What is named after a label that is not the credential itself ("Token ID: 8a3f", "GPG key
# ID: 4B4F7A6E9D2B1C3E"; found by review: refused, as "ID" read as a brand's name).
ATTRIBUTES = {
    "id", "ids", "name", "names", "type", "types", "length", "size", "format", "fingerprint",
    "prefix", "expiry", "url", "endpoint", "scope", "scopes", "hash", "count", "limit",
}  # fmt: skip


MEASURES = {"length", "size", "count", "limit", "expiry", "format", "type"}
"""The attributes a password or PIN label may name: a measure or a kind ("Password Length:
128", "Password Type: alphanumeric"), of up to three digits or letters only."""
COUNTS = {"count", "limit", "expiry"}  # of any number
HEX = re.compile(r"(?:0x)?[0-9a-fA-F]+")  # an id as GnuPG prints it, "0x3F9A8B7C6D5E4F3A" too
NAME_LIKE = re.compile(
    r"[A-Za-z][a-z]+(?:[-_.]?[A-Z]?[a-z]{2,}|[-_.][0-9]+)*(?:[-_.]?[0-9]+)?"
    r"|[a-z0-9]+(?:[-.][a-z0-9]+){2,}"
)
"""A name of words, numbers only between hyphens or at its end ("MyProductionKey2024",
"prod-v2-deploy"), or a lowercase id of three parts or more ("ocid1-key-oc1-aaaabbbb"); not
a random run ("Kx9mPq2vLr77")."""


def another_thing(found: re.Match[str], first: str, value: str) -> bool:
    """Whether the word ``first`` after a label names another thing of the credential
    (:data:`ATTRIBUTES`) and ``value``, without a symbol but ``-_.``, is such a thing.

    After a password or PIN label only a :data:`MEASURES` word does, for up to three digits
    or letters ("Password Length: 128", not "PIN Length: 4821" nor "Password Hash:
    Sunflower2024"); after a key or token label, a short value (8 characters), a hex one,
    or a name of words (:data:`NAME_LIKE`: "Token ID: 8a3f", "Key Name:
    production-deploy-key-2024", not "Token ID: Kx9mPq2vLr77"); never after "secret"
    (Vault's "Secret ID" is its credential). Found by five reviews, each of a rule that was
    too wide or too narrow."""
    text = value.strip("\"'`.,;!?()")
    if first not in ATTRIBUTES or value != found["value"]:  # "Login ID: admin / hunter22"
        return False
    if any(not c.isalnum() and c not in "-_." for c in text):
        return False
    if found["password"] or found["pin"]:
        counted = first in COUNTS and text.isdigit()  # "PIN Count: 1000", "PIN Expiry: 2030"
        short = text.isdigit() and len(text) <= 3
        return counted or (first in MEASURES and (short or text.isalpha()))
    label = (found["key"] or found["long_key"] or "").casefold()
    if label.startswith("secret"):
        return False
    named = NAME_LIKE.fullmatch(text) is not None  # "MyProductionKey2024", "prod-deploy-2"
    return len(text) <= 8 or named or HEX.fullmatch(text.replace("-", "")) is not None


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
    :func:`adjectival`, :func:`in_a_path`, :func:`in_a_statistic`, or a unit after the
    value's closing corner bracket ("PINは「2024」年に設定": found by review)."""
    unit = COUNTED_AFTER.match(found.string, found.end("value")) is not None
    return unit or adjectival(found) or in_a_path(found) or in_a_statistic(found)


COUNTED_AFTER = re.compile(f"[」』】](?:{UNITS})")


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
# password in 2023 was 123456" (found by review). All together (found by the next reviews:
# "Top floor door code: 4471", "His most common password: Hunter2024!", "the most used PIN on
# the family card is 1234" passed): the label after "the most common" (popular, frequent,
# used, commonest, weakest, worst, top N), a value from everyone's lists, and between the
# label and the value nothing but the verb, or words that place the statistic (a year, a
# leak, a country).
STATISTIC = re.compile(
    r"\b(?:the|a|an)[ \t]+(?:(?:second |third )?most (?:common|popular|frequent|used)"
    r"|commonest|weakest|worst|top \d+)(?:[ \t]+[\w-]+){0,2}[ \t]+$"
    # and right before a Chinese, Japanese or Korean label, at a clause's start or after "in
    # the world" (found by review: "最糟糕的密码是「iloveyou」。"; not "我最常用的密码是...")
    r"|(?:^|[。.!?\n]|世界上|全球|网上|網上|世界で|世界中で|日本で|세계에서 ?|한국에서 ?)"
    r"(?:最(?:常用|常见|常見|糟糕|弱|差)|よく使われる|最も多い|一番多い"
    r"|가장 흔한 ?|가장 많이 쓰는 ?)[的な]?$",
    re.IGNORECASE,
)
STATISTIC_REACH = 40  # characters before a label that hold its qualifier
COMMON_VALUES = re.compile(
    r"[\"'`]?(?:1234(?:5(?:6(?:7(?:8(?:90?)?)?)?)?)?|0000(?:00)?|1111(?:11(?:11)?)?|1212|123123"
    r"|123321|654321|password1?|qwerty(?:uiop)?|azerty|qwertz|abc123|letmein|iloveyou|admin"
    r"|welcome|monkey|sunshine|princess|football|baseball|dragon|superman|trustno1"
    r"|passw0rd)[\"'`.,;!?)]*",
    re.IGNORECASE,
)
EVIDENCE = re.compile(
    r"\b(?:19|20)\d\d\b|\b(?:leaks?|leaked|breach(?:es)?|dump|lists?|survey|study|dataset"
    r"|ranking|report|research|audits?|world|country|countries|internet|everyone|people|users)\b",
    re.IGNORECASE,
)
PLACE = re.compile(r"\bin (?:the )?[A-Z]\w+")  # "in France", "in the UK"


def in_a_statistic(found: re.Match[str]) -> bool:
    """Whether the label's value is everyone's (see :data:`STATISTIC`)."""
    start, text = found.start(), found.string
    if COMMON_VALUES.fullmatch(found["value"]) is None:
        return False
    if STATISTIC.search(text[max(start - STATISTIC_REACH, 0) : start]) is None:
        return False
    filler = found["filler"] or found["filler_digits"] or ""
    return not filler.strip() or EVIDENCE.search(filler) is not None or bool(PLACE.search(filler))


# What follows a key file's name in a command: a user at a host, a host's full name or
# address, or a path ("ssh -i ~/.ssh/deploy_key ubuntu@host", found by review), not a value
# ("Admin@123", "-Tiger2024": found by the next review).
HOST = r"(?:[\w-]+\.){2,}[\w-]+|\d{1,3}(?:\.\d{1,3}){3}|localhost"
USER_AT_HOST = r"[a-z_][a-z0-9._-]*@(?:[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*|\d{1,3}(?:\.\d{1,3}){3})"
DESTINATION = re.compile(rf"(?:{USER_AT_HOST}|{HOST})(?::\S*)?|(?:~|\.{{1,2}})?/\S*|[\w.-]+:/\S*")


def in_a_path(found: re.Match[str]) -> bool:
    """Whether the label is a file's name at the end of a path ("/" or "\\" just before it)
    with no connector after it, followed by a command's next argument (:data:`DESTINATION`),
    not a value ("wifi/password Xk9!mPq2vL" and "~/secrets/password Xk9!mPq2vL" are refused:
    found by the next reviews). Only the character before the label is read: searching back
    for the path's root took time growing with the square of the text's length."""
    start = found.start()
    slash = found.string[start - 1 : start] in ("/", "\\")
    return found["bare"] is not None and slash and DESTINATION.fullmatch(found["value"]) is not None
