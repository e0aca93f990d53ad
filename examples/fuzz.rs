//! Fuzzes puyobot's parsers and decoders with random and mutated input.
//!
//! ```text
//! cargo run --release --example fuzz -- --target T --cases N [--seed S] [--only K] [--max-seconds T]
//! ```
//!
//! Targets: `decoder`, `address-file`, `config`, `field-file`, `queue-file`, `rom`, `trace`. Inputs start
//! from the repository's real files. Each case runs under `catch_unwind`; a panic's message is recorded and its input written to `target/fuzz-failures/`. Case
//! K of seed S is made from its own RNG, so `--seed S --only K` replays exactly that case. The last line
//! printed is `N cases, P panics`; the exit status is 1 when P > 0.

#[path = "fuzz/mutate.rs"]
mod mutate;
#[path = "fuzz/targets.rs"]
mod targets;

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use rand::SeedableRng;

use mutate::FuzzRng;
use targets::{Case, Target};

/// Command line.
#[derive(Debug, Parser)]
#[command(about = "Fuzz puyobot's parsers and decoders")]
struct Args {
    /// What to fuzz: decoder, address-file, config, field-file, queue-file, rom, trace.
    #[arg(long)]
    target: String,
    /// Number of cases.
    #[arg(long, default_value_t = 10_000)]
    cases: u64,
    /// Seed of the run; case K of seed S is the same input on every machine.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run only case K of the seed (to replay a failure).
    #[arg(long)]
    only: Option<u64>,
    /// Stop after this many seconds even if fewer than `--cases` have run (cases 0..N-1 still run in
    /// order, so the run is the prefix of the full one; the summary gives the N reached).
    #[arg(long)]
    max_seconds: Option<u64>,
    /// Panics whose input is written to disk, at most (the count covers all of them).
    #[arg(long, default_value_t = 20)]
    keep: u64,
}

thread_local! {
    /// The message and location of the last panic on this thread, set by the silent hook.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replaces the default hook (which would print every caught panic) by one that records the message.
fn install_silent_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(non-string panic payload)".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{at}")));
    }));
}

/// The RNG of case `case` of run `seed`: independent of every other case.
fn case_rng(seed: u64, case: u64) -> FuzzRng {
    // splitmix64 of the pair, so neighbouring seeds and cases give unrelated streams.
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ case.wrapping_add(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    FuzzRng::seed_from_u64(z ^ (z >> 31))
}

/// Writes a failing case's parts to `dir`; returns the paths written.
fn save_failure(dir: &Path, target: &str, seed: u64, k: u64, case: &Case, message: &str) -> Vec<PathBuf> {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("fuzz: cannot create {}: {e}", dir.display());
        return Vec::new();
    }
    let stem = format!("{target}-s{seed}-c{k}");
    let mut written = Vec::new();
    for (suffix, bytes) in &case.parts {
        let path = dir.join(format!("{stem}{suffix}"));
        match std::fs::write(&path, bytes) {
            Ok(()) => written.push(path),
            Err(e) => eprintln!("fuzz: cannot write {}: {e}", path.display()),
        }
    }
    let info = format!("target {target}, seed {seed}, case {k}\ninput: {}\npanic: {message}\n", case.note);
    let path = dir.join(format!("{stem}.panic.txt"));
    if std::fs::write(&path, info).is_ok() {
        written.push(path);
    }
    written
}

fn main() -> ExitCode {
    let args = Args::parse();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target: Box<dyn Target> = match targets::by_name(&args.target, root) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    let failures_dir =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from).join("fuzz-failures");
    install_silent_hook();

    let range = match args.only {
        Some(k) => k..k + 1,
        None => 0..args.cases,
    };
    let start = Instant::now();
    let mut cases = 0u64;
    let mut panics = 0u64;
    let mut accepted = 0u64;
    let mut distinct: Vec<String> = Vec::new();
    let mut last_report = Instant::now();
    for k in range {
        // Long runs say how far they are every minute or so (on stderr; the last stdout line is the summary).
        if k % 4096 == 0 {
            let elapsed = start.elapsed().as_secs();
            if args.max_seconds.is_some_and(|m| elapsed >= m) {
                eprintln!("fuzz: stopped after {elapsed} s (--max-seconds)");
                break;
            }
            if last_report.elapsed().as_secs() >= 60 {
                last_report = Instant::now();
                eprintln!("fuzz: {k} cases, {panics} panics, {elapsed} s");
            }
        }
        cases += 1;
        let mut rng = case_rng(args.seed, k);
        let case = target.generate(&mut rng);
        if let Ok(ok) = catch_unwind(AssertUnwindSafe(|| target.run(&case))) {
            accepted += ok as u64;
            continue;
        }
        panics += 1;
        let message = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "(no message)".into());
        let first_line = message.lines().next().unwrap_or("").to_string();
        if panics <= args.keep {
            let files = save_failure(&failures_dir, &args.target, args.seed, k, &case, &message);
            let shown: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
            eprintln!("case {k} ({}): panic: {first_line}\n  input: {}", case.note, shown.join(", "));
            eprintln!(
                "  replay: cargo run --release --example fuzz -- --target {} --seed {} --only {k}",
                args.target, args.seed
            );
        }
        if !distinct.contains(&first_line) {
            distinct.push(first_line);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let rate = if secs > 0.0 { cases as f64 / secs } else { 0.0 };
    eprintln!(
        "fuzz: target {}, seed {}, {:.1} s ({:.0} cases/s), {accepted} inputs accepted by the parser, {} distinct \
         panic message(s)",
        args.target,
        args.seed,
        secs,
        rate,
        distinct.len()
    );
    for m in distinct.iter().take(10) {
        eprintln!("  {m}");
    }
    println!("{cases} cases, {panics} panics");
    if panics > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
