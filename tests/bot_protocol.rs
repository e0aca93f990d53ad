//! The bot protocol end to end: bot processes in `sim` and headless `play`, the built-in AI behind
//! `puyobot bot` playing the same games as in process, and every way a bot can misbehave ending the run
//! with an error that names the bot, a failing exit status, in time, with the bot process gone.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use puyobot::ai::{AiConfig, Level, StrengthBot};
use puyobot::botproto::{BotCommand, ProcessBot};
use puyobot::game::deal::{RandomPieces, game_rng};
use puyobot::game::{Decision, Placement, Player, PlayerError, Rules, View};
use puyobot::sim::{BattleTiming, play_battle};
use rand::RngCore;

const EXE: &str = env!("CARGO_BIN_EXE_puyobot");

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("puyobot-botproto-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The reference bot's path.
fn simple_bot() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/bots/simple.py").display().to_string()
}

/// A Python bot named `badbot` that appends its pid to `pids` and answers `rules` and `suggest` with the
/// given Python statements (`send(m)` writes a message).
fn bad_bot(dir: &Path, on_rules: &str, on_suggest: &str, protocol: u32) -> (PathBuf, PathBuf) {
    let pids = dir.join("pids");
    let script = dir.join("bot.py");
    let body = format!(
        r#"import json, os, sys, time
with open(sys.argv[1], "a") as f:
    f.write(str(os.getpid()) + "\n")
def send(m):
    print(json.dumps(m), flush=True)
send({{"type": "info", "name": "badbot", "protocol": {protocol}}})
for line in sys.stdin:
    kind = json.loads(line)["type"]
    if kind == "rules":
        {on_rules}
    elif kind == "suggest":
        {on_suggest}
    elif kind == "quit":
        break
"#
    );
    std::fs::write(&script, body).expect("write the bot");
    (script, pids)
}

/// Every pid the bot wrote, each checked gone (reaped: not even a zombie is left).
fn assert_reaped(pids: &Path) {
    let text = std::fs::read_to_string(pids).expect("the bot wrote its pid");
    for pid in text.lines() {
        let proc = PathBuf::from(format!("/proc/{pid}"));
        assert!(!proc.exists(), "bot process {pid} is still there");
    }
}

/// Runs `sim endless` with the misbehaving bot; returns the output and how long it took.
fn sim_with(dir: &Path, on_rules: &str, on_suggest: &str, protocol: u32) -> (Output, Duration, PathBuf) {
    let (script, pids) = bad_bot(dir, on_rules, on_suggest, protocol);
    let spec = format!("exec:python3 {} {}", script.display(), pids.display());
    let started = Instant::now();
    let out = Command::new(EXE)
        .args(["sim", "endless", "--pieces", "20", "--games", "1", "--ai", &spec])
        .stdin(Stdio::null())
        .output()
        .expect("run puyobot");
    (out, started.elapsed(), pids)
}

/// The run fails within `limit` plus a few seconds, its error naming the bot and `what`, the bot reaped.
fn assert_fails(name: &str, on_rules: &str, on_suggest: &str, protocol: u32, what: &str, limit: Duration) {
    let dir = scratch(name);
    let (out, took, pids) = sim_with(&dir, on_rules, on_suggest, protocol);
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{name}: the run fails: {err}");
    assert!(err.contains("bot \"badbot\""), "{name}: the error names the bot: {err}");
    assert!(err.contains(what), "{name}: the error says {what:?}: {err}");
    assert!(took < limit + Duration::from_secs(4), "{name}: ended in {took:?}");
    assert!(!err.contains("panicked"), "{name}: no panic: {err}");
    assert_reaped(&pids);
}

const READY: &str = r#"send({"type": "ready"})"#;
const MOVE: &str =
    r#"send({"type": "suggestion", "moves": [{"x": 1, "orientation": "up"}, {"x": 2, "orientation": "up"}]})"#;
const SECOND: Duration = Duration::from_secs(1);

#[test]
fn a_bot_that_never_answers_ends_the_run_at_the_move_limit() {
    assert_fails("silent", READY, "time.sleep(60)", 1, "sent no suggestion within 1000 ms", SECOND);
}

#[test]
fn a_bot_that_answers_late_ends_the_run_at_the_move_limit() {
    assert_fails("late", READY, &format!("time.sleep(2.5); {MOVE}"), 1, "sent no suggestion within 1000 ms", SECOND);
}

#[test]
fn a_bot_that_exits_ends_the_run_with_its_exit_status() {
    assert_fails("crash", READY, "sys.exit(3)", 1, "exited (exit status: 3) while its suggestion was due", SECOND);
}

