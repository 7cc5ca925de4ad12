"""Credentials that open money: a payment card's number, and a wallet's seed phrase.

A card number is 16 digits (15 for American Express) as cards print them, whole or in
groups, that pass the Luhn check and start as a card network's numbers start (a phone
number, an order number or a barcode rarely does all three). A network's published test
numbers (Stripe's 4242...) are what developers keep notes of: a number with "test" or
"sandbox" shortly before it passes. A seed phrase is a label ("seed phrase", "recovery
words", "wallet seed", a ``"mnemonic":`` setting; in six languages), then at least twelve
words of 3 to 8 letters, nearly none of them the function words that prose is full of.
"""

from __future__ import annotations

import re

# A card's number as cards print it: 16 digits (15 for American Express) whole, in four
# groups of four, or (American Express) 4-6-5 or 4-4-4-3; no digit group, word or "+" right
# before it, nor a fifth group of four after it that is no expiry, so that a phone number, an
# IBAN's or a barcode's digits or a longer id is none (found by review: each refused one time
# in ten); an expiry or a code may follow it ("4539 1488 0343 6467 0927 123").
CARD = re.compile(
    r"(?<![\w/+-])(?<!\d[.,])(?<!\d[ .-])"
    r"(?:\d{15,16}|\d{4}(?P<sep>[ .-])\d{4}(?P=sep)\d{4}(?P=sep)\d{3,4}"
    # in groups of four, no fifth one after it (an order or tracking number) but an expiry
    # (MMYY); American Express's code is four digits, after its 4-6-5 (found by review)
    r"(?![ .-](?!(?:0[1-9]|1[0-2])\d\d(?![ .-]?\d{4}))\d{4})"
    r"|\d{4}([ -])\d{6}\2\d{5})"
    r"(?![\w/-]|[.,]\d)"
)
# The first digits of each network's numbers and the length it prints: Visa, Mastercard,
# American Express, Discover, JCB, Diners Club, UnionPay, Maestro.
NETWORKS = (
    (re.compile(r"4"), 16),
    (re.compile(r"5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)"), 16),
    (re.compile(r"3[47]"), 15),
    (re.compile(r"6(?:011|5|4[4-9])"), 16),
    (re.compile(r"35(?:2[89]|[3-8]\d)"), 16),
    (re.compile(r"3(?:0[0-5]|[68])"), 16),
    (re.compile(r"62"), 16),
    (re.compile(r"50(?:18|20|38)|5893|6304|67(?:59|6[1-3])"), 16),
)
TEST_NOTE = re.compile(r"\b(?:test|testing|sandbox)\b", re.IGNORECASE)
# Payment providers' published test card numbers (Stripe, Braintree, Adyen, the networks'):
# a developer's note of one is no card, whatever the words around it (found by review).
TEST_NUMBERS = {
    "4242424242424242", "4000056655665556", "5555555555554444", "2223003122003222",
    "5200828282828210", "5105105105105100", "378282246310005", "371449635398431",
    "6011111111111117", "6011000990139424", "6011981111111113", "3056930009020004",
    "3566002020360505", "6200000000000005", "4111111111111111", "4012888888881881",
    "4005519200000004", "4009348888881881", "4012000033330026", "4012000077777777",
    "4217651111111119", "4500600000000061", "2223000048400011", "3530111333300000",
    "4111111145551142", "5555341244441115", "370000000000002", "4000000000000002",
    "4000000000009995", "4000002500003155", "4000000000003220", "5454545454545454",
}  # fmt: skip
TEST_REACH = 60  # characters before a number (or a code) that may say it is a test card's
# The end of a clause: ".", ";", "!", "?" or "," before a space ("4539.1488..." goes on),
# a line break, or a dash between spaces.
SENTENCE_END = re.compile(r"[.;!?](?:\s|$)|\n")
TEST_CARD_REACH = 80  # characters before a code in which its test card may stand
CLAUSE_END = re.compile(r"[.;!?,](?:\s|$)|\n|\s[-\u2013\u2014]\s")

