//! The potential-chain detector's fast extension (one run of the trigger's chain, then per trial only a
//! check of where the extension keys join it) finds exactly what the plain one (every trial resolved
//! from the trigger) finds: the same chains, scores, keys and leftovers, in the same order.

use proptest::prelude::*;
use puyobot::ai::eval::potential::{DetectOptions, Potential, detect, detect_reference};
use puyobot::game::{Cell, Color, Field, Rules};

/// A random field: random columns (≤ `max_height` puyos) of `colors` colours and a little nuisance,
/// settled and resolved (the detector sees fields at rest).
fn arb_field(max_height: usize, colors: u8) -> impl Strategy<Value = Field> {
    proptest::collection::vec(proptest::collection::vec(0..=colors * 4, 0..=max_height), 6).prop_map(move |cols| {
        let rules = Rules::puyo1();
        let mut f = Field::new();
        for (x, col) in cols.iter().enumerate() {
            for &c in col {
                // One value in 4·colours + 1 is nuisance; the colours are equally likely.
                let cell =
                    if c == colors * 4 { Cell::Nuisance } else { Cell::Color(Color::ALL[(c % colors) as usize]) };
                f.drop_puyo(x + 1, cell);
            }
        }
        f.settle_and_resolve(&rules);
        f
    })
}

/// A detector: [`detect`] or [`detect_reference`] behind one signature.
type Detector = fn(&Field, &Rules, DetectOptions, &mut dyn FnMut(&Potential)) -> u32;

fn all_found(field: &Field, rules: &Rules, opts: DetectOptions, f: Detector) -> (u32, Vec<Potential>) {
    let mut found = Vec::new();
    let trials = f(field, rules, opts, &mut |p| found.push(*p));
    (trials, found)
}

fn fast(field: &Field, rules: &Rules, opts: DetectOptions, visit: &mut dyn FnMut(&Potential)) -> u32 {
    detect(field, rules, opts, visit)
}

fn plain(field: &Field, rules: &Rules, opts: DetectOptions, visit: &mut dyn FnMut(&Potential)) -> u32 {
    detect_reference(field, rules, opts, visit)
}

fn same(field: &Field, rules: &Rules, opts: DetectOptions) -> Result<usize, TestCaseError> {
    let (ta, a) = all_found(field, rules, opts, fast);
    let (tb, b) = all_found(field, rules, opts, plain);
    prop_assert_eq!(&a, &b, "field {:?} options {:?}", field, opts);
    prop_assert_eq!(ta, tb);
    Ok(a.len())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn the_fast_extension_finds_what_the_plain_one_finds(field in arb_field(11, 4), slack in 0u32..4) {
        let rules = Rules::puyo1();
        for depth in 1..=2 {
            same(&field, &rules, DetectOptions { max_keys: 3, extend_depth: depth, extend_slack: slack, ..DetectOptions::default() })?;
        }
        same(&field, &rules, DetectOptions { max_keys: 2, extend_depth: 1, extend_slack: u32::MAX, ..DetectOptions::default() })?;
        // One to three extension keys per column.
        for extend_keys in [1, 3] {
            same(&field, &rules, DetectOptions { max_keys: 3, extend_depth: 2, extend_slack: slack, extend_keys })?;
        }
        // A rule set whose hidden row takes part in groups checks the fast path's search cells.
        let hidden = Rules { hidden_row_pops: true, ..Rules::puyo1() };
        same(&field, &hidden, DetectOptions { max_keys: 3, extend_depth: 2, extend_slack: u32::MAX, ..DetectOptions::default() })?;
    }
}

#[test]
fn the_comparison_sees_extended_chains() {
    // The extension fixture of the detector's unit tests: an R key on column 2 pops the Rs, the G on top of
    // column 1 falls next to GG; a G key on column 3 makes that a second link. Both detectors must report
    // the extension, so the property above compares more than empty lists.
    let f = Field::from_rows(&["G.....", "R.....", "RG....", "RG...."]);
    let rules = Rules::puyo1();
    let opts = DetectOptions { max_keys: 3, extend_depth: 1, extend_slack: u32::MAX, ..DetectOptions::default() };
    let (_, a) = all_found(&f, &rules, opts, fast);
    let (_, b) = all_found(&f, &rules, opts, plain);
    assert_eq!(a, b);
    assert!(a.iter().any(|p| p.chains == 2 && p.keys == 2), "{a:?}");
}

#[test]
fn random_fields_with_extensions_agree() {
    // Seeded, so that the property above is known to reach extension trials often: among these fields,
    // many have chains that only an extension finds, and on all of them both detectors agree.
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
    let rules = Rules::puyo1();
    let opts = DetectOptions { max_keys: 3, extend_depth: 1, extend_slack: u32::MAX, ..DetectOptions::default() };
    let (mut fields, mut extended) = (0, 0);
    for _ in 0..300 {
        let mut f = Field::new();
        for x in 1..=6 {
            for _ in 0..rng.random_range(0..=10) {
                f.drop_puyo(x, Cell::Color(Color::ALL[rng.random_range(0..4)]));
            }
        }
        f.settle_and_resolve(&rules);
        let (_, a) = all_found(&f, &rules, opts, fast);
        let (_, b) = all_found(&f, &rules, opts, plain);
        assert_eq!(a, b, "{f:?}");
        let (_, plain_only) = all_found(&f, &rules, DetectOptions { extend_depth: 0, ..opts }, plain);
        fields += 1;
        extended += (a.len() > plain_only.len()) as u32;
    }
    assert!(extended * 5 >= fields, "only {extended} of {fields} fields had an extension");
}
