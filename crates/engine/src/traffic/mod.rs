//! Traffic that comes and goes: the distributions flows draw from (`dist`), arrival processes that open
//! connections during a run (`source`), and the summary of flows by group (`groups`).

pub mod dist;
pub mod groups;
