//! Run summaries of `sim endless` and `sim battle`: per-game records, raw totals that merge exactly, and
//! the figures derived from them.
//!
//! A summary serialises to the JSON that `puyobot sim --json` prints. Every derived figure (means, rates,
//! intervals, the Gaussian fit) is computed from integer totals by [`EndlessSummary::build`] and
//! [`BattleSummary::build`], so shards merged with [`merge`] give the same bytes as one run. The one
//! exception is `timing`: it merges exactly (sums and bucket counts) but is measured, so two runs of the
//! same games never agree on it.

use serde::{Deserialize, Serialize};

use super::endless::{EndlessOutcome, MoveRecord};
use super::shard::Shard;
use super::stats::{Gaussian, Histogram, TimeHistogram, Timing, wilson};
use crate::game::Orientation;

/// Length from which a chain counts as "big" for the first-big-chain figures.
pub const BIG_CHAIN: u32 = 8;
/// First-big-chain length counted separately (the strength target's "12 links or more").
pub const LONG_CHAIN: u32 = 12;
/// Slots of the puyos-on-field histogram: every count a 6×14 field can hold.
pub const PUYO_SLOTS: usize = 85;
/// Slots of the chain-length histogram; longer chains (impossible on a 6×14 field) share the last.
pub const CHAIN_SLOTS: usize = 24;

/// How two runs' identities differ, key by key, e.g. `seed 2 here, 1 in file 1`.
fn run_difference<T: Serialize>(here: &T, first: &T) -> String {
    let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) =
        (serde_json::to_value(here), serde_json::to_value(first))
    else {
        return "the run settings differ".into();
    };
    let diffs: Vec<String> = a
        .iter()
        .filter(|(k, v)| b.get(*k) != Some(v))
        .map(|(k, v)| format!("{k} {v} here, {} in file 1", b.get(k).unwrap_or(&serde_json::Value::Null)))
        .collect();
    if diffs.is_empty() { "the run settings differ".into() } else { diffs.join("; ") }
}

fn spawn_up() -> Orientation {
    Orientation::Up
}

fn items_off() -> String {
    "off".into()
}

/// What identifies an endless run; shards of one run agree on all of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndlessRun {
    /// Bot name.
    pub ai: String,
    /// Run seed.
    pub seed: u64,
    /// Colours.
    pub colors: u8,
    /// The item dealt every `rules.items.interval` pieces: `off`, `big-puyo` or `carbuncle`
    /// (summaries written before items could be dealt read as `off`).
    #[serde(default = "items_off")]
    pub items: String,
    /// Where a new pair's child spawns (a second death cell unless up); summaries written before it was
    /// recorded read as `up`.
    #[serde(default = "spawn_up")]
    pub spawn: Orientation,
    /// Pieces per game asked for.
    pub pieces: usize,
    /// Index of the run's first game.
    pub first_game: usize,
    /// Games in the whole run (all shards).
    pub run_games: usize,
    /// Fingerprint of the bot configuration and queue the run used (CRC32), so slices of different runs
    /// do not merge.
    pub config_crc: u32,
    /// The game's clock the bot played on (`sim endless --frames-per-row`, `--gravity-curve`); absent:
    /// no time limit on its presses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

/// One endless game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EndlessGame {
    /// Game index.
    pub game: usize,
    /// Pieces placed.
    pub pairs: u64,
    /// Total score.
    pub score: u64,
    /// The first chain of [`BIG_CHAIN`]+ links: (length, 1-based pair index).
    pub first_big_chain: Option<(u32, u64)>,
    /// The longest chain.
    pub largest_chain: u32,
    /// Puyos on the field summed over the moves (mean = this / pairs).
    pub puyos_sum: u64,
    /// Most puyos on the field after a move.
    pub puyos_max: u32,
    /// Times the field was emptied.
    pub field_clears: u32,
    /// True when the game ended by topping out.
    pub topped_out: bool,
    /// Chains of [`BIG_CHAIN`]+ links fired.
    #[serde(default)]
    pub big_chains: u32,
    /// Puyos on the field when the game ended (built, never fired).
    #[serde(default)]
    pub final_puyos: u32,
}

