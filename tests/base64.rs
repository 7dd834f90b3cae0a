//! `sandpit::base64` writes and reads base64 exactly as the `base64` crate's
//! `STANDARD` engine: the same text, the same bytes, the same refusal with
//! the same message, on every input tried here.

use base64::Engine;

const CRATE: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// A small deterministic generator (xorshift), so a failure reproduces.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn same_decoding(text: &[u8]) {
    let ours = sandpit::base64::decode(text).map_err(|e| e.to_string());
    let theirs = CRATE.decode(text).map_err(|e| e.to_string());
    assert_eq!(ours, theirs, "decoding {:?}", String::from_utf8_lossy(text));
}

#[test]
fn encodes_as_the_crate_does() {
    let mut random = Random(0x5eed);
    for len in 0..200 {
        let bytes: Vec<u8> = (0..len).map(|_| random.next() as u8).collect();
        assert_eq!(sandpit::base64::encode(&bytes), CRATE.encode(&bytes));
    }
    assert_eq!(sandpit::base64::encode("hé"), "aMOp");
}

#[test]
fn decodes_and_refuses_as_the_crate_does() {
    // Symbols, padding, and bytes that are neither, in every position.
    const SOME: &[u8] = b"AQgw/+9=\x00 -_\n\xff";
    let mut random = Random(0xba5e);
    for len in 0..120 {
        let bytes: Vec<u8> = (0..len).map(|_| random.next() as u8).collect();
        let valid = CRATE.encode(&bytes).into_bytes();
        same_decoding(&valid);
        for _ in 0..20 {
            let mut text = valid.clone();
            match random.below(3) {
                0 if !text.is_empty() => {
                    let at = random.below(text.len());
                    text[at] = SOME[random.below(SOME.len())];
                }
                1 if !text.is_empty() => text.truncate(random.below(text.len())),
                _ => text.push(SOME[random.below(SOME.len())]),
            }
            same_decoding(&text);
        }
    }
    for text in [
        "",
        "=",
        "==",
        "A",
        "AA",
        "AA=",
        "AA==",
        "AAA=",
        "AB==",
        "AAB=",
        "A===",
        "====",
        "AA=A",
        "QQ==QQ==",
        "QUJD",
        "QUJDRA",
        "QUJDRA=",
        "QUJDRA==",
        "QUJDRA===",
        "Zg==\n",
    ] {
        same_decoding(text.as_bytes());
    }
}
