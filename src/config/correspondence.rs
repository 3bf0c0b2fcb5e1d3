//! The configuration of correspondence play: `[mail]` (where game messages come in and go out)
//! and `[desk]` (the blind player's one peg board that his correspondence tables share), read
//! and validated like the rest of `crate::config`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ConfigError, PegSource, bad};

/// `[mail]`: where correspondence mail comes in and goes out.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawMail {
    /// The Maildir incoming mail is read from (its new/, cur/ and tmp/).
    pub maildir: PathBuf,
    /// The SMTP server as HOST:PORT; absent: messages are written to `<state_dir>/outbox/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smtp: Option<String>,
    /// `plain` (loopback only), `starttls` or `tls`; default plain on loopback, else starttls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smtp_security: Option<String>,
    /// The SMTP user, if the server wants a login.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smtp_user: Option<String>,
    /// The environment variable holding the SMTP password (never the password itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smtp_password_env: Option<String>,
    /// The sender's address.
    pub from: String,
}

/// `[mail]` validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailSettings {
    pub maildir: PathBuf,
    /// `None`: write to `<state_dir>/outbox/`.
    pub smtp: Option<crate::io::mail_out::SmtpServer>,
    /// The SMTP login: the user and the environment variable with the password.
    pub login: Option<(String, String)>,
    pub from: String,
}

impl RawMail {
    pub(super) fn validate(&self) -> Result<MailSettings, ConfigError> {
        use crate::io::mail_out::{Security, SmtpServer};
        if self.maildir.as_os_str().is_empty() {
            return Err(bad(
                "mail.maildir",
                "empty: the Maildir incoming mail is read from",
            ));
        }
        super::plain_path("mail.maildir", &self.maildir)?;
        if self.from.parse::<lettre::Address>().is_err() {
            return Err(bad(
                "mail.from",
                format!("{:?} is not an email address", self.from),
            ));
        }
        let security = match &self.smtp_security {
            None => None,
            Some(s) => Some(Security::parse(s).ok_or_else(|| {
                bad(
                    "mail.smtp_security",
                    format!("{s:?}: plain, starttls or tls"),
                )
            })?),
        };
        let smtp = match &self.smtp {
            None if security.is_some() || self.smtp_user.is_some() => {
                return Err(bad(
                    "mail.smtp",
                    "missing, but smtp_security or smtp_user is set",
                ));
            }
            None => None,
            Some(address) => {
                Some(SmtpServer::new(address, security).map_err(|e| bad("mail.smtp", e))?)
            }
        };
        let login = match (&self.smtp_user, &self.smtp_password_env) {
            (None, None) => None,
            (Some(user), Some(var)) if !user.is_empty() && !var.is_empty() => {
                Some((user.clone(), var.clone()))
            }
            _ => {
                return Err(bad(
                    "mail.smtp_user",
                    "smtp_user and smtp_password_env go together",
                ));
            }
        };
        Ok(MailSettings {
            maildir: self.maildir.clone(),
            smtp,
            login,
            from: self.from.clone(),
        })
    }
}

impl MailSettings {
    /// Where outgoing mail goes, the SMTP password read from its environment variable now.
    pub fn destination(
        &self,
        state_dir: &Path,
    ) -> Result<crate::io::mail_out::Destination, ConfigError> {
        use crate::io::mail_out::Destination;
        let Some(server) = &self.smtp else {
            return Ok(Destination::Outbox(state_dir.join("outbox")));
        };
        let mut server = server.clone();
        if let Some((user, var)) = &self.login {
            let password = std::env::var(var).map_err(|_| {
                bad(
                    "mail.smtp_password_env",
                    format!("the environment variable {var} is not set"),
                )
            })?;
            server.credentials = Some((user.clone(), password));
        }
        Ok(Destination::Smtp(server))
    }
}

/// `[desk]`: the blind player's own peg board, which every correspondence table uses in turn
/// (the one he has the focus on, `focus TABLE` or the `KG` key).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawDesk {
    /// A serial device, `tcp:HOST:PORT`, `sim` or `none` (no peg board: moves by the control
    /// interface only).
    pub peg: String,
    /// The confirm step: his move on the peg board is tentative until he presses `KS`
    /// (request `send`), so he can take it back or analyse on the board; `false` mails every
    /// legal move at once.
    pub confirm: bool,
}

impl Default for RawDesk {
    fn default() -> RawDesk {
        RawDesk {
            peg: "none".to_owned(),
            confirm: true,
        }
    }
}

/// `[desk]` validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeskSettings {
    pub peg: PegSource,
    /// `[desk] confirm`: a correspondence move is mailed only after `send` (`KS`).
    pub confirm: bool,
}

impl RawDesk {
    pub(super) fn validate(&self) -> Result<DeskSettings, ConfigError> {
        Ok(DeskSettings {
            peg: PegSource::parse(&self.peg).map_err(|e| bad("desk.peg", e))?,
            confirm: self.confirm,
        })
    }
}
