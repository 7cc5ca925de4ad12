"""Token formats detect-secrets does not know, by kind: each provider's own prefix and
shape, and private key blocks that hold a key (:mod:`memstore.guard.formats` reads them)."""

from __future__ import annotations

# Prefixed tokens detect-secrets does not know (each prefix is the provider's own).
TOKENS = {
    "AWS temporary access key": r"\bASIA[0-9A-Z]{16}\b",
    "AWS secret access key": r"aws_secret_access_key\s*[=:]\s*[\"']?[A-Za-z0-9/+]{40}",
    "Azure SAS signature": r"[?&]sig=[A-Za-z0-9%/+=]{20,}",
    "Google API key": r"\bAIza[0-9A-Za-z_-]{35}",
    "Google OAuth client secret": r"\bGOCSPX-[A-Za-z0-9_-]{20,}",
    "GitHub fine-grained token": r"\bgithub_pat_[A-Za-z0-9_]{50,}",
    "GitHub token": r"\bgh[pousr]_[A-Za-z0-9]{30,}",
    "OpenAI key": r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}",
    "OpenRouter key": r"\bsk-or-v1-[0-9a-f]{64}",
    "ElevenLabs key": r"\bsk_[0-9a-f]{48}\b",
    "Heroku key": r"\bHRKU-[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}",
    "Databricks token": r"\bdapi[0-9a-f]{32}",
    "LangSmith key": r"\blsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}",
    "Mapbox secret token": r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
    "Alibaba Cloud key": r"\bLTAI[A-Za-z0-9]{12,20}\b",
    "Anthropic key": r"\bsk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{20,}",
    "API secret key": r"\bsk-[A-Za-z0-9]{32,}",
    "Hugging Face token": r"\bhf_[A-Za-z0-9]{30,}",
    "npm token": r"\bnpm_[A-Za-z0-9]{36}",
    "Docker token": r"\bdckr_pat_[A-Za-z0-9_-]{20,}",
    "Replicate token": r"\br8_[A-Za-z0-9]{30,}",
    "Groq key": r"\bgsk_[A-Za-z0-9]{40,}",
    "Mailgun key": r"\bkey-(?=[0-9a-z]*\d)[0-9a-z]{32}\b",  # any letter (found by review)
    "Shopify token": r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
    "DigitalOcean token": r"\bdo[opr]_v1_[a-f0-9]{64}",
    "Slack webhook": r"hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}",
    "Discord webhook": r"discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{30,}",
    "Sentry DSN": r"\bhttps?://[0-9a-f]{32}(?::[0-9a-f]{32})?@[\w.-]*sentry\.io/\d+",
    "Square access token": r"\bEAAA[A-Za-z0-9_-]{50,}|\bsq0atp-[A-Za-z0-9_-]{22,}",
    "Google OAuth access token": r"\bya29\.[A-Za-z0-9_-]{20,}",
    "Slack app token": r"\bxapp-\d-[A-Za-z0-9-]{20,}",
    "RubyGems key": r"\brubygems_[0-9a-f]{48}",
    "NuGet key": r"\boy2[a-z0-9]{43}\b",
    "New Relic key": r"\bNR(?:AK|AA|II)-[A-Z0-9]{20,}",
    "Postman key": r"\bPMAK-[0-9a-f]{24}-[0-9a-f]{34}",
    "age secret key": r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,}",
    "Terraform Cloud token": r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}",
    "Notion or Linear key": r"\b(?:secret|lin_api)_[A-Za-z0-9]{40,}",
    "Slack token": r"\bxox[abposr]-[A-Za-z0-9-]{20,}",
    "HashiCorp Vault token": r"\bhv[sb]\.[A-Za-z0-9_-]{24,}",
    "Telegram bot token": r"/bot\d{6,}:[A-Za-z0-9_-]{30,}",
    # A key block holds a key: 40 base64 characters in a row after any header lines, or a
    # shorter body closed by the END line, each of its lines one run without spaces, as an
    # elided key is pasted ("MIIEpAIBAAKCAQEA..."; found by review: detect-secrets' own
    # detector flags it; then: "MIIE", "..." or an indented body passed). A BEGIN line
    # alone, or words between the two lines ("starts with -----BEGIN ... and ends with
    # -----END"), is how prose names the format (found by review). Every repetition is
    # possessive: header lines tried split at each "word: " took time doubling with each
    # (found by review: 100 characters of "a: " after a BEGIN line held the guard 30 s).
    "Private key": (
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:\s*+[A-Za-z-]++: [^\n]*+)*+\s*+(?:[A-Za-z0-9+/=]{40}"
        # one run on the BEGIN line's own line, of 8 or more base64 characters with a capital,
        # a digit, "+" or "/" among its first 8 (not a word of prose: "between -----BEGIN
        # ... and -----END"; found by review)
        r"|(?=[a-z=]{0,7}[A-Z0-9+/])[A-Za-z0-9+/=]{8}[^\s-]{0,4000}+[ \t]*+"
        r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY"
        # or lines, each one run without spaces or blank, the END line on a line of its own
        r"|[^\s-]{1,4000}+(?:[ \t]*+\r*\n[ \t]*+[^\s-]{0,4000}+)++"
        r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY)"
    ),
}
