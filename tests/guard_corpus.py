"""A labelled corpus for testing the credential guard: data only, no guard logic.

``CREDENTIALS`` holds (format_name, text) pairs: things a person might paste into a chat and
ask the assistant to remember, each with one credential in it. ``ORDINARY`` holds
(language_code, text) pairs that talk about passwords, tokens, keys, PINs and secrets but hold
none, and must never be rejected.

Every value here is FAKE: generated at random for this test with the shape of the real format
(prefix, length, alphabet), and never issued by any service. As in test_guard.py, a
recognisable prefix is joined to the rest with ``+`` so that this file itself does not look
like a leak to a secret scanner; the strings are the same at run time.
"""

# ruff: noqa: RUF001
# (the corpus is multilingual on purpose: fullwidth forms and CJK punctuation are the test data)

from __future__ import annotations

CREDENTIALS: list[tuple[str, str]] = [
    # --- cloud providers -------------------------------------------------------------------
    (
        "aws_access_key_id",
        "Remember the access key id for the backup bucket: AKIA" + "IVXLMOUXSA2M6JYD",
    ),
    (
        "aws_access_key_id",
        "Diego's IAM user for the photo sync uses AKIA" + "WHQ2X63GXDV2IRDD" + " in eu-west-1",
    ),
    (
        "aws_temporary_access_key_id",
        "The session credentials from sts are ASIA" + "YRO6RTXHJ54TNKTM" + ", valid for an hour",
    ),
    (
        "aws_secret_access_key",
        "Please remember this for my ~/.aws/credentials:\n"
        "aws_secret_access_key = " + "v1p1nH9ogT6cu9YK" + "qMqx1qPiKTaQrmh0GPHoMCNs",
    ),
    (
        "aws_secret_access_key",
        "[default]\naws_access_key_id = AKIA" + "YBFPAYLL2LT7T2RN" + "\n"
        "aws_secret_access_key = " + "RcgazCkXEDntcSLb" + "MjI5v+hXwJTVsL4PbpiPZCNM",
    ),
    (
        "azure_storage_connection_string",
        "Connection string for the blob storage: DefaultEndpointsProtocol=https;"
        "AccountName=diegophotos;AccountKey="
        + "Rjb7RjBxO+EpumrpZw/vhmeQfbSpHXMScgfQTxrhZHaKnNSpphjaOwYrLI5RYNjq"
        "lkWiSuU9F17fXNrbE/h7sg==" + ";"
        "EndpointSuffix=core.windows.net",
    ),
    (
        "azure_storage_account_key",
        "Remember the storage account key for 'familyarchive': AccountKey="
        + "FSkGZDAtyl3j8WQ0bngXngGrEBK6JnxhoW5os9nGJkWllyiVDT5fJN4pL/KGDuER"
        "le4aIefBdzlCAiriJgP7oA==",
    ),
    (
        "azure_sas_url",
        "Share link for the backups container: https://diegophotos.blob.core.windows.net/"
        "backups?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-12-31T23:59:59Z&st=2026-01-01T00:00:00Z"
        "&spr=https&sig=" + "AIcCyDaFOSwuKdJmx6GO4SGT1p3pnyqofGCDFEMS1g8%3D",
    ),
    (
        "azure_sas_url",
        "Upload URL for the invoices: https://acmeinvoices.blob.core.windows.net/inbox/"
        "march.pdf?sp=racw&st=2026-03-01T08:00:00Z&se=2026-03-08T08:00:00Z&spr=https"
        "&sv=2022-11-02&sr=b&sig=" + "vpwBul6V%2Fs07pGXp9TZ0SAOT6hbcWG%2Bmm57VarkDb0I%3D",
    ),
    (
        "google_api_key",
        "The Maps key for the garden app is AIza" + "9Z37xhuZYvvjjyD4xTKzDEnbRiBHDfVcm65",
    ),
    (
        "google_api_key",
        "Remember GOOGLE_API_KEY for Gemini: AIza" + "6zDQW88TwcRXfBh0DuieS9xPU53O983NdSh",
    ),
    (
        "google_oauth_client_secret",
        "OAuth client for the calendar script: client_id 4827" + "52303233"
        "-2v98b0q7xrack48ne4xsjf6aom3kbpyg.apps.googleusercontent.com, client_secret GOCSPX-"
        + "FLWDIFuZQJeFWaAmHvw5cSbfd27f",
    ),
    (
        "google_oauth_client_secret",
        "Google client secret for the home dashboard is GOCSPX-" + "qSqxHbA7y0s-EalRIzookGUEuvQA",
    ),
    # --- source hosting and package registries ---------------------------------------------
    (
        "github_token_classic",
        "My GitHub token for the blog deploy is ghp_" + "Gyv3lOIjfIymYR52E8yqtP6VhlEAJ9Zb9wHH",
    ),
    (
        "github_token_classic",
        "Save this so I can push from the Raspberry Pi: ghp_"
        + "GNUIPRZpjqNuthrUxE0TsTZmpjskb5p9dO97",
    ),
    (
        "github_oauth_token",
        "The gh CLI stored gho_"
        + "uCaLbV7SjlaOlkvTl35Mui6xIWfICc6hKm0L"
        + " in hosts.yml, remember it",
    ),
    (
        "github_app_token",
        "Installation token for our bot app: ghs_" + "h5lu9Et0A0f4Kd99sh8eeKy1lodWQsRalPKm",
    ),
    (
        "github_user_to_server_token",
        "Remember the user-to-server token ghu_"
        + "QvipgkDfCHEmMYYDNHSnMd8FXGWAHXKfKpZ5"
        + " for the Copilot test",
    ),
    (
        "github_refresh_token",
        "GitHub app refresh token, keep it: ghr_" + "mD7PPs9h3kmbK5Dh17bLGuUirY3rEI8UnBrj",
    ),
    (
        "github_fine_grained_pat",
        "Fine-grained token for the dotfiles repo: github_pat_"
        + "11AGELYSTH4D5RQ2TCA5GH_oh6PXUBg8KHeKi7L2RDDvkziZTtq1Q4Nkmaj40ujqg071G7si3xYCKH5V42",
    ),
    (
        "github_fine_grained_pat",
        "GITHUB_TOKEN=github_pat_"
        + "11FQKQAE665CMKTAF619HO_yVB6ezFPek4NeR9lZjXkWMUuwfPlOElfFgelLJmmSM4HG5TqzAXatANXJ2E",
    ),
    (
        "gitlab_pat",
        "GitLab personal access token for work: glpat-" + "czzA4Gkwu7auWMdLPi7R",
    ),
    (
        "gitlab_pat",
        "Use glpat-" + "KjUaVzfTPDkYgNKvo_pn" + " when cloning the infra repo over https",
    ),
    (
        "npm_token",
        "Remember my npm publish token: npm_" + "GNBCOujG6ExxAntZC4ozEmsOMdb8TfrSyo8r",
    ),
    (
        "npm_token",
        "Put this in .npmrc: //registry.npmjs.org/:_authToken="
        + "npm_"
        + "TVikW8nsOqqcCvqGnWuvpUN1h2MXqpI64uAN",
    ),
    (
        "pypi_token",
        "PyPI upload token for memstore: pypi-AgEIcHlwaS5vcmc"
        + "CJ62TKuYr7GNdOtq7DU0jQGKGl5qOFxWM0DFCdwz0kVBPrLRs-BUAAjH2elZSRHAek"
        "FASXOS2R4-Oy9JCffn-h_qRDd-2_sExbTfIdjW0qwC5Wop8Fqlec63sTlrRVMuLp"
        "zbwyBdPIJJY7wphWbjBpcD",
    ),
    (
        "pypi_token",
        "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc"
        + "CJnNaMsA5nMM5ypCwYjPSLR-u4orsOeC8nIyKrpaHFLAGqB1KXYnCUW239oLjrVBbM"
        "ro_AQMbOh-0s8SfhRIINzUfg3Arl6erpGa0XA4q9Fn8jrxwkTfI56QFY8ej5VYAa"
        "t3udHwC7Ko6e",
    ),
    (
        "docker_pat",
        "Docker Hub access token for CI: dckr_pat_" + "ZjEC036C0egdCLyV6xredkXYEgk",
    ),
    (
        "docker_pat",
        "docker login -u diegom --password dckr_pat_" + "qlNQEov7vhnZaL5q9jY2k2i15R0",
    ),
    # --- AI providers ----------------------------------------------------------------------
    (
        "openai_api_key",
        "My old OpenAI key is sk-" + "GQKMDkZTAmYq01YGaKVkT3BlbkFJ2Zb0UctONwuanrUJ2igu",
    ),
    (
        "openai_api_key",
        "Remember the key for the translation script: sk-"
        + "cLo0zm7cHgKrDLpOwBw5T3BlbkFJoEmmZziCikpNr92KGrlC",
    ),
    (
        "openai_project_key",
        "New OpenAI project key: sk-proj-"
        + "y70CPuMCjos0aXzn1eQ8Go_FKNOtJDVTBYpcPGkJeocQbl32eDOPv85zp5aQ_dWm"
        "w4Oht-wxDVT3BlbkFJt7m_FxPBhsPcgwzh6142kuS8Ick9DGD0F-1asFphqcQA8L"
        "Gz8e2guxOF2_Ms2ARQbU2NZ0oZ2B",
    ),
    (
        "openai_project_key",
        "Use sk-proj-" + "0ZXM0U0lkB6ahCWCZkFDxb0XzR-veoIzO2bF4EHUu9bbIz_q_AVnotmPsNxDEr5Z"
        "MJ9jES3Rr4T3BlbkFJ3_dc1leHOD7ULxAhd4t8SZzeg8A2cYbCPpv7qSKu_XTlLC"
        "sGitn-TG3DPoLe3aa4uiv4Y1Trwe" + " for the meal planner",
    ),
    (
        "anthropic_api_key",
        "Claude API key for the side project: sk-ant-api03-"
        + "XgSGuO-Z2YQds9DeNCcyzXWH3qua4Lte-OFbNffuYMwKhDkOyRie6DJ6rCJKX83M"
        "Hdgwt_ilUOSZj5S3H9NasNs6FmEUbAA",
    ),
    (
        "anthropic_api_key",
        "ANTHROPIC_API_KEY is sk-ant-api03-"
        + "GrItZ0KhsE3f-OM1mLcJUr7tmbqyUhJe_FvRDO0YRm-Kz0rF7YWdOncUX-saqS-v"
        "hxNtPWySBBxlujMh2KK5i3CxxkHRxAA" + ", remember it",
    ),
    (
        "huggingface_token",
        "Hugging Face read token: hf_" + "hRnlqgygyvKoipARlPcrhPFyEKGBgVuLKa",
    ),
    (
        "huggingface_token",
        "huggingface-cli login --token hf_" + "kTRCszVNbCONEvuvipCnlMLXDiPhYRnQXp",
    ),
    (
        "replicate_token",
        "Replicate API token for the image bot: r8_" + "oKESIYnJza0CLpynBl8wgxml9VxAi9edIVxaf",
    ),
    (
        "replicate_token",
        "export REPLICATE_API_TOKEN=r8_" + "OHVOi3TBnU6XBTPTcxJWBYqhu822k39BY4pY3",
    ),
    # --- email, payments, messaging --------------------------------------------------------
    (
        "mailgun_api_key",
        "The Mailgun key for the newsletter is key-" + "f74e19c6808d564f744eca1f54333e28",
    ),
    (
        "mailgun_api_key",
        "curl -s --user 'api:key-"
        + "4e95a6c36e8e1d9df3d7255680290525"
        + "' https://api.mailgun.net/v3/mg.example.org",
    ),
    (
        "mailchimp_api_key",
        "Mailchimp API key for the shop list: " + "346451d507fc9923f0cc74ac0bd5b760" + "-us12",
    ),
    (
        "mailchimp_api_key",
        "Remember MAILCHIMP_KEY "
        + "d0df9a4aa33a5dc090c4bebfb3255fbf"
        + "-us12 for the signup form",
    ),
    (
        "sendgrid_api_key",
        "SendGrid key for the password reset emails: SG."
        + "DNBa0cn9AeQZuSZKb33INX.mwr2ShRIrJ9SsErBUhkG4hodTciPy4OMt1qQqGV8Kh8",
    ),
    (
        "sendgrid_api_key",
        "SENDGRID_API_KEY=SG."
        + "ZSsWqCpYrCFebRp6X6-1Cs.1xQB-LGr3YoeRUlg_G6WldV046JI7kkJaZ5TuhHWJDD",
    ),
    (
        "stripe_secret_key",
        "Live Stripe secret key for the shop: sk_live_" + "6lcGt2BtbBPgpLB3dh64zfqj",
    ),
    (
        "stripe_secret_key",
        "Remember the new Stripe key sk_live_"
        + "51KFra6EM1awT3TuYW2sFasunJixaNk8hKpm3LrKUF5S6TTLl3j7pvEf0sW8cJwuxK"
        "iXecxIhK5fKJFPgApICkCxWs3hoChCx7W",
    ),
    (
        "stripe_restricted_key",
        "Restricted key for the reporting job: rk_live_"
        + "51bZwxBD0zAqAkbXwUGNrEIFe1VGBqPqoKFSGaVJfDed0EJa3CJdutfwzlIl6tmsHz"
        "lYhwqLtwQBRl0tXc7TTAGQIGPKMkL214F",
    ),
    (
        "slack_bot_token",
        "Our Slack bot token is xoxb-" + "853885557217-3454850851180-yk0AjbSVLUNUx5KIfxHgmaxI",
    ),
    (
        "slack_bot_token",
        "SLACK_BOT_TOKEN=xoxb-" + "10479132844-6931342462712-B1xdn7Dldqz3GMNm8uW9kl5Z",
    ),
    (
        "slack_user_token",
        "My Slack user token for the export script: xoxp-"
        + "920454837878-815559425904-3984953135640-b64d84fbb7b89d095a84f173360e8f38",
    ),
    (
        "slack_webhook_url",
        "Webhook for the #alerts channel: https://hooks.slack.com/services/"
        + "TWG4PVN09UY/BODCMPAKODG/eeCIWVPej9IYeVX7l68knTOJ",
    ),
    (
        "slack_webhook_url",
        "Remember the deploy notifications hook https://hooks.slack.com/services/"
        + "TSY09C63L/B655GW4T1KX4/9xJvFgw0NIO7TcJskqRfTxrG",
    ),
    (
        "discord_bot_token",
        "Discord bot token for the game night bot: MzU"
        + "wNTM2MjMzMjA0NDczMjk0Mw.Gwo7gE.Q0cOOpZ8wWWVNpZUiGcBbAObFFEguHlXLgMDdr",
    ),
    (
        "discord_bot_token",
        "DISCORD_TOKEN=MjQ"
        + "zMjE0NTc4MjUxODcwNDc3NA.DZOh-N.wMigcZ7nVyYsOf6aP_h1FEQpbMPEEJuUrGTVM-",
    ),
    (
        "telegram_bot_token",
        "BotFather gave me this token: " + "9085599269:" + "AAn_huxjjos5uRMNaMGIhnGXQ4yL_KRAscU",
    ),
    (
        "telegram_bot_token",
        "Telegram bot for the plant reminders: "
        + "445353328:"
        + "AAjrNzIHjfcBU2unGV8vrVgSM3F7yCJhJKj",
    ),
    (
        "twilio_api_key",
        "Twilio API key SK"
        + "07e81125c89c250eee5abfbd9e589dcb"
        + " with secret Yl43VFTeTGRGJOBeCAoHykYqzGo6Df2t",
    ),
    (
        "twilio_account_credentials",
        "Twilio account AC"
        + "e3af7e2b26330a45758a41728bca7513"
        + ", auth token e07a93abf02140861223e7feab6edeb7",
    ),
    (
        "twilio_account_credentials",
        "TWILIO_ACCOUNT_SID=AC"
        + "aff8eb7df38bf0eba1d0dbd96e9d3796"
        + "\nTWILIO_AUTH_TOKEN=8cae70fccf15bc3e7b58f4098ff88aa2",
    ),
    (
        "square_access_token",
        "Square production access token: EAAA"
        + "xvlYBOVy3KCwhnzdMvrlcvTfWPU9OWbO7BXr3vQH6IyQ_aZtQxAK4qu38Fr-",
    ),
    (
        "square_oauth_secret",
        "Square application secret for the cafe POS: sq0csp-"
        + "ZbSx1TGhSmZ58ybBDewZbuZ1aqTbF9Nu9iW7tcmhcD3",
    ),
    (
        "shopify_access_token",
        "Shopify admin API token for the store: shpat_" + "0e7f4bb56987ab85e3bdf87f47064c2b",
    ),
    (
        "shopify_access_token",
        "SHOPIFY_ACCESS_TOKEN=shpat_" + "02d0f868be23d1603246ceb1b0438cef",
    ),
    (
        "digitalocean_token",
        "DigitalOcean token for terraform: dop_v1_"
        + "f5bc1ad860d7bb1ff76f00f706fecb50493d70130b79157255c56d55d0cb83ab",
    ),
    (
        "digitalocean_token",
        "doctl auth init -t dop_v1_"
        + "4daa3319c1f35736f0f770a60aebe5705b308ddaf49e7e34c710897ea9da819c",
    ),
    (
        "heroku_api_key",
        "HEROKU_API_KEY=" + "47f1bdb8-9cd0-47b0-93e0-ae03239e29e7",
    ),
    (
        "heroku_api_key",
        "Remember this for the old app: HEROKU_API_KEY=" + "4ee48e5a-da66-4c2c-998e-98f8af388c45",
    ),
    # --- tokens, keys and headers ----------------------------------------------------------
    (
        "jwt",
        "Session token from the staging API: eyJ"
        + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJkaWVnbyIsIm5hbWUiOi"
        "JEaWVnbyBNIiwiaWF0IjoxNzY3MjI1NjAwLCJleHAiOjE3OTg3NjE2MDB9.xnmUH"
        "qOWTy7a2b9HXCp4Edd4X7_bl6iqq4nLpeQRzRs",
    ),
    (
        "jwt",
        "Authorization cookie I copied: eyJ"
        + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1aWQiOjQ4MjEsInJvbGUiOiJhZG"
        "1pbiIsImlzcyI6ImF1dGguYWNtZS5kZXYiLCJpYXQiOjE3NzIwMDAwMDB9.AmGfk"
        "gvoj-oBGVEyKGXENRFQAbo3F6vog4kR6fICQnI",
    ),
    (
        "private_key_rsa",
        "Keep my deploy key for the backup box:\n"
        "-----BEGIN RSA " + "PRIVATE KEY-----\n"
        "MIIEowIBAAKCAQEARotLZicYjYUFFxy3SYlIvOJxpGmWtNthOuIC4yZdZ15LYEZL\n"
        "Jg3FN/XCKPhCT/ydtsWFtsZ/OwPBviyFeZ8ibMmRUlw+QhD5nAWiDW4RDtKibe4S\n"
        "56sulsF/w4j3ES27AM7J7vGSTVGU7PJPRL5MKgQGwkaJXANGLexbCj+5cz304TVA\n"
        "WE2oqPHdmabmVrTLk5KsnQqdHOjhrNRsJNlKSVCY8jImjJPMnmehe7SK8ssAsHDc\n"
        "/vNN3SPGFMCSQD5wY158RVISPYJAvSDfDU3DMe3R\n"
        "-----END RSA PRIVATE KEY-----",
    ),
    (
        "private_key_openssh",
        "This is my laptop's ssh key, remember it in case I lose the disk:\n"
        "-----BEGIN OPENSSH " + "PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "QyNTUxOQAAACADRUlZkTEtQsyn9DIfkXtmlNMApYx9P49EPS9/jbmv9gAAAJBouckzaLnJ\n"
        "MwAAAAtzc2gtZWQyNTUxOQAAACADRUlZkTEtQsyn9DIfkXtmlNMApYx9P49EPS9/jbmv9g\n"
        "AAAEBkAoCtTgAztYtiCc2tOgUG3H/pF3ANNt5DiX/i8MFsMwNFSVmRMS1CzKf0Mh+Re2aU\n"
        "0wCljH0/j0Q9L3+Nua/2AAAADGRpZWdvQGxhcHRvcAE=\n"
        "-----END OPENSSH PRIVATE KEY-----",
    ),
    (
        "private_key_ec",
        "TLS key for the home server:\n"
        "-----BEGIN EC " + "PRIVATE KEY-----\n"
        "MHcCAQEEIKS9HIeUuhsh0OPVUS7gDf1TVoN+ew0Qgh3zpLc4mRlSoAoGCCqGSM49\n"
        "AwEHoUQDQgAEpm7G58RDFOJjG9VN41PFw0Zi+MHF4j7cSV5Cxx67IvA2OgqFMEWp\n"
        "YOl7iOJTdntqo3ry497c1NaS5mEsdcfluw==\n"
        "-----END EC PRIVATE KEY-----",
    ),
    (
        "private_key_pgp",
        "My PGP secret key, exported with gpg --armor:\n"
        "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\n\n"
        "lQPGBGXM+2B1ptHfEE3J6cG8k4hyawcIdyjNZrpktY6iJCO+hCbb2BbAJROLxEIi\n"
        "JXjOTqtE0AyGHBF6ZOwBq/IyGh41vtb0QsJKqAH43qpXButInh40Pp75ypvYD22s\n"
        "BSDubwxbL3Zgj56jFneAkmHNIjQkVW3OrFcoSeFZdCxj1wk31jWy4gnA5MV19MOO\n"
        "XDIzBoGuwpfMLQCi94VNxzHCa2lFm8hWNZu3KblRuo005DCXNsX7c4w9Bg00FKTc\n"
        "=gKks\n"
        "-----END PGP PRIVATE KEY BLOCK-----",
    ),
    (
        "http_basic_auth_header",
        "The router API wants Authorization: Basic " + "YWRtaW46VGVycmF6YSFOYXJhbmphNjE=",
    ),
    (
        "http_basic_auth_header",
        "curl -H 'Authorization: Basic "
        + "ZGllZ28ubTpMYXZhbmRhJlJpZWdvNw=="
        + "' https://nas.local/api",
    ),
    (
        "http_bearer_header",
        "Header for the home assistant API: Authorization: Bearer "
        + "R4mzXA813uxt6YbjCp111SPRW5rarU58EKB7D9aT1IkLvMLh5PQPKxqV0ntaSWFc",
    ),
    (
        "http_bearer_header",
        "Authorization: Bearer " + "cVCY00scU83txB3HGtnPbJOXw5GRLxBfzGNcqAex",
    ),
    # --- URLs, environment and command lines -----------------------------------------------
    (
        "url_with_password",
        "Prod database: postgres://app:" + "S3cr&t!Hg7cgp@db.internal:5432/prod",
    ),
    (
        "url_with_password",
        "Remember the Redis URL redis://default:" + "Xq%9$LmwPpLynie@cache.internal:6379/0",
    ),
    (
        "url_with_password",
        "mongodb+srv://diego:" + "Ka#yak!TC6tj@cluster0.mongodb.net/recipes",
    ),
    (
        "url_with_password",
        "The NAS share is at https://morgan:" + "Pin&Tree$6lQC@nas.home.lan:5001/photos",
    ),
    (
        "env_db_password",
        "Remember the .env for the shop: DB_USER=shop DB_PASSWORD=" + "Olivo$LNx9t44EJe",
    ),
    (
        "env_db_password",
        "POSTGRES_PASSWORD=" + "2Lge4yCpdMetPEmvreB2L2lG",
    ),
    (
        "env_openai_api_key",
        "OPENAI_API_KEY=sk-" + "UHdXfLKVrhKr5BY5MUSGT3BlbkFJTD8r2T8j7kgFCPkGm318",
    ),
    (
        "env_export_aws_secret",
        "Add this to my .zshrc: export AWS_SECRET_ACCESS_KEY="
        + "fgBkcA+iqYcgTTlQ"
        + "xbpuMS31sCMPoITxJxSStCUV",
    ),
    (
        "cli_sshpass",
        "To get into the backup box: sshpass -p '" + "Gr4nito!OcqE' ssh diego@192.168.1.20",
    ),
    (
        "cli_mysql_password",
        "The command that works is mysql -u root -p" + "S3cretpaN6mp -h 127.0.0.1 shop",
    ),
    (
        "cli_curl_user",
        "curl -u diego:" + "Marmota_JUodl https://jenkins.home.lan/job/backup/build",
    ),
    # --- labelled passwords, PINs and API keys ---------------------------------------------
    ("labelled_password_no_digits", "My password is swordfish"),
    ("labelled_password_no_digits", "The wifi password is correcthorsebatterystaple"),
    ("labelled_password_no_digits", "Remember that Diego's email password is lavenderfields"),
    ("labelled_password_en", "My bank password is Granite!Owl93, don't forget it"),
    ("labelled_pin_en", "Remember my garage door PIN is 7305"),
    ("labelled_api_key_en", "The weather API key is " + "7c8f5c37dd04d43ad44b85dd2f061a99"),
    ("labelled_password_es", "Mi contraseña es Girasol-2023"),
    ("labelled_password_es", "La contraseña del wifi de la casa de la playa es Olas#Marea19"),
    ("labelled_pin_es", "El PIN de mi tarjeta es 3917"),
    ("labelled_api_key_es", "Mi clave de API del tiempo es " + "59ab1e44190cad4d14fbb1752b236c61"),
    ("labelled_password_fr", "Mon mot de passe est Baguette#42"),
    ("labelled_password_fr", "mdp du compte EDF : Lavande!Provence8"),
    ("labelled_pin_fr", "Le code PIN de ma carte bleue est 6043"),
    ("labelled_password_de", "Mein Passwort lautet Tannenbaum_77"),
    ("labelled_password_de", "Das WLAN-Kennwort ist Brezel&Senf2025"),
    ("labelled_pin_de", "Meine PIN für die EC-Karte ist 2958"),
    (
        "labelled_api_key_de",
        "Mein API-Schlüssel für den Kalender: " + "s3pFtUkbFxUsTyRIb4kz44nNIPfNlwjZ",
    ),
    ("labelled_pin_it", "Il mio PIN del bancomat è 4821"),
    ("labelled_password_it", "La mia password di Netflix è Pizzaiolo!56"),
    ("labelled_password_pt", "A senha do Wi-Fi é Praia@Sol22"),
    ("labelled_password_pt", "Minha senha do banco é Caju#Doce81"),
    ("labelled_api_key_pt", "A minha chave de API é " + "mhG7whJs6o0RkYeGXnpx3szZ4JBcpKge"),
    ("labelled_password_nl", "Mijn wachtwoord is Tulp!2024"),
    ("labelled_pin_nl", "Mijn pincode is 8841"),
    ("labelled_password_pl", "Moje hasło to Kot#Mruczek7"),
    ("labelled_pin_pl", "Mój PIN do karty to 5172"),
    ("labelled_password_ru", "Мой пароль: Zvezda_1987"),
    ("labelled_pin_ru", "ПИН-код от карты: 3391"),
    ("labelled_password_zh", "我的密码是 Xk9#mPq2"),
    ("labelled_api_key_zh", "我的 API 密钥是 " + "VG19H0HM05Pys39NAKbrJ2zdKPYR9IWg"),
    ("labelled_password_ja", "パスワードは Sakura*2024 です"),
    ("labelled_pin_ja", "キャッシュカードの暗証番号は 7731 です"),
    ("labelled_password_ko", "내 비밀번호는 Haneul!88 이야"),
    ("labelled_password_ko", "와이파이 비밀번호는 Bada#Pado52 예요"),
    # --- obfuscated copies of a token ------------------------------------------------------
    (
        "github_token_fullwidth",
        "Remember my token: "
        "ｇｈｐ＿Ｎｌ１ＪＨ０Ｔ４ＶＲＧｗＣｉＪＯ４ｌＣｘｏｄＸ９ＹＫＡｇ２ＧＣ８ＳａＪ３",
    ),
    (
        "github_token_zero_width",
        "Remember my token: ghp_itKiyi\u200bgpOs75\u200d8oXyMo\u200b1FlKOs\u200dw69l8f\u200blZhWlM",
    ),
    (
        "github_token_spaced",
        "Remember my token: "
        "g h p _ 6 R q v v 2 Z M 7 O Z g h M b H u 0 q R 2 T n 7 6 I e k F l 4 Z y W g 7",
    ),
]

