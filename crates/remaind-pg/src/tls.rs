//! TLS to the store, as the URL's `sslmode` asks (libpq's names and meanings), on rustls:
//! the TLS stack the workspace already builds (the `openai` preset's HTTP client uses it), so
//! it costs no system library and little build time.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

/// How a connection is secured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TlsMode {
    /// `sslmode=disable`: never TLS.
    Disable,
    /// `sslmode=prefer` (the default, as libpq's) and `sslmode=require`: TLS when the server
    /// offers it (required: or fail), its certificate not checked, as libpq does; it keeps
    /// the traffic from passive eyes, not from a machine in the middle.
    Unverified,
    /// `sslmode=verify-full`: TLS, the certificate checked against `sslrootcert` (a PEM
    /// file) or else the public web roots, and its name against the host.
    VerifyFull {
        /// The URL's `sslrootcert`, if any.
        root_cert: Option<PathBuf>,
    },
}

/// `sslmode` and `sslrootcert` taken out of the query of `url` (the client parses neither
/// `verify-full` nor `sslrootcert`): the URL left, the mode, and the `sslmode` the client is
/// to use. Unknown modes are an error naming the ones supported.
pub(crate) fn split(url: &str) -> Result<(String, TlsMode, &'static str), String> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let (mut mode, mut root_cert) = (None, None);
    let mut kept = Vec::new();
    for kv in query.split('&').filter(|kv| !kv.is_empty()) {
        match kv.split_once('=') {
            Some(("sslmode", v)) => mode = Some(v.to_owned()),
            Some(("sslrootcert", v)) => root_cert = Some(PathBuf::from(v)),
            _ => kept.push(kv),
        }
    }
    if root_cert.is_some() && mode.as_deref() != Some("verify-full") {
        return Err("sslrootcert is used only with sslmode=verify-full".into());
    }
    let (tls, client_mode) = match mode.as_deref() {
        Some("disable") => (TlsMode::Disable, "disable"),
        None | Some("prefer") => (TlsMode::Unverified, "prefer"),
        Some("require") => (TlsMode::Unverified, "require"),
        Some("verify-full") => (TlsMode::VerifyFull { root_cert }, "require"),
        Some("verify-ca") => {
            return Err(
                "sslmode=verify-ca checks a certificate without its name; use sslmode=verify-full"
                    .into(),
            );
        }
        Some(other) => {
            return Err(format!(
                "sslmode={other} is not one of disable, prefer, require, verify-full"
            ));
        }
    };
    let url = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((url, tls, client_mode))
}

/// The TLS connector for `mode` (unused by the client when the mode is `Disable`).
pub(crate) fn connector(mode: &TlsMode) -> Result<MakeRustlsConnect, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?;
    let config = match mode {
        TlsMode::Disable | TlsMode::Unverified => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
            .with_no_client_auth(),
        TlsMode::VerifyFull { root_cert } => {
            let mut roots = RootCertStore::empty();
            match root_cert {
                Some(path) => {
                    let certs = CertificateDer::pem_file_iter(path)
                        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
                        .map_err(|e| format!("sslrootcert {}: {e}", path.display()))?;
                    let (added, _) = roots.add_parsable_certificates(certs);
                    if added == 0 {
                        return Err(format!(
                            "sslrootcert {} holds no usable certificate",
                            path.display()
                        ));
                    }
                }
                None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
    };
    Ok(MakeRustlsConnect::new(config))
}

/// libpq's `prefer` and `require`: any certificate is taken (the handshake's signatures are
/// still checked, so the session is bound to the key the server showed).
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sslmode_and_sslrootcert_are_taken_out_of_the_url() {
        let (url, mode, client) =
            split("postgres://a@db/x?application_name=y&sslmode=verify-full&sslrootcert=/ca.pem")
                .unwrap();
        assert_eq!(url, "postgres://a@db/x?application_name=y");
        assert_eq!(
            mode,
            TlsMode::VerifyFull {
                root_cert: Some("/ca.pem".into())
            }
        );
        assert_eq!(client, "require");
        assert_eq!(
            split("postgres://a@db/x").unwrap(),
            ("postgres://a@db/x".into(), TlsMode::Unverified, "prefer")
        );
        assert_eq!(
            split("postgres://a@db/x?sslmode=disable").unwrap().1,
            TlsMode::Disable
        );
        assert!(
            split("postgres://a@db/x?sslmode=verify-ca")
                .unwrap_err()
                .contains("verify-full")
        );
        assert!(
            split("postgres://a@db/x?sslmode=bogus")
                .unwrap_err()
                .contains("disable, prefer")
        );
        assert!(split("postgres://a@db/x?sslrootcert=/ca.pem").is_err());
    }
}
