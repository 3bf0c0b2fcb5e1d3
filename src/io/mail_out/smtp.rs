//! The SMTP side of the outgoing mail: the server's address checked (plain only to loopback),
//! one queued message delivered by lettre (or written to the outbox), and whether a refusal is
//! permanent (a 5xx: the message is parked, not retried) or temporary (retried with backoff).

use std::net::IpAddr;

use lettre::address::Envelope;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{Address, SmtpTransport, Transport};

use super::{Destination, MailError, Queued, SMTP_TIMEOUT, create_private_dir, write_atomically};

/// How the connection to the SMTP server is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// No TLS: allowed only to a loopback address (a local relay or a test server).
    Plain,
    /// Plain connection upgraded with STARTTLS, which is required (port 587).
    StartTls,
    /// TLS from the first byte (port 465).
    Tls,
}

impl Security {
    pub fn parse(text: &str) -> Option<Security> {
        match text {
            "plain" => Some(Security::Plain),
            "starttls" => Some(Security::StartTls),
            "tls" => Some(Security::Tls),
            _ => None,
        }
    }
}

/// The SMTP server, checked: plain only to a loopback address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmtpServer {
    pub host: String,
    pub port: u16,
    pub security: Security,
    /// User name and password (read from the environment variable the configuration names).
    pub credentials: Option<(String, String)>,
}

/// Why an SMTP server's address is refused; the address is the one given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SmtpAddressError {
    #[error("{0:?} is not HOST:PORT")]
    NotHostPort(String),
    #[error("{0:?}: the port is not a number from 1 to 65535")]
    Port(String),
    #[error("{0:?}: no host")]
    NoHost(String),
    #[error(
        "{0:?}: plain SMTP is allowed only to a loopback address; \
         use smtp_security = \"starttls\" or \"tls\""
    )]
    PlainNotLoopback(String),
}

impl SmtpServer {
    /// `host:port` with its security; `None` security means plain on loopback and STARTTLS
    /// elsewhere. Plain to any other address is refused: the moves and the password would
    /// cross the network readable.
    pub fn new(address: &str, security: Option<Security>) -> Result<SmtpServer, SmtpAddressError> {
        let (host, port) = address
            .rsplit_once(':')
            .ok_or_else(|| SmtpAddressError::NotHostPort(address.to_owned()))?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port: u16 = port
            .parse()
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| SmtpAddressError::Port(address.to_owned()))?;
        if host.is_empty() {
            return Err(SmtpAddressError::NoHost(address.to_owned()));
        }
        let loopback =
            host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
        let security = security.unwrap_or(if loopback {
            Security::Plain
        } else {
            Security::StartTls
        });
        if security == Security::Plain && !loopback {
            return Err(SmtpAddressError::PlainNotLoopback(address.to_owned()));
        }
        Ok(SmtpServer {
            host: host.to_owned(),
            port,
            security,
            credentials: None,
        })
    }
}

/// The envelope of queued bytes, from their own From and To headers.
fn envelope(q: &Queued) -> Result<Envelope, MailError> {
    let bad = || MailError::BadQueued(q.path.clone());
    let parsed = mail_parser::MessageParser::default()
        .parse(&q.bytes)
        .ok_or_else(bad)?;
    let addr = |a: Option<&mail_parser::Address>| -> Result<Vec<Address>, MailError> {
        a.map(|a| {
            a.iter()
                .filter_map(|a| a.address())
                .filter_map(|a| a.parse().ok())
                .collect()
        })
        .filter(|v: &Vec<Address>| !v.is_empty())
        .ok_or_else(bad)
    };
    let from = addr(parsed.from())?.into_iter().next();
    let to = addr(parsed.to())?;
    Envelope::new(from, to).map_err(|_| bad())
}

pub(super) fn deliver_one(q: &Queued, to: &Destination) -> Result<(), MailError> {
    match to {
        Destination::Outbox(dir) => {
            create_private_dir(dir)?;
            // Named by the queue file: a second attempt after a crash overwrites, never doubles.
            let name = q
                .path
                .file_name()
                .and_then(|n| n.to_str())
                .ok_or_else(|| MailError::BadQueued(q.path.clone()))?;
            write_atomically(dir, name, &q.bytes)
        }
        Destination::Smtp(server) => {
            let envelope = envelope(q)?;
            transport(server)?
                .send_raw(&envelope, &q.bytes)
                .map(|_| ())
                .map_err(|e| {
                    if e.is_permanent() {
                        MailError::Refused(e.to_string())
                    } else {
                        MailError::Smtp(e.to_string())
                    }
                })
        }
    }
}

fn transport(server: &SmtpServer) -> Result<SmtpTransport, MailError> {
    let smtp = |e: lettre::transport::smtp::Error| MailError::Smtp(e.to_string());
    let tls = || TlsParameters::new(server.host.clone()).map_err(smtp);
    let builder = SmtpTransport::builder_dangerous(server.host.as_str())
        .port(server.port)
        .timeout(Some(SMTP_TIMEOUT));
    let builder = match server.security {
        Security::Plain => builder.tls(Tls::None),
        Security::StartTls => builder.tls(Tls::Required(tls()?)),
        Security::Tls => builder.tls(Tls::Wrapper(tls()?)),
    };
    let builder = match &server.credentials {
        Some((user, password)) => {
            builder.credentials(Credentials::new(user.clone(), password.clone()))
        }
        None => builder,
    };
    Ok(builder.build())
}
