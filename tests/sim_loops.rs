//! The simulator loops with a simple scripted player.

use puyobot::game::{Item, Orientation, Piece, Placement, Rules};
use puyobot::sim::{
    BattleTiming, Decision, Player, QueuePieces, RandomPieces, View, game_rng, play_battle, play_endless,
};

/// Puts every piece upright in the lowest column (leftmost on ties): a poor but legal player.
struct Lowest;

impl Player for Lowest {
    fn name(&self) -> &str {
        "lowest"
    }
    fn choose(&mut self, view: &View<'_>) -> Decision {
        let heights = view.field.heights();
        let max_x = if view.current == Piece::Item(Item::BigPuyo) { 5 } else { 6 };
        let x = (1..=max_x).min_by_key(|&x| (heights[x - 1], x)).unwrap_or(1);
        Decision::at(Placement::new(x as u8, Orientation::Up))
    }
}

/// Always stacks column 3: tops out fast.
struct Column3;

impl Player for Column3 {
    fn name(&self) -> &str {
        "column3"
    }
    fn choose(&mut self, _: &View<'_>) -> Decision {
        Decision::at(Placement::new(3, Orientation::Up))
    }
}

/// Chooses a placement outside the field.
struct Cheater;

impl Player for Cheater {
    fn name(&self) -> &str {
        "cheater"
    }
    fn choose(&mut self, _: &View<'_>) -> Decision {
        Decision::at(Placement::new(6, Orientation::Right))
    }
}

/// A player that plays a fixed list of placements in turn (the last one again when the list runs out).
struct Script(Vec<Placement>, usize);

impl Player for Script {
    fn name(&self) -> &str {
        "script"
    }
    fn choose(&mut self, _: &View<'_>) -> Decision {
        let p = self.0[self.1.min(self.0.len() - 1)];
        self.1 += 1;
        Decision::at(p)
    }
}

#[test]
fn endless_records_every_move_and_stops_at_top_out() {
    let rules = Rules::puyo1();
    let rec = play_endless(&mut Column3, &mut RandomPieces::new(1, 4), &rules, 100);
    assert!(rec.topped_out);
    assert!(rec.moves.len() <= 7, "column 3 holds 13 rows: at most 7 pairs, got {}", rec.moves.len());
    let rec = play_endless(&mut Lowest, &mut RandomPieces::new(1, 4), &rules, 20);
    assert_eq!(rec.moves.len(), 20);
    assert!(!rec.topped_out);
    assert_eq!(rec.moves.last().map(|m| m.puyos), Some(rec.final_field.count()));
    let fired = rec.moves.iter().any(|m| m.chain > 0);
    assert_eq!(fired, rec.final_field.count() < 40, "puyos leave the field only through chains");
    assert_eq!(fired, rec.score > 0);
}

#[test]
fn an_illegal_placement_ends_the_game() {
    let rules = Rules::puyo1();
    let rec = play_endless(&mut Cheater, &mut RandomPieces::new(1, 4), &rules, 10);
    assert_eq!(rec.illegal_moves, 1);
    assert!(rec.topped_out);
    assert!(rec.moves.is_empty());
}

#[test]
fn the_same_seed_gives_the_same_pieces_and_different_seeds_differ() {
    let mut a = RandomPieces::new(42, 4);
    let mut b = RandomPieces::new(42, 4);
    let mut c = RandomPieces::new(43, 4);
    use puyobot::sim::PieceSource;
    let pa: Vec<_> = (0..50).map(|i| a.piece(i)).collect();
    let pb: Vec<_> = (0..50).map(|i| b.piece(i)).collect();
    let pc: Vec<_> = (0..50).map(|i| c.piece(i)).collect();
    assert_eq!(pa, pb);
    assert_ne!(pa, pc);
    // Three colours means only colours 0..3 appear.
    let mut three = RandomPieces::new(5, 3);
    for i in 0..200 {
        if let Piece::Pair(p) = three.piece(i) {
            assert!(p.pivot.index() < 3 && p.child.index() < 3);
        }
    }
}

#[test]
fn items_come_at_their_interval() {
    use puyobot::sim::PieceSource;
    let mut src = RandomPieces::new(3, 4).with_item(Item::Carbuncle, 5);
    let items: Vec<usize> = (0..20).filter(|&i| matches!(src.piece(i), Piece::Item(_))).collect();
    assert_eq!(items, vec![4, 9, 14, 19]);
}

