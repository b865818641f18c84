//! The 61 ARKit blendshapes of a Live Link Face packet, in packet order.
//!
//! 0..=51 are ARKit coefficients (0..1); 52..=60 are head and eye rotations
//! in radians.

/// Number of blendshape values in every face packet.
pub const COUNT: usize = 61;

/// The blendshape names in packet order (index = position in the packet).
pub const NAMES: [&str; COUNT] = [
    "EyeBlinkLeft",
    "EyeLookDownLeft",
    "EyeLookInLeft",
    "EyeLookOutLeft",
    "EyeLookUpLeft",
    "EyeSquintLeft",
    "EyeWideLeft",
    "EyeBlinkRight",
    "EyeLookDownRight",
    "EyeLookInRight",
    "EyeLookOutRight",
    "EyeLookUpRight",
    "EyeSquintRight",
    "EyeWideRight",
    "JawForward",
    "JawLeft",
    "JawRight",
    "JawOpen",
    "MouthClose",
    "MouthFunnel",
    "MouthPucker",
    "MouthLeft",
    "MouthRight",
    "MouthSmileLeft",
    "MouthSmileRight",
    "MouthFrownLeft",
    "MouthFrownRight",
    "MouthDimpleLeft",
    "MouthDimpleRight",
    "MouthStretchLeft",
    "MouthStretchRight",
    "MouthRollLower",
    "MouthRollUpper",
    "MouthShrugLower",
    "MouthShrugUpper",
    "MouthPressLeft",
    "MouthPressRight",
    "MouthLowerDownLeft",
    "MouthLowerDownRight",
    "MouthUpperUpLeft",
    "MouthUpperUpRight",
    "BrowDownLeft",
    "BrowDownRight",
    "BrowInnerUp",
    "BrowOuterUpLeft",
    "BrowOuterUpRight",
    "CheekPuff",
    "CheekSquintLeft",
    "CheekSquintRight",
    "NoseSneerLeft",
    "NoseSneerRight",
    "TongueOut",
    "HeadYaw",
    "HeadPitch",
    "HeadRoll",
    "LeftEyeYaw",
    "LeftEyePitch",
    "LeftEyeRoll",
    "RightEyeYaw",
    "RightEyePitch",
    "RightEyeRoll",
];

/// Index of the first head/eye rotation (`HeadYaw`); shapes before it are ARKit coefficients.
pub const FIRST_ROTATION: usize = 52;

/// The name of blendshape `index`, or `None` past the table.
pub fn name(index: usize) -> Option<&'static str> {
    NAMES.get(index).copied()
}

/// The index of a blendshape by its exact name.
pub fn index_of(name: &str) -> Option<usize> {
    NAMES.iter().position(|n| *n == name)
}

/// The index of a blendshape by name, ignoring ASCII case (for CSV headers).
pub fn find_ignore_case(name: &str) -> Option<usize> {
    NAMES.iter().position(|n| n.eq_ignore_ascii_case(name))
}

/// `(index, name)` for every blendshape in packet order.
pub fn iter() -> impl Iterator<Item = (usize, &'static str)> {
    NAMES.iter().copied().enumerate()
}