impl EndlessGame {
    /// Score per placed piece.
    pub fn score_per_pair(&self) -> f64 {
        if self.pairs == 0 { 0.0 } else { self.score as f64 / self.pairs as f64 }
    }

    /// Mean puyos on the field after a move.
    pub fn puyos_mean(&self) -> f64 {
        if self.pairs == 0 { 0.0 } else { self.puyos_sum as f64 / self.pairs as f64 }
    }
}

/// Raw totals of endless games: counts, sums, maxima and histograms, which add up across games and shards.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EndlessTotals {
    /// Games.
    pub games: u64,
    /// Pieces placed.
    pub pairs: u64,
    /// Points.
    pub score: u64,
    /// Games that topped out.
    pub topouts: u64,
    /// Times the field was emptied.
    pub field_clears: u64,
    /// Games with a [`BIG_CHAIN`]+ chain.
    pub big_games: u64,
    /// Sum of the first big chains' lengths.
    pub big_length_sum: u64,
    /// Games whose first big chain has [`LONG_CHAIN`]+ links.
    pub big_long: u64,
    /// Sum of the first big chains' 1-based pair indices.
    pub big_pair_sum: u64,
    /// Longest chain.
    pub largest_chain: u32,
    /// Sum of each game's longest chain.
    pub largest_chain_sum: u64,
    /// Chains fired by length (index = length).
    pub chains: Histogram,
    /// Moves by puyos on the field after the move (index = puyos).
    pub puyos: Histogram,
    /// How efficiently the big chains were built (every chain of [`BIG_CHAIN`]+ links, not only the first).
    #[serde(default)]
    pub big: BigChainTotals,
    /// Puyos on the field at the end of each game, summed.
    #[serde(default)]
    pub final_puyos: u64,
}

/// Sums over every chain of [`BIG_CHAIN`]+ links: what it cost in puyos and what it left. A chain of `n`
/// links needs at least `4n` puyos; the rest of the field is what stopped it from being longer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BigChainTotals {
    /// Chains.
    pub chains: u64,
    /// Their links.
    pub links: u64,
    /// Puyos they popped.
    pub popped: u64,
    /// Puyos on the field when they fired (the firing piece included).
    pub at_fire: u64,
    /// Puyos left on the field after them.
    pub left: u64,
}

impl BigChainTotals {
    /// Counts one chain of `links` links that popped `popped` puyos and left `left`.
    pub fn add(&mut self, links: u32, popped: u32, left: u32) {
        self.chains += 1;
        self.links += links as u64;
        self.popped += popped as u64;
        self.at_fire += (popped + left) as u64;
        self.left += left as u64;
    }

    /// Adds another set of sums.
    pub fn merge(&mut self, o: &BigChainTotals) {
        self.chains += o.chains;
        self.links += o.links;
        self.popped += o.popped;
        self.at_fire += o.at_fire;
        self.left += o.left;
    }
}

impl Default for EndlessTotals {
    fn default() -> Self {
        EndlessTotals {
            games: 0,
            pairs: 0,
            score: 0,
            topouts: 0,
            field_clears: 0,
            big_games: 0,
            big_length_sum: 0,
            big_long: 0,
            big_pair_sum: 0,
            largest_chain: 0,
            largest_chain_sum: 0,
            chains: Histogram::new(CHAIN_SLOTS),
            puyos: Histogram::new(PUYO_SLOTS),
            big: BigChainTotals::default(),
            final_puyos: 0,
        }
    }
}

impl EndlessTotals {
    /// Adds another set of totals.
    pub fn merge(&mut self, o: &EndlessTotals) -> Result<(), String> {
        self.games += o.games;
        self.pairs += o.pairs;
        self.score += o.score;
        self.topouts += o.topouts;
        self.field_clears += o.field_clears;
        self.big_games += o.big_games;
        self.big_length_sum += o.big_length_sum;
        self.big_long += o.big_long;
        self.big_pair_sum += o.big_pair_sum;
        self.largest_chain = self.largest_chain.max(o.largest_chain);
        self.largest_chain_sum += o.largest_chain_sum;
        self.big.merge(&o.big);
        self.final_puyos += o.final_puyos;
        self.chains.merge(&o.chains).map_err(|e| format!("chain histogram: {e}"))?;
        self.puyos.merge(&o.puyos).map_err(|e| format!("puyo histogram: {e}"))
    }
}

