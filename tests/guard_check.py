# ruff: noqa: RUF001
"""A second held-out labelled corpus for the credential guard.

Written after the guard's rules were final and never used to tune them. Every value in
this module is fake: random strings generated for this test in the real shape of each
format (prefix, length, alphabet). None of them has ever been issued by any provider.

Recognisable secret prefixes are split with ``+`` so that the source file itself does not
trip secret scanners; the joined strings are what the guard sees.

``CREDENTIALS`` holds ``(format_name, text)`` pairs, each text carrying exactly one
credential. ``ORDINARY`` holds ``(language_code, text)`` pairs that talk about passwords,
PINs, keys, tokens or secrets but carry none.
"""

CREDENTIALS: list[tuple[str, str]] = [
    (
        "aws_access_key_id",
        "Can you remember my AWS access key for the staging account? It's AK"
        + "IAAD2ZKIQJ5CYWSFR2",
    ),
    (
        "aws_credentials_file",
        "this is my ~/.aws/credentials, keep it for when I set up "
        + "the new laptop:\n[default]\naws_access_key_id = AK"
        + "IAAJI4XU5KJMT3PK3C\naws_secret_access_key = "
        + "pVa7UQwqUVRfVCcytb17j0/d2cuiusLkF/2D/2vB\nregion = eu-west-1",
    ),
    (
        "aws_secret_access_key",
        "# .env for the uploader\nS3_BUCKET=acme-invoices\n"
        + "AWS_SECRET_ACCESS_KEY=PyuDLJ1yWTPedDbPbKTy1grBLolWuRxd57qVQyeZ",
    ),
    (
        "aws_temporary_access_key",
        "from my shell history, the creds that worked yesterday:\n$ export AWS_ACCESS_KEY_ID=AS"
        + "IAMFHKA5XOEMBMKC7A\n$ export AWS_SECRET_ACCESS_KEY=sLkqdPCLge1JoaqowFh23VnfD2Qujag"
        + "mplSiHJpo\n$ aws s3 ls",
    ),
    (
        "azure_storage_connection_string",
        "Remember the blob storage connection string: "
        + "DefaultEndpointsProtocol=https;AccountName=acmebackups01;Account"
        + "Key=d78QBjwdCON8T9SX8718pGOm7kRu6nWSXBtdRUTlH/0aayk0k7XWm8erzJRGG0k0184yawYd31qAUN"
        + "IFfLJ2LQ==;EndpointSuffix=core.windows.net",
    ),
    (
        "azure_client_secret",
        '# terraform.tfvars\ntenant_id     = "3e9ac9f7-91b7-44ed-a24b-e532585d9d5f"\n'
        + 'client_id     = "45e5e4a1-1f52-4000-9008-534ff69b48ae"\nclient_secret = "8dK3Q'
        + '~zeTp61CxquchxHB.pWAc1XXi63Xdyk0Fa6"',
    ),
    (
        "azure_devops_pat",
        "Azure DevOps personal access token for the build agent: "
        + "nczeyy3mppzmr5nt4gvanqo6572l6damvint7vyyuvx7zrwvlaho",
    ),
    (
        "gcp_service_account_json",
        '{\n  "type": "service_account",\n  "project_id": '
        + '"acme-analytics-4821",\n  "private_key_id": '
        + '"370537c381cfd4f20cdb78c859e4c231d9e00b9d",\n  "private_key": "-----BEGIN PRIV'
        + "ATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ0Vh0JOG1qz3CRL\\n"
        + "NhfnDyttSTST89eAxuTNtttSTJYdQ+GKvenoqq5hesNjnVW0c28cS75vAF1CNe4o\\n8DnEIc+vBp3q48u"
        + "a0ZZXEAyVcJj9Ol5JNYMCFm1hJ6MsCR7zVJLT39J4nInanIyo\\nXgEv9dR0Mpvms3hXs36LhCmVvZIX9I"
        + "RNyPKHI6b6NEC6kmTUD6HnHhXVtpGvU3qQ\\nX+/bKOkeJdNoXSK0r4MnKspaNH9Ke+tdk5rjVl+D4vPk7"
        + "ltek+LAbYGPNSqHI+cM\\neZTWKSR/6rvEYiaWnjUA12Lf9VGwktsDfaBW1Ab5WaD+g32a3ia77RGR3zud"
        + "z6oK\\nkdFuJS2QWUMGjubjUQJah6Z07TenlBapGAeCwlC1YVqc+7Z6Q/QGpp6OSCDDrO+t\\n+jeOnOAK"
        + "BLGy/NCN5b/JzvOGLbOLrhXigxas1e235/ZSTzClkW5/8PXkeNKPXbmF\\n2LVkT2PX1+lSeAvx9PcuAqq"
        + "0TIXgut06eEXlC/bL2ROH5hDYrxHD01KtB2W4X9Jp\\nEErQR4n1Q1AnotdVkV6KoYDjR+caKvCMK4sAry"
        + "S9S8Q+oyI5pk9x75+9jfxq3vqH\\nxdZau0VuPHzuTTZ19Y8B/MCvMuk6RjeqLMuIhzizK1n92QRpWvg5g"
        + "43pQru8tUFW\\nb5Jq5TKWFFCmDeO8iZmP0IiJwtImKnBhCgrkEaiOW+a4cwqHP0Om3T7YmlqE16F3\\nx"
        + "yFSar1aYwk3CU+3mehoczMysJ+9uYns6EaJU4rLSrVF9yA8uNLKqRNeSwPojpW/\\nppv9pezbgE2CTql9"
        + "Zhq6ncCkXL/xLqwwog7mvKzOBBD4f6qkNtecJ/qeH6CaxC56\\n6VUfny0HTQCtoW9T9ItqAEbgaHCY9h3"
        + "uMcu1JtLX7lf/S9MeA7l0sm2iBh3Rj2fx\\nsNKIycZ7++BgIVecae7LXKxRCwYg7pryAYyRnt2G1Kpsu8"
        + "Z9wY1hbxTIx05w7GsJ\\noiWCcdBLRdSCJmbEUayHj0hfYwZp2fgazqzy+Fpi8L1TJQLyHjmXvOZE2o/Fs"
        + "+WA\\nvpH0YvbC1QrriZqkfTqQ7m/Gbed6KtIRNxuJrD8+fFWOTdWVDFa4+DhDB1fg3nVY\\neXMwdDP6d"
        + "SQJs9uLAXXj6vWqYOFoPk+31UJMPu17PWRHvLvl5LdX9Nd3X0kUYHRU\\nBICxbYcBvstnRWqEsZy3YrZW"
        + "IZqpxtzKl1gJhvAFPakZg+wr94C8zNjK/tlSSxws\\n15o0CmYlabRFCkSAgnxJcCv0DOfNO1+zFn7cs00"
        + "N1PrD2UcupGUWVNHh9asiAfLP\\nGBxr8pvUN5yXUBsgrcVdAKPEr7ut282g+Wfyjj9ZZXQFUTLeQT6fBK"
        + "5aDKq8B3Rz\\n0nDEysMkZ6kLnpPPyAV+SEQyvUF/SVkL0da8f2+7Vym0aAa53Yl50VuQ/4VPTQfo\\nKk"
        + "6OhGeJBBdjQVlWL+B//kox45T9J5C+FEHnwTAcUk2uC9hCu9zX5o3V0V/WA6Oe\\nODwTTMqxVpjbJwc/p"
        + "BIHd258Nzbon2VVQpmNKJ5f7b6TSJAWRlXbVWDc3/SpZ0DZ\\nAA3+6fJX+Rb2FoLWuqrkEVXg==\\n---"
        + "--END PRIV"
        + 'ATE KEY-----",\n  "client_email": "etl-runner@acme-analytics-4821.iam.gserviceacco'
        + 'unt.com",\n  "client_id": "268494660177268367113"\n}',
    ),
    (
        "firebase_api_key",
        'const firebaseConfig = {\n  apiKey: "AI'
        + 'za_w2DhmZODmFZhI0a9_cM6R3rjTnz5xcbV4Y",\n  authDomain: '
        + '"pantry-app-7c1e2.firebaseapp.com",\n  projectId: "pantry-app-7c1e2",\n};',
    ),
    (
        "google_api_key",
        "the Google Maps key for the shop website is AI"
        + "zajTe-2mcaeI8efI7MDuZzvCpCTooyyf53pXC, please remember it",
    ),
    (
        "github_pat_classic",
        "my GitHub token is gh"
        + "p_vdbcn2YTindBCw5pspzUDSKDU6XjUdrJ86Px — save it so I don't have to make a new one",
    ),
    (
        "github_pat_fine_grained",
        "# .github/workflows/release.yml\njobs:\n  release:\n    "
        + "runs-on: ubuntu-latest\n    env:\n      GH_TOKEN: github"
        + "_pat_r5azKQ1i0ea7ojBsQCwVqM_BowyDxOUI7z9LhxhNUCV6nxBR4O8ldSl6vRWTR5OJY4GapESrcSEbn"
        + "9gWLu\n    steps:\n      - uses: actions/checkout@v4",
    ),
    (
        "github_oauth_token",
        "~/.config/gh/hosts.yml:\ngithub.com:\n    oauth_token: gh"
        + "o_vrXfGQ27FwgTfWlsID2BcnWedgwGq7tv7o7a\n    user: mira-dev\n    git_protocol: https",
    ),
    (
        "gitlab_pat",
        "GitLab access token (api scope), expires in March: gl" + "pat-eMEXU8oSKVLrQLZxBB03",
    ),
    (
        "gitlab_pat",
        "git clone https://oauth2:gl"
        + "pat-GbechP8KGI-HfxO_BWoA@gitlab.com/acme/platform/infra.git",
    ),
    (
        "bitbucket_app_password",
        "Bitbucket app password for the deploy user: AT"
        + "BBTF1DXXJYZcrItxZYzDCfo7QMXmjVkgdX1A038B54",
    ),
    (
        "npm_token",
        "# ~/.npmrc\n//registry.npmjs.org/:_authToken=np"
        + "m_9O6WQEHS8yjSsNy6dHahU0WDZFWogQvx7soC",
    ),
    (
        "pypi_token",
        "# ~/.pypirc\n[pypi]\nusername = __token__\npassword = py"
        + "pi-AgEIcHlwaS5vcmcl5EPoRRozGmOTEJCWDDF1p8j2tlC91mil2TYm4Bb-V1znl1U9AMN4P8nQPlklt-z"
        + "4nAfEE6WvObQeCN7NAQzQptV7CpuRrjBCtUaDqkqmagfzKBcjB_hpfR5DUjpUeSazBQD7NM9MFYc-b6yC1"
        + "g",
    ),
    (
        "docker_pat",
        "history | grep docker\n  512  docker login -u mirak -p dckr"
        + "_pat_nKG2VLaCdEfsszGPF4FXlSZUvDx",
    ),
    (
        "openai_project_key",
        "OPENAI_API_KEY=sk-"
        + "proj-6fL90hZBIdWFkmFwKwO-UwQzIQaG9EGUT6pCpAwmaNZi0sfX1KzlHMSvNkGnn9xnDhvDdqzF1jT3Blbk"
        + "FJcBHAr-rd7yRWroNgW8GbQuIP3GuSOjNvQOfEAm6FXPyB5ReFtR4zYCm7xSFq8pTx6xhcLmHAeC\nOPEN"
        + "AI_MODEL=gpt-4o-mini",
    ),
    (
        "openai_legacy_key",
        'import openai\nopenai.api_key = "sk-'
        + "62oS0MCLlbr2zclUjDgZT3Blbk"
        + 'FJo50kFMbBbPTObPrEjbxw"',
    ),
    (
        "anthropic_api_key",
        "Here's the Claude key for the side project, remember it: sk-"
        + "ant-api03-DHNyftHc4wadZLwocBPmgE0ROAm4rjnOjvMpSWy1vcHAwTx2Zw83Cnr6BNulT_vRag90FROZ"
        + "QhhlP9GOLik9eEQroAyPJAA",
    ),
    (
        "anthropic_api_key",
        'curl https://api.anthropic.com/v1/messages \\\n  -H "x-api-key: sk-'
        + "ant-api03-PLdWxK5y8pqQy2slwGrlZ-7he8J99kbNaSBYgXhP4O7-NyfYFiPmd36hSdECsXKZT3DjnKmy"
        + 'pMJZZlHUKqJEH1FgHaMl9AA" \\\n  -H "anthropic-version: 2023-06-01"',
    ),
    ("huggingface_token", "my HF read token is h" + "f_SmwrPjqmqxVEXgFMCkasKeNOhWprGUQife"),
    (
        "huggingface_token",
        "$ huggingface-cli login --token h" + "f_ApLqPbiKTyAfbGiYXCOxXisgXTLmHENGTI",
    ),
    (
        "stripe_secret_key",
        '# config.toml\n[stripe]\naccount = "acme-eu"\nsecret_key = "sk_'
        + "live_zDmn1Mwiu70xHj7WZZVjqxIGyJk2XXPjfe6n97jxAjeLNSiYOCQHtMTWn1clJq0B5tav4x656xJpd"
        + 'u6ANahg1QhfIC8UvdB8J4H"',
    ),
    (
        "stripe_restricted_key",
        "Stripe restricted key for the reporting job: rk_"
        + "live_CrRkh9Xr8UuFFYsLrEoGcieHATtQDWUD0754sDYXgskRXcAn5XQkYlAK8AMy6fbRtfmDowx7EsS7V"
        + "6XtDU6ibuOs6AW6WsRYNf0",
    ),
    ("stripe_webhook_secret", "STRIPE_WEBHOOK_SECRET=wh" + "sec_pfzN7pDwFzZxQBBr8KOGQvJDUpFRfrzE"),
    (
        "slack_bot_token",
        "Slack bot token for #alerts: xo"
        + "xb-056041404141-4168484538950-CqcIk5nQeLMiXD7ZVy3lvDlR",
    ),
    (
        "slack_user_token",
        "SLACK_USER_TOKEN: xo"
        + "xp-533131376810-758082558314-8314271007380-fdbcdf79a8d0c2af84b6f7c889eeda80",
    ),
    (
        "slack_webhook_url",
        "incoming webhook for the deploy bot: https://hooks."
        + "slack.com/services/TQ4PVI93E/BR90S8UNXFG/M0P5mqNhcDmMfgHoPCzeudVr",
    ),
    (
        "discord_bot_token",
        "DISCORD_TOKEN=NT"
        + "E5NzM3MTk2NTI2OTk4NjYz.P81nt3.WUx6s0FHOiX941oJDmRx_bQIQ10im5n2qw4Lk5\nDISCORD_GUIL"
        + "D=1093847561029384756",
    ),
    (
        "discord_webhook_url",
        "post the match results to https://discord.com/api/web"
        + "hooks/9331197743618809531/2gVPjtgOOoWFva4NwHNWkuFsTUEH4-vU8niCQEm-cnVYzvSdERuBSawr"
        + "cbdNT5llRiqF",
    ),
    (
        "telegram_bot_token",
        "The BotFather gave me this token for @pantry_helper_bot: 8782828056:"
        + "AANj0EZUhoyLEnNN_oFxvgSmHdAGiLd55UF",
    ),
    (
        "twilio_auth_token",
        "twilio:\n  account_sid: A"
        + "Cac6f4383c71a701a43278cbda992916e\n  auth_token: "
        + '94ccfc8fd1f9770f4e17cb26ed5fa7c6\n  from_number: "+15017122661"',
    ),
    (
        "twilio_api_key",
        "Twilio API key S"
        + "Ka058e5de3762a5be2d51ce649017a168 with secret RqjIgUI7FxZXHOqU4m2sYOEGn3FZz3iq",
    ),
    (
        "sendgrid_api_key",
        "SENDGRID_API_KEY=S"
        + "G.5udg-lAlIUvW724wdvRBFD.plHp0zd3jyGlQ-1Jrvw3NEyPpkPnvcSX1eKjFLt1Yuz",
    ),
    (
        "mailgun_api_key",
        "mailgun api key is ke" + "y-46d94d50c4f6d80786150475603bcc10 for the mg.acme.io domain",
    ),
    (
        "shopify_access_token",
        "Shopify admin API access token for the store: shp" + "at_d6d0f73d58ae85da2f5d60518d6de79a",
    ),
    (
        "digitalocean_token",
        '# terraform.tfvars\ndo_token = "dop'
        + '_v1_981008d6613720926074931cacc87bf972e14a87c91fb7fb593dee1469eb82d2"\nregion   = '
        + '"ams3"',
    ),
    (
        "cloudflare_api_token",
        "Cloudflare API token (DNS edit, acme.io zone): "
        + "Xv9TvxqSdn83RR9bEgxIIJoxeRoC1S9YFLuOGpCb",
    ),
    (
        "cloudflare_api_token",
        "export CLOUDFLARE_API_TOKEN=9YKUHka0x-mJSqcvIcsjvosipZfpH6n-pKrR2Wlx\nnpx wrangler"
        + " deploy",
    ),
    (
        "datadog_api_key",
        "FROM python:3.12-slim\nENV DD_SITE=datadoghq.eu\nENV "
        + 'DD_API_KEY=a0f157189b366444e9729f69e1c01ce6\nCMD ["python", "app.py"]',
    ),
    (
        "datadog_app_key",
        "Datadog application key for the dashboards script: "
        + "1c47ef4d80d1daac0d8bca6dc4b056b8e53720ca",
    ),
    (
        "sentry_dsn",
        "SENTRY_DSN=https://" + "9d7eaa2c9c0af157242986b7616c4bf6@o011979.ingest.sentry.io/4250699",
    ),
    (
        "atlassian_api_token",
        "Jira API token for ci-bot@acme.io: ATA"
        + "TT3xFfGF0zVAu_OVbJer96JPH6q2Hj-J-kFS-cmC1Xc-cdw6Nv9IxA4F5UjARy1mm8-09dt5kpyCM5YWNY"
        + "DGmRxZzmzKO2aU-CUFVkDo3A7Hl-9kftWJhZmZSaQXTvEdbdmTKPnmWxXTU9N2qUSeY24FF6KmljHRCda4"
        + "RZsngdBD1-R-U77=37775531",
    ),
    (
        "linear_api_key",
        "Linear API key (personal): lin_" + "api_WfyPBWGviKOf1EW4oglBLkYhURhXzG44yupwELRf",
    ),
    (
        "notion_token",
        "Notion integration token for the wiki sync: nt"
        + "n_29676517475EY4hBEYa9yJEffaKlnk4oveUUjh2P09vRLU",
    ),
    ("notion_token", 'NOTION_TOKEN="sec' + 'ret_X0DMRpgn4jJU77lMhsC1ES8ZoddCrt4jawVH5ltzRTT"'),
    (
        "jwt",
        "http GET https://api.acme.io/v2/me 'Authorization:Bearer ey"
        + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1XzQ4MjEzIiwibmFtZSI6Ik1pcmEgSyIsIml"
        + "hdCI6MTcxODAwMDAwMCwiZXhwIjoxNzE4MDg2NDAwfQ.YVB_g5gcZ5gF4ePb1Bwg3fhfM7bvZ0awjxsYhx"
        + "Txr8k'",
    ),
    (
        "jwt",
        "remember my session token for the admin panel: ey"
        + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZG1pbiIsInJvbGUiOiJvd25lciIsImlhdCI"
        + "6MTcxOTUwMDAwMH0.amR30YRjWMPjvHZaky4LqfcFZpdvYac5S6OD3zyUZ9A",
    ),
    (
        "private_key_rsa",
        "-----BEGIN RSA PRIV"
        + "ATE KEY-----\nMIIEowIBAAKCAQEAsqAksvrNlDqTgIqXHJqEqhZMnLlM4hBpPNG1ayqLpy1+e9jA\n"
        + "SYIrlFwgqAOqE6CUXCikwP8j8CcGLu6ngdAMXnYBP386tTzzUIoQTnIqF4SrtI77\n"
        + "VwbLOEbVyggFU3jTQtFunSNCh00ZpGgHxEtC2U7jECjfaFUdeqxYCZHNwUwWlul1\n"
        + "uBrdvFaAG16sNTYZVPqCH+qQ4eCfRolFfBNEgCPC8hW/ViKDk7XJdjfXuNRCaEgX\n"
        + "EHFYpdw1AVBjiRtlUwY9QCh0KdWPpQGvn3d7h7Zv1/vfP1KgaFQQ+mCrXTskpAgm\n"
        + "6mihOlJq7Jp3JBFPF05A6pTKXgEJyA9sHJ+DKYWuy93fnWnpdxcg22KuIbPFPsfe\n"
        + "ne3LNq6e1RjnOZ3gJ90wcbUJ+MKDzaBa+XN5b4fILnIO4W3A5auIiDqiCpurSZz3\n"
        + "HalzC4zQMx7taAEup45cVD/LaWYmEET13rKNgeGYEE3reQU/ItBumVKHMtNpNblU\n"
        + "tukolqNGal+TauuEmQJAU0bKiJeDIE5R8EZdbmShnnu9rW9BIaIJ8XduEGBFKkx1\n"
        + "kbynXpChug6Efo0YlYGgCD7xSNlmITkGVeqp15WyBEdYGFr/sakTQFmhLaYUiMwL\n"
        + "yz8XmUGpLQ5EIzyzoGAkc/xbFDz9Og6DmpCeOkFb9DzaaRsG2UbChKS9SRGVFNN9\n"
        + "CUYhJ/E4N8vaV54b+HvnGbN+jefXmLmHGfd8adJWCz5KCowXA0sdSZSZtTK3G5NF\n"
        + "v4uZPUu1/gSCFvEC8rC+zEJA3TzYjh+58ZV1JZ5X4D4rz4uId5FJ8n7P3y3S86Tp\n"
        + "dHYhxi9xPX8vot9efWD0cihX0pA8qU7iu+7opd8jr1bhS0dXelD3Dr6SEG18738m\n"
        + "QjkOXOSnJykWn1ruvJbtAJlnKyjGnFAoQFUBKhnn4Z5HOLdpJsqdD3YuDxG5emS8\n"
        + "A10R/frfTzLVKwpyFhQxCEmHP71JPvEqRf8RjD2z5lv6RLHmhAxP+uqs1pBs0/KW\n"
        + "WZS2u950Iygbnn8o0SVwnAb9bv3oEphmQO8LcO6qoHGH+vNGaHua/uN39Dl9esC1\n"
        + "dnY39dzIvMvXROzjn1rStx+QrmI42KHxknTdYfBDGUSUoQifpmWx8V5NKYIJalr7\n"
        + "bOofkN2gPaFsL8misYOx3dgGSHxYIPf3EA5qaw6pUz3vg3X9NltB3CYLbKvNJ7CF\n"
        + "YsD3+a5nou9FykIfPgUb21SHYUR8w66BGcR0sbFoTcBD9NmkLGRpmfN75c6aEvcO\n"
        + "btRCwAjGrAe0Q4ggIsBUfLCtIndafZ2HvHn5ddjjyUPIGSXzLlOamqBcFj2MdFg1\n"
        + "BmZB1OtM/WCA5r4j6LFxWsPvhbSVgNT3wucM+uR/y5psOdi/Bic0gKngwXHvTjny\n"
        + "MAHlig8oLV4I27ULknoW6yNrBdLsLGQzqwVstE8pa/bE0ZFtJkK0iNWguWfKChQA\n"
        + "HpYg+/TCyqVNRc8u4A3Od6pzeyik2D3SDtUDmWbPArZDhOPQ7u5Fiv/+swsZVXv0\n"
        + "ybbBYc6JsUEzsOBTj2LAMQoF71Yqbg6pkDFywDqcreN9M6hhbxxKNg==\n-----END RSA PRIV"
        + "ATE KEY-----",
    ),
    (
        "private_key_openssh",
        "keep this, it's the deploy key for the VPS:\n-----BEGIN OPENSSH PRIV"
        + "ATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gt"
        + "ZW\nif8+W8F3xEr3AcKLScpY352S0XqBO6Opb77zUbyiWFaZnqG1Kyp/oUxgdhLrpuOi90wcK7\n"
        + "OI/lOdUCpPN2LiglhWrnSxzFVZimhaMMZwxmy9Izghl3AHzZhY0MvWwG7F9b4fL/CEVwhl\n"
        + "xdkHei/1m/oetzenNwsXFK2XkZkRQZHft0rYWo19cye+GGzwr0t0CrY5n4U9abe2t1WVtn\n"
        + "YETZDy7SdJawOvfzs4W/JHkm4FY2rN+9UdkKTf+3m+ADoxPzMiBT0+2L5WAl0rpnjjCbbk\n"
        + "Z49M6enw6CRl2+jlukPO36sr3yarhh3b2hxgkjpBlz63x/H3/OLMApZTf/XVAkwWVR6v+i\n"
        + "LdOLKw2SYVbDqR5ut17wLMgLCxQLMbx3fCcgIb2CtxBWCPCpww\n-----END OPENSSH PRIV"
        + "ATE KEY-----",
    ),
    (
        "private_key_ec",
        "EC key for the signing service\n-----BEGIN EC PRIV"
        + "ATE KEY-----\nMHcCAQEEIMF8cvPrLlIuZa26Jt1sSgaw9kcK+R/uc5gD8T6ucr1b7Kq5wssEQ/Ee\njA"
        + "X70rW+4+AOFWc3dZ2XrGO7PxRHoEUDGUjHy6Kl/QK2W1DbCDMqDJcwgyTJf0jx\n"
        + "hon1DnD6t5QjXyAHDXCIEHikGtvpip0MX\n-----END EC PRIV"
        + "ATE KEY-----",
    ),
    (
        "private_key_pgp",
        "-----BEGIN PGP PRIV"
        + "ATE KEY BLOCK-----\n\nlQOYBG0JplemG4TF8+PXubj7SxvDQ7YtnBMqWXG4tYwZINtpjnUs49Z6EQY7"
        + "wYdOPveyOz\nAKjZ1X0rK7yTw5ukjZ2y9xgE4K6ZPJ+QdBLQHKzVUjNneK4ZfM/UfD410HGpdEti\n"
        + "g14y13W1Cb0M0L+jj02ij/ck/j67O8oQdNFPACeNL7KymH6L038+vZeB4/By2ZoY\n"
        + "iUXy2TFI1vJD2q8r/z5BjUrBU/X4Kq4p8JhwV9sKPKPrsXRYrl9A263Vx+nCaC2u\n"
        + "xvlAUWgtLKACA876dLi2jYZ4G9DUFofIfQ1RN5cOjHgwlyuysPV3fBM+w9xSxcDz\n"
        + "m+qZl1Zc9M8ug5PAhVL1y/dmwmUDEIWTkxEXL96v7WSj6F3+tIq4blprcuW5qLwn\n"
        + "OQcW/T3aYc3m8LCznXhBiY1Qm6LljynpU5EQ6Z9EtdNASf/ZwEKVMl3y/M5pUYMG\n"
        + "XIFZlgEbmBbKg7o0+102ow20qPz2fPE6b0LkhbPUrKI7F06zBtvyZ2b+lvVKXl11\n"
        + "TdsZvQhgdKTwA2tAbru9kUO3x/EkUl0QaWAeUs/nfe3+EunbXhrYV33pw55/g3Be\n=oQcH\n-----END "
        + "PGP PRIV"
        + "ATE KEY BLOCK-----",
    ),
    (
        "basic_auth_header",
        'curl -H "Authorization: Basic c3'
        + 'ZjLWV4cG9ydDo3dHpOM08tQXQqZEQ1ckNx" https://reports.acme.io/export.csv',
    ),
    (
        "bearer_token",
        'wget --header="Authorization: Bearer 9ZVmQU'
        + 'h7Ox702AbcYANx9RvYY7HN4-lQETGC3mNepFa8gm" https://files.acme.io/nightly.tar.gz',
    ),
    (
        "api_key_header",
        "http POST api.weather-feed.io/v1/forecast X-API-Key:2ce85327"
        + "1387b4609c747500dbf56067 city=Lyon",
    ),
    (
        "password_in_url",
        "DATABASE_URL=postgres://app_user:" + "dK8f.hgpnBH63TcjNw@db.internal.acme.io:5432/orders",
    ),
    ("password_in_url", "REDIS_URL=redis://:" + "X5Kd96wDmkYl%a4-BjtO@cache-01.acme.io:6379/0"),
    (
        "password_in_url",
        "git remote set-url origin https://mira:"
        + "2Ar?T3_6.f%oM!@git.acme-internal.net/tools/ci.git",
    ),
    (
        "sqlserver_connection_string",
        '{\n  "ConnectionStrings": {\n    "Payroll": '
        + '"Server=tcp:sql01.corp.local,1433;Database=Payroll;User Id=sa;Pass'
        + 'word=1e2D*45N-mM.g%J_;TrustServerCertificate=True;"\n  }\n}',
    ),
    (
        "mysql_connection_url",
        "mysql://shop:" + "R_AT4?JUTpbGwP%@127.0.0.1:3306/shop_prod?charset=utf8mb4",
    ),
    ("mysql_cli_password", "$ mysql -h 10.0.4.12 -u root -p4XNcsD4!AP2Sn inventory"),
    (
        "mongodb_connection_string",
        "mongodb+srv://analytics:"
        + "xEglN8_X5kalMVuu@cluster0.x7k2p.mongodb.net/?retryWrites=true&w=majority",
    ),
    (
        "amqp_connection_string",
        "celery broker: amqp://worker:" + "e4KO9kEAiZg1_ITO@rabbit.internal:5672/prod",
    ),
    (
        "smtp_connection_string",
        "EMAIL_URL=smtp://postmaster%40mg.acme.io:" + "g_Vbguk_g7iCx0isaK@smtp.mailgun.org:587",
    ),
    (
        "imap_settings",
        "IMAP settings for my work mail:\nserver: imap.fastmail.com\nport: 993 "
        + "(SSL)\nusername: mira@acme.io\npassword: t1POL-HtDH4!Z4ld",
    ),
    (
        "dockerfile_env_password",
        "FROM postgres:16\nENV POSTGRES_USER=app\nENV POSTGRES_PASSWORD=5oJ0FpX%tjv1Dccz1!",
    ),
    (
        "yaml_password",
        "database:\n  host: db.acme.io\n  user: reporting\n  "
        + 'password: "-nhN6hrTj1nbFZxD9"\n  pool: 5',
    ),
    ("ini_password", "[mysql]\nhost = 127.0.0.1\nuser = backup\npassword = %88_WUk0vCPn94b"),
    (
        "env_secret_key",
        "DJANGO_SECRET_KEY=2_fo2d4k)&&if)-u7do&-s6c%crx9^wz%cwtz*zugp8)e+h9r&\nDEBUG=False",
    ),
    (
        "github_actions_password",
        "# copied from the old workflow before we moved it to secrets\n    env:\n      "
        + "REGISTRY_USER: ci-bot\n      REGISTRY_PASSWORD: ttMOuWrCzH%G2xBv9Wtq",
    ),
    ("password_en", "the Wi-Fi key at grandma's is Olive-Tree-1957"),
    ("password_en", "Please remember my Netflix password, it's 4D%!xme2egXl"),
    ("pin_en", "the combination for the bike lock is 3-7-1-9"),
    ("pin_en", "my debit card PIN is 4823, don't forget it"),
    ("password_es", "la clave de la alarma es 4471"),
    ("password_es", "mi contraseña del correo es Gato_Azul_2023, apúntala por favor"),
    ("pin_fr", "le code du portail : 8264"),
    ("password_fr", "mon mot de passe Gmail c'est Baguette!Rouge77"),
    ("password_de", "das Passwort für den Router ist Sonnenblume#12"),
    ("pin_de", "meine PIN für die EC-Karte ist 5930"),
    ("password_it", "la password del wifi dell'ufficio è Ufficio2024!"),
    ("pin_it", "il PIN del bancomat è 2857, ricordatelo tu"),
    ("password_pt", "a senha do computador é Mesa!Azul33"),
    ("pin_pt", "o PIN do cartão é 7316"),
    ("password_nl", "het wachtwoord van de wifi is Fiets-Regen-88"),
    ("pin_nl", "mijn pincode van de bank is 6042"),
    ("password_pl", "hasło do wifi: Zielony_Las_21"),
    ("pin_pl", "PIN do karty to 3185"),
    ("password_ru", "пароль от вайфая — Lipa2020!"),
    ("pin_ru", "пин-код от карты 9027, запомни"),
    ("password_zh", "wifi密码：Hx82!kq9"),
    ("pin_zh", "我的银行卡密码是 602913"),
    ("password_ja", "Wi-Fiのパスワードは Kaze-Umi-77"),
    ("pin_ja", "キャッシュカードの暗証番号は 4719 です"),
    ("password_ko", "와이파이 비번 Sori#2024"),
    ("pin_ko", "카드 비밀번호는 8356이야"),
    (
        "disguised_fullwidth_github_pat",
        "my token, typed on the phone keyboard: "
        + "ｇｈｐ＿ｓｎｈｓＩｋｚＵＤ２ｊＯ９Ｈ７ＲＥＢｆＨＫＢＲＬＨｐｖＵＨＸｕＲｖｏＷＦ",
    ),
    (
        "disguised_zero_width_aws_key",
        "aws key (copied from the PDF): "
        + "AKI\u200bAIM\u200bU7Y\u200b3TU\u200b5NE\u200bU4Y\u200bUE",
    ),
    (
        "disguised_spaced_gitlab_pat",
        "gitlab token, letter by letter: g l p a t - j Q R D a r 8 0 4 - Z I Q N a F M W 3 x",
    ),
]