CONNECTOR = (  # ":", "=", an arrow or a dash (en, em), or a verb
    r"[ \t]*(?:[:=]|->|\u2192|\u2014|\u2013|-)"
    r"|[ \t]+(?:is|are|was|were|es|est|ist|lautet|è|é|são)[ \t]*:?"
)
SEED_LABEL = re.compile(
    r"(?:\b(?:(?:secret |wallet )?(?:seed|recovery|backup|mnemonic)[ -]?(?:phrase|words)"
    r"|(?:wallet|recovery) seed|bip-?39(?: phrase| words| seed| mnemonic)?"
    r"|frase (?:semilla|de recuperación|di recupero|de recuperação)"
    r"|phrase (?:secrète|de récupération)|wiederherstellungsphrase)"
    rf"(?:[ \t]*\([^)\n]{{1,40}}\))?(?:{CONNECTOR})?"  # "recovery phrase (metamask):"
    r"|([\"'])(?:mnemonic|seed_?phrase|recovery_?phrase)\1[ \t]*:"  # JSON
    rf"|\b(?P<bare>mnemonic|seed)(?:{CONNECTOR}))"  # "MetaMask seed:", "mnemonic: ..."
    r"\s*[\"'“]?",
    re.IGNORECASE,
)
# A word of a seed phrase, numbered or not ("1. word", "#1 word", "(1) word", "1-word"),
# then what may part it from the next: white space, a comma, a semicolon, "|", "/" or "-".
SEED_WORD = re.compile(r"(?:(?:#?\d{1,2}[.):-]?|\(\d{1,2}\))[ \t]*)?([a-zA-Z]{3,8})[\s,;|/-]*")
SEED_WORDS = 12
# The words of a run read after a label: twice the longest phrase (24 words). Reading every
# word to the run's end, from each label, took a text of "seed " repeated quadratic time.
MOST_SEED_WORDS = 48
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
        if card_number(digits_of(found)) and not is_test_card(found):
            return "payment card number"
    for found in SEED_LABEL.finditer(text):
        if seed_phrase(text, found.end(), named=found["bare"] is None):
            return "seed phrase"
    return None


def digits_of(found: re.Match[str]) -> str:
    """The digits of a :data:`CARD` match, without its separators."""
    return "".join(filter(str.isdigit, found[0]))


def card_number(digits: str) -> bool:
    """Whether ``digits`` are a card number: a network's start and length, and the Luhn
    check (every second digit from the right doubled, the digits' sum a multiple of 10)."""
    if not digits.isdigit() or not any(
        start.match(digits) and len(digits) == length for start, length in NETWORKS
    ):
        return False
    total = 0
    for place, digit in enumerate(map(int, reversed(digits))):
        doubled = digit * 2 if place % 2 else digit
        total += doubled - 9 if doubled > 9 else doubled
    return total % 10 == 0


def is_test_card(found: re.Match[str]) -> bool:
    """Whether the number is a provider's published test card (:data:`TEST_NUMBERS`), or the
    words shortly before it in its clause say it is a test card's."""
    return digits_of(found) in TEST_NUMBERS or noted_as_test(found.string, found.start())


def noted_as_test(text: str, start: int) -> bool:
    """Whether "test", "testing" or "sandbox" stands within :data:`TEST_REACH` characters
    before ``start`` of ``text``, in its clause: a payment provider's published test card,
    or its code (found by review: "Diego's driving test is Friday; his Visa is ..."
    passed)."""
    before = text[max(start - TEST_REACH, 0) : start]
    clause = CLAUSE_END.split(before)[-1]
    return TEST_NOTE.search(clause) is not None


def seed_phrase(text: str, start: int, *, named: bool = True) -> bool:
    """Whether at least :data:`SEED_WORDS` words of 3 to 8 letters (numbered or not) follow
    ``start``, at most :data:`MOST_PROSE_WORDS` of them function words; after a bare "seed"
    or "mnemonic" (not ``named`` a phrase), parted by white space only: a list of seeds to
    sow is parted by commas (found by review). A list of twelve words parted by spaces after
    "seed:" is refused too: without the BIP39 word list, the two cannot be told apart."""
    words, prose = 0, 0
    while (found := SEED_WORD.match(text, start)) is not None and found.end() > start:
        if not named and "," in found[0]:
            break
        words, prose = words + 1, prose + (found[1].lower() in PROSE_WORDS)
        if prose > MOST_PROSE_WORDS or words == MOST_SEED_WORDS:
            break
        start = found.end()
    return words >= SEED_WORDS and prose <= MOST_PROSE_WORDS


def follows_test_card(text: str, start: int) -> bool:
    """Whether a test card's number (see :func:`is_test_card`) stands shortly before ``start``
    in its sentence: a security code after it is the test card's too ("Stripe test card:
    4242 ..., CVC 123"), not one further on (found by review)."""
    sentence = SENTENCE_END.split(text[max(start - TEST_CARD_REACH, 0) : start])[-1]
    return any(
        card_number(digits_of(found)) and is_test_card(found) for found in CARD.finditer(sentence)
    )
