"""The credential guard for explicit memory writes.

Recognisable token and private-key formats are found by the detectors of the detect-secrets
library; memstore adds only what it lacks: credential labels followed by a value, in English,
Spanish, French, German, Italian and Portuguese ("my password is hunter2", "contraseña:
perro123", "mot de passe = ..."). This is a heuristic, not a complete secret scanner. The
error names the kind found, never the value, and the value is never logged.
"""

from __future__ import annotations

import re

from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.cloudant import CloudantDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.ibm_cloud_iam import IbmCloudIamDetector
from detect_secrets.plugins.ibm_cos_hmac import IbmCosHmacDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.softlayer import SoftlayerDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from memstore.errors import SecretRejected

FORMAT_DETECTORS: tuple[RegexBasedDetector, ...] = tuple(
    detector()
    for detector in (
        ArtifactoryDetector,
        AWSKeyDetector,
        AzureStorageKeyDetector,
        BasicAuthDetector,
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
        PrivateKeyDetector,
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

LABELS = (
    # English
    r"passwords?|passwd|pwd|passcode|passphrase|pin(?:\s+code)?|api[\s_-]?key|access[\s_-]?key"
    r"|secret[\s_-]?key|client[\s_-]?secret|(?:access|auth|bearer|api)[\s_-]?token|private[\s_-]?key"
    # Spanish
    r"|contrase[ñn]a|clave(?:\s+de\s+(?:acceso|api|wifi|red))?|c[óo]digo\s+secreto|pin"
    # French
    r"|mot\s+de\s+passe|mdp|cl[ée]\s+(?:api|secr[èe]te|d'acc[èe]s)|code\s+secret|jeton(?:\s+d'acc[èe]s)?"
    # German
    r"|passwort|kennwort|zugangscode|geheimzahl|api[\s-]?schl[üu]ssel|zugangsschl[üu]ssel"
    # Italian
    r"|parola\s+d'ordine|chiave\s+(?:api|segreta|d'accesso)|codice\s+segreto"
    # Portuguese
    r"|senha|palavra[\s-]passe|chave\s+(?:de\s+)?(?:api|acesso|secreta)|c[óo]digo\s+secreto"
)
# An owner may stand between label and value ("la contraseña de Diego es ...").
# "password: x" / "password = x" take any value of 4+ characters; after a verb ("is", "es",
# "est", "ist", "lautet", "è", "é", ...) only a value that looks made up: it holds a digit or
# a symbol once trailing punctuation is dropped ("the password is required." is prose).
LABELLED = re.compile(
    rf"\b(?:{LABELS})(?:\s+(?:of|de|del|di|do|da|du|von|vom)\s+\S+)?"
    r"(?:\s*(?P<sign>[:=])|\s+(?:is|was|es|era|est|ist|lautet|war|è|é|sono|são)\s)"
    r"\s*[\"'`]?(?P<value>[^\s\"'`]+)",
    re.IGNORECASE,
)
TRAILING_PUNCTUATION = ".,;:!?)]}>»"
MIN_VALUE_CHARS = 4


def looks_like_value(value: str, assigned: bool) -> bool:
    """Whether the text after a credential label looks like a credential itself."""
    value = value.rstrip(TRAILING_PUNCTUATION)
    if len(value) < MIN_VALUE_CHARS:
        return False
    return assigned or any(char.isdigit() or not char.isalnum() for char in value)


def secret_kind(content: str) -> str | None:
    """The kind of credential ``content`` seems to hold ("AWS Access Key", "labelled
    credential"), or None when it looks clean."""
    for detector in FORMAT_DETECTORS:
        if any(True for _ in detector.analyze_string(content)):
            return str(detector.secret_type)
    for match in LABELLED.finditer(content):
        if looks_like_value(match.group("value"), assigned=match.group("sign") is not None):
            return "labelled credential"
    return None


def reject_secrets(content: str) -> None:
    """Raise :class:`SecretRejected` when ``content`` seems to hold a credential.

    Raises:
        SecretRejected: Naming the kind found, never the value.
    """
    kind = secret_kind(content)
    if kind is not None:
        raise SecretRejected(
            f"content looks like it holds a credential ({kind}); nothing was stored. "
            "Keep secrets in a password manager, not in memories."
        )
