//! Survival of the `chain` bot when its build is stuck: a field full of junk with no chain worth
//! building on, played on with the emulator's search settings (no sampled futures in the main search).

use puyobot::ai::eval::{ChainEval, Evaluation, survival};
use puyobot::ai::{AiConfig, Bot};
use puyobot::game::{Color, Field, Pair, Piece, Rules};
use puyobot::sim::{PieceSource, Player, RandomPieces, View};

/// A field an emulator game reached on an open-cartridge build before it topped out: 68 puyos, no
/// potential chain longer than 2 links, the outer columns full to the hidden row.
const STUCK: [&str; 14] = [
    "B....Y", "Y...YY", "Y...GR", "R.Y.YY", "RYB.RY", "GYR.GG", "RBG.BG", "RBG.GY", "BRGBBB", "BGYRRR", "GGBYBB",
    "YYGYBY", "RGYGYY", "GGBBBR",
];

/// Plays `n` pieces of `seed`'s deal from `field`; the number of pieces placed before a top-out, or
/// `None` when all `n` were placed.
fn pieces_until_top_out(field: &Field, seed: u64, n: usize) -> Option<usize> {
    let rules = Rules::puyo1();
    let mut config = AiConfig::default();
    config.search.samples = 0; // emulator play's setting ([bots] samples = 0)
    let mut bot = Bot::new("chain", &config, seed).expect("the chain bot builds");
    let mut deal = RandomPieces::new(seed, 4);
    let mut field = *field;
    for i in 0..n {
        let view = View {
            field: &field,
            current: deal.piece(i),
            next: deal.piece(i + 1),
            nuisance_on_me: 0,
            revealed: &[],
            opponent: None,
            rules: &rules,
            pieces_played: 100 + i as u32,
            pieces_left: None,
            caution: false,
        };
        let decision = bot.choose(&view);
        if field.play(view.current, decision.placement, &rules).is_err() || field.is_game_over(&rules) {
            return Some(i);
        }
    }
    None
}

/// A pair of colours `a` and `b` (indices into `Color::ALL`).
fn pair(a: usize, b: usize) -> Piece {
    Piece::Pair(Pair::new(Color::ALL[a], Color::ALL[b]))
}

/// A `chain` bot for `seed`, with a copy of its evaluation to read potentials with.
fn chain_bot(config: &AiConfig, seed: u64) -> (Bot, ChainEval) {
    let bot = Bot::new("chain", config, seed).expect("the chain bot builds");
    let Evaluation::Chain(eval) = bot.evaluation().clone() else { panic!("the chain bot has the chain evaluation") };
    (bot, *eval)
}

#[test]
fn the_chain_bot_digs_out_of_a_stuck_field() {
    let field = Field::from_rows(&STUCK);
    assert_eq!(field.count(), 68);
    let outcomes: Vec<Option<usize>> = (1..=8).map(|seed| pieces_until_top_out(&field, seed, 40)).collect();
    let survived = outcomes.iter().filter(|o| o.is_none()).count();
    assert!(survived >= 7, "survived 40 pieces in {survived} of 8 deals: {outcomes:?}");
}

#[test]
fn survival_values_a_chain_one_key_away() {
    let rules = Rules::puyo1();
    // The same puyos and the same heights: on the left a green key in column 2 pops the greens and drops
    // the red onto the reds (a 2-chain that empties the field), on the right the same key pops only
    // the greens.
    let chain = Field::from_rows(&["R.....", "G.....", "G.....", "GRRR.."]);
    let none = Field::from_rows(&["B.....", "G.....", "G.....", "GRRY.."]);
    assert_eq!(chain.count(), none.count());
    assert_eq!(chain.heights(), none.heights());
    let (with, without) = (survival(&chain, &rules), survival(&none, &rules));
    assert!(with > without + 1.5, "a chain one key away: {with}, none: {without}");
}

/// A self-play field (seed 5353, game 52, before pair 30): 60 puyos, and as it stands no potential chain
/// longer than 3 links; but the red-blue pair in hand brings the key of a 13-link build back.
const KEY_IN_HAND: [&str; 14] = [
    "......", "B.....", "G.....", "YY....", "GBB..B", "GBG..R", "GYGBGR", "YRBGYB", "YGYGGB", "YRBBRB", "RRYGRR",
    "BBRGYB", "RYGYBB", "YYGGYY",
];

