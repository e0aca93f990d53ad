//! The wire format between `puyobot serve` and an emulator script (docs/plugins.md, "Protocol").
//!
//! Every message is a kind byte, a payload length (u32, little-endian) and the payload. The emulator
//! sends a hello and its ROM, then one frame message (frame number and the 2 KiB of CPU RAM) per frame;
//! the engine answers the hello with a welcome or a refusal, each frame with the pads of the next frame,
//! and ends with a stop. Lengths are checked against each kind's bound before anything is read, so a
//! wrong or hostile length costs nothing.

use std::io::{Read, Write};

/// The protocol version both sides name in their first message.
pub const VERSION: u32 = 1;
/// The first line of a hello and a welcome: the protocol's name and version.
pub const MAGIC: &str = "puyobot-remote";
/// Bytes of CPU RAM in a frame message.
pub const RAM_LEN: usize = 2048;
/// The largest ROM body (PRG + CHR) a ROM message may carry.
pub const MAX_ROM: usize = 8 << 20;
/// The largest text message (hello, welcome, refusal, stop, bye).
pub const MAX_TEXT: usize = 4096;
/// Bytes of a message's header: the kind and the payload length.
pub const HEADER_LEN: usize = 5;

/// The kinds of message, as their kind byte.
pub mod kind {
    /// Emulator → engine: hello (text).
    pub const HELLO: u8 = b'H';
    /// Emulator → engine: the ROM's bytes after the iNES header (PRG then CHR).
    pub const ROM: u8 = b'R';
    /// Emulator → engine: a frame (u32 frame number, 2048 bytes of RAM).
    pub const FRAME: u8 = b'F';
    /// Emulator → engine: the emulator is stopping (text: why).
    pub const BYE: u8 = b'Q';
    /// Engine → emulator: welcome (text).
    pub const WELCOME: u8 = b'W';
    /// Engine → emulator: refused (text: why); the connection closes.
    pub const REFUSE: u8 = b'N';
    /// Engine → emulator: the pads of the next frame (u32 frame number, pad 1, pad 2, status).
    pub const PADS: u8 = b'P';
    /// Engine → emulator: the engine stops (text: why); the connection closes.
    pub const STOP: u8 = b'S';
}

/// What the engine is doing, shown on the emulator's status line (the last byte of a pads message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Status {
    /// Walking the menus, or waiting for a game to begin.
    Menus = 0,
    /// Calibration's opening: learning the game's codes.
    Calibrating = 1,
    /// The bots play.
    Playing = 2,
    /// The game is over.
    GameOver = 3,
}

/// Why a message was refused or could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ProtoError {
    /// The other side closed the connection.
    #[error("the connection closed{0}")]
    Closed(&'static str),
    /// Nothing arrived within the time allowed.
    #[error("nothing arrived for {0:.1} s (is the emulator paused or stopped?)")]
    Timeout(f64),
    /// A kind byte no message has.
    #[error("unknown message kind 0x{0:02X} (not a puyobot-remote message)")]
    UnknownKind(u8),
    /// A message of a kind not expected here.
    #[error("unexpected {got} message while waiting for {want}")]
    Unexpected {
        /// The kind received.
        got: String,
        /// What was expected.
        want: &'static str,
    },
    /// A length over the kind's bound.
    #[error("{kind} message of {len} bytes, more than the {max} allowed")]
    Oversized {
        /// The kind's name.
        kind: &'static str,
        /// The length announced.
        len: u64,
        /// The bound.
        max: usize,
    },
    /// A payload of the wrong size.
    #[error("{kind} message of {len} bytes; expected {expected}")]
    WrongSize {
        /// The kind's name.
        kind: &'static str,
        /// The length received.
        len: usize,
        /// What this kind carries.
        expected: String,
    },
    /// A text message that is not what it should say.
    #[error("bad {kind}: {why}")]
    BadText {
        /// The kind's name.
        kind: &'static str,
        /// What is wrong.
        why: String,
    },
    /// Another error of the connection.
    #[error("connection: {0}")]
    Io(#[from] std::io::Error),
}

/// The name of a kind byte, for messages.
pub fn kind_name(k: u8) -> &'static str {
    match k {
        kind::HELLO => "hello",
        kind::ROM => "ROM",
        kind::FRAME => "frame",
        kind::BYE => "bye",
        kind::WELCOME => "welcome",
        kind::REFUSE => "refusal",
        kind::PADS => "pads",
        kind::STOP => "stop",
        _ => "unknown",
    }
}