/// Accumulates one endless game move by move, in constant memory.
#[derive(Clone, Debug)]
pub struct EndlessTally {
    game: EndlessGame,
    totals: EndlessTotals,
    timing: Timing,
}

/// What a finished game contributes to a run.
#[derive(Clone, Debug)]
pub struct EndlessGameResult {
    /// The game's own record.
    pub game: EndlessGame,
    /// Its totals.
    pub totals: EndlessTotals,
    /// Its think times.
    pub timing: Timing,
}

impl EndlessTally {
    /// An empty tally for game `game`.
    pub fn new(game: usize) -> EndlessTally {
        EndlessTally {
            game: EndlessGame {
                game,
                pairs: 0,
                score: 0,
                first_big_chain: None,
                largest_chain: 0,
                puyos_sum: 0,
                puyos_max: 0,
                field_clears: 0,
                topped_out: false,
                big_chains: 0,
                final_puyos: 0,
            },
            totals: EndlessTotals::default(),
            timing: Timing::new(),
        }
    }

    /// Counts one move.
    pub fn observe(&mut self, m: &MoveRecord) {
        let g = &mut self.game;
        g.pairs += 1;
        g.score += m.score as u64;
        if m.chain > 0 {
            self.totals.chains.add(m.chain as usize);
            g.largest_chain = g.largest_chain.max(m.chain);
        }
        if m.chain >= BIG_CHAIN {
            g.big_chains += 1;
            self.totals.big.add(m.chain, m.cleared, m.puyos);
            if g.first_big_chain.is_none() {
                g.first_big_chain = Some((m.chain, g.pairs));
            }
        }
        g.puyos_sum += m.puyos as u64;
        g.puyos_max = g.puyos_max.max(m.puyos);
        g.final_puyos = m.puyos;
        self.totals.puyos.add(m.puyos as usize);
        self.timing.add_move(m.think_us);
    }

    /// Closes the game with the loop's outcome and the player's CPU time (the sum, and per move).
    pub fn finish(
        mut self,
        outcome: &EndlessOutcome,
        cpu_ns: Option<u64>,
        cpu_histogram: TimeHistogram,
    ) -> EndlessGameResult {
        let g = &mut self.game;
        g.topped_out = outcome.topped_out;
        g.field_clears = outcome.field_clears;
        let t = &mut self.totals;
        t.games = 1;
        t.pairs = g.pairs;
        t.score = g.score;
        t.topouts = g.topped_out as u64;
        t.field_clears = g.field_clears as u64;
        if let Some((len, at)) = g.first_big_chain {
            t.big_games = 1;
            t.big_length_sum = len as u64;
            t.big_long = (len >= LONG_CHAIN) as u64;
            t.big_pair_sum = at;
        }
        t.largest_chain = g.largest_chain;
        t.largest_chain_sum = g.largest_chain as u64;
        t.final_puyos = g.final_puyos as u64;
        self.timing.cpu_ns = cpu_ns;
        self.timing.cpu_histogram = cpu_histogram;
        EndlessGameResult { game: self.game, totals: self.totals, timing: self.timing }
    }
}

/// Think-time figures derived from [`Timing`], with the raw aggregates for merging.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimingReport {
    /// How the per-move figures were measured (`wall`: around each decision, on the playing thread).
    pub clock: String,
    /// Mean per move (ms).
    pub ms_per_move_mean: f64,
    /// Median per move (ms, to about 4 %).
    pub ms_per_move_median: f64,
    /// 95th percentile per move (ms, to about 4 %).
    pub ms_per_move_p95: f64,
    /// Thread CPU time per move averaged over the run (ms), when the platform reports it.
    pub cpu_ms_per_move_mean: Option<f64>,
    /// Median thread CPU time per move (ms, to about 4 %), when the platform reports it for every move.
    pub cpu_ms_per_move_median: Option<f64>,
    /// 95th percentile of the thread CPU time per move (ms, to about 4 %), likewise.
    pub cpu_ms_per_move_p95: Option<f64>,
    /// The raw aggregates.
    pub raw: Timing,
}

