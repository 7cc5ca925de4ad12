"""The credential guard: formats via detect-secrets and its own, labelled credentials in
twelve languages judged by the value's shape, disguised tokens, logs that never hold a
refused secret, and no false positives on real dialogue."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from memstore import InvalidInput, MemoryService, MemoryTools, SecretRejected
from memstore.guard import secret_kind
from tests import (
    guard_attack,
    guard_check,
    guard_corpus,
    guard_fresh,
    guard_heldout,
    guard_review,
)

LABELLED_CORPORA = {
    "tuning": guard_corpus,
    "held-out": guard_heldout,
    "check": guard_check,
    "attack": guard_attack,
    "review": guard_review,
    "fresh": guard_fresh,
}
"""The labelled corpora by name (``make guard`` prints each one's rates)."""

# Each value is built from pieces so that this file itself does not look like a leak.
FORMATS = {
    "AWS Access Key": "AKIA" + "IOSFODNN7EXAMPLE",
    "GitHub Token": "ghp_" + "0123456789abcdefghijklmnopqrstuvwxyzAB",
    "GitLab Token": "glpat-" + "abcdefghij0123456789",
    "Slack Token": "xoxb-" + "123456789012-1234567890123-abcdefghijABCDEFGHIJklmn",
    "Stripe Access Key": "sk_live_" + "abcdefghijklmnopqrstuvwx",
    "JSON Web Token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    # A block counts when it holds a key: the words BEGIN PRIVATE KEY alone are prose.
    "Private Key": "-----BEGIN RSA "
    + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Zp9xk3Lm8QvT2bR7s"
    + "Jd4WqYh1nUe6oPcXf5aGtK",
    "OpenSSH Private Key": "-----BEGIN OPENSSH "
    + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAA"
    + "AABG5vbmUAAAAEbm9uZQAAAAAAAAAB",
    "npm token": "//registry.npmjs.org/:_authToken=" + "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "PyPI Token": "pypi-AgEIcHlwaS5vcmc" + "A" * 80,
    "SendGrid API Key": "SG."
    + "abcdefghijklmnopqrstuv"
    + "."
    + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
    "Twilio API Key": "SK" + "0123456789abcdef0123456789abcdef",
    "Mailchimp Access Key": "0123456789abcdef0123456789abcdef" + "-us12",
    "Basic Auth Credentials": "https://diego:" + "s3cretpass@example.com/repo",
    # found by review: a password holding an unescaped "@" passed
    "URL password holding @": "https://diego:" + "P@ssw0rd9@git.example.org/repo.git",
    "Discord Bot Token": "MTk4NjIyNDgzNDcxOTI1MjQ4" + ".Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
    "Telegram Bot Token": "110201543:" + "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq",
    "Square OAuth Secret": "sq0csp-" + "0123456789abcdefghijklmnopqrstuvwxyzABCDEFG",
    "Azure Storage key": "AccountKey="
    + "lJzRc1YdHaAA2KCNJJ1tkYwF/+mKK6Ygw0NGe170Xu592euJv2wYUtBlV8z+qnlcNQSnIYVTkLWntUO1F8j8rQ==",
    "Artifactory": "artifactory token AKCp"
    + "5bueTFpfypEqQbGJPp7BHm5BamtWlMFbEuOWiL3Rp8wHW1dXxpGnwi8Z9gksXnQgeyJjg5xj",
    "OpenAI Token": "sk-" + "abcdefghij1234567890" + "T3BlbkFJ" + "abcdefghij1234567890",
    # found by review: a block whose body is short or elided, between BEGIN and END, passed
    "Elided private key": "-----BEGIN RSA "
    + "PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
    "Short private key": "-----BEGIN " + "PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----",
    "Private key with a blank line": "-----BEGIN "
    + "PRIVATE KEY-----\nMIIEvQIBADANBgkq\n\nAoIBAQC7abc\n-----END PRIVATE KEY-----",
    "PGP private key block": "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n"
    + "lQOYBF\n-----END PGP PRIVATE KEY BLOCK-----",
    "Private key on one line": "-----BEGIN RSA "
    + "PRIVATE KEY----- MIIEpAIBAAKCAQEA...xyz -----END RSA PRIVATE KEY-----",
    "Indented private key": "tls:\n  key: |\n    -----BEGIN "
    + "PRIVATE KEY-----\n    MIIEvQIBADANBgkqhkiG9w0...\n    -----END PRIVATE KEY-----",
}
LABELLED = [
    "Diego's password is hunter2!",
    "password: correcthorsebattery",
    "api_key = 9f8e7d6c5b4a",
    "Diego's PIN is 4321",
    "La contraseña de Diego es perro123",
    "clave de wifi: Casa-2024",
    "Le mot de passe de Diego est Soleil2024",
    "mdp : azerty123",
    "Das Passwort lautet Geheim#1",
    "Kennwort: Sommer2024",
    "La password di Diego è cane99",
    "parola d'ordine: Gatto-77",
    "A senha do Diego é gato2020",
    "palavra-passe: Lisboa#99",
    "access token = abcd1234efgh",
    # found by review: a colon after the verb, a quoted word, an arrow, a word between
    "password is: Sunflower!99",
    "my password is 'letmein'",
    "Sunflower!99 is the wifi password",
    "Use Sunflower!99 as the wifi password.",
    "password → tulip1987",
    "PIN → 4819",
    "tulip1987 is the wifi password for guests",
    "Use Sunflower!99 as the wifi password when asked",
    # found by review: labels of the six languages that were let through
    "clave secreta: Xk9#mP2qL",
    "chave secreta: abc12345",
    "Geheimschlüssel: Xk9#mP2qL7vR",
    "secret code: Xk9#mP2qL",
    "código secreto: abc12345",
    "codice segreto: abc12345",
    "Geheimcode: abc12345",
    "jeton d'accès : Xk9mP2qL7vRt",
    "Zugangstoken: abcd1234efgh",
    "código de acceso: 4821",
    "code d'accès : 4821",
    "codice di accesso: 4821",
    "código de acesso: 4821",
    "palavra passe: gato1234",
    # found by the review after: a PIN after the new labels
    "clave secreta: 4821",
    "The secret code is 4821",
    "Geheimcode: 4711",
    "Chave secreta: 4821",
    "Code secret : 4821",
    "PIN for my debit card 1984",  # a PIN that looks like a year is still a PIN
]
CLEAN = [
    "Diego forgot his password yesterday and had to reset it.",
    "The password is required to log in.",
    "La clave es practicar todos los días.",
    "He said the password was easy, but it wasn't.",
    "Diego prefers answers in Spanish.",
    "Diego's dog is called Rudiger.",
    "This is the wifi password reset page.",
    "The password is 'required' on that form.",
    # found by review when a word could stand before "password" anywhere, and "→" connected
    "WPA3 is the wifi password standard now.",
    "Argon2 is the recommended password hashing algorithm.",
    "password → Bitwarden",
    "Diego's bank: login → BankID",
    "auth → OAuth2",
    "1Password is my password manager.",
    "SHA-256 is the password hash in the old system.",
    "Il mot de passe? Je ne m'en souviens plus.",
    "La clave secreta del éxito es la constancia.",
    "El código secreto de la abuela es su receta de tortilla.",
    "Il codice segreto per la felicità è la pazienza.",
    "Der Geheimcode ist ein Spiel für Kinder.",
    "Le jeton d'accès a expiré hier.",
    "El código de acceso es el de siempre.",
    # found by the review after: key formats named in prose, a word between the two lines too
    "Copy everything between -----BEGIN PRIVATE KEY----- and -----END PRIVATE KEY----- here.",
    "Include -----BEGIN RSA PRIVATE KEY----- to -----END RSA PRIVATE KEY----- inclusive.",
    "Markers: -----BEGIN PRIVATE KEY-----; -----END PRIVATE KEY-----",
    "A PEM file starts with -----BEGIN PRIVATE KEY----- and ends with -----END PRIVATE KEY-----.",
    "Key file layout:\n-----BEGIN PRIVATE KEY-----\n(your key goes here)\n"
    "-----END PRIVATE KEY-----",
    "La clave secreta es: paciencia.",
]


@pytest.mark.parametrize("kind, value", FORMATS.items())
def test_credential_formats_are_rejected(service: MemoryService, kind: str, value: str) -> None:
    assert secret_kind(f"Diego's token: {value}") is not None, kind
    with pytest.raises(SecretRejected) as caught:
        service.remember(f"Diego uses {value}")
    assert value not in str(caught.value)  # the error names the kind, never the value


@pytest.mark.parametrize("content", LABELLED)
def test_labelled_credentials_in_six_languages_are_rejected(
    service: MemoryService, content: str
) -> None:
    with pytest.raises(SecretRejected, match="labelled credential"):
        service.remember(content)
    assert service.list_memories(include_inactive=True).total == 0


@pytest.mark.parametrize("content", CLEAN)
def test_prose_about_passwords_is_accepted(content: str) -> None:
    assert secret_kind(content) is None


# Shapes that once took the guard time growing with the square of their length (found by
# review: 0.2 s at 4,000 characters, about a minute at 64,000): a run of words and hyphens
# read to its end from each of its starts, the words after every "seed" read to the text's
# end, the text before every "clave" split whole; and (found by a later review: 0.6 s at
# 4,000 characters) each label of a run without spaces reading the run to its end.
REPEATED_SHAPES = [
    "1-", "a-", "seed-the-", "clave ", "http-", "host.name-",
    "pw:", "key:", "\u5bc6\u7801\u662f", "\u043a\u043b\u044e\u0447:", "_pwd", "x_password",
    "pw /",
    # found by review: a BEGIN line, a run, then spaces or tabs with no END took the square
    "-----BEGIN PRIVATE KEY-----\na\t\t\t\t\t\t\t\t", "-----BEGIN PRIVATE KEY----- a        ",
    # found by review: each word of a hyphenated run before "secret" or "key" started a
    # label judged again, 2.6 s at 4,000 characters
    "a-" * 64 + "secret ", "a-" * 32 + "key ", "de-la-mar-" * 7 + "secret ",
    "public-" * 20 + "secret ",
]  # fmt: skip


@pytest.mark.parametrize(
    "content",
    [
        "my-api-secret: Kx9!mPq2vLz8QwRt",
        "stripe-webhook-secret = Kx9!mPq2vLr8sT4wZ",
        # found by review: the run's "public-" hid the label after it
        "public-stripe_secret_key: Kx9!mPq2vLr8sT4wZ",
        "publication-service_signing_key: Kx9!mPq2vLr8sT4wZ",
        "pub-sub_push_secret: Kx9!mPq2vLr8sT4wZ",
    ],
)
def test_a_key_label_of_hyphenated_words_is_read_from_where_its_run_starts(content: str) -> None:
    assert secret_kind(content) == "labelled credential"


@pytest.mark.parametrize("shape", REPEATED_SHAPES)
def test_a_long_text_of_one_repeated_shape_passes_the_guard(shape: str) -> None:
    text = (shape * (64_000 // len(shape) + 1))[:64_000]
    assert secret_kind(text) is None


def test_a_password_followed_by_a_paragraph_without_spaces_is_still_caught() -> None:
    # Found by review: once a value had to end within 512 characters, a password in Chinese
    # or Japanese text, which has no spaces, passed.
    chinese = "\u6211\u7684\u90ae\u7bb1\u5bc6\u7801\u662fKx9!mPq2\uff0c" + "\u4eca\u5929" * 300
    japanese = "\u30d1\u30b9\u30ef\u30fc\u30c9\u306fKx9!mPq2\u3067\u3059\u3002" + "\u3042" * 800
    assert secret_kind(chinese) == secret_kind(japanese) == "labelled credential"


@pytest.mark.parametrize(
    "content",
    [
        "Contrase\u00f1a nueva: Flamenco#2025",
        "Contrase\u00f1a por defecto: Flamenco#2025",
        "Mot de passe provisoire : Xb7-Kt92",
        "Password nuova: Torino_1706",
        "Senha nova: Ipanema#40",
        "my most used password is Kx9!mPq2",  # the user's own, whatever the statistic
        "The top secret password is Kx9!mPq2",
        # found by review of the exemptions: no statistic, no path
        "Top floor door code: 4471",
        "His most common password: Hunter2024!",
        "The most common door code: 4471",  # no list of everyone's holds it
        "The most common password for our wifi is 20242024",
        "wifi/password Xk9!mPq2vL",
        "~/secrets/password Xk9!mPq2vL",  # a path, then a value
        # found by the review after: a password shaped like user@host, a statistic with
        # nothing saying it is one, a service's own name as its password, a field's name
        "wifi/password Admin@123",
        "the most used PIN on the family card is 1234",
        "Passwort neu: Berlin#4411",
        "Senha atualizada: Praia!Azul77",
    ],
)
def test_a_label_with_its_adjective_after_it_is_caught(content: str) -> None:
    # Found by review: "New password:" was refused, its Romance word order passed.
    assert secret_kind(content) == "labelled credential"


@pytest.mark.parametrize(
    "content",
    [
        "Minha chave Pix \u00e9 11987654321",  # a Pix key is given out to be paid
        "Chave Pix: joao.silva@email.com",
        "ssh -i ~/.ssh/deploy_key ubuntu@10.0.0.12",  # a key file's name in a path
        "ssh -i keys/deploy_key deploy@ci-runner-07.internal",
        "The most common password in 2023 was 123456",  # everyone's, not the user's
        "The most common password in our survey was 000000",  # a survey says whose
        # found by review of the adjectives after a label: no filler before a number
        "El PIN nuevo caduca en 2026",
        "Tokens por d\u00eda: 1000000",
    ],
)
def test_what_only_looks_like_a_labelled_key_is_stored(content: str) -> None:
    # Found by review: each was refused.
    assert secret_kind(content) is None


def test_a_key_named_by_a_long_setting_name_is_still_caught() -> None:
    # Found by review: bounding the name before "key" at 64 characters let a 70-character
    # setting name through (service-account key names run to 75).
    name = "ANALYTICS_" * 6 + "ANALY_KEY"
    assert secret_kind(f"{name}=Kx9!mPq2#Zz8$Yy7&Lw") == "labelled credential"


def test_the_word_before_clave_is_read_however_long_the_text_before_it() -> None:
    assert secret_kind("x " * 5_000 + "Dato clave: 1500 euros") is None
    assert secret_kind("x " * 5_000 + "Wifi clave: 887766") == "labelled credential"


@pytest.mark.parametrize(
    "content",
    [
        "db_password = 'swordfish'",
        "db_password: qwertyuiop",
        "admin_password = 'letmeinnow'",
        "cloudant_password=abcdefghijklmnop",
        # found by review of the rule's first bounds
        "smtp_pwd = swordfish",
        "confirm_password: swordfish",
        "db_password_2 = swordfish",
        # found by the review after: a service's own name as its password, a field's name
        "postgres_password = postgres",
        "login_password_field: Kx9!mPq2vL",
    ],
)
def test_a_password_setting_in_lower_case_is_refused_as_in_upper_case(content: str) -> None:
    # Found by review: DB_PASSWORD=swordfish was refused, db_password = 'swordfish' stored.
    assert secret_kind(content) == "secret assignment"
    assert secret_kind(content.upper()) == "secret assignment"


@pytest.mark.parametrize(
    "content",
    [
        "dbPassword: string;",
        "const dbPassword = getPassword();",
        "dbPassword: process.env.DB_PASSWORD",
        "newPassword = req.body.newPassword",
        "showPassword = true",
        "resetPassword: boolean",
        "confirmPassword = confirm",
        "forgotPassword: Forgot your password?",
        "forgot_password: Forgot your password?",
        "DBPassword:\n    NoEcho: true",
        "const userPassword = user?.password;",
        "maxPasswordLength = 64",
        '"passwordHint": "your pet"',
        # found by the next review: a word is a variable or a label in code, and a value
        # starting as code does is code
        "dbPassword = swordfish",
        "this.userPassword = userPassword;",
        "{ ...user, userPassword: hashedPassword }",
        "return { ...state, showPassword: !state.showPassword }",
        'forgotPassword: "Passwort vergessen?"',
        '"resetPassword": "Zur\u00fccksetzen",',
        "MasterUserPassword: !Ref MasterUserPassword",
        "adminPassword: @secure()",
        '"change_password": "Cambiar contrase\u00f1a",',
        '"LOGIN_PASSWORD": "Kennwort",',
    ],
)
def test_code_about_a_password_in_camel_case_is_stored(content: str) -> None:
    # camelCase names (dbPassword) are no label of the guard's (README: what it misses): a
    # rule of their own, tried and taken back, refused code and i18n files by the dozen
    # (found by review)
    assert secret_kind(content) is None


@pytest.mark.parametrize(
    "content",
    [
        "password_min_length: 12",
        "db_password_file: /run/secrets/db",
        "password_hash: bcrypt",
        "db_password = os.environ['DB_PASSWORD']",
        "db_password: <your password>",
        # found by review of the rule for lower-case names
        "password_encryption = scram-sha-256",
        "password_hash_algo = pbkdf2_sha256",
        "save_password: always",
        "keep_password: always",
        "check_password = make_password",
        "cur_pwd: pathlib.Path.cwd()",
        "password_label: Contrase\u00f1a",
        # found by the next review
        "hash_password = bcrypt",
        "confirm_password = confirm",
        "db_password = secrets['db']",
        "login_password_label: Contrase\u00f1a",
        "Passwort neu: anfordern",
    ],
)
def test_a_setting_about_passwords_in_lower_case_is_stored(content: str) -> None:
    assert secret_kind(content) is None


def test_updates_are_guarded_too(service: MemoryService) -> None:
    memory = service.remember("Diego's router is in the hall.")
    with pytest.raises(SecretRejected):
        service.update_memory(memory.id, "Diego's router password: Casa-2024")
    assert service.get_memory(memory.id) == memory


@pytest.mark.corpora
def test_real_dialogue_is_never_taken_for_a_secret(corpus_logs: Path) -> None:
    # Every message of the multilingual and LoCoMo sets is ordinary conversation.
    flagged = []
    for name in ("multilingual", "locomo"):
        for line in (
            (corpus_logs / name / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
        ):
            content = json.loads(line)["content"][:4000]
            kind = secret_kind(content)
            if kind is not None:
                flagged.append((kind, content[:80]))
    assert flagged == []


# The labelled corpora: tests/guard_corpus.py tuned the rules; tests/guard_heldout.py and then
# tests/guard_check.py were written separately, each first measured once the rules were done
# (89 of 106 caught and none refused; 93 of 102 caught and 2 of 140 refused), and the rules
# were then widened for what they showed: none is a held-out set any more.

CATCH_RATE = 0.97
MOST_REFUSED = 1


@pytest.mark.parametrize(
    ("corpus", "catch_rate"),
    [
        (guard_corpus, CATCH_RATE),
        (guard_heldout, CATCH_RATE),
        (guard_check, CATCH_RATE),
        # a hostile tester's, with languages and shapes the guard does not claim (Thai, seed
        # phrases, card numbers); first measured at 39% caught and 27 of 92 refused
        (guard_attack, 0.85),
        # two reviews' finds (2026-12-06): first measured at 1 of 43 caught and 40 of 40
        # refused, then 0 of the second's 7; the rules were then changed against it
        (guard_review, 0.95),
        # written apart from the rules and the other corpora, first measured after the
        # review's changes at 127 of 145 caught (87.6%) and none refused; then widened for it
        (guard_fresh, CATCH_RATE),
    ],
    ids=["tuning", "held-out", "check", "attack", "review", "fresh"],
)
def test_the_labelled_corpus_is_caught_and_ordinary_talk_passes(
    corpus: ModuleType, catch_rate: float
) -> None:
    missed = [(name, text) for name, text in corpus.CREDENTIALS if secret_kind(text) is None]
    refused = [text for _, text in corpus.ORDINARY if secret_kind(text) is not None]
    caught = 1 - len(missed) / len(corpus.CREDENTIALS)
    assert caught >= catch_rate, missed
    assert len(refused) <= MOST_REFUSED, refused


def test_the_corpora_are_as_large_and_varied_as_promised() -> None:
    assert len(guard_corpus.CREDENTIALS) >= 80
    assert len({name for name, _ in guard_corpus.CREDENTIALS}) >= 40
    assert len(guard_corpus.ORDINARY) >= 120
    assert len({language for language, _ in guard_corpus.ORDINARY}) >= 8


GITHUB = "ghp_" + "Gyv3lOIjfIymYR52E8yqtP6VhlEAJ9Zb9wHH"
HEX32 = "3f9a8b7c6d5e4f3a" + "2b1c0d9e8f7a6b5c"


@pytest.mark.parametrize(
    "disguised",
    [
        "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in GITHUB),  # fullwidth
        "\u200b".join(GITHUB[i : i + 5] for i in range(0, len(GITHUB), 5)),  # zero-width
        "\u200d".join(GITHUB),
        " ".join(GITHUB),  # spaced out
        f"my token is {GITHUB[:10]}\u2060{GITHUB[10:]}",  # a word joiner
    ],
)
def test_disguised_copies_of_a_caught_token_are_caught(disguised: str) -> None:
    assert secret_kind(f"Remember this: {disguised}") == secret_kind(f"Remember this: {GITHUB}")


def test_the_key_is_scanned_too(service: MemoryService) -> None:
    with pytest.raises(SecretRejected) as caught:
        service.remember("Diego's deploy token for the blog.", key=GITHUB)
    assert (caught.value.argument, caught.value.kind) == ("key", "GitHub Token")
    assert service.remember("Diego's router is in the hall.", key="wifi_password").key == (
        "wifi_password"
    )


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("Sunflower77!", "wifi_password"),
        ("Tr0ub4dor&3", "gmail_password"),
        ("8271", "bank_pin"),
        ("hunter22", "password"),
        # found by review: other spellings of the key let it through
        ("Sunflower77!", "wifiPassword"),
        ("Sunflower77!", "wifi_password_2"),
        ("Sunflower77!", "password1"),
        ("4821", "PassWord"),
        ("4821", "wifi(password)"),
    ],
)
def test_content_that_is_the_credential_its_key_names_is_refused(
    service: MemoryService, tmp_path: Path, content: str, key: str
) -> None:
    # Found by review: content and key passed one by one, and the context showed the
    # password on every turn.
    with pytest.raises(SecretRejected) as caught:
        service.remember(content, key=key)
    assert (caught.value.argument, caught.value.length) == ("content", len(content))
    kept = service.remember("Diego keeps it in the drawer.", key=key)
    with pytest.raises(SecretRejected):
        service.update_memory(kept.id, content)
    named = service.remember(content, key="wifi_name")  # alone, it is no credential
    with pytest.raises(SecretRejected):
        service.update_memory(named.id, key=key)
    assert service.get_memory(named.id).key == "wifi_name"  # type: ignore[union-attr]
    assert service.list_memories(include_inactive=True).total == 2
    export = tmp_path / "e.jsonl"
    service.export(export)
    forged = export.read_text(encoding="utf-8").replace("Diego keeps it in the drawer.", content)
    export.write_text(forged, encoding="utf-8")
    with pytest.raises(SecretRejected):
        MemoryService(tmp_path / "other.sqlite3").import_memories(export)


@pytest.mark.parametrize(
    ("content", "key"), [("Fridge", "wifiPasswordLocation"), ("Sixteen", "passwordLength")]
)
def test_a_capitalised_word_under_a_camel_case_key_is_stored(
    service: MemoryService, content: str, key: str
) -> None:
    # Found by review: "password Location: Fridge" read the second word as a brand.
    assert service.remember(content, key=key).content == content


def test_the_key_is_scanned_as_it_would_be_stored(service: MemoryService) -> None:
    # The failing input (found by review): spaces for underscores hid a token from the guard,
    # and the key was stored as the token itself.
    spaced = "dop v1 " + "7a" * 32
    with pytest.raises(SecretRejected) as caught:
        service.remember("Diego's DigitalOcean token for the blog.", key=spaced)
    assert (caught.value.argument, caught.value.kind) == ("key", "DigitalOcean token")
    assert service.list_memories(include_inactive=True).total == 0


@pytest.mark.parametrize(
    "key",
    ["wifi_password_2", "api_key_v2", "password_policy", "token_limit_128000", "bank_pin_hint",
     "door_code_location", "access_token_ttl_3600", "ssh_key_type_ed25519", "secret_santa_2025",
     "response_language", "user.preferred_name",
     # found by the next review: a year, or words after the number, name no credential
     "wifi_password_2024", "password_2024", "password_2024_rotation", "pin_2024_goals",
     "pin.2024.goals", "pin-2024-goals", "pinGoals2024", "passwordChanged2024", "pin_001",
     "door_code_2024_change", "alarm_code_2024", "passcode_2024", "pinCount4",
     # and by the review after: which one, not the value
     "wifi_password_5ghz", "wifi_password_home2", "password_server3", "password_db01",
     "password_room101", "sim_pin_slot2", "map_pin_paris2", "api_key_gpt4o",
     "password_hash_sha256", "max_tokens_4096", "order_number_98765",
     # and by the third: dates, tickets, passes, counts and public ids; a rule reading a key
     # as a label and its value ("bank_pin_4821") kept refusing keys like these, and was
     # dropped
     "wifi_password_20250314", "password_INC0012345", "boarding_pass_20250314",
     "max_tokens_128000", "gpg_key_3F9A8B7C6D5E4F3A", "pin_code_560001", "bank_pin_4821"],
)  # fmt: skip
def test_a_key_naming_a_credential_is_stored(service: MemoryService, key: str) -> None:
    assert service.remember("Diego keeps a note", key=key).key == key.lower()


@pytest.mark.parametrize(
    "content",
    [
        "Gmail\nPassword:\nLucy1987!",
        "Contraseña del wifi:\nGirasol2024",
        "API key:\n" + HEX32,
        "PIN:\n4821",
        "Password:\r\nLucy1987!",
        "Mot de passe :\nTournesol!7",
        "Title: Netflix\nUsername: lucy\nPassword:\nSunshine2024\nURL: netflix.com",
        # found by the next review: a blank line, Markdown bold, an invisible character
        "Password:\n\nLucy1987!",
        "**Password:**\nLucy1987!",
        "**PIN:**\n4821",
        "Password:\u200b\nLucy1987!",
        "Password:\ufeff\nLucy1987!",
        # spaced out on either line (found by the third review)
        "Password:\nL u c y 1 9 8 7 !",
        "P a s s w o r d :\nLucy1987!",
        "Password:\nLucy1987!\n\nNotes",
        "_Password:_\nLucy1987!",  # underscore italics (found by the fourth review)
        # Italian and Portuguese credentials as the other languages' (found by review)
        "credenziali: admin/Girasole77",
        "credenciais: admin/Girasole77",
        # and with the plural verb of each language (found by the re-check)
        "le credenziali sono Girasole77",
        "as senhas são Girasole77",
        "credenciales son Girasole77",
        "las contraseñas son: Girasole77",
        "Zugangsdaten sind Girasole77",
        "les identifiants sont Girasole77",
        # and not let through by a question mark
        "Passwort: Sonnenschein?",
        "the wifi password is swordfish?",
    ],
)
def test_a_label_ending_its_line_and_its_value_on_the_next_are_refused(content: str) -> None:
    # Found by review: no label read across a line break, so a note laid out as a form, or
    # as a password manager's copy, was kept; the context block then showed it on one line.
    assert secret_kind(content) == "labelled credential"


@pytest.mark.parametrize(
    "content",
    [
        "Password:\nrequired",
        "Passwords:\n- use a manager\n- rotate yearly",
        "Token:\nexpired",
        "credentials:\n  user: bob\n  password: ${DB_PASSWORD}",
        "Diego's MAC address is 3C:22:FB:A1:9E:07",
        "Diego's laptop MAC: a4:83:e7:12:9b:c0",
        "fe80:0db8:85a3:abcd:0000:8a2e:0370:7334 is the router's address",
        "Diego's wifi password is Movistar's default.",
        "Password: Movistar's default",
        "Diego's password is GitHub's recommended length.",
        "Diego's PGP key ID is 0x3F9A8B7C6D5E4F3A",
        "The country phone code for Spain is 0034",
        "El código de la tarjeta está en el reverso",
        # found by the next review: a heading and the sentence under it
        "Contraseña:\n2024 fue el año en que la cambié",
        "Passwort:\n2024 geändert",
        "ATM code:\n4821 - card retained\n5100 - insufficient funds",
        "PIN:\n2024 goals",
        "Password:\nhunter2 is a meme",
        "Access code:\n2024 plan",
        "Password rules:\n- at least 12 characters",
        "Steps:\n1. Reset password\n2. Log in",
        "Q: what's the wifi password?\nA: ask Ana",
        "The Yu-Gi-Oh card code is 89631139",
        "SIM card code 2024 promotion",
        "iPhone code 4013 means hardware issue",
        "Login:\ndiego\nPassword:\nForgot?",  # a login form's copy, with its link
        "Password: Forgot?",
        # found by the review after: code, a sentence and its list, a form's next label
        "def login(user, password):\n    if not password:\n        return\n    check(user)",
        "while not password:\n    continue",
        "switch field {\ncase .password:\n    return\ndefault:\n    break\n}",
        "Accounts that need a new password:\nNetflix\nSpotify\nDropbox",
        "Sites using this password:\nNetflix\nHulu",
        "Gave the wifi password to:\nMargaret",
        "Most common passwords:\n123456\npassword\nqwerty",
        "Login form fields:\nEmail:\nPassword:\nConfirm:",
        "Form layout:\nUsername:\n\nPassword:\n\nRepeat:\n",
        # a heading of three words and a list (found by the third review)
        "Shared password:\nNetflix\nAmazon Prime\nDisney Plus",
        "Sent password to:\nMargaret\nAna María\nLuis",
        "Le credenziali sono nel cassetto.",
        "credenziali: chiedi a Marco",
        "As credenciais estão com o João.",
        # plural adjectives, which no state list holds, after those verbs
        "le password sono scadute",
        "as senhas são fracas",
        "las contraseñas son distintas",
        "les mots de passe sont identiques",
        "le password sono 12 caratteri",
        "Gave the PIN to son Jake2",  # Spanish "son" is an English word: no verb here
        "My bus pass son Jake2 borrowed",
        # a colon after a plural verb, then what they are like (found by the re-check)
        "Le password sono: lunghe, complesse e uniche",
        "Le password sono: scadute",
        "Les mots de passe sont : importants",
        "Пароль — : ерунда",
    ],
)
def test_what_a_review_found_refused_is_stored(content: str) -> None:
    # Found by review: a MAC address read as a .pgpass line, a possessive's apostrophe as a
    # quote closing a password, a GnuPG key id written with its 0x taken for a key; then, by
    # the next, a heading ending in a colon read with the sentence under it, and card, SIM
    # and iPhone codes (a rule for card PINs called "code", tried and dropped).
    assert secret_kind(content) is None


@pytest.mark.parametrize(
    "content",
    ["*Password:* Lucy1987!", "_Password:_ Lucy1987!", "_PIN:_ 4821", "*PIN:* 4821",
     "*Password*: Lucy1987!", "***Password:*** Lucy1987!", "*db_password*: Kx9mPq2vLr8wZt5n",
     "_db_password_: Kx9mPq2vLr8wZt5n", "*パスワード*: Sakura2024", "_Router_ _PIN_: 4821",
     "*Password*:\nLucy1987!", "_Password_:\nLucy1987!"],
)  # fmt: skip
def test_a_label_in_italics_is_read_as_one_in_bold_is(content: str) -> None:
    # Found by review: only the two-line form, and bold, were refused; then, by the next,
    # the mark closing before the colon, italics inside bold, a snake_case name inside.
    assert secret_kind(content) == "labelled credential"


@pytest.mark.parametrize(
    "content",
    ["self._password = get_password()", "_pwd = Path.cwd()", "_pin = Pin(5, Pin.OUT)",
     "_passcode = prompt()", "*sighs* my password is fine", "_key_2024.pem",
     "int total = *pin * 1000;", "value = *password * 1234", "rm *pin* 4821.log",
     "ls *pin* 2024", "cp *token* backup-2024-05-01/"],
)  # fmt: skip
def test_a_leading_underscore_or_star_alone_is_no_emphasis(content: str) -> None:
    # Found by review: stripping one "_" opening a word read private names as labels; then,
    # by the next, a pair read a pointer and a glob as italics.
    assert secret_kind(content) is None


def test_a_pgpass_line_is_still_refused() -> None:
    # A MAC address is no .pgpass line now; one whose host is a name still is.
    assert secret_kind("db.example.com:5432:app:diego:Kx9mPq2v") == ".pgpass line"


def test_a_write_of_something_other_than_text_never_echoes_it(
    service: MemoryService, caplog: pytest.LogCaptureFixture
) -> None:
    # The failing input (found by review): a list holding a token came back whole in the
    # error and in the tool call's log line.
    caplog.set_level(logging.DEBUG)
    result = MemoryTools(service).remember(content=[GITHUB], key=[GITHUB])  # type: ignore[arg-type]
    assert result["error"]["type"] == "InvalidInput" and GITHUB not in str(result)
    with pytest.raises(InvalidInput) as raised:
        service.remember([GITHUB])  # type: ignore[arg-type]
    assert GITHUB not in str(raised.value)
    assert all(GITHUB not in record.getMessage() for record in caplog.records)


def test_unquoted_words_on_the_command_line_are_not_repeated_in_the_error(
    db_path: Path,
) -> None:
    # The failing input (found by review): click's "Got unexpected extra arguments (...)"
    # printed the rest of an unquoted memory, its password included.
    completed = subprocess.run(
        [sys.executable, "-m", "memstore", "--database", str(db_path), "remember", "my",
         "password", "is", "Kx9mPq2v!"],
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert completed.returncode == 2 and "Kx9mPq2v" not in completed.stderr
    message = json.loads(completed.stderr)["error"]["message"]
    # found by a new user's trial: "memstore check now" was told only to quote its text
    assert "quotes" in message and "takes fewer (see its --help)" in message


def test_a_refused_write_never_reaches_a_log_record(
    service: MemoryService, caplog: pytest.LogCaptureFixture
) -> None:
    # The failing input: a refused secret was written verbatim into the INFO log of the tool
    # call. Every record, of every logger, at every level, is searched for it.
    caplog.set_level(logging.DEBUG)
    secret = "Tulp!2024-Molen"
    tools = MemoryTools(service)
    results = [
        tools.remember(f"Diego's password is {secret}"),
        tools.remember("Diego's wifi", key=f"password={secret}"),
    ]
    assert [r["error"]["type"] for r in results] == ["SecretRejected", "SecretRejected"]
    assert all(secret not in r["error"]["message"] for r in results)
    logged = [record.getMessage() for record in caplog.records]
    assert any("refused: labelled credential in content" in line for line in logged)
    assert all(secret not in line for line in logged)


@pytest.mark.parametrize(
    "bad",
    [
        {"category": "bogus"},  # refused before the guard ever scans the content
        {"expires_at": "2001-01-01"},
        {"memory_id": "mem_missing"},
    ],
)
def test_a_write_that_fails_otherwise_never_logs_its_text(
    service: MemoryService, caplog: pytest.LogCaptureFixture, bad: dict[str, str]
) -> None:
    # The failing input: remember(secret, category="bogus") logged every argument at INFO.
    caplog.set_level(logging.DEBUG)
    secret = "Kx9!mPq2vL-Granite"
    result = MemoryTools(service).remember(f"my password is {secret}", key=f"k{secret}", **bad)
    assert result["ok"] is False
    assert all(secret not in record.getMessage() for record in caplog.records)
    assert any("characters>" in record.getMessage() for record in caplog.records)


TOKEN = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"


def called(
    service: MemoryService, caplog: pytest.LogCaptureFixture, tool: str, arguments: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    """The result of calling ``tool`` with ``arguments``, and the text a reader could see:
    the result's JSON and every log record of the call, at every level."""
    caplog.set_level(logging.DEBUG)
    result = getattr(MemoryTools(service), tool)(**arguments)
    return result, json.dumps(result) + "".join(record.getMessage() for record in caplog.records)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("remember", {"content": "Diego likes tea.", "expires_at": TOKEN}),
        ("remember", {"content": "Diego likes tea.", "memory_id": TOKEN}),
        ("forget", {"memory_id": TOKEN}),
        ("forget", {"memory_id": [TOKEN]}),
        ("recall", {"query": TOKEN}),
        ("recall", {"query": "tea", "session_id": {"a": TOKEN}}),
        ("remember", {"content": "Diego likes tea.", "expires_at": ["a" * 30 + " " + TOKEN]}),
        ("word_instances", {"word": TOKEN}),
    ],
)
def test_a_credential_in_an_argument_the_guard_never_scans_is_not_logged(
    service: MemoryService, caplog: pytest.LogCaptureFixture, tool: str, arguments: dict[str, Any]
) -> None:
    # The failing inputs (found by review): a token given as an expiry or an id was logged
    # whole, and quoted by the error message of the failed call; a searched one was logged;
    # then, a token inside a list (cut short by the message), and a word's page repeating it.
    caplog.set_level(logging.DEBUG)
    service.record_message(service.start_session().id, "user", f"my token {TOKEN}")
    result = getattr(MemoryTools(service), tool)(**arguments)
    logged = [record.getMessage() for record in caplog.records]
    assert all(TOKEN[:20] not in line and TOKEN[:20].lower() not in line for line in logged)
    assert any("GitHub Token" in line for line in logged)
    if not result["ok"]:
        assert TOKEN[:20] not in json.dumps(result)
        assert "seems to hold a GitHub Token" in result["error"]["message"]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("forget", {"memory_id": "\tpassword hunter2"}),
        ("forget", {"memory_id": "g\u200bhp_16C7e42F292c6912E7710c838347Ae178B4a"}),
        ("word_instances", {"word": "password\u00a0hunter2"}),
        ("remember", {"content": "Diego likes tea.", "expires_at": "\u00a0password hunter2"}),
        ("forget", {"memory_id": ["ghp_16C7e42F\u200b292c6912E7710c838347Ae178B4a"]}),
        ("recall", {"query": {"nested": {"deep": ["\u00a0Kennwort: Sunflower77"]}}}),
        ("word_instances", {"word": "  AKIAIOSFODNN7REALKEY"}),
    ],
)
def test_a_credential_behind_escapes_or_nested_never_reaches_the_log_or_message(
    service: MemoryService, caplog: pytest.LogCaptureFixture, tool: str, arguments: dict[str, Any]
) -> None:
    # The failing inputs (found by the second re-check): a message quoting a value with
    # repr() escapes, a value scanned as Python writes a list, and a word's page repeating
    # the word folded, each went whole into the log.
    caplog.set_level(logging.DEBUG)
    service.record_message(service.start_session().id, "user", "AKIAIOSFODNN7REALKEY is it")
    result = getattr(MemoryTools(service), tool)(**arguments)
    shown = "".join(record.getMessage() for record in caplog.records)
    shown += "" if result["ok"] else json.dumps(result)
    for secret in ["hunter2", "Sunflower77", "2c6912E7710c8", "akiaiosfodnn7", "AKIAIOSFODNN7"]:
        assert secret not in shown


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("recall", {"query": {"password": "hunter2"}}),
        ("forget", {"memory_id": ["Kennwort", "Sunflower77"]}),
        ("recall", {"query": "dog", "speaker": {"PIN": 4921}}),
    ],
)
def test_a_label_and_its_value_apart_in_a_nested_value_are_read_together(
    service: MemoryService, caplog: pytest.LogCaptureFixture, tool: str, arguments: dict[str, Any]
) -> None:
    # The failing inputs (found by the third re-check): each text of a nested value was
    # scanned alone, so a label in a dict's key and its value beside it went unseen.
    result, shown = called(service, caplog, tool, arguments)
    assert result["ok"] is False
    assert all(secret not in shown for secret in ["hunter2", "Sunflower77", "4921"])


