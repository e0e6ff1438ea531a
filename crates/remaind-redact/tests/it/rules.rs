//! Rule-specific behaviour: PEM variants, precedence, overlaps, contexts that must or must
//! not fire, UTF-8 safety.

use remaind_redact::{BUILTIN_RULES, Redactor, UserRule};

use crate::support::{KEY, R, assert_names_rule, assert_no_window, pem, redactor, samples};

fn redact(text: &str) -> String {
    redactor().redact_str(text).0.into_owned()
}

#[test]
fn builtin_rule_names_are_the_contract() {
    assert_eq!(
        BUILTIN_RULES,
        &[
            "private_key",
            "anthropic_api_key",
            "openrouter_api_key",
            "openai_api_key",
            "github_token",
            "gitlab_token",
            "slack_token",
            "slack_webhook",
            "stripe_key",
            "google_api_key",
            "npm_token",
            "pypi_token",
            "huggingface_token",
            "sendgrid_api_key",
            "twilio_credential",
            "vault_token",
            "digitalocean_token",
            "databricks_token",
            "sentry_token",
            "shopify_token",
            "linear_api_key",
            "mailchimp_api_key",
            "telegram_bot_token",
            "square_oauth_secret",
            "artifactory_token",
            "softlayer_api_key",
            "discord_bot_token",
            "azure_storage_key",
            "azure_sas_signature",
            "aws_access_key_id",
            "aws_session_token",
            "aws_bedrock_api_key",
            "jwt",
            "aws_secret_access_key",
            "bearer_token",
            "authorization_header",
            "api_key_header",
            "url_credentials",
            "command_line_credential",
            "secret_comparison",
            "generic_secret",
        ]
    );
    let sampled: Vec<&str> = samples(R).iter().map(|s| s.rule).collect();
    assert_eq!(sampled, BUILTIN_RULES, "every rule has a sample");
}

#[test]
fn pem_blocks_of_every_type() {
    let body = format!("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC{R}{R}");
    for kind in ["", "RSA", "EC", "DSA", "OPENSSH", "ENCRYPTED", "PGP"] {
        let block = pem(kind, &body);
        let block = if kind == "PGP" {
            block.replace("PRIVATE KEY-----", "PRIVATE KEY BLOCK-----")
        } else {
            block
        };
        let text = format!("key file:\n{block}\nend of file\n");
        let out = redact(&text);
        assert_no_window(out.as_bytes(), std::slice::from_ref(&body));
        assert!(!out.contains("PRIVATE KEY"), "{out}");
        assert!(
            out.starts_with("key file:\n[REDACTED:private_key:"),
            "{out}"
        );
        assert!(out.ends_with("]\nend of file\n"), "{out}");
    }
}

#[test]
fn pem_with_literal_escapes_and_crlf() {
    let body = format!("{R}{R}");
    let block = pem("RSA", &body);
    for text in [
        block.replace('\n', "\\n"),
        block.replace('\n', "\r\n"),
        block.replace('\n', "\\r\\n"),
        block.replace('\n', "\\\\n"),
        block.replace('\n', " "),
    ] {
        let wrapped = format!("{{\"k\":\"{text}\",\"next\":1}}");
        let out = redact(&wrapped);
        for line in body.as_bytes().chunks(64) {
            assert_no_window(
                out.as_bytes(),
                &[String::from_utf8_lossy(line).into_owned()],
            );
        }
        assert!(out.ends_with("\",\"next\":1}"), "{out}");
        assert!(!out.contains("END RSA"), "{out}");
    }
}

#[test]
fn pem_with_encryption_headers() {
    let text = format!(
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,9F8E7D6C5B4A39281706F5E4D3C2B1A0\n\n{}\n{}\n-----END RSA PRIVATE KEY-----\ntrailer",
        &R[..64],
        &R[64..]
    );
    let out = redact(&text);
    assert_no_window(out.as_bytes(), &[R.to_owned()]);
    assert!(
        out.starts_with("[REDACTED:private_key:") && out.ends_with("]\ntrailer"),
        "{out}"
    );
}

#[test]
fn truncated_pem_is_redacted_to_the_end_of_its_body() {
    let body = format!("{R}{R}");
    let block = pem("EC", &body);
    let cut = &block[..block.find("-----END").expect("has END")];
    for (text, tail) in [
        (cut.to_owned(), ""),
        (
            format!("{cut}... [output truncated]"),
            "... [output truncated]",
        ),
        (format!("\"{}\" }}", cut.replace('\n', "\\n")), "\" }"),
    ] {
        let out = redact(&text);
        assert_no_window(out.as_bytes(), std::slice::from_ref(&body));
        assert_names_rule(out.as_bytes(), "private_key");
        assert!(out.ends_with(tail), "{out:?}");
    }
}

#[test]
fn public_keys_and_certificates_are_not_private_keys() {
    let text = format!(
        "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
        &R[..64],
        &R[..64]
    );
    assert_eq!(redact(&text), text);
}

