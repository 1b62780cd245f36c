"""Response functions and RTT unfairness under synchronised loss, after seed 003 (Xu, Harfoush, Rhee, "Binary
Increase Congestion Control for Fast Long-Distance Networks", INFOCOM 2004), Sections IV-VI.

A response function maps the loss event rate p (loss events per packet) to the mean window in packets
(the mean sending rate in packets per RTT: multiply by 1/RTT for packets per second).

- TCP (Reno): w = sqrt(3 / (2p)) ~ 1.22 / sqrt(p), the paper's AIMD formula with alpha 1, beta 1/2.
- AIMD(alpha, beta): w = sqrt(alpha/2 * (2 - beta)/beta / p) (Section VI-B, after eq. 6; ref. [18]).
- HSTCP: w = 0.12 / p^0.835, the line through (1e-3, 38) and (1e-7, 83000) of RFC 3649 Section 5.
  The paper's d = 0.82 (Section IV) is that slope rounded; `HSTCP_PAPER` is the line with d = 0.82 through
  the same (1e-7, 83000), the curve whose crossing with TCP is the paper's "window of 31" (Section VI-B.3).
- STCP: w = 0.08 / p (Kelly, "Scalable TCP", a = 0.01, b = 0.125: a window that loses b w every 1/p
  packets grows a per packet, so b w = a / p).
- BIC: eqs. (2)-(7). For W_max beta > 2 S_max, eq. (4) gives W_max and eq. (5) the rate; for
  W_max beta <= 2 S_max (no additive increase, N_1 = 0) W_max is the Lambert-W solution and the rate
  (1/p) / (log2(W_max beta / S_min) + 2).

RTT unfairness (Section IV): a protocol with w = c / p^d whose flows all lose at the same instants has
throughput ratio (RTT_2 / RTT_1)^(1 / (1 - d)): 2 for AIMD/TCP, 5.56 for HSTCP (d = 0.82), infinite for STCP.
For BIC, d is the local slope -dlog w / dlog p, from 1 at small windows to 1/2 at large ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

LN2 = math.log(2.0)


def tcp(p: float) -> float:
    """Reno's mean window (packets) at loss event rate p: sqrt(3 / (2p))."""
    return math.sqrt(1.5 / p)


def aimd(p: float, alpha: float = 32.0, beta: float = 0.125) -> float:
    """AIMD's mean window: sqrt(alpha/2 * (2 - beta)/beta / p); alpha packets per RTT, cut by beta w."""
    return math.sqrt(alpha / 2.0 * (2.0 - beta) / beta / p)


@dataclass(frozen=True)
class PowerLaw:
    """w = c / p^d (packets)."""
    c: float
    d: float

    def __call__(self, p: float) -> float:
        return self.c / p ** self.d


HSTCP = PowerLaw(c=0.12, d=0.835)          # RFC 3649 Section 5
HSTCP_PAPER = PowerLaw(c=83000.0 * 1e-7 ** 0.82, d=0.82)  # Section IV's d, through (1e-7, 83000)
STCP = PowerLaw(c=0.08, d=1.0)              # Kelly 2003


def lambert_w(y: float) -> float:
    """Principal branch of Lambert W for y >= 0: the x >= 0 with x e^x = y (Halley's iteration)."""
    if y < 0:
        raise ValueError("lambert_w is defined here for y >= 0 only")
    if y == 0:
        return 0.0
    x = math.log1p(y) if y < 3 else math.log(y) - math.log(math.log(y))
    for _ in range(50):
        ex = math.exp(x)
        f = x * ex - y
        step = f / (ex * (x + 1) - (x + 2) * f / (2 * x + 2))
        x -= step
        if abs(step) <= 1e-15 * max(1.0, abs(x)):
            break
    return x


