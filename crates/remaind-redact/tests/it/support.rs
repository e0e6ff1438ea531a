//! Sample secrets per rule and the "no secret byte survives" check.

use remaind_redact::Redactor;

/// The key used by most tests.
pub(crate) const KEY: &[u8] = b"test key: not a secret, just 32b";

pub(crate) fn redactor() -> Redactor {
    Redactor::new(KEY, &[]).expect("redactor builds")
}

/// A planted secret: how it appears in running text, and the pieces that must not survive.
#[derive(Debug, Clone)]
pub(crate) struct Sample {
    /// The rule expected to name the placeholder.
    pub(crate) rule: &'static str,
    /// The text as it would appear in a log or transcript (may include a key name or header).
    pub(crate) text: String,
    /// How the value appears after `?name=` in a URL query.
    pub(crate) url_param: String,
    /// How it appears as an env-file line.
    pub(crate) env_line: String,
    /// Distinctive secret parts: no 8-byte window of any of them may remain.
    pub(crate) pieces: Vec<String>,
    /// Look-alikes of this family that must be left alone (placeholders, examples, prose).
    pub(crate) negatives: Vec<&'static str>,
}

impl Sample {
    fn with(mut self, negatives: &[&'static str]) -> Self {
        self.negatives = negatives.to_vec();
        self
    }
}

/// `n` lower-case hex digits derived from `r`.
fn hex(r: &str, n: usize) -> String {
    // Mixed with the position, so that hex from a plain `r` still looks random.
    r.bytes()
        .cycle()
        .enumerate()
        .map(|(i, b)| char::from(b"0123456789abcdef"[(usize::from(b) + i * 7) % 16]))
        .take(n)
        .collect()
}

fn simple(rule: &'static str, secret: String) -> Sample {
    Sample {
        rule,
        url_param: format!("token={secret}"),
        env_line: format!("API_KEY={secret}"),
        pieces: vec![secret.clone()],
        text: secret,
        negatives: Vec::new(),
    }
}

/// Base64 body lines of a PEM block made of `random` (64 columns).
fn pem_lines(random: &str) -> Vec<String> {
    random
        .as_bytes()
        .chunks(64)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect()
}

pub(crate) fn pem(kind: &str, random: &str) -> String {
    let label = if kind.is_empty() {
        "PRIVATE KEY".to_owned()
    } else {
        format!("{kind} PRIVATE KEY")
    };
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----",
        pem_lines(random).join("\n")
    )
}

/// One sample per built-in rule, built around `r` (an alphanumeric random string of 100+
/// bytes with at least one digit) so that tests can vary the secret.
pub(crate) fn samples(r: &str) -> Vec<Sample> {
    assert!(r.len() >= 100 && r.bytes().all(|b| b.is_ascii_alphanumeric()));
    let mut all = keys_samples(r);
    all.extend(service_samples(r));
    all.extend(cloud_samples(r));
    all.extend(header_samples(r));
    all.extend(assignment_samples(r));
    all
}

