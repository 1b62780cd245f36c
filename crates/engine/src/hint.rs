//! A hint to the processor: bring the cache line at an address in before it is used.
//!
//! Propagation lines (`net::line`) and the sender's segment records (`tcp::scoreboard`) are rings read
//! and written in order, one entry per packet. The hardware prefetcher follows a few such streams on its
//! own, as with one flow's four lines; ten flows have forty lines and ten scoreboards, more streams than
//! it follows, and the next entry of each then missed the cache at every push and pop. Asking for it one
//! entry ahead took 15-19 % off the CPU time per packet of 10 to 1000 flows at 10 Gbit/s on a quiet host
//! (28-40 % on a loaded one; docs/benchmarks.md, runs 27 and 27b). With one flow the hints are a cost:
//! the push's cost one line of 333,000 packets 11-14 %, so only runs of several flows hint pushes
//! (`LinePool::hinting_pushes`, run 28), and only their senders their records. A hint changes no result.

/// Prefetch the cache line holding `at` into every level of the cache. Any address will do: one past a
/// buffer's end, or past an entry not yet written, costs a wasted fetch at most. Elsewhere than on
/// x86-64 (where `_mm_prefetch` is part of the baseline) it is nothing.
#[inline(always)]
pub(crate) fn prefetch<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing into the program and cannot fault, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}
