//! A console in another emulator: a [`Machine`] whose RAM and pads travel over a TCP connection to a
//! script running in that emulator (FCEUX, Mesen 2, BizHawk: the scripts in `plugins/`), one frame per
//! message. The wire format is [`proto`]; docs/plugins.md describes it for script authors.
//!
//! The order of a frame is the embedded console's: the session reads the RAM as it stands after the
//! last frame ([`Machine::ram`]: the emulator's last frame message), sets the pads, and
//! [`Machine::clock_frame`] sends them and waits for the next frame message, which the script sends
//! after running exactly one frame with those pads held.

pub mod proto;

use std::cell::Cell;
use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use super::rom::{INES_HEADER_LEN, INES_MAGIC, RomError, RomImage};
use super::{EmuError, Machine};
pub use proto::{ClientMsg, Hello, ProtoError, Status};
use proto::{RAM_LEN, kind};

/// Why the link to the emulator failed.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The handshake failed: a bad or missing hello or ROM.
    #[error("handshake with {peer}: {source}")]
    Handshake {
        /// The emulator's address.
        peer: String,
        /// What went wrong.
        source: ProtoError,
    },
    /// The emulator speaks another protocol version.
    #[error("{peer} ({emulator}) speaks protocol version {got}; this puyobot speaks version {}", proto::VERSION)]
    Version {
        /// The emulator's address.
        peer: String,
        /// Its name.
        emulator: String,
        /// Its version.
        got: u32,
    },
    /// The ROM message does not make an iNES image.
    #[error("the ROM {peer} sent: {source}")]
    Rom {
        /// The emulator's address.
        peer: String,
        /// What is wrong with it.
        source: RomError,
    },
    /// A frame could not be exchanged.
    #[error("the link to {emulator} failed after frame {frame}: {source}")]
    Link {
        /// The emulator's name.
        emulator: String,
        /// The last frame received.
        frame: u32,
        /// What went wrong.
        source: ProtoError,
    },
    /// The emulator said it stops.
    #[error("{emulator} stopped after frame {frame}: {reason}")]
    Bye {
        /// The emulator's name.
        emulator: String,
        /// The last frame received.
        frame: u32,
        /// What it said.
        reason: String,
    },
    /// The frame counter did not advance by one.
    #[error(
        "{emulator}'s frame counter went from {from} to {to}, not {from}+1: frames ran that the bot did not see \
         (a save state loaded, a reset, or frames advanced outside the script); the bot stops"
    )]
    FrameJump {
        /// The emulator's name.
        emulator: String,
        /// The last frame received.
        from: u32,
        /// The frame that arrived.
        to: u32,
    },
    /// No emulator connected in time, or the listener failed.
    #[error("{0}")]
    Accept(String),
}

/// A listening socket for emulator scripts.
pub struct Listener {
    inner: TcpListener,
}

impl Listener {
    /// Listens on `addr`.
    pub fn bind(addr: SocketAddr) -> std::io::Result<Listener> {
        Ok(Listener { inner: TcpListener::bind(addr)? })
    }

    /// The address it listens on (with the port the system chose for port 0).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.inner.local_addr()
    }

    /// Waits for an emulator and reads its hello and ROM. `give_up` is asked every 50 ms and ends the wait
    /// with its message (an emulator process that exited); `timeout` bounds each read of the connection.
    pub fn accept(
        &self,
        timeout: Duration,
        give_up: &mut dyn FnMut() -> Option<String>,
    ) -> Result<Pending, RemoteError> {
        let fail = |e: std::io::Error| RemoteError::Accept(format!("cannot accept a connection: {e}"));
        self.inner.set_nonblocking(true).map_err(fail)?;
        let (stream, peer) = loop {
            match self.inner.accept() {
                Ok(s) => break s,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if let Some(why) = give_up() {
                        return Err(RemoteError::Accept(why));
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => return Err(fail(e)),
            }
        };
        self.inner.set_nonblocking(false).map_err(fail)?;
        Pending::handshake(stream, peer, timeout)
    }

    /// From now on, every other emulator that connects is told that one is already playing, and
    /// disconnected (on a thread of its own, for as long as the program runs).
    pub fn refuse_others(self, playing: String) {
        std::thread::spawn(move || {
            for stream in self.inner.incoming().flatten() {
                let mut s = stream;
                let _ = s.set_write_timeout(Some(Duration::from_secs(2)));
                let why = format!("busy: puyobot is already playing with {playing}; one emulator at a time");
                log::warn!(
                    "refused a second emulator ({}): {why}",
                    s.peer_addr().map(|a| a.to_string()).unwrap_or_default()
                );
                let _ = proto::write_msg(&mut s, kind::REFUSE, why.as_bytes());
                // Read what it sends for a moment, so that it reads the refusal rather than a reset.
                let _ = s.shutdown(std::net::Shutdown::Write);
                let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
                let _ = std::io::copy(&mut std::io::Read::take(&mut s, 16 << 20), &mut std::io::sink());
            }
        });
    }
}