#[test]
fn anthropic_wins_over_openai() {
    for key in [
        format!("sk-ant-api03-{}AA", &R[..95]),
        format!("sk-ant-admin01-{}AA", &R[..90]),
    ] {
        let (out, applied) = redactor().redact_str(&key);
        assert_eq!(applied.len(), 1, "{applied:?}");
        assert_eq!(applied[0].rule, "anthropic_api_key");
        assert_eq!(out, applied[0].placeholder);
    }
}

#[test]
fn openai_key_shapes() {
    for key in [
        format!("sk-{}T3BlbkFJ{}", &R[..20], &R[20..40]),
        format!("sk-proj-{}", &R[..100]),
        format!("sk-svcacct-{}", &R[..100]),
        format!("sk-admin-{}", &R[..100]),
    ] {
        let (out, applied) = redactor().redact_str(&key);
        assert_eq!(applied.len(), 1, "{key}: {applied:?}");
        assert_eq!(applied[0].rule, "openai_api_key");
        assert_eq!(out, applied[0].placeholder);
    }
}

#[test]
fn token_shapes_of_github_slack_aws() {
    let cases = [
        (format!("gho_{}", &R[..36]), "github_token"),
        (format!("ghu_{}", &R[..36]), "github_token"),
        (format!("ghs_{}", &R[..36]), "github_token"),
        (format!("ghr_{}", &R[..36]), "github_token"),
        (
            format!("github_pat_{}_{}", &R[..22], &R[22..81]),
            "github_token",
        ),
        (format!("xoxp-1234567890-{}", &R[..30]), "slack_token"),
        (format!("xoxa-2-{}", &R[..30]), "slack_token"),
        (format!("xoxr-1-{}", &R[..30]), "slack_token"),
        (format!("xoxs-2718-{}", &R[..30]), "slack_token"),
        (format!("xoxe.xoxp-1-{}", &R[..30]), "slack_token"),
        (format!("ghp_{}_{}", &R[..20], &R[20..36]), "github_token"),
        (format!("xapp-1-A0123456789-{}", &R[..30]), "slack_token"),
        ("ASIAY34FZKBOKMUTVV7A".to_owned(), "aws_access_key_id"),
        ("ABIAY34FZKBOKMUTVV7A".to_owned(), "aws_access_key_id"),
        ("ACCAY34FZKBOKMUTVV7A".to_owned(), "aws_access_key_id"),
    ];
    for (token, rule) in cases {
        let text = format!("value={token}\n");
        let (out, applied) = redactor().redact_str(&text);
        assert_eq!(applied.len(), 1, "{token}: {applied:?}");
        assert_eq!(applied[0].rule, rule);
        assert_eq!(out, format!("value={}\n", applied[0].placeholder));
    }
}

#[test]
fn aws_secret_needs_an_assignment_context() {
    let secret = "wJa1rXUtnFEMI/K7MDENG/bPxRfiCY7q3Vk2MZLE";
    for text in [
        format!("aws_secret_access_key = {secret}"),
        format!("AWS_SECRET_ACCESS_KEY={secret}"),
        format!("export AWS_SECRET_ACCESS_KEY=\"{secret}\""),
        format!("{{\"SecretAccessKey\": \"{secret}\"}}"),
        format!("secretAccessKey: '{secret}'"),
        format!("aws-secret-access-key {secret}"),
        format!("\\\"SecretAccessKey\\\":\\\"{secret}\\\""),
    ] {
        let out = redact(&text);
        assert!(
            !out.contains(&secret[..8]) && !out.contains(&secret[20..]),
            "{out}"
        );
        assert_names_rule(out.as_bytes(), "aws_secret_access_key");
    }
    // The same 40 characters with no such key name are left alone.
    for text in [
        format!("value: {secret}"),
        format!("path /{secret}/x"),
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8".to_owned(),
    ] {
        assert_eq!(redact(&text), text);
    }
}