#[test]
fn a_queue_repeats_and_drives_endless() {
    let q = puyobot::game::text::parse_queue("RG\nBY\n").unwrap();
    let mut src = QueuePieces::new(q).unwrap();
    let rules = Rules::puyo1();
    let rec = play_endless(&mut Lowest, &mut src, &rules, 6);
    assert_eq!(rec.moves.len(), 6);
}

#[test]
fn battle_ends_with_the_stacker_losing_and_is_deterministic() {
    let rules = Rules::puyo1();
    let timing = BattleTiming::default();
    let run = |seed| {
        let mut rng = game_rng(seed, 0);
        play_battle([&mut Lowest, &mut Column3], &mut RandomPieces::new(seed, 4), &rules, &timing, 500, &mut rng)
    };
    let rec = run(9);
    assert_eq!(rec.winner, Some(0));
    assert!(rec.sides[1].topped_out);
    assert!(rec.frames > 0);
    let again = run(9);
    assert_eq!(again.frames, rec.frames);
    assert_eq!(again.sides[0].final_field, rec.sides[0].final_field);
}

#[test]
fn chains_send_nuisance_that_falls_on_the_opponent() {
    // Player 1 fires a 2-chain sandwich built from a fixed queue; player 2 only stacks on the left.
    let q = puyobot::game::text::parse_queue("RY\n").unwrap();
    let right1 = Placement::new(1, Orientation::Right);
    let up = |x| Placement::new(x, Orientation::Up);
    // Four horizontal RY pairs in columns 1-2: a red 4 and a yellow 4 pop together on piece 4:
    // 10 × 8 × (0 + 3) = 240 points = 3 nuisance (30 points carried).
    let mut p1 = Script(vec![right1, right1, right1, right1, up(5), up(5)], 0);
    let mut p2 = Script(vec![up(6), up(6), up(5), up(5), up(4), up(4)], 0);
    let rules = Rules::puyo1();
    let mut rng = game_rng(1, 0);
    let rec = play_battle(
        [&mut p1, &mut p2],
        &mut QueuePieces::new(q).unwrap(),
        &rules,
        &BattleTiming::default(),
        6,
        &mut rng,
    );
    assert_eq!(rec.sides[0].chains, vec![1]);
    assert_eq!(rec.sides[0].score, 240);
    assert_eq!(rec.sides[0].nuisance_sent, 3);
    assert_eq!(rec.sides[1].final_field.nuisance_count(), 3, "the attack landed before player 2's last piece");
    assert_eq!(rec.sides[0].final_field.nuisance_count(), 0);
    assert_eq!(rec.winner, None, "nobody tops out within 6 pieces");
}

#[test]
fn streaming_endless_matches_the_collected_record_and_forgets_dealt_pieces() {
    use puyobot::sim::{EndlessTally, PieceSource, play_endless_streaming};
    let rules = Rules::puyo1();
    let rec = play_endless(&mut Lowest, &mut RandomPieces::new(6, 4), &rules, 300);
    let mut tally = EndlessTally::new(0);
    let mut src = RandomPieces::new(6, 4);
    let out = play_endless_streaming(&mut Lowest, &mut src, &rules, 300, &mut |m| tally.observe(m));
    let r = tally.finish(&out, None, Default::default());
    assert_eq!(r.game.pairs as usize, rec.moves.len());
    assert_eq!(r.game.score, rec.score);
    assert_eq!(r.game.puyos_sum, rec.moves.iter().map(|m| m.puyos as u64).sum::<u64>());
    assert_eq!(r.totals.puyos.total(), rec.moves.len() as u64);
    assert_eq!(out.field_clears, rec.field_clears);
    // The window still deals the same sequence after forgetting.
    let mut fresh = RandomPieces::new(6, 4);
    let later = src.piece(out.pairs + 5);
    assert_eq!(later, fresh.piece(out.pairs + 5));
}

#[test]
fn each_move_records_the_puyos_its_chain_cleared() {
    let rules = Rules::puyo1();
    let rec = play_endless(&mut Lowest, &mut RandomPieces::new(11, 4), &rules, 300);
    let mut before = 0;
    let mut chains = 0;
    for m in &rec.moves {
        assert_eq!(before + 2, m.puyos + m.cleared, "a pair adds two puyos; a chain removes what it cleared");
        assert_eq!(m.cleared > 0, m.chain > 0);
        chains += (m.chain > 0) as u32;
        before = m.puyos;
    }
    assert!(chains > 0, "the lowest-column stacker pops something in 300 pairs");
}

