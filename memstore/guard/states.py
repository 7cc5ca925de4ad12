"""Words that say something about a password instead of being one: "Password: required",
"Passwort: vergessen", "la contraseña es incorrecta", "hasło: zablokowane".

A password of letters only ("swordfish", "Tulpe", "подсолнух") is told from such a word by
this list, in the guard's languages, and by the endings their participles and adjectives
share ("outdated", "guessable", "bloqueada", "sconosciuta", "oublié", "zablokowane",
"заблокирован"). Words are compared folded: case and accents dropped.
"""

from __future__ import annotations

import re
import unicodedata

STATES = {
    # English
    "required", "optional", "expired", "forgotten", "changed", "reset", "unknown", "missing",
    "invalid", "incorrect", "correct", "wrong", "strong", "temporary", "default", "stored",
    "saved", "encrypted", "hashed", "protected", "disabled", "enabled", "pending", "revoked",
    "rotated", "compromised", "leaked", "stolen", "shared", "private", "personal", "different",
    "mandatory", "needed", "something", "anything", "nothing", "everything", "somewhere",
    "elsewhere", "written", "managed", "secure", "insecure", "unchanged", "updated", "deleted",
    "blocked", "locked", "unlocked", "visible", "sensitive", "confidential", "obvious",
    "simple", "complicated", "complex", "useless", "weak", "secret", "hidden", "unique",
    "memorable", "random", "long", "reused", "changing", "expiring", "working", "accepted",
    "rejected", "lowercase", "uppercase", "blank", "empty", "short", "valid", "fixed",
    "known", "unset", "lost", "new", "old", "same", "fine", "okay", "easy", "hard",
    "broken", "case-sensitive", "sent", "set", "gone", "there", "here", "forgot",
    # what a form asks to do, after a label (found by review: "Passwort neu: anfordern")
    "introducir", "repetir", "confirmar", "escribir", "ingresar", "saisir", "confirmer",
    "entrer", "inserire", "confermare", "ripetere", "digitar", "inserir", "eingeben",
    "wiederholen", "setzen", "anfordern", "ausstehend", "caduco", "expirou", "pendente",
    # a setting's values (found by review: "save_password: always")
    "always", "never", "ask", "auto", "null", "true", "false", "strict", "toggle", "request",
    "generate",
    # Spanish
    "olvidada", "requerida", "obligatoria", "caducada", "incorrecta", "correcta", "cambiada",
    "necesaria", "secreta", "segura", "seguro", "desconocida", "bloqueada", "vencida",
    "pendiente", "perdida", "nueva", "vieja", "temporal", "debil", "fuerte", "larga", "corta",
    "distinta", "diferente", "valida", "invalida", "robada", "compartida", "vacia", "igual",
    # French
    "requis", "requise", "obligatoire", "expire", "expiree", "oublie", "oubliee", "inconnu",
    "inconnue", "bloque", "bloquee", "perdu", "perdue", "incorrecte", "correcte",
    "nouveau", "nouvelle", "temporaire", "change", "changee", "modifie", "modifiee", "faible",
    "fort", "forte", "vide", "invalide", "valide", "secrete", "securise", "securisee",
    "differente", "identique",
    # German
    "vergessen", "erforderlich", "abgelaufen", "falsch", "geheim", "notwendig", "benotigt",
    "unbekannt", "gesperrt", "richtig", "korrekt", "neu", "alt", "geandert", "sicher",
    "unsicher", "schwach", "stark", "leer", "ungultig", "gultig", "verloren", "zuruckgesetzt",
    "temporar", "vorubergehend", "anders", "gleich", "verschlusselt", "gespeichert",
    # Italian
    "sicura", "sicuro", "dimenticata", "obbligatoria", "scaduta", "scaduto", "sbagliata",
    "cambiata", "richiesta", "segreta", "sconosciuta", "bloccata", "corretta", "nuova",
    "vecchia", "temporanea", "modificata", "persa", "debole", "vuota", "diversa", "uguale",
    # Portuguese
    "esquecida", "obrigatoria", "expirada", "errada", "alterada", "necessaria", "incorreta",
    "correta", "antiga", "temporaria", "fraca", "vazia", "desconhecida", "trocada",
    # Dutch
    "veilig", "vergeten", "verplicht", "verlopen", "onjuist", "juist", "gewijzigd", "vereist",
    "onbekend", "geblokkeerd", "fout", "nieuw", "oud", "tijdelijk", "zwak", "sterk", "leeg",
    "ongeldig", "geldig", "kwijt", "hetzelfde",
    # Polish
    "bezpieczne", "wymagane", "wymagany", "zapomniane", "wygasło", "niepoprawne", "zmienione",
    "tajne", "nieznane", "zablokowane", "poprawne", "błędne", "nowe", "stare", "tymczasowe",
    "słabe", "silne", "puste", "nieważne", "ważne", "zgubione", "inne",
    # Russian
    "неизвестен", "неизвестно", "заблокирован", "забыт", "забыл", "забыла", "истек",
    "неверный", "неправильный", "правильный", "верный", "новый", "старый", "временный",
    "обязательный", "изменен", "слабый", "сильный", "секретный", "надежный", "пустой",
    "недействителен", "утерян", "потерян", "сброшен", "другой", "тот", "такой",
    "отсутствует", "подходит", "работает", "нет",
    # Said of a password in any of them (found by review: "La contraseña es única", "Das
    # Passwort ist lächerlich", "Пароль: короткий", "The wifi password is upstairs")
    "upstairs", "downstairs", "inside", "outside", "attached", "below", "above", "ready",
    "ridiculous", "terrible", "awful", "silly", "stupid", "funny", "crazy", "cute", "great",
    "perfect", "good", "bad", "nice", "cool", "fake", "real", "right", "english", "spanish",
    "french", "german", "italian", "russian", "chinese", "japanese", "foolish", "childish",
    "ninguna", "ninguno", "nada", "facil", "dificil", "buena", "mala", "genial",
    "nenhuma", "nenhum", "nulle", "aucun", "aucune", "normal", "banal", "keins",
    "keines", "einfach", "schwer", "nessuna", "nessuno", "facile", "difficile", "niente",
    "makkelijk", "moeilijk", "geen", "niks", "łatwe", "łatwy", "trudne", "trudny", "proste",
    "prosty", "żadne", "żadnego", "dobre", "brak", "svart", "enkelt", "latt", "fel", "ratt",
    "inget", "λαθος", "σωστος", "σωστο", "απλος", "שגויה", "נכונה", "חזקה", "חלשה", "ארוכה",
    "קצרה", "yanlış", "doğru", "güçlü", "zayıf", "yok", "gerekli", "unutuldu", "değişti",  # noqa: RUF001
    "vaikea", "helppo", "misma", "mismo", "stessa", "stesso", "même", "mesma", "mesmo",
    "gleiche", "selbe", "única", "único", "короткий", "лёгкий", "легкий", "простой",
    "плохой", "хороший", "тупой", "смешной", "никакой", "annoying", "embarrassing",
    "confusing", "amazing", "boring", "frustrating", "veraltet", "bekannt", "unbrauchbar",
    "irgendwo", "ridícula", "ridículo", "estúpida", "inútil", "pésima", "antigua", "ridicule",
    "pourri", "dangereux", "устарел", "сменить", "поменяли", "ridicola", "orribile",
    "péssima", "vervelend", "śmieszne", "głupie", "długie", "beznadziejne", "problema",
    "nombre", "habitual", "anterior",
    # what a rule makes it, or how much it matters, in the twelve languages (found by
    # review: "The password is compulsory", "Das Passwort ist Pflicht", "Hasło jest
    # obowiązkowe" were refused)
    "compulsory", "obligatory", "essential", "necessary", "important", "unimportant",
    "irrelevant", "nonsense", "gibberish", "rubbish", "overkill", "plaintext",
    "nowhere", "importante", "sencilla", "sencillo", "obligatorio", "opcional", "idéntica",
    "idéntico", "personnel", "personnelle", "facultatif", "facultative", "optionnel",
    "optionnelle", "semplice", "identica", "identico", "personale", "facoltativa",
    "facoltativo", "opzionale", "simples", "pessoal", "idêntica", "idêntico", "belangrijk",
    "onbelangrijk", "optioneel", "ingewikkeld", "persoonlijk", "wichtig", "unwichtig",
    "kompliziert", "dasselbe", "unsinn", "quatsch", "privatsache", "chefsache", "pflicht",
    "persönlich", "prawidłowe", "nieprawidłowe", "identyczne", "niebezpieczne", "osobiste",
    "opcjonalne", "niezbędne", "konieczne", "prywatne", "obowiązkowe", "обязательно",
    "необязательно", "важно", "личный", "лишний",
    # comparing it ("his password should be longer", "Das Passwort ist jetzt besser",
    # "Пароль будет завтра": found by review)
    "besser", "länger", "kürzer", "sicherer", "stärker", "schwächer", "einfacher",
    "schwieriger", "schwierig", "leichter", "mejor", "peor", "meilleur", "migliore",
    "peggiore", "melhor", "pior", "завтра", "сегодня", "потом", "позже", "comply", "notset",
    # what a password is set or reset to that is no password ("The password was reset to
    # factory", "changed to numeric": found by review)
    "factory", "defaults", "initial", "original", "numeric", "manual", "automatic",
    "permanent", "monthly", "weekly", "yearly", "daily", "biometrics", "passkeys", "passkey",
    "unicode", "conform", "autogenerate", "autogenerated", "generated", "standard", "none",
    "longer", "shorter", "stronger", "weaker", "harder", "easier", "safer", "better", "worse",
    "simpler", "longest", "strongest", "weakest", "safest", "best", "worst",
}  # fmt: skip
# The endings of participles and adjectives of state, by the scripts that write them. Latin:
# English -ed and -able/-ible, Spanish and Portuguese -ada/-ado/-ida/-ido, Italian
# -ata/-ato/-uta/-uto, French -é(e)(s) (kept before folding), Polish -ane/-one/-ony/-any;
# Cyrillic: Russian short and long participles (-ан, -ен, -ный, -ная).
STATE_ENDINGS = re.compile(
    r"(?:[a-z]{3}ed|[a-z]{3}[ai]ble|[a-z]{2}(?:ada|ado|ida|ido|ata|ato|uta|uto)"
    r"|[a-zà-ÿ]{2}(?:é|ée|és|ées)|[a-ząćęłńóśźż]{3}(?:ane|one|ony|any)"
    r"|[а-яё]{3}(?:ан|ен|ян|ный|ная|ное|нный|нная))$"  # noqa: RUF001
)
# Then, for a word written in lowercase only (a password is often capitalised: "Fearless",
# "Monica", German nouns), the endings of adjectives (found by review): English
# -ous/-less/-ful, Spanish and Portuguese superlatives and -ável/-ível, German -lich/-isch and
# ge-...-t participles ("gelöscht"), Dutch -lijk, Russian long adjectives ("сложный") and
# verbs ("отсутствует").
LOWERCASE_ENDINGS = re.compile(
    r"(?:[a-z]{3}(?:ous|less|ful)|[a-zà-ÿ]{2}(?:[ií]ssim[ao]|ísim[ao]|[áí]vel)"
    r"|[a-zäöüß]{3}(?:lich|isch)|ge[a-zäöüß]{3,}t|[a-z]{3}lijk"
    r"|[а-яё]{3}(?:ый|ая|ое|ые|ым|им|ее|ует|ает|яет))$"  # noqa: RUF001
)


def fold(word: str) -> str:
    """``word`` without case and accents ("Gänseblümchen" to "ganseblumchen", Russian
    "ё" to "е")."""  # noqa: RUF002
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


FOLDED_STATES = frozenset(map(fold, STATES))


def is_state(word: str) -> bool:
    """Whether ``word`` (letters only) says something about a password rather than being one."""
    if fold(word) in FOLDED_STATES or STATE_ENDINGS.search(word.casefold()) is not None:
        return True
    return word.islower() and LOWERCASE_ENDINGS.search(word) is not None
