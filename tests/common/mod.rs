pub mod calib;
pub mod contract;
pub mod labcart;
pub mod model;
pub mod report;
pub mod tools;
pub mod xvfb;

/// `puyobot play --headless --fast --mode ai-vs-ai --speed 10 --config /dev/null --json ARGS…` on the
/// built-in test cartridge: the pinned settings of the match tests (no configuration file, full speed,
/// the two-ply search), with the run's own flags in `args`.
pub fn ai_vs_ai(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args([
            "play",
            "--headless",
            "--fast",
            "--mode",
            "ai-vs-ai",
            "--speed",
            "10",
            "--config",
            "/dev/null",
            "--json",
        ])
        .args(args)
        .output()
        .expect("the puyobot binary runs")
}