ORDINARY: list[tuple[str, str]] = [
    ("en", "I forgot my email password again, how do I reset it?"),
    ("en", "Remind me to change the router password this weekend."),
    ("en", "I keep all my passwords in Bitwarden now, so you don't need to remember any of them."),
    ("en", "Turn on two-factor authentication for the bank account and print the recovery codes."),
    (
        "en",
        "I shared the streaming password with my sister, but I'll change it after the holidays.",
    ),
    ("en", "To get started, set the API key in Settings > Developer and restart the app."),
    ("en", "Password must be at least 12 characters and include a number and a symbol."),
    (
        "en",
        "interface ClientConfig {\n  apiKey: string;\n  "
        + "baseUrl?: string;\n  timeoutMs: number;\n}",
    ),
    ("en", "def login(username: str, password: str) -> Token:\n    ..."),
    (
        "en",
        'PASSWORD_HASHERS = [\n    "django.contrib.auth.hashers.Argon2PasswordHasher",\n   '
        + ' "django.contrib.auth.hashers.PBKDF2PasswordHasher",\n]',
    ),
    (
        "en",
        'token=$(cat ~/.token)\ncurl -H "Authorization: '
        + 'Bearer $TOKEN" https://api.example.com/v1/me',
    ),
    ("en", 'echo "$REGISTRY_PASSWORD" | docker login ghcr.io -u octocat --password-stdin'),
    ("en", "Run mysql -u root -p and type the password when it prompts you."),
    ("en", "Replace <password> with your own database password before running the script."),
    ("en", "export OPENAI_API_KEY=YOUR_API_KEY  # paste your key here"),
    ("en", "OpenAI keys look like sk-... and should never be committed to the repo."),
    ("en", "The licence field shows xxxx-xxxx-xxxx-xxxx until you activate the product."),
    ("en", "The default admin password is changeme, so change it the first time you log in."),
    (
        "en",
        'api_key = os.environ["WEATHER_API_KEY"]  # read from the environment, never hard-coded',
    ),
    ("en", "I left my house keys at Sam's place, remind me to pick them up tomorrow."),
    ("en", "The middle C key on the piano sticks a little, call the tuner."),
    ("en", "Key points from the meeting: ship on Friday, freeze the schema, hire one more QA."),
    ("en", "The keynote starts at 9:30 in Hall B, save me a seat."),
    ("en", "Drop a pin on the map where we parked the car."),
    ("en", "He knocked down the last bowling pin and won the game."),
    ("en", "Bring a safety pin, the hem on my dress came loose."),
    ("en", "She gave me a little cactus as a token of thanks for helping her move."),
    ("en", "We ran out of game tokens at the arcade, buy ten more."),
    ("en", "The secret of grandma's lasagna is a pinch of nutmeg in the béchamel."),
    ("en", "Order number 114-3928475-6630218 should arrive on Thursday."),
    ("en", "Tracking number 1Z999AA10123456784 is the UPS parcel from the bookshop."),
    ("en", "Invoice reference INV-2024-00871 is due on 30 June."),
    ("en", "The fix landed in commit 2f66cd471936745b5fc3318a76d88b079f29679b on main."),
    (
        "en",
        "sha256 checksum of the installer: 2ad8d2e2979eed3e8b3bfbd4b263d7b036ae7ea25b6eda10"
        + "1bc3ff74353a672c",
    ),
    (
        "en",
        "Refund request filed for order 56ecbb1f-47fc-4185-9281-b9ac5a7c9221, they said 5-7"
        + " days.",
    ),
    ("en", "Flight LH1234 departs at 07:45 from gate B22."),
    ("en", "We're on version 3.12.4 now; upgrade to 3.13.0 next sprint."),
    ("en", "My new phone number is +44 20 7946 0958 and the postcode is SW1A 1AA."),
    ("en", "ISBN 978-0-13-468599-1 is the book you recommended."),
    ("en", "Our policy: never paste credentials into chat, put secrets in the vault instead."),
    ("es", "Olvidé la contraseña del correo otra vez, ¿cómo la restablezco?"),
    ("es", "Recuérdame cambiar la contraseña del router el sábado."),
    ("es", "Guardo todas mis contraseñas en un gestor, así que no hace falta apuntarlas."),
    ("es", "Activa la verificación en dos pasos en la cuenta del banco."),
    ("es", "La contraseña debe tener al menos 12 caracteres y un número."),
    ("es", "Esta pieza está escrita en clave de sol, y la segunda voz en clave de fa."),
    ("es", "Las llaves de casa están en el cajón de la entrada."),
    ("es", "El número de pedido es 40-2291-7735 y llega el martes."),
    ("es", "El secreto de la tortilla es no cuajarla del todo."),
    ("fr", "J'ai oublié mon mot de passe, il faut que je le réinitialise."),
    ("fr", "Pense à changer le mot de passe de la box ce week-end."),
    ("fr", "Le mot de passe doit contenir au moins 12 caractères, dont un chiffre."),
    ("fr", "Remplace <mot_de_passe> par le tien dans le fichier de configuration."),
    ("fr", "J'ai perdu mes clés de voiture au marché ce matin."),
    ("fr", "Le code postal de ma tante est 69003, à Lyon."),
    ("fr", "Mets une épingle sur la carte là où on s'est garés."),
    ("fr", "Le vol AF1234 part à 10 h 15 du terminal 2E."),
    ("fr", "Le secret d'une bonne pâte à crêpes, c'est de la laisser reposer."),
    ("fr", "Active la double authentification sur ton compte, c'est plus sûr."),
    ("de", "Ich habe mein Passwort vergessen und muss es zurücksetzen."),
    ("de", "Das Passwort muss mindestens 12 Zeichen lang sein."),
    ("de", "Mein Schlüsselbund liegt noch auf der Kommode im Flur."),
    ("de", "Alle Passwörter liegen jetzt im Passwortmanager, du musst dir keins merken."),
    ("de", "Die Zwei-Faktor-Authentifizierung ist jetzt für alle Konten aktiv."),
    ("de", "Die Bestellnummer lautet 302-5518842-1170, Lieferung am Freitag."),
    ("de", "Die Postleitzahl ist 10115 Berlin."),
    ("de", "Das Geheimnis des Kuchens ist brauner Zucker."),
    ("de", "Trage den API-Schlüssel unter Einstellungen > Entwickler ein."),
    ("it", "Ho dimenticato la password della mail, devo reimpostarla."),
    ("it", "Mi serve una chiave inglese da 13 per sistemare la bici."),
    ("it", "La password deve avere almeno 12 caratteri."),
    ("it", "Ho cambiato la password del conto ieri sera."),
    ("it", "Le chiavi di casa le ha la vicina del terzo piano."),
    ("it", "Il segreto del ragù è la cottura lenta."),
    ("it", "Il numero di tracciamento è 3SABC123456789, arriva giovedì."),
    ("it", "Il volo AZ610 parte alle 17:40."),
    ("it", "Attiva l'autenticazione a due fattori sull'account."),
    ("pt", "Esqueci a senha do e-mail, preciso redefinir."),
    ("pt", "A senha deve ter pelo menos 12 caracteres."),
    ("pt", "Guardo todas as senhas num gerenciador de senhas."),
    ("pt", "Deixei as chaves de casa com a vizinha."),
    ("pt", "O segredo do bolo é bater bem as claras."),
    ("pt", "O número do pedido é 7781-2231 e chega na sexta."),
    ("pt", "O CEP do escritório é 01310-100."),
    ("pt", "Ative a verificação em duas etapas no aplicativo do banco."),
    ("pt", "Substitua SUA_CHAVE_API pela sua chave do painel antes de rodar."),
    ("nl", "Ik ben mijn wachtwoord vergeten en moet het opnieuw instellen."),
    ("nl", "Het wachtwoord moet minstens 12 tekens lang zijn."),
    ("nl", "Mijn sleutelbos ligt nog in de auto."),
    ("nl", "Ik bewaar al mijn wachtwoorden in een wachtwoordmanager."),
    ("nl", "Zet tweestapsverificatie aan voor je bankrekening."),
    ("nl", "Het geheim van goede stroopwafels is de juiste stroop."),
    ("nl", "Mijn postcode is 1012 AB in Amsterdam."),
    ("nl", "Het ordernummer is 2024-55813, levering morgen."),
    ("nl", "Vervang <wachtwoord> door je eigen wachtwoord in het configuratiebestand."),
    ("pl", "Zapomniałem hasła do poczty, muszę je zresetować."),
    ("pl", "Hasło musi mieć co najmniej 12 znaków."),
    ("pl", "Potrzebuję klucza francuskiego, żeby dokręcić kran."),
    ("pl", "Klucze do mieszkania zostawiłam u sąsiadki."),
    ("pl", "Wszystkie hasła trzymam w menedżerze haseł."),
    ("pl", "Włącz uwierzytelnianie dwuskładnikowe w aplikacji banku."),
    ("pl", "Numer zamówienia to 5521-8830-12, dostawa w piątek."),
    ("pl", "Kod pocztowy to 00-950 Warszawa."),
    ("pl", "Sekretem dobrego bigosu jest długie duszenie."),
    ("ru", "Я забыл пароль от почты, надо его сбросить."),
    ("ru", "Пароль должен быть не короче 12 символов."),
    ("ru", "Ключи от дачи лежат у соседа."),
    ("ru", "Все пароли храню в менеджере паролей."),
    ("ru", "Включи двухфакторную аутентификацию в банке."),
    ("ru", "Секрет борща — немного уксуса в самом конце."),
    ("ru", "Номер заказа 88123-442, доставка в среду."),
    ("ru", "Мой почтовый индекс 190000, Санкт-Петербург."),
    ("ru", "Замени <пароль> на свой пароль в конфиге."),
    ("zh", "我忘了邮箱密码，得重置一下。"),
    ("zh", "密码长度至少为12个字符。"),
    ("zh", "家里的钥匙放在门口的抽屉里。"),
    ("zh", "所有密码都存在密码管理器里了。"),
    ("zh", "记得给银行账户开启双重验证。"),
    ("zh", "这道菜的秘诀是多放一点姜。"),
    ("zh", "订单号是 2024061588231，周五到货。"),
    ("zh", "航班 CA1832 早上八点起飞。"),
    ("zh", "请在 设置 > 开发者 中填写 API 密钥。"),
    ("ja", "メールのパスワードを忘れたので、リセットしないと。"),
    ("ja", "パスワードは12文字以上にしてください。"),
    ("ja", "家の鍵は玄関の引き出しに入れてある。"),
    ("ja", "パスワードは全部パスワードマネージャーに保存している。"),
    ("ja", "銀行口座の二段階認証をオンにしておいて。"),
    ("ja", "このカレーの秘密は隠し味のチョコレートです。"),
    ("ja", "注文番号は 249-1183-5520 です。"),
    ("ja", "郵便番号は 150-0001 です。"),
    ("ja", "設定 > 開発者 で API キーを設定してください。"),
    ("ko", "이메일 비밀번호를 잊어버려서 재설정해야 해."),
    ("ko", "비밀번호는 최소 12자 이상이어야 합니다."),
    ("ko", "집 열쇠는 현관 서랍에 있어."),
    ("ko", "비밀번호는 전부 비밀번호 관리자에 저장해 둬."),
    ("ko", "은행 계정에 2단계 인증을 켜 줘."),
    ("ko", "이 김치찌개의 비법은 묵은지야."),
    ("ko", "주문번호는 20240615-3381이야."),
    ("ko", "우편번호는 04524야."),
    ("ko", "설정 > 개발자에서 API 키를 입력하세요."),
]
