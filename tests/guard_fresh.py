"""A sixth labelled corpus for the credential guard, written by a helper who saw neither the
rules nor the other corpora (2026-12-06); first measured once the rules were changed for
``guard_review``, then used to widen them, so no longer held out (the README gives the first
figures).

Its author's description follows.

A credential guard is a heuristic that refuses to store a "memory" when the
text holds a credential. This module gives two labelled lists:

* ``CREDENTIALS``: list of ``(format_name, text)``. Each text is something a
  person might paste into a chat with an AI assistant and ask it to remember,
  and holds exactly one credential (API key or token, private key block,
  connection string or URL with a password, Authorization header, env/config
  assignment, command line with a password, .netrc/.pgpass line, labelled
  password or PIN in one of several languages, or an obfuscated copy:
  fullwidth characters, zero-width characters inside a token, a token spaced
  out character by character). A guard should flag every one of these.
  ``format_name`` values ending in ``_<lang>`` are the same family of
  labelled passwords/PINs written in different languages.

* ``ORDINARY``: list of ``(language_code, text)``. Each text mentions
  passwords, PINs, tokens, keys, secrets, logins or credentials but holds
  none (forgetting/resetting, policies, placeholders, type annotations,
  environment lookups, placeholder DSNs, states such as "expired", LLM
  tokens, musical/physical/keyword "keys", map pins, version pins, tracking
  and order numbers, hashes and fingerprints named as such, public keys,
  docker port mappings, ERC-20, WPA2, OAuth2 as a method...). A guard should
  let every one of these through.

Every secret-shaped value is FAKE: generated at authoring time with Python's
``secrets`` module to the right prefix, length and alphabet. None is a real
or documented example key. As a precaution against secret scanners, the
recognisable prefix of each value is joined to its body with ``+`` in this
source file, so the full token never appears contiguously here.

The corpus was written independently of any existing guard or corpus, as a
held-out check. Every text is under 300 characters.
"""

# ruff: noqa: E501, RUF001
# (data: long sentences, and multilingual on purpose)

