//! Search and bot behaviour: forced chain fires, top-out avoidance, determinism of both evaluations.

use puyobot::ai::choice::Observation;
use puyobot::ai::eval::{ChainEval, ChainWeights, ClassicWeights, Evaluation, classic};
use puyobot::ai::search::{SearchInput, SearchOptions, search};
use puyobot::ai::{AiConfig, Bot};
use puyobot::game::movegen::PiecePosition;
use puyobot::game::{Color, Field, Pair, Piece, Rules};
use puyobot::sim::{Player, RandomPieces, View, play_endless};

fn pair(a: usize, b: usize) -> Piece {
    Piece::Pair(Pair::new(Color::ALL[a], Color::ALL[b]))
}

fn view<'a>(field: &'a Field, current: Piece, next: Piece, rules: &'a Rules) -> View<'a> {
    View::solo(field, current, next, rules)
}

/// A 2-chain behind one red key on column 4 (reds pop, the green above falls onto three greens); with
/// `danger`, the spawn column is stacked to row 3 with nuisance.
fn two_chain(danger: bool) -> Field {
    let mut f = Field::from_rows(&["....G.", "...RRR", "...GGG"]);
    if danger {
        for k in 0..11 {
            f.set(3, 13 - k, puyobot::game::Cell::Nuisance);
        }
    }
    f
}

#[test]
fn the_chain_bot_fires_when_the_field_is_about_to_top_out() {
    let rules = Rules::puyo1();
    let f = two_chain(true);
    let v = view(&f, pair(0, 4), pair(4, 3), &rules);
    // By default a chain under `danger_min_chain` (4) links is the survival search's call, which pops it;
    // with 0 the ignition policy fires it itself.
    let mut config = AiConfig::default();
    assert_eq!(config.ignition.danger_min_chain, 4);
    for (min, reason) in [(4, None), (0, Some(puyobot::sim::FireReason::Danger))] {
        config.ignition.danger_min_chain = min;
        let mut bot = Bot::new("chain", &config, 1).expect("bot");
        let plan = bot.plan(&v).expect("a placement");
        assert_eq!(plan.chain.chains, 2, "expected the 2-chain to fire, got {:?} at {}", plan.chain, plan.placement);
        assert_eq!(plan.fired, reason, "danger_min_chain {min}");
        let mut after = f;
        after.play(v.current, plan.placement, &rules).expect("valid");
        assert!(!after.is_game_over(&rules));
    }
}

#[test]
fn the_chain_bot_holds_a_small_chain_on_a_roomy_field() {
    let rules = Rules::puyo1();
    let f = two_chain(false);
    let v = view(&f, pair(0, 4), pair(4, 3), &rules);
    // The 2-chain is on offer...
    let eval = Evaluation::Chain(Box::new(ChainEval::new(ChainWeights::default()).expect("eval")));
    let input = SearchInput {
        field: &f,
        current: v.current,
        next: Some(v.next),
        revealed: &[],
        start: PiecePosition::spawn(&rules),
        rules: &rules,
    };
    let r = search(&input, &eval, &SearchOptions::default(), 0).expect("moves");
    assert!(r.candidates.iter().any(|c| c.chain.chains == 2));
    // ...but far below the ignition threshold, so the bot builds on.
    let mut bot = Bot::new("chain", &AiConfig::default(), 1).expect("bot");
    let plan = bot.plan(&v).expect("a placement");
    assert_eq!(plan.fired, None);
    assert_eq!(plan.chain.chains, 0);
}

