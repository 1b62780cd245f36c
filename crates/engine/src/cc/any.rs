//! `AnyCc`: one of the built-in algorithms, called through a `match` rather than a vtable.
//!
//! The sender asks its algorithm for `cwnd()` and `pacing_rate_bps()` and reports `on_ack_sample` on every
//! ACK. Through `Box<dyn CongestionControl>` each was an indirect call that the compiler cannot inline, so
//! even NewReno's `cwnd()` (one load) and its empty `on_ack_sample` paid a call and return per ACK: 7 % of
//! a lone flow's profile (docs/benchmarks.md, run 42). Behind a `match` the compiler sees each
//! algorithm's body and inlines the small ones. Each variant is boxed, so an algorithm's state stays in its
//! own allocation, as before, and the sender holds 24 bytes for it (the fat pointer's 16 and a tag).
//!
//! `Custom` keeps the trait open: anything that implements `CongestionControl` (a test's recorder, an
//! algorithm being developed) runs through its vtable as before. A new built-in algorithm gets a variant
//! here beside its line in `registry::entries`.

use super::aimd::Aimd;
use super::bbr::Bbr;
use super::bic::Bic;
use super::compound::Compound;
use super::cubic::Cubic;
use super::fast::Fast;
use super::highspeed::HighSpeed;
use super::htcp::Htcp;
use super::newreno::NewReno;
use super::scalable::Scalable;
use super::vegas::Vegas;
use super::westwood::Westwood;
use super::{AckSample, CongestionControl, CongestionEvent, FlowContext, StateField};
use crate::time::SimTime;

/// Declares the enum, a `From` for each built-in algorithm, and the trait's methods delegated to the
/// variant in hand: the list of algorithms is written once.
macro_rules! any_cc {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        pub enum AnyCc {
            $($variant(Box<$ty>),)*
            Custom(Box<dyn CongestionControl>),
        }

        $(impl From<$ty> for AnyCc {
            fn from(cc: $ty) -> Self {
                AnyCc::$variant(Box::new(cc))
            }
        })*

        /// `self.$method(args)` on whichever algorithm `self` holds.
        macro_rules! delegate {
            ($self:ident, $cc:ident => $call:expr) => {
                match $self {
                    $(AnyCc::$variant($cc) => $call,)*
                    AnyCc::Custom($cc) => $call,
                }
            };
        }
    };
}

any_cc! {
    NewReno(NewReno),
    Scalable(Scalable),
    HighSpeed(HighSpeed),
    Htcp(Htcp),
    Westwood(Westwood),
    Bic(Bic),
    Cubic(Cubic),
    Compound(Compound),
    Vegas(Vegas),
    Fast(Fast),
    Aimd(Aimd),
    Bbr(Bbr),
}

impl AnyCc {
    /// An algorithm outside the built-in set, called through its vtable.
    pub fn custom(cc: impl CongestionControl + 'static) -> Self {
        AnyCc::Custom(Box::new(cc))
    }
}

impl CongestionControl for AnyCc {
    fn name(&self) -> &'static str {
        delegate!(self, cc => cc.name())
    }
    #[inline]
    fn on_ack_sample(&mut self, sample: &AckSample) {
        delegate!(self, cc => cc.on_ack_sample(sample))
    }
    #[inline]
    fn on_ack(&mut self, sample: &AckSample) {
        delegate!(self, cc => cc.on_ack(sample))
    }
    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        delegate!(self, cc => cc.on_congestion_event(event))
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        delegate!(self, cc => cc.on_recovery_exit(now))
    }
    fn min_cwnd(&self) -> u32 {
        delegate!(self, cc => cc.min_cwnd())
    }
    fn set_cwnd(&mut self, cwnd: u32) {
        delegate!(self, cc => cc.set_cwnd(cwnd))
    }
    fn on_timeout(&mut self, now: SimTime, first_in_episode: bool) {
        delegate!(self, cc => cc.on_timeout(now, first_in_episode))
    }
    #[inline]
    fn cwnd(&self) -> u32 {
        delegate!(self, cc => cc.cwnd())
    }
    fn ssthresh(&self) -> u32 {
        delegate!(self, cc => cc.ssthresh())
    }
    #[inline]
    fn pacing_rate_bps(&self) -> Option<u64> {
        delegate!(self, cc => cc.pacing_rate_bps())
    }
    fn wants_rate_samples(&self) -> bool {
        delegate!(self, cc => cc.wants_rate_samples())
    }
    #[inline]
    fn marks_app_limited(&self) -> bool {
        delegate!(self, cc => cc.marks_app_limited())
    }
    fn set_cwnd_clamp(&mut self, clamp: u32) -> bool {
        delegate!(self, cc => cc.set_cwnd_clamp(clamp))
    }
    fn attach(&mut self, ctx: FlowContext) {
        delegate!(self, cc => cc.attach(ctx))
    }
    fn state(&self, out: &mut Vec<StateField>) {
        delegate!(self, cc => cc.state(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::registry;
    use serde_json::json;

    #[test]
    fn every_registered_algorithm_builds_into_its_own_variant() {
        for entry in registry::entries() {
            let cc = registry::build("cc", &json!(entry.info.name), 2).unwrap();
            assert!(!matches!(cc, AnyCc::Custom(_)), "{} went through the vtable", entry.info.name);
            assert_eq!(cc.name(), entry.info.name);
        }
    }
}