#[test]
fn big_chains_are_summed_for_their_cost_and_leftovers() {
    use puyobot::sim::{EndlessOutcome, EndlessRun, EndlessSummary, EndlessTally, MoveRecord, Timing};
    let mv = |chain, puyos, cleared| MoveRecord { chain, score: 0, puyos, cleared, think_us: 0 };
    let mut tally = EndlessTally::new(0);
    // A 9-link chain fired with 50 puyos (41 popped, 9 left), a 3-link pop (not big), a 12-link chain fired
    // with 60 (50 popped, 10 left), and a game that ends with 14 puyos standing.
    for m in [mv(0, 48, 0), mv(9, 9, 41), mv(3, 0, 11), mv(0, 58, 0), mv(12, 10, 50), mv(0, 14, 0)] {
        tally.observe(&m);
    }
    let r = tally.finish(&EndlessOutcome::default(), None, Default::default());
    assert_eq!((r.game.big_chains, r.game.final_puyos), (2, 14));
    let run = EndlessRun {
        ai: "t".into(),
        seed: 0,
        colors: 4,
        items: "off".into(),
        spawn: puyobot::game::Orientation::Up,
        pieces: 6,
        first_game: 0,
        run_games: 1,
        config_crc: 0,
        clock: None,
    };
    let s = EndlessSummary::build(run, None, r.totals, Timing::new(), vec![r.game]);
    assert_eq!(s.big_chains_per_game, 2.0);
    assert_eq!(s.big_chain_links_mean, 10.5);
    assert_eq!(s.big_chain_popped_per_link, 91.0 / 21.0);
    assert_eq!(s.big_chain_at_fire_mean, 55.0);
    assert_eq!(s.big_chain_left_mean, 9.5);
    assert_eq!(s.final_puyos_mean, 14.0);
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "thread CPU time is read from /proc/thread-self/schedstat (Linux)")]
fn a_tallied_game_times_every_decision_in_cpu_time() {
    use puyobot::sim::{TimingReport, play_endless_tallied, thread_cpu_ns};
    assert!(thread_cpu_ns().is_some(), "this Linux reports no thread CPU time in /proc/thread-self/schedstat");
    /// Spends about 1 ms of CPU on every tenth decision and next to nothing on the others.
    struct Uneven(u32);
    impl Player for Uneven {
        fn name(&self) -> &str {
            "uneven"
        }
        fn choose(&mut self, view: &View<'_>) -> Decision {
            self.0 += 1;
            if self.0.is_multiple_of(10) {
                let start = thread_cpu_ns().unwrap_or(0);
                while thread_cpu_ns().is_some_and(|t| t < start + 1_000_000) {
                    std::hint::black_box(start);
                }
            }
            Lowest.choose(view)
        }
    }
    let rules = Rules::puyo1();
    let r =
        play_endless_tallied(Uneven(0), &mut RandomPieces::new(3, 4), &rules, 40, 0).expect("the bot always answers");
    assert_eq!(r.timing.cpu_histogram.total(), r.game.pairs, "one CPU time per decision");
    let report = TimingReport::new(r.timing);
    let (median, p95, mean) = (
        report.cpu_ms_per_move_median.expect("median"),
        report.cpu_ms_per_move_p95.expect("p95"),
        report.cpu_ms_per_move_mean.expect("mean"),
    );
    // One move in ten is expensive: the mean feels it, the median does not.
    assert!(median < 0.5, "median {median} ms");
    assert!(p95 >= 0.9, "p95 {p95} ms");
    assert!(mean > median, "mean {mean} ms, median {median} ms");
}

#[test]
fn strength_0_loses_to_strength_10_in_battle() {
    use puyobot::ai::{AiConfig, Level, StrengthBot};
    // Pinned settings: two-ply search (emulator play's), so the test stays quick; level 10 is that bot
    // unchanged, level 0 searches the current piece only and places nine moves in ten at random.
    let mut config = AiConfig::default();
    config.search.samples = 0;
    let rules = Rules::puyo1();
    let mut won = 0;
    for g in 0..4u64 {
        let mut full = StrengthBot::new("chain", &config, 10 + g, Level::FULL).unwrap();
        let mut weak = StrengthBot::new("chain", &config, 20 + g, Level::new(0).unwrap()).unwrap();
        let mut pieces = RandomPieces::new(g, 4);
        let mut rng = game_rng(7, g);
        // The full-strength bot plays both sides in turn.
        let (players, full_side): ([&mut dyn Player; 2], usize) =
            if g % 2 == 0 { ([&mut full, &mut weak], 0) } else { ([&mut weak, &mut full], 1) };
        let rec = play_battle(players, &mut pieces, &rules, &BattleTiming::default(), 500, &mut rng);
        if rec.winner == Some(full_side) {
            won += 1;
        }
    }
    assert_eq!(won, 4, "level 10 won {won} of 4 battles against level 0");
}

