//! Statistics building blocks for self-play: fixed-size histograms that merge by adding, a Gaussian fit,
//! the Wilson interval, and think-time accounting (wall time per move and the thread's CPU time).
//!
//! Everything here is a raw aggregate (counts, sums, maxima) so that figures from separate runs, threads
//! or machines combine exactly; means and quantiles are derived from the aggregates at the end.

use serde::{Deserialize, Serialize};

use crate::game::player::{Decision, Player, View};

/// Counts of small non-negative integers (chain lengths, puyos on the field) in a fixed number of slots;
/// values past the last slot are counted in it. Adding two histograms is exact, so they merge across games
/// and shards, and memory does not grow with the number of samples.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<u64>", into = "Vec<u64>")]
pub struct Histogram {
    counts: Vec<u64>,
}

/// Slots of a histogram as read from JSON: at most this many, so a corrupt file cannot allocate much.
const MAX_SLOTS: usize = 4096;

impl TryFrom<Vec<u64>> for Histogram {
    type Error = String;
    fn try_from(counts: Vec<u64>) -> Result<Self, String> {
        if counts.is_empty() || counts.len() > MAX_SLOTS {
            return Err(format!("a histogram needs 1..={MAX_SLOTS} slots, found {}", counts.len()));
        }
        Ok(Histogram { counts })
    }
}

impl From<Histogram> for Vec<u64> {
    fn from(h: Histogram) -> Vec<u64> {
        h.counts
    }
}

impl Histogram {
    /// A histogram of the values `0..slots` (at least one slot; larger values land in the last).
    pub fn new(slots: usize) -> Histogram {
        Histogram { counts: vec![0; slots.max(1)] }
    }

    /// Counts one occurrence of `value`.
    pub fn add(&mut self, value: usize) {
        let last = self.counts.len() - 1;
        self.counts[value.min(last)] += 1;
    }

    /// Adds another histogram's counts. Both must have the same number of slots.
    pub fn merge(&mut self, other: &Histogram) -> Result<(), String> {
        if other.counts.len() != self.counts.len() {
            return Err(format!("histograms of {} and {} slots do not merge", self.counts.len(), other.counts.len()));
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        Ok(())
    }

    /// The counts, index = value.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The counts up to the largest value seen (empty when nothing was counted).
    pub fn trimmed(&self) -> &[u64] {
        let end = self.counts.iter().rposition(|&c| c > 0).map_or(0, |i| i + 1);
        &self.counts[..end]
    }

    /// Number of samples.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The largest value seen, if any.
    pub fn max_value(&self) -> Option<usize> {
        self.counts.iter().rposition(|&c| c > 0)
    }

    /// The Gaussian with this histogram's mean and standard deviation (the maximum-likelihood fit).
    pub fn gaussian(&self) -> Gaussian {
        let n = self.total();
        if n == 0 {
            return Gaussian { mean: 0.0, sd: 0.0 };
        }
        let n = n as f64;
        let mean = self.counts.iter().enumerate().map(|(x, &c)| x as f64 * c as f64).sum::<f64>() / n;
        let var = self.counts.iter().enumerate().map(|(x, &c)| (x as f64 - mean).powi(2) * c as f64).sum::<f64>() / n;
        Gaussian { mean, sd: var.sqrt() }
    }
}

/// A normal distribution fitted to a histogram.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gaussian {
    /// Mean.
    pub mean: f64,
    /// Standard deviation.
    pub sd: f64,
}

impl Gaussian {
    /// The density at `x`.
    pub fn density(&self, x: f64) -> f64 {
        if self.sd <= 0.0 {
            return if x == self.mean { 1.0 } else { 0.0 };
        }
        let z = (x - self.mean) / self.sd;
        (-0.5 * z * z).exp() / (self.sd * (2.0 * std::f64::consts::PI).sqrt())
    }

    /// log10 of P(X ≥ x): how rare reaching `x` is under the fit. Computed in log space so far tails
    /// (10^-80 and beyond) do not underflow.
    pub fn log10_tail(&self, x: f64) -> f64 {
        if self.sd <= 0.0 {
            return if x <= self.mean { 0.0 } else { f64::NEG_INFINITY };
        }
        let z = (x - self.mean) / (self.sd * std::f64::consts::SQRT_2);
        (ln_erfc(z) - std::f64::consts::LN_2) / std::f64::consts::LN_10
    }
}

/// ln erfc(z), with the Chebyshev fit of Numerical Recipes (`erfcc`, relative error < 1.2e-7 everywhere).
fn ln_erfc(z: f64) -> f64 {
    let a = z.abs();
    let t = 1.0 / (1.0 + 0.5 * a);
    let poly = -a * a - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let ln_pos = t.ln() + poly;
    if z >= 0.0 { ln_pos } else { (2.0 - ln_pos.exp()).ln() }
}