impl TimingReport {
    /// Derives the figures from `raw`.
    pub fn new(raw: Timing) -> TimingReport {
        TimingReport {
            clock: "wall".into(),
            ms_per_move_mean: raw.mean_ms(),
            ms_per_move_median: raw.quantile_ms(0.5),
            ms_per_move_p95: raw.quantile_ms(0.95),
            cpu_ms_per_move_mean: raw.cpu_mean_ms(),
            cpu_ms_per_move_median: raw.cpu_quantile_ms(0.5),
            cpu_ms_per_move_p95: raw.cpu_quantile_ms(0.95),
            raw,
        }
    }
}

/// The figures of an endless run (or of one shard of it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EndlessSummary {
    /// Always `endless`.
    pub mode: String,
    /// What identifies the run.
    #[serde(flatten)]
    pub run: EndlessRun,
    /// The slice this summary covers; absent for the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Games in this summary.
    pub games: u64,
    /// Games that topped out.
    pub topouts: u64,
    /// Mean score per game.
    pub score_mean: f64,
    /// Score per pair over all games.
    pub score_per_pair: f64,
    /// Fraction of games with a chain of [`BIG_CHAIN`]+ links.
    pub first_big_chain_rate: f64,
    /// Mean length of the first big chain, over games that have one.
    pub first_big_chain_mean: f64,
    /// Fraction of all games whose first big chain has [`LONG_CHAIN`]+ links.
    pub first_big_chain_ge12: f64,
    /// Mean pair index of the first big chain, over games that have one.
    pub first_big_chain_pair_mean: f64,
    /// The longest chain.
    pub largest_chain: u32,
    /// Mean of each game's longest chain.
    pub largest_chain_mean: f64,
    /// Chains fired by length (index = length, up to the longest).
    pub chain_histogram: Vec<u64>,
    /// Moves by puyos on the field (index = puyos, up to the most).
    pub puyos_histogram: Vec<u64>,
    /// Puyos on the field: the Gaussian fitted to the histogram (its mean is the mean over moves).
    pub puyos_fit: Gaussian,
    /// Most puyos on the field.
    pub puyos_max: u32,
    /// Field clears.
    pub field_clears: u64,
    /// Chains of [`BIG_CHAIN`]+ links per game.
    #[serde(default)]
    pub big_chains_per_game: f64,
    /// Their mean length.
    #[serde(default)]
    pub big_chain_links_mean: f64,
    /// Puyos they popped per link (4 is the least a link can pop).
    #[serde(default)]
    pub big_chain_popped_per_link: f64,
    /// Mean puyos on the field when one fired.
    #[serde(default)]
    pub big_chain_at_fire_mean: f64,
    /// Mean puyos one left on the field.
    #[serde(default)]
    pub big_chain_left_mean: f64,
    /// Mean puyos on the field at the end of a game: built and never fired.
    #[serde(default)]
    pub final_puyos_mean: f64,
    /// Think time per move.
    pub timing: TimingReport,
    /// The raw totals everything above is derived from.
    pub totals: EndlessTotals,
    /// Per-game figures, by game index.
    pub runs: Vec<EndlessGame>,
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

impl EndlessSummary {
    /// Derives the summary from the run's identity, its totals, timing and per-game records.
    pub fn build(
        run: EndlessRun,
        shard: Option<Shard>,
        totals: EndlessTotals,
        timing: Timing,
        runs: Vec<EndlessGame>,
    ) -> EndlessSummary {
        let t = &totals;
        EndlessSummary {
            mode: "endless".into(),
            run,
            shard: shard.filter(|s| !s.is_whole()),
            games: t.games,
            topouts: t.topouts,
            score_mean: ratio(t.score, t.games),
            score_per_pair: ratio(t.score, t.pairs),
            first_big_chain_rate: ratio(t.big_games, t.games),
            first_big_chain_mean: ratio(t.big_length_sum, t.big_games),
            first_big_chain_ge12: ratio(t.big_long, t.games),
            first_big_chain_pair_mean: ratio(t.big_pair_sum, t.big_games),
            largest_chain: t.largest_chain,
            largest_chain_mean: ratio(t.largest_chain_sum, t.games),
            chain_histogram: t.chains.trimmed().to_vec(),
            puyos_histogram: t.puyos.trimmed().to_vec(),
            puyos_fit: t.puyos.gaussian(),
            puyos_max: t.puyos.max_value().unwrap_or(0) as u32,
            field_clears: t.field_clears,
            big_chains_per_game: ratio(t.big.chains, t.games),
            big_chain_links_mean: ratio(t.big.links, t.big.chains),
            big_chain_popped_per_link: ratio(t.big.popped, t.big.links),
            big_chain_at_fire_mean: ratio(t.big.at_fire, t.big.chains),
            big_chain_left_mean: ratio(t.big.left, t.big.chains),
            final_puyos_mean: ratio(t.final_puyos, t.games),
            timing: TimingReport::new(timing),
            totals,
            runs,
        }
    }

