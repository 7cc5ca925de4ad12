"""Held-out labelled corpus for the credential guard.

This corpus was written separately from the tuning corpus and is never used to tune the
guard; it exists only as an independent check set. Every value in it is fake: each
credential was generated at random for this test with the real shape (prefix, length,
alphabet) of its format and belongs to no account anywhere.

Recognisable secret prefixes are split with ``+`` so that this file does not trip secret
scanners.

``CREDENTIALS`` holds ``(format_name, text)`` pairs, each text carrying exactly one fake
credential. ``ORDINARY`` holds ``(language_code, text)`` pairs that talk about passwords,
PINs, keys, tokens or secrets but contain none.
"""

# ruff: noqa: RUF001

from __future__ import annotations

CREDENTIALS: list[tuple[str, str]] = [
    # --- cloud providers -------------------------------------------------------------
    (
        "aws_access_key_id",
        "can you hang on to our staging AWS key id for me? it's " + "AKI" + "AKRZFL0EWT2WZHNPI",
    ),
    (
        "aws_secret_access_key",
        "[default]\nregion = eu-west-1\naws_secret_access_key = "
        + "kLhwroNQSzHQ5wiaPxzzY7lqKr/Oc+2ud4IPdeCL",
    ),
    (
        "aws_secret_access_key",
        "export AWS_SECRET_" + "ACCESS_KEY=pHVReI29+qJJZNawEK7PUK303wz/RfRiBBYZDxsv",
    ),
    (
        "aws_session_key_id",
        "temporary creds from the SSO page, key id " + "ASI" + "AP47F7844009L4ZPQ (expires 18:00)",
    ),
    (
        "gcp_service_account_json",
        '{"type": "service_account", "project_id": "orchard-analytics-311", '
        '"private_key_id": "bdfd15c58836f54fbfb62649da9eaac9fde4a745", '
        '"private_key": "-----BEGIN ' + "PRIVATE KEY-----\\n"
        "MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCLB3v84OWURHjk\\n"
        "56e8BUlajfq03Ou0XcHR/+AK3q8Tuhv1Wnu77h7yC/FWpsWG1hZyZIBsa0INkEsk\\n"
        '-----END PRIVATE KEY-----\\n", '
        '"client_email": "etl@orchard-analytics-311.iam.gserviceaccount.com"}',
    ),
    (
        "gcp_api_key",
        "Maps key for the store locator page: " + "AIz" + "aSPRYdP1fHCG4sIa5R1wVAgU215AMkuI-FGX",
    ),
    (
        "azure_storage_connection_string",
        "DefaultEndpointsProtocol=https;AccountName=fotoarchiv;AccountKey="
        + "JoghaPfBH17qSeE0q39jtpkWkBJ393JGblzqtqL/Qh9XlU0RcG9u+1gu1SnK3Ilk/"
        "MHWi/1zVaFkJLMnRnxWXA==;EndpointSuffix=core.windows.net",
    ),
    (
        "azure_client_secret",
        "remember the app registration secret for the intranet SSO: "
        + "nHI8Q~"
        + "skaPZ45-bt_JdoBSZyxF1zz-yQS1J~boor",
    ),
    (
        "digitalocean_token",
        "doctl auth init --access-token "
        + "dop_"
        + "v1_ff948854bdcd67925e03d61719f2cf1f709d669329eeb987f29e8c077890ad3c",
    ),
    (
        "heroku_api_key",
        "machine api.heroku.com\n  login ops@lantern-press.io\n  password "
        + "995f5422-1abc-4e67-8644-7dd7a6f54c52",
    ),
    (
        "vault_token",
        "VAULT_ADDR=https://vault.corp.lan:8200 VAULT_TOKEN=" + "hvs." + "U4D9sheldxD66oF3q9LWg5Ya",
    ),
    # --- code hosting and CI -----------------------------------------------------------
    (
        "github_pat_classic",
        "my GitHub token for the CLI is " + "ghp_" + "E7uj0rZ6wMZqgIeXsKP9M4yD0StgUH3kibxR"
        " — please keep it for next time",
    ),
    (
        "github_pat_classic",
        "git remote set-url origin https://dana:"
        + "ghp_"
        + "D9wxMYwC7TMq0vfzGCZ7hJxn1NdEXFtSWZB2@github.com/acme/infra.git",
    ),
    (
        "github_pat_fine_grained",
        "GH_TOKEN="
        + "github_"
        + "pat_pdPhZJ8rUvvj6baXjpUogn_5OL89XeTcuqfTQvX0Qqo6N8uAXnvKlp5gypRrz5XHZp4mV5lpHn5DaFSTnJ",
    ),
    (
        "github_oauth_token",
        "gh auth status printed: Token: " + "gho_" + "yb1iwuqsOQgFfX3GGXM1KYVfutPpAKpC7IbB",
    ),
    (
        "github_app_token",
        "the installation token the action got was "
        + "ghs_"
        + "d0wrjZRH36Qddnl6Hxrr9cpBPn7N2QtZ08sG",
    ),
    (
        "gitlab_pat",
        "curl --header 'PRIVATE-TOKEN: "
        + "glpat-"
        + "Xg_6zELpxDYkt3F1NAZa' https://gitlab.example.org/api/v4/projects",
    ),
    (
        "bitbucket_app_password",
        "Bitbucket app password for the deploy user (repo read/write): hGnhT88lxQltCPkdCRNs",
    ),
    (
        "circleci_token",
        "CIRCLECI_TOKEN=87bbb8f314836a9d37ba8a052d76f3818c88b661",
    ),
    (
        "travis_token",
        'curl -H "Travis-API-Version: 3" -H "Authorization: token TnfpuSk3Vu2hfb2IpCHqf0" '
        "https://api.travis-ci.com/user",
    ),
    (
        "docker_pat",
        "echo done; docker login -u ci-bot -p " + "dckr_" + "pat_brr9nEnwymw36BVrmnQxBAr7hrq",
    ),
    (
        "atlassian_api_token",
        "jira token for the weekly report script:\n"
        + "ATATT"
        + "3xFfGF0xRtp-niVPOzETGbA2iKihwDEGI6sdyAYykNRyQhztYUQF3wZk4ksDZ-EVmB6opTTrP_oi1BAV3"
        "jEHxJqi58xIU7QSYZ00Mmh3YCsvZUtDA2Y791uWYdl9jhcwL3LMC2t=bER50AHW",
    ),
    # --- package registries ------------------------------------------------------------
    (
        "npm_token",
        "~/.npmrc\n//registry.npmjs.org/:_authToken="
        + "npm_"
        + "PlKO3NOXpl4Gn7dPsYpwCB19JUQiSjgMcUHV",
    ),
    (
        "pypi_token",
        "[pypi]\nusername = __token__\npassword = "
        + "pypi-"
        + "AgEIcHlwaS5vcmcRD55qIkqH6b1Q9dv4OsZOnF2MzBKz-VqmuhQUtg3prUkMJIeDkZS_z0fwT9U",
    ),
    (
        "rubygems_api_key",
        "---\n:rubygems_api_key: "
        + "rubygems_"
        + "f5e4826df615b4218e3a0c4cf44b6e3491ba39105914a238",
    ),
    (
        "nuget_api_key",
        "dotnet nuget push bin/Release/Lumen.Core.2.3.1.nupkg --api-key "
        + "oy2"
        + "rwvj55e9ukzomyoij5uqumrp8e6mzw7c16illmytn8c --source https://api.nuget.org/v3/index.json",
    ),
    # --- AI providers ------------------------------------------------------------------
    (
        "openai_project_key",
        "save my openai key so I stop digging for it: "
        + "sk-"
        + "proj-zopbkajvLeduz1BoNc55Q3e5GiJYKSIPNdcXXNZlETPUyKkR",
    ),
    (
        "openai_legacy_key",
        'client = OpenAI(api_key="' + "sk-" + 'yr42Je2HibgvSkJ6f0wGZpuAHwZBR4a5EcRDp8LNxiGyehcK")',
    ),
    (
        "anthropic_key",
        "ANTHROPIC_API_KEY="
        + "sk-ant-"
        + "api03-E-NpP73NXeUb75Lb83obOldX_FvN0QuY6xu-nt-bdKTUEtnF_86K0ZlVJnD226aoue2j_"
        "i1WAaY5JW69UODtAKkJh0I7JAA",
    ),
    (
        "huggingface_token",
        "huggingface-cli login --token " + "hf_" + "NZhtLDPqzyWNkuDNZAEVmlnbYmFsJXYOGu",
    ),
    (
        "cohere_key",
        "Cohere API key (prod, the reranker one): mIIaSrHYk60TJR5V23vni1RxmtBIk6u2m1zv7FRt",
    ),
    (
        "mistral_key",
        "mistral_api_key: BUiety0Ea6FtxIBVsjlat6a2oiifPinh  # summariser",
    ),
    (
        "groq_key",
        "note for later - groq key is "
        + "gsk_"
        + "qWQrjcv8HsCPcRRsiAl3unamQ5eQrVshPPHkGeWCHyYyMYYuffh8",
    ),
    # --- payments ----------------------------------------------------------------------
    (
        "stripe_secret_key",
        "STRIPE_SECRET_KEY=" + "sk_" + "live_ZpwCdwZznME9hh8fJlMxR23P",
    ),
    (
        "stripe_secret_key",
        "the new Stripe key after rotation: "
        + "sk_"
        + "live_51SHYNgEcOTEXGvY0j51JzSIhAI1oYDZUQOSQeMl2EmwqO6twUSc12QWecbmCFAaVY221QzQ"
        "863RH9H4OHxBhvxTERQOfrUO1wFrn",
    ),
    (
        "stripe_restricted_key",
        "curl https://api.stripe.com/v1/charges -u " + "rk_" + "live_9CE14KSObpyIFGsOK4EsbtxH:",
    ),
    (
        "paypal_client_secret",
        "PayPal REST app 'shop-checkout', client secret: "
        + "Eleoh3fatMrM-FagQvgIc_aqmR9VTKhWDwdWFV6EE_G4IKNIApTQOEHeP1-0hAll-W4wmfCyDUjQ8oHp",
    ),
    (
        "square_access_token",
        "Square access token for the café till is "
        + "EAAA"
        + "ogyB9F9U8-kI50lnx19uZTGkrkA1uI8bHsv8aSv9WmTupTdRb-gTLhmcJrrA",
    ),
    (
        "shopify_access_token",
        "X-Shopify-Access-Token: " + "shpat_" + "2858877b27869bea794afc7f17528751",
    ),
    # --- messaging ---------------------------------------------------------------------
    (
        "slack_bot_token",
        "slack:\n  channel: '#deploys'\n  bot_token: "
        + "xox"
        + "b-01156634880-2457855333057-3KnO4LvlPkUL2e4gezZsiSL3",
    ),
    (
        "slack_user_token",
        "legacy user token for the archive export: "
        + "xox"
        + "p-94740455144-983294944223-6365292730994-6361a4964ab113a7c7a656c58f0747af",
    ),
    (
        "slack_webhook_url",
        "post the alerts to https://hooks.slack.com/"
        + "services/"
        + "TWY4P7BUE/BFVLX9LTRCD/892f538jJAVLnZFvwQhWrr6k",
    ),
    (
        "discord_bot_token",
        "discord bot token (the music bot): "
        + "MTEyMzU4MTMyMTM0NTU4OTE0NA"
        + ".GcPwuy.VwN_-arj1595LPcUecWgnax2cd7gqQM0ax9Ma4",
    ),
    (
        "telegram_bot_token",
        "BotFather gave me this for @tide_times_bot: 8378880796:"
        + "AA"
        + "0GFF3qXG0wme1lrXkN1jh9GtXIRPDxIvK",
    ),
    (
        "twilio_auth_token",
        "TWILIO_ACCOUNT_SID=ACe41385028d496034f4d12a1df069fcef\n"
        "TWILIO_AUTH_TOKEN=2aa977943ff1d04fe61f92dc0600a4b9",
    ),
    (
        "twilio_api_key_secret",
        "twilio api key SK3c19e1430087de8b21fa93f94f1d762d, "
        "secret K0Ta0uS25w0McVjkFs34oJVlMEMYEjRU",
    ),
    # --- email -------------------------------------------------------------------------
    (
        "sendgrid_key",
        "SENDGRID_API_KEY='"
        + "SG."
        + "9ospFb_KCFPN0OP--5rREA.hvht50_upzs_XGTln2SNgFun-HYe-rkoWxpD_BpmMJs'",
    ),
    (
        "mailgun_key",
        "curl -s --user 'api:" + "key-" + "2d8ebf8d0acb813dfccfa683292d73ce' "
        "https://api.mailgun.net/v3/mg.lantern-press.io/messages",
    ),
    (
        "postmark_server_token",
        "Postmark server token for transactional mail: beab7980-dbb0-f658-136e-5ebe51106b0e",
    ),
    (
        "smtp_ini_password",
        "[smtp]\nhost = smtp.fastmail.com\nport = 465\nuser = rita@lantern-press.io\n"
        "password = fq8Tz2mWv4Lk9xRp",
    ),
    # --- databases ---------------------------------------------------------------------
    (
        "postgres_url",
        "DATABASE_URL=postgresql://ledger_app:t7VqPz9rWm2K@db-prod.internal:5432/ledger",
    ),
    (
        "mongodb_url",
        "the reporting cluster is mongodb+srv://reporting:Qm4uT8zLx2Pa"
        "@cluster0.ab1cd.mongodb.net/analytics",
    ),
    (
        "redis_url",
        "CACHE_URL: redis://:Zr82kWpq7Lm3Nv@cache.internal:6379/0",
    ),
    (
        "pgpassword_env",
        "PGPASSWORD='Ncq7!vR2zL' psql -h 10.0.4.12 -U billing billing_prod",
    ),
    (
        "pgpass_line",
        "add this to ~/.pgpass: db.internal:5432:*:reports:Gh8mQx2Tz4Wk",
    ),
    (
        "mysql_password_flag",
        "mysql -h 127.0.0.1 -u wp_admin --password=Lp3rT9xq!Vm wordpress",
    ),
    (
        "mysql_password_flag",
        "backup cron: mysqldump -uroot -pK2mx8Qv7Tr --all-databases > /srv/backup/all.sql",
    ),
    # --- tokens and headers ------------------------------------------------------------
    (
        "jwt",
        "here's the session token from devtools, keep it for the bug report: "
        + "eyJ"
        + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0NDcxMjAzIiwibmFtZSI6IkluZXMgRHVhcnRlIiwi"
        "aWF0IjoxNzE3NDMwNDAwLCJleHAiOjE3MTc1MTY4MDB9.YXLaHYcWP99c-BOLE1WCUZCqmmyglZKyiTAxUrTePS0",
    ),
    (
        "bearer_header",
        "curl -H 'Authorization: Bearer "
        + "eyJ"
        + "hbGciOiJSUzI1NiIsImtpZCI6Ims3In0.eyJpc3MiOiJhdXRoLnBhZ2V3ZWxsLmlvIiwic3ViIjoic3ZjLWJp"
        "bGxpbmciLCJyb2xlIjoiYWRtaW4ifQ.JbILKv8pTf4jDm2O2WDSaWpbwbn5UwQMwkMdpP1uSbpTyVm0TMHtaeqyW"
        "_R4luxYKV_oPHpDMQlHPeSlyLSQ4w' https://billing.pagewell.io/v2/invoices",
    ),
    (
        "bearer_header",
        "Authorization: Bearer 7c1e4f09b2d84a6e93f05c7d2b8a14e6f3092d7c",
    ),
    (
        "basic_header",
        "the webhook needs Authorization: Basic ZGVwbG95LWJvdDpXcTchdFpyMm1LcDl4TA==",
    ),
    (
        "x_api_key_header",
        "GET /v1/forecast HTTP/1.1\nHost: api.weatherly.dev\nx-api-key: "
        "sLcpXwpoHYuoFI29eJfRLnZHAKLHJxLBAqe87U0g",
    ),
    (
        "datadog_api_key",
        "DD_API_KEY=c327626dbac83d214fb3282a9def1582 DD_SITE=datadoghq.eu",
    ),
    (
        "newrelic_user_key",
        "new relic user key for the dashboards: " + "NRAK-" + "ETUPSLHY4ALRKOH40ZMBE3BXUBJ",
    ),
    (
        "sentry_auth_token",
        "SENTRY_AUTH_TOKEN="
        + "sntrys_"
        + "H2UbT6koBBONvsp5O206IdaV8KHt1lFwCIPHSj4w889jovqlXLiy9nvuDG4E",
    ),
    (
        "linear_api_key",
        '{"linear": {"apiKey": "' + "lin_api_" + 'KUaTK6rZmFPrNVOICnMNuqKhS8DKix7DkwYzMlla"}}',
    ),
    (
        "notion_token",
        "notion integration secret: " + "secret_" + "xb3wfpBl7mxUCctVT888XNahQzy6fziKimbclmLiC3M",
    ),
    (
        "airtable_pat",
        "AIRTABLE_TOKEN="
        + "pat"
        + "qiwg1K39ZhgC1v.6ac50ab740fd195a08cdb7fbac7cd7d1fe53f63bf4543a9cfb34653e0decb52c",
    ),
    # --- private keys ------------------------------------------------------------------
    (
        "rsa_private_key",
        "-----BEGIN " + "RSA PRIVATE KEY-----\n"
        "MIIEpAIBAAKCAQEAYO1TWEPhAnirHHTnj/SoVGZDR2eHvITexO+23qQcrLFQea1g\n"
        "BpqafJO1NHwQF2RL55AVUkkVmYU0wgfIwab8CTouQKtzrEvcjPlzYX/XVk0WTkY8\n"
        "TTDhsj9/OAi/Vk2Ap8r0u51pc7zlEaH0g/VHU6kXGPlgJ1/scuw7WOrhw3eGWZ92\n"
        "-----END RSA PRIVATE KEY-----",
    ),
    (
        "ec_private_key",
        "keep this for the signing service please\n-----BEGIN " + "EC PRIVATE KEY-----\n"
        "MHcCAQEEIAgi/zRWfLCnFSewujoPoaTxyg1OLi27cIVDbSUyG3M0l1Fz7yC9DedX\n"
        "DZtwaIeEzD7CzZwzu+oljM5hssjny/iM5WNKMUfAuKQSrtcSf+D5p3sK/t7Fku32\n"
        "-----END EC PRIVATE KEY-----",
    ),
    (
        "openssh_private_key",
        "-----BEGIN " + "OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "e+jRNV22aXPiFsmlKPZa11xWIcBlTrv+jFYKbUVcqOtT4mCj/Tl3Nlcjia2dz25m6JniWg\n"
        "juG+vzASu/i8ODrhUbZewfEm34cmcMgZ1SkyuX3Wm/wFBoXNUPJLnQJQJYYDG0yg05ejXQ\n"
        "-----END OPENSSH PRIVATE KEY-----",
    ),
    (
        "pkcs8_private_key",
        "server.key for the staging box:\n-----BEGIN " + "PRIVATE KEY-----\n"
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQR0ek6exWtO2V/P\n"
        "7+X99usQfKqxiHKef+nTW4Wvao07WcRJmW5ew5PkZrKUdlb2tIUzY/EKb8qG719f\n"
        "JgjCyZ8p7A4XCkUIuqFF5RSgXvjAmEumSmBuAiZEyzvpBRbrEQX3WVvwMUYJTWQi\n"
        "-----END PRIVATE KEY-----",
    ),
    # --- shell, config, orchestration --------------------------------------------------
    (
        "sshpass",
        "sshpass -p 'Tundra#5521x' ssh pi@192.168.1.40 'sudo reboot'",
    ),
    (
        "netrc",
        "machine ftp.mirror.lan login backup password Qu4rtz-Lamp-77",
    ),
    (
        "kubernetes_secret_yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\ndata:\n"
        "  username: YXBwX2FkbWlu\n  password: SHg5I3BMcTJWeiE3clRt",
    ),
    (
        "kubectl_from_literal",
        "kubectl create secret generic api-creds -n prod --from-literal=password='Vx7#qLm29Tz'",
    ),
    (
        "dotenv_password",
        "# .env for the shop\nDB_HOST=localhost\nDB_USER=shop\nDB_PASSWORD=cW9!rTz4Lm8Qp",
    ),
    # --- plain labelled passwords and PINs in natural language -------------------------
    ("pin_en", "the code to the alarm is 4412, remind me if I forget"),
    ("password_en", "my login for the bank is diego.m / Roble!Verde84"),
    ("password_en", "wifi at the cabin: network LoonLake5G, passphrase Loon-Lake-2291"),
    ("pin_en", "Mum's phone unlock is 190358 in case she locks herself out again"),
    ("password_es", "la clave del wifi de la oficina es Girasol_7734"),
    ("pin_es", "apúntate el pin de la tarjeta nueva: 8301"),
    ("password_fr", "le mot de passe de la box, c'est Mistral-Bleu-29"),
    ("pin_fr", "le digicode de l'immeuble est 2580A, et l'interphone au nom de Marchand"),
    ("password_de", "Das Kennwort fürs NAS lautet Eichhoernchen!42, bitte merken"),
    ("pin_de", "Merk dir bitte: Die PIN meiner EC-Karte ist 7719"),
    ("password_it", "la password della posta aziendale è Girasole#2024x"),
    ("pin_it", "il codice del cancello del garage è 1357"),
    ("password_pt", "a senha do wi-fi lá de casa é Jabuticaba@88"),
    ("pin_pt", "guarda aí: o PIN do cartão do Nubank é 6204"),
    ("pin_nl", "het pincode van de kluis is 0642"),
    ("password_nl", "wachtwoord voor de NAS thuis: Tulp-Molen-19!"),
    ("password_pl", "hasło do routera to Kwiatek!2024zz, zapamiętaj"),
    ("pin_pl", "PIN do karty w mBanku: 5820"),
    ("pin_ru", "код от домофона 5531"),
    ("password_ru", "пароль от почты на яндексе: Sosna_Zima_88"),
    ("pin_zh", "门禁密码：880217"),
    ("password_zh", "帮我记一下，我的邮箱密码是 Lanhua#2023qq"),
    ("pin_ja", "金庫の暗証番号は 3306"),
    ("password_ja", "家のWi-Fiのパスワードは sakura-Hana-4412 です。覚えておいて"),
    ("pin_ko", "현관 비밀번호 7392"),
    ("password_ko", "내 네이버 비번은 dalbit!0915 이야, 기억해 줘"),
    # --- obfuscated --------------------------------------------------------------------
    (
        "obfuscated_fullwidth",
        "remember my github token: "
        + "ｇｈｐ＿"
        + "Ｄ９ｗｘＭＹｗＣ７ＴＭｑ０ｖｆｚＧＣＺ７ｈＪｘｎ１ＮｄＥＸＦｔＳＷＺＢ２",
    ),
    (
        "obfuscated_zero_width",
        "aws key id (copied from the wiki): "
        + "A\u200bK\u200bI\u200bA"
        + "\u200bU\u200bW\u200bS\u200bL\u200bR\u200bM\u200bJ\u200bJ\u200b2\u200b8"
        "\u200bC\u200bU\u200bQ\u200bQ\u200bH\u200b3",
    ),
    (
        "obfuscated_spaced",
        "spaced out so it isn't auto-linked: "
        + "n p m _ "
        + "P l K O 3 N O X p l 4 G n 7 d P s Y p w C B 1 9 J U Q i S j g M c U H V",
    ),
]