#[test]
fn a_build_whose_key_is_in_hand_is_not_stuck() {
    let rules = Rules::puyo1();
    let field = Field::from_rows(&KEY_IN_HAND);
    let config = AiConfig::default();
    assert_eq!(field.count(), config.ignition.stuck_puyos);
    for seed in 1..=4 {
        let (mut bot, eval) = chain_bot(&config, seed);
        assert!(eval.breakdown(&field, 0, &rules).potential_chains < config.ignition.stuck_chain);
        let view = View {
            field: &field,
            current: pair(0, 2),
            next: pair(1, 0),
            nuisance_on_me: 0,
            revealed: &[],
            opponent: None,
            rules: &rules,
            pieces_played: 30,
            pieces_left: Some(70),
            caution: false,
        };
        let decision = bot.choose(&view);
        let mut after = field;
        let popped = after.play(view.current, decision.placement, &rules).expect("a valid placement");
        let kept = eval.breakdown(&after, 0, &rules).potential_chains;
        // A survival move here popped a single link and left a 2-link potential.
        assert_eq!(popped.chains, 0, "seed {seed}: {} popped", decision.placement);
        assert!(kept >= 10, "seed {seed}: {} keeps a {kept}-link potential", decision.placement);
    }
}

/// A self-play field (seed 777, game 1, before pair 29): 58 puyos and a 14-link potential, but the
/// spawn column stands 11 high, so the field is in danger by height alone.
const TALL_SPAWN_COLUMN: [&str; 12] = [
    "G.....", "GGY...", "BBY...", "RYR..B", "RBGY.Y", "BBRRBG", "RRBBGG", "BYGRRR", "BYBGGB", "BRBBGR", "GGYYRG",
    "BRRRBG",
];

#[test]
fn a_big_build_rides_out_a_danger_that_is_only_height_when_told_to() {
    use puyobot::ai::ignition::in_danger;
    let rules = Rules::puyo1();
    let field = Field::from_rows(&TALL_SPAWN_COLUMN);
    let view = View {
        field: &field,
        current: pair(3, 1), // yellow-green
        next: pair(0, 3),    // red-yellow
        nuisance_on_me: 0,
        revealed: &[],
        opponent: None,
        rules: &rules,
        pieces_played: 29,
        pieces_left: Some(71),
        caution: false,
    };
    let mut config = AiConfig::default();
    assert!(field.count() < config.ignition.danger_puyos);
    assert!(in_danger(&field, 0, &rules, &config.ignition), "the spawn column is in the danger zone");
    for (keep, seed) in [(0, 1), (10, 1), (10, 2), (10, 3)] {
        config.ignition.danger_keep_chain = keep;
        let (mut bot, eval) = chain_bot(&config, seed);
        let decision = bot.choose(&view);
        let mut after = field;
        let popped = after.play(view.current, decision.placement, &rules).expect("a valid placement");
        assert!(!after.is_game_over(&rules), "keep {keep}, seed {seed}: {} tops out", decision.placement);
        let kept = eval.breakdown(&after, 0, &rules).potential_chains;
        if keep == 0 {
            // The survival search pops a single link and the build is gone.
            assert!(kept < 10, "keep 0: {} keeps a {kept}-link potential", decision.placement);
        } else {
            assert_eq!(popped.chains, 0, "keep {keep}, seed {seed}: {} pops", decision.placement);
            // The search may cover the trigger for one move when the known next pair uncovers it, so the
            // build is judged after the next move too: still standing, or fired whole.
            let second = View { field: &after, current: view.next, next: pair(1, 2), pieces_played: 30, ..view };
            let next_move = bot.choose(&second);
            let mut then = after;
            let fired = then.play(second.current, next_move.placement, &rules).expect("a valid placement");
            let kept_then = eval.breakdown(&then, 0, &rules).potential_chains;
            assert!(
                kept >= 12 || kept_then >= 12 || fired.chains >= 12,
                "keep {keep}, seed {seed}: {} keeps a {kept}-link potential, then {} a {kept_then}-link one \
                 ({} links fired)",
                decision.placement,
                next_move.placement,
                fired.chains
            );
        }
    }
}

/// A self-play field (seed 4321, game 2, before pair 35): 64 puyos and a 12-link potential. The chain
/// search's best placement covers the trigger for one move (its own field reads as a 1-link potential),
/// which the stuck rule took for a stuck build: the survival search then popped two links and left six.
const TRIGGER_COVERED_FOR_A_MOVE: [&str; 14] = [
    ".....R", "Y....G", "G....G", "G...BY", "GY..YG", "BGB.GG", "BRG.BB", "BGGYGB", "RBBYYG", "RYBRGG", "GYYRBR",
    "YRRYBB", "YGRGGG", "RGGBBB",
];

