"""Credentials that a label names: "my password is swordfish", "PIN-код от карты: 3391",
"パスワードは Sakura*2024 です", in English, Spanish, French, German, Italian, Portuguese,
Dutch, Polish, Russian, Chinese, Japanese and Korean.

A match is a label, up to eight words saying whose or what for ("del wifi de la casa",
"für die EC-Karte"), a connector (``:``, ``=``, or a verb: "is", "es", "est", "lautet",
"è", "é", "to", "jest", "是", "は", "는"), then a value, which :mod:`memstore.guard.values`
judges by its shape and by the label's kind:

- password labels take a made-up value, digits, or one word of letters that ends the clause
  and is no state ("swordfish", not "required" or "pretty hard");
- PIN labels take 3 to 12 digits only ("Map pin: Casa Azul" is a place);
- key and token labels take a made-up value only ("Palabras clave: jardín", "Het token is
  verlopen" are words).
"""

from __future__ import annotations

import re

from memstore.guard import connectors, declarations, values
from memstore.guard.connectors import CONNECTOR
from memstore.guard.emphasis import without_emphasis
from memstore.guard.label_context import another_thing, names_no_credential
from memstore.guard.payment import follows_test_card, noted_as_test

PASSWORD_LABELS = (
    r"pass(?:words?|wd|code|phrase)|pass code|pwd|contrase[ñn]as?|mots? de passe"
    r"|mdp|passw[oö]rt(?:er)?|(?:wlan|wi-?fi)-?schl[üu]ssel"
    r"|kennw[oö]rt(?:er)?|parola d'ordine|senhas?|palavra[- ]passe|wachtwoord(?:en)?"
    r"|has(?:ł|l)[oa]|парол[ьяи]|密码|口令|パスワード|비밀번호|비번|패스워드|암호"
    r"|(?:wi-?fi|wlan|wpa2?|network) key|clave (?:del|de la) (?:wi-?fi|red|router|correo)"
    # beyond the twelve languages, the common words: Turkish, Finnish, Swedish, Danish and
    # Norwegian, Czech, Greek, Arabic, Hebrew, Hindi, Vietnamese, Indonesian, Hungarian,
    # Catalan
    r"|şifre(?:si|m)?|salasana(?:ni|si)?|lösenord(?:et)?|adgangskode|kodeord|passord|heslo|κωδικός"
    r"|كلمة المرور|סיסמה|הסיסמה|पासवर्ड|mật khẩu|kata sandi|jelsz[óa]\w*|contrasenya"
)
LOCKS = (
    r"door|alarm|disarm|gate|garage|safe|lock|unlock|access|entry|keypad|intercom|building|opener"
)
CARD_CODE_LABELS = r"cvv2?|cvc2?|card (?:security|verification) code"  # a card's security code
CARD_CODE = re.compile(CARD_CODE_LABELS, re.IGNORECASE)
NEXT_WORD = re.compile(r"[ \t]+([^\W\d_]+)")
COUNTED = {
    "attendees", "people", "persons", "participants", "guests", "members", "students",
    "delegates", "visitors", "users", "employees", "seats", "tickets", "rooms", "beds",
    "units", "pieces", "items", "copies", "pages", "words", "votes", "points", "entries",
    "times", "days", "hours", "minutes", "seconds", "weeks", "months", "years", "euros", "eur",
    "dollars", "usd", "pounds", "ml", "l", "liters", "litres", "mg", "g", "kg", "km", "m",
    "cm", "mm", "kb", "mb", "gb", "percent", "personas", "personnes", "teilnehmer",
}  # fmt: skip
# Three digits, or four that are no year ("CVV 2024 redesign", "at CVC 2024": found by review)
CVV = re.compile(r"(?:[0-9]{3}|(?!19|20)[0-9]{4})[.,;!?)]?$")
PIN_LABELS = (
    r"pin ?码|(?:핀|pin) ?번호|"  # before "pin": a match of "PIN" alone hides them
    r"pin(?:[- ]?(?:code|kod|код|nummer|number|número|numero))?|(?:code|kod|c[óo]digo) pin"
    r"|clave(?: secreta)?"  # "clave: 1234", not "Palabras clave: 2024" (see adjectival)
    r"|secret code|code secret|c[óo]digo secreto|codice segreto|geheimcode|chave secreta"
    r"|geheimzahl|пин(?:-код)?|暗証番号|digicode"
    r"|unlock(?: code| pin)?|combination"
    r"|(?:t[üu]r|tor|zugangs|haus)code|codice (?:del )?bancomat"
    r"|c[óo]digo de (?:acceso|acesso)|code d'acc[èe]s|codice di accesso"
    rf"|{CARD_CODE_LABELS}"
    r"|clave (?:de|del) (?:la )?(?:alarma|tarjeta|puerta|caja fuerte|cajero|portal)"
    rf"|(?:{LOCKS})[ -]?code|code (?:to|for|of) (?:the |my )?(?:{LOCKS}|house)"
    r"|codice (?:del|della|dell') ?(?:cancello|portone|allarme|garage|cassaforte|porta)"
    r"|c[óo]digo (?:de la|del|da|do) (?:puerta|alarma|portón|portão|alarme|garaje|garagem|portal)"
    r"|kod (?:do|od) (?:drzwi|domofonu|bramy|furtki|sejfu|alarmu|klatki)"
    r"|code (?:de la|du|de l') ?(?:porte|alarme|portail|garage|immeuble)"
    r"|код (?:от|к|для) (?:домофона|двери|подъезда|сейфа|замка|сигнализации)"
)
KEY_LABELS = (
    r"(?:api|access|secret|private|client|secret access|app|application)[ _-]?"
    r"(?:keys?|secrets?|tokens?)"
    r"|(?:auth|bearer|refresh|session|secret)[ _-]?tokens?|tokens?|jeton(?: d'acc[èe]s)?"
    r"|токен|令牌|トークン|토큰"
    r"|clave(?: de (?:api|acceso))?|cl[ée](?: (?:api|secr[èe]te|d'acc[èe]s))?"
    r"|chiave(?: (?:api|segreta))?|chave(?![ \t]+(?:pix|secreta)\b)(?: de (?:api|acesso))?"
    r"|(?:api-|geheim)schl[üu]ssel|(?:api-)?sleutel|zugangstoken"
    r"|klucz(?: api)?|(?:api-)?ключ|密钥|秘密鍵|api ?キー|api ?키"
    # configuration names: db_password, smtp_pass, pw, pass (a made-up value only)
    r"|[a-z0-9]+_(?:password|passwd|pass|pwd|pw|secret|token|key)|pw|pass|passw|psw|p/w|psk"
    r"|requirepass"
    r"|masterauth|auth|(?:admin|master|search|admin api) key"
    r"|(?:totp|otp|2fa|mfa)[ _-]?(?:secret|seed|key)|(?:backup|recovery) codes?"
    r"|creds|credentials|credenciales|credenziali|credenciais|identifiants|zugangsdaten"
    r"|(?:shared |signing |webhook |client )?secrets?"
)
# Any other key or secret ("encryption key", "Mailgun key") takes a long made-up value only.
# (not a public key, even when the label starts at "key")
# The word before "key" is bounded (a longer one is no key's name): a run of word characters
# and hyphens is otherwise read to its end from each of its starts, quadratic in its length.
# It starts where its run of hyphenated words does, or right after the run's "public-" (no
# key's name starts so; "publication" is another word): from each word of "a-b-c-...-secret",
# each label found was judged again, value and all (found by review: 2.6 s at 4,000
# characters), and the run's "public-" hid the label after it (found by the next review).
LONG_KEY_LABELS = (
    r"(?<!public )(?<!pub )(?:(?:(?<!-)|(?<=\bpublic-)|(?<=\bpub-))(?!public(?![a-z])|pub\b)"
    r"[\w-]{1,128}[ _-])?(?:keys?|secrets?)"
)
# Words that may start what stands between a label and its connector: whose or what for it
# is ("password for the NAS", "PIN de la tarjeta", "пароль от почты"). Other words make the
# label part of another subject ("password manager is Bitwarden", "token limit is 128k").
# Other words that may stand there: what the password is for, or when ("password wifi:",
# "Mot de passe gmail :", "The password here is", "password (new):").
SUBJECTS = {
    "wifi", "wi-fi", "wlan", "gmail", "email", "e-mail", "mail", "netflix", "router", "nas",
    "laptop", "phone", "bank", "vpn", "ssh", "ftp", "server", "admin", "root", "home", "work",
    "office", "account", "here", "now", "currently", "again", "also", "too", "new", "old",
    "temporary", "current", "initial",
    # Russian names what a PIN is for in the genitive, without a preposition: "пин-код карты"
    "карты", "карточки", "телефона", "сим-карты", "симки", "сейфа", "домофона", "подъезда",
    "двери", "замка", "сигнализации", "банкомата", "ноутбука", "компьютера", "роутера",
}  # fmt: skip
# Which one, after the noun in Spanish, French, Italian, Portuguese and German, right before
# the connector only (found by review: "Contraseña nueva: Flamenco#2025" passed where "New
# password:" was refused; taken as any filler, "El PIN nuevo caduca en 2026" was refused).
ADJECTIVES = {
    "nueva", "nuevo", "actual", "temporal", "provisional", "antigua", "antiguo",
    "actualizada", "definitiva", "por defecto", "nouveau", "nouvelle", "actuel", "actuelle",
    "provisoire", "temporaire", "ancien", "ancienne", "nuova", "nuovo", "attuale",
    "temporanea", "temporaneo", "provvisoria", "provvisorio", "vecchia", "nova", "novo",
    "atual", "atualizada", "antiga", "antigo", "provisória", "temporária", "neu", "neues",
    "alt", "altes", "aktuell", "vorläufig",
}  # fmt: skip
OWNERS = {
    "for", "of", "to", "at", "on", "from", "de", "del", "della", "dello", "dell'", "do", "da",
    "das", "dos", "du", "des", "di", "für", "fürs", "von", "vom", "van", "voor", "pour", "para",
    "per", "od", "dla", "w", "от", "для", "к", "в", "na", "al", "au", "aux", "zum", "zur",
    "im", "in", "op", "bei", "auf", "till", "för", "på", "my", "our", "his", "her", "mein",
    "meine", "meiner", "meines", "unserer", "mi", "mon", "ma", "mes", "mio", "mia", "meu",
    "minha", "mijn", "mój", "moja", "мой", "моя",
    "του", "της", "של", "của", "lui", "dari", "الخاصة",
}  # fmt: skip
# Latin and Cyrillic labels are whole words; Chinese, Japanese and Korean ones stand in a
# run of letters without spaces ("我的密码是", "비밀번호는").
WORD_START = r"(?:(?<!\w)|(?=[\u3000-\uffff])|(?<=[\u3000-\uffff]))"
# A Latin label may also end right before a CJK character ("PINは4821", "password是...":
# found by review).
WORD_END = r"(?:(?<=[\u3000-\uffff])|(?!\w)|(?=[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]))"