#[test]
fn authorization_values() {
    let cases = [
        (
            "Authorization: Bearer x",
            "Authorization: Bearer [REDACTED:authorization_header:",
        ),
        (
            "Authorization: Basic dXNlcjpwYXNz",
            "Authorization: Basic [REDACTED:authorization_header:",
        ),
        (
            "authorization=abc123",
            "authorization=[REDACTED:authorization_header:",
        ),
        (
            "{\"authorization\":\"opaque-value\"}",
            "{\"authorization\":\"[REDACTED:authorization_header:",
        ),
        (
            "{'Authorization': 'Token 12345'}",
            "{'Authorization': 'Token [REDACTED:authorization_header:",
        ),
        (
            "Proxy-Authorization: Basic Zm9vOmJhcg==",
            "Proxy-Authorization: Basic [REDACTED:authorization_header:",
        ),
    ];
    for (text, prefix) in cases {
        let out = redact(text);
        assert!(out.starts_with(prefix), "{text} -> {out}");
    }
    let digest = "Authorization: Digest username=\"u\", nonce=\"abc\", response=\"6629fae49393a05397450978507c4ef1\"\nnext";
    let out = redact(digest);
    assert!(!out.contains("6629fae4"), "{out}");
    assert!(out.ends_with("\nnext"), "{out}");
    // A JWT bearer credential is named by the more specific rule.
    let samples = crate::support::samples(R);
    let jwt = &samples
        .iter()
        .find(|s| s.rule == "jwt")
        .expect("a JWT sample")
        .text;
    let out = redact(&format!("Authorization: Bearer {jwt}"));
    assert!(
        out.starts_with("Authorization: Bearer [REDACTED:jwt:"),
        "{out}"
    );
    // Prose mentioning the header is left alone.
    let prose =
        "The Authorization header carries the credential; a bearer token is an opaque string.";
    assert_eq!(redact(prose), prose);
    // An unknown scheme word stays and only the credential after it goes, also when the
    // redacted text is searched again (the word then stands before a placeholder).
    let out = redact("Authorization: Api-Token Zk81mPq0RtYw7vX2");
    assert!(
        out.starts_with("Authorization: Api-Token [REDACTED:authorization_header:"),
        "{out}"
    );
    assert_eq!(redact(&out), out);
    let out = redact("Authorization: SSWS Zk81mPq0RtYw7vX2 trailing");
    assert!(
        out.starts_with("Authorization: SSWS [REDACTED:authorization_header:"),
        "{out}"
    );
}

#[test]
fn password_flags_of_common_clients() {
    for (text, kept) in [
        (
            "mysql -h db -uroot -pS3cr3tPass9 app",
            "mysql -h db -uroot -p",
        ),
        (
            "mysql -h db -u app -p'S3cr3t!x9' shop",
            "mysql -h db -u app -p'",
        ),
        (
            "mysqldump -u root -p\"S3cr3tPass9\" db",
            "mysqldump -u root -p\"",
        ),
        (
            "redis-cli -h cache -a S3cr3tRedisPw9 ping",
            "redis-cli -h cache -a ",
        ),
        ("sshpass -p 'S3cr3tSshPw9' ssh deploy@host", "sshpass -p '"),
        // The option says it is a password: letters only, shaped like a name, still one.
        (
            "mysql -h db -uroot -pPgjexLasnveXxc",
            "mysql -h db -uroot -p",
        ),
        ("sshpass -p S3cr3tPgjexLasnveXxc ssh host", "sshpass -p "),
    ] {
        let out = redact(text);
        assert!(
            out.starts_with(&format!("{kept}[REDACTED:command_line_credential:")),
            "{text} -> {out}"
        );
        assert!(!out.contains("S3cr3t"), "{text} -> {out}");
    }
}

/// A password option's value is kept when it is a variable or a placeholder, not a password.
#[test]
fn password_flags_keep_variables_and_placeholders() {
    for text in [
        "mysql -p\"$MYSQL_PWD\" app",
        "mysql -uroot -p${DB_PASS}",
        "sshpass -p \"$SSH_PASS\" ssh deploy@host",
        "mysql -u root -pexample",
    ] {
        assert_eq!(redact(text), text);
    }
}

#[test]
fn bearer_tokens_need_to_look_random() {
    let out = redact("curl -H \"X-Auth: Bearer abcDEF0123456789ghiJKL\" https://x");
    assert!(out.contains("Bearer [REDACTED:bearer_token:"), "{out}");
    let out = redact("Bearer Bearer abcDEF0123456789ghiJKL");
    assert!(
        out.starts_with("Bearer Bearer [REDACTED:bearer_token:"),
        "{out}"
    );
    let out = redact("Authorization: Bearer Bearer x1");
    assert!(
        out.starts_with("Authorization: Bearer Bearer [REDACTED:authorization_header:"),
        "{out}"
    );
    for prose in [
        "the Bearer authentication scheme is defined in RFC 6750.",
        "Bearer tokens are simple.",
        "bearer shares of the company",
    ] {
        assert_eq!(redact(prose), prose);
    }
}

#[test]
fn adjacent_and_repeated_secrets() {
    let a = format!("ghp_{}", &R[..36]);
    let b = format!("AKIA{}", &R[40..56].to_ascii_uppercase());
    let text = format!("{a} {b},{a}\n{b}");
    let (out, applied) = redactor().redact_str(&text);
    let rules: Vec<&str> = applied.iter().map(|a| a.rule.as_str()).collect();
    assert_eq!(
        rules,
        [
            "github_token",
            "aws_access_key_id",
            "github_token",
            "aws_access_key_id"
        ]
    );
    assert_eq!(applied[0], applied[2]);
    assert_eq!(applied[1], applied[3]);
    assert_eq!(
        out,
        format!(
            "{} {},{}\n{}",
            applied[0].placeholder,
            applied[1].placeholder,
            applied[0].placeholder,
            applied[1].placeholder
        )
    );
}