    /// Combines the games of `results` (any order) into a summary.
    pub fn from_results(
        run: EndlessRun,
        shard: Option<Shard>,
        results: Vec<EndlessGameResult>,
    ) -> Result<EndlessSummary, String> {
        let mut totals = EndlessTotals::default();
        let mut timing = Timing::new();
        let mut runs = Vec::with_capacity(results.len());
        for r in results {
            totals.merge(&r.totals)?;
            timing.merge(&r.timing);
            runs.push(r.game);
        }
        runs.sort_by_key(|g| g.game);
        Ok(EndlessSummary::build(run, shard, totals, timing, runs))
    }
}

/// What identifies a battle run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BattleRun {
    /// Player 1's bot.
    pub p1: String,
    /// Player 2's bot.
    pub p2: String,
    /// Run seed.
    pub seed: u64,
    /// Colours.
    pub colors: u8,
    /// The item dealt to both players every `rules.items.interval` pieces: `off`, `big-puyo` or
    /// `carbuncle` (summaries written before items could be dealt read as `off`).
    #[serde(default = "items_off")]
    pub items: String,
    /// Pieces per side before a game is called a draw.
    pub max_pieces: usize,
    /// Index of the run's first game.
    pub first_game: usize,
    /// Games in the whole run (all shards).
    pub run_games: usize,
    /// Fingerprint of the bot configuration (CRC32).
    pub config_crc: u32,
    /// The rules the battles were played under (absent in runs made before they could change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<BattleRules>,
}

/// The 2P rules a battle run was played under, as its flags set them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BattleRules {
    /// Most nuisance one chain sends (`None`: no cap).
    pub nuisance_cap: Option<u32>,
    /// Most nuisance that falls at once.
    pub nuisance_drop: u32,
    /// Points per nuisance puyo.
    pub nuisance_points: u32,
    /// What nuisance finding its column full does: `vanish` or `requeue`.
    pub nuisance_overflow: String,
}

impl BattleRules {
    /// The 2P part of `rules`.
    pub fn of(rules: &crate::game::Rules) -> BattleRules {
        BattleRules {
            nuisance_cap: rules.nuisance_cap_per_chain,
            nuisance_drop: rules.nuisance_max_drop,
            nuisance_points: rules.nuisance_rate,
            nuisance_overflow: rules.nuisance_overflow.name().into(),
        }
    }
}

/// One player's attacks over a battle run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AttackFigures {
    /// Nuisance sent per piece placed.
    pub nuisance_per_piece: f64,
    /// Chains that sent nuisance, per game.
    pub attacks_per_game: f64,
    /// Share of those that sent the cap or the opponent's lethal dose, whichever is less.
    pub full_attack_share: f64,
    /// Mean pieces placed before the first such attack, over the games that had one.
    pub pieces_to_first_full_attack: f64,
    /// Games with at least one such attack.
    pub games_with_full_attack: u64,
}

impl AttackFigures {
    /// Side `s`'s figures over `runs`.
    pub fn of(runs: &[BattleGame], s: usize) -> AttackFigures {
        let sum = |f: &dyn Fn(&BattleGame) -> u64| runs.iter().map(f).sum::<u64>();
        let sent = sum(&|r| r.nuisance_sent[s] as u64);
        let pieces = sum(&|r| r.pieces[s] as u64);
        let attacks = sum(&|r| r.attacks[s] as u64);
        let full = sum(&|r| r.full_attacks[s] as u64);
        let firsts: Vec<u64> = runs.iter().filter_map(|r| r.first_full_attack[s].map(u64::from)).collect();
        AttackFigures {
            nuisance_per_piece: ratio(sent, pieces),
            attacks_per_game: ratio(attacks, runs.len() as u64),
            full_attack_share: ratio(full, attacks),
            pieces_to_first_full_attack: ratio(firsts.iter().sum(), firsts.len() as u64),
            games_with_full_attack: firsts.len() as u64,
        }
    }
}

