//! The boards in the configuration: where a peg board is, and where the sighted player's moves
//! come from.

use super::{ConfigError, bad};
use crate::boards::Protocol;
use crate::io::link::{Endpoint, EndpointError};

/// Where the peg board is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PegSource {
    Simulated,
    Device(Endpoint),
    /// No peg board: the blind player's moves come from the control interface.
    None,
}

/// A board's place that is no device nor `tcp:HOST:PORT`, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadBoardPlace(#[from] pub EndpointError);

impl PegSource {
    /// `sim`, `none`, a serial device or `tcp:HOST:PORT`.
    pub fn parse(text: &str) -> Result<PegSource, BadBoardPlace> {
        match text {
            "sim" => Ok(PegSource::Simulated),
            "none" => Ok(PegSource::None),
            device => Endpoint::parse(device, Protocol::Peg)
                .map(PegSource::Device)
                .map_err(BadBoardPlace),
        }
    }
}

/// Where the sighted player's moves come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NormalBoard {
    Virtual,
    Dgt(Endpoint),
    Millennium(Endpoint),
    Certabo(Endpoint),
}

impl NormalBoard {
    /// The protocol and place of a real board; `None` for the virtual one.
    pub fn link(&self) -> Option<(Protocol, &Endpoint)> {
        match self {
            NormalBoard::Virtual => None,
            NormalBoard::Dgt(e) => Some((Protocol::Dgt, e)),
            NormalBoard::Millennium(e) => Some((Protocol::Millennium, e)),
            NormalBoard::Certabo(e) => Some((Protocol::Certabo, e)),
        }
    }

    /// `virtual`, `dgt:DEVICE`, `millennium:DEVICE` or `certabo:DEVICE`; `key` names the value
    /// in errors.
    pub(super) fn parse(text: &str, key: &str) -> Result<NormalBoard, ConfigError> {
        if text == "virtual" {
            return Ok(NormalBoard::Virtual);
        }
        let (kind, device) = text.split_once(':').unwrap_or((text, ""));
        let (protocol, board): (Protocol, fn(Endpoint) -> NormalBoard) = match kind {
            "dgt" => (Protocol::Dgt, NormalBoard::Dgt),
            "millennium" => (Protocol::Millennium, NormalBoard::Millennium),
            "certabo" => (Protocol::Certabo, NormalBoard::Certabo),
            _ => {
                return Err(bad(
                    key,
                    format!("{text:?}: virtual, dgt:DEVICE, millennium:DEVICE or certabo:DEVICE"),
                ));
            }
        };
        Ok(board(
            Endpoint::parse(device, protocol).map_err(|e| bad(key, e))?,
        ))
    }
}
