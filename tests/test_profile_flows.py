"""benchmarks/profile_flows.py's reading of perf's output, on listings written by hand in perf's formats: the
sampled time per function, each inlined function's share of an annotated function, the tables built from
them, and its refusal of bad arguments. The profiling itself (perf on 30-s runs) is a benchmark, not a test."""

import sys

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import profile_flows  # noqa: E402

# `perf report --stdio --no-children -F overhead,period,sym`, trimmed: the header, two functions and a kernel
# symbol. The periods are ns of task clock.
REPORT = """\
# Samples: 13K of event 'cpu-clock'
# Event count (approx.): 2781400000
#
# Overhead        Period  Symbol
# ........  ............  ..........................
#
    58.36%    1623200000  [.] cclab_engine::sim::Simulation::run_until
    17.19%     478000000  [.] cclab_engine::tcp::sender::Sender::on_ack
     0.50%      13900000  [k] exc_page_fault
"""

# `perf annotate --stdio -l`, trimmed: two source functions, four instructions (one before any source line).
ANNOTATE = """\
 Percent |      Source code & Disassembly of sim_base for cpu-clock (13000 samples, percent: local period)
    10.00 :   4b130:  mov    %rax,%rbx
         : 778   let (pkt, next) = self.links[l as usize].take_arrival(now, &mut self.lines);
         : 279   cclab_engine::net::line::Line::pop:
    30.00 :   4b164:  mov    0x140(%rdi,%r15,1),%rbx
    20.00 :   4b16c:  test   %rbx,%rbx // line.rs:92
         : 1719  alloc::collections::binary_heap::BinaryHeap<T,A>::sift_down_range:
    40.00 :   4b378:  cmp    %rcx,(%rax,%rsi,1) // cmp.rs:1922
"""


def test_report_lines_give_each_functions_sampled_time():
    periods = profile_flows.functions_from_report(REPORT)
    assert periods == {
        "cclab_engine::sim::Simulation::run_until": 1_623_200_000,
        "cclab_engine::tcp::sender::Sender::on_ack": 478_000_000,
        "exc_page_fault": 13_900_000,
    }


def test_annotated_instructions_are_charged_to_the_last_source_function_above_them():
    shares = profile_flows.inlined_from_annotate(ANNOTATE)
    assert shares == pytest.approx({
        "?": 0.10,
        "cclab_engine::net::line::Line::pop": 0.50,
        "alloc::collections::binary_heap::BinaryHeap<T,A>::sift_down_range": 0.40,
    })
    assert sum(shares.values()) == pytest.approx(1.0)


def test_the_profiled_function_is_found_by_the_end_of_its_name():
    periods = profile_flows.functions_from_report(REPORT)
    assert profile_flows.matching(periods, "Simulation::run_until") == "cclab_engine::sim::Simulation::run_until"
    assert profile_flows.matching(periods, "Receiver::on_data") is None


def test_rows_keep_what_reaches_the_bar_in_some_run_and_sum_the_rest():
    runs = [{"a": 5.0, "b": 0.4, "c": 0.2}, {"a": 6.0, "b": 2.0, "c": 0.3, "d": 0.1}]
    rows = profile_flows.ranked(runs, least=1.0)
    # a and b reach 1 ns in some run (b only in the second); c and d never do, and make up the rest
    assert rows == [("a", [5.0, 6.0]), ("b", [0.4, 2.0]), (profile_flows.REST, pytest.approx([0.2, 0.4]))]


def test_the_report_shows_both_tables_per_data_packet():
    one = profile_flows.Profile(1, 1000, 65.0, {"cclab_engine::sim::Simulation::run_until": 35.0},
                                {"cclab_engine::net::line::Line::pop": 8.8})
    ten = profile_flows.Profile(10, 2000, 120.0, {"cclab_engine::sim::Simulation::run_until": 69.8},
                                {"cclab_engine::net::line::Line::pop": 10.8})
    text = profile_flows.report([one, ten], "Simulation::run_until", least=1.0)
    assert "| ns per data packet (sampled) | 65.0 | 120.0 |" in text
    assert "| `sim::Simulation::run_until` | 35.0 | 69.8 |" in text
    assert "| `net::line::Line::pop` | 8.8 | 10.8 |" in text
    assert "| function | 1 flow | 10 flows |" in text


def test_a_function_never_sampled_is_said_so():
    run = profile_flows.Profile(2, 100, 80.0, {"cclab_engine::sim::Simulation::run_until": 40.0})
    assert "(no function ending in `Receiver::on_data` was sampled)" in profile_flows.report([run], "Receiver::on_data", 1.0)


@pytest.mark.parametrize("args, words", [
    (["--flows", "1,ten"], "--flows takes whole numbers"),
    (["--flows", "0"], "--flows takes flow counts of 1 or more"),
    (["--seconds", "0"], "--seconds and --frequency must be positive"),
])
def test_bad_arguments_name_the_option(args, words, capsys):
    with pytest.raises(SystemExit) as stop:
        profile_flows.main(args)
    assert stop.value.code == 2
    assert words in capsys.readouterr().err
