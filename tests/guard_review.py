"""A fifth labelled corpus for the credential guard: what three reviews of the landed guard
found it got wrong (2026-12-06), data only.

The rules were then changed against it, so it is a tuning set like ``guard_corpus``, not a
check: the README gives the figures it had when it was written. Same shapes and conventions
as :mod:`tests.guard_corpus`: ``CREDENTIALS`` (format, text) each holding one credential,
``ORDINARY`` (language, text) holding none; every value is fake, and a recognisable prefix is
joined to the rest with ``+``.
"""

from __future__ import annotations

HEX32 = "2985dce32d62fde79e2e6e574d1cba25"

CREDENTIALS: list[tuple[str, str]] = [
    # environment assignments of a password of letters only
    ("env_password_word", "DB_PASSWORD=swordfish"),
    ("env_password_word", 'DB_PASSWORD="letmein"'),
    ("env_password_word", "PGPASSWORD=swordfish psql -h db -U app"),
    # passwords of capitalised words, read as type names
    ("password_camel", "Diego's email password is GreenApple12"),
    ("password_camel", "my password is Hunter2Pass"),
    ("password_camel", "password: BlueSky42Rain"),
    ("password_camel", "The router password is MonkeyBusiness7"),
    ("env_password_camel", "OPENAI_API_KEY=SuperSecretKey7"),
    # a word for what the password is for between the label and its value
    ("password_for", "password wifi: Kx9mPq2v!"),
    ("password_for", "contraseña wifi: Girasol!22"),
    ("password_for", "senha wifi: Girassol!42"),
    ("password_for", "hasło wifi: Slonce!99"),
    ("password_for", "Mot de passe gmail : Tournesol!7"),
    ("password_for", "Password netflix = Kx9mPq2v!"),
    ("password_for", "The password here is Kx9mPq2v!"),
    ("password_for", "password (new): Kx9mPq2v!"),
    ("password_for", "The password to my laptop is swordfish"),
    ("password_markdown", "**Password:** Kx9mPq2v"),
    ("pin_cyrillic", "PIN-код от карты: 3391"),
    ("pin_cyrillic", "PIN-код: 3391"),
    ("pin_cyrillic", "пин-код карты 3391"),
    # passwords of letters only, with accents or in other alphabets
    ("password_word", "Пароль: подсолнух"),
    ("password_word", "Hasło: słonecznik"),
    ("password_word", "Contraseña: cigüeña"),
    ("password_word", "Le mot de passe est éléphant"),
    ("password_word", "Passwort: Gänseblümchen"),
    ("password_word", "Passwort: Tulpe"),
    ("password_word", "A senha é coração"),
    ("password_word", "Het wachtwoord is pannenkoek"),
    # secrets and keys named by another word
    ("secret_label", "The secret is Kx9mPq2v"),
    ("secret_label", "secret: Kx9mPq2v"),
    ("secret_label", "The shared secret is Kx9mPq2v"),
    ("secret_hex", "Secret: " + HEX32),
    ("key_hex", "Diego's Mailgun key: " + HEX32),
    ("key_hex", "encryption key: " + HEX32),
    ("key_hex", "signing secret: " + HEX32),
    # random tokens next to words that usually name public ids
    ("random_token", "Diego's Stripe key for the video app is mWMBZujWSjGYsCBMlvu1FMBiirTvJwDT"),
    ("random_token", "my id is fine but the secret is zwUCFKUjcbh508CMp13MBIoeZibXD4Cy5dAA"),
    # command lines
    ("command_line", "htpasswd -b .htpasswd admin Gr33nApple"),
    ("command_line", "net use Z: \\\\srv\\share /user:diego P4ssw0rd!"),
    ("command_line", "az login -u diego@example.org -p Azur3P4ss!"),
    ("command_line", "zip -P Z1pP4ss backup.zip notes.txt"),
    ("command_line", "7z a -pArch1veP4ss backup.7z notes"),
    # a second review's (same day), all of them missed at first
    (
        "private_key_elided",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----",
    ),
    (
        "private_key_elided",
        "-----BEGIN DSA PRIVATE KEY-----\nMIIBuwIBAAKBgQD...\n-----END DSA PRIVATE KEY-----",
    ),
    ("square_access_token", "sq0atp-" + "1234567890abcdefghijkl"),
    ("google_oauth_access_token", "the access token is ya29." + "a0AfH6SMBx3kqzTq_Wd8vPq2"),
    ("slack_app_token", "xapp-1-" + "A0123456789-1234567890123-abcdef0123456789abcdef"),
    ("pin_es", "clave: 1234"),
    ("pin_es", "Mi clave es 4821"),
    # a third review's (same day), all of them missed at first
    ("password_label_de", "WLAN-Schlüssel: Sonnenblume42"),
    ("pin_it", "il codice del bancomat è 4512"),
    ("pin_es", "Mi PIN es el 4512"),
    ("pin_keypad", "The gate code is #1234"),
    ("pin_de", "Der Türcode ist 4512"),
    ("pin_de", "Zugangscode: 4512"),
    ("passphrase_words", "ssh key passphrase: blue-harbor-lantern"),
    ("password_short_label", "psw: Sunflower88"),
    ("password_short_label", "p/w: Sunflower88"),
    ("pin_en", "pass code 4512"),
    ("password_fi", "Salasanani on kissa123"),
    ("password_word", "my password's tangerine"),
    ("url_default_password", "mysql://root:root@10.0.0.5/app"),
    ("url_default_password", "postgres://postgres:postgres@db.prod.acme.com"),
    (
        "github_token_hidden",
        "g\U000e0100h\U000e0100p\U000e0100_" + "abcdefghijklmnopqrstuvwxyz0123456789AB",
    ),
]

