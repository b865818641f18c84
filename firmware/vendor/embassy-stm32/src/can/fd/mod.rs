//! Module containing that which is specific to fdcan hardware variant

pub mod config;
pub mod filter;
pub(crate) mod message_ram;
pub(crate) mod peripheral;
