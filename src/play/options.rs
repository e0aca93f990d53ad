//! Game options from the command line (`--items`, `--colors`): the menu scripts set them by watching RAM,
//! and what the game then deals confirms them.

use serde::Serialize;

use crate::memmap::schema::{ColorsOption, Condition, ItemsOption, MenuStep};

/// Pieces a bot places after which the items asked for must have been dealt at least once (the open
/// cartridge deals an item every 16th piece; a game that deals none in this many has not switched them on).
pub const ITEMS_CONFIRM_PIECES: u32 = 40;

/// The items option asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemsChoice {
    /// No items.
    Off,
    /// Big Puyo.
    BigPuyo,
    /// Carbuncle.
    Carbuncle,
}

impl ItemsChoice {
    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            ItemsChoice::Off => "off",
            ItemsChoice::BigPuyo => "big-puyo",
            ItemsChoice::Carbuncle => "carbuncle",
        }
    }

    /// The item dealt under this choice (`None`: off).
    pub fn item(self) -> Option<crate::game::Item> {
        match self {
            ItemsChoice::Off => None,
            ItemsChoice::BigPuyo => Some(crate::game::Item::BigPuyo),
            ItemsChoice::Carbuncle => Some(crate::game::Item::Carbuncle),
        }
    }

    /// The option byte's value for this choice.
    pub fn value(self, o: &ItemsOption) -> u8 {
        match self {
            ItemsChoice::Off => o.off,
            ItemsChoice::BigPuyo => o.big_puyo,
            ItemsChoice::Carbuncle => o.carbuncle,
        }
    }
}

/// `steps` with the items option set before the game starts: the cursor goes down to the option's line,
/// the byte is moved to the value (watching RAM, as a `seek`), and the cursor goes back. Inserted before
/// the last step that presses Start (and the seed wait just before it, so the deal keeps its timing).
pub fn with_items(steps: &[MenuStep], option: &ItemsOption, choice: ItemsChoice) -> Vec<MenuStep> {
    let goal = Condition { addr: option.addr, equals: choice.value(option) };
    with_option(steps, option.line, goal, &option.buttons, &format!("items: {}", choice.name()))
}

/// `steps` with the number of colours set as [`with_items`] sets the items; `None` when the game does not
/// offer `count`.
pub fn with_colors(steps: &[MenuStep], option: &ColorsOption, count: u8) -> Option<Vec<MenuStep>> {
    let value = *option.values.get(option.counts.iter().position(|&c| c == count)?)?;
    let goal = Condition { addr: option.addr, equals: value };
    Some(with_option(steps, option.line, goal, &option.buttons, &format!("colours: {count}")))
}

/// `steps` with the 2P rule `option` set to the rule's number `rule` (its byte's value from the option's
/// table) before the game's last Start; `None` when the game does not offer it.
pub fn with_rule(
    steps: &[MenuStep],
    option: &crate::memmap::schema::RuleOption,
    rule: u32,
    note: &str,
) -> Option<Vec<MenuStep>> {
    let value = *option.values.get(option.rules.iter().position(|&r| r == rule)?)?;
    let goal = Condition { addr: option.addr, equals: value };
    Some(with_option(steps, option.line, goal, &option.buttons, note))
}

/// `steps` with a seek of `goal` on the option line `line` inserted before the game's last Start.
fn with_option(
    steps: &[MenuStep],
    line: u8,
    goal: Condition,
    buttons: &Option<Vec<String>>,
    note: &str,
) -> Vec<MenuStep> {
    let starts = |s: &MenuStep| {
        s.start_play.is_some() || s.press.as_ref().is_some_and(|b| b.iter().any(|n| n.eq_ignore_ascii_case("START")))
    };
    let mut at = steps.iter().rposition(starts).unwrap_or(steps.len());
    if at > 0 && steps[at - 1].seed_wait.is_some() {
        at -= 1;
    }
    let press = |button: &str, note: &str| MenuStep {
        press: Some(vec![button.to_string()]),
        note: Some(note.to_string()),
        ..Default::default()
    };
    let mut inserted = Vec::new();
    for _ in 0..line {
        inserted.push(press("DOWN", "cursor to the option"));
    }
    inserted.push(MenuStep {
        seek: Some(goal),
        buttons: Some(buttons.clone().unwrap_or_else(|| vec!["RIGHT".into()])),
        note: Some(note.to_string()),
        ..Default::default()
    });
    for _ in 0..line {
        inserted.push(press("UP", "cursor back"));
    }
    let mut out = steps[..at].to_vec();
    out.extend(inserted);
    out.extend_from_slice(&steps[at..]);
    out
}

/// The JSON `colors` object: the number of colours asked for and how many the game dealt.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ColorsReport {
    /// Colours asked for.
    pub asked: u8,
    /// Distinct colours dealt to the bots.
    pub dealt: u8,
    /// The game dealt exactly that many colours.
    pub confirmed: bool,
}

impl ColorsReport {
    /// The reports of several games as one: the most colours dealt, confirmed when every game confirmed.
    pub fn merged<'a>(reports: impl Iterator<Item = &'a ColorsReport>) -> Option<ColorsReport> {
        reports.fold(None, |acc: Option<ColorsReport>, r| {
            Some(match acc {
                None => r.clone(),
                Some(a) => {
                    ColorsReport { asked: a.asked, dealt: a.dealt.max(r.dealt), confirmed: a.confirmed && r.confirmed }
                }
            })
        })
    }
}

