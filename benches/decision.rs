//! One full decision per evaluation on typical mid-game fields (reached by self-play from fixed seeds).

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use puyobot::ai::{AiConfig, Bot};
use puyobot::game::{Field, Piece, Rules};
use puyobot::sim::{PieceSource, Player, RandomPieces, View};

/// Fields after `n` pieces of the chain bot, with the pieces to place next.
fn mid_game_fields(n: usize) -> Vec<(Field, Piece, Piece)> {
    let rules = Rules::puyo1();
    (0..4u64)
        .map(|seed| {
            let mut pieces = RandomPieces::new(seed, 4);
            let mut bot = Bot::new("chain", &AiConfig::default(), seed).expect("chain bot");
            let mut field = Field::new();
            for i in 0..n {
                let (current, next) = (pieces.piece(i), pieces.piece(i + 1));
                let view = View {
                    field: &field,
                    current,
                    next,
                    nuisance_on_me: 0,
                    revealed: &[],
                    opponent: None,
                    rules: &rules,
                    pieces_played: i as u32,
                    pieces_left: None,
                    caution: false,
                };
                let d = bot.choose(&view);
                let _ = field.play(current, d.placement, &rules);
            }
            (field, pieces.piece(n), pieces.piece(n + 1))
        })
        .collect()
}

fn decision(c: &mut Criterion) {
    let rules = Rules::puyo1();
    let fields = mid_game_fields(25);
    for name in ["classic", "chain"] {
        c.bench_function(&format!("decision/{name}/mid_game"), |b| {
            let mut k = 0;
            // A fresh bot per decision: a bot asked the same position again would answer from its field
            // cache, which no game does (a game's cache hits are in `puyobot sim`'s figures).
            b.iter_batched(
                || Bot::new(name, &AiConfig::default(), 7).expect("bot"),
                |mut bot| {
                    let (field, current, next) = &fields[k % fields.len()];
                    k += 1;
                    let view = View {
                        field,
                        current: *current,
                        next: *next,
                        nuisance_on_me: 0,
                        revealed: &[],
                        opponent: None,
                        rules: &rules,
                        pieces_played: 25,
                        pieces_left: None,
                        caution: false,
                    };
                    bot.choose(&view)
                },
                BatchSize::SmallInput,
            )
        });
    }
}

criterion_group!(benches, decision);
criterion_main!(benches);
