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

from memstore.guard import states

# Chinese, Japanese and Korean text after a label is prose ("12文字以上"): passwords are typed
# in the letters of a keyboard's Latin (or Cyrillic, Greek) layout.
IDEOGRAPHS = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
CJK_CLAUSE_END = re.compile(
    "[\u3000-\u303f]|[,;!?](?=[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])"
)  # "。" or "、", or a comma (NFKC's of the fullwidth one) before a CJK character
# ${DB_PASSWORD}, $(pass show x), $TOKEN; Compose's $$TOKEN and PowerShell's $env:TOKEN
# with a variable's name ("$$Kx9mPq2vLz" is a literal "$Kx9mPq2vLz": found by review)
VARIABLE = r"(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*)"
SHELL_LOOKUP = re.compile(rf"\$(?:[{{(]|[A-Za-z_]\w*$)|\$\${VARIABLE}$|\$env:{VARIABLE}$")
# A whole call, getpass(), read_secret(name="db").value, get_key()[0],
# models.CharField(max_length=128) or hashlib.sha256(pw.encode()).hexdigest(): not
# "Tr0ub(le)42" nor "Abc(123!x", which only hold a bracket (found by review: let through as
# calls). A password of two bracket groups ("Tr0ub(le)(42)") still reads as one: a review
# found narrowing the names to code's shapes refused 39 lines of ordinary code.
CALL = re.compile(r"[A-Za-z_][\w.]*\(.*\)(?:\.\w+|\[[^\]]*\]|\(\))*$")
# The start of a call whose argument is quoted, as a label's value stops at the quote:
# read_secret(name=, base64.b64decode(os.environ[
CUT_CALL = re.compile(r"[a-z_][\w.]*\([\w.=(\[]*[=(\[]$")
GLUED_ENDING = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+$")
EDGES = "\"'`\u201c\u201d\u2018\u2019«»「」『』【】()[]{}<>*_"  # quotes, brackets, emphasis
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
    r"(?:os\.)?(?:environ|getenv)|process\.env|getpass|input\(|keyring|!?vault|env[.(\[]|"
    r"config\.|settings\.|secrets\.|self\.|request\.|args\.|options\.|ENC\[",
    re.IGNORECASE,
)
PLACEHOLDER_WORDS = re.compile(
    r"(?:^|[\W_])(?:your|here|example|placeholder|dummy|redacted)(?:$|[\W_])"
    # where passwords are kept, and how long they are (found by review: "p/w: 1Password",
    # "Der Zugangscode ist 6-stellig")
    r"|^(?:1password|bitwarden|keepass(?:xc)?|lastpass|dashlane|keychain)$"
    r"|^\d+-(?:stellig|digits?|characters?|chars|letters?|cifras|d[ií]gitos|chiffres)$",
    re.IGNORECASE,
)
# A type: a generic (Vec<u8>, List[str]), a sized primitive (bytes32, u8), or a CamelCase name
# of two or more word-like parts whose digits, if any, are a size in bits, one of them a
# credential's or a cipher's word or the last a word types end in (SecretStr, HmacSha256,
# Uint8Array, ApiKeyHeader, EditText; not Qm4uT8zLx2Pa, nor the passwords GreenApple12 and
# MaisonBleue: a review found "wifi password: MaisonBleue" let through, the next ones the
# types of Android, Angular, Flutter and others that are among the endings).
BITS = r"(?:8|16|32|64|128|256)"
PART = rf"[A-Z][a-z]{{2,}}{BITS}?"
CREDENTIAL_PARTS = (
    r"(?:Password|Passphrase|Passwd|Secret|Token|Key|Pin|Auth|Credentials?|Hash|Jwt|Otp"
    r"|Hmac|Sha|Aes|Rsa|Cipher|Crypto|Secure|Protected|Protector|Vault|Keychain|Env)"
)
TYPE_ENDS = (
    r"(?:Str|String|Text|Sequence|Bytes|Array|Buffer|Type|Field|Form|Input|Box|Entry|Edit|Area"
    r"|Value|Data|Dict|List|Map|Set|Enum|Class|Schema|Model|Entity|Record|Column|Row|Spec|Url"
    r"|Path|Config|Settings|Options?|Policy|Info|Error|Object|Element|Node|Ref|Reference"
    r"|Property|Attribute|Parameter|Argument|Rule|Storage|Subject|Observable|Stream|Event"
    r"|Listener|Control|Controller|View|Widget|Component|Module|Directive|Guard|Holder"
    r"|Provider|Manager|Handler|Header|Factory|Client|Service|Store|Result|Response|Request"
    r"|Payload|Pair|Code|Bearer|Encoder|Decoder|Hasher|Validator|Generator|Builder|Context"
    r"|State|Directory|Flow|Props|Signal|Return|Style|Colors?|Helper|Access|Transformation"
    r"|Requester|Params?|Item|Wrapper|Layout|Definition|Values|Rules|Preferences?|Defaults"
    r"|Notifier|Emitter|Group|Body|Headers|Errors|Violation|Blob|Child|Boolean|Digest|Only"
    r"|File|Poly|Util|From)"
)
TYPE_LIKE = re.compile(
    rf"\w+<[\w, ]*>$|(?:u?int|bytes|float|[uif])\d{{1,3}}$"
    rf"|(?=(?:{PART}){{2,}}$)(?:(?:{PART})*{CREDENTIAL_PARTS}{BITS}?(?:{PART})*|(?:{PART})+{TYPE_ENDS}{BITS}?)$"
)
CAMEL = re.compile(rf"(?:{PART}){{2,}}$")
# A remark in CamelCase ("password: TheUsual", "SameAsBefore", "WieImmer"); one of letters
# alone that is no type is a password ("MaisonBleue", "OnTheRoad", "NoMercy").
SPOKEN_CAMEL = re.compile(
    r"(?:The|Ask|See|Siehe|Ver|Voir|Vedi|Zie|Same|Not|None|Use|Check|Stored|Saved|Kept|Your"
    r"|Who|As|Wie|Como|Comme|Come)(?:[A-Z][a-z]+)+$"
)
JOINED = re.compile(r"[_.]")  # the joins of a password of words: Velvet_Moon, luna.llena
# Names of protocols, standards and models that follow "auth", "token" or "key" labels:
# "Auth: OAuth2", "network key: WPA3", "Token: ERC-721", "PSK: WPA2-Personal".
STANDARD = re.compile(
    r"(?:WPA\d?|WEP|PSK|OAuth\s?\d?|SAML\s?\d?|OIDC|LDAP\d?|ERC-?\d+|BEP-?\d+"
    r"|GPT-?\d(?:\.\d+)?[a-z]?"  # GPT-4o, gpt-4.1-mini; not the password Gpt4Rocks
    r"|TLS\s?[\d.]*|SSL\s?[\d.]*|AES-?\d+|RSA-?\d+|SHA-?\d+|HS\d{3}|RS\d{3}|ES\d{3}|X\.?509)"
    r"(?:[-_/][A-Za-z-]+)?$"
    # hashing schemes and a board's pin, alone (found by review: "passwordはPBKDF2で",
    # "pinはGPIO4"; with a word after them, "Argon2-Sunshine", they are passwords)
    r"|(?:PBKDF2|Argon2(?:id|i|d)?|bcrypt|scrypt|GPIO\d{1,2})$",
    re.IGNORECASE,
)
HASHTAG = re.compile(r"#[^\W\d_]+$")  # "my secrets #skincarejourney"
VERSION_PIN = re.compile(r"[\w.\[\]-]+(?:==|>=|<=|~=|!=)\S+$")  # requests==2.31.0
DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}$")
UNITS = "年|년|月|월|日|位|자리|次|회|번째|個|个|개|元|원|円|人|명|歳|살|回|文字|글자|桁|ビット"
"""Units that make a number a count, a measure or a date ("2024年に", "4位", "3자리",
"365日ごと", "128文字")."""
# A number with a unit, or a limit ("128000まで", "8자 이상"); Korean "일" (days) after up
# to three digits or before more of a word that is no copula's ending ("100일 후",
# "1000일마다", not "0427일 거야" nor "4821일지도"), Chinese "号" only before more of a name
# ("1208号房间", not "密码是1234号"). All found by reviews.
COUNTED_CJK = re.compile(
    rf"[0-9.,-]+(?:{UNITS}|まで|以上|以下|以内|未満|까지|이상|이하|号(?=[\u4e00-\u9fff]))"
    "|[0-9]{1,3}일|[0-9-]+일(?=[가-힣])(?!거|겁|까|걸|지도|수도|텐데|꺼|이야|이에요|이다|입니다)"
)
ENV_VARIABLE = re.compile(rf"%\w+%$|%\({VARIABLE}\)[sdr]$")  # Windows' %PW%, Python's %(pw)s
MASK = re.compile(r"^[*xX•·.…#_-]+$|\.\.\.|…")
# A measure ("token TTL is 3600s", "the pin is 3.5mm") and a description ("password is
# 2FA-protected") say what a credential is like, not what it is (found by review).
QUANTITY = re.compile(
    r"\d+(?:[.,]\d+)?(?:ms|s|sec|min|h|hrs?|d|days?|mm|cm|km|kb|mb|gb|tb|k|px|%|v|ma|mah|w|bits?)$",
    re.IGNORECASE,
)
DESCRIBED = re.compile(
    r"[\w.]+-(?:protected|enabled|secured|based|only|free|managed|encrypted|locked|rotated"
    r"|generated|required|compliant)$",
    re.IGNORECASE,
)