VALUE_CHAR = "[^\\s\"'`\u201d»」』】]"  # what a value is: up to a space or a closing quote
MAX_VALUE_CHARS = 128
"""The most of a value a label's match reads (a longer token's format finds it): a longer run
(Chinese or Japanese text, which has no spaces, after a password) is judged by its start.
Unbounded, each label in a run without spaces ("pw:" or "密码是" repeated) read the run to
its end, quadratic in its length (found by review); a value had to end within the bound,
and a password followed by a paragraph of Chinese passed (found by the next review); at
512, a run of labels took 0.5 s at 4,000 characters (the review after)."""


def labelled(least_filler: int) -> re.Pattern[str]:
    """A label, at least ``least_filler`` words of filler, a connector and a value."""
    filler = rf"(?:[ \t]+[^\s.,;!?:=]+){{{least_filler},8}}?"
    return re.compile(
        rf"{WORD_START}(?:(?P<password>{PASSWORD_LABELS})|(?P<pin>{PIN_LABELS})|(?P<login>login)"
        rf"|(?P<key>{KEY_LABELS})|(?P<long_key>{LONG_KEY_LABELS})){WORD_END}"
        rf"(?:(?P<filler>{filler})(?:{CONNECTOR})"
        rf"|(?P<filler_digits>{filler})(?P<digits>[ \t]+)(?=[0-9][0-9-]{{2,14}}(?:$|[\s,.;!?]))"
        r"|(?P<comma>[ \t]*,[ \t]*)|(?P<bare>[ \t]+))"
        rf"[\"'`\u201c«「『【]?(?P<value>{VALUE_CHAR}{{1,{MAX_VALUE_CHARS}}})"
        r"(?=(?P<after>[ \t]*\S?))"
        # "diego.m / Roble!Verde84": a login, then its password
        rf"(?:[ \t]*[/|][ \t]*(?P<second>\S{{1,{MAX_VALUE_CHARS}}}))?",
        re.IGNORECASE,
    )