/// One battle.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BattleGame {
    /// Game index.
    pub game: usize,
    /// 1 or 2 for the winner, 0 for a draw.
    pub winner: u8,
    /// Frames played.
    pub frames: u64,
    /// Pieces placed by each side.
    pub pieces: [u32; 2],
    /// Longest chain of each side.
    pub largest_chain: [u32; 2],
    /// Nuisance sent by each side.
    pub nuisance_sent: [u32; 2],
    /// Chains of each side that sent nuisance.
    #[serde(default)]
    pub attacks: [u32; 2],
    /// Of those, the ones that sent the cap or the opponent's lethal dose, whichever is less.
    #[serde(default)]
    pub full_attacks: [u32; 2],
    /// Pieces each side had placed at its first such attack.
    #[serde(default)]
    pub first_full_attack: [Option<u32>; 2],
    /// A draw: how each side stood at the end, and why neither finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<BattleDraw>,
}

/// Why a battle was drawn: both sides placed the pieces of the run (`max_pieces`) and neither topped out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BattleDraw {
    /// Rows left between each side's stack and its spawn cell at the end.
    pub rows_left: [u32; 2],
    /// Nuisance on each side's field at the end.
    pub nuisance_on_field: [u32; 2],
    /// In words: the pieces played, the nuisance each side sent and its largest chain, how each side stood.
    pub reason: String,
}

impl BattleDraw {
    /// The draw of `rec` under `rules`; `None` when a side topped out (a win, or both at once).
    pub fn of(rec: &crate::sim::BattleRecord, rules: &crate::game::Rules) -> Option<BattleDraw> {
        let [a, b] = &rec.sides;
        if rec.winner.is_some() || a.topped_out || b.topped_out {
            return None;
        }
        let rows = |s: &crate::sim::SideRecord| {
            crate::game::nuisance::lethal_dose(&s.final_field, rules) / crate::game::WIDTH as u32
        };
        let rows_left = [rows(a), rows(b)];
        let nuisance_on_field = [a.final_field.nuisance_count(), b.final_field.nuisance_count()];
        let reason = format!(
            "both sides placed {} pieces without topping out: P1 sent {} nuisance (largest chain {}), P2 sent {} \
             (largest chain {}); at the end P1 had {} rows left below its spawn cell with {} nuisance on its field, \
             P2 {} rows with {}",
            a.pieces.max(b.pieces),
            a.nuisance_sent,
            a.largest_chain(),
            b.nuisance_sent,
            b.largest_chain(),
            rows_left[0],
            nuisance_on_field[0],
            rows_left[1],
            nuisance_on_field[1]
        );
        Some(BattleDraw { rows_left, nuisance_on_field, reason })
    }
}

/// The figures of a battle run (or of one shard of it). The per-game records are the raw data: every
/// figure is derived from their integers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BattleSummary {
    /// Always `battle`.
    pub mode: String,
    /// What identifies the run.
    #[serde(flatten)]
    pub run: BattleRun,
    /// The slice this summary covers; absent for the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Games in this summary.
    pub games: u64,
    /// Wins of player 1.
    pub p1_wins: u64,
    /// Wins of player 2.
    pub p2_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Player 1's win rate with a 95 % Wilson interval: (rate, low, high).
    pub p1_win_rate: (f64, f64, f64),
    /// Player 2's win rate with a 95 % Wilson interval.
    pub p2_win_rate: (f64, f64, f64),
    /// Mean pieces per side per game.
    pub mean_pieces: f64,
    /// Mean frames per game.
    pub mean_frames: f64,
    /// Longest chain of each side.
    pub largest_chain: [u32; 2],
    /// Mean of each side's per-game longest chain.
    pub largest_chain_mean: [f64; 2],
    /// Each side's attacks.
    #[serde(default)]
    pub attack: [AttackFigures; 2],
    /// Per-game figures, by game index.
    pub runs: Vec<BattleGame>,
}