#[test]
fn overlapping_user_and_builtin_matches_leave_no_byte() {
    let user = [UserRule {
        name: "acme_token".into(),
        // Starts earlier than the GitHub token and ends inside it.
        pattern: r"acme:[a-z]+:ghp_[A-Za-z0-9]{10}".into(),
    }];
    let r = Redactor::new(KEY, &user).expect("builds");
    let gh = format!("ghp_{}", &R[..36]);
    let text = format!("see acme:prod:{gh} now");
    let (out, applied) = r.redact_str(&text);
    assert_eq!(applied.len(), 1, "{applied:?}");
    assert_eq!(applied[0].rule, "acme_token");
    assert_eq!(out, format!("see {} now", applied[0].placeholder));
    assert_no_window(out.as_bytes(), &[gh]);
}

#[test]
fn user_rule_secret_group_keeps_its_context() {
    let user = [UserRule {
        name: "internal".into(),
        pattern: r"intk=(?P<secret>[a-f0-9]{16})".into(),
    }];
    let r = Redactor::new(KEY, &user).expect("builds");
    let (out, applied) = r.redact_str("x intk=0123456789abcdef y");
    assert_eq!(out, format!("x intk={} y", applied[0].placeholder));
    assert!(applied[0].placeholder.starts_with("[REDACTED:internal:"));
    // A user rule that would match its own placeholder, or another rule's, does not re-fire.
    let greedy = [
        user[0].clone(),
        UserRule {
            name: "anything_redacted".into(),
            pattern: r"REDACTED:[a-z_]+:[0-9a-f]+".into(),
        },
    ];
    let r = Redactor::new(KEY, &greedy).expect("builds");
    let text = format!("{} tail", applied[0].placeholder);
    assert_eq!(r.redact_str(&text).0, text);
    let (own, applied) = r.redact_str("REDACTED:x:0a tail");
    assert!(
        applied[0]
            .placeholder
            .starts_with("[REDACTED:anything_redacted:")
    );
    assert_eq!(r.redact_str(&own).0, own);
    // A placeholder no rule of this redactor could have written is text: a redactor without
    // `internal` searches it like any other.
    let r = Redactor::new(KEY, &greedy[1..]).expect("builds");
    assert_ne!(r.redact_str(&text).0, text);
}

#[test]
fn redact_str_keeps_utf8_around_and_inside_matches() {
    let user = [UserRule {
        name: "greek".into(),
        // A byte-level rule that can split a multi-byte character.
        pattern: r"(?-u)\xce".into(),
    }];
    let r = Redactor::new(KEY, &user).expect("builds");
    let text = format!("αβγ ☃ ghp_{} 雪 Authorization: Bearer ключ", &R[..36]);
    let (out, applied) = r.redact_str(&text);
    assert!(!applied.is_empty());
    assert!(!out.contains('α') && !out.contains("ключ"), "{out}");
    assert!(out.contains("☃") && out.contains("雪"), "{out}");
    // Bytes in, bytes out, invalid UTF-8 is fine.
    let mut bytes = vec![0xff, 0xfe, b' '];
    bytes.extend_from_slice(format!("ghp_{}", &R[..36]).as_bytes());
    bytes.push(0x80);
    let (out, applied) = redactor().redact_bytes(&bytes);
    assert_eq!(applied.len(), 1);
    assert_eq!(&out[..3], &[0xff, 0xfe, b' ']);
    assert_eq!(out.last(), Some(&0x80));
}

#[test]
fn clean_input_is_returned_unchanged() {
    let r = redactor();
    let (out, applied) = r.redact_str("nothing to see");
    assert!(matches!(out, std::borrow::Cow::Borrowed(_)));
    assert!(applied.is_empty());
    let (out, applied) = r.redact_bytes(b"");
    assert!(out.is_empty() && applied.is_empty());
    assert!(!r.contains_secret(b""));
}

#[test]
fn placeholders_never_match_a_rule() {
    let r = redactor();
    for name in BUILTIN_RULES {
        let placeholder = format!("[REDACTED:{name}:0123456789ab]");
        for text in [
            placeholder.clone(),
            format!("Authorization: Bearer {placeholder}"),
            format!("aws_secret_access_key={placeholder}"),
            format!("\"authorization\":\"{placeholder}\""),
        ] {
            assert!(!r.contains_secret(text.as_bytes()), "{text}");
        }
    }
}

#[test]
fn pathological_inputs_stay_linear() {
    let r = redactor();
    let n = 20_000;
    let inputs = [
        "sk-".repeat(n),
        format!("x{}", "sk-a".repeat(n)),
        "-----BEGIN PRIVATE KEY-----".repeat(n / 4),
        format!("-----BEGIN RSA PRIVATE KEY-----\n{}", "QUJD\n".repeat(n)),
        "Authorization: ".repeat(n / 4),
        "Bearer ".repeat(n / 2),
        "aws_secret_access_key=".repeat(n / 4),
        "[REDACTED:jwt:0123456789ab]".repeat(n / 8),
        "eyJ.".repeat(n),
        "\\n".repeat(n * 2),
    ];
    for input in inputs {
        let (once, _) = r.redact_str(&input);
        let (twice, applied) = r.redact_str(&once);
        assert_eq!(once, twice);
        assert!(applied.is_empty());
    }
}