def test_a_result_is_logged_without_the_history_it_shows(
    service: MemoryService, caplog: pytest.LogCaptureFixture
) -> None:
    # The failing input (found by the third re-check): history is stored as it was said, and
    # a recall's logged result showed a password and a token from it.
    session_id = service.start_session().id
    service.record_message(session_id, "user", f"My wifi password is hunter2, my token {TOKEN}")
    caplog.set_level(logging.DEBUG)
    tools = MemoryTools(service)
    for result in [
        tools.recall("wifi"),
        tools.word_instances("wifi"),
        tools.read_conversation(session_id),
    ]:
        assert result["ok"] is True and "hunter2" in json.dumps(result)  # the caller's
    logged = "".join(record.getMessage() for record in caplog.records)
    assert "succeeded" in logged and session_id in logged
    assert "hunter2" not in logged and TOKEN[:12] not in logged


def test_a_flagged_argument_leaves_a_message_about_another_one_whole(
    service: MemoryService,
) -> None:
    # The failing input (found by the third re-check): a KSUID as the query hid that the
    # since was wrong.
    result = MemoryTools(service).recall("0ujtsYcgvSTl8PAuAdqWYSMnLOv", since="yesterday")
    assert result["error"]["message"].startswith("since: 'yesterday' is not an ISO 8601")


