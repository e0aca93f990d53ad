//! Recording a run: [`TraceRecorder`] sits between a session (or the window) and the console and hands
//! every frame to a [`TraceWriter`] and to the flight recorder's [`TraceRing`].

use std::fs::File;
use std::io::{BufWriter, Write};

use crate::emu::{EmuError, Machine, SaveStates};

use super::format::TraceError;
use super::ring::TraceRing;
use super::writer::{TraceStats, TraceWriter};

/// A shared handle on a [`TraceRing`]: the recorder fills it, the front end writes it out.
pub type RingHandle = std::sync::Arc<std::sync::Mutex<TraceRing>>;

/// A machine that writes every frame it runs to a trace: RAM at the start of the frame and the pads held
/// during it. It only reads the inner machine's RAM. With no writer it is a plain pass-through.
///
/// A write error stops the recording (the game goes on) and is returned by [`TraceRecorder::finish`].
/// Dropped without `finish`, it finishes the file itself and logs any error.
pub struct TraceRecorder<M: Machine, W: Write = BufWriter<File>> {
    inner: M,
    pads: [u8; 2],
    /// The pads of every frame, when asked for ([`TraceRecorder::with_pad_log`]).
    pad_log: Option<Vec<[u8; 2]>>,
    writer: Option<TraceWriter<W>>,
    /// The flight recorder's bounded memory of the run, when one is attached.
    ring: Option<RingHandle>,
    error: Option<TraceError>,
    finished: Option<TraceStats>,
}

impl<M: Machine, W: Write> std::fmt::Debug for TraceRecorder<M, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceRecorder")
            .field("recording", &self.writer.is_some())
            .field("frames", &self.writer.as_ref().map(|w| w.stats().frames))
            .finish()
    }
}

impl<M: Machine, W: Write> TraceRecorder<M, W> {
    /// Wraps `inner`, recording to `writer` when there is one.
    pub fn new(inner: M, writer: Option<TraceWriter<W>>) -> Self {
        TraceRecorder { inner, pads: [0; 2], pad_log: None, writer, ring: None, error: None, finished: None }
    }

    /// Also keeps the pads of every frame in memory (two bytes a frame), for a replay check that compares
    /// a run with a file without writing one.
    pub fn with_pad_log(mut self) -> Self {
        self.pad_log = Some(Vec::new());
        self
    }

    /// Also hands every frame to the flight recorder's ring (see [`super::ring`]), which the caller keeps
    /// a handle on to write it out when the run stops, whatever becomes of this machine.
    pub fn with_ring(mut self, ring: RingHandle) -> Self {
        self.ring = Some(ring);
        self
    }

    /// The pads held during each frame run so far, when [`TraceRecorder::with_pad_log`] asked for them.
    pub fn pad_log(&self) -> Option<&[[u8; 2]]> {
        self.pad_log.as_deref()
    }

    /// True while frames are being written.
    pub fn recording(&self) -> bool {
        self.writer.is_some()
    }

    /// The wrapped machine.
    pub fn inner(&self) -> &M {
        &self.inner
    }

    /// The wrapped machine, mutably (the window's picture). Not a way around the no-write rule: the
    /// session only ever sees this wrapper as a [`Machine`].
    pub fn inner_mut(&mut self) -> &mut M {
        &mut self.inner
    }

    /// Ends the recording: writes the last block and the end record. `Ok(None)` when nothing was being
    /// recorded; the first write error when one stopped the recording.
    pub fn finish(&mut self) -> Result<Option<TraceStats>, TraceError> {
        self.finish_writer()?;
        Ok(self.finished)
    }

    /// [`TraceRecorder::finish`], handing back the destination (a trace kept in memory); `Ok(None)` when
    /// nothing was being recorded.
    pub fn finish_writer(&mut self) -> Result<Option<(W, TraceStats)>, TraceError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let Some(w) = self.writer.take() else { return Ok(None) };
        let (out, stats) = w.finish(self.inner.ram())?;
        self.finished = Some(stats);
        Ok(Some((out, stats)))
    }

    /// Frames recorded so far.
    pub fn frames(&self) -> u64 {
        self.writer.as_ref().map(|w| w.stats().frames).or(self.finished.map(|s| s.frames)).unwrap_or(0)
    }
}

impl<M: Machine, W: Write> Machine for TraceRecorder<M, W> {
    fn ram(&self) -> &[u8; 2048] {
        self.inner.ram()
    }

    fn set_pads(&mut self, pads: [u8; 2]) {
        self.pads = pads;
        self.inner.set_pads(pads);
    }

    fn clock_frame(&mut self) -> Result<(), EmuError> {
        if let Some(w) = self.writer.as_mut()
            && let Err(e) = w.push(self.pads, self.inner.ram())
        {
            log::error!("recording stopped: {e}");
            self.error = Some(e);
            self.writer = None;
        }
        if let Some(ring) = &self.ring {
            // A poisoned lock only means another thread panicked while holding it; the frames are still good.
            ring.lock().unwrap_or_else(|e| e.into_inner()).push(self.pads, self.inner.ram());
        }
        self.inner.clock_frame()?;
        if let Some(log) = &mut self.pad_log {
            log.push(self.pads);
        }
        Ok(())
    }

