//! glTF 2.0 (`.gltf` or `.glb`, e.g. a character animated in Blender):
//! every animation channel on a node's morph-target weights gives one curve
//! per morph target, named by the mesh's `extras.targetNames` (what Blender
//! and most exporters write), else `<mesh>.<index>`. Only buffers are loaded,
//! never images.

use std::path::{Path, PathBuf};

use ::gltf::animation::util::ReadOutputs;
use ::gltf::animation::{Interpolation as GltfInterpolation, Property};
use anyhow::{anyhow, bail, Context, Result};

use super::{Animation, Curve, Interpolation};

/// Reads the morph-target weight curves of every animation in the file.
pub fn load(path: &Path) -> Result<Animation> {
    let name = path.display();
    let bytes = std::fs::File::open(path).with_context(|| format!("{name}: cannot read"))?;
    let file = ::gltf::Gltf::from_reader(std::io::BufReader::new(bytes))
        .with_context(|| format!("{name}: not glTF 2.0"))?;
    let mut animation = Animation::default();
    let buffers = load_buffers(path, &file, &mut animation.files)?;
    for anim in file.document.animations() {
        for channel in anim.channels() {
            if channel.target().property() != Property::MorphTargetWeights {
                continue;
            }
            let node = channel.target().node();
            let mesh = node.mesh().ok_or_else(|| {
                anyhow!(
                    "{name}: animation {} animates the weights of node {}, which has no mesh",
                    anim.index(),
                    node.index()
                )
            })?;
            let targets = mesh
                .primitives()
                .next()
                .map_or(0, |p| p.morph_targets().len());
            let names = target_names(&mesh, targets);
            let reader = channel.reader(|buffer| buffers.get(buffer.index()).map(Vec::as_slice));
            let times: Vec<f32> = reader
                .read_inputs()
                .ok_or_else(|| anyhow!("{name}: channel {} has no key times", channel.index()))?
                .collect();
            let weights: Vec<f32> = match reader.read_outputs() {
                Some(ReadOutputs::MorphTargetWeights(w)) => w.into_f32().collect(),
                _ => bail!("{name}: channel {} has no weights", channel.index()),
            };
            let interpolation = match channel.sampler().interpolation() {
                GltfInterpolation::Linear => Interpolation::Linear,
                GltfInterpolation::Step => Interpolation::Step,
                GltfInterpolation::CubicSpline => Interpolation::CubicSpline,
            };
            let per_key = if interpolation == Interpolation::CubicSpline {
                3 * targets
            } else {
                targets
            };
            if targets == 0 || weights.len() != times.len() * per_key {
                bail!(
                    "{name}: channel {}: {} weights for {} keys of {targets} morph targets",
                    channel.index(),
                    weights.len(),
                    times.len()
                );
            }
            if times
                .windows(2)
                .any(|w| w[0].partial_cmp(&w[1]) != Some(std::cmp::Ordering::Less))
            {
                bail!(
                    "{name}: channel {}: key times do not increase",
                    channel.index()
                );
            }
            for (t, target) in names.into_iter().enumerate() {
                let at = |key: usize, part: usize| weights[key * per_key + part * targets + t];
                let curve = if interpolation == Interpolation::CubicSpline {
                    // Per key: in-tangents, values, out-tangents.
                    Curve::Keys {
                        times: times.clone(),
                        values: (0..times.len()).map(|k| at(k, 1)).collect(),
                        tangents: (0..times.len()).map(|k| (at(k, 0), at(k, 2))).collect(),
                        interpolation,
                    }
                } else {
                    Curve::Keys {
                        times: times.clone(),
                        values: (0..times.len()).map(|k| at(k, 0)).collect(),
                        tangents: Vec::new(),
                        interpolation,
                    }
                };
                animation.curves.push((target, curve));
            }
        }
    }
    if animation.curves.is_empty() {
        bail!("{name}: no animation of morph-target weights");
    }
    Ok(animation)
}

/// The file's buffers: the GLB's binary chunk, `data:` URIs (base64) and
/// files beside it. Images are never loaded.
fn load_buffers(
    path: &Path,
    file: &::gltf::Gltf,
    files: &mut Vec<PathBuf>,
) -> Result<Vec<Vec<u8>>> {
    use base64::Engine;
    let name = path.display();
    let mut buffers = Vec::new();
    for buffer in file.document.buffers() {
        let data = match buffer.source() {
            ::gltf::buffer::Source::Bin => file.blob.clone().ok_or_else(|| {
                anyhow!(
                    "{name}: buffer {} is the GLB chunk, which is missing",
                    buffer.index()
                )
            })?,
            ::gltf::buffer::Source::Uri(uri) => {
                if let Some(rest) = uri.strip_prefix("data:") {
                    let (_, encoded) = rest.split_once(";base64,").ok_or_else(|| {
                        anyhow!(
                            "{name}: buffer {}: a data URI that is not base64",
                            buffer.index()
                        )
                    })?;
                    base64::engine::general_purpose::STANDARD
                        .decode(encoded)
                        .with_context(|| format!("{name}: buffer {}: base64", buffer.index()))?
                } else {
                    let file = path.with_file_name(uri);
                    let data = std::fs::read(&file).with_context(|| {
                        format!(
                            "{name}: buffer {}: cannot read {}",
                            buffer.index(),
                            file.display()
                        )
                    })?;
                    files.push(file);
                    data
                }
            }
        };
        if data.len() < buffer.length() {
            bail!(
                "{name}: buffer {} holds {} bytes, the file says {}",
                buffer.index(),
                data.len(),
                buffer.length()
            );
        }
        buffers.push(data);
    }
    Ok(buffers)
}

/// The mesh's `extras.targetNames`, else `<mesh>.<index>`.
fn target_names(mesh: &::gltf::Mesh<'_>, targets: usize) -> Vec<String> {
    let named: Option<Vec<String>> = mesh.extras().as_ref().and_then(|raw| {
        let extras: serde_json::Value = serde_json::from_str(raw.get()).ok()?;
        let list = extras.get("targetNames")?.as_array()?;
        list.iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect()
    });
    match named {
        Some(names) if names.len() == targets => names,
        _ => {
            let mesh_name = mesh
                .name()
                .map_or_else(|| format!("mesh{}", mesh.index()), str::to_string);
            (0..targets).map(|i| format!("{mesh_name}.{i}")).collect()
        }
    }
}
