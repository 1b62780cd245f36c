//! The network: packets, queues and links, and the models a link can be given (capacity over time,
//! propagation delay over time, random loss, link-layer ARQ, outages, node processing delay).
pub mod arq;
pub mod bearer;
pub mod capacity;
pub mod delay;
pub mod line;
pub mod line_pool;
pub mod link;
pub mod loss;
pub mod outage;
pub mod packet;
pub mod processing;
pub mod queue;
pub mod topology;