SECOND = "ghp_ZYXWVUTSRQ9876543210zyxwvutsrqponmlkAB"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("recall", {"query": TOKEN, "since": SECOND}),
        ("recall", {"query": TOKEN, "limit": SECOND}),
        ("recall", {"query": "x", "limit": " ".join(SECOND) + " thanks"}),
    ],
)
def test_a_message_about_a_flagged_argument_is_withheld_whichever_it_is(
    service: MemoryService, caplog: pytest.LogCaptureFixture, tool: str, arguments: dict[str, Any]
) -> None:
    # The failing inputs (found by the fourth re-check): a second token in one call, which
    # the message quoted, and a spaced-out token whose quote was cut before its runs.
    result, shown = called(service, caplog, tool, arguments)
    assert result["ok"] is False and "ZYXWVU" not in shown and "Z Y X W V U" not in shown


@pytest.mark.parametrize(
    ("arguments", "start"),
    [
        ({"role": "bot"}, "role: must be one of"),
        ({"until": "2024-01-01"}, "until: "),
        ({"since": "yesterday"}, "since: 'yesterday'"),
    ],
)
def test_a_message_about_a_clean_argument_beside_a_flagged_query_is_whole(
    service: MemoryService, arguments: dict[str, str], start: str
) -> None:
    # The failing inputs (found by the fourth re-check): the query's words "user" and "2026"
    # in the message made it look like a quote of the query.
    query = "my wifi password: Sunflower77! user from 2026, since last time"
    result = MemoryTools(service).recall(query, **arguments)
    assert result["error"]["message"].startswith(start)


