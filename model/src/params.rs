//! Block parameters: one struct per block, used to build both the model and the HDL.

use serde::{Deserialize, Serialize};

use crate::wire;

/// Width of every connection-id port. The parser holds no per-connection state, so the
/// connection count only bounds the ids; stateful blocks size their RAMs from `connections`.
pub const CONN_BITS: u32 = 8;
/// Width of the parser's beat counter: enough for `MAX_BUF_SIZE / 8 + 1` beats.
pub const BEAT_BITS: u32 = 14;

/// Parameters of the control-message parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ParserParams {
    /// Connections whose messages share the receive stream (ids `0..connections`).
    pub connections: u16,
    /// Receive-buffer size in bytes: a longer message is `TooLong`.
    pub buf_size: u32,
}

impl Default for ParserParams {
    fn default() -> Self {
        ParserParams { connections: 16, buf_size: 4096 }
    }
}

impl ParserParams {
    pub fn validate(&self) -> Result<(), String> {
        if self.connections == 0 || self.connections as u32 > 1 << CONN_BITS {
            return Err(format!("connections must be in 1..={}", 1 << CONN_BITS));
        }
        if !(wire::MIN_BUF_SIZE..=wire::MAX_BUF_SIZE).contains(&self.buf_size)
            || self.buf_size % 8 != 0
        {
            return Err(format!(
                "buf_size must be a multiple of 8 in {}..={}",
                wire::MIN_BUF_SIZE,
                wire::MAX_BUF_SIZE
            ));
        }
        Ok(())
    }

    /// The beat counter saturates here: one beat past the longest legal message.
    pub fn max_beats(&self) -> u32 {
        self.buf_size / 8 + 1
    }
}
