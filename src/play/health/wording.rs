//! What the clock and the plans did, in words, for the verdicts and the log.

use super::records::SeatHealth;
use super::{CUT_PIECES_SHARE, LAG_ROWS_TOLD, WINDOW, share_reached};

impl SeatHealth {
    /// What the game's clock does to the bot's choice, in words, the first time in a game it is worth
    /// saying: it leaves some placement of an empty field out of reach, or it narrowed the choice on
    /// [`CUT_PIECES_SHARE`] of the pieces asked about or more (a window's worth at least). Said so that
    /// short chains on a fast game are not taken for a weak bot or a wrong fact.
    pub fn clock_limits_play(&mut self) -> Option<String> {
        if self.clock_limit_told {
            return None;
        }
        let c = &self.counts;
        let text = match self.reach_text().or_else(|| self.lag_rows_text()) {
            Some(reach) => reach,
            None if c.pieces_asked >= WINDOW as u64
                && share_reached(c.pieces_clock_cut, c.pieces_asked, CUT_PIECES_SHARE) =>
            {
                format!(
                    "the game's clock cut columns off the field for {} of {} pieces",
                    c.pieces_clock_cut, c.pieces_asked
                )
            }
            None => return None,
        };
        self.clock_limit_told = true;
        Some(text)
    }

    /// The pieces the clock cut columns off for, in words, when they are [`CUT_PIECES_SHARE`] of a full
    /// window or more.
    pub(super) fn cut_text(&self) -> Option<String> {
        let (cut, n) = self.cut_pieces()?;
        Some(format!(
            "the clock cut columns off the field for {cut} of the last {n} pieces (they land before presses get \
             them past the stacks)"
        ))
    }

    /// The rows a pair falls before a press takes effect, in words, when they are [`LAG_ROWS_TOLD`] or
    /// more: the pair is well down the field before the bot can steer it, even when the presses still
    /// reach every placement of an empty field.
    pub(super) fn lag_rows_text(&self) -> Option<String> {
        let t = self.timing?;
        let rows = u32::from(t.input_lag) / u32::from(t.frames_per_row.max(1));
        (rows >= LAG_ROWS_TOLD).then(|| {
            format!(
                "on this clock a pair falls {rows} rows before a press takes effect (input lag {} frames at {} frames \
                 a row)",
                t.input_lag, t.frames_per_row
            )
        })
    }

    /// The open field's reach in words, when the clock cuts it.
    pub(super) fn reach_text(&self) -> Option<String> {
        let (reached, of) = self.open_reach.filter(|&(reached, of)| reached < of)?;
        Some(format!(
            "on this clock a pair reaches {reached} of the {of} placements even on an empty field: its presses take \
             effect too late to steer it before it locks"
        ))
    }

    /// How the plans went since the contract settled, in words: pieces off plan, re-plans, presses refused.
    pub(super) fn plans_text(&self) -> String {
        let c = &self.counts;
        format!(
            "{} pieces locked off plan, {} re-plans, {} presses without effect",
            c.off_plan, c.replans, c.presses_refused
        )
    }

    /// The pieces the clock cut columns off for since the contract settled, in words, when there were any.
    pub(super) fn narrowed_text(&self) -> Option<String> {
        let c = &self.counts;
        (c.pieces_clock_cut > 0).then(|| {
            format!(
                "the clock narrowed the bot's choice on {} of the {} pieces asked about (they land before presses \
                 get them past the stacks)",
                c.pieces_clock_cut, c.pieces_asked
            )
        })
    }

    /// The timing played on, in words.
    pub(super) fn timing_text(&self) -> String {
        match self.timing {
            Some(t) => format!(
                "played on {} frames per row, lock delay {}, input lag {}",
                t.frames_per_row,
                match t.lock {
                    crate::game::timing::LockDelay::None => "none".to_string(),
                    crate::game::timing::LockDelay::Frames { frames, moves: true } => format!("{frames} frames"),
                    crate::game::timing::LockDelay::Frames { frames, moves: false } => {
                        format!("{frames} frames (no moves)")
                    }
                },
                t.input_lag
            ),
            None => "played with no timing measured (the pair taken to wait at its row)".to_string(),
        }
    }
}