def test_a_session_metadata_is_logged_by_its_size_only(
    service: MemoryService, caplog: pytest.LogCaptureFixture
) -> None:
    # The failing input (found by the fourth re-check): the outline showed a field named
    # id at any depth, and every key, of the host's own metadata.
    metadata = {"account": {"id": TOKEN, "source": "wifi password Sunflower77!"}, SECOND: 1}
    session_id = service.start_session(metadata=metadata).id
    service.record_message(session_id, "user", "hello")
    caplog.set_level(logging.DEBUG)
    assert MemoryTools(service).read_conversation(session_id)["ok"] is True
    logged = "".join(record.getMessage() for record in caplog.records)
    assert '"metadata":"<2 keys>"' in logged
    assert all(text not in logged for text in [TOKEN[:12], SECOND[:12], "Sunflower77"])


def test_an_integer_too_long_to_write_is_an_invalid_input(service: MemoryService) -> None:
    # The failing input (found by the fourth re-check): repr() of it raised a ValueError.
    result = MemoryTools(service).recall("x", limit=10**5000)
    assert result["error"]["type"] == "InvalidInput"
    assert result["error"]["message"] == "limit: is an integer of thousands of digits."


@pytest.mark.parametrize(
    "text",
    [
        "Diego's bank card pin: 4821\x01",
        "Diego's bank card pin: 4821\x7f",
        "password: Sun\x01flower77!",
        "Diego's PIN is 48\x0121",
        "AKIAZ7Q4\x01L2M9X3B8K6T1",
        "The\tgate\tcode\tis\t#1234",
        "the\twifi\tpassword\tis\tnow\tHunter22",
        "wifi password:\x0cHunter22!",
        "password:\x1b[0m Kx9!mPq2vL",  # found by the next review: a colour's tail read
        "\x1b[1mpassword\x1b[0m: Kx9!mPq2vL",  # as the label's value
        "\x1b[01;31m\x1b[Kpassword\x1b[m\x1b[K=Kx9!mPq2vL",
        "password:\x1b]0;t\x07 Kx9!mPq2vL",  # found by the last review: an OSC's tail,
        "wifi password is\x1b7 Hunter22",  # ESC and one character,
        "\x1b[AKIAIVXLMOUXSA2M6JYD",  # a CSI start taking a token's first letter,
        "Hugging Face read token: \x9b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",
        "Use Kx9!mPq2vL\x1b[ as the password for the staging box",  # and one eating " a"
        "My password is swordf\x0bish",  # found by the next: a vertical tab or a form
        "The wifi password is correcthorse\x0cbatterystaple",  # feed inside a password
    ],
)
def test_a_control_character_or_a_tab_hides_no_credential(
    service: MemoryService, text: str
) -> None:
    # The failing inputs (found by the fifth re-check, then the last): no pattern read a
    # control character as the end of a value ("pin: 4821\x01"); read as a space, one cut a
    # password in two; and tabs broke the labels, whose patterns spell their spaces.
    with pytest.raises(SecretRejected):
        service.remember(text)