/// What the dealt colours say of the number asked for: `Ok(true)` confirmed, `Ok(false)` not yet,
/// `Err(seen)` when the game deals more, or fewer in [`ITEMS_CONFIRM_PIECES`] pieces.
pub fn judge_colors(asked: u8, dealt: u8, pieces: u32) -> Result<bool, String> {
    let seen = format!("{pieces} pieces held {dealt} colours");
    if dealt > asked || (dealt < asked && pieces >= ITEMS_CONFIRM_PIECES) {
        return Err(format!("{asked} colours were asked for, but {seen}"));
    }
    Ok(dealt == asked)
}

/// The JSON `items` object: what was asked and what the game dealt.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ItemsReport {
    /// `off`, `big-puyo` or `carbuncle`.
    pub asked: String,
    /// Big Puyo pieces dealt to the bots.
    pub big_puyo: u32,
    /// Carbuncle pieces dealt to the bots.
    pub carbuncle: u32,
    /// The game dealt what was asked: an item of that kind came (for `off`: none came in
    /// [`ITEMS_CONFIRM_PIECES`] pieces).
    pub confirmed: bool,
}

impl ItemsReport {
    /// The reports of several games as one: counts added, confirmed when every game confirmed.
    pub fn merged<'a>(reports: impl Iterator<Item = &'a ItemsReport>) -> Option<ItemsReport> {
        reports.fold(None, |acc: Option<ItemsReport>, r| {
            Some(match acc {
                None => r.clone(),
                Some(a) => ItemsReport {
                    asked: a.asked,
                    big_puyo: a.big_puyo + r.big_puyo,
                    carbuncle: a.carbuncle + r.carbuncle,
                    confirmed: a.confirmed && r.confirmed,
                },
            })
        })
    }
}

/// What the dealt pieces say of the choice: `Ok(true)` confirmed, `Ok(false)` not yet, `Err(seen)` when
/// the game plainly does not deal it. `dealt` is (Big Puyo, Carbuncle), `pieces` the pieces placed.
pub fn judge(choice: ItemsChoice, dealt: (u32, u32), pieces: u32) -> Result<bool, String> {
    let (big, carbuncle) = dealt;
    let seen = format!("{pieces} pieces held {big} Big Puyo and {carbuncle} Carbuncle");
    let (want, other) = match choice {
        ItemsChoice::Off if big + carbuncle > 0 => return Err(format!("items were asked off, but {seen}")),
        ItemsChoice::Off => return Ok(pieces >= ITEMS_CONFIRM_PIECES),
        ItemsChoice::BigPuyo => (big, carbuncle),
        ItemsChoice::Carbuncle => (carbuncle, big),
    };
    if other > 0 {
        return Err(format!("{} was asked for, but {seen}", choice.name()));
    }
    if want == 0 && pieces >= ITEMS_CONFIRM_PIECES {
        return Err(format!("{} was asked for, but {seen}", choice.name()));
    }
    Ok(want > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn option() -> ItemsOption {
        ItemsOption {
            addr: 0x90,
            off: 0,
            big_puyo: 1,
            carbuncle: 2,
            line: 1,
            buttons: None,
            source: "test".into(),
            verified: true,
        }
    }

    fn step(press: &str) -> MenuStep {
        MenuStep { press: Some(vec![press.into()]), ..Default::default() }
    }

    #[test]
    fn the_option_is_set_before_the_last_start_and_its_seed_wait() {
        let steps = vec![step("START"), MenuStep { seed_wait: Some(255), ..Default::default() }, step("START")];
        let out = with_items(&steps, &option(), ItemsChoice::Carbuncle);
        let names: Vec<String> = out
            .iter()
            .map(|s| match (&s.press, &s.seek, s.seed_wait) {
                (Some(p), _, _) => p[0].clone(),
                (_, Some(c), _) => format!("seek {}={}", c.addr, c.equals),
                (_, _, Some(_)) => "seed".into(),
                _ => "?".into(),
            })
            .collect();
        assert_eq!(names, ["START", "DOWN", "seek 144=2", "UP", "seed", "START"]);
    }

    #[test]
    fn colours_the_game_does_not_offer_are_refused_and_the_deal_judges_the_rest() {
        let o = ColorsOption {
            addr: 0x91,
            counts: vec![3, 4, 5, 6],
            values: vec![3, 4, 5, 6],
            line: 2,
            buttons: None,
            source: "test".into(),
            verified: true,
        };
        assert!(with_colors(&[step("START")], &o, 7).is_none());
        let out = with_colors(&[step("START")], &o, 5).unwrap();
        assert_eq!(out.len(), 6, "down, down, seek, up, up, start");
        assert_eq!(out[2].seek, Some(Condition { addr: 0x91, equals: 5 }));
        assert_eq!(judge_colors(5, 5, 10), Ok(true));
        assert_eq!(judge_colors(5, 4, 10), Ok(false));
        assert!(judge_colors(5, 4, ITEMS_CONFIRM_PIECES).is_err());
        assert!(judge_colors(3, 4, 10).is_err());
    }

    #[test]
    fn the_deal_confirms_or_refutes_the_choice() {
        assert_eq!(judge(ItemsChoice::BigPuyo, (0, 0), 10), Ok(false));
        assert_eq!(judge(ItemsChoice::BigPuyo, (1, 0), 20), Ok(true));
        assert!(judge(ItemsChoice::BigPuyo, (0, 0), ITEMS_CONFIRM_PIECES).is_err());
        assert!(judge(ItemsChoice::BigPuyo, (0, 1), 20).is_err());
        assert!(judge(ItemsChoice::Off, (1, 0), 20).is_err());
        assert_eq!(judge(ItemsChoice::Off, (0, 0), ITEMS_CONFIRM_PIECES), Ok(true));
    }
}
