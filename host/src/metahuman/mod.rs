//! MetaHuman curves from ARKit blendshapes: Unreal's T3D text export
//! ([`t3d`]), the additive PoseAsset read from it ([`pose_asset`]) and the
//! retarget math ([`retarget`]). The `llv retarget` command (files, folders,
//! timecodes) is [`crate::commands::retarget`].

pub mod pose_asset;
pub mod retarget;
pub mod t3d;