/// Built-in rules are tried at the places their literals' hits allow; a text where every
/// hit starts the same long run of letters (each try could read to its end) must still take
/// time in proportion to its length, not its square. Quadratic, 1 MiB of it took minutes.
#[test]
fn lines_full_of_key_words_take_linear_time() {
    let r = redactor();
    for unit in [
        "tokenA",
        "_keyA",
        "secretQ",
        "AKIA",
        "-----BEGIN ",
        "Bearer ",
        "authorizationX",
    ] {
        let text = unit.repeat((1 << 20) / unit.len());
        let start = std::time::Instant::now();
        let (out, _) = r.redact_str(&text);
        let took = start.elapsed();
        assert!(out.len() >= text.len() / 2, "{unit}");
        // Linear is a few milliseconds; the margin is for a loaded CI machine.
        assert!(
            took < std::time::Duration::from_secs(10),
            "1 MiB of {unit:?} took {took:?}"
        );
    }
}

#[test]
fn a_quoted_password_is_redacted_to_its_closing_quote() {
    // (text, what must be gone, what must stay)
    let cases = [
        (
            "DB_PASSWORD=\"S3cret! and more words\"",
            "and more words",
            "DB_PASSWORD=\"[REDACTED:generic_secret:",
        ),
        (
            "export DB_PASSWORD='S3cr3t,with;marks' && run",
            "with;marks",
            "' && run",
        ),
        (
            "{\"text\": \"password = \\\"Tr0ub4dor & 3\\\" in the config\"}",
            " & 3",
            "\\\" in the config\"}",
        ),
        (
            "api_key: \"Q7vLm2Xk9PzR4tYw B8nJc3HfD6\"\nnext: line",
            "B8nJc3HfD6",
            "\"\nnext: line",
        ),
    ];
    for (text, gone, kept) in cases {
        let out = redact(text);
        assert!(!out.contains(gone), "{text} -> {out}");
        assert!(out.contains(kept), "{text} -> {out}");
        assert_eq!(redact(&out), out, "not idempotent: {text}");
    }
    // Not taken past the line, nor when the first word is no credential, nor an unquoted one.
    for text in [
        "PASSWORD=\"S3cret! no closing quote\nnext=\"line\"",
        "password: \"must be at least 8 characters\"",
        "DB_PASSWORD=S3cret! and the rest is prose",
    ] {
        let out = redact(text);
        for word in ["closing", "next", "characters", "prose"] {
            assert_eq!(text.contains(word), out.contains(word), "{text} -> {out}");
        }
    }
}

#[test]
fn string_literals_compared_with_a_secret_name() {
    // (text, the literal that must go)
    for (text, secret) in [
        ("if (password == \"hunter2-Xy9!\") {", "hunter2-Xy9!"),
        ("if (\"s3cr3t-Tok3n\" === api_key) {", "s3cr3t-Tok3n"),
        ("password != 'x7!Kq2pL'", "x7!Kq2pL"),
        (
            "if (\"Zq8vT2mK9pLx4Rw7Bn3J\" !== token) return;",
            "Zq8vT2mK9pLx4Rw7Bn3J",
        ),
        (
            "if (\"Zq8vT2mK9pLx4Rw7Bn3J\" == this.config.secret)",
            "Zq8vT2mK9pLx4Rw7Bn3J",
        ),
        (
            "assert resp.json()[\"token\"] == \"Zq8vT2mK9pLx4Rw7Bn3J\"",
            "Zq8vT2mK9pLx4Rw7Bn3J",
        ),
        (
            "if [[ \"$DB_PASSWORD\" == \"hunter2-Xy9!\" ]]; then",
            "hunter2-Xy9!",
        ),
        (
            "{\"cmd\": \"if (password == \\\"hunter2-Xy9!\\\") {\"}",
            "hunter2-Xy9!",
        ),
    ] {
        let (out, applied) = redactor().redact_str(text);
        assert!(!out.contains(secret), "{text} -> {out}");
        assert_eq!(applied.len(), 1, "{text}: {applied:?}");
        assert_eq!(applied[0].rule, "secret_comparison", "{text}");
        assert_eq!(redact(&out), out, "not idempotent: {text}");
    }
    // Empty and stand-in literals, types, names, other operators stay.
    for text in [
        "if (password == \"\") {",
        "if (password == \"changeme\") {",
        "if (typeof token === \"string\") {",
        "if (typeof apiKey !== 'undefined') {",
        "if (password !== confirmPassword) {",
        "if (token.type === \"Bearer\") {",
        "if token_type == \"refresh_token\":",
        "if (secret == \"${SECRET}\") {",
        "if (\"abc\" == tokens) {",
        "if (password.length < \"hunter2-Xy9!\".length) {",
        "let password = \"x\" == y;",
    ] {
        assert_eq!(redact(text), text);
    }
}

