"""Credentials recognisable by their shape, whatever words surround them.

First the detectors of the detect-secrets library (the token formats it knows), then the
formats it lacks or over-reads, written here: newer provider prefixes, private key blocks
that hold a key, URLs with a password that is not a documentation placeholder, HTTP
authorization headers, environment-style assignments, command-line passwords, and, for a
token nothing names, detect-secrets' Shannon entropy. Two of its detectors are replaced:
its private-key detector fires on the words ``BEGIN PRIVATE KEY`` in prose, and its basic-
auth detector on ``postgresql://user:password@localhost``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.cloudant import CloudantDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString
from detect_secrets.plugins.ibm_cloud_iam import IbmCloudIamDetector
from detect_secrets.plugins.ibm_cos_hmac import IbmCosHmacDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.softlayer import SoftlayerDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from memstore.guard.normalize import without_links
from memstore.guard.prefixed import TOKENS
from memstore.guard.values import is_placeholder, made_up, passphrase, quoted_phrase, spoken

DETECTORS: tuple[RegexBasedDetector, ...] = tuple(
    detector()
    for detector in (
        ArtifactoryDetector,
        AWSKeyDetector,
        AzureStorageKeyDetector,
        CloudantDetector,
        DiscordBotTokenDetector,
        GitHubTokenDetector,
        GitLabTokenDetector,
        IbmCloudIamDetector,
        IbmCosHmacDetector,
        JwtTokenDetector,
        MailchimpDetector,
        NpmDetector,
        OpenAIDetector,
        PypiTokenDetector,
        SendGridDetector,
        SlackDetector,
        SoftlayerDetector,
        SquareOAuthDetector,
        StripeDetector,
        TelegramBotTokenDetector,
        TwilioKeyDetector,
    )
)
TOKEN = re.compile("|".join(f"(?P<t{i}>{pattern})" for i, pattern in enumerate(TOKENS.values())))
TOKEN_KINDS = list(TOKENS)
# Every token format above, and every detect-secrets detector used, needs a run of 16 or more
# token characters: prose without one skips them (most memories; measured 4x faster).
LONG_RUN = re.compile(r"[A-Za-z0-9_+/=%-]{16,}")
# Formats whose value decides: a documentation placeholder or a lookup is no credential.
# The password runs to the last "@" before the host: people paste passwords holding one
# unescaped (found by review: "https://diego:P@ssw0rd9@git.example.org" passed).
URL_PASSWORD = re.compile(
    r"\b(?P<scheme>[a-z][a-z0-9+.-]{0,31})://(?P<user>[^\s:/@]*):(?P<value>[^\s/]+)"
    r"@(?P<host>[\w.-]+)",
    re.IGNORECASE,
)
# Where documentation points such a URL: this machine, a container's one-word name ("db"),
# or a name reserved for examples and tests.
SAMPLE_HOST = re.compile(
    r"localhost|127(?:\.\d+){3}|0\.0\.0\.0|[\w-]+"
    r"|(?:[\w-]+\.)*(?:example\.(?:com|org|net)|example|test|local|localhost|invalid)",
    re.IGNORECASE,
)
# A device's admin page on a home network ("http://admin:admin@192.168.1.1"): its factory
# password, which its manual prints.
DEVICE_PAGE = re.compile(r"https?://(?:192\.168|10\.\d+|172\.(?:1[6-9]|2\d|3[01]))(?:\.\d+){2}")
# Passwords that software ships with, as documentation and examples write them
# ("postgres://postgres:postgres@localhost", "amqp://guest:guest@...").
DEFAULT_PASSWORDS = {
    "postgres", "guest", "root", "admin", "password", "pass", "secret", "test", "changeme",
    "example", "demo", "default", "toor", "redispw", "mysql", "user", "sa",
}  # fmt: skip
URL_SECRET = re.compile(
    r"[?&](?:password|passwd|pwd|pass|secret|client_secret|api_?key|apikey|access_token"
    r"|private_token)"
    r"=(?P<value>[^\s&#]+)",
    re.IGNORECASE,
)
# A .pgpass line: host:port:database:user:password (a host with a letter: no timestamp; no
# run of hex groups, a MAC or IPv6 address: found by review, "3C:22:FB:A1:9E:07" refused).
PGPASS = re.compile(
    r"(?<![\w:])(?![0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){4,}(?![\w:]))"
    r"(?=[\w.-]{0,252}[A-Za-z])[\w.-]{1,253}:\d{2,5}:[^:\s]+:[^:\s]+:(?P<value>\S{4,})"
)
WIFI_QR = re.compile(r"\bWIFI:(?:[^;\s]*;)*?P:(?P<value>[^;\s]+)")  # WIFI:T:WPA;S:Casa;P:...;;
AUTH_HEADER = re.compile(
    r"\bauthorization\s*[:=]\s*[\"']?(?:basic|bearer|token)\s+(?P<value>[A-Za-z0-9._~+/=-]{8,})",
    re.I,
)
SECRET_NAME = (
    r"[A-Z0-9_]*(?:PASSWORD|PASSWD|PWD|PASSPHRASE|SECRET|TOKEN|API_?KEY|ACCESS_KEY|AUTH|CREDENTIALS?"
    r"|PRIVATE_KEY)[A-Z0-9_]*"
)
# Settings about secrets rather than secrets: MAX_TOKENS, TOKEN_EXPIRY, AUTH_PROVIDER, ...
SETTING = re.compile(
    r"^(?:MAX|MIN)_|_(?:TTL|EXPIRY|EXPIRES|LIFETIME|TIMEOUT|LIMIT|LENGTH|SIZE|COUNT|MAX|MIN"
    r"|PROVIDER|ENABLED|DISABLED|TYPE|MODE|METHOD|HEADER|FILE|PATH|URL|URI|ENDPOINT|HOST"
    r"|PORT|NAME|USER|USERNAME|ID|SCOPES?|ALGORITHM|ISSUER|AUDIENCE|DIR|BACKEND|SCHEME"
    r"|STRATEGY|PLUGIN|MODULE|CLASS|CMD|COMMAND|HELP|MAX_AGE|GENERATOR|WORDLIST|ENV)$"
    r"|^MAX_TOKENS$"
)
# Settings about passwords whose value is a word (PASSWORD_POLICY=strict): one made up is
# still a secret ("PASSWORD_RULES: Kx9!mPq2"; both found by review).
POLICY = re.compile(
    r"_(?:POLICY|HASH(?:ERS?|ING)?|VALIDATORS?|RULES?|COMPLEXITY|STRENGTH|HISTORY|ROTATION"
    r"|LABEL|TEXT|HINT|FIELD|INPUT|PROMPT)$"
)
PASSWORD_NAME = re.compile(r"PASSWORD|PASSWD|PWD|PASSPHRASE")  # SSH_PASSPHRASE (review)
# A password's setting written in lower case, as configuration files do (db_password,
# smtp_pwd, db_password_2; found by review: "db_password = 'swordfish'" passed where
# DB_PASSWORD=swordfish did not): a few words and underscores around the word (unbounded,
# a long run of them was read back and forth, quadratic). Settings about passwords are told
# by their names (SETTING, POLICY) and values (a state such as "always", code such as
# make_password or pathlib.Path.cwd()), not by a list of verbs (found by the next review).
SNAKE_PASSWORD_NAME = (
    r"[a-z0-9]{1,32}(?:_[a-z0-9]{1,32}){0,5}_(?:password|passwd|pwd|passphrase)"
    r"(?:_[a-z0-9]{1,16})?"
)
# A value that is code, not a password: a call, a subscript, an attribute path, a snake_case
# name, keyword arguments (found by review: "db_password = secrets['db']", "= kwargs").
CODE_VALUE = re.compile(
    r"[\w.]+[(\[].*|[A-Za-z_]\w*(?:\.\w+)+|[a-z]+(?:_[a-z0-9]+)+|\*{0,2}kwargs|\*?args"
)
# What a password setting's value names instead of a password: a hashing scheme, or its
# name's word about passwords ("hash_password = bcrypt", "confirm_password = confirm": found
# by review; not a service's name, "POSTGRES_PASSWORD=postgres", which is its password).
HASHES = {"bcrypt", "argon2", "argon2id", "scrypt", "pbkdf2", "sha256", "sha512", "md5", "plain"}
PASSWORD_VERBS = {
    "confirm", "confirmation", "verify", "current", "master", "old", "new", "check", "show",
    "hide", "hash", "hashed", "reset", "change", "save", "keep", "store", "repeat", "retype",
    "forgot", "enter", "update", "create", "set",
}  # fmt: skip
ASSIGNMENT = re.compile(
    rf"\b(?P<name>{SECRET_NAME}|{SNAKE_PASSWORD_NAME})\s*[=:]\s*[\"']?(?P<value>[^\s\"';,]+)"
)
COMMAND = re.compile(
    r"\bsshpass\s+-p\s*[\"']?(?P<value>[^\s\"']+)"
    r"|\bmysql(?:dump)?\b[^\n]*?\s-p(?P<attached>[^\s\"']+)"
    r"|\s--(?:password|passwd|api-key|apikey|token|secret|auth-token)[= ]"
    r"[\"']?(?P<option>[^\s\"']+)"
    r"|\bcurl\b[^\n]*?\s(?:-u|--user)\s+[\"']?[^\s:\"']+:(?P<user>[^\s\"'@]+)"
    r"|\b(?:(?:docker|podman)\s+login|mongo|mongosh)\b[^\n]*?\s-p\s+[\"']?(?P<login>[^\s\"']+)"
    r"|\b(?:az\s+login|zip)\b[^\n]*?\s-[pP]\s+[\"']?(?P<short>[^\s\"']+)"
    r"|\b(?:7z|7za|unrar|rar)\b[^\n]*?\s-p(?P<archive>[^\s\"']+)"
    r"|\bhtpasswd\b[^\n]*?\s-\w*b\w*\s+\S+\s+\S+\s+[\"']?(?P<htpasswd>[^\s\"']+)"
    r"|\bnet\s+use\b[^\n]*?/user:\S+\s+[\"']?(?P<net>[^\s\"'/]+)"
    r"|\bnet\s+use\b[^\n]*?\\\\\S+\s+[\"']?(?P<unc>[^\s\"'/]+)"  # after the share
    r"|\bredis-cli\b[^\n]*?\s-a\s+[\"']?(?P<redis>[^\s\"']+)"
    r"|\bsqlcmd\b[^\n]*?\s-P\s+[\"']?(?P<sqlcmd>[^\s\"']+)"
    r"|\bldap\w*\b[^\n]*?\s-w\s+[\"']?(?P<ldap>[^\s\"']+)"
    r"|\bsmbclient\b[^\n]*?\s-U\s+[^\s%]+%(?P<smb>\S+)"
    r"|\becho\s+[\"']?(?P<piped>[^\s\"'|]+)[\"']?\s*\|\s*sudo\s+-S"
    r"|ConvertTo-SecureString\s+[\"'](?P<secure>[^\"']+)"
)
Check = tuple[str, re.Pattern[str], Callable[[re.Match[str]], str | None]]
# A token nothing names: long, mixing cases and digits, and random-looking by entropy.
CANDIDATE = re.compile(r"(?<![\w/+=.-])[A-Za-z0-9+/=_-]{24,}(?![\w/+=.-])")
ENTROPY = Base64HighEntropyString()
# What a random-looking token is said to be when it is public: keys and ids.
PUBLIC = re.compile(
    r"public|pub ?key|ssh-(?:rsa|ed25519|dss)|ecdsa-sha2|\bids?\b|playlist|video|file|cid\b"
    r"|hash|checksum|digest|sha-?\d+|commit|fingerprint|order|invoice|tracking",
    re.IGNORECASE,
)
MIN_ENTROPY = 4.3


def assigned(found: re.Match[str]) -> str | None:
    """``secret assignment`` for a secret's name given a made-up value, or a password's name
    a word (``DB_PASSWORD=swordfish``); not a setting about secrets such as
    TOKEN_EXPIRY=3600, nor a lookup such as ${DB_PASSWORD}."""
    value, name = found["value"], found["name"].upper()  # db_password as DB_PASSWORD
    if SETTING.search(name) or (POLICY.search(name) and not made_up(value)):
        return None
    bare = value.strip("\"'").casefold()
    named = bare in PASSWORD_VERBS and bare in found["name"].casefold().split("_")
    if bare in HASHES or named or (found["name"].islower() and CODE_VALUE.fullmatch(value)):
        return None
    phrase = quoted_phrase(found.string, found.start("value"))  # after "=", not YAML's ":"
    equals = "=" in found.string[found.end("name") : found.start("value")]
    spoke = equals and phrase is not None and spoken(phrase)
    spelled = passphrase(value, True) or spoke
    worded = PASSWORD_NAME.search(name) is not None and spelled
    return "secret assignment" if made_up(value) or worded else None


def valued(name: str) -> Callable[[re.Match[str]], str | None]:
    """A check that reports ``name`` unless the match's value is a placeholder."""

    def check(found: re.Match[str]) -> str | None:
        value = next((v for v in found.groupdict().values() if v), "")
        return None if is_placeholder(value) else name

    return check


