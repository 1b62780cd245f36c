//! The network: packets, queues and links.
pub mod link;
pub mod packet;
pub mod queue;
pub mod topology;