#[test]
fn a_password_with_spaces_or_brackets_is_redacted_whole() {
    // (text, what must be gone, what must stay)
    for (text, gone, kept) in [
        (
            "password = \"value with quotes and spaces\"",
            "quotes and spaces",
            "password = \"[REDACTED:generic_secret:",
        ),
        (
            "db_pass: m{{h}o)p${e]nob(ody[",
            "nob(ody[",
            "db_pass: [REDACTED:generic_secret:",
        ),
        ("db_pass: ${e]nob(ody[\nnext: 1", "nob(ody[", "\nnext: 1"),
        (
            "password: \"p@ss,w0rd!\"",
            "w0rd!",
            "password: \"[REDACTED:",
        ),
        (
            "connect(password=S3cr3t!x9)",
            "S3cr3t",
            "connect(password=[REDACTED:",
        ),
        (
            "{\"password\": \"correct horse battery staple\"}",
            "horse",
            "{\"password\": \"",
        ),
        (
            "DB_PASSWORD=k6NLja)Jz9iMVBW&user=app",
            "Jz9iMVBW",
            "&user=app",
        ),
    ] {
        let out = redact(text);
        assert!(!out.contains(gone), "{text} -> {out}");
        assert!(out.contains(kept), "{text} -> {out}");
        assert_eq!(redact(&out), out, "not idempotent: {text}");
    }
    // Messages, labels, code and references under a password key stay, also as parsed JSON.
    for text in [
        "\"password\": \"must be at least 8 characters\"",
        "\"passwordPlaceholder\": \"Enter your password\"",
        "\"forgotPassword\": \"Forgot password?\"",
        "password_hint = \"Use {length} characters or more\"",
        "password=getpass()",
        "password = os.environ.get(\"DB_PASSWORD\")",
        "connect(user=user, password=password)",
        "password: args[1],",
        "DB_PASSWORD=${DB_PASSWORD:-postgres}",
        "password: ${{ secrets.DB_PASSWORD }}",
    ] {
        assert_eq!(redact(text), text);
    }
    let mut json = serde_json::json!({ "password": "must be at least 8 characters" });
    assert!(redactor().redact_json(&mut json).is_empty());
    let mut json = serde_json::json!({ "password": "value with quotes and spaces" });
    assert_eq!(redactor().redact_json(&mut json).len(), 1);
}

/// The catalogue in `docs/redaction.md` ("Built-in families", one table row per rule) names
/// exactly the built-in rules, in their order: a rule added or renamed without its row (or a
/// row left for a rule that went) fails here, not in a reader's hands.
#[test]
fn the_documented_catalogue_is_the_built_in_rules() {
    let doc = include_str!("../../../../docs/redaction.md");
    let section = doc
        .split("## Built-in families")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/redaction.md has a Built-in families section");
    let documented: Vec<&str> = section
        .lines()
        .filter_map(|line| line.strip_prefix("| `")?.split('`').next())
        .collect();
    assert_eq!(
        documented,
        remaind_redact::BUILTIN_RULES,
        "docs/redaction.md"
    );
}

/// detect-secrets' keyword family, C-family shapes: a literal declared or built for a
/// key-named identifier is redacted as a compared one is; calls and names stay.
#[test]
fn string_literals_declared_or_built_for_a_secret_name() {
    // (text, the literal that must go)
    for (text, secret) in [
        ("char db_password[32] = \"Pl4in-Kq9!\";", "Pl4in-Kq9!"),
        (
            "static char smtp_password[] = \"Pl4in-Kq9!\";",
            "Pl4in-Kq9!",
        ),
        ("NSString *password = @\"Pl4in-Kq9!\";", "Pl4in-Kq9!"),
        ("string apiKey = @\"Vb7nQ2xLm9RtK4wZ\";", "Vb7nQ2xLm9RtK4wZ"),
        (
            "std::string secret(\"Vb7nQ2xLm9RtK4wZ\");",
            "Vb7nQ2xLm9RtK4wZ",
        ),
        (
            "secret.assign(\"Vb7nQ2xLm9RtK4wZ\", 16);",
            "Vb7nQ2xLm9RtK4wZ",
        ),
        ("ssl_password \"Pl4in-Kq9!\";", "Pl4in-Kq9!"),
        ("auth_token 'Vb7nQ2xLm9RtK4wZ';", "Vb7nQ2xLm9RtK4wZ"),
        (
            "{\"cmd\": \"char db_password[] = \\\"Pl4in-Kq9!\\\";\"}",
            "Pl4in-Kq9!",
        ),
    ] {
        let (out, applied) = redactor().redact_str(text);
        assert!(!out.contains(secret), "{text} -> {out}");
        assert_eq!(applied.len(), 1, "{text}: {applied:?}");
        assert_eq!(redact(&out), out, "not idempotent: {text}");
    }
    // Calls on a longer name, stand-ins, words, references and bare declarations stay.
    for text in [
        "let t = getToken(\"Vb7nQ2xLm9RtK4wZ\");",
        "verify_password(\"Pl4in-Kq9!\")",
        "hashed = password.encode(\"utf-8\")",
        "char password[64] = \"\";",
        "char password[64];",
        "NSString *password = @\"<your password>\";",
        "std::string secret(\"${APP_SECRET}\");",
        "secret.assign(\"changeme\");",
        "ssl_password \"/etc/ssl/pass.txt\";",
        "the token \"expired\" came back; retry",
        "private_key \"some/dir/aint/a/secret\";",
    ] {
        assert_eq!(redact(text), text);
    }
}

