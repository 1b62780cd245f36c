//! TCP endpoints: a bulk sender with a SACK scoreboard and a receiver, both sans-IO.
pub mod reassembly;
pub mod burst;
pub mod delayed_send;
pub mod frto;
pub mod receiver;
pub mod recovery;
pub mod rate;
pub mod rto_ns2;
pub mod rtt;
pub mod scoreboard;
pub mod segment;
pub mod sender;

#[cfg(test)]
mod sender_tests;