@pytest.mark.parametrize(
    "text",
    [
        "hello\x01world, Diego likes tea",
        "name\tpassword\temail",
        "\x1b[1mDiego\x1b[0m likes \x1b[32mgreen tea\x1b[0m",
        "\x1b[1;31m디에고는\x1b[0m 비밀번호 \x1b[1;31m관리자를\x1b[0m 써요.",
    ],
)
def test_tabs_and_control_characters_in_ordinary_text_pass(
    service: MemoryService, text: str
) -> None:
    assert service.remember(text).content


def test_a_message_about_a_flagged_query_that_quotes_nothing_is_whole(
    service: MemoryService,
) -> None:
    # The failing input (found by the last re-check): the query was too long, and the
    # model was never told, as the query held a labelled credential.
    result = MemoryTools(service).recall("password " + "Sunflower77 " * 50)
    assert result["error"]["message"].startswith("query: is 609 characters")
    assert "Sunflower77" not in result["error"]["message"]


def test_an_integer_too_long_to_write_is_logged_without_raising(
    service: MemoryService, caplog: pytest.LogCaptureFixture
) -> None:
    # The failing input (found by the fifth re-check): the log line wrote the arguments
    # with str(), which raised for it, out of the tool.
    caplog.set_level(logging.INFO)
    tools = MemoryTools(service)
    for arguments in [{"limit": 10**5000}, {"limit": [10**5000]}]:
        assert tools.recall("tea", **arguments)["ok"] is False
    assert "<arguments too large to write>" in caplog.text


