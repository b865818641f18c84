//! Maps between the 61 ARKit shapes and the curves of any rig (Character
//! Creator, Daz, a custom rig), in both directions: forward for `llv remap`
//! (curves from a take), reverse for `llv import` (a take from a rig's
//! animation). Two map formats:
//!
//! - LLV's mapping library JSON: `{"mapping": {ARKit: target}, "modifiers":
//!   {ARKit: weight}, "reverse": {target: ARKit}}`; any entry or section may
//!   be missing, and other top-level keys (LLV's library files carry a
//!   `"comment"`) are ignored, as LLV ignores them. Forward, `target =
//!   weight x ARKit` (weight 1 without a modifier). Reverse, `reverse` when
//!   the file has it, else the forward entries turned round; either way the
//!   shape's modifier is its weight.
//! - A CSV table `arkit,target,weight` (a header row optional, the weight
//!   column too, several rows per shape allowed). Reverse: each row turned
//!   round.
//!
//! Reverse, `ARKit = target / weight` by default, so `import` undoes `remap`;
//! [`Modifiers::Llv`] multiplies instead (`ARKit = weight x target`), as LLV
//! 1.4's `fbx` importer does. ARKit names and, in the reverse direction,
//! target names are matched ignoring case (`jawOpen`, `JawOpen`; LLV matches
//! `eye_turn_l` to `Eye_Turn_L`). Several shapes driving one target combine
//! (`--combine sum` or the largest signed value, `max`); a target that turns
//! round to several shapes cannot be imported and is an error naming it.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use llv_core::blendshape::NAMES;

use crate::edit::values::shape;
use crate::metahuman::pose_asset::{Pose, PoseAsset};
use crate::metahuman::retarget::{Combine, Retargeter};

/// One forward entry: ARKit shape `shape` drives `target` with `weight`.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The ARKit shape (packet order).
    pub shape: usize,
    /// The rig's curve or morph target.
    pub target: String,
    /// `target = weight * shape`.
    pub weight: f64,
}

/// A rig map in both directions.
#[derive(Clone, Debug, PartialEq)]
pub struct RigMap {
    /// The file it came from (for messages).
    pub name: String,
    /// Forward entries, in file order.
    pub forward: Vec<Entry>,
    /// Reverse entries, in file order: `shape = target / weight`.
    pub reverse: Vec<Entry>,
}