LABELLED = labelled(0)
# With words before the connector, for a refused first match ("password to my laptop is x")
FILLED = labelled(1)
LABEL_WORD = re.compile(PASSWORD_LABELS, re.IGNORECASE)
LONG_KEY_CHARS = 16
# Labels also used of anything kept hidden: their value must end the clause, or be strong.
WORDY_KEYS = {"secret", "secrets"}
# A closing quote ends a quoted value; not a corner bracket ("「qwerty」のような": review)
CLAUSE_ENDS = set(".,;!?)\"'`\u201d»")
# The other order: "use Kx9!mPq2vL as the password", "Kx9!mPq2vL is my password".
# What may follow the label of the other order: the clause's end, or a word that starts
# another part of it ("... is the wifi password at home"); "Argon2 is the recommended
# password hashing algorithm" and "1Password is my password manager" name no password.
LABEL_ENDS = (
    r"(?=[ \t]*(?:$|[.,;!?)]|(?:for|at|on|in|to|of|from|with|when|if|so|and|but|now|too"
    r"|here|there)\b))"
)
REVERSED = re.compile(
    r"(?<!\S)[\"'`]?(?P<value>\S+?)[\"'`]?\s+(?:as|is)\s+(?:the|my|our|his|her)\s+"
    rf"(?:[\w-]+\s+)?(?:password|passcode|passphrase|pin){LABEL_ENDS}",
    re.IGNORECASE,
)