/// detect-secrets' keyword family, short literals: a string literal under a password key is
/// the password however short or plain; unquoted, a short value is a name and stays.
#[test]
fn a_short_quoted_password_literal_is_redacted() {
    for (text, secret) in [
        ("db_password = \"qwe\"", "qwe"),
        ("smtp_password := 'root1'", "root1"),
        ("$db_pwd => \"abc12\",", "abc12"),
        ("user.password = \"letmein\"", "letmein"),
        ("if (admin_password === 'zxc') {", "zxc"),
        ("if (\"zxc\" != db_password) {", "zxc"),
        ("char pwd[] = \"asd\";", "asd"),
        ("{\"cmd\": \"DB_PASSWORD=\\\"qwe\\\" ./run\"}", "qwe"),
    ] {
        let (out, applied) = redactor().redact_str(text);
        assert!(!out.contains(secret), "{text} -> {out}");
        assert_eq!(applied.len(), 1, "{text}: {applied:?}");
    }
    for text in [
        "password = \"\"",
        "password = \"ab\"",
        "password: \"required\"",
        "\"password\": \"string\",",
        "password = \"none\"",
        "password = \"changeme\"",
        "password = \"${DB_PASSWORD}\"",
        "password = pwd",
        "password: str",
        "db_password = qwe",
        "api_key = \"qwe\"",
        "pwd = \"/srv/app\"",
    ] {
        assert_eq!(redact(text), text);
    }
}

/// The vendor families of issue 43, in the shapes their vendors document (fake values).
#[test]
fn vendor_families_of_issue_43() {
    let hex64 = "9f2c4e6a8b0d1f3e5c7a9b1d3f5e7c9a2b4d6f8e0a1c3e5b7d9f2a4c6e8b0d1f";
    for (text, secret, rule) in [
        (
            "MAILCHIMP_KEY: 7d1e9c3b5a8f2e4d6c0b1a3f5e7d9c2b-us14",
            "7d1e9c3b5a8f2e4d6c0b1a3f5e7d9c2b-us14",
            "mailchimp_api_key",
        ),
        (
            "curl https://api.telegram.org/bot6123456789:AAGx7Vq2LmP9sK4tRw8zN3cB6hJ1dF5yE0u/getMe",
            "6123456789:AAGx7Vq2LmP9sK4tRw8zN3cB6hJ1dF5yE0u",
            "telegram_bot_token",
        ),
        (
            "SQUARE_APP_SECRET=sq0csp-Kx8vQ2mL5pR9tW3yZ6bN1cF4hJ7dG0sA2eU5iO8kM3n",
            "sq0csp-Kx8vQ2mL5pR9tW3yZ6bN1cF4hJ7dG0sA2eU5iO8kM3n",
            "square_oauth_secret",
        ),
        (
            "X-JFrog-Art-Api: AKCp8kQ2vL9mX4tR7wZ1yB5nC8hF3dG6sJ0aE2uK5oP9iM4qT7lN1xW",
            "AKCp8kQ2vL9mX4tR7wZ1yB5nC8hF3dG6sJ0aE2uK5oP9iM4qT7lN1xW",
            "artifactory_token",
        ),
        (
            "jfrog config add --password AP7Hq2Lm9Xk4Rt8Wz1Yb5Nc",
            "AP7Hq2Lm9Xk4Rt8Wz1Yb5Nc",
            "artifactory_token",
        ),
        (
            "artifactory:\n  password: \"APBv3Kq8Lm2Xz7Rt5Wy9\"",
            "APBv3Kq8Lm2Xz7Rt5Wy9",
            "artifactory_token",
        ),
        (
            &format!("http://api.softlayer.com/soap/v3.1/{hex64}"),
            hex64,
            "softlayer_api_key",
        ),
        (
            &format!("SOFTLAYER_API_KEY := \"{hex64}\""),
            hex64,
            "softlayer_api_key",
        ),
        (
            "//npm.example.com/team/:_authToken=Qx7vLm2Xk9PzR4tYwB8n",
            "Qx7vLm2Xk9PzR4tYwB8n",
            "npm_token",
        ),
        (
            "//registry.example.org:4873/:_auth=dXNlcjpTM2NyM3QhcGFzcw==",
            "dXNlcjpTM2NyM3QhcGFzcw==",
            "npm_token",
        ),
    ] {
        let (out, applied) = redactor().redact_str(text);
        assert!(!out.contains(secret), "{text} -> {out}");
        assert!(
            applied.iter().any(|a| a.rule == rule),
            "{text}: {applied:?} lacks {rule}"
        );
    }
    for text in [
        // No Mailchimp key: capital hex, a short body, another suffix.
        "7D1E9C3B5A8F2E4D6C0B1A3F5E7D9C2B-us14",
        "7d1e9c3b5a8f2e4-us14",
        "7d1e9c3b5a8f2e4d6c0b1a3f5e7d9c2b-eu14",
        // No Telegram token: no bot id, or a body not starting `AA`.
        "bot:AAGx7Vq2LmP9sK4tRw8zN3cB6hJ1dF5yE0u",
        // `AKC` inside a word; `AP…` with no Artifactory or JFrog word near.
        "theAKCp8kQ2vL9mX4tR7wZ1yB5nC8h",
        "code AP7Hq2Lm9Xk4Rt8Wz1Yb5Nc",
        // An `.npmrc` line holding a variable.
        "//npm.example.com/:_authToken=${NPM_TOKEN}",
    ] {
        assert_eq!(redact(text), text);
    }
}