impl BattleSummary {
    /// Derives the summary from the per-game records (any order).
    pub fn build(run: BattleRun, shard: Option<Shard>, mut runs: Vec<BattleGame>) -> BattleSummary {
        runs.sort_by_key(|g| g.game);
        let n = runs.len() as u64;
        let p1_wins = runs.iter().filter(|r| r.winner == 1).count() as u64;
        let p2_wins = runs.iter().filter(|r| r.winner == 2).count() as u64;
        let pieces: u64 = runs.iter().map(|r| r.pieces[0] as u64 + r.pieces[1] as u64).sum();
        let frames: u64 = runs.iter().map(|r| r.frames).sum();
        let side_max = |s: usize| runs.iter().map(|r| r.largest_chain[s]).max().unwrap_or(0);
        let side_sum = |s: usize| runs.iter().map(|r| r.largest_chain[s] as u64).sum::<u64>();
        BattleSummary {
            mode: "battle".into(),
            run,
            shard: shard.filter(|s| !s.is_whole()),
            games: n,
            p1_wins,
            p2_wins,
            draws: n - p1_wins - p2_wins,
            p1_win_rate: wilson(p1_wins, n),
            p2_win_rate: wilson(p2_wins, n),
            mean_pieces: ratio(pieces, 2 * n),
            mean_frames: ratio(frames, n),
            largest_chain: [side_max(0), side_max(1)],
            largest_chain_mean: [ratio(side_sum(0), n), ratio(side_sum(1), n)],
            attack: [AttackFigures::of(&runs, 0), AttackFigures::of(&runs, 1)],
            runs,
        }
    }
}

/// A summary of either mode.
#[derive(Clone, Debug, PartialEq)]
pub enum Summary {
    /// `sim endless`.
    Endless(Box<EndlessSummary>),
    /// `sim battle`.
    Battle(Box<BattleSummary>),
}

impl Summary {
    /// Reads a summary from `sim --json` output.
    pub fn from_json(text: &str) -> Result<Summary, String> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        match v.get("mode").and_then(|m| m.as_str()) {
            Some("endless") => {
                serde_json::from_value(v).map(|s| Summary::Endless(Box::new(s))).map_err(|e| e.to_string())
            }
            Some("battle") => {
                serde_json::from_value(v).map(|s| Summary::Battle(Box::new(s))).map_err(|e| e.to_string())
            }
            other => Err(format!("key \"mode\": expected \"endless\" or \"battle\", found {other:?}")),
        }
    }

    /// The JSON `sim --json` prints.
    pub fn to_json(&self) -> String {
        // Serialising plain data with string keys cannot fail.
        match self {
            Summary::Endless(s) => serde_json::to_string(s.as_ref()),
            Summary::Battle(s) => serde_json::to_string(s.as_ref()),
        }
        .unwrap_or_default()
    }
}

/// Checks that the slices' shards are exactly `0/N … N-1/N` once each, and that their games are exactly
/// the run's.
fn check_slices(shards: &[Option<Shard>], games: &[usize], first: usize, run_games: usize) -> Result<(), String> {
    let n = match shards.first() {
        Some(Some(s)) => s.count,
        Some(None) if shards.len() == 1 => 1,
        Some(None) => return Err("a whole run cannot be merged with other files".into()),
        None => return Err("nothing to merge".into()),
    };
    let mut seen = vec![false; n];
    for s in shards {
        let s = s.unwrap_or(Shard::WHOLE);
        if s.count != n {
            return Err(format!("shard {s} does not belong to a run split in {n}"));
        }
        if std::mem::replace(&mut seen[s.index], true) {
            return Err(format!("shard {s} is given twice"));
        }
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        return Err(format!("shard {i}/{n} is missing"));
    }
    let want: Vec<usize> = (first..first + run_games).collect();
    if games != want.as_slice() {
        return Err(format!("the slices hold {} games, the run has {run_games} (from game {first})", games.len()));
    }
    Ok(())
}