impl RigMap {
    /// Reads a map: `.csv` a table, anything else LLV's JSON (a file starting with `{`).
    pub fn load(path: &Path) -> Result<RigMap> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).with_context(|| format!("{name}: cannot read"))?;
        let is_csv = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
            || !text.trim_start().starts_with('{');
        if is_csv {
            RigMap::from_table(&name, &text)
        } else {
            RigMap::from_json(&name, &text)
        }
    }

    /// Reads LLV's mapping library JSON.
    pub fn from_json(name: &str, text: &str) -> Result<RigMap> {
        let Ordered(root): Ordered<Section> = serde_json::from_str(text).with_context(|| {
            format!("{name}: expected an object (\"mapping\", \"modifiers\", \"reverse\")")
        })?;
        let mut sections: HashMap<&str, Vec<(&String, &serde_json::Value)>> = HashMap::new();
        for (key, section) in &root {
            let known = ["mapping", "modifiers", "reverse"]
                .into_iter()
                .find(|k| k == key);
            // LLV reads only these three keys; anything else (a "comment") is the file's own.
            let Some(known) = known else { continue };
            let Section(Some(entries)) = section else {
                bail!("{name}: \"{key}\" is not an object");
            };
            sections
                .entry(known)
                .or_default()
                .extend(entries.iter().map(|(k, v)| (k, v)));
        }
        let section = |key: &str| -> Result<Vec<(&String, &serde_json::Value)>> {
            Ok(sections.get(key).cloned().unwrap_or_default())
        };
        let mut modifiers = HashMap::new();
        for (key, value) in section("modifiers")? {
            let s = shape(key).with_context(|| format!("{name}: \"modifiers\""))?;
            let w = value.as_f64().ok_or_else(|| {
                anyhow!("{name}: \"modifiers\": \"{key}\": {value} is not a number")
            })?;
            modifiers.insert(s, w);
        }
        let mut forward = Vec::new();
        for (key, value) in section("mapping")? {
            let s = shape(key).with_context(|| format!("{name}: \"mapping\""))?;
            let targets: Vec<&str> = match value {
                serde_json::Value::Null => Vec::new(),
                serde_json::Value::String(t) => vec![t.as_str()],
                serde_json::Value::Array(list) => list
                    .iter()
                    .map(|t| {
                        t.as_str().ok_or_else(|| {
                            anyhow!("{name}: \"mapping\": \"{key}\": {t} is not a target name")
                        })
                    })
                    .collect::<Result<_>>()?,
                other => bail!("{name}: \"mapping\": \"{key}\": {other} is not a target name"),
            };
            for target in targets.into_iter().filter(|t| !t.is_empty()) {
                forward.push(Entry {
                    shape: s,
                    target: target.to_string(),
                    weight: modifiers.get(&s).copied().unwrap_or(1.0),
                });
            }
        }
        let mut reverse = Vec::new();
        for (target, value) in section("reverse")? {
            let Some(arkit) = value.as_str() else {
                if value.is_null() {
                    continue;
                }
                bail!("{name}: \"reverse\": \"{target}\": {value} is not an ARKit shape name");
            };
            if target.is_empty() {
                continue;
            }
            let s = shape(arkit).with_context(|| format!("{name}: \"reverse\": \"{target}\""))?;
            reverse.push(Entry {
                shape: s,
                target: target.clone(),
                weight: modifiers.get(&s).copied().unwrap_or(1.0),
            });
        }
        if reverse.is_empty() {
            reverse = forward.clone();
        }
        Ok(RigMap {
            name: name.to_string(),
            forward,
            reverse,
        })
    }

    /// Reads a CSV table `arkit,target,weight`.
    pub fn from_table(name: &str, text: &str) -> Result<RigMap> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::All)
            .comment(Some(b'#'))
            .from_reader(text.as_bytes());
        let mut forward = Vec::new();
        for (row, record) in reader.records().enumerate() {
            let record = record.with_context(|| format!("{name}: row {}", row + 1))?;
            let line = record.position().map_or(row as u64 + 1, |p| p.line());
            let at = |what: String| anyhow!("{name}: line {line}: {what}");
            let field = |i: usize| record.get(i).unwrap_or("");
            if row == 0 && field(0).eq_ignore_ascii_case("arkit") {
                continue;
            }
            if record.iter().all(str::is_empty) {
                continue;
            }
            if !(2..=3).contains(&record.len()) {
                return Err(at(format!(
                    "{} columns, expected arkit,target[,weight]",
                    record.len()
                )));
            }
            let s = shape(field(0)).map_err(|e| at(e.to_string()))?;
            let target = field(1);
            if target.is_empty() {
                return Err(at("no target name".into()));
            }
            let weight = match field(2) {
                "" => 1.0,
                w => w
                    .parse::<f64>()
                    .ok()
                    .filter(|w| w.is_finite())
                    .ok_or_else(|| at(format!("weight `{w}` is not a number")))?,
            };
            forward.push(Entry {
                shape: s,
                target: target.to_string(),
                weight,
            });
        }
        if forward.is_empty() {
            bail!("{name}: no rows (arkit,target,weight)");
        }
        Ok(RigMap {
            name: name.to_string(),
            reverse: forward.clone(),
            forward,
        })
    }

    /// The targets in order of first appearance.
    pub fn targets(&self) -> Vec<String> {
        let mut targets: Vec<String> = Vec::new();
        for e in &self.forward {
            if !targets.contains(&e.target) {
                targets.push(e.target.clone());
            }
        }
        targets
    }

    /// The forward map as a pose asset (one pose per shape, rest 0), so `llv
    /// remap` computes and writes curves exactly as `llv retarget` does.
    pub fn pose_asset(&self) -> Result<PoseAsset> {
        let curves = self.targets();
        if curves.is_empty() {
            bail!("{}: no ARKit shape is mapped to a target", self.name);
        }
        let mut poses: Vec<Pose> = Vec::new();
        for e in &self.forward {
            let j = curves.iter().position(|c| *c == e.target).expect("listed");
            let pose = match poses.iter_mut().find(|p| p.shape == e.shape) {
                Some(p) => p,
                None => {
                    poses.push(Pose {
                        name: NAMES[e.shape].to_string(),
                        shape: e.shape,
                        weights: vec![0.0; curves.len()],
                    });
                    poses.last_mut().expect("pushed")
                }
            };
            pose.weights[j] += e.weight;
        }
        Ok(PoseAsset {
            rest: vec![0.0; curves.len()],
            curves,
            poses,
        })
    }

    /// The forward map ready to evaluate: every target of the map is a column.
    pub fn retargeter(&self, combine: Combine) -> Result<Retargeter> {
        Ok(Retargeter::for_rig(&self.pose_asset()?, combine))
    }

    /// The reverse map by target name, lower-cased (targets match ignoring
    /// case): how each target becomes its shape. A target that turns round
    /// to several shapes is an error; with [`Modifiers::Undo`] a weight of 0
    /// undoes nothing and is left out.
    pub fn reverse_by_target(&self, modifiers: Modifiers) -> Result<HashMap<String, Back>> {
        let mut by_target: HashMap<String, (Back, &str)> = HashMap::new();
        for e in &self.reverse {
            if e.weight == 0.0 && modifiers == Modifiers::Undo {
                continue;
            }
            let key = e.target.to_lowercase();
            if let Some((other, spelled)) = by_target.get(&key) {
                if other.shape != e.shape {
                    bail!(
                        "{}: target \"{}\" maps back to both {} and {}{}: give it one shape (a \"reverse\" entry)",
                        self.name,
                        e.target,
                        NAMES[other.shape],
                        NAMES[e.shape],
                        if *spelled == e.target {
                            String::new()
                        } else {
                            format!(" (as \"{spelled}\"; targets match ignoring case)")
                        }
                    );
                }
                continue;
            }
            let back = Back {
                shape: e.shape,
                weight: e.weight,
                modifiers,
            };
            by_target.insert(key, (back, &e.target));
        }
        Ok(by_target.into_iter().map(|(k, (b, _))| (k, b)).collect())
    }
}

