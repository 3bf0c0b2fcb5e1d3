//! The DGT protocol's messages: the host's one-byte commands, the board's message ids and
//! lengths, the greeting a connection opens with.

// Host → board commands (one byte each). DGT_STARTBOOTLOADER (0x4e) is deliberately absent: it
// puts the board into its firmware loader, and nothing here should ever be able to send it.
/// Go idle; cancels the update modes. The first single-board command also leaves bus mode.
pub const DGT_SEND_RESET: u8 = 0x40;
/// Reply: the clock times (BWTIME).
pub const DGT_SEND_CLK: u8 = 0x41;
/// Reply: a board dump.
pub const DGT_SEND_BRD: u8 = 0x42;
/// Update mode: field updates, plus clock times at least every second.
pub const DGT_SEND_UPDATE: u8 = 0x43;
/// Update mode without clock times: field updates only.
pub const DGT_SEND_UPDATE_BRD: u8 = 0x44;
/// Reply: the serial number (5 ASCII digits).
pub const DGT_RETURN_SERIALNR: u8 = 0x45;
/// Reply: the trademark text.
pub const DGT_SEND_TRADEMARK: u8 = 0x47;
/// Update mode, clock times only when they change.
pub const DGT_SEND_UPDATE_NICE: u8 = 0x4b;
/// Reply: the firmware version (major, minor).
pub const DGT_SEND_VERSION: u8 = 0x4d;
/// Reply: the long serial number (10 ASCII digits).
pub const DGT_RETURN_LONG_SERIALNR: u8 = 0x55;

// Board → host message ids, top bit included.
pub const DGT_MSG_BOARD_DUMP: u8 = 0x86;
pub const DGT_MSG_BWTIME: u8 = 0x8d;
pub const DGT_MSG_FIELD_UPDATE: u8 = 0x8e;
pub const DGT_MSG_EE_MOVES: u8 = 0x8f;
pub const DGT_MSG_BUSADRES: u8 = 0x90;
pub const DGT_MSG_SERIALNR: u8 = 0x91;
pub const DGT_MSG_TRADEMARK: u8 = 0x92;
pub const DGT_MSG_VERSION: u8 = 0x93;
pub const DGT_MSG_BATTERY_STATUS: u8 = 0xa0;
pub const DGT_MSG_LONG_SERIALNR: u8 = 0xa2;

/// Header bytes of every message; the length field counts them.
pub const HEADER_BYTES: usize = 3;
/// The largest payload of any message this decoder reads (a board dump has 64).
pub const MAX_PAYLOAD: usize = 64;
/// The largest EEPROM dump accepted (its log is a 0x1f00-byte ring); it is drained unread, so a
/// bound is needed only to tell a real dump from a corrupt length.
pub const MAX_EE_MOVES_LENGTH: usize = 0x2000 + HEADER_BYTES;

/// Sent when a connection opens: reset (which also leaves bus mode), ask for the version and
/// serial number (to name the board in logs), switch on field updates with the clock's times
/// whenever they change (a clock on the board completes a move at its press), and only then
/// ask for the board dump, so that a piece moved while the dump is being scanned is still
/// reported by an update after it.
pub const GREETING: [u8; 5] = [
    DGT_SEND_RESET,
    DGT_SEND_VERSION,
    DGT_RETURN_SERIALNR,
    DGT_SEND_UPDATE_NICE,
    DGT_SEND_BRD,
];

/// Asks for a full board dump.
pub const SNAPSHOT_REQUEST: [u8; 1] = [DGT_SEND_BRD];

/// A host → board command, read by the simulated board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostCommand {
    Reset,
    SendClock,
    SendBoard,
    SendUpdate,
    SendUpdateBoard,
    ReturnSerialNr,
    ReturnBusAddress,
    SendTrademark,
    SendEeMoves,
    ToBusMode,
    SendUpdateNice,
    SendBatteryStatus,
    SendVersion,
    /// 0x4e: a real board would jump to its bootloader. Recognised so a simulator can refuse it.
    StartBootloader,
    ReturnLongSerialNr,
    /// 0x2b: a clock command for a DGT clock attached to the board. It is followed by a size
    /// byte and that many more bytes, which the board side must skip.
    ClockMessage,
    /// 0x60: Revelation II LEDs. Followed by a size byte and that many more bytes.
    SetLeds,
}

/// Reads a host → board command byte; `None` for bytes that are no command (or the data bytes
/// of a clock or LED command).
pub fn parse_host_command(byte: u8) -> Option<HostCommand> {
    Some(match byte {
        0x40 => HostCommand::Reset,
        0x41 => HostCommand::SendClock,
        0x42 => HostCommand::SendBoard,
        0x43 => HostCommand::SendUpdate,
        0x44 => HostCommand::SendUpdateBoard,
        0x45 => HostCommand::ReturnSerialNr,
        0x46 => HostCommand::ReturnBusAddress,
        0x47 => HostCommand::SendTrademark,
        0x49 => HostCommand::SendEeMoves,
        0x4a => HostCommand::ToBusMode,
        0x4b => HostCommand::SendUpdateNice,
        0x4c => HostCommand::SendBatteryStatus,
        0x4d => HostCommand::SendVersion,
        0x4e => HostCommand::StartBootloader,
        0x55 => HostCommand::ReturnLongSerialNr,
        0x2b => HostCommand::ClockMessage,
        0x60 => HostCommand::SetLeds,
        _ => return None,
    })
}

/// What a message is called in error messages.
pub(super) fn message_name(id: u8) -> &'static str {
    match id {
        DGT_MSG_BOARD_DUMP => "board dump",
        DGT_MSG_BWTIME => "clock times",
        DGT_MSG_FIELD_UPDATE => "field update",
        DGT_MSG_EE_MOVES => "EEPROM moves",
        DGT_MSG_BUSADRES => "bus address",
        DGT_MSG_SERIALNR => "serial number",
        DGT_MSG_TRADEMARK => "trademark",
        DGT_MSG_VERSION => "version",
        DGT_MSG_BATTERY_STATUS => "battery status",
        DGT_MSG_LONG_SERIALNR => "long serial number",
        _ => "unknown message",
    }
}

/// The total length a message must have, where DGT fixes it.
pub(super) fn fixed_length(id: u8) -> Option<usize> {
    match id {
        DGT_MSG_BOARD_DUMP => Some(67),
        DGT_MSG_FIELD_UPDATE | DGT_MSG_VERSION | DGT_MSG_BUSADRES => Some(5),
        DGT_MSG_SERIALNR => Some(8),
        DGT_MSG_BWTIME => Some(10),
        DGT_MSG_LONG_SERIALNR => Some(13),
        _ => None,
    }
}

pub(super) fn max_length(id: u8) -> usize {
    if id == DGT_MSG_EE_MOVES {
        MAX_EE_MOVES_LENGTH
    } else {
        HEADER_BYTES + MAX_PAYLOAD
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_commands() {
        assert_eq!(
            parse_host_command(DGT_SEND_BRD),
            Some(HostCommand::SendBoard)
        );
        assert_eq!(parse_host_command(0x4e), Some(HostCommand::StartBootloader));
        assert_eq!(parse_host_command(0x00), None);
        for byte in GREETING {
            assert!(parse_host_command(byte).is_some());
            assert_ne!(byte, 0x4e);
        }
    }
}