#[test]
fn a_bot_that_prints_garbage_ends_the_run() {
    assert_fails("garbage", READY, r#"print("left please", flush=True)"#, 1, "sent garbage", SECOND);
}

#[test]
fn a_bot_that_sends_json_of_the_wrong_shape_ends_the_run() {
    let wrong = r#"send({"type": "suggestion", "moves": "left"})"#;
    assert_fails("shape", READY, wrong, 1, "sent garbage while its suggestion was due", SECOND);
}

#[test]
fn a_bot_that_suggests_only_moves_it_cannot_play_ends_the_run() {
    let off =
        r#"send({"type": "suggestion", "moves": [{"x": 9, "orientation": "up"}, {"x": 6, "orientation": "right"}]})"#;
    assert_fails("unreachable", READY, off, 1, "suggested no move", SECOND);
}

#[test]
fn a_bot_that_never_says_ready_ends_the_run_at_the_start_limit() {
    assert_fails("unready", "time.sleep(60)", MOVE, 1, "sent no ready within 5000 ms", 5 * SECOND);
}

#[test]
fn a_bot_of_another_protocol_version_is_refused() {
    assert_fails("version", READY, MOVE, 2, "speaks protocol version 2", SECOND);
}

#[test]
fn an_interrupt_ends_the_run_and_the_bot_at_once() {
    let dir = scratch("interrupt");
    let (script, pids) = bad_bot(&dir, "time.sleep(60)", MOVE, 1);
    let spec = format!("exec:python3 {} {}", script.display(), pids.display());
    let child = Command::new(EXE)
        .args(["sim", "endless", "--pieces", "20", "--ai", &spec])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run puyobot");
    // The probe for the bot's name and the game's bot both start before the wait for `ready`.
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Instant::now();
    // SAFETY: kill(2) on the child we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().expect("wait");
    assert!(sent.elapsed() < Duration::from_secs(2), "stopped in {:?}", sent.elapsed());
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    assert_reaped(&pids);
}

/// Records each decision's placement.
struct Recorded<P> {
    inner: P,
    placements: Vec<Placement>,
}

impl<P: Player> Player for Recorded<P> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn choose(&mut self, view: &View<'_>) -> Decision {
        let d = self.inner.choose(view);
        self.placements.push(d.placement);
        d
    }
    fn try_choose(&mut self, view: &View<'_>) -> Result<Decision, PlayerError> {
        let d = self.inner.try_choose(view)?;
        self.placements.push(d.placement);
        Ok(d)
    }
    fn placed(&mut self, placement: Placement) {
        self.inner.placed(placement)
    }
}

/// Battle `g` of the run `seed` as `sim battle` plays it, with player 1 as `p1(seed)`: both sides' moves.
fn battle_moves<P: Player>(seed: u64, g: u64, p1: impl FnOnce(u64) -> P) -> [Vec<Placement>; 2] {
    let (rules, config) = (Rules::puyo1(), AiConfig::default());
    let mut rng = game_rng(seed, g);
    let mut source = RandomPieces::new(rng.next_u64(), puyobot::sim::DEFAULT_COLORS);
    let mut a = Recorded { inner: p1(rng.next_u64()), placements: Vec::new() };
    let b = StrengthBot::new("chain", &config, rng.next_u64(), Level::FULL).expect("chain");
    let mut b = Recorded { inner: b, placements: Vec::new() };
    let rec = play_battle([&mut a, &mut b], &mut source, &rules, &BattleTiming::default(), 500, &mut rng);
    assert_eq!(rec.error, None);
    [a.placements, b.placements]
}

#[test]
fn the_built_in_ai_behind_the_protocol_plays_the_same_battles_move_for_move() {
    let config = AiConfig::default();
    for g in 0..2 {
        let in_process =
            battle_moves(9, g, |seed| StrengthBot::new("chain", &config, seed, Level::FULL).expect("chain"));
        let over_protocol = battle_moves(9, g, |seed| {
            let mut command = BotCommand::new(vec![EXE.into(), "bot".into()]).expect("command");
            // A loaded machine may take longer than the default second for a full search.
            command.limits.move_ms = 30_000;
            ProcessBot::spawn(&command, seed, Some(puyobot::sim::DEFAULT_COLORS)).expect("puyobot bot starts")
        });
        assert!(in_process[0].len() >= 20, "game {g}: a real game ({} moves)", in_process[0].len());
        assert_eq!(over_protocol, in_process, "game {g}");
    }
}

#[test]
fn the_reference_bot_plays_a_hundred_pieces_of_endless_in_the_simulator() {
    let out = Command::new(EXE)
        .args(["sim", "endless", "--pieces", "100", "--seed", "4", "--json"])
        .args(["--ai", &format!("exec:python3 {}", simple_bot())])
        .output()
        .expect("run puyobot");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["ai"], "simple.py (exec)");
    assert_eq!(json["runs"][0]["pairs"], 100, "the bot stays alive for 100 pieces: {json}");
}