/// A connected emulator whose hello and ROM were read: to be welcomed or refused.
pub struct Pending {
    stream: TcpStream,
    peer: String,
    /// Its hello.
    pub hello: Hello,
    rom_body: Vec<u8>,
    timeout: Duration,
}

impl Pending {
    fn handshake(stream: TcpStream, peer: SocketAddr, timeout: Duration) -> Result<Pending, RemoteError> {
        let peer = peer.to_string();
        let err = |source: ProtoError| RemoteError::Handshake { peer: peer.clone(), source };
        let _ = stream.set_nodelay(true);
        stream.set_read_timeout(Some(timeout)).map_err(|e| err(e.into()))?;
        stream.set_write_timeout(Some(timeout)).map_err(|e| err(e.into()))?;
        let mut s = stream;
        let hello = match read(&mut s, timeout).map_err(err)? {
            ClientMsg::Hello(h) => h,
            other => {
                let e = ProtoError::Unexpected { got: msg_name(&other).into(), want: "a hello" };
                let _ = proto::write_msg(&mut s, kind::REFUSE, e.to_string().as_bytes());
                return Err(err(e));
            }
        };
        if hello.version != proto::VERSION {
            let e = RemoteError::Version { peer: peer.clone(), emulator: hello.emulator.clone(), got: hello.version };
            let _ = proto::write_msg(&mut s, kind::REFUSE, e.to_string().as_bytes());
            return Err(e);
        }
        let rom_body = match read(&mut s, timeout).map_err(err)? {
            ClientMsg::Rom(b) if b.len() == hello.prg + hello.chr => b,
            ClientMsg::Rom(b) => {
                return Err(err(ProtoError::WrongSize {
                    kind: "ROM",
                    len: b.len(),
                    expected: format!("{} (prg={} + chr={} of the hello)", hello.prg + hello.chr, hello.prg, hello.chr),
                }));
            }
            other => return Err(err(ProtoError::Unexpected { got: msg_name(&other).into(), want: "the ROM" })),
        };
        Ok(Pending { stream: s, peer, hello, rom_body, timeout })
    }

    /// The emulator's address.
    pub fn peer(&self) -> &str {
        &self.peer
    }

    /// The cartridge the emulator runs, as an iNES image with a plain header (mapper 0: the header does
    /// not enter the hash, and nothing here emulates it), identified as `play` identifies a ROM file.
    pub fn rom_image(&self) -> Result<RomImage, RemoteError> {
        ines_image(&self.hello, &self.rom_body).map_err(|source| RemoteError::Rom { peer: self.peer.clone(), source })
    }

    /// Tells the emulator why it is refused, and closes.
    pub fn refuse(mut self, why: &str) {
        let _ = proto::write_msg(&mut self.stream, kind::REFUSE, why.as_bytes());
    }