def test_a_session_id_that_seems_a_credential_is_not_in_a_logged_result(
    service: MemoryService, caplog: pytest.LogCaptureFixture
) -> None:
    # The failing input (found by the fifth re-check): ids are shown by the log's outline,
    # and a host's session id was a token.
    session_id = service.start_session(session_id=TOKEN).id
    service.record_message(session_id, "user", "green tea")
    caplog.set_level(logging.INFO)
    tools = MemoryTools(service)
    assert tools.recall("green tea")["ok"] and tools.read_conversation(session_id)["ok"]
    assert TOKEN[:12] not in caplog.text and "succeeded" in caplog.text


def test_a_word_a_flagged_query_shares_with_a_message_leaves_it_whole(
    service: MemoryService,
) -> None:
    # The failing input (found by the fifth re-check): "session" in both withheld it.
    result = MemoryTools(service).recall("my password is hunter2 session", session_id=" ")
    assert result["error"]["message"].startswith("session_id: is blank")


def test_a_random_id_of_another_tool_is_no_credential_to_the_tools(
    service: MemoryService, caplog: pytest.LogCaptureFixture
) -> None:
    # Found by the second re-check: a KSUID as memory_id was logged as a high-entropy token,
    # and the NotFound that answered it was withheld as quoting one.
    caplog.set_level(logging.DEBUG)
    result = MemoryTools(service).forget("2Ndp4uQs9kSZyz8dOCr9i5YvNeZ")
    assert result["error"]["message"].startswith("No memory with id '2Ndp4uQs9kSZyz8dOCr9i5YvNeZ'")
    assert any("2Ndp4uQs9kSZyz8dOCr9i5YvNeZ" in record.getMessage() for record in caplog.records)


