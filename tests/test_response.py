"""Response functions of seed 003 (BIC paper, Sections IV-VI) at points worked out by hand."""

import math
import os

import pytest

from cclab.analysis.response import (BIC, HSTCP, HSTCP_PAPER, STCP, aimd, crossing, lambert_w,
                                     rtt_unfairness_exponent, slope, tcp)


def test_tcp_and_aimd():
    # sqrt(1.5 / 0.01) = sqrt(150) = 12.247; AIMD(32, 0.125): sqrt(16 * 15 / 1e-4) = sqrt(2.4e6) = 1549.19.
    assert tcp(0.01) == pytest.approx(12.2474, abs=1e-4)
    assert aimd(1e-4) == pytest.approx(1549.193, abs=1e-3)
    # AIMD(1, 0.5) is TCP: sqrt(0.5 * 1.5 / 0.5 / p).
    assert aimd(1e-3, 1.0, 0.5) == pytest.approx(tcp(1e-3), rel=1e-12)


def test_hstcp_and_stcp():
    # RFC 3649: 0.12 * 1e3^0.835 = 0.12 * 10^2.505 = 0.12 * 319.9 = 38.39; at 1e-7: 0.12 * 10^5.845 = 83 981.
    assert HSTCP(1e-3) == pytest.approx(38.39, abs=0.01)
    assert HSTCP(1e-7) == pytest.approx(83981, rel=1e-4)
    assert HSTCP_PAPER(1e-7) == pytest.approx(83000, rel=1e-12)
    assert STCP(1e-3) == pytest.approx(80.0, rel=1e-12)


def test_lambert_w():
    # W(1) = Omega = 0.5671433; W(e) = 1; W(0) = 0.
    assert lambert_w(1.0) == pytest.approx(0.5671433, abs=1e-7)
    assert lambert_w(math.e) == pytest.approx(1.0, abs=1e-12)
    assert lambert_w(0.0) == 0.0


def test_bic_small_window_is_the_lambert_branch():
    # p = 0.01, beta 0.125, S_min 0.01: y = 4 ln2 * 0.125 * e^(-2 ln2 * 0.125) / (0.01 * 0.01)
    # = 0.34657 * 0.84090 / 1e-4 = 2914.6; W(2914.6) = 6.1595 (6.1595 e^6.1595 = 2914.6);
    # W_max = ln2 / (6.1595 * 0.01) = 11.253; W_max beta = 1.41 <= 2 S_max = 64, so N_1 = 0 and
    # R = 100 / (log2(11.253 * 0.125 / 0.01) + 2) = 100 / (7.136 + 2) = 10.946.
    assert BIC.w_max(0.01) == pytest.approx(11.253, abs=1e-3)
    assert BIC(0.01) == pytest.approx(10.946, abs=1e-3)


def test_bic_large_window_is_eq_4_and_5():
    # p = 1e-6: a = 0.125 * 1.875 / 64 = 0.0036621; b = log2(3200) + 0.9375 = 12.5813; c = 31.99;
    # sqrt(b^2 + 4a(c + 1e6)) = sqrt(158.29 + 14648.9) = 121.685; W_max = (121.685 - 12.581) / 0.0073242
    # = 14 896; R = 1.875e6 / (121.685 + 0.875 * 12.5813 + 0.1172) = 1.875e6 / 132.81 = 14 118.
    assert BIC.w_max(1e-6) == pytest.approx(14896, abs=1)
    assert BIC(1e-6) == pytest.approx(14118, abs=1)
    # Eq. (6): for W_max beta >> S_max BIC is AIMD(32, 0.125): within 1 % at p = 1e-8 (W ~ 1.5e5).
    assert BIC(1e-8) / aimd(1e-8) == pytest.approx(1.0, abs=0.01)


def test_crossing_points_of_section_vi():
    # BIC crosses TCP "around p = 1e-2 ... at the window size of 14": here p = 7.4e-3, w = 14.3.
    p = crossing(BIC, tcp, 1e-3, 1e-1)
    assert p == pytest.approx(7.36e-3, rel=0.01)
    assert tcp(p) == pytest.approx(14.3, abs=0.1)
    # STCP: 0.08 / p = sqrt(1.5 / p) -> p = 0.0064 / 1.5 = 4.267e-3, w = 0.08 / p = 18.75 (the paper's 16 is
    # STCP's legacy window, below which it runs TCP).
    assert tcp(crossing(STCP, tcp, 1e-5, 1e-1)) == pytest.approx(18.75, rel=1e-6)
    # HSTCP with the paper's d = 0.82 through (1e-7, 83000): 32.2 (paper: 31); RFC 3649's line meets TCP at
    # its Low_Window 38 (39.2 with TCP as sqrt(1.5 / p) rather than the RFC's 1.2 / sqrt(p)).
    assert tcp(crossing(HSTCP_PAPER, tcp, 1e-5, 1e-1)) == pytest.approx(32.2, abs=0.1)
    assert tcp(crossing(HSTCP, tcp, 1e-5, 1e-1)) == pytest.approx(39.2, abs=0.1)


