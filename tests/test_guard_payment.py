"""The credential guard on money: payment card numbers (network prefix, length and the Luhn
check) and wallet seed phrases after their label."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from memstore import MemoryService, SecretRejected
from memstore.guard import secret_kind
from memstore.guard.payment import TEST_NUMBERS, card_number

# Numbers that pass the Luhn check, made up here (none is a published test number).
VISA = "4532 0151 1283 0366"
MASTERCARD = "5425-2334-3010-9903"
AMEX = "3759 876543 21004"  # made up too; 3714 4963 5398 431 is a published test card
SEED = "hammer river tooth cable orbit lemon pride slogan vendor wrist zebra actor"


def luhn_digit(body: str) -> str:
    """The check digit that makes ``body`` + it pass the Luhn check."""
    total = 0
    for place, digit in enumerate(map(int, reversed(body))):
        doubled = digit * 2 if place % 2 == 0 else digit
        total += doubled - 9 if doubled > 9 else doubled
    return str(-total % 10)


@pytest.mark.parametrize(
    "content",
    [
        f"my card number is {VISA}",
        f"Visa {VISA.replace(' ', '')} exp 12/27",
        f"Mastercard: {MASTERCARD}.",
        f"Amex {AMEX}",
        "CVV 123",
        "cvc: 4821",
        "my card security code is 902",
        "пин-код карты 3391",
        "ПИН-код карты 4406",
        "garage opener code 7731",
        "seed phrase: hammer river tooth cable orbit lemon pride slogan vendor wrist zebra actor",
        "wallet seed = Hammer River Tooth Cable Orbit Lemon Pride Slogan Vendor Wrist Zebra Actor",
        "recovery words:\n1. hammer\n2. river\n3. tooth\n4. cable\n5. orbit\n6. lemon\n"
        "7. pride\n8. slogan\n9. vendor\n10. wrist\n11. zebra\n12. actor",
        "frase semilla: hammer, river, tooth, cable, orbit, lemon, pride, slogan, vendor, "
        "wrist, zebra, actor",
        # shapes a review found let through
        f"card {VISA.replace(' ', '.')}",
        f"My real Visa, tested today: {VISA.replace(' ', '')}",
        f'seed phrase: "{SEED}"',
        f'{{"mnemonic": "{SEED}"}}',
        f'MNEMONIC="{SEED}"',
        f"seed phrase: {SEED.replace(' ', '-')}",
        f"recovery phrase (metamask): {SEED}",
        f"my seed phrase {SEED}",
        f"seed phrase was: {SEED}",
        # a review of those changes: let through again
        f"Visa {VISA.replace(' ', '')} 12/27",
        f"Visa {VISA} 12/27 123",
        "amex 3759 8765 4321 004",
        f"Diego's driving test is Friday; his Visa is {VISA}",
        "the test was ok; card cvv: 123",
        "CVV 123 exp 12/27",
        "Diego's CVV is 123 but he keeps forgetting it",
        f"mnemonic: {SEED}",
        f"MetaMask seed: {SEED}",
        f"Mnemonic - {SEED}",
        f"seed phrase -> {SEED}",
        f"BIP39 phrase: {SEED}",
        # a third review: let through
        f"Visa {VISA} 0927",
        f"Visa {VISA} 0927 123",
        f"Amex {AMEX} 1234",
        f"Diego's driving test is Friday, his Visa is {VISA}",
        f"driving test Friday - Visa {VISA}",
        # a fourth review: let through
        "CVV 123 Visa",
        "CVV 123 de la tarjeta",
        "Stripe test card 4242 4242 4242 4242. My own Visa's CVV: 731",
        f"seed: {SEED} keep it safe",
        # a fifth review: an Amex code after its number
        f"Diego's Amex {AMEX} 4321",
    ],
)
def test_money_credentials_are_refused(service: MemoryService, content: str) -> None:
    with pytest.raises(SecretRejected):
        service.remember(content)
    assert service.list_memories().total == 0


@pytest.mark.parametrize(
    "content",
    [
        "Stripe test card 4242 4242 4242 4242 for the checkout tests",
        "my card number is 4532 0151 1283 0367",  # fails the Luhn check
        "order 1234 5678 9012 3456 ships Monday",  # no network starts with 1
        "call the office at 4155 2671 0000",
        "the invoice total was 4532,015 euros",
        "the CVV field is required",
        "CVV is the three digits on the back of the card",
        "my seed phrase is written on paper and kept in the safe with the passport",
        "seed: 42",
        "mnemonic: every good boy does fine, for the lines of the treble clef",
        "recovery phrase is the thing you must never share with anyone, ever, not even support",
        # found by review: refused about one time in ten, or always
        "My favourite oat milk, barcode 4039621723216",
        "Lena's mobile: +4915583974444",
        "Discord server id 627903632041147057",
        "Rent goes to IBAN DE12 6205 0000 0012 3456 74",
        "IKEA Family card 6275 9800 1234 5678 909",
        "Stripe test card: 4242 4242 4242 4242, any future expiry, CVC 123",
        "Adyen test card 4111 1111 4555 1142, CVC 737",
        "Sprint planning: CVV 2024 redesign ships in Q3",
        "Seed: tomato, basil, pepper, carrot, lettuce, spinach, radish, bean, pea, squash, onion",
        "Birdseed: millet, thistle, peanuts, corn, wheat, oats, milo, hemp, canary, flax, rye",
        "Diego presented at CVC 2024.",
        # a fourth review: published test cards whatever the words, and longer numbers
        "For testing, use 4242 4242 4242 4242 with any future date.",
        "In sandbox, the card 5555 5555 5555 4444 works",
        "Order #4539 1488 0343 6467 2201",
        "Account 4539 1488 0343 6467 1234 5678",
        # a third review: refused
        "CVC 300 attendees expected; hotel block closes Friday",
        "cvc 500 ml bottle of adhesive",
        "Project CVC: 340 participants",
        "12 words: milk eggs bread butter cheese apples pears grapes onions garlic lemons limes",
    ],
)
def test_talk_about_cards_and_seeds_is_kept(service: MemoryService, content: str) -> None:
    assert service.remember(content).content == content


@given(st.text(alphabet="0123456789", min_size=12, max_size=18))
def test_a_number_is_a_card_only_when_it_passes_the_luhn_check(body: str) -> None:
    valid = body + luhn_digit(body)
    broken = body + str((int(luhn_digit(body)) + 1) % 10)
    assert not card_number(broken)
    if card_number(valid):
        assert secret_kind(f"card {valid}") == "payment card number"


@given(st.text(alphabet="0123456789", min_size=14, max_size=14), st.sampled_from(" -"))
def test_every_grouping_of_a_visa_number_is_caught(body: str, separator: str) -> None:
    digits = "4" + body + luhn_digit("4" + body)
    assume(digits not in TEST_NUMBERS)  # a published test card passes whatever is said
    grouped = separator.join(digits[at : at + 4] for at in range(0, 16, 4))
    assert secret_kind(f"my card: {grouped}") == "payment card number"
    assert secret_kind(f"my test card: {grouped}") is None