    /// Welcomes the emulator: the bot drives pads `drive` (1-based; the others pass the person's
    /// through), `game` says what was identified. Waits for its first frame.
    pub fn welcome(mut self, drive: &[u8], game: &str) -> Result<Remote, RemoteError> {
        let emulator = self.hello.emulator.clone();
        let link = |source: ProtoError| RemoteError::Link { emulator: emulator.clone(), frame: 0, source };
        proto::write_msg(&mut self.stream, kind::WELCOME, &proto::welcome_payload(drive, game))
            .map_err(|e| link(e.into()))?;
        let (frame, ram) = match read(&mut self.stream, self.timeout).map_err(link)? {
            ClientMsg::Frame { frame, ram } => (frame, ram),
            ClientMsg::Bye(reason) => return Err(RemoteError::Bye { emulator, frame: 0, reason }),
            other => {
                return Err(link(ProtoError::Unexpected { got: msg_name(&other).into(), want: "the first frame" }));
            }
        };
        Ok(Remote {
            stream: self.stream,
            emulator,
            peer: self.peer,
            timeout: self.timeout,
            ram,
            frame,
            pads: [0; 2],
            status: Cell::new(Status::Menus),
            round_trips: Vec::new(),
            engine: Vec::new(),
            received_at: Instant::now(),
            stopped: false,
        })
    }
}

/// An iNES image of a hello's PRG and CHR sizes around `body` (a plain header, NES 2.0 sizes when the
/// plain ones overflow; mapper 0).
fn ines_image(hello: &Hello, body: &[u8]) -> Result<RomImage, RomError> {
    let (prg, chr) = (hello.prg / 16384, hello.chr / 8192);
    let mut bytes = Vec::with_capacity(INES_HEADER_LEN + body.len());
    bytes.extend_from_slice(&INES_MAGIC);
    bytes.push(prg as u8);
    bytes.push(chr as u8);
    bytes.resize(INES_HEADER_LEN, 0);
    if prg > 255 || chr > 255 {
        bytes[7] = 0x08;
        bytes[9] = ((prg >> 8) as u8 & 0x0F) | (((chr >> 8) as u8) << 4);
    }
    bytes.extend_from_slice(body);
    let name =
        hello.rom_name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| format!("the ROM in {}", hello.emulator));
    RomImage::from_bytes(name, bytes)
}

fn msg_name(m: &ClientMsg) -> &'static str {
    match m {
        ClientMsg::Hello(_) => "hello",
        ClientMsg::Rom(_) => "ROM",
        ClientMsg::Frame { .. } => "frame",
        ClientMsg::Bye(_) => "bye",
    }
}

/// Reads one message; a read timeout becomes [`ProtoError::Timeout`].
fn read(s: &mut TcpStream, timeout: Duration) -> Result<ClientMsg, ProtoError> {
    proto::read_client(s).map_err(|e| match e {
        ProtoError::Io(io) if matches!(io.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
            ProtoError::Timeout(timeout.as_secs_f64())
        }
        other => other,
    })
}

/// The console of a connected emulator (see the module's documentation).
pub struct Remote {
    stream: TcpStream,
    emulator: String,
    peer: String,
    timeout: Duration,
    ram: Box<[u8; RAM_LEN]>,
    frame: u32,
    pads: [u8; 2],
    status: Cell<Status>,
    /// Microseconds from sending a frame's pads to receiving the next frame.
    round_trips: Vec<u32>,
    /// Microseconds from receiving a frame to sending its pads (the engine's own time per frame).
    engine: Vec<u32>,
    received_at: Instant,
    stopped: bool,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote").field("emulator", &self.emulator).field("frame", &self.frame).finish()
    }
}

impl Remote {
    /// The emulator's name, as its hello said it.
    pub fn emulator(&self) -> &str {
        &self.emulator
    }

    /// The emulator's address.
    pub fn peer(&self) -> &str {
        &self.peer
    }

    /// Sets the status the emulator's script shows (sent with the next pads).
    pub fn set_status(&self, status: Status) {
        self.status.set(status);
    }

    /// Microseconds from sending each frame's pads to receiving the next frame, in frame order.
    pub fn round_trips_us(&self) -> &[u32] {
        &self.round_trips
    }

    /// Microseconds the engine took between receiving each frame and answering it.
    pub fn engine_us(&self) -> &[u32] {
        &self.engine
    }

