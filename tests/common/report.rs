//! Comparing headless JSON reports of runs that must play the same game.

use serde_json::Value;

/// The report without its timing figures (wall clock and CPU time), which differ from run to run.
pub fn without_timing(mut v: Value) -> Value {
    const TIMING: [&str; 7] =
        ["seconds", "fps", "realtime_factor", "bot_time_share", "bot_think_seconds", "cpu", "think_ms_total"];
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.retain(|k, _| !TIMING.contains(&k.as_str()));
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}