/// Wilson score interval at 95 % for `k` successes in `n` trials: (rate, low, high).
pub fn wilson(k: u64, n: u64) -> (f64, f64, f64) {
    if n == 0 {
        return (0.0, 0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let z = 1.96f64;
    let p = k / n;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    (p, (c - h).max(0.0), (c + h).min(1.0))
}

/// CPU time of the calling thread in nanoseconds, from `/proc/thread-self/schedstat` (Linux; `None`
/// elsewhere). Some kernels account it per scheduler tick, so it is only good summed over many moves.
pub fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// CPU time of this process (every thread, live or ended) in nanoseconds, from `/proc/self/stat` (Linux;
/// `None` elsewhere). The kernel counts it in ticks of 1/100 s (`USER_HZ`), so it is good for runs of
/// seconds, not for single frames.
pub fn process_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis start at 3.
    let rest = &s[s.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11); // field 14 is utime, 15 stime
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((utime + stime) * 10_000_000)
}

/// Sub-buckets per octave of [`TimeHistogram`]: a bucket spans 1/16 of an octave (≈ 4 %), and a quantile
/// is placed within its bucket by rank.
const SUB: u32 = 16;
/// Octaves covered above the exact range: up to 2^32 µs (over an hour per move).
const OCTAVES: u32 = 28;

/// Think times in microseconds on a log scale (exact below 16 µs, then 16 buckets per doubling), so
/// medians and percentiles come from a fixed-size, mergeable table instead of a list of every move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<(u32, u64)>", into = "Vec<(u32, u64)>")]
pub struct TimeHistogram {
    counts: Vec<u64>,
}

impl Default for TimeHistogram {
    fn default() -> Self {
        TimeHistogram { counts: vec![0; (SUB + OCTAVES * SUB) as usize] }
    }
}

// Stored sparse, as (bucket, count) pairs, because almost every bucket of a run is empty.
impl TryFrom<Vec<(u32, u64)>> for TimeHistogram {
    type Error = String;
    fn try_from(pairs: Vec<(u32, u64)>) -> Result<Self, String> {
        let mut h = TimeHistogram::default();
        let len = h.counts.len();
        for (i, c) in pairs {
            let slot = h.counts.get_mut(i as usize).ok_or(format!("time bucket {i} is past the last ({})", len - 1))?;
            *slot += c;
        }
        Ok(h)
    }
}

impl From<TimeHistogram> for Vec<(u32, u64)> {
    fn from(h: TimeHistogram) -> Self {
        h.counts.iter().enumerate().filter(|(_, c)| **c > 0).map(|(i, c)| (i as u32, *c)).collect()
    }
}

impl TimeHistogram {
    fn bucket(us: u64) -> usize {
        if us < SUB as u64 {
            return us as usize;
        }
        let e = 63 - us.leading_zeros(); // ≥ 4
        let sub = (us >> (e - 4)) & (SUB as u64 - 1);
        let i = SUB as u64 + (e as u64 - 4) * SUB as u64 + sub;
        (i as usize).min((SUB + OCTAVES * SUB) as usize - 1)
    }

    /// The lowest value of bucket `i` and its width, in microseconds.
    fn bounds(i: usize) -> (f64, f64) {
        if i < SUB as usize {
            return (i as f64, 1.0);
        }
        let e = (i - SUB as usize) / SUB as usize + 4;
        let sub = (i - SUB as usize) % SUB as usize;
        let lo = (1u64 << e) + ((sub as u64) << (e - 4));
        (lo as f64, (1u64 << (e - 4)) as f64)
    }

    /// Counts one think time.
    pub fn add(&mut self, us: u64) {
        self.counts[Self::bucket(us)] += 1;
    }

    /// Adds another table's counts.
    pub fn merge(&mut self, other: &TimeHistogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
    }

    /// Number of times counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The `q` quantile (0..=1) in microseconds; 0 when empty. Within its bucket the value is placed by
    /// its rank among the bucket's counts, as if they were spread evenly over it: a median that falls in
    /// a 2 ms bucket at 50 ms then reads to a fraction of that, not to the bucket's middle.
    pub fn quantile(&self, q: f64) -> f64 {
        let n = self.total();
        if n == 0 {
            return 0.0;
        }
        // The same rank rule as indexing a sorted list at ⌊q·n⌋.
        let rank = ((n as f64 * q) as u64).min(n - 1);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            if seen + c > rank {
                let (lo, width) = Self::bounds(i);
                if width <= 1.0 {
                    return lo; // the exact range: one value per bucket
                }
                return lo + width * ((rank - seen) as f64 + 0.5) / c as f64;
            }
            seen += c;
        }
        0.0
    }
}