ORDINARY: list[tuple[str, str]] = [
    # --- English: code that handles credentials without containing any ------------------
    ("en", 'token = request.headers.get("Authorization")'),
    ("en", "if not password:\n    raise ValueError('password is required')"),
    ("en", "hash = bcrypt.hashpw(password, salt)"),
    ("en", "export GITHUB_TOKEN=$(gh auth token)"),
    ("en", 'password = os.getenv("DB_PASSWORD", "")'),
    ("en", "const client = new Client({ apiKey: process.env.API_KEY });"),
    ("en", "env:\n  password: ${{ secrets.DB_PASSWORD }}\n  token: ${{ secrets.NPM_TOKEN }}"),
    ("en", "def check_pin(pin: str) -> bool:\n    return len(pin) == 4 and pin.isdigit()"),
    ("en", "secret_key = settings.SECRET_KEY  # loaded from the vault at startup"),
    ("en", 'curl -H "Authorization: Bearer $ACCESS_TOKEN" https://api.example.com/me'),
    # --- English: placeholders in docs --------------------------------------------------
    ("en", "Set OPENAI_API_KEY=<your-api-key> before running the notebook."),
    ("en", "Keys look like sk-... and are shown only once in the dashboard."),
    ("en", "Replace YOUR_TOKEN_HERE with the token from Settings > Developer."),
    ("en", "api_key: xxxxxxxx   # fill in locally, never commit"),
    ("en", "The form shows the password as ******** until you click the eye icon."),
    ("en", "Connect with mysql -u root -p and type the password when prompted."),
    ("en", "The default broker is redis://localhost:6379/0 for local development."),
    ("en", "After sign-in you are sent to https://example.com/login?next=/ by default."),
    # --- English: long identifiers and numbers that are not secrets ---------------------
    ("en", "The ISBN of the second edition is 978-0-13-468599-1."),
    ("en", "Please quote invoice reference GB29 NWBK 6016 1331 9268 19 when paying."),
    ("en", "Order number 114-3941689-8772232 shipped yesterday."),
    (
        "en",
        "SHA-256 checksum of the installer: "
        "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881",
    ),
    ("en", "The regression came in with commit 95cb0bfd2977c761298d9624e4b4d4c72a39974a."),
    ("en", "We pinned the library to version 4.12.0-rc.3+build.20240611."),
    ("en", "Call the front desk on +44 20 7946 0958 if the flight is delayed."),
    ("en", "Our flight booking code is QX7RTM, seats 14A and 14B."),
    # --- English: keys, pins and tokens in other senses ---------------------------------
    ("en", "She practised until the piano keys felt like part of her hands."),
    ("en", "The sonata modulates from the key of D minor to F major."),
    ("en", "I'm bringing a key lime pie to the picnic."),
    ("en", "Press Ctrl+K to open the command palette."),
    ("en", "Drop a pin on the map where you parked."),
    ("en", "He knocked down the last bowling pin and got a spare."),
    ("en", "We gave her flowers as a token of appreciation."),
    ("en", "The secret ingredient in the chili is a spoon of cocoa."),
    # --- English: everyday talk about credentials -----------------------------------------
    ("en", "I forgot my password again, so I used the reset link in the email."),
    ("en", "Never share your PIN, not even with someone claiming to be from the bank."),
    ("en", "I moved all my passwords into a password manager last weekend."),
    ("en", "The IT team rotates the API tokens every ninety days."),
    ("en", "Remind me to change the router password when I get home."),
    # --- Spanish --------------------------------------------------------------------------
    ("es", "Olvidé mi contraseña y tuve que pedir un enlace para restablecerla."),
    ("es", "Nunca compartas el PIN de tu tarjeta, ni siquiera con el banco."),
    ("es", "La clave del éxito es la constancia, decía mi abuela."),
    ("es", "Cambié la contraseña del wifi porque los vecinos la sabían."),
    ("es", "El código postal de la oficina es 28013, por si lo necesitas para el envío."),
    ("es", "Uso un gestor de contraseñas para no repetir ninguna."),
    ("es", "Escribe tu contraseña en el campo y pulsa Entrar; verás ******** mientras escribes."),
    # --- French ---------------------------------------------------------------------------
    ("fr", "J'ai oublié mon mot de passe, il faut que je le réinitialise."),
    ("fr", "Ne donne jamais ton code PIN à quelqu'un au téléphone."),
    ("fr", "J'ai perdu ma clé USB avec toutes les photos des vacances."),
    ("fr", "Le mot de passe doit contenir au moins douze caractères et un chiffre."),
    ("fr", "Le secret d'une bonne mayonnaise, c'est la patience."),
    ("fr", "Notre numéro de réservation est le 4471-2210-88 pour l'hôtel à Lyon."),
    ("fr", "Pense à changer le code de la carte quand tu recevras la nouvelle."),
    # --- German ---------------------------------------------------------------------------
    ("de", "Passwort vergessen? Klicken Sie auf den Link unter dem Anmeldeformular."),
    ("de", "Die PIN hat vier Stellen und kommt per Post in einem separaten Brief."),
    ("de", "Ich habe den Schlüsseldienst gerufen, weil ich mich ausgesperrt habe."),
    ("de", "Speicher deine Kennwörter lieber in einem Passwortmanager als auf Zetteln."),
    ("de", "Die Bestellnummer lautet 302-5518890-1147, Lieferung am Donnerstag."),
    ("de", "Der Token wird nach einer Stunde ungültig, dann muss man sich neu anmelden."),
    ("de", "Das Lied steht in Es-Dur, das ist für die Bläser angenehmer."),
    # --- Italian --------------------------------------------------------------------------
    ("it", "Ho dimenticato la password della banca e ho dovuto chiamare l'assistenza."),
    ("it", "Non scrivere mai il PIN sul retro del bancomat."),
    ("it", "La chiave di casa è sotto il vaso, ma non dirlo a nessuno."),
    ("it", "Il segreto del tiramisù è usare mascarpone freschissimo."),
    ("it", "Il codice della prenotazione del volo è KL9PQZ, partenza alle 7:40."),
    ("it", "Cambia la password ogni tanto e non usare la stessa per tutti i siti."),
    ("it", "Premi Ctrl+Maiusc+T per riaprire la scheda chiusa."),
    # --- Portuguese -----------------------------------------------------------------------
    ("pt", "Esqueci a senha do e-mail e tive de recuperar pelo celular."),
    ("pt", "Nunca passe o PIN do cartão para ninguém por mensagem."),
    ("pt", "Guardo as minhas senhas num gerenciador, é bem mais seguro."),
    ("pt", "O número do pedido é 8812-4490-3317, chega na sexta."),
    ("pt", "A chave do carro ficou na portaria do prédio."),
    ("pt", "O segredo do pão de queijo é o polvilho azedo."),
    ("pt", "O token expira em quinze minutos, então faça login de novo se der erro."),
    # --- Dutch ----------------------------------------------------------------------------
    ("nl", "Ik ben mijn wachtwoord vergeten en heb een nieuwe aangevraagd."),
    ("nl", "Deel je pincode nooit, ook niet met iemand die zegt dat hij van de bank is."),
    ("nl", "De sleutel van de fietsenstalling hangt naast de deur."),
    ("nl", "Het wachtwoord moet minstens tien tekens lang zijn."),
    ("nl", "Ons boekingsnummer is 5530-8821-04, vlucht om half negen."),
    ("nl", "Bewaar je wachtwoorden in een wachtwoordmanager in plaats van in een notitie."),
    # --- Polish ---------------------------------------------------------------------------
    ("pl", "Zapomniałem hasła do poczty i musiałem je zresetować."),
    ("pl", "Nigdy nie podawaj nikomu PIN-u do karty."),
    ("pl", "Klucze do mieszkania zostawiłam u sąsiadki."),
    ("pl", "Hasło powinno mieć co najmniej dwanaście znaków."),
    ("pl", "Numer zamówienia to 2024/06/11893, paczka przyjdzie w piątek."),
    ("pl", "Zmieniłem hasło do banku po tym podejrzanym SMS-ie."),
    # --- Russian --------------------------------------------------------------------------
    ("ru", "Я забыл пароль от почты и восстановил его через телефон."),
    ("ru", "Никому не сообщайте PIN-код карты, даже сотрудникам банка."),
    ("ru", "Ключи от квартиры я оставил у соседки."),
    ("ru", "Пароль должен содержать не меньше двенадцати символов."),
    ("ru", "Номер заказа 7731-0045-2298, доставка в четверг."),
    ("ru", "Секрет хорошего борща — свёкла, обжаренная отдельно."),
    ("ru", "Храните пароли в менеджере паролей, а не на бумажке."),
    # --- Chinese --------------------------------------------------------------------------
    ("zh", "我忘记密码了，只好用手机号重新设置。"),
    ("zh", "银行卡密码千万不要告诉任何人。"),
    ("zh", "密码至少要八位，还得包含字母和数字。"),
    ("zh", "我的订单号是 20240611883172，明天发货。"),
    ("zh", "钥匙放在门口的花盆下面了。"),
    ("zh", "他下学期要选一门密码学的课。"),
    ("zh", "建议用密码管理器保存密码，不要写在便签上。"),
    # --- Japanese -------------------------------------------------------------------------
    ("ja", "パスワードを忘れたので、再設定のメールを送ってもらった。"),
    ("ja", "暗証番号は誰にも教えないでください。"),
    ("ja", "鍵をなくして大家さんに連絡しました。"),
    ("ja", "パスワードは十二文字以上にしてください。"),
    ("ja", "予約番号は 4410-2287 です。チェックインの時に伝えてください。"),
    ("ja", "このカレーの秘密の材料はチョコレートです。"),
    ("ja", "パスワード管理アプリを使えば、全部覚えなくても大丈夫。"),
    # --- Korean ---------------------------------------------------------------------------
    ("ko", "비밀번호를 잊어버려서 재설정 메일을 받았어요."),
    ("ko", "카드 비밀번호는 절대 다른 사람에게 알려주지 마세요."),
    ("ko", "열쇠를 잃어버려서 관리실에 연락했어."),
    ("ko", "비밀번호는 최소 열 자리 이상이어야 합니다."),
    ("ko", "주문번호는 2024-0611-7723이고 금요일에 도착해요."),
    ("ko", "비밀번호 관리 앱을 쓰면 다 외울 필요가 없어."),
]