def url_password(found: re.Match[str]) -> str | None:
    """``URL with a password`` unless the password is a placeholder, or the user name again or
    a password software ships with (:data:`DEFAULT_PASSWORDS`) on a sample host or a home
    device's page (found by review: ``mysql://root:root@10.0.0.5`` passed)."""
    value = found["value"]
    shipped = value.casefold() in DEFAULT_PASSWORDS or value == found["user"]
    page = f"{found['scheme']}://{found['host']}".casefold()
    home = SAMPLE_HOST.fullmatch(found["host"].rstrip(".")) or DEVICE_PAGE.fullmatch(page)
    sample = shipped and home is not None
    return None if sample or is_placeholder(value) else "URL with a password"


CHECKS: tuple[Check, ...] = (
    ("URL with a password", URL_PASSWORD, url_password),
    ("URL with a secret parameter", URL_SECRET, valued("URL with a secret parameter")),
    (".pgpass line", PGPASS, valued(".pgpass line")),
    ("Wi-Fi QR code", WIFI_QR, valued("Wi-Fi QR code")),
    ("authorization header", AUTH_HEADER, valued("authorization header")),
    ("secret assignment", ASSIGNMENT, assigned),
    ("password on a command line", COMMAND, valued("password on a command line")),
)


def format_kind(text: str, *, entropy: bool = True) -> str | None:
    """The kind of the first credential found in ``text`` by its shape, or None.

    detect-secrets' detectors and the entropy test (left out unless ``entropy``) do not look
    inside links (:func:`without_links`); the prefixed tokens, passwords and secret
    parameters in URLs and SAS signatures are looked for everywhere.
    """
    if LONG_RUN.search(text) or "PRIVATE KEY" in text:  # an elided key's body is short
        kind = token_kind(text) if entropy else named_token_kind(text)
        if kind is not None:
            return kind
    for _, pattern, check in CHECKS:
        for match in pattern.finditer(text):
            kind = check(match)
            if kind is not None:
                return kind
    return None