/// Think-time aggregates of a run: mergeable, but measured, so they differ from run to run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Moves timed.
    pub moves: u64,
    /// Wall time summed over the moves, microseconds.
    pub think_us: u64,
    /// Wall time per move.
    pub think_histogram: TimeHistogram,
    /// Thread CPU time summed over the moves, nanoseconds (`None` when the platform does not report it).
    pub cpu_ns: Option<u64>,
    /// Thread CPU time per move, microseconds (empty when the platform does not report it). A search
    /// that spends more on some moves than on others is judged by its median move, not its mean.
    #[serde(default)]
    pub cpu_histogram: TimeHistogram,
}

impl Timing {
    /// Timing with nothing counted and CPU time available.
    pub fn new() -> Timing {
        Timing { cpu_ns: Some(0), ..Timing::default() }
    }

    /// Counts one move's wall time.
    pub fn add_move(&mut self, think_us: u64) {
        self.moves += 1;
        self.think_us += think_us;
        self.think_histogram.add(think_us);
    }

    /// Adds another run's timing; CPU time is known only when both know it.
    pub fn merge(&mut self, other: &Timing) {
        self.moves += other.moves;
        self.think_us += other.think_us;
        self.think_histogram.merge(&other.think_histogram);
        self.cpu_ns = self.cpu_ns.zip(other.cpu_ns).map(|(a, b)| a + b);
        self.cpu_histogram.merge(&other.cpu_histogram);
    }

    /// Mean wall time per move, ms.
    pub fn mean_ms(&self) -> f64 {
        if self.moves == 0 { 0.0 } else { self.think_us as f64 / self.moves as f64 / 1000.0 }
    }

    /// Quantile `q` of the wall time per move, ms.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        self.think_histogram.quantile(q) / 1000.0
    }

    /// Mean thread CPU time per move, ms.
    pub fn cpu_mean_ms(&self) -> Option<f64> {
        self.cpu_ns.map(|ns| ns as f64 / 1e6 / self.moves.max(1) as f64)
    }

    /// Quantile `q` of the thread CPU time per move, ms, when every move's was reported.
    pub fn cpu_quantile_ms(&self, q: f64) -> Option<f64> {
        let complete = self.cpu_ns.is_some() && self.cpu_histogram.total() == self.moves && self.moves > 0;
        complete.then(|| self.cpu_histogram.quantile(q) / 1000.0)
    }
}

/// A player wrapper that sums the thread CPU time of every decision (wall time per move comes from the
/// game loops' own [`super::MoveRecord`]).
pub struct CpuTimed<P> {
    /// The wrapped player.
    pub inner: P,
    /// CPU time spent deciding, nanoseconds; `None` once the platform failed to report it.
    pub cpu_ns: Option<u64>,
    /// CPU time of each decision, microseconds.
    pub cpu_histogram: TimeHistogram,
}

impl<P: Player> CpuTimed<P> {
    /// Wraps `inner` with a zero count.
    pub fn new(inner: P) -> CpuTimed<P> {
        CpuTimed { inner, cpu_ns: Some(0), cpu_histogram: TimeHistogram::default() }
    }

    /// Adds the thread CPU time since `before` (a decision's) to the count.
    fn count(&mut self, before: Option<u64>) {
        self.cpu_ns = match (self.cpu_ns, before, thread_cpu_ns()) {
            (Some(total), Some(a), Some(b)) => {
                let spent = b.saturating_sub(a);
                self.cpu_histogram.add(spent / 1000);
                Some(total + spent)
            }
            _ => None,
        };
    }
}

