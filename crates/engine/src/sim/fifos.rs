//! Many first-in-first-out queues in one slab: each queue a linked list of slots, freed slots reused by
//! any queue. For the entries the several-flow path marks per line (`several_ahead.rs`, `restarts`;
//! until run 33 the packets it held per link): thousands of queues, most nearly empty most of the time
//! and a few briefly long. One `VecDeque` each kept each one's largest burst (or, given back, fragmented
//! the heap), and a 1000-flow run's peak memory crept up with simulated time (docs/benchmarks.md, run
//! 30). Here memory is the most entries queued at once over all links.

const NONE: u32 = u32::MAX;

struct Slot<T> {
    value: T,
    next: u32,
}

/// Head and tail slot of a queue (`NONE` when empty).
#[derive(Copy, Clone)]
struct Ends {
    head: u32,
    tail: u32,
}

const EMPTY: Ends = Ends { head: NONE, tail: NONE };

pub(super) struct Fifos<T> {
    slots: Vec<Slot<T>>,
    /// First free slot, the free slots chained by `next`.
    free: u32,
    queues: Vec<Ends>,
}

impl<T: Copy> Fifos<T> {
    pub(super) fn new(queues: usize) -> Self {
        Self { slots: Vec::new(), free: NONE, queues: vec![EMPTY; queues] }
    }

    /// How many queues (0: none was made).
    pub(super) fn queues(&self) -> usize {
        self.queues.len()
    }

    #[cfg(test)]
    pub(super) fn is_empty(&self, q: usize) -> bool {
        self.queues[q].head == NONE
    }

    #[inline(always)]
    pub(super) fn front(&self, q: usize) -> Option<&T> {
        match self.queues[q].head {
            NONE => None,
            head => Some(&self.slots[head as usize].value),
        }
    }

    pub(super) fn push_back(&mut self, q: usize, value: T) {
        let slot = match self.free {
            NONE => {
                let index = u32::try_from(self.slots.len()).ok().filter(|&i| i != NONE).expect("fewer than 2^32 - 1 entries");
                self.slots.push(Slot { value, next: NONE });
                index
            }
            free => {
                self.free = self.slots[free as usize].next;
                self.slots[free as usize] = Slot { value, next: NONE };
                free
            }
        };
        let ends = &mut self.queues[q];
        match ends.tail {
            NONE => ends.head = slot,
            tail => self.slots[tail as usize].next = slot,
        }
        ends.tail = slot;
    }

    pub(super) fn pop_front(&mut self, q: usize) -> Option<T> {
        let head = self.queues[q].head;
        if head == NONE {
            return None;
        }
        let Slot { value, next } = self.slots[head as usize];
        self.queues[q].head = next;
        if next == NONE {
            self.queues[q].tail = NONE;
        }
        self.slots[head as usize].next = self.free;
        self.free = head;
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_queue_is_first_in_first_out_and_slots_are_reused() {
        let mut f = Fifos::new(3);
        for i in 0..5 {
            f.push_back(i % 3, i);
        }
        assert_eq!(f.front(0), Some(&0));
        assert_eq!((f.pop_front(0), f.pop_front(0), f.pop_front(0)), (Some(0), Some(3), None));
        assert!(f.is_empty(0) && !f.is_empty(1));
        assert_eq!((f.pop_front(1), f.pop_front(1), f.pop_front(1)), (Some(1), Some(4), None));
        // Five slots were made; the four freed ones take the next pushes.
        for i in 10..14 {
            f.push_back(0, i);
        }
        assert_eq!(f.slots.len(), 5);
        assert_eq!((0..4).map(|_| f.pop_front(0).unwrap()).collect::<Vec<_>>(), vec![10, 11, 12, 13]);
        assert_eq!(f.pop_front(2), Some(2));
    }

    proptest::proptest! {
        /// Any interleaving of pushes and pops on a few queues gives what one `VecDeque` each would.
        #[test]
        fn behaves_as_a_deque_per_queue(ops in proptest::collection::vec((0usize..4, proptest::bool::ANY), 1..400)) {
            let mut f = Fifos::new(4);
            let mut model: Vec<std::collections::VecDeque<u32>> = vec![Default::default(); 4];
            for (i, (q, push)) in ops.into_iter().enumerate() {
                if push {
                    f.push_back(q, i as u32);
                    model[q].push_back(i as u32);
                } else {
                    proptest::prop_assert_eq!(f.pop_front(q), model[q].pop_front());
                }
                proptest::prop_assert_eq!(f.front(q).copied(), model[q].front().copied());
                proptest::prop_assert_eq!(f.is_empty(q), model[q].is_empty());
            }
        }
    }
}
