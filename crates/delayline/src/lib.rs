//! The live testbed's delay element: a userspace delay line on a TUN device (`cclab.live.testbed`).
//!
//! The kernel's delay qdisc (netem) is not available on every machine cclab runs on, so the testbed's
//! middle namespace routes every packet that crosses it into a TUN device (policy routing by input
//! interface), and this delay line reads each packet from the device, holds it for the configured one-way
//! delay and writes it back into the same device, from where the kernel forwards it by destination. Rate
//! and buffer are not modelled here: the kernel's htb + pfifo on the egress veth shapes them (Mahimahi
//! splits its delay and link shells the same way: a fixed delay, then a rate-limited FIFO).
//!
//! Every packet gets the same delay, so release order is arrival order and one FIFO suffices. Two threads
//! and no GIL: a reader (poll with a 100 ms timeout, so that `stop` is seen, then `read`) stamps each
//! packet with its release instant; a writer sleeps until the head's release instant and writes every
//! packet that is due. Both set their timer slack to 1 ns (prctl PR_SET_TIMERSLACK; the default 50 µs
//! would be added to every sleep) and, where allowed, run at a low real-time priority (SCHED_FIFO 10), and
//! the writer records how late each write is against its release instant, the delay line's own measure of
//! its accuracy.

use std::collections::VecDeque;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Largest packet read from the device, bytes: an IPv4 packet is at most 65535 bytes.
const MAX_PACKET_BYTES: usize = 65_536;
/// How often the reader wakes without a packet to look at the stop flag, ms.
const POLL_TIMEOUT_MS: i32 = 100;

struct HeldPacket {
    release: Instant,
    bytes: Vec<u8>,
}

/// Counters shared by the two threads; read at any time by `snapshot`.
#[derive(Default)]
pub struct Counters {
    pub packets_in: AtomicU64,
    pub packets_out: AtomicU64,
    pub bytes_out: AtomicU64,
    /// Packets dropped because `capacity_packets` were already held.
    pub drops_full: AtomicU64,
    pub read_errors: AtomicU64,
    pub write_errors: AtomicU64,
    /// Sum and largest of (write instant - release instant), ns: what the line adds to the configured delay.
    pub late_ns_total: AtomicU64,
    pub late_ns_max: AtomicU64,
    /// Most packets held at once.
    pub held_max: AtomicU64,
    /// Threads running at real-time priority (2 when allowed: root or CAP_SYS_NICE; else 0).
    pub realtime_threads: AtomicU64,
}

struct Shared {
    queue: Mutex<VecDeque<HeldPacket>>,
    wake: Condvar,
    stop: AtomicBool,
    counters: Counters,
}

impl Shared {
    fn new() -> Self {
        Shared {
            queue: Mutex::new(VecDeque::new()),
            wake: Condvar::new(),
            stop: AtomicBool::new(false),
            counters: Counters::default(),
        }
    }
}

/// A running delay line on `fd` (an open TUN device, IFF_TUN | IFF_NO_PI, owned by the caller).
pub struct DelayLine {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl DelayLine {
    /// Start the two threads. `capacity_packets` bounds the memory held (a full line drops, counted).
    pub fn start(fd: RawFd, delay: Duration, capacity_packets: usize) -> std::io::Result<Self> {
        let shared = Arc::new(Shared::new());
        let reader_shared = Arc::clone(&shared);
        let reader = std::thread::Builder::new()
            .name("delay-line-read".into())
            .spawn(move || read_loop(fd, delay, capacity_packets, &reader_shared))?;
        let writer_shared = Arc::clone(&shared);
        let writer = std::thread::Builder::new()
            .name("delay-line-write".into())
            .spawn(move || write_loop(fd, &writer_shared))?;
        Ok(DelayLine { shared, threads: vec![reader, writer] })
    }

    pub fn counters(&self) -> &Counters {
        &self.shared.counters
    }

    pub fn held(&self) -> usize {
        self.shared.queue.lock().map(|q| q.len()).unwrap_or(0)
    }