CREDENTIALS: list[tuple[str, str]] = [
    (
        "aws_access_key_id",
        "Remember the access key id for the staging IAM user: AKIA"
        + "OPO42BKZP5YJCRCA (the secret is in 1Password, don't ask me for it)",
    ),
    (
        "aws_temporary_access_key_id",
        "note for later - the STS creds I got this morning start with aws_access_key_id = ASIA"
        + "E7QYNCVSO4IIUUTP",
    ),
    (
        "aws_secret_access_key",
        "My AWS secret access key for the personal account is fWsff4gcQRKTweHhT1WCQQsQfuUsGrXxoAA9Atrw - please keep it so I can set up the CLI on my new laptop.",
    ),
    (
        "aws_secret_access_key",
        "[default]\naws_secret_access_key = Pk5WHjYSTaBFJMMa7tr1vOFMxnLCZKiGBw/OcD1W\nregion = eu-west-1\nremember this profile for me",
    ),
    (
        "gcp_api_key",
        "Google Maps API key for the store locator page: AIza"
        + "hANtT3WMQMJ8X8Z2jbw3jAIRG4g4S98szbJ",
    ),
    (
        "gcp_api_key",
        'firebase config for the mobile app -> apiKey: "AIza'
        + 'QNyb1MeE30Oytw_8SbmTQU_fbwQ8VhJMx1f", authDomain: "shoplist-7f3a1.firebaseapp.com"',
    ),
    (
        "gcp_service_account_private_key",
        'from the service account json, save this part: "private_key": "-----BEGIN PRIVATE'
        + " KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
        + '2kysYSZ70+nvkeaUu0pfyrcv5FI/cfrP5hemsybZo1RemS/2qTI8rgoSxeNdXEXbTf5pggYJ0agDcBvpwtEeK+7FIZVuYahxn72wGZGPL144myYkv5e8ZTn4\\n..."',
    ),
    (
        "google_oauth_client_secret",
        "OAuth client for the internal dashboard: client_secret GOCSPX-"
        + "5P3k0BLS7H8jejJd1cEaqYvPmO_o",
    ),
    (
        "google_oauth_refresh_token",
        "refresh token for my gmail script, keep it: 1//0"
        + "ESQbgF2cU7VqJHpfAVrVHvk3v1m89tdPolkai5SP4RhFukuCWqeQWQnF32Eq4HjXHkRgzFLkDDvQyQe7edVx2X_hrflaXsrYOtpuV",
    ),
    (
        "azure_storage_connection_string",
        "DefaultEndpointsProtocol=https;AccountName=lumenbillingprod;AccountKey="
        + "WI5W/GdRDnwZOKZd0bU2C7tR/U6QuhOIhDiIUEVBK1yzlVUcXa35pvzr9z9gB0NMWmKYHJLb1CcV2hgniRjJIQ==;EndpointSuffix=core.windows.net",
    ),
    (
        "azure_ad_client_secret",
        "Azure app registration 'invoice-bot', client secret value (expires Nov 2026): ci09Q~"
        + "hjZLn9Nbo_Ho15gdvcHS7DfQVF-sQSv2FI",
    ),
    (
        "azure_sas_url",
        "download link for the Q3 export, valid till end of year: https://lumenbackups.blob.core.windows.net/exports/q3.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2025-12-31T23:59:59Z&spr=https&sig="
        + "vQ3I97WY83KnEf5JG6YF0wlNtkiuMBu9Jouqibd4rhU%3D",
    ),
    (
        "github_pat_classic",
        "can you remember my GitHub token? ghp_"
        + "pklDHp20d0NfqjRoWc7Sr1e8knVBcWgkUHxK it has repo and workflow scopes",
    ),
    (
        "github_pat_classic",
        "git remote set-url origin https://ghp_"
        + "M5mTOFhRvkkKJwhkaUDvfQAXwSdm6l6mLHzB@github.com/kvasquez/dotfiles.git",
    ),
    (
        "github_pat_fine_grained",
        "New fine-grained token for the release bot, read/write on contents only: github_pat_"
        + "5ZBH7Z1HJ0LLKF0L68RL3U_gWEWaaiRqGlOuqjo71KbB3cQ1TxNFMPDGnPIEsQPzHHycWo9hgtDmuJjhLy",
    ),
    (
        "github_oauth_token",
        "The gh CLI stored this in hosts.yml, oauth_token: gho_"
        + "HJeqk6dZ36mUx2jnwwUMkXu8q25CPwhIv1nM",
    ),
    (
        "github_app_installation_token",
        "installation access token from the GitHub App (valid 1h): ghs_"
        + "rNaQONDCXR8DNqrWKRybxaeDYlgyZLLjONI3",
    ),
    (
        "gitlab_pat",
        "GitLab personal access token for the CI mirror job: glpat-" + "CKcGtzvDEFeHXXLEm2OW",
    ),
    (
        "gitlab_runner_token",
        "runner registration, save this: gitlab-runner register --url https://gitlab.internal.io --token glrt-"
        + "_fONjejWdFj1FLQl42eX",
    ),
    (
        "slack_bot_token",
        "Slack bot token for the standup reminder app: xoxb-"
        + "197769656023-4228684642480-4P0tCCwmlseOiVcWdsfstdZf",
    ),
    (
        "slack_user_token",
        "my slack user token (for the export script) xoxp-"
        + "512282818702-559674591880-5960958790149-be0ab404882690b93c43524f44bc0858",
    ),
    (
        "slack_webhook_url",
        "Incoming webhook for #alerts-prod: https://hooks.slack.com/services/T"
        + "KAASL2QOT/BOWZEQ6PVUY/P3Q5iP7y2WowNMDLNHZscZK0",
    ),
    (
        "stripe_secret_key",
        "Stripe live secret key for the shop: sk_live_" + "KMcNK0EPoMPEKsQdKRGY5Q4u",
    ),
    (
        "stripe_secret_key",
        "STRIPE_SECRET_KEY=sk_live_"
        + "51YHCYxo08UHbyseFEcgmoRmFAYpuTcsk3RD665aF2ugUN0AYXc0Tyw1zEnwNLzjbyHWhGWeOGN92kZClg95Fawi04ELbt6o1Kj",
    ),
    (
        "stripe_restricted_key",
        "restricted key that can only read charges, remember it for the reporting job: rk_live_"
        + "2oyxYA6UxNIz6VTivfk4r41C",
    ),
    (
        "stripe_webhook_secret",
        "endpoint signing secret for /webhooks/stripe is whsec_"
        + "5XCnFe3yDkDDjaLeoD9126l7PU4plwDV",
    ),
    (
        "square_access_token",
        "Square production access token: EAAA"
        + "_raGG-cyTJBxxO7Rwm74hfj7zDR6ZLnCRIRy29ixv9vq5fWSGEKD3YywkANR",
    ),
    (
        "openai_api_key",
        "Here's my OpenAI key, please remember it for next time: sk-proj-"
        + "4UFSQsFo4128HRzt16d_SI7xH1FHl0FMOEQ-EZGkI9vmJQsCwVkMAZYrj6f_0gtT6-LN9xpdj6qMrTaKiaxAbnvphkPI7Fn4gP4GVWUl3NXmtXtAmdePJP5CkL08hLVkwDLE0lFdqAT2Ns_QCcBEbJwcN6K5",
    ),
    (
        "openai_api_key_legacy",
        "old openai key from 2023, still works: sk-"
        + "ODtOZ1V7r9mmYURggqP0FJDSfRSShJ0XnuOZdhzYjCvqAUcb",
    ),
    (
        "anthropic_api_key",
        "ANTHROPIC_API_KEY is sk-ant-api03-"
        + "SAAwA8N-wHl744Fa2IRm0bmvgTJYWL1l9FCNPqcXyG882KgEQtnT8rNc3sl5v5argML4up_K6r3bSaQrvEsAa7IjZU_y_AA",
    ),
    (
        "huggingface_token",
        "HF write token for pushing the fine-tuned model: hf_"
        + "cvQYQa8Rnvft7nMKI5bDq14Z55ERhxIjYy",
    ),
    (
        "groq_api_key",
        "groq key for the side project: gsk_"
        + "1Ygra9xeYSSrLp6za6i3sIe25VZjtIWpaq5EihDYnwGf3zHAKgnh",
    ),
    ("replicate_api_token", "REPLICATE_API_TOKEN -> r8_" + "8jbGlwXvNyxmrEiPk162YgZ8LKBmhC2YAqKTs"),
    (
        "npm_token",
        "npm automation token for publishing @acme/ui: npm_"
        + "ZeyR0BNtioRD1RKZEIjVSndd2Aoua2q35Ucz",
    ),
    (
        "npmrc_auth_token",
        "put this in ~/.npmrc on the build box: //registry.npmjs.org/:_authToken=npm_"
        + "CsmMGhoqz7y1OPwNF4Ow6PrZjwIze25Uk9RS",
    ),
    (
        "pypi_token",
        "PyPI upload token scoped to my package: pypi-"
        + "AgEIcHlwaS5vcmc"
        + "kst2fJUdOUetIiFrtTZwDyhc8jHiLU-h-PyuhssyOgy1nU9HvdeQDyPVHSjwSKxnv33h36eoZv3X6BvL1_zTI9gjuU6uEukrHOEXd0zV1gWa6NRSbPiM6-EjO45W9c0ObrjKpxIZWKMzdON8hBVe-Z",
    ),
    (
        "dockerhub_pat",
        "Docker Hub access token for the CI user: dckr_pat_" + "5WeFOJoqY6s63nyX_hk0i4KsZh6",
    ),
    (
        "twilio_auth_token",
        "Twilio auth token for the SMS verification service: 768d49b2112e20b813cf76d79ff45eca",
    ),
    (
        "sendgrid_api_key",
        "SendGrid key for transactional mail: SG."
        + "rpkU0FTv_r_0a5hf_D5LiQ.rrzA7ffUsnd7zMmTUJGfN1UiG3gKbpLX7d14eF_3HEP",
    ),
    (
        "mailgun_api_key",
        "mailgun private API key key-"
        + "e7c06a47f8c5bf5f2695cc780588cce5 (domain mg.bakerystreet.co)",
    ),
    (
        "mailchimp_api_key",
        "Mailchimp API key for the newsletter sync: 6f382720d5f3ea7b61867404cd1e7b9a" + "-us14",
    ),
    (
        "shopify_access_token",
        "Shopify admin API access token for the storefront app: shpat_"
        + "2c1e8bbf1897d22143d2befcfa7ad81c",
    ),
    (
        "shopify_shared_secret",
        "and the app's shared secret is shpss_" + "1044c7b45e683b7a0a91cb34dffe0832",
    ),
    (
        "digitalocean_pat",
        "DigitalOcean token with write scope for terraform: dop_v1_"
        + "064823a7d72ae12b607309a5c4c8b1df5036a462c9055288e193e33b7c07c2e1",
    ),
    (
        "discord_bot_token",
        "Discord bot token for our server's music bot: MjM3MzMxOTI4ODgwNTM4NzQyMQ"
        + ".RwHadX.fIRi10-CAQfK4y-ONN3LSuu7wSWaC3XfTVPoTb",
    ),
    (
        "discord_webhook_url",
        "webhook to post build results in #deploys https://discord.com/api/webhooks/"
        + "1087912262041168225/GYZuw7NOkUlL60WgTVyVtcSK19fWc9b-ZmKwuaPK6IIZN6yoz6Lizh4NU8Cj5NY-Spzj",
    ),
    (
        "telegram_bot_token",
        "Telegram bot from BotFather, token: 3691787887:" + "AAdY5sOQv5NZD7wuqbmrlTCFcK4UR0QmJRg",
    ),
    (
        "atlassian_api_token",
        "Jira API token for the sprint report script: ATATT3xFfGF0"
        + "j9C2bSdaSt3NFPn9-KJvbm0jt8YKRh7O6aesXL7NnntYGNz0yfmyzwGHM-JnrAPj7PDA5WIUMLLkh5reaV0eyFeLJAogx3zJBbRkJQBTjYb_5C-r7QGlSTAgDNT-DDNDhTLlEqhtIjNM5MdUQtOL2Pe0B6LxTzJ_WCWjhInw7gtfgGVq-qf0",
    ),
    (
        "linear_api_key",
        "Linear personal API key: lin_api_" + "7tKpukdb6msAlrd3qsstKorhd3qHwPtdQdN53iQZ",
    ),
    (
        "notion_integration_secret",
        "Notion internal integration secret for the reading-list sync: secret_"
        + "Vyse2YeYl9viqJNsdhtG2AETxxL7JTsiolSztR57h0P",
    ),
    (
        "postman_api_key",
        "postman api key PMAK-" + "e036046e8fe5e7791c59a71c-f7fd3592eea5fb415d38b37fbed124b680",
    ),
    (
        "figma_pat",
        "Figma personal access token (for exporting icons): figd_"
        + "K_vcL0_gkQ3Iq5Bxqi_U4TNepyQnDOYWy2YV8uYn",
    ),
    (
        "cloudflare_api_token",
        "Cloudflare API token with Zone.DNS edit for example-bakery.fr: xEsE7kx4bHuIFU2DY-rfpcfaIKciRbNYvaaZ0xcB",
    ),
    ("datadog_api_key", "DD_API_KEY for the EU site is 1bf026dcaaf558b6dbd1310cc5d1cf88"),
    (
        "heroku_api_key",
        "Heroku API key (from account settings): af10767a-3023-438d-a093-dcc16c27154d",
    ),
    (
        "okta_api_token",
        "Okta admin API token for the provisioning script: 00"
        + "qtw0aBmC9LA_jblmDIuXW6Qm7YYNlEl6qv1igKPy",
    ),
    (
        "hashicorp_vault_token",
        "root-ish vault token, use carefully: hvs."
        + "oVQt69yasNPRMiISi3UgRww2KTdy0DL4sRa_6MRsL5ggTpj7qieCHoiDYJej2mmgjAGrAPCrf6zRWTLw5MbbaotpzyF",
    ),
    (
        "terraform_cloud_token",
        "TFC team token: yPJkEclY0ZErKv.atlas"
        + "v1.Y0RZWf3QElhUu2TCFwDR9WYb8D9i5xKBxXbFNxoFg0cCHq0b2xhzjv3WNhlhSgaNlPR",
    ),
    (
        "rails_master_key",
        "config/master.key for the billing app is 31bfc6b4a284ca920fb5b96f4e8ff902 - lost it once already",
    ),
    (
        "jwt",
        "session JWT from the admin panel, keep it: eyJ"
        + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
        + "eyJzdWIiOiIxNTA2NDU4NiIsIm5hbWUiOiJJbmVzIFIuIiwiaWF0IjoxNzE3MzAwNDkzfQ.2ICBA-R3CSNEiVNqPusbKMb7eZpfOnUQDveBuMcsfWh",
    ),
    (
        "kubernetes_service_account_token",
        "kubeconfig user token for the ci deployer:\n  token: eyJ"
        + "hbGciOiJSUzI1NiIsImtpZCI6IjlkNTMyYTYyIn0."
        + "eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50Iiwic3ViIjoic3lzdGVtOnNlcnZpY2VhY2NvdW50OmNpOmRlcGxveWVyIn0.Mz-ONLbZi-IOk43S4wgiedGlVRAwIu2--uRoM-iMBqRsJytl3zUyZ-ai5y4867tk7Lg6RrsoDgkwzoM795-wYJ",
    ),
    (
        "rsa_private_key_block",
        "keep my deploy key:\n-----BEGIN RSA PRIVATE"
        + " KEY-----\nMIIEowIBAAKCAQEA"
        + "XW/ddj+yJJjsKWKQhVo6HGVLO+wKNVc89qNOnvqKiTvqE33w\nEl6SSSxoKSaOTmMsPgdHtqlmX5FF6l/Y29epkohISc2BNdRZe2UtDMmQjeGo1tfN\nv2vxfytOc/FI8KiuLy6pchWGKoZVeU7E21s9r4dp\n-----END RSA PRIVATE KEY-----",
    ),
    (
        "openssh_private_key_block",
        "-----BEGIN OPENSSH PRIVATE"
        + " KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
        + "jcJpvQ\nXlnF+lEubZf4/boXKJmeepia6vGmn/yqOnrcLD/5msI4I1Bv679xN5jmR5axDEL22uk8ou\nuBqi67HjnT4DwbCmgiYe2iIC5XuezYgRPjaibd6qOTn9\n-----END OPENSSH PRIVATE KEY-----",
    ),
    (
        "ec_private_key_block",
        "-----BEGIN EC PRIVATE"
        + " KEY-----\nMHcCAQEEI"
        + "FY4oFjGUVrMFeq4MLRrHgEpYTGLbGnvNhmHW4zclOUpmmH/JVSURi+u\ntb19GbBR1SPVWq4HwrP9NzZF/yL67Si8L95z+jxwWQHU967uWFsjg5ZQRwKQ04Xc\nVA2D0SoDDuVB8OOu5ZvWyd8K7OlYk9==\n-----END EC PRIVATE KEY-----",
    ),
    (
        "pgp_private_key_block",
        "my signing key, store it:\n-----BEGIN PGP PRIVATE"
        + " KEY BLOCK-----\n\nlQdGBG"
        + "K8naUjNPW9+bAOcluU+j9qGSpOvvRkAzHDP0FSEOIxHtOoRzcWz/g2L+ns\nF4wfcEC8zCSYv5iLlf6EgLmWYKBxiMAyWH5s02ys4L2FRhfehxq6xGq4j4QLwH/Q\n-----END PGP PRIVATE KEY BLOCK-----",
    ),
    (
        "postgres_url",
        "prod database: postgresql://app_rw:"
        + "S6nJhv1AStLHcJFNarrx@db-prod-1.internal:5432/orders",
    ),
    (
        "mongodb_srv_url",
        "mongo connection string for the analytics cluster mongodb+srv://analytics:"
        + "qXZz5XKWlEKWQ6ck@cluster0.x7kq2.mongodb.net/events?retryWrites=true",
    ),
    ("mysql_url", "DATABASE_URL=mysql://root:" + "8fI!SSK2#p#8fS@10.0.3.7:3306/shop"),
    (
        "redis_url",
        "redis for the job queue: redis://default:"
        + "kTa7wKocmDFHLl9BauY0LNZHkSXDdeAk@redis-14821.c1.eu-west-1-2.ec2.redns.io:14821",
    ),
    (
        "amqp_url",
        "rabbit broker url is amqp://celery:" + "KXoqAjdryCcmFH89dX@mq.internal:5672/vhost_tasks",
    ),
    (
        "ado_net_connection_string",
        "Server=tcp:sql-finance.database.windows.net,1433;Database=ledger;User ID=finance_app;Password="
        + "xNSh&+.kUFyc2x$n;Encrypt=True;",
    ),
    (
        "jdbc_url_password",
        "jdbc:postgresql://reports-db:5432/bi?user=metabase&password="
        + "j8E38BiVJ717IH46Ko&ssl=true",
    ),
    (
        "https_basic_auth_url",
        "the internal maven mirror needs https://jenkins:"
        + "pq76sgjt0?Ez6bn@nexus.corp.lan/repository/maven-public/",
    ),
    (
        "smtp_url",
        "EMAIL_URL=smtp://noreply%40fernhill.io:" + "bE4sS8ildmFw7AnM@smtp.fernhill.io:587",
    ),
    (
        "authorization_bearer_header",
        "Authorization: Bearer " + "uRpX_SaF7l2lwyOoK2mYBovK0au_Ijbjmc9NWXGxgjAHw-d8",
    ),
    (
        "authorization_basic_header",
        "the partner API wants this header: Authorization: Basic "
        + "c3ZjX3BhcnRuZXI6VVBNbjUxZFBqNVVWbGk=",
    ),
    (
        "x_api_key_header",
        "curl -H 'x-api-key: "
        + "2uAfCXCLnONpe3Ygj6buRoTWyZ0NbVS9sjWeYFwp' https://api.weatherdesk.io/v2/forecast?city=Porto",
    ),
    ("env_db_password", "DB_PASSWORD=" + "S#8p*i#2J3n_M7_Nvs"),
    (
        "env_export_secret_key",
        "export DJANGO_SECRET_KEY='" + "d&n8%5*1qa=f&(0gtnnh7bv0u)d-*wi7%i(rawha^#8)7&fmdx'",
    ),
    ("env_laravel_app_key", "APP_KEY=base64:" + "7XfVE4drDC3rqIb2diBhwDxEaauH7Zx19IaNfzcmRog="),
    ("env_api_key_plain", "OPENWEATHER_API_KEY=" + "777d910738fda4a5fbfdf8a86f5b5d83"),
    (
        "yaml_password",
        "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: "
        + "cehsbzUqnf0zZUr6GENc",
    ),
    (
        "json_api_key",
        '{"endpoint": "https://api.mapsy.io", "api_key": "' + 'RfZa2iwwAWnVUBte1spSFnn82nWhG1eO"}',
    ),
    (
        "python_code_password",
        'conn = psycopg2.connect(host="10.1.4.20", user="etl", password="'
        + '3idz2x__P5adVw", dbname="warehouse")',
    ),
    (
        "python_code_secret_key",
        "app.config['SECRET_KEY'] = '" + "b78d3a04ce79d36ef943449516495d7a77c516f1a42a5b6e'",
    ),
    (
        "powershell_securestring",
        '$pw = ConvertTo-SecureString "' + '^fRO!X&^ZL0g?%" -AsPlainText -Force',
    ),
    ("sshpass_command", "sshpass -p '" + "GnLYa=3OL7oTI' ssh admin@192.168.10.40"),
    ("mysql_cli_password", "mysql -u root -p" + "hLKKbfGdalr9M3 -h 127.0.0.1 wordpress"),
    (
        "curl_basic_auth",
        "curl -u admin:" + "nRxw%6yf645?Q= https://grafana.home.arpa/api/dashboards/home",
    ),
    (
        "docker_login_password",
        "docker login -u buildbot -p " + "PqoAVYTGcyGvW6xwbq4v registry.gitlab.com",
    ),
    (
        "pgpassword_command",
        "PGPASSWORD=" + "ZSQlB3BJWYUckeYa psql -h pg.internal -U reporting -d sales",
    ),
    (
        "ldapsearch_bind_password",
        "ldapsearch -x -H ldap://dc1.corp.lan -D 'cn=svc-ldap,ou=svc,dc=corp,dc=lan' -w '"
        + "Ha3Dp81ZVCW%py?' -b 'dc=corp,dc=lan'",
    ),
    ("net_use_password", "net use Z: \\\\fs01\\finance " + "6g!7AUFMjI=o /user:CORP\\mhartmann"),
    (
        "netrc_line",
        "add to my .netrc: machine api.heroku.com login ana.silva@example.org password "
        + "2sFHwvESAR0UEppONs",
    ),
    (
        "pgpass_line",
        "~/.pgpass line: db-prod-1.internal:5432:orders:app_rw:" + "x84sXZ4PJqGVWLHa1&",
    ),
    (
        "git_credentials_line",
        "~/.git-credentials has https://kvasquez:" + "E1qbHsjUpcNRNMuOIegU@git.example-corp.net",
    ),
    (
        "totp_otpauth_uri",
        "2FA setup for the hosting panel, in case I lose my phone: otpauth://totp/Hostly:me@fernhill.io?secret="
        + "3OPSAEKWKNOSZFCBM7EQOEOHUM7GTEUM&issuer=Hostly",
    ),
    (
        "ethereum_private_key",
        "metamask private key of my test wallet 0x"
        + "f80006cd6a23d0477c59259e4aa38e2fd6f0464b293fdb1cf84311bb9af76597",
    ),
    (
        "bip39_seed_phrase",
        "Please remember my Ledger recovery phrase: wolf canoe winter zone cabbage winter abandon cabbage abstract canyon canal youth",
    ),
    ("wifi_qr_string", "WIFI:T:WPA;S:Casa_Moreno_5G;P:" + "4fiXPRDIS01d33;;"),
    ("labelled_password_en", "Remember my Netflix password: " + "kbRR0mms#rDl"),
    (
        "labelled_password_en",
        "please save this for me - work laptop login is j.okafor / " + "Butterscotch8398#",
    ),
    ("labelled_password_en", "the wifi password is " + "lighthouse"),
    ("labelled_pin_en", "My debit card PIN is " + "9909, I always forget it after holidays."),
    ("labelled_pin_en", "garage door keypad code: " + "113864"),
    (
        "labelled_password_es",
        "Mi contraseña del banco es " + "mwZ.rWRx2o8_, recuérdamela por favor.",
    ),
    ("labelled_password_es", "la clave del wifi de casa de mi abuela es " + "mariposa"),
    ("labelled_pin_es", "Apúntate el PIN de la tarjeta nueva: " + "0169"),
    (
        "labelled_password_fr",
        "Mon mot de passe Free Mobile c'est " + "Papillon2836? , garde-le en mémoire stp",
    ),
    ("labelled_password_fr", "mdp du wifi au bureau : " + "grenouille"),
    ("labelled_pin_fr", "Le code PIN de ma carte bleue est " + "7395."),
    ("labelled_password_de", "Mein Passwort für das Firmen-VPN lautet " + "87=.-LLuocMmQl"),
    ("labelled_password_de", "WLAN-Passwort im Ferienhaus: " + "Schmetterling"),
    ("labelled_pin_de", "Die PIN meiner Girocard ist " + "7618, bitte merken."),
    ("labelled_password_it", "La password della mail aziendale è " + "V5qHL&5PZKr6N"),
    ("labelled_password_it", "la password del wifi è " + "tartaruga, tutto minuscolo"),
    ("labelled_pin_it", "il PIN del bancomat è " + "11792"),
    ("labelled_password_pt", "Minha senha do Nubank é " + "Paçoca5590*"),
    ("labelled_password_pt", "a senha do wifi lá de casa é " + "paçoca"),
    ("labelled_pin_pt", "o PIN do cartão novo é " + "4426"),
    ("labelled_password_nl", "Mijn wachtwoord voor de webmail is " + "YvqP8&ZK%9@YU"),
    ("labelled_password_nl", "wifi-wachtwoord op de camping: " + "vlinder"),
    ("labelled_pin_nl", "pincode van mijn bankpas: " + "1822"),
    ("labelled_password_pl", "Moje hasło do poczty to " + "G0SNew*s3g.P"),
    ("labelled_password_pl", "hasło do wifi w mieszkaniu: " + "parasol"),
    ("labelled_pin_pl", "PIN do karty kredytowej: " + "8999"),
    ("labelled_password_ru", "Мой пароль от Госуслуг: " + "d$zH#zEG#5T@1X — запомни, пожалуйста."),
    ("labelled_password_ru", "пароль от вайфая на даче " + "снегирь"),
    ("labelled_pin_ru", "пин-код от карты Сбера " + "2159"),
    ("labelled_password_zh", "我的邮箱密码是" + "mbmkNp.5Ibz7，帮我记一下。"),
    ("labelled_password_zh", "家里的WiFi密码：" + "24682026"),
    ("labelled_pin_zh", "工行卡的取款密码是" + "595231，别告诉别人。"),
    ("labelled_password_ja", "会社のVPNのパスワードは" + "=v10z#*%H%-Kdです。覚えておいて。"),
    ("labelled_password_ja", "実家のWi-Fiのパスワード：" + "himawari"),
    ("labelled_pin_ja", "キャッシュカードの暗証番号は" + "2585です"),
    ("labelled_password_ko", "내 인스타 비밀번호는 " + "$w%$tUgE!q9N 야. 기억해 줘."),
    ("labelled_password_ko", "카페 와이파이 비밀번호: " + "29997237"),
    ("labelled_pin_ko", "우리 집 현관 비밀번호는 " + "764471# 이야"),
    ("labelled_password_sv", "Mitt lösenord till Kivra är " + "IfgV5yRf_k#T"),
    ("labelled_password_tr", "E-devlet şifrem: " + "aYS@Xs9A%GR9 , unutma lütfen"),
    (
        "obfuscated_fullwidth_github_pat",
        "my token (copied from the PDF, looks weird): ｇｈｐ＿"
        + "ｔＯＷＹｕＥｆＱ１ｐ２ｇＫＣｊｋＬＳｘｈｐＪＵａ０ＮＰＢＷＩｄＶＰｘＧＵ",
    ),
    (
        "obfuscated_zero_width_anthropic_key",
        "key from the Slack thread: sk-ant-api03-"
        + "wAIyqto2qzmgK-6U3vPo\u200bkzU_Rsjrevm__bIUbb14-lsyJHE8Jp\u200btzy3QNq-Q9cM7FxAIr7MKrRIBM-Kjf\u200bUgTAPL9R6BcYsAA",
    ),
    (
        "obfuscated_zero_width_slack_token",
        "xox\u200db-" + "2406033865\u200c16-7244528681274-58w\u200c1hcpuCuokS2QR3kdj55sV",
    ),
    (
        "obfuscated_spaced_gitlab_pat",
        "token (spaced so the bot won't eat it): g l p a t -"
        + " t L P k R 3 3 w I n O X x P F A K 6 L 8",
    ),
    (
        "obfuscated_spaced_password",
        "pw for the NAS, letter by letter: " + "2 = S g i h Q % 5 = _ *",
    ),
]