ORDINARY: list[tuple[str, str]] = [
    # --- English ---------------------------------------------------------------------------
    ("en", "In the Pydantic model the signup field is `password: str`."),
    ("en", "The settings class declares `password: SecretStr` so it never gets logged."),
    ("en", "In the TypeScript interface it is `password: string`, and it is not optional."),
    ("en", "The client constructor takes `api_key: Optional[str] = None`."),
    ("en", "Password: required"),
    ("en", "API key: required"),
    ("en", "password: expired"),
    ("en", "token: see the vault"),
    ("en", 'The app reads `api_key = os.environ["OPENAI_API_KEY"]` at startup.'),
    ("en", "The script asks for it with `password = getpass.getpass()`."),
    ("en", "In docker-compose we write DB_PASSWORD=${DB_PASSWORD} and the shell fills it in."),
    ("en", "Remind me to set OPENAI_API_KEY in my shell before running the notebook."),
    ("en", "PIN = personal identification number"),
    ("en", "Map pin: Casa Azul"),
    ("en", "I ran pwd: /home/diego/projects"),
    ("en", "My DHL tracking number is 1Z999AA10123456784"),
    (
        "en",
        "The file should start with -----BEGIN PRIVATE KEY----- and I keep it in 1Password.",
    ),
    ("en", "The docs use postgresql://user:password@localhost/db as the example."),
    ("en", "The README example is https://user:pass@example.com, replace it with your own."),
    ("en", "I changed my password yesterday."),
    ("en", "Diego rotates his API keys every 90 days."),
    ("en", "The token expired, I need to log in again."),
    ("en", "Diego's key ring has three keys."),
    ("en", "The keynote is on Monday."),
    ("en", "Key takeaway: ship smaller PRs."),
    ("en", "The fix is in commit 3f9a2c1d4e5b."),
    ("en", "My order id is 123e4567-e89b-12d3-a456-426614174000."),
    ("en", "Diego prefers password managers over sticky notes."),
    ("en", "Morgan never writes her PIN on the back of her card."),
    ("en", "Diego thinks secrets belong in the vault, not in the repository."),
    ("en", "The word of the day is Donaudampfschifffahrtsgesellschaft."),
    ("en", "The password reset link only works for 15 minutes."),
    ("en", "We keep credentials in AWS Secrets Manager, never in a committed .env file."),
    ("en", "The API key goes in the X-Api-Key header; ask ops for one."),
    ("en", "My bank says the PIN must be four digits and not my birthday."),
    ("en", "The secret to good bread is a long, cold proof."),
    ("en", "Use a passphrase of at least five random words for the laptop."),
    ("en", "Access tokens last 15 minutes and the refresh token lasts 30 days."),
    ("en", "The Authorization header should look like `Bearer <token>`, from the login call."),
    ("en", "SSH keys live in ~/.ssh and the public key is the .pub file."),
    ("en", "Credentials: ask Morgan, she has access to the shared vault."),
    ("en", "The Wi-Fi password is on the sticker under the router."),
    ("en", "Diego's keyboard has a sticky 'k' key."),
    ("en", "Morgan's two-factor codes come from an authenticator app, not SMS."),
    # --- Spanish ---------------------------------------------------------------------------
    ("es", "Contraseña: olvidada, hay que pedir una nueva al banco."),
    ("es", "Palabras clave: jardín, lavanda, riego"),
    ("es", "La clave del éxito es la constancia."),
    ("es", "Olvidé la contraseña del correo y tuve que restablecerla."),
    ("es", "Diego cambia sus contraseñas cada tres meses."),
    ("es", "El token de acceso caduca cada hora."),
    ("es", "Recuérdame copiar la llave de la casa de la playa."),
    ("es", "El PIN de la tarjeta nueva llega por correo en una carta aparte."),
    ("es", "Mi gestor de contraseñas me avisa cuando repito una."),
    ("es", "La clave de API va en una variable de entorno, nunca en el código."),
    # --- French ----------------------------------------------------------------------------
    ("fr", "mot de passe : oublié"),
    ("fr", "J'ai changé mon mot de passe hier soir."),
    ("fr", "Le jeton expire au bout d'une heure, il faut se reconnecter."),
    ("fr", "Diego garde ses mots de passe dans un gestionnaire."),
    ("fr", "La clé de la cave est sous le pot de fleurs."),
    ("fr", "Le code PIN de la nouvelle carte arrive par courrier."),
    ("fr", "Mots-clés : randonnée, Alpes, juillet"),
    ("fr", "La clé du succès, c'est la patience."),
    ("fr", "La banque rappelle de ne jamais envoyer son mot de passe par e-mail."),
    ("fr", "Le secret d'une bonne pâte à crêpes, c'est de la laisser reposer."),
    # --- German ----------------------------------------------------------------------------
    ("de", "Passwort: vergessen"),
    ("de", "Ich habe mein Passwort gestern geändert."),
    ("de", "Das Token ist abgelaufen, ich muss mich neu anmelden."),
    ("de", "Diego benutzt einen Passwortmanager statt Zettel am Monitor."),
    ("de", "Der Schlüssel für den Keller hängt neben der Tür."),
    ("de", "Die neue PIN kommt per Post in einem separaten Brief."),
    ("de", "Donaudampfschifffahrtsgesellschaftskapitän ist ein sehr langes Wort."),
    ("de", "Schlüsselwörter: Garten, Lavendel, Bewässerung"),
    ("de", "Der API-Schlüssel gehört in eine Umgebungsvariable, nicht ins Repository."),
    ("de", "Das Geheimnis eines guten Brotes ist Geduld."),
    # --- Italian ---------------------------------------------------------------------------
    ("it", "Ho dimenticato la password della posta."),
    ("it", "Diego cambia le password ogni tre mesi."),
    ("it", "Il token è scaduto, devo rifare l'accesso."),
    ("it", "Il PIN del bancomat nuovo arriva per posta."),
    ("it", "La chiave della cantina è nel cassetto della cucina."),
    ("it", "Parole chiave: giardino, lavanda, irrigazione"),
    ("it", "La chiave del successo è la costanza."),
    ("it", "Password: da reimpostare"),
    ("it", "Morgan preferisce un gestore di password ai post-it."),
    # --- Portuguese ------------------------------------------------------------------------
    ("pt", "Esqueci a senha do e-mail outra vez."),
    ("pt", "Troquei a senha do banco na semana passada."),
    ("pt", "O token expirou, preciso entrar de novo."),
    ("pt", "O PIN do cartão novo chega pelo correio."),
    ("pt", "Palavras-chave: praia, sol, férias"),
    ("pt", "A chave do sucesso é a persistência."),
    ("pt", "Diego guarda as senhas num gerenciador de senhas."),
    ("pt", "Senha: obrigatória"),
    ("pt", "A chave de API fica numa variável de ambiente, nunca no código."),
    # --- Dutch -----------------------------------------------------------------------------
    ("nl", "Ik ben mijn wachtwoord vergeten."),
    ("nl", "Ik heb gisteren mijn wachtwoord gewijzigd."),
    ("nl", "Het token is verlopen, ik moet opnieuw inloggen."),
    ("nl", "Diego gebruikt een wachtwoordmanager in plaats van briefjes."),
    ("nl", "De pincode van mijn nieuwe pas komt per post."),
    ("nl", "Wachtwoord: verplicht"),
    ("nl", "De sleutel van de schuur ligt onder de bloempot."),
    ("nl", "Trefwoorden: tuin, lavendel, water geven"),
    ("nl", "De API-sleutel staat in een omgevingsvariabele, niet in de code."),
    # --- Polish ----------------------------------------------------------------------------
    ("pl", "Zmieniłem hasło w zeszłym tygodniu."),
    ("pl", "Zapomniałam hasła do poczty."),
    ("pl", "Token wygasł, muszę zalogować się ponownie."),
    ("pl", "Nowy PIN do karty przyjdzie pocztą."),
    ("pl", "Diego trzyma hasła w menedżerze haseł."),
    ("pl", "Hasło: wymagane"),
    ("pl", "Słowa kluczowe: ogród, lawenda, podlewanie"),
    ("pl", "Klucz do piwnicy wisi przy drzwiach."),
    ("pl", "Klucz API trzymamy w zmiennej środowiskowej, nie w repozytorium."),
    # --- Russian ---------------------------------------------------------------------------
    ("ru", "Я забыл пароль от почты."),
    ("ru", "Вчера я сменил пароль в банке."),
    ("ru", "Токен истёк, нужно войти заново."),
    ("ru", "Новый ПИН-код придёт по почте."),
    ("ru", "Диего хранит пароли в менеджере паролей."),
    ("ru", "Пароль: обязательное поле"),
    ("ru", "Ключевые слова: сад, лаванда, полив"),
    ("ru", "Ключ от гаража лежит в ящике стола."),
    ("ru", "API-ключ хранится в переменной окружения, а не в коде."),
    # --- Chinese ---------------------------------------------------------------------------
    ("zh", "我忘记了邮箱密码。"),
    ("zh", "我昨天修改了银行密码。"),
    ("zh", "令牌过期了，需要重新登录。"),
    ("zh", "新银行卡的密码函会单独寄来。"),
    ("zh", "迪亚哥用密码管理器保存所有密码。"),
    ("zh", "密码：必填"),
    ("zh", "关键词：花园、薰衣草、浇水"),
    ("zh", "车库的钥匙在抽屉里。"),
    ("zh", "API 密钥放在环境变量里，不要写进代码。"),
    # --- Japanese --------------------------------------------------------------------------
    ("ja", "パスワードを変更しました。"),
    ("ja", "メールのパスワードを忘れてしまった。"),
    ("ja", "トークンの有効期限が切れたので、もう一度ログインが必要です。"),
    ("ja", "新しいカードの暗証番号は郵送で届きます。"),
    ("ja", "ディエゴはパスワード管理アプリを使っている。"),
    ("ja", "パスワード：必須"),
    ("ja", "キーワード：庭、ラベンダー、水やり"),
    ("ja", "倉庫の鍵は玄関の棚にある。"),
    ("ja", "APIキーは環境変数に入れて、コードには書かないこと。"),
    # --- Korean ----------------------------------------------------------------------------
    ("ko", "비밀번호를 잊어버렸어요."),
    ("ko", "어제 은행 비밀번호를 바꿨어요."),
    ("ko", "토큰이 만료돼서 다시 로그인해야 해요."),
    ("ko", "새 카드 PIN은 우편으로 따로 와요."),
    ("ko", "디에고는 비밀번호 관리자를 써요."),
    ("ko", "비밀번호: 필수"),
    ("ko", "키워드: 정원, 라벤더, 물주기"),
    ("ko", "창고 열쇠는 현관 서랍에 있어요."),
    ("ko", "API 키는 코드가 아니라 환경 변수에 넣어요."),
]