/// Private keys and webhook URLs.
fn keys_samples(r: &str) -> Vec<Sample> {
    let pem_body = format!("MIIEpAIBAAKCAQEA{r}{r}");
    let pem_text = pem("RSA", &pem_body);
    vec![
        Sample {
            rule: "private_key",
            url_param: format!(
                "key={}",
                pem_text
                    .replace(' ', "%20")
                    .replace('\n', "%0A")
                    .replace('+', "%2B")
                    .replace('/', "%2F")
            ),
            env_line: format!("PRIVATE_KEY=\"{}\"", pem_text.replace('\n', "\\n")),
            pieces: pem_lines(&pem_body),
            text: pem_text,
            negatives: Vec::new(),
        }
        .with(&[
            "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1L\n-----END PUBLIC KEY-----",
            "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUexample\n-----END CERTIFICATE-----",
        ]),
        simple(
            "anthropic_api_key",
            format!("sk-ant-api03-{}-{}AA", &r[..50], &r[50..93]),
        )
        .with(&[
            "ANTHROPIC_API_KEY=sk-ant-...",
            "sk-ant-api03-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ]),
        simple("openrouter_api_key", format!("sk-or-v1-{}", hex(r, 64)))
            .with(&["sk-or-v1-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "sk-or-v1-<your key>"]),
        simple(
            "openai_api_key",
            format!("sk-proj-{}_{}9", &r[..60], &r[60..90]),
        )
        .with(&[
            "sk-proj-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx1",
            "the risk-assessment-quarterly-report-2024 is due",
        ]),
        simple("github_token", format!("ghp_{}", &r[..36])).with(&[
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
            "tokens start with ghp_ (classic) or github_pat_ (fine-grained)",
        ]),
        simple("gitlab_token", format!("glpat-{}", &r[..20]))
            .with(&["glpat-xxxxxxxxxxxxxxxxxxxx", "export GITLAB_TOKEN=glpat-<your-token>"]),
        simple(
            "slack_token",
            format!("xoxb-2718281828-3141592653589-{}", &r[..24]),
        )
        .with(&[
            "<img src=\"https://example.org/wp-content/uploads/2018/09/2018-250-xoxo-indieweb-1.jpg\">",
            "SLACK_BOT_TOKEN=xoxb-your-bot-token",
            "xoxb-0000000000-0000000000000-xxxxxxxxxxxxxxxxxxxxxxxx",
        ]),
        Sample {
            rule: "slack_webhook",
            text: format!(
                "posting to https://hooks.slack.com/services/T024BE7LD/B01A2BC3DEF/{}",
                &r[..24]
            ),
            url_param: format!(
                "hook=https://hooks.slack.com/services/T024BE7LD/B01A2BC3DEF/{}",
                &r[..24]
            ),
            env_line: format!(
                "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T024BE7LD/B01A2BC3DEF/{}",
                &r[..24]
            ),
            pieces: vec![r[..24].to_owned()],
            negatives: Vec::new(),
        }
        .with(&[
            "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
            "see https://api.slack.com/messaging/webhooks for setup",
        ]),
        simple("stripe_key", format!("sk_live_{}", &r[..24])).with(&[
            "sk_test_xxxxxxxxxxxxxxxxxxxxxxxx",
            "STRIPE_SECRET_KEY=sk_live_...",
            "pk_live_51H8xYzAbCdEfGhIjKlMn (publishable)",
        ]),
        simple("google_api_key", format!("AIza{}", &r[..35]))
            .with(&["AIzaSyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "key=AIza...your-key"]),
        simple("npm_token", format!("npm_{}", &r[..36])).with(&[
            "npm_config_cache=/tmp/npm-cache",
            "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
        ]),
        simple("pypi_token", format!("pypi-AgEIcHlwaS5vcmc{}", &r[..60]))
            .with(&["password = pypi-AgEIcHlwaS5vcmc...", "TWINE_PASSWORD=$PYPI_TOKEN"]),
        simple("huggingface_token", format!("hf_{}", &r[..34])).with(&[
            "from huggingface_hub import hf_hub_download; hf_hub_download(repo_id=\"gpt2\")",
            "HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ]),
        simple(
            "sendgrid_api_key",
            format!("SG.{}.{}", &r[..22], &r[22..65]),
        )
        .with(&["let body = msg.content.trim(); msg.send()", "SENDGRID_API_KEY=SG.xxxxx.yyyyy"]),
    ]
}

/// Hosted services' tokens: Twilio, Vault, DigitalOcean, Databricks, Sentry, Shopify,
/// Linear, Mailchimp, Telegram and Square.
fn service_samples(r: &str) -> Vec<Sample> {
    let twilio = format!("SK{}", hex(r, 32));
    vec![
        Sample {
            rule: "twilio_credential",
            text: format!("TWILIO_API_KEY={twilio}"),
            url_param: format!("twilio_api_key={twilio}"),
            env_line: format!("export TWILIO_AUTH_TOKEN={}", hex(&r[7..], 32)),
            pieces: vec![twilio[2..].to_owned(), hex(&r[7..], 32)],
            negatives: Vec::new(),
        }
        .with(&[
            "TWILIO_AUTH_TOKEN=your_auth_token",
            "twilio: SKxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ]),
        simple("vault_token", format!("hvs.{}", &r[..90])).with(&[
            "VAULT_TOKEN=hvs.xxxxxxxxxxxxxxxxxxxxxxxx",
            "vault login hvs.<token>",
        ]),
        simple("digitalocean_token", format!("dop_v1_{}", hex(r, 64)))
            .with(&["dop_v1_0000000000000000000000000000000000000000000000000000000000000000"]),
        simple("databricks_token", format!("dapi{}", hex(r, 32))).with(&[
            "dapi00000000000000000000000000000000",
            "the dapi_version field",
        ]),
        simple("sentry_token", format!("sntrys_{}", &r[..60])).with(&[
            "SENTRY_DSN=https://abc@o0.ingest.sentry.io/0",
            "sntrys_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ]),
        simple("shopify_token", format!("shpat_{}", hex(r, 32))).with(&[
            "shpat_00000000000000000000000000000000",
            "shipping shpat_ tokens",
        ]),
        simple("linear_api_key", format!("lin_api_{}", &r[..40])).with(&[
            "lin_api_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "lin_reg = fit(x)",
        ]),
        simple("mailchimp_api_key", format!("{}-us21", hex(r, 32)))
            .with(&["the en-us2 locale", "MAILCHIMP_API_KEY=<your-key>-us6"]),
        simple("telegram_bot_token", format!("5012345678:AA{}", &r[..33])).with(&[
            "at 12:30:AA the job ran",
            "TELEGRAM_TOKEN=123456789:AAxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ]),
        simple("square_oauth_secret", format!("sq0csp-{}", &r[..43])).with(&[
            "sq0csp-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "Square secrets start with sq0csp-",
        ]),
    ]
}

/// Platform and cloud credentials: Artifactory, SoftLayer, Discord, Azure and AWS keys.
fn cloud_samples(r: &str) -> Vec<Sample> {
    let aws_secret = format!("{}/{}+{}", &r[..20], &r[20..30], &r[30..39]);
    let azure_key = format!("{}==", &r[..86]);
    let sas = format!("{}%2B{}%3D", &r[..20], &r[20..43]);
    vec![
        simple("artifactory_token", format!("AKCp8{}", &r[..68])).with(&[
            "the AKC kennel club",
            "ARTIFACTORY_API_KEY=${ARTIFACTORY_API_KEY}",
            "jfrog rt upload --url https://example.jfrog.io/artifactory",
        ]),
        Sample {
            rule: "softlayer_api_key",
            text: format!("--softlayer-api-key {}", hex(&r[3..], 64)),
            url_param: format!("softlayer_api_key={}", hex(&r[3..], 64)),
            env_line: format!("export SOFTLAYER_API_KEY={}", hex(&r[3..], 64)),
            pieces: vec![hex(&r[3..], 64)],
            negatives: Vec::new(),
        }
        .with(&[
            "SOFTLAYER_API_KEY=<your-api-key>",
            "GET https://api.softlayer.com/rest/v3/SoftLayer_Account.json",
        ]),
        {
            // A user id starting with 1 (its base64 starts `MT`), then a timestamp and an HMAC.
            let token = format!("MTA5ODc2NTQzMjEwOTg3NjU0Mw.{}.{}", &r[..6], &r[6..44]);
            simple("discord_bot_token", token).with(&[
                "the bot's id MTA5ODc2NTQzMjEwOTg3NjU0Mw is base64 of its snowflake",
                "MTIzYWJjZGVmZ2hpamtsbW5vcA.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWsZnCjm1",
                "MTk4NjIyNDgzNDcxOTI1MjQ4.XXXXXX.XXXXXXXXXXXXXXXXXXXXXXXXXXX",
                "MyCompany.Platform.Services.Authentication.TokenValidator",
            ])
        },
        Sample {
            rule: "azure_storage_key",
            text: format!(
                "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={azure_key};EndpointSuffix=core.windows.net"
            ),
            url_param: format!("AccountKey={azure_key}"),
            env_line: format!(
                "AZURE_STORAGE_CONNECTION_STRING=\"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={azure_key}\""
            ),
            pieces: vec![azure_key.clone()],
            negatives: Vec::new(),
        }
        .with(&["AccountKey=<your-account-key>", "UseDevelopmentStorage=true;AccountKey=xxxxxxxxxxxxxxxxxxxxxxxxxxxx"]),
        Sample {
            rule: "azure_sas_signature",
            text: format!(
                "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&sp=r&se=2026-01-01T00:00:00Z&sig={sas}"
            ),
            url_param: format!("sv=2022-11-02&sp=r&sig={sas}"),
            env_line: format!("AZURE_SAS=\"?sv=2022-11-02&sp=r&sig={sas}\""),
            pieces: vec![r[..20].to_owned(), r[20..43].to_owned()],
            negatives: Vec::new(),
        }
        .with(&["https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&sig=<signature>"]),
        simple(
            "aws_access_key_id",
            format!("AKIA{}", r[..16].to_ascii_uppercase()),
        )
        .with(&["AKIAIOSFODNN7EXAMPLE", "AKIA is the prefix of long-term access key ids"]),
        simple(
            "aws_session_token",
            format!("FwoGZXIvYXdzE{}{}", r, &r[..40]),
        )
        .with(&["aws_session_token = <session token>", "AWS_SESSION_TOKEN=$(aws sts get-session-token)"]),
        simple("aws_bedrock_api_key", format!("ABSK{}{}", r, &r[..20]))
            .with(&["AWS_BEARER_TOKEN_BEDROCK=${BEDROCK_API_KEY}"]),
        simple(
            "jwt",
            format!(
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIx{}.{}_{}",
                &r[..30],
                &r[30..60],
                &r[60..73]
            ),
        )
        .with(&["eyJ is base64 for {\"", "a JWT is header.payload.signature"]),
        Sample {
            rule: "aws_secret_access_key",
            text: format!("aws_secret_access_key = {aws_secret}"),
            url_param: format!(
                "aws_secret_access_key={}",
                aws_secret.replace('/', "%2F").replace('+', "%2B")
            ),
            env_line: format!("AWS_SECRET_ACCESS_KEY={aws_secret}"),
            pieces: vec![aws_secret],
            negatives: Vec::new(),
        }
        .with(&[
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "let secret_access_key = env::var(\"AWS_SECRET_ACCESS_KEY\")?;",
        ]),
    ]
}

/// Tokens in HTTP headers.
fn header_samples(r: &str) -> Vec<Sample> {
    let bearer = format!("{}-{}.{}", &r[..20], &r[20..30], &r[30..40]);
    let basic = format!("{}==", &r[..30]);
    let header_value = format!("{}-{}", &r[..16], &r[16..32]);
    vec![
        Sample {
            rule: "bearer_token",
            text: format!("curl -H 'X: y' then Bearer {bearer}"),
            url_param: format!("auth=Bearer%20{bearer}"),
            env_line: format!("HTTP_AUTH=\"Bearer {bearer}\""),
            pieces: vec![bearer],
            negatives: Vec::new(),
        }
        .with(&[
            "curl -H \"Authorization: Bearer $API_KEY\" https://api.openai.com/v1/models",
            "Authorization: Bearer <token>",
            "the bearer of bad news is the test suite",
        ]),
        Sample {
            rule: "authorization_header",
            text: format!("Authorization: Basic {basic}"),
            url_param: format!("authorization={basic}"),
            env_line: format!("AUTHORIZATION=Basic {basic}"),
            pieces: vec![basic],
            negatives: Vec::new(),
        }
        .with(&[
            "Authorization: Bearer ${TOKEN}",
            "Authorization: required for every endpoint",
            "Authorization is checked in middleware; see docs/auth.md",
        ]),
        Sample {
            rule: "api_key_header",
            text: format!("curl -H \"X-API-Key: {header_value}\" https://api.host.test"),
            url_param: format!("h=PRIVATE-TOKEN:{header_value}"),
            env_line: format!("CURL_HEADER=\"x-api-key: {header_value}\""),
            pieces: vec![header_value.clone()],
            negatives: Vec::new(),
        }
        .with(&[
            "X-API-Key: <your key>",
            "Token: the unit a model reads and writes",
            "PRIVATE-TOKEN: $GITLAB_TOKEN",
            "\"apiKey\": process.env.NEXT_PUBLIC_API_KEY,",
        ]),
    ]
}

/// Credentials in URLs, command lines and assignments.
fn assignment_samples(r: &str) -> Vec<Sample> {
    let pw = r[..14].to_owned();
    vec![
        Sample {
            rule: "url_credentials",
            text: format!("DATABASE_URL=postgres://admin:{pw}@db.internal:5432/app"),
            url_param: format!("next=https://deploy:{pw}@ci.internal.test/x"),
            env_line: format!("REDIS_URL=redis://:{pw}@cache:6379/0"),
            pieces: vec![pw.clone()],
            negatives: Vec::new(),
        }
        .with(&[
            "postgres://user:password@localhost:5432/db",
            "https://example.com:8080/path?q=1#top",
            "postgres://postgres:postgres@localhost/test",
            "mongodb://${DB_USER}:${DB_PASS}@mongo:27017",
            "git clone git@github.com:org/repo.git",
        ]),
        Sample {
            rule: "command_line_credential",
            text: format!("$ curl -u deploy:{pw} https://api.host.test/v1"),
            url_param: format!("run=deploy --token={pw}"),
            env_line: format!("MYSQL_CMD=\"mysql -h db -uroot -p{pw}\""),
            pieces: vec![pw.clone()],
            negatives: Vec::new(),
        }
        .with(&[
            "git push -u origin main",
            "docker run -u 1000:1000 alpine",
            "curl -u $USER:$TOKEN https://api.host.test",
            "mysql -u root -p",
            "cargo test -p remaind-redact && ssh -p 2222 host",
            "vault login --password-file /run/secrets/db",
            "redis-cli -a $REDIS_PASSWORD ping",
            "redis-cli -h cache -p 6379 ping",
            "sshpass -p \"$SSH_PASS\" ssh deploy@host",
            "mysql -uroot -p'<password>' app",
        ]),
        {
            let secret = format!("{}-{}", &r[..12], &r[12..24]);
            Sample {
                rule: "secret_comparison",
                text: format!("if (password == \"{secret}\") {{ grant(); }}"),
                url_param: format!("check=api_key%20%3D%3D%20%22{secret}%22"),
                env_line: format!("[[ \"$API_TOKEN\" == \"{secret}\" ]] && deploy"),
                pieces: vec![secret],
                negatives: Vec::new(),
            }
            .with(&[
                "if (password == \"\") { return; }",
                "if (password == \"changeme\") warn();",
                "if (typeof token === \"string\") {",
                "if (password !== confirmPassword) {",
                "if (token.type === \"Bearer\") {",
                "if (\"abc\" == tokens) {",
                "if token_type == \"refresh_token\":",
                "if (secret == \"${SECRET}\") {",
            ])
        },
        Sample {
            rule: "generic_secret",
            text: format!("client_secret = \"{}\"", &r[..24]),
            url_param: format!("api_key={}", &r[..24]),
            env_line: format!("DB_PASSWORD={}", &r[..24]),
            pieces: vec![r[..24].to_owned()],
            negatives: Vec::new(),
        }
        .with(&[
            "API_KEY=your_api_key_here",
            "password = os.environ[\"DB_PASSWORD\"]",
            "max_tokens: 4096",
            "cache_key = \"user:profile:v2\"",
            "REPORT_KEY=report-2024-q3",
            "tokenizer = AutoTokenizer.from_pretrained(\"gpt2\")",
            "SECRET_KEY=changeme",
            "\"password\": \"********\"",
            "token: string",
            "DB_PASSWORD=${DB_PASSWORD}",
            "api_key = settings.API_KEY",
            "sort_key = \"name\"",
            "PWD=/srv/app",
            "GOOGLE_APPLICATION_CREDENTIALS=/home/me/gcp.json",
            "SSH_KEY=~/.ssh/id_ed25519",
            "TOKEN_PATH=../secrets/token.txt",
            "VAULT_TOKEN_URL=https://vault.example.com/v1",
            "API_TOKEN=$(cat ~/.token)",
            "\"password\": \"must be at least 8 characters\"",
            "DB_PASSWORD=${DB_PASSWORD:-postgres}",
            "password=getpass()",
        ]),
    ]
}

/// A fixed random-looking string for the context tests.
pub(crate) const R: &str = "Q7vLm2Xk9PzR4tYwB8nJc3HfD6sGa1UeK5oVi0MqTlNxZrWyE2bCd7FgHj4Ku9Ls3Mp8No1Oq6Pr5St2Uv0Wx7Yz4Ab9Cd3Ef8Gh";

/// Panics if any 8-byte window of any piece appears in `out`.
#[track_caller]
pub(crate) fn assert_no_window(out: &[u8], pieces: &[String]) {
    for piece in pieces {
        for window in piece.as_bytes().windows(8) {
            assert!(
                !contains(out, window),
                "window {:?} of {piece:?} survived in {:?}",
                String::from_utf8_lossy(window),
                String::from_utf8_lossy(out)
            );
        }
    }
}

pub(crate) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// Asserts that `out` holds a placeholder of `rule`.
#[track_caller]
pub(crate) fn assert_names_rule(out: &[u8], rule: &str) {
    let tag = format!("[REDACTED:{rule}:");
    assert!(
        contains(out, tag.as_bytes()),
        "no {tag}…] placeholder in {:?}",
        String::from_utf8_lossy(out)
    );
}