#[test]
fn each_look_brings_its_own_extension_keys_to_the_chain_evaluation() {
    let rules = Rules::puyo1();
    let mut config = AiConfig::default();
    config.search.samples = 1;
    config.search.detect_extend_keys = 1;
    config.search.late.samples = 1;
    config.search.late.detect_extend_keys = 0;
    let keys = |field: &Field, opts: &SearchOptions| {
        let v = view(field, pair(0, 1), pair(2, 3), &rules);
        let obs = Observation::new(&v, PiecePosition::spawn(&rules), opts, 1);
        obs.eval_context(Some(&config.ignition)).extend_keys
    };
    let open = two_chain(false);
    // Eight rows in which no two neighbours share a colour: 48 puyos, past the late look's 44.
    let rows = ["RGBYRG", "BYRGBY", "RGBYRG", "BYRGBY", "RGBYRG", "BYRGBY", "RGBYRG", "BYRGBY"];
    let full = Field::from_rows(&rows);
    assert!(full.count() >= config.search.late.puyos);
    assert_eq!(keys(&open, &config.search), Some(1), "below the late look: the plain look's key count");
    assert_eq!(keys(&full, &config.search), None, "from the late look on: the evaluation's own count");
    // Emulator play's two-ply search samples no futures and keeps the evaluation's count.
    let two_ply = SearchOptions { samples: 0, ..config.search.clone() };
    assert_eq!(keys(&open, &two_ply), None, "without futures: the evaluation's own count");
    // The bot plays both looks without changing its own evaluation.
    let mut bot = Bot::new("chain", &config, 1).expect("bot");
    bot.plan(&view(&full, pair(0, 1), pair(2, 3), &rules)).expect("a placement");
    let Evaluation::Chain(e) = bot.evaluation() else { panic!("the chain bot evaluates with the chain evaluation") };
    assert_eq!(*e.context(), Default::default());
}

/// Column 3 stands to row 2: anything dropped on it tops out.
fn spawn_column_nearly_full() -> Field {
    let mut f = Field::new();
    for k in 0..12 {
        f.set(3, 13 - k, puyobot::game::Cell::Nuisance);
    }
    f
}

#[test]
fn both_evaluations_avoid_an_obvious_top_out() {
    let rules = Rules::puyo1();
    let f = spawn_column_nearly_full();
    for name in ["classic", "chain"] {
        let mut bot = Bot::new(name, &AiConfig::default(), 3).expect("bot");
        let v = view(&f, pair(0, 1), pair(2, 3), &rules);
        let plan = bot.plan(&v).expect("a placement");
        let mut after = f;
        after.play(v.current, plan.placement, &rules).expect("valid");
        assert!(!after.is_game_over(&rules), "{name} topped out with {}", plan.placement);
        assert_ne!(plan.placement.x, 3, "{name}");
        assert_ne!(plan.placement.child_x(), 3, "{name}");
    }
}

#[test]
fn the_search_prefers_the_placement_that_fires_a_chain_for_classic() {
    // Three reds in a row on the floor: the classic evaluation pays for popping (fewer puyos, no penalty).
    let rules = Rules::puyo1();
    let f = Field::from_rows(&["RRR..."]);
    let eval = Evaluation::Classic(ClassicWeights::default());
    let input = SearchInput {
        field: &f,
        current: pair(0, 0),
        next: Some(pair(1, 2)),
        revealed: &[],
        start: PiecePosition::spawn(&rules),
        rules: &rules,
    };
    let r = search(&input, &eval, &SearchOptions::default(), 0).expect("moves");
    assert!(r.best().chain.chains >= 1, "best {} fires {:?}", r.best().placement, r.best().chain);
}

#[test]
fn evaluations_depend_only_on_the_field() {
    let rules = Rules::puyo1();
    let f = two_chain(true);
    // The same field built cell by cell in another order, and fresh evaluators: no hidden state may leak in.
    let mut g = Field::default();
    for y in (0..14).rev() {
        for x in (1..=6).rev() {
            g.set(x, y, f.get(x, y));
        }
    }
    assert_eq!(f, g);
    let chain_a = ChainEval::new(ChainWeights::default()).expect("eval");
    let chain_b = ChainEval::new(ChainWeights::default()).expect("eval");
    let _warm_up = chain_a.evaluate(&two_chain(false), 3, &rules);
    assert_eq!(chain_a.evaluate(&f, 3, &rules).to_bits(), chain_b.evaluate(&g, 3, &rules).to_bits());
    let w = ClassicWeights::default();
    assert_eq!(classic::evaluate(&f, &w).to_bits(), classic::evaluate(&g, &w).to_bits());
    // And the evaluations do look at the field: the danger column changes both.
    assert_ne!(chain_a.evaluate(&f, 3, &rules), chain_a.evaluate(&two_chain(false), 3, &rules));
    assert_ne!(classic::evaluate(&f, &w), classic::evaluate(&two_chain(false), &w));
}