def test_rtt_unfairness_exponents():
    # Section IV: 1 / (1 - d): AIMD 2, HSTCP (d = 0.82) 5.56, STCP infinite.
    assert rtt_unfairness_exponent(slope(aimd, 1e-4)) == pytest.approx(2.0, rel=1e-6)
    assert rtt_unfairness_exponent(HSTCP_PAPER.d) == pytest.approx(5.556, abs=1e-3)
    assert rtt_unfairness_exponent(STCP.d) == math.inf
    # BIC's slope falls from near 1 at small windows toward 1/2 at large ones (Section VI-B.2).
    assert slope(BIC, 1e-3) > 0.85 and slope(BIC, 1e-8) < 0.51


def test_protocols_run_tcp_below_their_low_window():
    from cclab.analysis.response import protocol_window
    # p = 1e-2: STCP's own 0.08 / 0.01 = 8 < 16 and HSTCP's 5.6 < 38, so both are TCP's 12.25; at 1e-3
    # STCP's 80 stands. BIC's 10.95 at 1e-2 is below its low_window 14: TCP.
    assert protocol_window("scalable", 1e-2) == pytest.approx(12.247, abs=1e-3)
    assert protocol_window("highspeed", 1e-2) == pytest.approx(12.247, abs=1e-3)
    assert protocol_window("bic", 1e-2) == pytest.approx(12.247, abs=1e-3)
    assert protocol_window("scalable", 1e-3) == pytest.approx(80.0, rel=1e-12)


def test_cclab_response_without_simulation_draws_and_tabulates(tmp_path):
    # The formulas alone: four figures, and the page with BIC's crossing of TCP at window 14.3 (the paper's
    # 14; tested above) and Section IV's exponent 5.56 for HSTCP (1 / (1 - 0.82)).
    from cclab.cli import main

    with pytest.raises(SystemExit) as done:
        main(["response", "--no-simulation", "--store", str(tmp_path / "store"), "--out", str(tmp_path / "out")])
    assert done.value.code == 0
    for figure in ("response-fig4", "response-fig6", "response-fig7", "response-fig8"):
        assert (tmp_path / "out" / f"{figure}.png").stat().st_size > 0
    page = (tmp_path / "out" / "response.md").read_text()
    assert "| BIC crosses TCP | 0.00736 | 14.3 |" in page
    assert "| HSTCP (d = 0.82) | 0.820 | 5.56 | 447 |" in page
    assert "not in the store" in page


def test_cclab_response_reads_stored_points_while_a_reproduction_writes_the_study(tmp_path, capsys):
    # Session 5 left `cclab response` refusing whenever another sweep held seed 003's lock, even with every
    # point stored. Now: with the lock held by another writer and nothing stored, it draws the formulas and
    # says who holds the lock; once the 15 quick points are stored, it draws them, lock held or not.
    from engine_required import need

    need("cclab._engine")
    from cclab.cli import main
    from cclab.store import StudyStore, results_version

    store = StudyStore(tmp_path / "store", "seed003", results_version())
    arguments = ["response", "--quick", "--store", str(tmp_path / "store"), "--out", str(tmp_path / "out")]

    def respond() -> tuple[str, str]:
        with pytest.raises(SystemExit) as done:
            main(arguments)
        assert done.value.code == 0
        captured = capsys.readouterr()
        return captured.err, (tmp_path / "out" / "response.md").read_text()

    with store.lock():
        err, page = respond()
    assert "15 of the 15 runs asked for are not in the store" in err
    assert f"(pid {os.getpid()}, since " in err and "Drawing the 0 simulated points stored so far" in err
    assert "Simulated against analytic" not in page
    # The points below p = 1e-5 are drawn when stored, never computed here; it says how to get them.
    assert ("p below 1e-5: seed003-response-low: 0 of 2 runs stored; `cclab reproduce seed003 --only "
            "response-low --quick` computes them") in err
    err, page = respond()          # computes the 15 runs
    assert "warning" not in err and len(store.stored_keys()) == 15
    with store.lock():
        err, again = respond()     # reads them, lock or no lock
    assert "warning" not in err and again == page
    assert "| TCP | 0.01 |" in page
