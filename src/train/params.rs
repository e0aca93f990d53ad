//! An evaluation's weights as a plain vector: the numeric (float) fields of its `[ai.<name>]` table,
//! read and written through the configuration's TOML form, so the trainer needs to know nothing of the
//! evaluation's internals. Float arrays contribute one parameter per element (`name[i]`); integers,
//! strings and booleans are structural choices and stay as configured.

use crate::ai::AiConfig;

/// The trainable parameters of one evaluation, and the configuration they sit in.
#[derive(Clone, Debug)]
pub struct ParamSpace {
    eval: String,
    names: Vec<String>,
    base: toml::Value,
    start: Vec<f64>,
}

/// Where one parameter lives in the table.
enum Slot<'a> {
    Field(&'a str),
    Element(&'a str, usize),
}

fn slot(name: &str) -> Slot<'_> {
    if let Some((key, rest)) = name.split_once('[')
        && let Some(i) = rest.strip_suffix(']').and_then(|i| i.parse().ok())
    {
        return Slot::Element(key, i);
    }
    Slot::Field(name)
}

impl ParamSpace {
    /// The float fields of `[ai.<eval>]` in `config` (all of them, or only those named in `only`).
    pub fn new(config: &AiConfig, eval: &str, only: &[String]) -> Result<ParamSpace, String> {
        let base = toml::Value::try_from(config).map_err(|e| format!("cannot read the [ai] configuration: {e}"))?;
        let Some(table) = base.get(eval).and_then(|t| t.as_table()) else {
            let known: Vec<&String> = base.as_table().map(|t| t.keys().collect()).unwrap_or_default();
            let known: Vec<&str> = known.iter().map(|k| k.as_str()).collect();
            return Err(format!("[ai.{eval}]: no such table (tables: {})", known.join(", ")));
        };
        let mut names = Vec::new();
        let mut start = Vec::new();
        for (key, value) in table {
            match value {
                toml::Value::Float(f) => {
                    names.push(key.clone());
                    start.push(*f);
                }
                toml::Value::Array(a) if !a.is_empty() && a.iter().all(|x| x.is_float()) => {
                    for (i, x) in a.iter().enumerate() {
                        names.push(format!("{key}[{i}]"));
                        start.push(x.as_float().unwrap_or(0.0));
                    }
                }
                _ => {}
            }
        }
        if !only.is_empty() {
            for o in only {
                if !names.contains(o) {
                    return Err(format!("[ai.{eval}] has no float parameter {o:?} (it has: {})", names.join(", ")));
                }
            }
            let keep: Vec<(String, f64)> = names.into_iter().zip(start).filter(|(n, _)| only.contains(n)).collect();
            (names, start) = keep.into_iter().unzip();
        }
        if names.is_empty() {
            return Err(format!("[ai.{eval}] has no float parameters to train"));
        }
        Ok(ParamSpace { eval: eval.to_string(), names, base, start })
    }

    /// The evaluation's name.
    pub fn eval(&self) -> &str {
        &self.eval
    }

    /// Parameter names, in vector order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The configured values, in vector order.
    pub fn start(&self) -> &[f64] {
        &self.start
    }

    fn table_with(&self, w: &[f64]) -> Result<toml::Value, String> {
        if w.len() != self.names.len() {
            return Err(format!("{} weights for {} parameters", w.len(), self.names.len()));
        }
        let mut table = self.base.get(&self.eval).cloned().ok_or("the evaluation's table vanished")?;
        for (name, &x) in self.names.iter().zip(w) {
            if !x.is_finite() {
                return Err(format!("[ai.{}] {name} = {x} is not a finite number", self.eval));
            }
            let cell = match slot(name) {
                Slot::Field(k) => table.get_mut(k),
                Slot::Element(k, i) => table.get_mut(k).and_then(|a| a.get_mut(i)),
            };
            *cell.ok_or(format!("[ai.{}] lost parameter {name}", self.eval))? = toml::Value::Float(x);
        }
        Ok(table)
    }

    /// The whole configuration with the evaluation's parameters set to `w`.
    pub fn config(&self, w: &[f64]) -> Result<AiConfig, String> {
        let mut v = self.base.clone();
        let table = self.table_with(w)?;
        if let Some(root) = v.as_table_mut() {
            root.insert(self.eval.clone(), table);
        }
        v.try_into().map_err(|e| format!("[ai.{}] with trained weights is rejected: {e}", self.eval))
    }

    /// The `[ai.<eval>]` table with `w`, ready to paste into a profile file (`--profile FILE`).
    pub fn snippet(&self, w: &[f64]) -> Result<String, String> {
        let table = self.table_with(w)?;
        let body = toml::to_string(&table).map_err(|e| format!("cannot write [ai.{}]: {e}", self.eval))?;
        Ok(format!("[ai.{}]\n{body}", self.eval))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_weights_round_trip_through_the_vector() {
        let config = AiConfig::default();
        let p = ParamSpace::new(&config, "classic", &[]).expect("classic has weights");
        assert_eq!(p.names().len(), 7);
        let doubled: Vec<f64> = p.start().iter().map(|x| x * 2.0).collect();
        let c = p.config(&doubled).expect("valid");
        let again = ParamSpace::new(&c, "classic", &[]).expect("still valid");
        assert_eq!(again.start(), doubled.as_slice());
        assert!(p.snippet(&doubled).expect("snippet").starts_with("[ai.classic]\n"));
        assert!(ParamSpace::new(&config, "nosuch", &[]).is_err());
        assert!(ParamSpace::new(&config, "classic", &["nosuch".into()]).is_err());
    }

    #[test]
    fn float_arrays_give_one_parameter_per_element() {
        let p = ParamSpace::new(&AiConfig::default(), "chain", &[]).expect("chain has weights");
        assert!(p.names().iter().any(|n| n == "shape_offsets[0]"));
        assert!(!p.names().iter().any(|n| n == "detect_keys"), "integers are not trained");
        let w: Vec<f64> = p.start().iter().map(|x| x + 1.0).collect();
        let again = ParamSpace::new(&p.config(&w).expect("valid"), "chain", &[]).expect("valid");
        assert_eq!(again.start(), w.as_slice());
    }
}