/// An Azure storage account key by its own shape near a mention of Azure, a quoted
/// `AccountKey`, a TestPyPI token, a Slack `xoxo-` token with its numeric segments.
#[test]
fn azure_keys_near_a_mention_and_other_shapes() {
    let key = format!("{}==", &R[..86].replace('Q', "+").replace('k', "/"));
    for (text, secret) in [
        (
            format!("portal.azure.com: storage account, key 1:\n  {key}\n"),
            key.clone(),
        ),
        (format!("AccountKey=\"{key}\""), key.clone()),
        (
            format!("pypi-AgENdGVzdC5weXBpLm9yZw{}", &R[..70]),
            R[..70].to_owned(),
        ),
        (
            format!("xoxo-2718281828-3141592653-{}", &R[..24]),
            R[..24].to_owned(),
        ),
    ] {
        let out = redact(&text);
        assert!(!out.contains(&secret), "{text} -> {out}");
    }
    for text in [
        // Three lines below the mention, or glued to a hash name, or with no mention.
        format!("azure.com\none\ntwo\nthree {key}"),
        format!("resolution: {{integrity: sha512-{key}}}\n'@azure/identity': '*'"),
        key.clone(),
    ] {
        assert_eq!(redact(&text), text);
    }
}

/// `_pw` ends a password key name as `_pwd` does.
#[test]
fn pw_key_names_announce_a_password() {
    for (text, secret) in [
        ("db_pw = \"K8v!q2Lm\"", "K8v!q2Lm"),
        ("CLOUDANT_PW=Zq7xW2mL9pR4", "Zq7xW2mL9pR4"),
    ] {
        let out = redact(text);
        assert!(!out.contains(secret), "{text} -> {out}");
    }
    for text in ["the_pw = pwd", "db_pw = \"\""] {
        assert_eq!(redact(text), text);
    }
}

/// A backquoted value (a Go raw string, a Markdown code span) under a secret key is judged
/// whole; a command substitution is not a value.
#[test]
fn backquoted_values_under_secret_keys() {
    for (text, secret) in [
        ("apiKey := `Zq7{xW2]mL9(pR4}tY8`", "Zq7{xW2]mL9(pR4}tY8"),
        (
            "client_secret: `K8vq2Lm9Xk4Rt8Wz1Yb5`",
            "K8vq2Lm9Xk4Rt8Wz1Yb5",
        ),
    ] {
        let out = redact(text);
        assert!(!out.contains(secret), "{text} -> {out}");
    }
    for text in [
        "TOKEN=`cat /run/secrets/token`",
        "PASSWORD=`pwgen -s 16 1`",
        "SECRET=`uuidgen`",
    ] {
        assert_eq!(redact(text), text);
    }
}

#[test]
fn a_jwt_is_known_by_a_header_that_is_a_json_object() {
    // {"alg":"HS256","typ":"JWT"} . {"sub":"1234567890"} . signature
    let token = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    let out = redact(&format!("token={token} ok"));
    assert!(!out.contains("SflKxwRJ"), "{out}");
    // The same header cut before its closing brace, and letters that only begin like a
    // header, are no token a library would read.
    for not_a_jwt in [
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV",
        "eyJhbasdGciOiJIUaddasdasfsasdasdzI1NiIasdsInR5cCI6IkpXVCasdJasd9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSM",
    ] {
        assert_eq!(redact(not_a_jwt), not_a_jwt);
    }
}

#[test]
fn a_value_that_says_it_is_made_up_is_no_secret_but_the_word_inside_a_token_is_chance() {
    for made_up in [
        "password = \"somefakekey\"",
        "cloudant_password = \"a-fake-tooshort-key\"",
    ] {
        assert_eq!(redact(made_up), made_up);
    }
    let out = redact("password = \"fAkeaA00aaa0a0aAaaA00A0aa0AAaA00AaA0\"");
    assert!(!out.contains("fAkeaA00"), "{out}");
}