    /// Stop both threads and wait for them (at most one poll timeout); packets still held are dropped.
    pub fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.wake.notify_all();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl Drop for DelayLine {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Real-time priority of the line's threads (SCHED_FIFO, 1-99): above every ordinary process, so that a
/// loaded machine delays a packet's release by the kernel's wake-up latency (tens of µs), not by a time
/// slice of someone else's (milliseconds). Low among real-time priorities: the kernel's own stay above it.
const REALTIME_PRIORITY: i32 = 10;

fn precise_timers(counters: &Counters) {
    // SAFETY: PR_SET_TIMERSLACK takes an unsigned long and affects only the calling thread;
    // pthread_setschedparam on our own thread with a valid sched_param.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
        let param = libc::sched_param { sched_priority: REALTIME_PRIORITY };
        if libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) == 0 {
            counters.realtime_threads.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn read_loop(fd: RawFd, delay: Duration, capacity_packets: usize, shared: &Shared) {
    let counters = &shared.counters;
    precise_timers(counters);
    let mut buffer = vec![0u8; MAX_PACKET_BYTES];
    while !shared.stop.load(Ordering::Relaxed) {
        let mut poll_fd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd for the duration of the call.
        let ready = unsafe { libc::poll(&mut poll_fd, 1, POLL_TIMEOUT_MS) };
        if ready <= 0 {
            continue; // timeout, or EINTR: look at the stop flag again
        }
        // SAFETY: the buffer is MAX_PACKET_BYTES long and ours; the fd stays open while the line runs.
        let read = unsafe { libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len()) };
        let arrived = Instant::now();
        if read <= 0 {
            counters.read_errors.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        counters.packets_in.fetch_add(1, Ordering::Relaxed);
        let packet = HeldPacket { release: arrived + delay, bytes: buffer[..read as usize].to_vec() };
        let mut queue = shared.queue.lock().expect("delay line queue");
        if queue.len() >= capacity_packets {
            counters.drops_full.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        let was_empty = queue.is_empty();
        queue.push_back(packet);
        counters.held_max.fetch_max(queue.len() as u64, Ordering::Relaxed);
        drop(queue);
        if was_empty {
            // The writer sleeps on an empty line without a deadline; a non-empty one it wakes up for itself.
            shared.wake.notify_one();
        }
    }
}

fn write_loop(fd: RawFd, shared: &Shared) {
    let counters = &shared.counters;
    precise_timers(counters);
    let mut queue = shared.queue.lock().expect("delay line queue");
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        let now = Instant::now();
        let Some(head) = queue.front() else {
            queue = shared.wake.wait(queue).expect("delay line queue");
            continue;
        };
        if head.release > now {
            let wait = head.release - now;
            queue = shared.wake.wait_timeout(queue, wait).expect("delay line queue").0;
            continue;
        }
        let packet = queue.pop_front().expect("the head exists");
        drop(queue); // the reader goes on filling while the write runs
        // SAFETY: a whole packet from our own buffer; the fd stays open while the line runs.
        let written = unsafe { libc::write(fd, packet.bytes.as_ptr().cast(), packet.bytes.len()) };
        let late_ns = u64::try_from(now.duration_since(packet.release).as_nanos()).unwrap_or(u64::MAX);
        if written == packet.bytes.len() as isize {
            counters.packets_out.fetch_add(1, Ordering::Relaxed);
            counters.bytes_out.fetch_add(packet.bytes.len() as u64, Ordering::Relaxed);
            counters.late_ns_total.fetch_add(late_ns, Ordering::Relaxed);
            counters.late_ns_max.fetch_max(late_ns, Ordering::Relaxed);
        } else {
            counters.write_errors.fetch_add(1, Ordering::Relaxed);
        }
        queue = shared.queue.lock().expect("delay line queue");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pipe stands in for the TUN device: what is written into one end comes out of the other after
    /// the delay. Each byte written to the pipe is read by the line as a packet of its own, held 30 ms,
    /// and written to the second pipe; reading it there takes at least 30 ms from its own write and, on a
    /// machine that is not starved, well under 30 + 20 ms.
    #[test]
    fn packets_come_out_after_the_delay_in_order() {
        let mut into_line = [0; 2];
        let mut out_of_line = [0; 2];
        // SAFETY: arrays of two fds, as pipe(2) wants.
        unsafe {
            assert_eq!(libc::pipe(into_line.as_mut_ptr()), 0);
            assert_eq!(libc::pipe(out_of_line.as_mut_ptr()), 0);
        }
        // On a TUN device the line reads and writes the same fd; a pipe has two ends, so the test runs the
        // two loops itself, the reader on one pipe and the writer on the other.
        let shared = Arc::new(Shared::new());
        let (reader_shared, writer_shared) = (Arc::clone(&shared), Arc::clone(&shared));
        let (read_fd, write_fd) = (into_line[0], out_of_line[1]);
        let reader = std::thread::spawn(move || read_loop(read_fd, Duration::from_millis(30), 100, &reader_shared));
        let writer = std::thread::spawn(move || write_loop(write_fd, &writer_shared));
        let mut written_at = Vec::new();
        for tag in [1u8, 2, 3] {
            written_at.push(Instant::now());
            // SAFETY: one byte from the stack into the pipe.
            unsafe { assert_eq!(libc::write(into_line[1], [tag].as_ptr().cast(), 1), 1) };
            // The next byte goes in once the line has read this one, so each is a packet of its own, as
            // one read takes one packet from a TUN device (a fixed pause let a loaded machine read two
            // bytes as one packet).
            while shared.counters.packets_in.load(Ordering::SeqCst) < u64::from(tag) {
                std::thread::sleep(Duration::from_micros(100));
            }
        }
        let mut got = Vec::new();
        while got.len() < 3 {
            let mut byte = [0u8; 1];
            // SAFETY: one byte into the stack buffer.
            let n = unsafe { libc::read(out_of_line[0], byte.as_mut_ptr().cast(), 1) };
            assert_eq!(n, 1);
            got.push((byte[0], written_at[got.len()].elapsed()));
        }
        shared.stop.store(true, Ordering::SeqCst);
        shared.wake.notify_all();
        reader.join().unwrap();
        writer.join().unwrap();
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), vec![1, 2, 3]);
        // Each byte comes out at least 30 ms after its own write, and within 30 + 20 ms.
        for (tag, delay) in &got {
            assert!(*delay >= Duration::from_millis(30), "byte {tag}: {delay:?}");
            assert!(*delay < Duration::from_millis(50), "byte {tag}: {delay:?}");
        }
        assert_eq!(shared.counters.packets_out.load(Ordering::Relaxed), 3);
    }
}