#[test]
fn a_build_the_best_placement_covers_for_a_move_is_not_stuck() {
    let rules = Rules::puyo1();
    let field = Field::from_rows(&TRIGGER_COVERED_FOR_A_MOVE);
    let config = AiConfig::default();
    assert!(field.count() >= config.ignition.stuck_puyos);
    for seed in 1..=4 {
        let (mut bot, eval) = chain_bot(&config, seed);
        assert!(eval.breakdown(&field, 0, &rules).potential_chains >= 12, "the build stands before the move");
        let view = View {
            field: &field,
            current: pair(1, 0), // green-red
            next: pair(0, 0),    // red-red
            nuisance_on_me: 0,
            revealed: &[],
            opponent: None,
            rules: &rules,
            pieces_played: 34,
            pieces_left: Some(66),
            caution: false,
        };
        let decision = bot.choose(&view);
        let mut after = field;
        let popped = after.play(view.current, decision.placement, &rules).expect("a valid placement");
        assert!(
            popped.chains == 0 || popped.chains >= 10,
            "seed {seed}: {} pops {} links",
            decision.placement,
            popped.chains
        );
        if popped.chains >= 10 {
            continue;
        }
        // Judged after the next move too: the build still stands, or it fired whole.
        let second = View { field: &after, current: view.next, next: pair(2, 3), pieces_played: 35, ..view };
        let next_move = bot.choose(&second);
        let mut then = after;
        let fired = then.play(second.current, next_move.placement, &rules).expect("a valid placement");
        let kept = eval.breakdown(&after, 0, &rules).potential_chains;
        let kept_then = eval.breakdown(&then, 0, &rules).potential_chains;
        assert!(
            kept >= 10 || kept_then >= 10 || fired.chains >= 10,
            "seed {seed}: {} keeps a {kept}-link potential, then {} a {kept_then}-link one ({} links fired)",
            decision.placement,
            next_move.placement,
            fired.chains
        );
    }
}

/// A self-play field (seed 10001, game 125, before pair 32): 64 puyos. Two pieces earlier the search
/// covered the green key of a 13-link build with a red pair, so the potential-chain detector reads at
/// most 4 links here, while the search's lines find a long chain again within their look-ahead. The stuck
/// rule took it for a stuck build and the survival search popped 3 links.
const TRIGGER_BURIED_FOR_A_PLAN: [&str; 14] = [
    "....GR", "....BB", "....RG", "G..GBB", "R..GBR", "G..RYB", "G..BRR", "GRBRYY", "YRBRBR", "GGYGGY", "GRBRRG",
    "YYRBRG", "YGBYGY", "BRRRYY",
];

/// The pairs that game dealt from pair 32 on (colour indices: red 0, green 1, blue 2, yellow 3).
const DEALT_FROM_32: [(usize, usize); 8] = [(2, 0), (3, 1), (1, 2), (3, 0), (1, 0), (1, 2), (1, 0), (2, 1)];

#[test]
fn a_build_the_search_finds_again_is_not_stuck() {
    let rules = Rules::puyo1();
    let start = Field::from_rows(&TRIGGER_BURIED_FOR_A_PLAN);
    for (percent, seed) in [(0, 1), (50, 1), (50, 2), (50, 3)] {
        let mut config = AiConfig::default();
        config.ignition.stuck_ahead_percent = percent;
        let (mut bot, eval) = chain_bot(&config, seed);
        assert!(start.count() >= config.ignition.stuck_puyos);
        assert!(eval.breakdown(&start, 0, &rules).potential_chains < config.ignition.stuck_chain);
        // Play the dealt pairs: the build is kept when it fires whole or still stands at the end.
        let mut field = start;
        let mut longest = 0;
        for i in 0..DEALT_FROM_32.len() - 1 {
            let (a, b) = DEALT_FROM_32[i];
            let (c, d) = DEALT_FROM_32[i + 1];
            let view = View {
                field: &field,
                current: pair(a, b),
                next: pair(c, d),
                nuisance_on_me: 0,
                revealed: &[],
                opponent: None,
                rules: &rules,
                pieces_played: 32 + i as u32,
                pieces_left: Some(68 - i as u32),
                caution: false,
            };
            let decision = bot.choose(&view);
            let popped = field.play(view.current, decision.placement, &rules).expect("a valid placement");
            assert!(!field.is_game_over(&rules), "percent {percent}, seed {seed}: piece {i} tops out");
            longest = longest.max(popped.chains);
        }
        let standing = eval.breakdown(&field, 0, &rules).potential_chains;
        let kept = longest >= 12 || standing >= 12;
        let outcome = format!("percent {percent}, seed {seed}: fired {longest} links, {standing} left standing");
        // Before, the survival search popped 3 links at once and the build was gone.
        assert_eq!(kept, percent > 0, "{outcome}");
    }
}