    fn frame_number(&self) -> u32 {
        self.inner.frame_number()
    }

    fn set_in_play(&mut self, in_play: bool) {
        self.inner.set_in_play(in_play);
    }

    fn note(&mut self, player: usize, text: &str) {
        if let Some(w) = self.writer.as_mut() {
            w.note(player, text);
        }
        if let Some(ring) = &self.ring {
            ring.lock().unwrap_or_else(|e| e.into_inner()).note(player, text);
        }
        self.inner.note(player, text);
    }
}

impl<M: Machine + SaveStates, W: Write> SaveStates for TraceRecorder<M, W> {
    fn save_state(&mut self) -> Result<Vec<u8>, EmuError> {
        self.inner.save_state()
    }

    /// Refused while recording: a loaded state rewrites RAM behind the game's back, and the trace must
    /// hold only what the game did with the pads it was given.
    fn load_state(&mut self, state: &[u8]) -> Result<(), EmuError> {
        if self.writer.is_some() {
            return Err(EmuError::Refused("loading a save state is off while a trace is being recorded".into()));
        }
        self.inner.load_state(state)
    }
}

impl<M: Machine, W: Write> Drop for TraceRecorder<M, W> {
    fn drop(&mut self) {
        if self.writer.is_some()
            && let Err(e) = self.finish()
        {
            log::error!("could not finish the trace: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::mock::MockGame;
    use crate::emu::ram_hash;
    use crate::trace::TraceReader;
    use crate::trace::format::{BLOCK_FRAMES, TraceHeader};

    #[test]
    fn the_recorder_writes_ram_at_the_start_of_each_frame_with_its_pads() {
        let header = TraceHeader::for_rom(&crate::emu::rom::labcart().unwrap());
        let writer = TraceWriter::new(Vec::new(), "mem", &header).unwrap();
        let mut rec = TraceRecorder::new(MockGame::new(1, 4, 7), Some(writer));
        let mut seen = Vec::new();
        for i in 0..400u32 {
            let pads = [[0u8, 0x40, 0x01, 0x20][i as usize % 4], (i % 3) as u8];
            rec.set_pads(pads);
            seen.push((pads, *rec.ram()));
            rec.clock_frame().unwrap();
        }
        let last = *rec.ram();
        let w = rec.writer.take().unwrap();
        let (bytes, stats) = w.finish(&last).unwrap();
        assert_eq!(stats.frames, 400);
        let mut r = TraceReader::new(&bytes[..], "mem").unwrap();
        let mut i = 0;
        while let Some((pads, ram)) = r.next_frame().unwrap() {
            assert_eq!((pads, *ram), seen[i], "frame {i}");
            i += 1;
        }
        assert_eq!(i, 400);
        assert!(seen.iter().any(|s| s.1 != seen[0].1), "RAM never changed: the comparison proves nothing");
        assert_eq!(r.end(), Some(&crate::trace::TraceEnd::Complete { frames: 400, final_ram_hash: ram_hash(&last) }));
    }

    #[test]
    fn the_pad_log_holds_the_pads_of_each_frame_run_without_a_file() {
        let mut rec = TraceRecorder::<_, Vec<u8>>::new(MockGame::new(1, 4, 7), None).with_pad_log();
        for i in 0..50u8 {
            rec.set_pads([i, 0x80]);
            rec.clock_frame().unwrap();
        }
        let log = rec.pad_log().expect("asked for");
        assert_eq!(log.len(), 50);
        assert_eq!((log[0], log[49]), ([0, 0x80], [49, 0x80]));
        assert!(TraceRecorder::<_, Vec<u8>>::new(MockGame::new(1, 4, 7), None).pad_log().is_none());
    }

    /// A sink that fails after `left` bytes.
    struct Full {
        left: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.left < buf.len() {
                return Err(std::io::Error::other("disk full"));
            }
            self.left -= buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_error_stops_the_recording_but_not_the_game_and_is_reported() {
        let header = TraceHeader::for_rom(&crate::emu::rom::labcart().unwrap());
        let writer = TraceWriter::new(Full { left: 300 }, "full.trace", &header).unwrap();
        let mut rec = TraceRecorder::new(MockGame::new(1, 4, 7), Some(writer));
        for _ in 0..(BLOCK_FRAMES * 2) {
            rec.clock_frame().unwrap();
        }
        assert!(!rec.recording());
        assert_eq!(rec.inner().frame_number() as usize, BLOCK_FRAMES * 2);
        let e = rec.finish().unwrap_err().to_string();
        assert!(e.contains("full.trace") && e.contains("disk full"), "{e}");
    }
}