#[test]
fn bots_are_deterministic_for_a_seed_including_sampled_futures() {
    let rules = Rules::puyo1();
    let mut config = AiConfig::default();
    config.search.samples = 2;
    config.search.refine_top = 0;
    config.chain.detect_extend = 0;
    let mut refined = config.clone();
    refined.search.refine_top = 3;
    let mut beam = config.clone();
    beam.search.beam_width = 4;
    beam.search.beam_depth = 2;
    for (name, config) in
        [("classic", &config), ("chain", &config), ("chain", &refined), ("chain", &beam), ("random", &config)]
    {
        let run = || {
            let mut bot = Bot::new(name, config, 42).expect("bot");
            let mut pieces = RandomPieces::new(9, 4);
            let rec = play_endless(&mut bot, &mut pieces, &rules, 12);
            (rec.score, rec.final_field, bot.name().to_string())
        };
        assert_eq!(run(), run(), "{name}");
    }
}

#[test]
fn an_unknown_ai_or_template_is_an_error() {
    assert!(Bot::new("nope", &AiConfig::default(), 0).is_err());
    let mut config = AiConfig::default();
    config.chain.template_name = "nope".into();
    assert!(Bot::new("chain", &config, 0).is_err());
}

#[test]
fn a_profile_file_parses_with_the_full_profile_for_what_it_leaves_out_and_rejects_unknown_keys() {
    let c = AiConfig::from_toml("[ai.chain]\nchain = 5.0\n").expect("parses");
    assert_eq!(c.chain.chain, 5.0);
    assert_eq!(c.classic, ClassicWeights::default());
    assert!(AiConfig::from_toml("[ai.chain]\nchian = 5.0\n").is_err());
    assert!(AiConfig::from_toml("[ai.chain]\nchain = 5.0\n[other]\nx = 1\n").is_err(), "[ai.*] tables only");
    let full = AiConfig::named("full").expect("the full profile");
    assert_eq!(AiConfig::from_toml(&full.to_toml()).expect("printed profile parses"), full);
}

#[test]
fn in_battle_the_chain_bot_absorbs_a_little_nuisance_and_fires_a_small_chain_before_a_lethal_dose() {
    use puyobot::sim::OpponentView;
    let rules = Rules::puyo1();
    let f = two_chain(false);
    let them = Field::from_rows(&["RGBYRG"]);
    let mut v = view(&f, pair(0, 4), pair(4, 3), &rules);
    let mut bot = Bot::new("chain", &AiConfig::default(), 1).expect("bot");
    // Quiet opponent: build on.
    v.opponent = Some(OpponentView { field: &them, nuisance_on_them: 0, incoming_from_chain: 0 });
    assert_eq!(bot.plan(&v).expect("plan").fired, None);
    // Two rows of nuisance on their way: the field takes them, the build is kept.
    v.opponent = Some(OpponentView { field: &them, nuisance_on_them: 0, incoming_from_chain: 12 });
    assert_eq!(bot.plan(&v).expect("plan").fired, None, "12 nuisance on an empty field is absorbed");
    // A lethal dose on its way: fire the 2-chain to make room.
    v.opponent = Some(OpponentView { field: &them, nuisance_on_them: 0, incoming_from_chain: 72 });
    let plan = bot.plan(&v).expect("plan");
    assert_eq!(plan.chain.chains, 2, "{:?}", plan.intent);
    assert!(plan.fired.is_some(), "the 2-chain is fired on purpose");
}

