//! Rules-core speed: drop + resolve of a pair on mid-game fields, and a long chain.

use criterion::{Criterion, criterion_group, criterion_main};
use puyobot::game::{Color, Field, Orientation, Pair, Piece, Placement, Rules, text};
use puyobot::sim::{PieceSource, RandomPieces};
use std::hint::black_box;

/// Mid-game fields of about 40 puyos, built by random legal play that avoids popping.
fn midgame_fields() -> Vec<Field> {
    let rules = Rules::puyo1();
    let mut out = Vec::new();
    for seed in 0..16 {
        let mut src = RandomPieces::new(seed, 4);
        let mut f = Field::new();
        let mut i = 0;
        while f.count() < 40 && i < 400 {
            if let Piece::Pair(p) = src.piece(i) {
                let x = (i * 7 + seed as usize) % 6 + 1;
                let o = Orientation::ALL[(i / 3) % 4];
                let mut g = f;
                if g.play(Piece::Pair(p), Placement::new(x as u8, o), &rules).is_ok() && !g.is_game_over(&rules) {
                    f = g;
                }
            }
            i += 1;
        }
        out.push(f);
    }
    out
}

fn all_pairs() -> Vec<(Pair, Placement)> {
    let mut v = Vec::new();
    for a in 0..4 {
        for b in 0..4 {
            for x in 1..=6u8 {
                for o in Orientation::ALL {
                    let p = Placement::new(x, o);
                    if (1..=6).contains(&p.child_x()) {
                        v.push((Pair::new(Color::ALL[a], Color::ALL[b]), p));
                    }
                }
            }
        }
    }
    v
}

fn bench(c: &mut Criterion) {
    let rules = Rules::puyo1();
    let fields = midgame_fields();
    let moves = all_pairs();
    let mean: f64 = fields.iter().map(|f| f.count() as f64).sum::<f64>() / fields.len() as f64;
    eprintln!("mid-game fields: {} with {mean:.1} puyos on average", fields.len());
    // One iteration = every field × every pair/placement, so the figure is per (drop + resolve).
    let per_iter = (fields.len() * moves.len()) as u64;
    let mut g = c.benchmark_group("drop_resolve");
    g.throughput(criterion::Throughput::Elements(per_iter));
    g.bench_function("pair_on_40_puyo_field", |bch| {
        bch.iter(|| {
            let mut chains = 0;
            for f in &fields {
                for &(pair, p) in &moves {
                    let mut g = *f;
                    if let Ok(s) = g.play(Piece::Pair(pair), p, &rules) {
                        chains += s.chains;
                    }
                }
            }
            black_box(chains)
        })
    });
    g.finish();

    let long = long_chain_field();
    let mut probe = long;
    let s = probe.resolve(&rules);
    eprintln!("long chain fixture: {} links", s.chains);
    c.bench_function(&format!("resolve_{}_chain", s.chains), |bch| {
        bch.iter(|| {
            let mut f = black_box(long);
            black_box(f.resolve(&rules))
        })
    });
}

fn long_chain_field() -> Field {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fields/long12.txt");
    let fallback = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fields/stairs4.txt");
    let text = std::fs::read_to_string(path).or_else(|_| std::fs::read_to_string(fallback)).unwrap_or_default();
    text::parse_field(&text).unwrap_or_default()
}

criterion_group!(benches, bench);
criterion_main!(benches);