# Google's app passwords as Google shows them: four groups of four lowercase letters, after a
# label saying so ("gmail app password is qwer tyui asdf ghjk": found by review).
APP_PASSWORD = re.compile(
    r"app[ -]?(?:password|passwort|contraseña|mot de passe)"
    r"(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|es|ist|est|was|era|war)[ \t]+)"
    r"[a-z]{4}([ -])[a-z]{4}\1[a-z]{4}\1[a-z]{4}(?=[ \t]*(?:$|[.,;!?)]))",
    re.IGNORECASE,
)


def label_kind(text: str) -> str | None:
    """``labelled credential`` when a label in ``text`` names a value that passes its kind's
    rule, else None."""
    text = without_emphasis(text)
    if APP_PASSWORD.search(text):
        return "labelled credential"
    start = 0
    while (found := LABELLED.search(text, start)) is not None:
        filled = FILLED.match(text, found.start())
        for match in (found, *([filled] if filled else [])):
            if any(accepted(match, value) for value in candidates(match)):
                return "labelled credential"
        start = found.start() + 1  # a refused match may hide a later label inside it
    if any(values.made_up(found["value"]) for found in REVERSED.finditer(text)):
        return "labelled credential"
    return None


def card_code(found: re.Match[str], value: str) -> bool:
    """Whether ``value`` after a card code's label is one: a test card's is not, nor a year
    (:data:`CVV`), nor a count of something (:func:`code_ends`)."""
    text, start = found.string, found.start()
    tested = noted_as_test(text, start) or follows_test_card(text, start)
    return not tested and CVV.match(value) is not None and code_ends(found)