/// Left: the GTR base whose yellow key on column 1 fires 3 links. Right (purple and red, away from it):
/// a purple pair on column 5 fires 2 links now.
fn two_now_three_next() -> Field {
    let mut f = Field::from_rows(&["......", "YBG...", "YYBG..", "BBGG.."]);
    // Heights from the floor: column 5 R P P, column 6 R R P R.
    let right: [(usize, usize, usize); 7] =
        [(5, 0, 0), (5, 1, 4), (5, 2, 4), (6, 0, 0), (6, 1, 0), (6, 2, 4), (6, 3, 0)];
    for (x, h, c) in right {
        f.set(x, 13 - h, puyobot::game::Cell::Color(Color::ALL[c]));
    }
    f
}

/// On [`two_now_three_next`], a purple pair now and a yellow-red pair next: a bot that does not hold fires
/// the 2-link now; one that holds plays a placement that pops nothing, and the yellow-red pair then fires
/// 3 links or more.
fn check_hold_for_the_next_pair(config: &AiConfig, holds: bool) {
    let rules = Rules::puyo1();
    let f = two_now_three_next();
    let (purple, yellow_red) = (pair(4, 4), pair(3, 0));
    let mut bot = Bot::new("chain", config, 3).expect("the chain bot builds");
    let first = bot.choose(&view(&f, purple, yellow_red, &rules));
    if !holds {
        assert_eq!((first.chain.chains, first.fired), (2, Some(puyobot::sim::FireReason::Threshold)));
        return;
    }
    assert_eq!((first.chain.chains, first.fired), (0, None), "held with {}", first.placement);
    let mut after = f;
    after.play(purple, first.placement, &rules).expect("a valid placement");
    let second = bot.choose(&view(&after, yellow_red, pair(1, 2), &rules));
    assert!(second.chain.chains >= 3, "then fires {} links at {}", second.chain.chains, second.placement);
}

#[test]
fn with_wait_for_longer_the_bot_skips_a_fire_the_known_next_pair_beats() {
    let mut config = AiConfig::default();
    config.ignition.min_chain = 2;
    config.ignition.patience_puyos = 0;
    // Play-outs would hold this fire too (the next pair is every play-out's first piece): off, to see the rule alone.
    config.ignition.playouts = 0;
    for wait in [false, true] {
        config.ignition.wait_for_longer = wait;
        check_hold_for_the_next_pair(&config, wait);
    }
}

#[test]
fn the_late_look_replaces_the_sampled_search_from_its_threshold_on() {
    use puyobot::ai::search::LateLook;
    let rules = Rules::puyo1();
    // 13 puyos, no group of 4.
    let field = Field::from_rows(&["RG..BY", "GB..YR", "RG.YBY"]);
    assert_eq!(field.count(), 13);
    let with = |samples, beam_width, beam_depth| {
        let mut c = AiConfig::default();
        c.search.samples = samples;
        c.search.beam_width = beam_width;
        c.search.beam_depth = beam_depth;
        c.search.late.puyos = 0;
        c
    };
    let them = Field::from_rows(&["RGBYRG"]);
    let plan_in = |config: &AiConfig, battle: bool| {
        let mut bot = Bot::new("chain", config, 7).expect("bot");
        let mut v = view(&field, pair(0, 1), pair(2, 3), &rules);
        if battle {
            v.opponent = Some(puyobot::sim::OpponentView { field: &them, nuisance_on_them: 0, incoming_from_chain: 0 });
        }
        bot.plan(&v).expect("plan")
    };
    let plan = |config: &AiConfig| plan_in(config, false);
    let plain = with(2, 4, 1);
    let other = with(3, 6, 2);
    assert_ne!(plan(&plain), plan(&other), "the two searches should value this field differently");
    let late = |puyos| {
        let mut c = plain.clone();
        // The same extension keys as the plain look's: this test is about the futures and the beam.
        let detect_extend_keys = c.search.detect_extend_keys;
        c.search.late = LateLook { puyos, samples: 3, beam_width: 6, beam_depth: 2, stop_z: 0.0, detect_extend_keys };
        c
    };
    // The late look from its threshold on, the plain search below it; 0 turns it off.
    assert_eq!(plan(&late(13)), plan(&other));
    assert_eq!(plan(&late(12)), plan(&other));
    assert_eq!(plan(&late(14)), plan(&plain));
    assert_eq!(plan(&late(0)), plan(&plain));
    // Without sampled futures (emulator play's two-ply search) there is no late look either.
    let mut two_ply = late(1);
    two_ply.search.samples = 0;
    let mut two_ply_plain = plain.clone();
    two_ply_plain.search.samples = 0;
    assert_eq!(plan(&two_ply), plan(&two_ply_plain));
    // Nor in a battle: the late look shapes endless builds.
    assert_ne!(plan_in(&plain, true), plan_in(&other, true), "the two searches differ in battle too");
    assert_eq!(plan_in(&late(1), true), plan_in(&plain, true));
}

