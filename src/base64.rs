//! Base64 with the standard alphabet and padding, written and read exactly
//! as the `base64` crate's `STANDARD` engine does, refusals and their
//! messages included (models read them). That engine, built for speed, was
//! about 5 KB of the app's wasm for the little base64 the app does (issue 6);
//! `tests/base64.rs` checks this against it on many inputs.

use std::fmt;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const PAD: u8 = b'=';

/// `bytes` as base64, padded.
pub fn encode(bytes: impl AsRef<[u8]>) -> String {
    let bytes = bytes.as_ref();
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let bits = chunk.iter().enumerate().fold(0_u32, |bits, (i, &byte)| {
            bits | u32::from(byte) << (16 - 8 * i)
        });
        for i in 0..4 {
            let symbol = if i <= chunk.len() {
                ALPHABET[(bits >> (18 - 6 * i) & 63) as usize]
            } else {
                PAD
            };
            text.push(char::from(symbol));
        }
    }
    text
}

/// Why a text is not base64 (the `base64` crate's `DecodeError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// A byte that is not a symbol here, and its offset.
    InvalidByte(usize, u8),
    /// A length that no encoding has.
    InvalidLength(usize),
    /// A last symbol with bits set beyond the encoded bytes, and its offset.
    InvalidLastSymbol(usize, u8),
    /// Padding missing or too long.
    InvalidPadding,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::InvalidByte(index, byte) => write!(f, "Invalid symbol {byte}, offset {index}."),
            Self::InvalidLength(len) => write!(f, "Invalid input length: {len}"),
            Self::InvalidLastSymbol(index, byte) => {
                write!(f, "Invalid last symbol {byte}, offset {index}.")
            }
            Self::InvalidPadding => write!(f, "Invalid padding"),
        }
    }
}

/// The six bits `symbol` stands for.
fn value(symbol: u8) -> Option<u8> {
    match symbol {
        b'A'..=b'Z' => Some(symbol - b'A'),
        b'a'..=b'z' => Some(symbol - b'a' + 26),
        b'0'..=b'9' => Some(symbol - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// The bytes `text` encodes. Checked in the crate's order, so the same
/// fault is reported for the same text.
pub fn decode(text: impl AsRef<[u8]>) -> Result<Vec<u8>, DecodeError> {
    let input = text.as_ref();
    let rem = input.len() % 4;
    if rem == 1 {
        let last = input[input.len() - 1];
        if last != PAD && value(last).is_none() {
            return Err(DecodeError::InvalidByte(input.len() - 1, last));
        }
    }
    // Every quad before the last (or before the partial one) has no padding.
    let body = input
        .len()
        .saturating_sub(rem)
        .saturating_sub(if rem == 0 { 4 } else { 0 });
    let mut bytes = Vec::with_capacity(input.len() / 4 * 3 + 3);
    for (start, quad) in (0..).step_by(4).zip(input[..body].chunks_exact(4)) {
        let mut bits = 0_u32;
        for (offset, &symbol) in (start..).zip(quad) {
            let six = value(symbol).ok_or(DecodeError::InvalidByte(offset, symbol))?;
            bits = bits << 6 | u32::from(six);
        }
        bytes.extend_from_slice(&bits.to_be_bytes()[1..]);
    }
    // The last one to four symbols: padding only after two, to a full quad.
    let (mut symbols, mut padding, mut first_pad, mut last_symbol, mut bits) = (0, 0, 0, 0, 0_u32);
    for (offset, &symbol) in (body..).zip(&input[body..]) {
        if symbol == PAD {
            if offset - body < 2 {
                return Err(DecodeError::InvalidByte(offset, symbol));
            }
            if padding == 0 {
                first_pad = offset;
            }
            padding += 1;
            continue;
        }
        if padding > 0 {
            return Err(DecodeError::InvalidByte(first_pad, PAD));
        }
        last_symbol = symbol;
        let six = value(symbol).ok_or(DecodeError::InvalidByte(offset, symbol))?;
        bits |= u32::from(six) << (26 - 6 * symbols);
        symbols += 1;
    }
    if !input.is_empty() && symbols < 2 {
        return Err(DecodeError::InvalidLength(body + symbols));
    }
    if (padding + symbols) % 4 != 0 {
        return Err(DecodeError::InvalidPadding);
    }
    let count = symbols * 6 / 8;
    if bits & (u32::MAX >> (count * 8)) != 0 {
        return Err(DecodeError::InvalidLastSymbol(
            body + symbols - 1,
            last_symbol,
        ));
    }
    bytes.extend_from_slice(&bits.to_be_bytes()[..count]);
    Ok(bytes)
}
