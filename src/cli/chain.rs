//! `puyobot chain FIELD_FILE [--json]`: resolve a field file to rest and report the chain.

use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;

use super::args::{JsonArg, worded};
use crate::game::{Field, Rules, text};

/// Arguments of `puyobot chain`.
#[derive(Debug, clap::Args)]
#[command(mut_args(worded(&[("json", r#"Print JSON: {"chains", "score", "cleared", "field": [14 rows]}"#)])))]
pub struct ChainArgs {
    /// Field file: one line per row, top to bottom, 6 characters (`.` empty, `O` nuisance,
    /// `R G B Y P L` colours); fewer than 14 lines fill the bottom rows; `#` starts a comment line.
    pub field_file: PathBuf,
    /// `--json`.
    #[command(flatten)]
    pub output: JsonArg,
}

/// The JSON report of `puyobot chain`.
#[derive(Debug, Serialize)]
pub struct ChainReport {
    /// Chain length.
    pub chains: u32,
    /// Total score (Puyo 1 table).
    pub score: u32,
    /// Puyos cleared, nuisance included.
    pub cleared: u32,
    /// Final field, 14 rows top to bottom.
    pub field: Vec<String>,
}

/// Runs the command, printing to stdout.
pub fn run(args: &ChainArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.field_file)
        .with_context(|| format!("cannot read field file {}", args.field_file.display()))?;
    let mut field = text::parse_field(&text).with_context(|| format!("in field file {}", args.field_file.display()))?;
    let (report, steps) = resolve_report(&mut field);
    if args.output.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        for s in &steps {
            let groups: Vec<String> = s.groups.iter().map(|(c, n)| format!("{}×{}", n, c.letter())).collect();
            println!(
                "step {:>2}: popped {:>2} (+{} nuisance), {} colour(s), groups [{}], score {}",
                s.step,
                s.popped,
                s.nuisance_popped,
                s.colors,
                groups.join(", "),
                s.score
            );
        }
        println!("chains: {}  score: {}  cleared: {}", report.chains, report.score, report.cleared);
        for row in &report.field {
            println!("{row}");
        }
    }
    Ok(())
}

/// Applies gravity, resolves, and builds the report and per-step details.
pub fn resolve_report(field: &mut Field) -> (ChainReport, Vec<crate::game::ChainStep>) {
    let rules = Rules::puyo1();
    field.apply_gravity();
    let (summary, steps) = field.resolve_steps(&rules);
    let report =
        ChainReport { chains: summary.chains, score: summary.score, cleared: summary.cleared, field: field.rows() };
    (report, steps)
}