/// The largest payload of a kind, or `None` for a byte that is no kind.
pub fn max_len(k: u8) -> Option<usize> {
    match k {
        kind::HELLO | kind::BYE | kind::WELCOME | kind::REFUSE | kind::STOP => Some(MAX_TEXT),
        kind::ROM => Some(MAX_ROM),
        kind::FRAME => Some(4 + RAM_LEN),
        kind::PADS => Some(7),
        _ => None,
    }
}

/// An emulator's hello: who it is and what it plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// Protocol version the emulator speaks.
    pub version: u32,
    /// The emulator's name and version, as it says it.
    pub emulator: String,
    /// Bytes of PRG-ROM of the loaded cartridge (the ROM message's first part).
    pub prg: usize,
    /// Bytes of CHR-ROM (the ROM message's second part; 0 for CHR-RAM cartridges).
    pub chr: usize,
    /// The ROM's file name, when the emulator knows it (for messages).
    pub rom_name: Option<String>,
}

/// A message from the emulator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientMsg {
    /// The hello.
    Hello(Hello),
    /// The ROM body.
    Rom(Vec<u8>),
    /// A frame: the emulator's frame number and the RAM as it stands before that frame runs.
    Frame {
        /// The emulator's frame counter.
        frame: u32,
        /// CPU RAM $0000–$07FF.
        ram: Box<[u8; RAM_LEN]>,
    },
    /// The emulator stops, and why.
    Bye(String),
}

/// Reads one message's kind and payload from `r`, refusing an unknown kind or a length over its bound
/// before reading the payload.
pub fn read_raw(r: &mut impl Read) -> Result<(u8, Vec<u8>), ProtoError> {
    let mut head = [0u8; HEADER_LEN];
    read_all(r, &mut head, true)?;
    let k = head[0];
    let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
    let max = max_len(k).ok_or(ProtoError::UnknownKind(k))?;
    if len > max {
        return Err(ProtoError::Oversized { kind: kind_name(k), len: len as u64, max });
    }
    let mut payload = vec![0u8; len];
    read_all(r, &mut payload, false)?;
    Ok((k, payload))
}

/// Fills `buf`; a connection that closes before the first byte of a message is [`ProtoError::Closed`],
/// one that closes inside a message is a truncated message.
fn read_all(r: &mut impl Read, buf: &mut [u8], at_start: bool) -> Result<(), ProtoError> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => {
                return Err(ProtoError::Closed(if at_start && got == 0 {
                    ""
                } else {
                    " inside a message (truncated)"
                }));
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Decodes an emulator's message from its kind and payload.
pub fn parse_client(k: u8, payload: &[u8]) -> Result<ClientMsg, ProtoError> {
    match k {
        kind::HELLO => parse_hello(payload).map(ClientMsg::Hello),
        kind::ROM => Ok(ClientMsg::Rom(payload.to_vec())),
        kind::FRAME => {
            if payload.len() != 4 + RAM_LEN {
                return Err(ProtoError::WrongSize {
                    kind: "frame",
                    len: payload.len(),
                    expected: format!("{} (a u32 frame number and {RAM_LEN} bytes of RAM)", 4 + RAM_LEN),
                });
            }
            let frame = u32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]]);
            let mut ram = Box::new([0u8; RAM_LEN]);
            ram.copy_from_slice(&payload[4..]);
            Ok(ClientMsg::Frame { frame, ram })
        }
        kind::BYE => Ok(ClientMsg::Bye(text(payload, "bye")?.trim().to_string())),
        kind::WELCOME | kind::REFUSE | kind::PADS | kind::STOP => {
            Err(ProtoError::Unexpected { got: kind_name(k).to_string(), want: "a message from the emulator" })
        }
        other => Err(ProtoError::UnknownKind(other)),
    }
}