/// Merges the slices of one run into the summary the whole run gives. The slices must come from the same
/// run (same identity) and cover every shard once.
pub fn merge(parts: Vec<Summary>) -> Result<Summary, String> {
    match parts.first() {
        None => Err("nothing to merge".into()),
        Some(Summary::Endless(first)) => {
            let run = first.run.clone();
            let mut shards = Vec::new();
            let mut totals = EndlessTotals::default();
            let mut timing = Timing::new();
            let mut runs = Vec::new();
            for (i, p) in parts.into_iter().enumerate() {
                let Summary::Endless(p) = p else { return Err(format!("file {}: a battle among endless runs", i + 1)) };
                if p.run != run {
                    return Err(format!("file {}: from another run ({})", i + 1, run_difference(&p.run, &run)));
                }
                shards.push(p.shard);
                totals.merge(&p.totals).map_err(|e| format!("file {}: {e}", i + 1))?;
                timing.merge(&p.timing.raw);
                runs.extend(p.runs);
            }
            runs.sort_by_key(|g| g.game);
            let games: Vec<usize> = runs.iter().map(|g| g.game).collect();
            check_slices(&shards, &games, run.first_game, run.run_games)?;
            Ok(Summary::Endless(Box::new(EndlessSummary::build(run, None, totals, timing, runs))))
        }
        Some(Summary::Battle(first)) => {
            let run = first.run.clone();
            let mut shards = Vec::new();
            let mut runs = Vec::new();
            for (i, p) in parts.into_iter().enumerate() {
                let Summary::Battle(p) = p else { return Err(format!("file {}: an endless run among battles", i + 1)) };
                if p.run != run {
                    return Err(format!("file {}: from another run ({})", i + 1, run_difference(&p.run, &run)));
                }
                shards.push(p.shard);
                runs.extend(p.runs);
            }
            runs.sort_by_key(|g| g.game);
            let games: Vec<usize> = runs.iter().map(|g| g.game).collect();
            check_slices(&shards, &games, run.first_game, run.run_games)?;
            Ok(Summary::Battle(Box::new(BattleSummary::build(run, None, runs))))
        }
    }
}

/// Plays one endless game of up to `n` pieces with `player` and tallies it as game `game`, in constant
/// memory, with the player's CPU time; the player's error when it could not choose.
pub fn play_endless_tallied<P: super::Player>(
    player: P,
    pieces: &mut dyn super::PieceSource,
    rules: &crate::game::Rules,
    n: usize,
    game: usize,
) -> Result<EndlessGameResult, crate::game::PlayerError> {
    let mut timed = super::stats::CpuTimed::new(player);
    let mut tally = EndlessTally::new(game);
    let mut outcome = super::endless::play_endless_streaming(&mut timed, pieces, rules, n, &mut |m| tally.observe(m));
    if let Some(e) = outcome.error.take() {
        return Err(e);
    }
    Ok(tally.finish(&outcome, timed.cpu_ns, timed.cpu_histogram))
}

#[cfg(test)]
mod draw_tests {
    use super::BattleDraw;
    use crate::game::{Field, Rules};
    use crate::sim::{BattleRecord, SideRecord};

    #[test]
    fn a_drawn_battle_says_what_each_side_sent_and_how_it_stood_and_a_won_one_has_no_draw() {
        let rules = Rules::puyo1();
        let side = |sent: u32, chains: Vec<u32>, field: Field| SideRecord {
            pieces: 500,
            chains,
            nuisance_sent: sent,
            final_field: field,
            ..SideRecord::default()
        };
        let high = Field::from_rows(&["..R...", "..G...", "..B...", "..R...", "..G...", "OOBOOO"]);
        let rec = BattleRecord {
            winner: None,
            sides: [side(120, vec![2, 9], Field::new()), side(80, vec![7], high)],
            ..BattleRecord::default()
        };
        let d = BattleDraw::of(&rec, &rules).expect("a draw");
        assert_eq!((d.rows_left, d.nuisance_on_field), ([13, 7], [0, 5]));
        assert_eq!(
            d.reason,
            "both sides placed 500 pieces without topping out: P1 sent 120 nuisance (largest chain 9), P2 sent 80 \
             (largest chain 7); at the end P1 had 13 rows left below its spawn cell with 0 nuisance on its field, P2 \
             7 rows with 5"
        );
        let mut won = rec.clone();
        won.winner = Some(0);
        won.sides[1].topped_out = true;
        assert_eq!(BattleDraw::of(&won, &rules), None);
    }
}