impl<P: Player> Player for CpuTimed<P> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn choose(&mut self, view: &View<'_>) -> Decision {
        let before = thread_cpu_ns();
        let d = self.inner.choose(view);
        self.count(before);
        d
    }

    fn try_choose(&mut self, view: &View<'_>) -> Result<Decision, crate::game::PlayerError> {
        let before = thread_cpu_ns();
        let d = self.inner.try_choose(view);
        self.count(before);
        d
    }

    fn placed(&mut self, placement: crate::game::Placement) {
        self.inner.placed(placement)
    }

    fn set_movement(&mut self, moves: crate::game::MoveRules) {
        self.inner.set_movement(moves)
    }
    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.inner.set_deadline(deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_cpu_time_counts_a_threads_work() {
        let (Some(before), Some(thread_start)) = (process_cpu_ns(), thread_cpu_ns()) else { return }; // not Linux
        // Spin for 100 ms of this thread's CPU time (however long a loaded machine takes to give it).
        let mut x = 1u64;
        while thread_cpu_ns().expect("readable twice") < thread_start + 100_000_000 {
            for _ in 0..10_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
        let after = process_cpu_ns().expect("readable twice");
        // Counted in 10 ms ticks on both ends.
        assert!(after >= before + 80_000_000, "{before} -> {after}");
    }

    #[test]
    fn cpu_median_comes_from_every_move_or_not_at_all() {
        let mut t = Timing::new();
        for (wall, cpu) in [(10, 1_000), (20, 2_000), (30, 40_000)] {
            t.add_move(wall);
            t.cpu_histogram.add(cpu);
        }
        t.cpu_ns = Some(43_000_000);
        let median = t.cpu_quantile_ms(0.5).expect("every move reported");
        assert!((median - 2.0).abs() < 0.1, "median {median} ms, not the mean's 14.3 ms");
        assert!(t.cpu_quantile_ms(0.95).expect("reported") > 38.0);
        // Merged with a run whose platform reported no CPU time, the figure is unknown, not wrong.
        let mut other = Timing::default();
        other.add_move(5);
        t.merge(&other);
        assert_eq!(t.cpu_quantile_ms(0.5), None);
    }

    #[test]
    fn histogram_merges_by_adding_and_clamps_to_the_last_slot() {
        let mut a = Histogram::new(4);
        a.add(1);
        a.add(9);
        let mut b = Histogram::new(4);
        b.add(1);
        a.merge(&b).expect("same size");
        assert_eq!(a.counts(), &[0, 2, 0, 1]);
        assert_eq!(a.max_value(), Some(3));
        assert!(a.merge(&Histogram::new(5)).is_err());
    }

    #[test]
    fn gaussian_fit_matches_moments_and_tails_are_sane() {
        let mut h = Histogram::new(10);
        for x in [2, 4, 4, 4, 5, 5, 7, 9] {
            h.add(x);
        }
        let g = h.gaussian();
        assert!((g.mean - 5.0).abs() < 1e-12);
        assert!((g.sd - 2.0).abs() < 1e-12);
        // P(X ≥ mean) = 1/2; P(X ≥ mean + 1.96 sd) ≈ 0.025; far tails stay finite.
        assert!((g.log10_tail(5.0) - 0.5f64.log10()).abs() < 1e-6);
        assert!((10f64.powf(g.log10_tail(5.0 + 1.96 * 2.0)) - 0.025).abs() < 1e-4);
        assert!((g.log10_tail(5.0 + 40.0 * 2.0) + 349.0).abs() < 2.0, "{}", g.log10_tail(85.0));
    }

    #[test]
    fn wilson_interval_contains_the_rate() {
        let (p, lo, hi) = wilson(95, 100);
        assert!(lo < p && p < hi && lo > 0.88 && hi < 0.98);
        assert_eq!(wilson(0, 0), (0.0, 0.0, 1.0));
    }

    #[test]
    fn a_quantile_is_placed_within_its_bucket_by_rank() {
        // Think times spread over tens of milliseconds, where a bucket is 2–4 ms wide: the bucket's middle
        // can be off by up to half of that; placed by rank, the median and the 95th percentile are off by
        // a small fraction of a bucket.
        let spreads: [(&str, Vec<u64>); 2] = [
            ("even over 20-100 ms", (0..10_000).map(|k| 20_000 + k * 8 + k % 7).collect()),
            ("skewed", (0..10_000u64).map(|k| 30_000 + k * k / 1_500).collect()),
        ];
        for (name, times) in spreads {
            let mut t = TimeHistogram::default();
            for &us in &times {
                t.add(us);
            }
            let mut sorted = times.clone();
            sorted.sort_unstable();
            for q in [0.5, 0.95] {
                let exact = sorted[(sorted.len() as f64 * q) as usize] as f64;
                let got = t.quantile(q);
                assert!((got - exact).abs() / exact < 0.002, "{name}, q {q}: {got} against {exact}");
            }
        }
        // Whatever the spread, a quantile stays within its bucket: one time reads as the bucket's
        // middle, and the exact range below 16 µs reads exactly.
        let mut one = TimeHistogram::default();
        one.add(50_000);
        assert_eq!(one.quantile(0.5), 49_152.0 + 1024.0);
        let mut small = TimeHistogram::default();
        small.add(7);
        assert_eq!(small.quantile(0.5), 7.0);
    }

    #[test]
    fn time_quantiles_are_within_a_bucket() {
        let mut t = TimeHistogram::default();
        for us in 1..=1000u64 {
            t.add(us * 100);
        }
        let median = t.quantile(0.5);
        assert!((median - 50_000.0).abs() / 50_000.0 < 0.05, "{median}");
        let back: TimeHistogram = TimeHistogram::try_from(Vec::<(u32, u64)>::from(t.clone())).expect("round trip");
        assert_eq!(back, t);
    }
}