@dataclass(frozen=True)
class Bic:
    """BIC's response function (Section VI-B.1), with the paper's S_max 32, S_min 0.01, beta 0.125."""
    s_max: float = 32.0
    s_min: float = 0.01
    beta: float = 0.125

    def w_max(self, p: float) -> float:
        """Window just before a loss event (packets): eq. (4), or the Lambert-W form when N_1 = 0."""
        beta, s_max, s_min = self.beta, self.s_max, self.s_min
        a = beta * (2 - beta) / (2 * s_max)
        b = math.log2(s_max / s_min) + (2 - beta) / 2
        c = s_max - s_min
        w = (-b + math.sqrt(b * b + 4 * a * (c + 1 / p))) / (2 * a)
        if w * beta > 2 * s_max:
            return w
        y = 4 * LN2 * beta * math.exp(-2 * LN2 * beta) / (p * s_min)
        return LN2 / (lambert_w(y) * p)

    def window(self, p: float) -> float:
        """Mean window (packets per RTT): eq. (5), or (1/p) / (log2(W_max beta / S_min) + 2) when N_1 = 0."""
        beta, s_max, s_min = self.beta, self.s_max, self.s_min
        w = self.w_max(p)
        if w * beta > 2 * s_max:
            a = beta * (2 - beta) / (2 * s_max)
            b = math.log2(s_max / s_min) + (2 - beta) / 2
            c = s_max - s_min
            return (2 - beta) / p / (math.sqrt(b * b + 4 * a * (c + 1 / p)) + (1 - beta) * b + beta * (2 - beta) / 2)
        return (1 / p) / (math.log2(w * beta / s_min) + 2)

    def __call__(self, p: float) -> float:
        return self.window(p)

    def large_window(self, p: float) -> float:
        """Eq. (6), valid when W_max beta >> S_max: AIMD with alpha = S_max."""
        return aimd(p, self.s_max, self.beta)


BIC = Bic()

RESPONSES: dict[str, Callable[[float], float]] = {
    "newreno": tcp, "aimd": aimd, "highspeed": HSTCP, "scalable": STCP, "bic": BIC,
}

# Below these windows (packets) each protocol runs standard TCP: HSTCP's Low_Window (RFC 3649 Section 5),
# STCP's legacy window (Kelly 2003), BIC's low_window (Section VI-A, set to the TCP crossing, 14).
LOW_WINDOW = {"highspeed": 38.0, "scalable": 16.0, "bic": 14.0}


def protocol_window(name: str, p: float) -> float:
    """The window a protocol's implementation keeps at loss event rate p: its own response function, or
    TCP's where that window is below the protocol's low window."""
    own = RESPONSES[name](p)
    return tcp(p) if own < LOW_WINDOW.get(name, 0.0) else own


def slope(response: Callable[[float], float], p: float, rel: float = 1e-3) -> float:
    """d = -dlog w / dlog p at p (central difference in log p)."""
    lo, hi = p * (1 - rel), p * (1 + rel)
    return -(math.log(response(hi)) - math.log(response(lo))) / (math.log(hi) - math.log(lo))


def rtt_unfairness_exponent(d: float) -> float:
    """Section IV: throughput ratio = (RTT_2 / RTT_1)^(1 / (1 - d)) under synchronised loss."""
    return math.inf if d >= 1.0 else 1.0 / (1.0 - d)


def crossing(f: Callable[[float], float], g: Callable[[float], float], p_lo: float, p_hi: float) -> float:
    """The loss rate in [p_lo, p_hi] where f(p) = g(p) (bisection in log p; f - g must change sign)."""
    def diff(p: float) -> float:
        return math.log(f(p)) - math.log(g(p))
    lo, hi = math.log(p_lo), math.log(p_hi)
    if diff(p_lo) * diff(p_hi) > 0:
        raise ValueError(f"the curves do not cross between p = {p_lo:g} and {p_hi:g}")
    for _ in range(200):
        mid = (lo + hi) / 2
        if diff(math.exp(lo)) * diff(math.exp(mid)) <= 0:
            hi = mid
        else:
            lo = mid
    return math.exp((lo + hi) / 2)
