//! The MetaHuman ARKit mapping: an Unreal additive PoseAsset read from its T3D
//! export. Pose names, pose arrays and curve names pair strictly by position.

use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use llv_core::blendshape;

use super::t3d::{self, Object, Value};

/// One ARKit blendshape's pose: the curve deltas it adds at weight 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// The pose name as the asset spells it.
    pub name: String,
    /// Index of the ARKit blendshape it answers to (packet order).
    pub shape: usize,
    /// `CurveData`: one delta per curve, in [`PoseAsset::curves`] order.
    pub weights: Vec<f64>,
}

/// What retargeting needs from a PoseAsset.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseAsset {
    /// The MetaHuman curve names, in `CurveData` order.
    pub curves: Vec<String>,
    /// The base pose's raw `SourceCurveData`: each curve's resting value.
    pub rest: Vec<f64>,
    /// Every pose but the base pose, in asset order.
    pub poses: Vec<Pose>,
}

impl PoseAsset {
    /// Reads and checks a T3D file; errors name the file, line and column.
    pub fn load(path: &Path) -> Result<PoseAsset> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read mapping {}", path.display()))?;
        PoseAsset::from_t3d(&text).with_context(|| format!("mapping {}", path.display()))
    }

    /// Reads the first object of a T3D text that holds a `PoseContainer`.
    pub fn from_t3d(text: &str) -> Result<PoseAsset> {
        let objects = t3d::parse(text)?;
        let object = objects
            .iter()
            .flat_map(Object::walk)
            .find(|o| o.property("PoseContainer").is_some())
            .ok_or_else(|| anyhow!("no PoseContainer property: export a PoseAsset as T3D"))?;
        let container = object.property("PoseContainer").expect("found above");
        let additive = object.property("bAdditivePose");
        if additive.and_then(Value::as_bool) != Some(true) {
            let at = additive.map_or(object.pos, |v| v.pos);
            bail!(
                "{at}: the pose asset is not additive (bAdditivePose=True): \
                 its CurveData would not be weights"
            );
        }
        let base_value = object
            .property("BasePoseIndex")
            .ok_or_else(|| anyhow!("{}: the object has no BasePoseIndex", object.pos))?;
        let base = base_value
            .as_f64()
            .filter(|n| n.fract() == 0.0 && *n >= 0.0)
            .ok_or_else(|| anyhow!("{}: BasePoseIndex is not an index", base_value.pos))?
            as usize;

        let names = list(container, "PoseNames")?
            .iter()
            .map(|v| text_field(v, "DisplayName"))
            .collect::<Result<Vec<_>>>()?;
        let poses = list(container, "Poses")?;
        let curves = list(container, "Curves")?
            .iter()
            .map(|v| {
                let name = v
                    .field("Name")
                    .ok_or_else(|| anyhow!("{}: curve has no Name=", v.pos))?;
                text_field(name, "DisplayName")
            })
            .collect::<Result<Vec<_>>>()?;
        let poses_value = container.field("Poses").expect("listed above");
        if names.len() != poses.len() {
            bail!(
                "{}: {} pose names but {} poses",
                poses_value.pos,
                names.len(),
                poses.len()
            );
        }
        if base >= poses.len() {
            bail!(
                "{}: BasePoseIndex {base} is past the {} poses",
                base_value.pos,
                poses.len()
            );
        }
        let rest = numbers(poses[base], "SourceCurveData", curves.len())?;
        let mut out = Vec::with_capacity(poses.len() - 1);
        for (i, ((name, name_pos), pose)) in names.into_iter().zip(poses).enumerate() {
            let weights = numbers(pose, "CurveData", curves.len())?;
            if i == base {
                continue;
            }
            let shape = blendshape::find_ignore_case(&name).ok_or_else(|| {
                anyhow!("{name_pos}: pose {i} `{name}` is not one of the 61 ARKit blendshapes")
            })?;
            out.push(Pose {
                name,
                shape,
                weights,
            });
        }
        Ok(PoseAsset {
            curves: curves.into_iter().map(|(name, _)| name).collect(),
            rest,
            poses: out,
        })
    }
}

/// The values of the group `key` inside `group`, each positional.
fn list<'a>(group: &'a Value, key: &str) -> Result<Vec<&'a Value>> {
    let value = group
        .field(key)
        .ok_or_else(|| anyhow!("{}: PoseContainer has no {key}=", group.pos))?;
    let items = value
        .items()
        .ok_or_else(|| anyhow!("{}: {key} is {}, not a group", value.pos, value.describe()))?;
    Ok(items.iter().map(|i| &i.value).collect())
}