def token_kind(text: str) -> str | None:
    """The kind of the first token-shaped credential in ``text``: detect-secrets' detectors
    and the entropy test outside links, the prefixed tokens everywhere."""
    return named_token_kind(text) or random_token(without_links(text))


def named_token_kind(text: str) -> str | None:
    """The kind of the first credential in ``text`` of a format some service names:
    detect-secrets' detectors outside links, the prefixed tokens everywhere; no entropy
    test."""
    prose = without_links(text)
    for detector in DETECTORS:
        if any(True for _ in detector.analyze_string(prose)):
            return str(detector.secret_type)
    found = TOKEN.search(text)
    if found is not None and found.lastgroup is not None:
        return TOKEN_KINDS[int(found.lastgroup[1:])]
    return None


def random_token(text: str) -> str | None:
    """``high-entropy token`` when ``text`` holds a long token that mixes upper and lower
    case and digits and whose Shannon entropy (detect-secrets') is high; None otherwise."""
    for found in CANDIDATE.finditer(text):
        token = found.group()
        if PUBLIC.search(text, max(found.start() - 40, 0), found.start()):
            continue
        mixed = (
            any(c.isupper() for c in token)
            and any(c.islower() for c in token)
            and any(c.isdigit() for c in token)
        )
        if mixed and ENTROPY.calculate_shannon_entropy(token) >= MIN_ENTROPY:
            return "high-entropy token"
    return None
