//! The store URL: parsed once, and shown only with its password masked.

use std::str::FromStr;

use postgres::config::SslMode;

use crate::tls::TlsMode;
use crate::{Error, Result};

/// `url` with any password masked as `***`, for messages: `postgres://ana:s3cret@db/x` →
/// `postgres://ana:***@db/x`, `host=db password=s3cret` → `host=db password=***`.
pub fn mask_password(url: &str) -> String {
    if let Some(sep) = url.find("://") {
        let (scheme, rest) = url.split_at(sep + 3);
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(authority_end);
        let masked = match (authority.rfind('@'), authority.find(':')) {
            (Some(at), Some(colon)) if colon < at => {
                format!("{}:***{}", &authority[..colon], &authority[at..])
            }
            _ => authority.to_owned(),
        };
        return format!("{scheme}{masked}{}", mask_query_password(tail));
    }
    // The key=value form.
    url.split(' ')
        .map(|kv| match kv.split_once('=') {
            Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
            _ => kv.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn mask_query_password(tail: &str) -> String {
    let Some((path, query)) = tail.split_once('?') else {
        return tail.to_owned();
    };
    let query: Vec<String> = query
        .split('&')
        .map(|kv| match kv.split_once('=') {
            Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
            _ => kv.to_owned(),
        })
        .collect();
    format!("{path}?{}", query.join("&"))
}

/// Whether `url` carries a password (in the user part or as a parameter).
pub fn has_password(url: &str) -> bool {
    mask_password(url) != url
}

/// Parse a store URL into the client's configuration and the TLS its `sslmode` asks for.
#[expect(
    clippy::disallowed_methods,
    reason = "libpq's own variables (PGPASSWORD, PGPASSFILE), read where libpq reads them; to move to the CLI with the store options"
)]
pub(crate) fn config(url: &str) -> Result<(postgres::Config, TlsMode)> {
    let bad = |reason: String| Error::Url {
        url: mask_password(url),
        reason,
    };
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return Err(bad(
            "it must start with postgres:// (e.g. postgres://remaind@db.internal/remaind)".into(),
        ));
    }
    let (rest, tls, client_mode) = crate::tls::split(url).map_err(bad)?;
    let mut config = postgres::Config::from_str(&rest).map_err(|e| bad(e.to_string()))?;
    config.ssl_mode(match client_mode {
        "disable" => SslMode::Disable,
        "require" => SslMode::Require,
        _ => SslMode::Prefer,
    });
    if config.get_password().is_none() {
        if let Ok(password) = std::env::var("PGPASSWORD") {
            config.password(password);
        } else if let Some(password) = pgpass_password(&config) {
            config.password(password);
        }
    }
    // A hook must never hang on an unreachable server: without a timeout of the URL's own,
    // a connection attempt gives up after a few seconds.
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(std::time::Duration::from_secs(3));
    }
    if config.get_application_name().is_none() {
        config.application_name("remaind");
    }
    Ok((config, tls))
}

/// The password file's entry for this connection, as libpq reads it: `$PGPASSFILE`, else
/// `~/.pgpass`; lines `host:port:database:user:password`, `*` matching anything, `\:` and
/// `\\` escaped; the first match wins. A file others may read is ignored, as libpq does.
#[expect(
    clippy::disallowed_methods,
    reason = "libpq's own variables (PGPASSWORD, PGPASSFILE), read where libpq reads them; to move to the CLI with the store options"
)]
fn pgpass_password(config: &postgres::Config) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let path = match std::env::var_os("PGPASSFILE") {
        Some(p) => std::path::PathBuf::from(p),
        None => std::path::PathBuf::from(std::env::var_os("HOME")?).join(".pgpass"),
    };
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() || meta.permissions().mode() & 0o077 != 0 {
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) => h.clone(),
        // A socket connection matches `localhost`, as in libpq.
        _ => "localhost".to_owned(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user()?.to_owned();
    let db = config.get_dbname().unwrap_or(&user).to_owned();
    let wanted = [host.as_str(), port.as_str(), db.as_str(), user.as_str()];
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(pgpass_fields)
        .find(|f| {
            f.len() == 5
                && f[..4]
                    .iter()
                    .zip(wanted)
                    .all(|(have, want)| have == "*" || have == want)
        })
        .map(|mut f| f.swap_remove(4))
}

/// One `.pgpass` line split on its unescaped colons, escapes undone.
fn pgpass_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => field.extend(chars.next()),
            ':' if fields.len() < 4 => fields.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    fields.push(field);
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_masked_in_every_form() {
        assert_eq!(
            mask_password("postgres://ana:s3cret@db:5432/x?sslmode=disable"),
            "postgres://ana:***@db:5432/x?sslmode=disable"
        );
        assert_eq!(
            mask_password("postgresql://ana@db/x?password=s3cret&sslmode=prefer"),
            "postgresql://ana@db/x?password=***&sslmode=prefer"
        );
        assert_eq!(
            mask_password("host=db user=ana password=s3cret"),
            "host=db user=ana password=***"
        );
        assert_eq!(mask_password("postgres://ana@db/x"), "postgres://ana@db/x");
        assert!(has_password("postgres://a:b@c/d"));
        assert!(!has_password("postgres://a@c/d"));
    }

    #[test]
    fn pgpass_lines_split_on_unescaped_colons() {
        assert_eq!(
            pgpass_fields(r"db.internal:5432:*:ana:pa\:ss\\word"),
            ["db.internal", "5432", "*", "ana", r"pa:ss\word"]
        );
        assert_eq!(pgpass_fields("h:1:d:u:p:q"), ["h", "1", "d", "u", "p:q"]);
    }

    #[test]
    fn a_url_error_never_shows_the_password() {
        let e = config("postgres://ana:s3cret@db/x?sslmode=verify-ca").unwrap_err();
        let shown = e.to_string();
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("sslmode=verify-full"), "{shown}");
        let e = config("mysql://ana:s3cret@db/x").unwrap_err();
        assert!(!e.to_string().contains("s3cret"));
    }
}