/// Reads and decodes one message from the emulator.
pub fn read_client(r: &mut impl Read) -> Result<ClientMsg, ProtoError> {
    let (k, payload) = read_raw(r)?;
    parse_client(k, &payload)
}

fn text<'a>(payload: &'a [u8], kind: &'static str) -> Result<&'a str, ProtoError> {
    std::str::from_utf8(payload).map_err(|e| ProtoError::BadText { kind, why: format!("not UTF-8 text ({e})") })
}

/// `key=value` lines after the first line `puyobot-remote VERSION`.
fn parse_hello(payload: &[u8]) -> Result<Hello, ProtoError> {
    let bad = |why: String| ProtoError::BadText { kind: "hello", why };
    let t = text(payload, "hello")?;
    let mut lines = t.lines();
    let first = lines.next().unwrap_or("");
    let version = match first.split_once(' ') {
        Some((m, v)) if m == MAGIC => {
            v.trim().parse::<u32>().map_err(|_| bad(format!("version {v:?} is not a number")))?
        }
        _ => return Err(bad(format!("the first line is {first:?}, expected \"{MAGIC} {VERSION}\""))),
    };
    let (mut emulator, mut prg, mut chr, mut rom_name) = (None, None, None, None);
    for line in lines {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(bad(format!("line {line:?} is not key=value")));
        };
        let number = |v: &str| v.trim().parse::<usize>().map_err(|_| bad(format!("{key}={v:?} is not a number")));
        match key.trim() {
            "emulator" => emulator = Some(value.trim().to_string()),
            "prg" => prg = Some(number(value)?),
            "chr" => chr = Some(number(value)?),
            "rom_name" => rom_name = Some(value.trim().to_string()),
            // Later versions may add keys; an older engine ignores them.
            _ => {}
        }
    }
    let emulator = emulator.filter(|e| !e.is_empty()).ok_or_else(|| bad("no emulator=NAME line".into()))?;
    let prg = prg.ok_or_else(|| bad("no prg=BYTES line".into()))?;
    let chr = chr.ok_or_else(|| bad("no chr=BYTES line".into()))?;
    if prg == 0 || prg % 16384 != 0 || chr % 8192 != 0 || prg + chr > MAX_ROM {
        return Err(bad(format!(
            "prg={prg} chr={chr}: PRG must be a non-zero multiple of 16384, CHR a multiple of 8192, together at most {MAX_ROM}"
        )));
    }
    Ok(Hello { version, emulator, prg, chr, rom_name })
}

/// Encodes a hello (what an emulator script sends; the tests' reference client uses it).
pub fn hello_payload(h: &Hello) -> Vec<u8> {
    let mut s = format!("{MAGIC} {}\nemulator={}\nprg={}\nchr={}\n", h.version, h.emulator, h.prg, h.chr);
    if let Some(n) = &h.rom_name {
        s += &format!("rom_name={n}\n");
    }
    s.into_bytes()
}

/// Writes one message.
pub fn write_msg(w: &mut impl Write, k: u8, payload: &[u8]) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(HEADER_LEN + payload.len());
    buf.push(k);
    buf.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    buf.extend_from_slice(payload);
    w.write_all(&buf)?;
    w.flush()
}

/// A frame message's payload.
pub fn frame_payload(frame: u32, ram: &[u8; RAM_LEN]) -> Vec<u8> {
    let mut p = Vec::with_capacity(4 + RAM_LEN);
    p.extend_from_slice(&frame.to_le_bytes());
    p.extend_from_slice(ram);
    p
}

/// A pads message's payload.
pub fn pads_payload(frame: u32, pads: [u8; 2], status: Status) -> [u8; 7] {
    let f = frame.to_le_bytes();
    [f[0], f[1], f[2], f[3], pads[0], pads[1], status as u8]
}

/// Decodes a pads message (the engine's answer; the tests' reference client reads it).
pub fn parse_pads(payload: &[u8]) -> Result<(u32, [u8; 2], u8), ProtoError> {
    match payload {
        [a, b, c, d, p1, p2, s] => Ok((u32::from_le_bytes([*a, *b, *c, *d]), [*p1, *p2], *s)),
        _ => Err(ProtoError::WrongSize { kind: "pads", len: payload.len(), expected: "7".into() }),
    }
}

