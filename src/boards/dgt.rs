//! placeholder: the dgt codec is being written.

use super::{Decoded, Decoder, Millis};

#[derive(Debug, Default)]
pub struct DgtDecoder;

impl DgtDecoder {
    pub fn new() -> DgtDecoder {
        DgtDecoder
    }
}

impl Decoder for DgtDecoder {
    fn feed(&mut self, _bytes: &[u8], _now: Millis, _out: &mut Vec<Decoded>) {}
    fn greeting(&self) -> Vec<u8> {
        Vec::new()
    }
    fn snapshot_request(&self) -> Vec<u8> {
        Vec::new()
    }
}