def test_an_argument_too_deep_or_unprintable_is_withheld_not_a_crash(
    service: MemoryService, caplog: pytest.LogCaptureFixture
) -> None:
    class Unprintable:
        def __str__(self) -> str:
            raise RuntimeError("no text")

    caplog.set_level(logging.DEBUG)
    deep: list[Any] = ["ghp_16C7e42F292c6912E7710c838347Ae178B4a"]
    for _ in range(50):
        deep = [deep]
    tools = MemoryTools(service)
    result = tools.recall("tea", session_id=deep)
    assert result["ok"] is False and "too deeply nested" in result["error"]["message"]
    assert all("ghp_16C7" not in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize(
    ("argument", "value"), [("expires_at", "password hunter2"), ("since", "Kennwort Sunflower77")]
)
def test_an_error_message_never_quotes_a_labelled_credential(
    service: MemoryService, caplog: pytest.LogCaptureFixture, argument: str, value: str
) -> None:
    # The failing input (found by review): the message quoted the value, and the guard,
    # which finds the credential in the value, found none in the message around it.
    caplog.set_level(logging.DEBUG)
    tools = MemoryTools(service)
    if argument == "since":
        result = tools.recall("tea", since=value)
    else:
        result = tools.remember("Diego likes tea.", expires_at=value)
    secret = value.split()[1]
    assert result["ok"] is False and secret not in json.dumps(result)
    assert all(secret not in record.getMessage() for record in caplog.records)


def test_an_error_message_without_a_credential_is_given_whole(service: MemoryService) -> None:
    result = MemoryTools(service).remember("Diego likes tea.", expires_at="next Tuesday")
    assert result["error"]["message"].startswith("expires_at: 'next Tuesday' is not ISO 8601")


def test_the_cli_in_verbose_mode_never_prints_a_refused_secret(db_path: Path) -> None:
    secret = "Brezel&Senf2025"
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "memstore",
            "-v",
            "--database",
            str(db_path),
            "remember",
            f"Das WLAN-Kennwort ist {secret}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 1
    assert json.loads(completed.stderr.splitlines()[-1])["error"]["type"] == "SecretRejected"
    assert secret not in completed.stderr + completed.stdout


# Real dialogue: every message of ../shared/corpora that mentions a credential word

CREDENTIAL_WORDS = re.compile(r"password|token|secret|key|clave|senha|passwort", re.IGNORECASE)


def texts(value: object) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from texts(item)


def corpus_messages(root: Path) -> set[str]:
    """The texts of every corpus file (JSON strings, JSONL records, or lines) that mention a
    credential word, cut to a memory's 4,000 characters."""
    found: set[str] = set()
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.suffix == ".md" or path.name.endswith("SHA256SUMS"):
            continue
        data = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".json":
            items = list(texts(json.loads(data)))
        elif path.suffix == ".jsonl":
            items = [
                t for line in data.splitlines() if line.strip() for t in texts(json.loads(line))
            ]
        else:
            items = data.splitlines()
        found.update(item[:4000] for item in items if CREDENTIAL_WORDS.search(item))
    return found


@pytest.mark.corpora
def test_no_real_message_mentioning_a_credential_word_is_refused(shared: Path) -> None:
    messages = corpus_messages(shared / "corpora")
    assert len(messages) > 2000  # passwords, tokens, keys, claves, senhas in 12 corpora
    refused = [(secret_kind(m), m[:120]) for m in messages if secret_kind(m) is not None]
    assert refused == []


def test_words_with_colons_after_a_begin_line_are_read_once() -> None:
    # Found by review: each "word: " on the line could start another header line, and 100
    # characters of "a: " after a BEGIN line held the guard 30 s (the time doubled with
    # each); at 60 of them this never ended, so the check runs in a process of its own that
    # a hang cannot keep (a bound on a hang, not a measure of speed).
    script = (
        "from memstore.guard import secret_kind\n"
        "assert secret_kind('-----BEGIN PRIVATE KEY-----\\n' + 'a: ' * 60) is None\n"
        "headers = 'Comment: user: alice host: db1 port: 5432 role: admin env: prod region: eu'\n"
        "assert secret_kind('-----BEGIN PGP PRIVATE KEY BLOCK-----\\n' + headers) is None\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
