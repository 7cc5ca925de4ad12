"""The credential guard: formats via detect-secrets, labelled credentials in six languages,
and no false positives on real dialogue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memstore import MemoryService, SecretRejected
from memstore.guard import secret_kind

# Each value is built from pieces so that this file itself does not look like a leak.
FORMATS = {
    "AWS Access Key": "AKIA" + "IOSFODNN7EXAMPLE",
    "GitHub Token": "ghp_" + "0123456789abcdefghijklmnopqrstuvwxyzAB",
    "GitLab Token": "glpat-" + "abcdefghij0123456789",
    "Slack Token": "xoxb-" + "123456789012-1234567890123-abcdefghijABCDEFGHIJklmn",
    "Stripe Access Key": "sk_live_" + "abcdefghijklmnopqrstuvwx",
    "JSON Web Token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "Private Key": "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEow...",
    "OpenSSH Private Key": "-----BEGIN OPENSSH " + "PRIVATE KEY-----",
    "npm token": "//registry.npmjs.org/:_authToken=" + "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "PyPI Token": "pypi-AgEIcHlwaS5vcmc" + "A" * 80,
    "SendGrid API Key": "SG."
    + "abcdefghijklmnopqrstuv"
    + "."
    + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
    "Twilio API Key": "SK" + "0123456789abcdef0123456789abcdef",
    "Mailchimp Access Key": "0123456789abcdef0123456789abcdef" + "-us12",
    "Basic Auth Credentials": "https://diego:" + "s3cretpass@example.com/repo",
    "Discord Bot Token": "MTk4NjIyNDgzNDcxOTI1MjQ4" + ".Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
    "Telegram Bot Token": "110201543:" + "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq",
    "Square OAuth Secret": "sq0csp-" + "0123456789abcdefghijklmnopqrstuvwxyzABCDEFG",
    "Azure Storage key": "AccountKey="
    + "lJzRc1YdHaAA2KCNJJ1tkYwF/+mKK6Ygw0NGe170Xu592euJv2wYUtBlV8z+qnlcNQSnIYVTkLWntUO1F8j8rQ==",
    "Artifactory": "artifactory token AKCp"
    + "5bueTFpfypEqQbGJPp7BHm5BamtWlMFbEuOWiL3Rp8wHW1dXxpGnwi8Z9gksXnQgeyJjg5xj",
    "OpenAI Token": "sk-" + "abcdefghij1234567890" + "T3BlbkFJ" + "abcdefghij1234567890",
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
]
CLEAN = [
    "Diego forgot his password yesterday and had to reset it.",
    "The password is required to log in.",
    "La clave es practicar todos los días.",
    "He said the password was easy, but it wasn't.",
    "Diego prefers answers in Spanish.",
    "Diego's dog is called Rudiger.",
    "Il mot de passe? Je ne m'en souviens plus.",
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