ORDINARY: list[tuple[str, str]] = [
    (
        "en",
        "I forgot my Netflix password again and the reset email is going to my old Hotmail. Any way around that?",
    ),
    (
        "en",
        "Our IT policy says passwords must be at least 12 characters, include a symbol, and can't reuse any of the last five.",
    ),
    (
        "en",
        "Remind me to change my bank password next week, they sent a letter saying it expires on the 30th.",
    ),
    (
        "en",
        "The signup form just has Email: required, Password: required, and a checkbox for the newsletter.",
    ),
    (
        "en",
        "In the README, put `API key: <your key here>` so people know where to paste their own.",
    ),
    ("en", "def connect(host: str, user: str, password: str, timeout: float = 5.0) -> Connection:"),
    ("en", "token: Optional[str] = None  # set later by the auth middleware"),
    (
        "en",
        'api_key = os.environ["WEATHER_API_KEY"]  # never hardcode this, it goes in the CI secrets',
    ),
    (
        "en",
        "The docs show the DSN as postgresql://user:password@localhost:5432/mydb, you just swap in your own values.",
    ),
    (
        "en",
        "ugh, my password is expired on the work laptop and the helpdesk is closed until Monday",
    ),
    (
        "en",
        "GPT-4 Turbo has a 128k token context window, so the whole contract should fit in one prompt.",
    ),
    ("en", "We kept hitting the limit of 40,000 tokens per minute during the overnight batch job."),
    (
        "en",
        "The bridge modulates from C minor to its relative major key, E-flat, before the last chorus.",
    ),
    (
        "en",
        "The space bar key on my mechanical keyboard squeaks, any tips for lubing the stabilizers?",
    ),
    ("en", "Lost the key to the bike lock, so it looks like I'm buying bolt cutters today."),
    ("en", "Drop a pin on the map where we parked so we can find the car after the concert."),
    ("en", "Pin requests==2.31.0 and urllib3<2 in requirements.txt until the SSL issue is sorted."),
    (
        "en",
        "My Amazon order number is 112-6551209-8978121, it says delivered but there's nothing at the door.",
    ),
    (
        "en",
        "UPS tracking number 1ZXRIZTN6661122922 hasn't updated since Tuesday, should I call them?",
    ),
    (
        "en",
        "The SHA-256 checksum of the installer is ed0e099c77332a7abc60d512101b2a1ffda8f45fb536e8f51b0a81d8e009a223, verify it before you run anything.",
    ),
    (
        "en",
        "Commit 207d4eeff084295e4ddfff932c4aa3032b9ade0b introduced the regression, let's revert it and re-run the suite.",
    ),
    ("en", "Just run docker run -p 8080:80 -d nginx and open localhost:8080 in the browser."),
    ("en", "USDC is an ERC-20 token, so you still need a bit of ETH in the wallet to pay gas."),
    ("en", "Set the router to WPA2-Personal at least, WEP can be cracked in minutes."),
    (
        "en",
        "Their API uses OAuth2 with the authorization code flow, there are no static API keys anymore.",
    ),
    (
        "en",
        "Please remember that I use Bitwarden for all my passwords, so don't suggest writing them in a notebook.",
    ),
    (
        "en",
        "Remember that my GitHub username is maria-lopez-dev. I'll set up a token myself later.",
    ),
    (
        "en",
        "Export PGPASSWORD in your shell or use a .pgpass file instead of typing the password on the command line.",
    ),
    (
        "en",
        "The curl example in their docs is curl -u USERNAME:PASSWORD https://api.example.com/v1/me, replace both.",
    ),
    (
        "en",
        "The primary key on the orders table is a composite of customer_id and created_at, which is why upserts are slow.",
    ),
    (
        "en",
        "The session token expires after 15 minutes of inactivity, that's why you keep getting kicked out.",
    ),
    ("en", "Secret Santa at work this year has a $30 limit, names get drawn on Friday."),
    (
        "en",
        "The host key fingerprint is SHA256:sQqmM1iF28Z2c8b9JrPlAeIwhIz9d1DpCce9bMf7WP0, check it matches before you type yes.",
    ),
    (
        "en",
        "public key for the deploy user: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKT23Yn6ACOizEXe7crWx/KXmYuTXXsO84fjKYNAYt0l deploy@ci",
    ),
    (
        "en",
        "We moved all the credentials into AWS Secrets Manager and the services read them by ARN at startup.",
    ),
    ("en", 'password = getpass.getpass("Password: ")'),
    (
        "en",
        "In docker-compose use POSTGRES_PASSWORD: ${POSTGRES_PASSWORD} so the value comes from your .env file.",
    ),
    ("en", "The wifi password is on the sticker under the router, I can't remember it either."),
    (
        "en",
        "Did anyone rotate the Stripe keys after the contractor left? I don't want to find out the hard way.",
    ),
    (
        "en",
        "Error 401: invalid credentials. Check that your API key hasn't been revoked or regenerated.",
    ),
    ("en", "Accounts lock after 5 failed login attempts and unlock themselves after 30 minutes."),
    (
        "en",
        "request id a31a1905-b30f-47e2-b887-98f355529170 failed with a 502 around 3am, can you check the gateway logs?",
    ),
    ("en", "Store passwords with bcrypt at cost 12 and never log them, not even at debug level."),
    ("en", 'const apiKey = process.env.OPENAI_API_KEY ?? "";'),
    ("en", "export GITHUB_TOKEN=$(gh auth token) before running the release script."),
    (
        "en",
        "Use docker login -u myuser --password-stdin < ~/token.txt instead of passing -p, it ends up in shell history.",
    ),
    ("en", "mysql -u root -p will prompt you for the password, don't put it on the same line."),
    ("en", 'curl -H "Authorization: Bearer $TOKEN" https://api.github.com/user'),
    (
        "en",
        "Send `Authorization: Bearer <token>` on every request; you get the token from POST /oauth/token.",
    ),
    (
        "en",
        "The MD5 of the backup archive is 81493d39592686bed8bf4e3c14bddcb7, same as yesterday's, so nothing changed.",
    ),
    (
        "en",
        "The Windows product key is on a sticker under the laptop, I'll need it when I reinstall.",
    ),
    (
        "en",
        "class Settings(BaseSettings):\n    database_url: PostgresDsn\n    secret_key: SecretStr\n    debug: bool = False",
    ),
    ("en", "My password manager flagged 14 reused passwords, I'll spend Sunday changing them."),
    (
        "en",
        "Keynote went fine; the key takeaway was that onboarding drives retention more than pricing.",
    ),
    (
        "en",
        "mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/ is what Atlas gives you, fill in the brackets.",
    ),
    ("en", "Your verification code will be sent to the phone number ending in 42."),
    ("en", "Short commit 0c3d0b1 is the one that bumped the Node version to 20."),
    (
        "es",
        "Olvidé mi contraseña del banco y ahora tengo que ir a la sucursal para que me la restablezcan.",
    ),
    ("es", "El cajero dice que la contraseña es incorrecta, pero juraría que la escribí bien."),
    ("es", "La contraseña debe tener al menos 8 caracteres, una mayúscula y un número."),
    ("es", "Palabras clave: seguridad, autenticación, contraseñas, gestión de identidades."),
    ("es", "La clave del éxito en este proyecto fue hablar con el cliente cada semana."),
    ("es", "Mañana tengo que renovar el token de acceso de la API porque caduca a fin de mes."),
    ("es", "Puse un pin en el mapa con la ubicación del restaurante, te lo mando por WhatsApp."),
    ("es", "¿Me recuerdas que tengo que cambiar el PIN de la tarjeta nueva cuando llegue?"),
    ("es", "La canción está en sol mayor, pero la cantante la prefiere un tono más baja."),
    ("es", "Usuario: obligatorio. Contraseña: obligatoria. Es lo único que pide el formulario."),
    ("es", "Mi número de pedido es 461588139 y todavía no me ha llegado nada."),
    ("es", "Nunca compartas tu contraseña por correo; el banco jamás te la va a pedir."),
    ("es", "Se me olvidó la llave del trastero en casa de mis padres."),
    (
        "fr",
        "J'ai oublié mon mot de passe Ameli, il faut que je le réinitialise avec le code reçu par courrier.",
    ),
    (
        "fr",
        "Le mot de passe doit contenir au moins 12 caractères, dont un chiffre et un caractère spécial.",
    ),
    ("fr", "Mon mot de passe a expiré ce matin et je n'arrive plus à me connecter au VPN."),
    ("fr", "Mots-clés : cybersécurité, authentification forte, gestion des accès."),
    ("fr", "La clé du succès, c'est la régularité, pas l'intensité."),
    ("fr", "J'ai perdu les clés de l'appartement, le serrurier passe vers 18 h."),
    (
        "fr",
        "Le téléphone me demande le code PIN de la carte SIM à chaque redémarrage, c'est pénible.",
    ),
    (
        "fr",
        "Pour utiliser l'API il faut un jeton d'accès OAuth2, la doc explique comment l'obtenir.",
    ),
    ("fr", "Le morceau est en ré mineur, avec un passage en fa majeur au refrain."),
    ("fr", "Saisissez votre identifiant et votre mot de passe, puis cliquez sur « Se connecter »."),
    (
        "fr",
        "Mon numéro de suivi Colissimo est 6A77328918062, le colis est bloqué à Roissy depuis lundi.",
    ),
    ("fr", "Ce modèle est limité à 8 000 jetons en entrée, il faudra découper le document."),
    ("fr", "Le mot de passe est incorrect, il me reste deux tentatives avant le blocage."),
    (
        "de",
        "Ich habe mein Passwort vergessen und der Link zum Zurücksetzen kommt einfach nicht an.",
    ),
    ("de", "Das Passwort ist abgelaufen, bitte melde dich beim IT-Support im zweiten Stock."),
    (
        "de",
        "Das Passwort muss mindestens zwölf Zeichen lang sein und darf nicht den Benutzernamen enthalten.",
    ),
    ("de", "Die neue Girocard ist angekommen, die PIN kommt wie immer in einem separaten Brief."),
    ("de", "Schlüsselwörter: Datenschutz, Zugangsdaten, Zwei-Faktor-Authentifizierung."),
    ("de", "Der Schlüssel zum Erfolg war am Ende die gute Vorbereitung."),
    ("de", "Ich habe den Schlüssel für den Fahrradkeller beim Hausmeister abgegeben."),
    ("de", "Die Sonate steht in A-Dur, der langsame Satz in fis-Moll."),
    ("de", "Zugangsdaten bitte nie per E-Mail verschicken, nur über den Passwort-Manager teilen."),
    (
        "de",
        "Die DHL-Sendungsnummer lautet 00340362890443062892, laut Tracking liegt das Paket im Verteilzentrum.",
    ),
    (
        "de",
        "Mein Login bei ELSTER geht nicht mehr, anscheinend ist die Zertifikatsdatei abgelaufen.",
    ),
    ("de", "Benutzername: erforderlich, Passwort: erforderlich – mehr steht nicht im Formular."),
    (
        "de",
        "Kannst du dir merken, dass ich das Passwort für das Kundenportal nächste Woche ändern muss?",
    ),
    ("it", "Ho dimenticato la password dello SPID, devo fare il recupero con il codice via SMS."),
    ("it", "La password deve essere di almeno 10 caratteri e va cambiata ogni 90 giorni."),
    ("it", "La password è scaduta e non riesco più ad accedere al registro elettronico."),
    ("it", "Parole chiave: sicurezza informatica, credenziali, phishing."),
    ("it", "La chiave del successo è la costanza, non il talento."),
    ("it", "Ho lasciato le chiavi della macchina in ufficio, che disastro."),
    ("it", "Il PIN del bancomat nuovo arriva per posta tra qualche giorno."),
    ("it", "La melodia è scritta in chiave di violino, ma il basso legge in chiave di fa."),
    ("it", "Codice di tracciamento BRT 835161248587, risulta in consegna oggi."),
    ("pt", "Esqueci minha senha do gov.br e agora preciso validar pelo aplicativo do banco."),
    ("pt", "A senha deve ter no mínimo 8 caracteres, incluindo letras e números."),
    (
        "pt",
        "A senha expirou e o sistema pede para criar uma nova, mas não aceita nenhuma que eu tento.",
    ),
    ("pt", "Palavras-chave: autenticação, senhas, segurança da informação."),
    ("pt", "A chave do sucesso é não desistir na primeira dificuldade."),
    ("pt", "Deixei a chave de casa com a vizinha, pega lá quando chegar."),
    ("pt", "O token do banco agora fica no app, não preciso mais daquele chaveirinho."),
    ("pt", "Meu código de rastreio dos Correios é GC733566010BR, ainda não saiu para entrega."),
    ("pt", "O modelo aceita até 200 mil tokens de contexto, dá para mandar o livro inteiro."),
    (
        "nl",
        "Ik ben mijn wachtwoord van DigiD vergeten, moet ik een nieuwe activeringscode aanvragen?",
    ),
    ("nl", "Het wachtwoord moet minimaal 12 tekens bevatten, waarvan minstens één cijfer."),
    ("nl", "Mijn wachtwoord is verlopen en nu kan ik niet meer inloggen op intranet."),
    ("nl", "Trefwoorden: beveiliging, inloggegevens, tweestapsverificatie."),
    ("nl", "De sleutel van de fietsenstalling ligt in de bovenste la van het bureau."),
    ("nl", "Mijn nieuwe bankpas is binnen, de pincode komt over een paar dagen per post."),
    ("nl", "Zet een pin op de kaart bij de ingang van het park, daar spreken we af."),
    (
        "nl",
        "Het trackingnummer van PostNL is 3SFAOR714931999, hij staat nog steeds op 'aangemeld'.",
    ),
    ("pl", "Zapomniałem hasła do bankowości i muszę zadzwonić na infolinię."),
    ("pl", "Hasło musi mieć co najmniej 12 znaków, w tym jedną wielką literę i cyfrę."),
    ("pl", "Hasło wygasło, system każe ustawić nowe przy następnym logowaniu."),
    ("pl", "Słowa kluczowe: bezpieczeństwo, uwierzytelnianie, hasła."),
    ("pl", "Kluczem do sukcesu jest systematyczność."),
    ("pl", "Zgubiłam klucze do mieszkania, dobrze że sąsiadka ma zapasowe."),
    ("pl", "Nowa karta przyszła, ale PIN trzeba ustawić w aplikacji banku."),
    ("pl", "Numer przesyłki InPost to 137879249283829879996284, paczka czeka w paczkomacie."),
    ("ru", "Я забыл пароль от почты, а восстановление привязано к старому номеру."),
    ("ru", "Пароль должен содержать не менее 12 символов, включая цифры и спецсимволы."),
    ("ru", "Срок действия пароля истёк, система просит сменить его при входе."),
    ("ru", "Сайт опять пишет «неверный логин или пароль», хотя я всё ввёл правильно."),
    ("ru", "Ключевые слова: информационная безопасность, аутентификация, пароли."),
    ("ru", "Ключ к успеху — регулярные тренировки, а не героизм раз в месяц."),
    ("ru", "Токен доступа действует 30 дней, потом его надо перевыпустить в личном кабинете."),
    ("ru", "Пьеса написана в ре миноре, а вторая часть — в фа мажоре."),
    ("zh", "我忘记了邮箱密码，找回密码的短信一直收不到。"),
    ("zh", "密码必须至少包含12个字符，并且要有大小写字母和数字。"),
    ("zh", "系统提示密码已过期，请联系管理员重置。"),
    ("zh", "关键词：信息安全、身份认证、密码管理。"),
    ("zh", "成功的关键在于坚持。"),
    ("zh", "这个模型的上下文长度是128k个token，整份合同都能放进去。"),
    ("zh", "我把钥匙落在公司了，今晚只能去我妈家住。"),
    ("zh", "快递单号是SF4738844665441，显示已经到了驿站。"),
    ("zh", "银行说永远不会通过电话索要你的密码或验证码。"),
    ("ja", "パスワードを忘れたので、再設定のメールを送ってもらった。"),
    ("ja", "パスワードは12文字以上で、英数字と記号を含める必要があります。"),
    ("ja", "パスワードの有効期限が切れています。管理者に連絡してください。"),
    ("ja", "キーワード：情報セキュリティ、認証、パスワード管理"),
    ("ja", "成功の鍵は毎日の積み重ねだと思う。"),
    ("ja", "家の鍵をなくしたので、管理会社に連絡した。"),
    ("ja", "暗証番号を3回間違えるとカードがロックされるので注意してね。"),
    ("ja", "この曲はニ長調で、サビでト長調に転調する。"),
    ("ja", "ログインIDとパスワードは別々のメールで届きます。"),
    ("ko", "비밀번호를 잊어버려서 재설정 링크를 요청했어요."),
    ("ko", "비밀번호는 최소 12자 이상이어야 하며 특수문자를 포함해야 합니다."),
    ("ko", "비밀번호가 만료되었습니다. 새 비밀번호를 설정해 주세요."),
    ("ko", "키워드: 정보보안, 인증, 비밀번호 관리"),
    ("ko", "성공의 열쇠는 꾸준함이라고 생각해."),
    ("ko", "현관 열쇠를 잃어버려서 관리실에 연락했어."),
    ("ko", "이 모델은 한 번에 128k 토큰까지 처리할 수 있어요."),
    ("ko", "공동인증서 비밀번호를 5번 틀리면 재발급받아야 한대."),
    ("ko", "카드 비밀번호는 은행 직원도 절대 묻지 않습니다."),
    ("sv", "Jag har glömt mitt lösenord till Mina sidor, hur återställer jag det?"),
    ("sv", "Lösenordet måste vara minst 12 tecken långt och innehålla en siffra."),
    ("sv", "Nyckeln till framgång är tålamod."),
    ("tr", "Şifremi unuttum, e-postama sıfırlama bağlantısı gelmedi."),
    ("tr", "Şifre en az 8 karakter olmalı ve bir rakam içermeli."),
    ("tr", "Başarının anahtarı sabırdır."),
    ("cs", "Zapomněl jsem heslo do internetového bankovnictví, musím zavolat na linku."),
    ("cs", "Platnost hesla vypršela, při příštím přihlášení si nastavte nové."),
    ("id", "Saya lupa kata sandi akun email saya, bagaimana cara meresetnya?"),
    ("id", "Kata sandi minimal 8 karakter dan harus mengandung angka."),
]
