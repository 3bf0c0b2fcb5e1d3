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
}

impl Default for RawDesk {
    fn default() -> RawDesk {
        RawDesk {
            peg: "none".to_owned(),
        }
    }
}

/// `[desk]` validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeskSettings {
    pub peg: PegSource,
}

impl RawDesk {
    pub(super) fn validate(&self) -> Result<DeskSettings, ConfigError> {
        Ok(DeskSettings {
            peg: PegSource::parse(&self.peg).map_err(|e| bad("desk.peg", e))?,
        })
    }
}

/// What a table is: a board pair at one table, or a game by mail on the desk's peg board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableKind {
    Board,
    Correspondence {
        /// Where the replies go.
        opponent_email: String,
        /// The game's identifier in its messages (ICCF form), the table's name when unset.
        game_id: crate::correspondence::message::GameId,
        /// The time control in days and the rules that count them.
        days: crate::correspondence::day_rules::CorrespondenceControl,
    },
}

impl TableKind {
    /// Reads a table's `kind` with its correspondence keys; `key` names a field in errors.
    pub(super) fn parse(
        t: &super::RawTable,
        key: &dyn Fn(&str) -> String,
    ) -> Result<TableKind, ConfigError> {
        use crate::correspondence::day_rules::{CorrespondenceControl, Rules};
        let (opponent_email, game_id) = (t.opponent_email.as_str(), t.game_id.as_str());
        let table_name = t.name.as_str();
        match t.kind.as_str() {
            "board" => {
                for (field, value) in [("opponent_email", opponent_email), ("game_id", game_id)] {
                    if !value.is_empty() {
                        return Err(bad(
                            key(field),
                            "only a correspondence table (kind = \"correspondence\") has one",
                        ));
                    }
                }
                Ok(TableKind::Board)
            }
            "correspondence" => {
                if opponent_email.parse::<lettre::Address>().is_err() {
                    return Err(bad(
                        key("opponent_email"),
                        format!(
                            "{opponent_email:?} is not an email address; a correspondence table \
                             sends its replies there"
                        ),
                    ));
                }
                let id = if game_id.is_empty() {
                    table_name
                } else {
                    game_id
                };
                let game_id = crate::correspondence::message::GameId::new(id).ok_or_else(|| {
                    bad(
                        key("game_id"),
                        format!(
                            "{id:?} is no game identifier: letters, digits and . - _ / # \
                             without blanks"
                        ),
                    )
                })?;
                let rules: Rules = t.day_rules.parse().map_err(|e| bad(key("day_rules"), e))?;
                let days = match t.time_control.trim() {
                    "" => CorrespondenceControl::new(rules.set().usual_control, rules),
                    text => CorrespondenceControl::new(
                        text.parse().map_err(|e| {
                            bad(
                                key("time_control"),
                                format!("{e}; a correspondence table counts days, like 20/10d"),
                            )
                        })?,
                        rules,
                    ),
                };
                Ok(TableKind::Correspondence {
                    opponent_email: opponent_email.to_owned(),
                    game_id,
                    days,
                })
            }
            other => Err(bad(
                key("kind"),
                format!("{other:?}: board or correspondence"),
            )),
        }
    }
}