ORDINARY: list[tuple[str, str]] = [
    # states and instructions in the guard's languages
    ("es", "La contraseña es correcta"),
    ("es", "contraseña: desconocida"),
    ("es", "contraseña: bloqueada"),
    ("es", "contraseña: vencida"),
    ("es", "contraseña: pendiente"),
    ("pt", "senha: incorreta"),
    ("pt", "senha: bloqueada"),
    ("de", "Passwort: unbekannt"),
    ("de", "Passwort: gesperrt"),
    ("de", "Das Passwort ist unbekannt"),
    ("fr", "Mot de passe : inconnu"),
    ("it", "password: sconosciuta"),
    ("it", "password: bloccata"),
    ("nl", "wachtwoord: onbekend"),
    ("nl", "Het wachtwoord is onbekend"),
    ("pl", "hasło: nieznane"),
    ("pl", "hasło: zablokowane"),
    ("en", "Password: outdated"),
    ("en", "Password: recommended"),
    ("en", "Password: misplaced"),
    ("en", "Password: lowercase"),
    ("en", "Diego's password is outdated"),
    ("en", "Diego's password is guessable"),
    # documentation URLs with default credentials
    ("en", "Start it with postgres://postgres:postgres@localhost:5432/postgres"),
    ("en", "RabbitMQ answers at amqp://guest:guest@localhost:5672/"),
    ("en", "The test database is mysql://root:root@127.0.0.1/test"),
    ("en", "The router page is http://admin:admin@192.168.1.1"),
    # ports and projects on container command lines
    ("en", "Diego runs docker run -p 8080:80 nginx"),
    ("en", "docker compose -p blog up -d"),
    ("en", "podman run -p 5432:5432 postgres"),
    # usernames, protocols, names of things
    ("en", "Diego's login is Google"),
    ("en", "Login: diego.m2"),
    ("en", "Token: ERC20"),
    ("en", "Token: ERC-721"),
    ("en", "Auth: OAuth2"),
    ("en", "AUTH_BACKEND=ldap3"),
    ("en", "network key: WPA3"),
    ("en", "PSK: WPA2-Personal"),
    ("en", "pin: requests==2.31.0"),
    ("en", "password: ENC[AES256_GCM,data:abc]"),
    ("es", "Palabras clave: 2024, jardín"),
    ("es", "La clave: paciencia"),
    # a third review's (same day), all of them refused at first: what is said of a password
    ("pt", "A senha é única."),
    ("es", "La contraseña es facilísima."),
    ("de", "Das Passwort ist lächerlich."),
    ("de", "Das Passwort ist gelöscht."),
    ("fr", "Le mot de passe est génial."),
    ("ru", "Пароль: короткий"),
    ("ru", "Пароль: отсутствует"),
    ("pl", "Hasło jest łatwe."),
    ("sv", "Lösenordet är svårt."),
    ("el", "Κωδικός: λάθος"),
    ("tr", "Şifre: yanlış"),  # noqa: RUF001
    ("en", "The wifi password is upstairs."),
    ("en", "My password is ridiculous."),
    ("nl", "Het wachtwoord is makkelijk."),
    ("es", "Contraseña: ninguna"),
    # "clave" qualifying a noun, "secret" of anything, settings and lookups
    ("es", "Dato clave: 1500 euros al mes"),
    ("es", "Fecha clave: 2025"),
    ("es", "El año clave es 1492"),
    ("en", "secret: BTS2024 concert tickets"),
    ("en", "Her secret is Covid19 never got her"),
    ("en", "PASSWORD_POLICY=strict"),
    ("en", "password = $env:DB_PASSWORD"),
    ("en", "password = %(db_password)s"),
    ("en", "DB_PASSWORD=$$POSTGRES_PASSWORD"),
]