    /// Tells the emulator the engine stops, and why (its script lets go of the pads and shows it). Sent
    /// once; a link already broken is not an error here.
    pub fn stop(&mut self, why: &str) {
        if !self.stopped {
            self.stopped = true;
            let _ = proto::write_msg(&mut self.stream, kind::STOP, why.as_bytes());
            let _ = self.stream.shutdown(std::net::Shutdown::Write);
        }
    }

    fn link(&self, source: ProtoError) -> RemoteError {
        RemoteError::Link { emulator: self.emulator.clone(), frame: self.frame, source }
    }
}

impl Machine for Remote {
    fn ram(&self) -> &[u8; 2048] {
        &self.ram
    }

    fn set_pads(&mut self, pads: [u8; 2]) {
        self.pads = pads;
    }

    fn clock_frame(&mut self) -> Result<(), EmuError> {
        let sent = Instant::now();
        self.engine.push(micros(sent - self.received_at));
        let msg = proto::pads_payload(self.frame, self.pads, self.status.get());
        proto::write_msg(&mut self.stream, kind::PADS, &msg).map_err(|e| self.link(e.into()))?;
        let next = read(&mut self.stream, self.timeout).map_err(|e| self.link(e))?;
        self.received_at = Instant::now();
        self.round_trips.push(micros(self.received_at - sent));
        match next {
            ClientMsg::Frame { frame, ram } => {
                if frame != self.frame.wrapping_add(1) {
                    return Err(RemoteError::FrameJump {
                        emulator: self.emulator.clone(),
                        from: self.frame,
                        to: frame,
                    }
                    .into());
                }
                self.frame = frame;
                self.ram = ram;
                Ok(())
            }
            ClientMsg::Bye(reason) => {
                self.stopped = true;
                Err(RemoteError::Bye { emulator: self.emulator.clone(), frame: self.frame, reason }.into())
            }
            other => {
                Err(self.link(ProtoError::Unexpected { got: msg_name(&other).into(), want: "the next frame" }).into())
            }
        }
    }

    fn frame_number(&self) -> u32 {
        self.frame
    }
}

fn micros(d: Duration) -> u32 {
    d.as_micros().min(u128::from(u32::MAX)) as u32
}

/// Median and 99th percentile of a list of microseconds, in milliseconds (`None` for an empty list).
pub fn median_p99_ms(samples: &[u32]) -> Option<(f64, f64)> {
    if samples.is_empty() {
        return None;
    }
    let mut v = samples.to_vec();
    v.sort_unstable();
    let at = |q: f64| f64::from(v[((v.len() - 1) as f64 * q).round() as usize]) / 1000.0;
    Some((at(0.5), at(0.99)))
}

impl Drop for Remote {
    fn drop(&mut self) {
        // An engine that ends without saying why (an error on its side) still lets the script know.
        self.stop("the engine stopped");
        let _ = self.stream.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rom_body_is_identified_as_its_file_is() {
        let file = crate::emu::rom::LABCART;
        let hello = Hello { version: 1, emulator: "x".into(), prg: 16384, chr: 8192, rom_name: None };
        let image = ines_image(&hello, &file[INES_HEADER_LEN..]).unwrap();
        assert_eq!(image.hash, crate::emu::rom::labcart().unwrap().hash);
        assert_eq!(image.name, "the ROM in x");
        // Sizes past the plain header's byte use the NES 2.0 extension, and still hash the body.
        let big = Hello { prg: 300 * 16384, chr: 0, ..hello.clone() };
        let body = vec![7u8; big.prg];
        assert_eq!(ines_image(&big, &body).unwrap().hash, crate::emu::RomHash::of(&body));
        // A body shorter than the hello says is refused as a truncated image.
        assert!(matches!(ines_image(&hello, &file[16..1000]), Err(RomError::Truncated { .. })));
    }

    #[test]
    fn median_and_p99() {
        assert_eq!(median_p99_ms(&[]), None);
        let us: Vec<u32> = (1..=100).map(|i| i * 1000).collect();
        assert_eq!(median_p99_ms(&us), Some((51.0, 99.0)));
        assert_eq!(median_p99_ms(&[250]), Some((0.25, 0.25)));
    }
}