/// A welcome's payload: the version, the pads the engine drives (1-based) and what it identified.
pub fn welcome_payload(drive: &[u8], game: &str) -> Vec<u8> {
    let drive: Vec<String> = drive.iter().map(|p| p.to_string()).collect();
    format!("{MAGIC} {VERSION}\ndrive={}\ngame={}\n", drive.join(","), game.replace('\n', " ")).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello() -> Hello {
        Hello { version: 1, emulator: "FCEUX 2.6.5".into(), prg: 16384, chr: 8192, rom_name: Some("x.nes".into()) }
    }

    #[test]
    fn messages_round_trip() {
        let mut buf = Vec::new();
        write_msg(&mut buf, kind::HELLO, &hello_payload(&hello())).unwrap();
        let mut ram = [0u8; RAM_LEN];
        ram[7] = 9;
        write_msg(&mut buf, kind::FRAME, &frame_payload(42, &ram)).unwrap();
        write_msg(&mut buf, kind::BYE, b"closed by the user").unwrap();
        let mut r = buf.as_slice();
        assert_eq!(read_client(&mut r).unwrap(), ClientMsg::Hello(hello()));
        assert_eq!(read_client(&mut r).unwrap(), ClientMsg::Frame { frame: 42, ram: Box::new(ram) });
        assert_eq!(read_client(&mut r).unwrap(), ClientMsg::Bye("closed by the user".into()));
        assert!(matches!(read_client(&mut r), Err(ProtoError::Closed(""))));
        assert_eq!(parse_pads(&pads_payload(7, [1, 0x80], Status::Playing)).unwrap(), (7, [1, 0x80], 2));
    }

    #[test]
    fn refuses_bad_lengths_kinds_and_sizes_before_reading_the_payload() {
        // An oversized length is refused from the header alone (nothing follows it here).
        let mut r: &[u8] = &[kind::FRAME, 0xFF, 0xFF, 0xFF, 0x7F];
        assert!(matches!(read_raw(&mut r), Err(ProtoError::Oversized { len: 0x7FFF_FFFF, .. })));
        let mut r: &[u8] = b"GET / HTTP/1.1\r\n";
        let e = read_raw(&mut r).unwrap_err();
        assert!(e.to_string().contains("unknown message kind 0x47"), "{e}");
        let mut r: &[u8] = &[kind::FRAME, 10, 0, 0, 0, 1, 2];
        assert!(read_raw(&mut r).unwrap_err().to_string().contains("truncated"));
        let e = parse_client(kind::FRAME, &[0u8; 4 + 1024]).unwrap_err();
        assert!(e.to_string().contains("frame message of 1028 bytes; expected 2052"), "{e}");
        assert!(matches!(parse_client(kind::PADS, &[0; 7]), Err(ProtoError::Unexpected { .. })));
    }

    #[test]
    fn a_hello_names_its_problem() {
        let e = parse_client(kind::HELLO, b"hello there").unwrap_err();
        assert!(e.to_string().contains("first line"), "{e}");
        let e = parse_client(kind::HELLO, b"puyobot-remote 1\nemulator=x\nprg=100\nchr=0\n").unwrap_err();
        assert!(e.to_string().contains("multiple of 16384"), "{e}");
        let e = parse_client(kind::HELLO, b"puyobot-remote 1\nprg=16384\nchr=0\n").unwrap_err();
        assert!(e.to_string().contains("emulator=NAME"), "{e}");
        let e = parse_client(kind::HELLO, &[0xFF, 0xFE]).unwrap_err();
        assert!(e.to_string().contains("UTF-8"), "{e}");
        let h = parse_client(kind::HELLO, b"puyobot-remote 2\nemulator=m\nprg=16384\nchr=0\nfuture=1\n").unwrap();
        assert!(matches!(h, ClientMsg::Hello(Hello { version: 2, chr: 0, .. })));
    }
}