def code_ends(found: re.Match[str]) -> bool:
    """Whether the value after a card code's label is no count of something (:data:`COUNTED`:
    "CVC 300 attendees", "cvc 500 ml": found by review); any other word may follow a code
    ("CVV 123 exp 12/27", "CVV 123 Visa", "is 123 but he forgets it")."""
    after = NEXT_WORD.match(found.string, found.end("value"))
    return after is None or after[1].casefold() not in COUNTED


def candidates(found: re.Match[str]) -> list[str]:
    """The values a label's match names: after a login, only its second ("my login is
    diego.m / Roble!Verde84"), since the first is a user name ("Login: diego.m2")."""
    names = ("second",) if found["login"] else ("value", "second")
    return [found[name] for name in names if found[name]]


def accepted(found: re.Match[str], value: str) -> bool:
    """Whether ``value``, after the label of ``found``, passes the label kind's rule. Without
    a connector ("password Qu4rtz-77", a .netrc line) only a made-up value or a PIN counts.
    A label is no value ("Passwort: Passwort")."""
    if LABEL_WORD.fullmatch(values.clean(value)) or names_no_credential(found):
        return False
    after = found["after"].strip()
    ends = not after or after in CLAUSE_ENDS or value[-1:] in CLAUSE_ENDS
    ends = ends or connectors.clause_closed(found)  # "パスワードは himawari です"
    ends = ends and not connectors.possessive(found)  # "password is Movistar's default"
    if CARD_CODE.fullmatch(found["pin"] or ""):
        return card_code(found, value)
    filler = (found["filler"] or found["filler_digits"] or "").split()
    # Italian and French elide an article into the next word: "dell'email", "de l'ordinateur"
    first = filler[0].strip("()").casefold() if filler else ""
    first = first[: first.index("'") + 1] if "'" in first[:-1] else first
    which = " ".join(filler).casefold() in ADJECTIVES and found["filler"] is not None
    if another_thing(found, first, value):
        return False
    if filler and not which and first not in OWNERS | SUBJECTS and not filler[0][:1].isupper():
        return False  # a brand may stand there too: "mot de passe Gmail c'est ..."
    if found["digits"] is not None:  # "пин-код от карты 9027", "현관 비밀번호 7392"
        return bool(found["pin"] or (found["password"] and not filler)) and values.pin(value)
    if found["comma"] is not None:  # "Diego's debit card PIN, 4819"
        return bool(found["pin"]) and values.pin(value)
    if found["pin"]:
        return values.pin(value) or values.made_up(value)
    if found["password"]:
        return password(found, value, ends)
    # Without a connector, only a long one: "api-key 4b7e2a9c...", not "token 2023"; an
    # arrow maps a word to a service ("auth → OAuth2"), not to a key.
    if found["arrow"] is not None:
        return False
    long = len(values.clean(value)) >= LONG_KEY_CHARS
    if found["long_key"]:
        return values.made_up(value) and long
    if (found["key"] or "").casefold() in WORDY_KEYS and not (ends or values.strong(value)):
        return False  # "secret: BTS2024 concert tickets" (found by review)
    return values.made_up(value) and (found["bare"] is None or long)


def password(found: re.Match[str], value: str, ends: bool) -> bool:
    """Whether ``value`` after a password label is a password: made up, digits, or, after a
    real connector ("password: swordfish", not "password to connect", "password →
    Bitwarden", nor an unquoted declaration's type), a word of letters that ends the clause
    (``ends``), or, assigned, a quoted phrase made up of words ("my dog rex 2019")."""
    stated = found["bare"] is None and not connectors.weak(found)
    spelled = stated and values.passphrase(value, ends, stated=found["verb"] is not None)
    spelled = spelled and not declarations.declared_type(found.string, found.start(), value)
    phrase = values.quoted_phrase(found.string, found.start("value"))
    worded = connectors.assigned(found) and phrase is not None and values.spoken(phrase)
    return values.made_up(value) or values.pin(value) or spelled or worded