#[test]
fn the_nuisance_cap_flag_none_lets_a_chain_send_everything() {
    // The scripted 240-point pop of `chains_send_nuisance_that_falls_on_the_opponent` at 4 points a
    // nuisance: 60, which a cap of 30 clips and `--nuisance-cap none` sends whole.
    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        rules: puyobot::cli::rules_args::RulesArgs,
    }
    let sent = |flags: &[&str]| {
        let cli = <Cli as clap::Parser>::try_parse_from(std::iter::once("battle").chain(flags.iter().copied()))
            .expect("the flags parse");
        let rules = cli.rules.apply(Rules::puyo1());
        let q = puyobot::game::text::parse_queue("RY\n").unwrap();
        let right1 = Placement::new(1, Orientation::Right);
        let up = |x| Placement::new(x, Orientation::Up);
        let mut p1 = Script(vec![right1, right1, right1, right1, up(5), up(5)], 0);
        let mut p2 = Script(vec![up(6), up(6), up(5), up(5), up(4), up(4)], 0);
        let mut rng = game_rng(1, 0);
        let mut deal = QueuePieces::new(q).unwrap();
        let rec = play_battle([&mut p1, &mut p2], &mut deal, &rules, &BattleTiming::default(), 6, &mut rng);
        let s = &rec.sides[0];
        (s.nuisance_sent, s.attacks, s.full_attacks, s.first_full_attack)
    };
    assert_eq!(sent(&["--nuisance-points", "4"]), (30, 1, 1, Some(4)), "the cap clips 60 to 30: a full attack");
    let uncapped = sent(&["--nuisance-points", "4", "--nuisance-cap", "none"]);
    assert_eq!(uncapped.0, 60);
    assert_eq!(uncapped.2, 0, "60 is short of an empty field's lethal dose, and there is no cap");
}

#[test]
fn a_sim_battle_with_items_deals_each_side_the_item_every_sixteenth_piece() {
    use puyobot::sim::runner::{GamesError, battle_game};
    use std::sync::{Arc, Mutex};
    /// Plays as `Lowest` and writes down every piece it is dealt.
    struct Recorder(Arc<Mutex<Vec<Piece>>>);
    impl Player for Recorder {
        fn name(&self) -> &str {
            "recorder"
        }
        fn choose(&mut self, view: &View<'_>) -> Decision {
            self.0.lock().expect("not poisoned").push(view.current);
            Lowest.choose(view)
        }
    }
    let rules = Rules::puyo1();
    assert_eq!(rules.items.interval, 16, "the open cartridge deals every 16th piece as the item (ITEM_PERIOD_MASK)");
    for item in [Item::BigPuyo, Item::Carbuncle] {
        let dealt = [Arc::new(Mutex::new(Vec::new())), Arc::new(Mutex::new(Vec::new()))];
        let game = battle_game(0, 5, 4, Some(item), 120, &rules, |side, _| {
            Ok::<_, GamesError>(Recorder(Arc::clone(&dealt[side])))
        })
        .expect("the recorder always answers");
        for (side, pieces) in dealt.iter().enumerate() {
            let pieces = pieces.lock().expect("not poisoned");
            assert_eq!(pieces.len() as u32, game.pieces[side], "side {side} chose once per piece");
            assert!(pieces.len() >= 48, "side {side} played {} pieces: too few to see three items", pieces.len());
            for (i, p) in pieces.iter().enumerate() {
                let wanted = (i + 1) % 16 == 0;
                assert_eq!(*p == Piece::Item(item), wanted, "side {side}, piece {}: {p}", i + 1);
                assert!(wanted || matches!(p, Piece::Pair(_)), "side {side}, piece {}: {p}", i + 1);
            }
        }
    }
    // Off deals pairs only.
    let dealt = Arc::new(Mutex::new(Vec::new()));
    battle_game(0, 5, 4, None, 40, &rules, |_, _| Ok::<_, GamesError>(Recorder(Arc::clone(&dealt))))
        .expect("the recorder always answers");
    assert!(dealt.lock().expect("not poisoned").iter().all(|p| matches!(p, Piece::Pair(_))));
}
