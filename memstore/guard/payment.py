"""Credentials that open money: a payment card's number, and a wallet's seed phrase.

A card number is 13 to 19 digits, whole or in groups of the same separator, that pass the
Luhn check and start as a card network's numbers start (a bank account, a phone number or
an order number rarely does both). A network's published test numbers (Stripe's 4242...,
Visa's 4111...) are what developers keep notes of: a number with "test" shortly before it
passes. A seed phrase is a label ("seed phrase", "recovery words", "mnemonic", in six
languages), a colon or a verb, then at least twelve words of 3 to 8 letters, nearly none of
them the function words that prose is full of.
"""

from __future__ import annotations

import re

CARD = re.compile(
    r"(?<![\w/-])(?<!\d[.,])\d{4}(?P<sep>[ -]?)\d{2,7}(?:(?P=sep)\d{1,7}){0,3}(?![\w/-]|[.,]\d)"
)
# The first digits of each network's numbers and the lengths it issues: Visa, Mastercard,
# American Express, Discover, JCB, Diners Club, UnionPay, Maestro.
NETWORKS = (
    (re.compile(r"4"), {13, 16, 19}),
    (re.compile(r"5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)"), {16}),
    (re.compile(r"3[47]"), {15}),
    (re.compile(r"6(?:011|5|4[4-9])"), {16, 19}),
    (re.compile(r"35(?:2[89]|[3-8]\d)"), {16, 17, 18, 19}),
    (re.compile(r"3(?:0[0-5]|[68])"), {14, 16}),
    (re.compile(r"62"), {16, 17, 18, 19}),
    (re.compile(r"50(?:18|20|38)|5893|6304|67(?:59|6[1-3])"), {16, 17, 18, 19}),
)
TEST_NOTE = re.compile(r"\btest", re.IGNORECASE)
TEST_REACH = 40  # characters before a number that may say it is a test card's

SEED_LABEL = re.compile(
    r"(?:(?:secret |wallet )?seed(?:[ -]?(?:phrase|words))?"
    r"|(?:recovery|backup)[ -]?(?:phrase|words|seed)|mnemonic(?: phrase| words)?"
    r"|frase (?:semilla|de recuperación|di recupero|de recuperação)"
    r"|phrase (?:secrète|de récupération)|wiederherstellungsphrase)"
    r"(?:[ \t]*[:=]|[ \t]+(?:is|are|es|est|ist|lautet|è|é|são)[ \t]*:?)\s*",
    re.IGNORECASE,
)
SEED_WORD = re.compile(r"(?:\d{1,2}[.)]?[ \t]*)?([a-zA-Z]{3,8})\s*[,;]?\s*")  # one a line too
SEED_WORDS = 12
PROSE_WORDS = {
    "the", "and", "for", "with", "that", "this", "them", "they", "you", "your", "are", "was",
    "were", "have", "has", "not", "but", "from", "into", "our", "its", "his", "her", "who",
    "what", "when", "where", "which", "will", "would", "can", "could", "should", "there",
    "then", "than", "also", "just", "very", "all", "any", "some", "each", "about", "after",
    "before", "over", "under", "again", "once", "here",
}  # fmt: skip
MOST_PROSE_WORDS = 1  # a seed phrase may hold one ("about" is a seed word too)


def payment_kind(text: str) -> str | None:
    """``payment card number`` or ``seed phrase`` when ``text`` holds one, else None."""
    for found in CARD.finditer(text):
        if card_number("".join(filter(str.isdigit, found[0]))) and not test_card(found):
            return "payment card number"
    for found in SEED_LABEL.finditer(text):
        if seed_phrase(text, found.end()):
            return "seed phrase"
    return None


def card_number(digits: str) -> bool:
    """Whether ``digits`` are a card number: a network's start and length, and the Luhn
    check (every second digit from the right doubled, the digits' sum a multiple of 10)."""
    if not digits.isdigit() or not any(
        start.match(digits) and len(digits) in lengths for start, lengths in NETWORKS
    ):
        return False
    total = 0
    for place, digit in enumerate(map(int, reversed(digits))):
        doubled = digit * 2 if place % 2 else digit
        total += doubled - 9 if doubled > 9 else doubled
    return total % 10 == 0


def test_card(found: re.Match[str]) -> bool:
    """Whether the words shortly before the number say it is a test card's."""
    return (
        TEST_NOTE.search(found.string, max(found.start() - TEST_REACH, 0), found.start())
        is not None
    )


def seed_phrase(text: str, start: int) -> bool:
    """Whether at least :data:`SEED_WORDS` words of 3 to 8 letters (numbered or not) follow
    ``start``, at most :data:`MOST_PROSE_WORDS` of them function words."""
    words = []
    while (found := SEED_WORD.match(text, start)) is not None and found.end() > start:
        words.append(found[1])
        start = found.end()
    prose = sum(word.lower() in PROSE_WORDS for word in words)
    return len(words) >= SEED_WORDS and prose <= MOST_PROSE_WORDS
