"""Whether the text after a credential label, or inside a credential-shaped slot, is a value.

Words alone do not decide: ``password: str`` is a type annotation, ``Password: required`` an
instruction, ``api_key = os.environ[...]`` a lookup, ``user:password@localhost`` a
documentation placeholder, ``Palabras clave: jardín, lavanda`` a list of words. The value's
shape does: a made-up string mixes letters with digits or symbols; a lookup starts with
``$`` or names ``os.environ``; a placeholder is a mask, a type, a path or one of a few words
such as ``required``. The word lists here are only those non-values; everything else is
measured on the shape.
"""

from __future__ import annotations

import re

# Chinese, Japanese and Korean text after a label is prose ("12文字以上"): passwords are typed
# in the letters of a keyboard's Latin (or Cyrillic, Greek) layout.
IDEOGRAPHS = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
GLUED_ENDING = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+$")
EDGES = "\"'`\u201c\u201d\u2018\u2019«»()[]{}<>*_"  # quotes, brackets, Markdown emphasis
TRAILING = ".,;:!?"
SPECIALS = set("!@#$%^&*+=?~|\\")  # not "/": "buy/sell", "and/or" are words
TYPE_NAMES = {
    "str", "string", "int", "integer", "float", "bool", "boolean", "bytes", "any", "none",
    "null", "nil", "undefined", "object", "text", "varchar", "char", "number", "secretstr",
    "secretbytes", "optional", "list", "dict", "array", "hash", "uuid", "password", "passwd",
    "pass", "pwd", "secret", "token", "key", "apikey", "api_key", "credentials", "value",
    "example", "sample", "dummy", "placeholder", "redacted", "hidden", "masked", "user",
    "username", "login", "changeme",
}  # fmt: skip
LOOKUP = re.compile(
    r"(?:os\.)?(?:environ|getenv)|process\.env|getpass|input\(|keyring|vault|env[.(\[]|"
    r"config\.|settings\.|secrets\.|self\.|request\.|args\.|options\.",
    re.IGNORECASE,
)
PLACEHOLDER_WORDS = re.compile(
    r"(?:^|[\W_])(?:your|here|example|placeholder|dummy|redacted)(?:$|[\W_])", re.IGNORECASE
)
# A type: a generic (Vec<u8>, List[str]), a sized primitive (bytes32, u8), a CamelCase name of
# two or more word-like parts (SecretStr, Uint8Array, Base64String; not Qm4uT8zLx2Pa).
TYPE_LIKE = re.compile(
    r"\w+<[\w, ]*>$|(?:u?int|bytes|float|[uif])\d{1,3}$|(?:[A-Z][a-z]{2,}\d{0,2}){2,}$"
)
DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}$")
ENV_VARIABLE = re.compile(r"%\w+%$")  # Windows: %DB_PASSWORD%
MASK = re.compile(r"^[*xX•·.…#_-]+$|\.\.\.|…")
# States and instructions that follow a label but are no password, in the guard's languages.
STATES = {
    # English
    "required", "optional", "expired", "forgotten", "changed", "reset", "unknown", "missing",
    "invalid", "incorrect", "correct", "wrong", "strong", "temporary", "default", "stored",
    "saved", "encrypted", "hashed", "protected", "disabled", "enabled", "pending", "revoked",
    "rotated", "compromised", "leaked", "stolen", "shared", "private", "personal", "different",
    "mandatory", "needed", "something", "anything", "nothing", "everything", "somewhere",
    "written", "managed", "secure", "insecure", "unchanged", "updated", "deleted", "blocked",
    "locked", "unlocked", "visible", "sensitive", "confidential", "obvious", "simple",
    "complicated", "complex", "useless", "weak", "secret", "hidden", "unique", "memorable",
    "random", "long", "reused", "changing", "expiring", "working", "accepted", "rejected",
    # Spanish, French, German, Italian, Portuguese
    "olvidada", "olvidado", "requerida", "requerido", "obligatoria", "obligatorio", "caducada",
    "incorrecta", "cambiada", "necesaria", "secreta", "segura", "seguro", "sicher", "sicura",
    "sicuro", "veilig", "bezpieczne", "requis", "requise", "obligatoire",
    "expire", "vergessen", "erforderlich", "abgelaufen", "falsch", "geheim",
    "notwendig", "benotigt", "dimenticata", "obbligatoria", "scaduta", "scaduto", "sbagliata",
    "cambiata", "richiesta", "segreta", "esquecida", "obrigatoria", "expirada", "errada",
    "alterada", "necessaria",
    # Dutch, Polish
    "vergeten", "verplicht", "verlopen", "onjuist", "gewijzigd", "vereist",
    "wymagane", "wymagany", "zapomniane", "wygaslo", "niepoprawne", "zmienione", "tajne",
}  # fmt: skip


def clean(value: str) -> str:
    """``value`` without the quotes and brackets around it, its trailing punctuation, and a
    Japanese or Korean ending glued to it ("8356이야", "Sakura*2024です")."""
    text = value.rstrip(TRAILING).strip(EDGES).rstrip(TRAILING)
    glued = GLUED_ENDING.search(text)
    return text[: glued.start()] if glued and glued.start() else text


def is_placeholder(value: str) -> bool:
    """Whether ``value`` stands for a credential without being one: a mask, a lookup, a type
    name, a path, a call, or a word such as ``your-api-key``."""
    text = clean(value)
    if len(text) < 3 or value[:1] in "$<{" or text.startswith("$") or ENV_VARIABLE.match(text):
        return True
    folded = text.casefold()
    typed = TYPE_LIKE.match(text) or TYPE_LIKE.match(value.rstrip(TRAILING))
    if folded in TYPE_NAMES or folded.split("[", 1)[0] in TYPE_NAMES or typed:
        return True
    return bool(
        MASK.search(text)
        or LOOKUP.match(text)
        or PLACEHOLDER_WORDS.search(text)
        or "(" in text
        or "://" in text
        or text.startswith(("/", "~/", "./", "../"))
        or re.match(r"[A-Za-z]:\\", text)
    )


def made_up(value: str) -> bool:
    """Whether ``value`` looks invented: 4+ characters mixing letters with digits or symbols,
    6+ digits, or 16+ characters of a token alphabet with a digit."""
    text = clean(value)
    if len(text) < 4 or is_placeholder(value) or IDEOGRAPHS.search(text):
        return False
    letters = any(char.isalpha() for char in text)
    digits = any(char.isdigit() for char in text)
    symbols = any(char in SPECIALS for char in text)
    return (letters and (digits or symbols)) or (text.isdigit() and len(text) >= 6)


def pin(value: str) -> bool:
    """Whether ``value`` is a PIN: 3 to 12 digits, maybe in groups ("3-7-1-9"), not a date."""
    text = clean(value)
    if DATE.match(text):
        return False
    digits = text.replace("-", "")
    return digits.isascii() and digits.isdigit() and 3 <= len(digits) <= 12


def passphrase(value: str, ends_clause: bool) -> bool:
    """Whether ``value`` is a password of letters only ("swordfish"): 6+ ASCII letters that
    end the clause and are no state or instruction ("required", "vergessen")."""
    text = clean(value)
    return (
        ends_clause
        and len(text) >= 6
        and text.isascii()
        and text.isalpha()
        and text.casefold() not in STATES
        and not is_placeholder(text)
    )