def clean(value: str) -> str:
    """``value`` without the quotes and brackets around it, its trailing punctuation, and a
    Japanese or Korean ending glued to it ("8356이야", "Sakura*2024です"), and what follows
    a Chinese or Japanese clause's end ("595231, 别告诉别人" with a fullwidth comma)."""
    text = CJK_CLAUSE_END.split(value, maxsplit=1)[0].rstrip(TRAILING)
    text = text.strip(EDGES).rstrip(TRAILING)
    glued = GLUED_ENDING.search(text)
    return text[: glued.start()] if glued and glued.start() else text


def is_placeholder(value: str) -> bool:
    """Whether ``value`` stands for a credential without being one: a mask, a lookup, a type
    name, a path, a call, or a word such as ``your-api-key``."""
    text = clean(value)
    lookup = SHELL_LOOKUP.match(text) or SHELL_LOOKUP.match(value)
    if len(text) < 3 or value[:1] in "<{" or lookup or ENV_VARIABLE.match(text):
        return True
    if COUNTED_CJK.match(value.lstrip(EDGES)):  # "tokenは128000まで" (found by review)
        return True
    folded = text.casefold()
    typed = TYPE_LIKE.match(text) or TYPE_LIKE.match(value.rstrip(TRAILING))
    typed = typed or SPOKEN_CAMEL.match(text)
    if folded in TYPE_NAMES or folded.split("[", 1)[0] in TYPE_NAMES or typed:
        return True
    return bool(
        STANDARD.match(text)
        or VERSION_PIN.match(text)
        or HASHTAG.match(text)
        or MASK.search(text)
        or LOOKUP.match(text)
        or PLACEHOLDER_WORDS.search(text)
        or CALL.match(value.rstrip(TRAILING))
        or CUT_CALL.match(value)
        or QUANTITY.match(text)
        or DESCRIBED.match(text)
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


def strong(value: str) -> bool:
    """Whether ``value`` is made up (:func:`made_up`) and either holds a symbol or is 8
    characters or longer: "Kx9!mPq2", "hunter22", not "BTS2024"."""
    text = clean(value)
    return made_up(value) and (len(text) >= 8 or any(char in SPECIALS for char in text))


def pin(value: str) -> bool:
    """Whether ``value`` is a PIN: 3 to 12 digits, maybe in groups ("3-7-1-9"), not a date
    nor a count (a unit glued to it: "2024年", "2024년", "4位"; found by review)."""
    text = clean(value)
    if DATE.match(text) or COUNTED_CJK.match(value.lstrip(EDGES)):
        return False
    digits = text.strip("#").replace("-", "")  # a keypad's "764471#", a gate's "#1234"
    return digits.isascii() and digits.isdigit() and 3 <= len(digits) <= 12


def passphrase(value: str, ends_clause: bool, *, stated: bool = False) -> bool:
    """Whether ``value`` is a password of letters only ("swordfish", "подсолнух", words of
    three letters or more joined by ``_`` or ``.``: "Velvet_Moon", "luna.llena"):
    letters that end the clause, 6 or more of them (5 when one is not ASCII:
    "Gänseblümchen" is no English word), and no state or
    instruction ("required", "vergessen": see :mod:`memstore.guard.states`). ``stated``: a
    verb put it ("is", "lautet"), where words in CamelCase are a password ("my password is
    SwordFish"; found by review), not the type they are after a colon (``password:
    SecretStr``)."""
    text = clean(value)
    words = JOINED.split(text)
    letters = "".join(words)
    return (
        ends_clause
        and (len(words) == 1 or min(map(len, words)) >= 3)  # not README.md, a file's name
        and len(letters) >= (6 if letters.isascii() else 5)
        and all(word.isalpha() for word in words)
        and not IDEOGRAPHS.search(text)
        and not any(states.is_state(word) for word in words)
        and not is_placeholder(text.lower() if stated else text)
    )


CLOSING = {'"': '"', "'": "'", "\u201c": "\u201d", "«": "»", "「": "」", "『": "』"}
"""Each opening quote a value may stand in, and its closing one."""
FUNCTION_WORDS = {
    "not", "yet", "the", "and", "for", "you", "your", "please", "try", "again", "enter",
    "must", "with", "this", "that", "are", "was", "has", "have", "will", "can", "all", "any",
    "use", "see", "here", "there", "none", "than", "then", "from", "into", "our", "its",
    "foo", "bar", "baz", "qux", "lorem", "ipsum", "dolor", "asdf", "qwerty", "via", "type",
    "keep", "read", "call", "when", "once", "setup", "max", "min", "minimum", "maximum",
    "least", "most", "step", "page", "room", "ext", "days", "characters", "chars", "digits",
    "contain", "contains", "stored", "show", "ver", "voir", "siehe", "vedi", "zie", "del", "la",
    "under", "over", "behind", "near", "inside", "todo", "set", "empty", "in", "on", "at",
    "by", "of", "ask", "check", "fill", "change", "click", "contact", "replace", "insert",
    "write", "leave", "generate", "update", "before", "after", "later", "below", "above",
    "during",
}  # fmt: skip
"""Words of sentences, instructions and placeholders ("see wiki page 42", "at least 8
chars", "fill in after step 3", "foo bar 1"), which a password of words holds none of."""


def quoted_phrase(text: str, start: int) -> str | None:
    """The words of a quoted value of ``text`` read from ``start`` (its first character,
    right after the opening quote) to the closing quote on the same line, within 128
    characters, when there are two or more of them; else None: a label's value and an
    assignment's end at the first space, and "my dog rex 2019" was read as "my" (found by
    review)."""
    closing = CLOSING.get(text[start - 1 : start]) if start else None
    end = -1 if closing is None else text.find(closing, start, start + 129)
    phrase = text[start:end] if end >= 0 else ""
    return phrase if len(phrase.split()) >= 2 and "\n" not in phrase else None


def spoken(phrase: str) -> bool:
    """Whether a quoted ``phrase`` of two to eight words is a password: made up once its
    spaces are dropped ("my dog rex 2019"), and none of its words one of
    :data:`FUNCTION_WORDS` ("see wiki page 42", "at least 8 chars"). Words of letters alone
    are not read as a password: error messages, test strings and notes are written so too
    ("should raise error", "rotated every quarter"; found by reviews of a rule that took
    "correct horse battery staple")."""
    words = phrase.split()
    folded = [word.casefold().strip(",.;:") for word in words]
    if not 2 <= len(words) <= 8:
        return False
    if any(word in FUNCTION_WORDS for word in folded):
        return False
    return made_up("".join(words))