#[test]
fn play_outs_hold_a_fire_the_patience_rule_allows_when_waiting_fires_longer() {
    assert_eq!(two_now_three_next().count(), 18);
    let mut config = AiConfig::default();
    // 3 links wanted, one fewer on this field of 18 puyos: the 2-link the purple pair fires is allowed.
    config.ignition.min_chain = 3;
    config.ignition.patience_puyos = 10;
    config.ignition.patience_step = 8;
    config.ignition.wait_for_longer = false;
    config.ignition.playout_pairs = 4;
    // Every play-out starts with the known yellow-red pair, which fires the 3-link: with play-outs, wait.
    for playouts in [0, 4] {
        config.ignition.playouts = playouts;
        check_hold_for_the_next_pair(&config, playouts > 0);
    }
}

/// Checks every decision of the wrapped player against the timed movement of its piece.
struct ReachCheck<P> {
    inner: P,
    clock: puyobot::sim::Clock,
    decisions: usize,
    narrowed: usize,
}

impl<P: Player> Player for ReachCheck<P> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn choose(&mut self, view: &View<'_>) -> puyobot::sim::Decision {
        use puyobot::game::movegen::{MoveRules, generate, same_outcome};
        let d = self.inner.choose(view);
        let start = PiecePosition::spawn(view.rules);
        let timed = MoveRules { timing: Some(self.clock.timing_for(view.pieces_played)), ..MoveRules::default() };
        let reach = generate(view.field, view.current, start, &timed);
        let m = reach.iter().find(|m| same_outcome(view.current, m.placement, d.placement));
        let m = m.unwrap_or_else(|| panic!("piece {}: {} is not reachable in time", view.pieces_played, d.placement));
        assert_eq!(d.path, m.path, "piece {}: the decision's path is the timed one", view.pieces_played);
        if generate(view.field, view.current, start, &MoveRules::default()).len() > reach.len() {
            self.narrowed += 1;
        }
        self.decisions += 1;
        d
    }
}

#[test]
fn under_fast_gravity_the_bot_picks_only_placements_its_presses_reach_in_time() {
    use puyobot::game::{GravityCurve, LockDelay, Timing};
    use puyobot::sim::{Clock, UnderGravity};
    let mut config = AiConfig::default();
    config.search.samples = 0; // the current and next pair only: quick
    let clock =
        Clock { curve: GravityCurve::constant(2), timing: Timing { lock: LockDelay::None, ..Timing::spawned(2) } };
    let bot = Bot::new("chain", &config, 5).expect("bot");
    let mut check =
        ReachCheck { inner: UnderGravity::new(bot, config.search.moves, clock), clock, decisions: 0, narrowed: 0 };
    let rec = play_endless(&mut check, &mut RandomPieces::new(11, 4), &Rules::puyo1(), 40);
    assert_eq!(check.decisions, rec.moves.len() + rec.illegal_moves as usize);
    assert!(check.decisions >= 20, "{} decisions", check.decisions);
    assert!(check.narrowed > 0, "the clock left out some placements ({} decisions)", check.decisions);
}