/// The string `key=` of a struct, with its position.
fn text_field(value: &Value, key: &str) -> Result<(String, t3d::Pos)> {
    let field = value
        .field(key)
        .ok_or_else(|| anyhow!("{}: no {key}= here", value.pos))?;
    let text = field
        .as_str()
        .ok_or_else(|| anyhow!("{}: {key} is {}, not a name", field.pos, field.describe()))?;
    Ok((text.to_string(), field.pos))
}

/// The `count` numbers of the list `key=` inside a pose.
fn numbers(pose: &Value, key: &str, count: usize) -> Result<Vec<f64>> {
    let list = pose
        .field(key)
        .ok_or_else(|| anyhow!("{}: pose has no {key}=", pose.pos))?;
    let items = list
        .items()
        .ok_or_else(|| anyhow!("{}: {key} is {}, not a list", list.pos, list.describe()))?;
    if items.len() != count {
        bail!(
            "{}: {key} holds {} values, but there are {count} curves",
            list.pos,
            items.len()
        );
    }
    items
        .iter()
        .map(|i| {
            i.value.as_f64().ok_or_else(|| {
                anyhow!(
                    "{}: {} in {key}, not a number",
                    i.value.pos,
                    i.value.describe()
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asset(body: &str) -> String {
        format!("Begin Object Class=/Script/Engine.PoseAsset Name=\"m\"\n{body}\nEnd Object\n")
    }

    const GOOD: &str = "   PoseContainer=(PoseNames=((DisplayName=\"Default\"),(DisplayName=\"JawOpen\"),(DisplayName=\"eyeblinkleft\")),\
        Poses=((SourceCurveData=(0.0,1.0),CurveData=(0.0,0.0)),(SourceCurveData=(0.5,1.0),CurveData=(0.5,0.0)),(SourceCurveData=(0.0,1.25),CurveData=(0.0,0.25))),\
        Curves=((Name=(DisplayName=\"jaw\"),CurveTypeFlags=4),(Name=(DisplayName=\"blink\"))))\n   bAdditivePose=True\n   BasePoseIndex=0";

    #[test]
    fn reads_poses_curves_and_rest_values_by_position() {
        let a = PoseAsset::from_t3d(&asset(GOOD)).unwrap();
        assert_eq!(a.curves, vec!["jaw", "blink"]);
        assert_eq!(a.rest, vec![0.0, 1.0]);
        assert_eq!(a.poses.len(), 2);
        assert_eq!(a.poses[0].shape, blendshape::index_of("JawOpen").unwrap());
        assert_eq!(a.poses[0].weights, vec![0.5, 0.0]);
        assert_eq!(a.poses[1].shape, 0);
        assert_eq!(a.poses[1].weights, vec![0.0, 0.25]);
    }

    fn error(body: &str) -> String {
        format!("{:#}", PoseAsset::from_t3d(&asset(body)).unwrap_err())
    }

    #[test]
    fn semantic_errors_name_line_and_column() {
        let e = error(&GOOD.replace("CurveData=(0.5,0.0)", "CurveData=(0.5)"));
        assert!(
            e.contains("CurveData holds 1 values, but there are 2 curves"),
            "{e}"
        );
        assert!(e.starts_with("line 2, column "), "{e}");
        let e = error(&GOOD.replace("eyeblinkleft", "Smile"));
        assert!(
            e.contains("pose 2 `Smile` is not one of the 61 ARKit blendshapes"),
            "{e}"
        );
        let e = error(&GOOD.replace("bAdditivePose=True", "bAdditivePose=False"));
        assert!(
            e.starts_with("line 3, column 18: the pose asset is not additive"),
            "{e}"
        );
        let e = error(&GOOD.replace("(DisplayName=\"Default\"),", ""));
        assert!(e.contains("2 pose names but 3 poses"), "{e}");
        let e = error(&GOOD.replace("BasePoseIndex=0", "BasePoseIndex=7"));
        assert!(e.contains("BasePoseIndex 7 is past the 3 poses"), "{e}");
        let e = error(&GOOD.replace("(0.0,0.25)", "(0.0,x)"));
        assert!(e.contains("a word in CurveData, not a number"), "{e}");
        let e = error("   Other=1");
        assert!(e.contains("no PoseContainer"), "{e}");
    }
}