/// How a map's weights (LLV's modifiers) apply when a target turns back into its shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Modifiers {
    /// `ARKit = target / weight`: `import` undoes `remap`.
    #[default]
    Undo,
    /// `ARKit = weight * target`, as LLV 1.4's `fbx` importer applies its modifiers.
    Llv,
}

/// How one target becomes its ARKit shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Back {
    /// The ARKit shape (packet order).
    pub shape: usize,
    /// The map's weight for it.
    pub weight: f64,
    /// Whether the weight divides or multiplies.
    pub modifiers: Modifiers,
}

impl Back {
    /// The shape's value for the target's value `v`.
    pub fn apply(&self, v: f64) -> f64 {
        match self.modifiers {
            Modifiers::Undo => v / self.weight,
            Modifiers::Llv => v * self.weight,
        }
    }
}

/// A top-level value of a map: an object's entries in file order, or `None`
/// for any other JSON value (LLV's `"comment"` string).
struct Section(Option<Vec<(String, serde_json::Value)>>);

impl<'de> serde::Deserialize<'de> for Section {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Any;
        impl<'de> serde::de::Visitor<'de> for Any {
            type Value = Section;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Section, E> {
                Ok(Section(Some(Vec::new())))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Section, A::Error> {
                let Ordered(entries) = Entries(std::marker::PhantomData).visit_map(map)?;
                Ok(Section(Some(entries)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Section, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Section(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Section, E> {
                Ok(Section(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Section, E> {
                Ok(Section(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Section, E> {
                Ok(Section(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Section, E> {
                Ok(Section(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Section, E> {
                Ok(Section(None))
            }
        }
        d.deserialize_any(Any)
    }
}

/// A JSON object's entries in file order (serde_json's map sorts them).
struct Ordered<T>(Vec<(String, T)>);

/// The visitor of [`Ordered`].
struct Entries<T>(std::marker::PhantomData<T>);

impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Entries<T> {
    type Value = Ordered<T>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }
    fn visit_unit<E>(self) -> Result<Ordered<T>, E> {
        Ok(Ordered(Vec::new()))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Ordered<T>, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(Ordered(entries))
    }
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Ordered<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Entries(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llv_json_with_missing_entries_and_modifiers() {
        let map = RigMap::from_json(
            "m.json",
            r#"{"mapping": {"jawOpen": "CC_Jaw_Open", "EyeBlinkLeft": "Blink_L", "TongueOut": null},
                "modifiers": {"JawOpen": 0.5}}"#,
        )
        .unwrap();
        assert_eq!(
            map.forward,
            [
                Entry {
                    shape: 17,
                    target: "CC_Jaw_Open".into(),
                    weight: 0.5
                },
                Entry {
                    shape: 0,
                    target: "Blink_L".into(),
                    weight: 1.0
                },
            ]
        );
        // No "reverse": the forward entries turned round.
        let back = map.reverse_by_target(Modifiers::Undo).unwrap()["cc_jaw_open"];
        assert_eq!((back.shape, back.apply(0.25)), (17, 0.5));
        let with_reverse = RigMap::from_json(
            "m.json",
            r#"{"mapping": {"JawOpen": "A"}, "reverse": {"B": "mouthClose"}}"#,
        )
        .unwrap();
        let by_target = with_reverse.reverse_by_target(Modifiers::Undo).unwrap();
        assert_eq!(by_target.len(), 1);
        assert_eq!((by_target["b"].shape, by_target["b"].apply(0.5)), (18, 0.5));
        let err = RigMap::from_json("m.json", r#"{"mapping": {"Jaw": "A"}}"#).unwrap_err();
        assert!(
            format!("{err:#}").contains("`Jaw` is not one of the 61"),
            "{err:#}"
        );
    }

    #[test]
    fn csv_table_with_several_rows_per_shape() {
        let map = RigMap::from_table(
            "t.csv",
            "arkit,target,weight\nJawOpen,Jaw,1\nJawOpen,Mouth,0.25\nEyeBlinkLeft,Blink\n",
        )
        .unwrap();
        assert_eq!(map.targets(), ["Jaw", "Mouth", "Blink"]);
        let asset = map.pose_asset().unwrap();
        assert_eq!(asset.poses[0].weights, [1.0, 0.25, 0.0]);
        assert_eq!(asset.poses[1].weights, [0.0, 0.0, 1.0]);
        let err = RigMap::from_table("t.csv", "JawOpen,Jaw,x\n").unwrap_err();
        assert_eq!(err.to_string(), "t.csv: line 1: weight `x` is not a number");
        let two = RigMap::from_table("t.csv", "JawOpen,Jaw\nMouthClose,Jaw\n").unwrap();
        let err = two
            .reverse_by_target(Modifiers::Undo)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("\"Jaw\" maps back to both JawOpen and MouthClose"),
            "{err}"
        );
    }

    /// LLV's own library files (`mappings/ARKit_Gunan_Mapping.json` of LLV's
    /// repository) carry a top-level "comment", an empty target and a
    /// reverse entry whose shape has a modifier.
    #[test]
    fn llv_library_files_with_a_comment_read_as_llv_reads_them() {
        let map = RigMap::from_json(
            "gunan.json",
            r#"{"comment": "Mapping for Gunan_animated.fbx, by branx",
                "mapping": {"JawOpen": "JawOpen", "RightEyePitch": "EyeDown_R", "MouthClose": ""},
                "modifiers": {"JawOpen": 0.8, "RightEyePitch": -1.0},
                "reverse": {"JawOpen": "JawOpen", "EyeDown_R": "RightEyePitch", "": "HeadRoll"},
                "version": [1, {"x": null}], "n": 3.5, "b": true}"#,
        )
        .unwrap();
        assert_eq!(map.forward.len(), 2);
        assert_eq!(map.reverse.len(), 2, "the empty target is no target");
        let undo = map.reverse_by_target(Modifiers::Undo).unwrap();
        let llv = map.reverse_by_target(Modifiers::Llv).unwrap();
        // LLV 1.4 gives JawOpen 0.8 for a target at 1.0; undoing `remap` gives 1.25.
        assert_eq!(llv["jawopen"].apply(1.0), 0.8);
        assert_eq!(undo["jawopen"].apply(1.0), 1.25);
        assert_eq!(undo["eyedown_r"].apply(0.5), -0.5);
        // A known key that is not an object is still an error.
        let err = RigMap::from_json("m.json", r#"{"mapping": "JawOpen"}"#).unwrap_err();
        assert_eq!(err.to_string(), "m.json: \"mapping\" is not an object");
        // Targets differing only in case that name two shapes cannot both turn round.
        let two = RigMap::from_json(
            "m.json",
            r#"{"reverse": {"Eye_Turn_L": "EyeLookInLeft", "eye_turn_l": "EyeLookOutLeft"}}"#,
        )
        .unwrap();
        let err = two
            .reverse_by_target(Modifiers::Undo)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("(as \"Eye_Turn_L\"; targets match ignoring case)"),
            "{err}"
        );
    }
}
