"""Choosing output events on one half of the samples and bounding ε on the other half.

The samples of M(D) and M(D') are split into a *selection* half (the first half of each
sample array; the draws are i.i.d., so any fixed split is a random split) and a
*held-out* half.  Events are chosen on the selection half only and then evaluated on
the held-out half, so the Clopper–Pearson intervals of :mod:`privopt.audit.stats` are
valid for them (choosing and evaluating on the same samples inflates ε_lb — a tight
mechanism would then show false violations).

Event families
--------------
* **Discrete outputs** (an index, a pick sequence, a set — encoded as int64 codes):
  for each direction (D over D', and D' over D) the outcomes are sorted by their
  smoothed empirical ratio (c_num + ½)/(c_den + ½) on the selection half, and the
  candidate events are the unions of the top j outcomes, j = 1..``max_size``.
* **A privacy-loss statistic** (:func:`audit_statistic`; the audit supplies t(x), e.g. the exact
  privacy loss log p_D(x)/p_D'(x) of the correct mechanism, or a node-wise sum of log-density ratios):
  the events {t ≥ c} and {t ≤ c} for c on a grid of selection-half quantiles that is dense in both
  tails (where the best events of a pure-ε bound lie).  By the Neyman–Pearson lemma the level sets of
  the privacy loss are the most powerful events, so this family reaches the exact ε of the pair as the
  samples grow (an atom at the maximal loss, as for the Laplace mechanism, is hit exactly by ≥).
* **Continuous outputs** (an (n, k) array): a linear statistic t = X·w with w chosen on
  the selection half (Fisher's discriminant, w = (S + λI)⁻¹(mean_D − mean_D'), or a
  given vector), and the events {t > c}, {t < c} for c on a grid of selection-half
  quantiles.

Every candidate is scored on the selection half with the same bound that the held-out
half will use; the best ``n_events`` per direction are kept, so k ≤ 2·n_events events
are tested and each one-sided interval has error α/(2k) (Bonferroni).  The returned
ε_lb (the maximum over tested events, floored at 0) is a lower bound on the true ε with
confidence ≥ 1 − α.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privopt.audit.stats import event_eps_lower_bound

__all__ = ["Evidence", "audit_discrete", "audit_continuous", "audit_statistic", "statistic_thresholds", "split_halves",
           "fisher_direction"]


@dataclass(frozen=True)
class Evidence:
    """Outcome of one audit of a pair of sample sets.

    eps_lb: max over the tested events of log((P0_lo − δ)/P1_hi), floored at 0.
    confidence: 1 − α.
    direction: "D/D'" (numerator M(D)) or "D'/D".
    event: text description of the best event.
    k_num, n_num, k_den, n_den: held-out counts of the best event (numerator, denominator).
    p_num_lo, p_den_hi: its Clopper–Pearson bounds.
    n_tested: number of events evaluated on the held-out half.
    """

    eps_lb: float
    confidence: float
    direction: str
    event: str
    k_num: int
    n_num: int
    k_den: int
    n_den: int
    p_num_lo: float
    p_den_hi: float
    n_tested: int


def split_halves(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(selection, held-out): the first ⌊n/2⌋ samples and the rest."""
    h = samples.shape[0] // 2
    return samples[:h], samples[h:]


def _best(cands, delta, level, count):
    """Score candidates [(direction, key, k_num, n_num, k_den, n_den)] and keep the best per direction."""
    keep = []
    for direction in (0, 1):
        scored = []
        for c in cands:
            if c[0] != direction:
                continue
            eps, _, _ = event_eps_lower_bound(c[2], c[3], c[4], c[5], delta, level)
            # tie-break on the plain log-ratio so that events with no selection evidence are still ordered
            ratio = math.log((c[2] + 0.5) / (c[3] + 1.0)) - math.log((c[4] + 0.5) / (c[5] + 1.0))
            scored.append((eps, ratio, c[1]))
        scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
        seen = set()
        for eps, ratio, key in scored:
            if key in seen:
                continue
            seen.add(key)
            keep.append((direction, key))
            if len([k for k in keep if k[0] == direction]) >= count:
                break
    return keep


def _both_directions(cands: list, key, k0: int, n0: int, k1: int, n1: int) -> None:
    """The selection-half candidates of one event: D/D' (direction 0) and D'/D (direction 1)."""
    cands.append((0, key, int(k0), n0, int(k1), n1))
    cands.append((1, key, int(k1), n1, int(k0), n0))


def _threshold_count(h: np.ndarray, key) -> int:
    """How many values of ``h`` lie in the event {t side c}, ``key`` = (side, c), side ">", ">=" or "<="."""
    side, c = key
    if side == ">":
        return int((h > c).sum())
    if side == ">=":
        return int((h >= c).sum())
    return int((h <= c).sum())


def _held_out(chosen, h0: np.ndarray, h1: np.ndarray, count, describe, delta: float, level: float, alpha: float,
              n_tested: int) -> Evidence:
    """Each chosen (direction, event) evaluated on the held-out halves ``h0``, ``h1`` (``count(h, event)``: how
    many outputs of h lie in it; ``describe(event)``: its text); the best lower bound."""
    results = []
    for direction, key in chosen:
        k0 = count(h0, key)
        k1 = count(h1, key)
        kn, nn, kd, nd = (k0, h0.size, k1, h1.size) if direction == 0 else (k1, h1.size, k0, h0.size)
        eps, lo, hi = event_eps_lower_bound(kn, nn, kd, nd, delta, level)
        results.append((eps, direction, describe(key), kn, nn, kd, nd, lo, hi))
    if not results:  # no selection data at all
        results.append((-math.inf, 0, "none", 0, h0.size, 0, h1.size, 0.0, 1.0))
    return _finish(results, alpha, n_tested)


def _finish(results, alpha, n_tested) -> Evidence:
    best = max(results, key=lambda r: r[0])
    eps, direction, desc, k_num, n_num, k_den, n_den, lo, hi = best
    return Evidence(
        eps_lb=float(max(0.0, eps)),
        confidence=1.0 - alpha,
        direction="D/D'" if direction == 0 else "D'/D",
        event=desc,
        k_num=int(k_num),
        n_num=int(n_num),
        k_den=int(k_den),
        n_den=int(n_den),
        p_num_lo=float(lo),
        p_den_hi=float(hi),
        n_tested=n_tested,
    )


def audit_discrete(out0, out1, delta: float, *, alpha: float = 0.05, n_events: int = 4, max_size: int = 16,
                   describe=None) -> Evidence:
    """ε lower bound from discrete outputs (int64 outcome codes) of M(D) (``out0``) and M(D') (``out1``).

    ``describe(codes) -> str`` renders an event (a sorted tuple of codes) for the report.
    """
    out0 = np.asarray(out0, dtype=np.int64).ravel()
    out1 = np.asarray(out1, dtype=np.int64).ravel()
    s0, h0 = split_halves(out0)
    s1, h1 = split_halves(out1)
    n_tested = 2 * n_events
    level = alpha / (2 * n_tested)
    codes, inv = np.unique(np.concatenate([s0, s1]), return_inverse=True)
    c0 = np.bincount(inv[: s0.size], minlength=codes.size)
    c1 = np.bincount(inv[s0.size:], minlength=codes.size)
    cands = []
    for direction, (a, na, b, nb) in enumerate(((c0, s0.size, c1, s1.size), (c1, s1.size, c0, s0.size))):
        ratio = np.log((a + 0.5) / (na + 1.0)) - np.log((b + 0.5) / (nb + 1.0))
        order = np.lexsort((codes, -ratio))
        ka = kb = 0
        for j in range(min(max_size, codes.size)):
            ka += int(a[order[j]])
            kb += int(b[order[j]])
            key = tuple(sorted(int(c) for c in codes[order[: j + 1]]))
            cands.append((direction, key, ka, na, kb, nb))
    chosen = _best(cands, delta, level, n_events)
    if describe is None:
        def describe(key):
            return "outcome in {" + ", ".join(map(str, key)) + "}"
    return _held_out(chosen, h0, h1, lambda h, key: int(np.isin(h, np.array(key, dtype=np.int64)).sum()), describe,
                     delta, level, alpha, n_tested)


def fisher_direction(x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    """Fisher's discriminant w = (S + λI)⁻¹(mean0 − mean1), S the pooled covariance, λ = 1e-9·tr(S)/k + tiny."""
    x0 = np.asarray(x0, dtype=np.float64)
    x1 = np.asarray(x1, dtype=np.float64)
    diff = x0.mean(axis=0) - x1.mean(axis=0)
    if x0.shape[1] == 1:
        return np.array([1.0 if diff[0] >= 0 else -1.0])
    s = 0.5 * (np.cov(x0, rowvar=False) + np.cov(x1, rowvar=False))
    lam = 1e-9 * float(np.trace(s)) / s.shape[0] + 1e-300
    w = np.linalg.solve(s + lam * np.eye(s.shape[0]), diff)
    norm = float(np.linalg.norm(w))
    return w / norm if norm > 0 else np.eye(x0.shape[1])[0]


def audit_continuous(out0, out1, delta: float, *, alpha: float = 0.05, n_events: int = 4, n_thresholds: int = 99,
                     direction_vector=None, labels=None) -> Evidence:
    """ε lower bound from real-valued outputs ((n,) or (n, k) arrays) by thresholds on a linear statistic.

    The statistic is t = X·w with w = ``direction_vector`` if given, else Fisher's direction
    fitted on the selection half; thresholds are the j/(n_thresholds + 1) quantiles of the
    pooled selection-half statistic.  ``labels`` (k names) are used to describe w.
    """
    x0 = np.asarray(out0, dtype=np.float64)
    x1 = np.asarray(out1, dtype=np.float64)
    if x0.ndim == 1:
        x0, x1 = x0[:, None], x1[:, None]
    s0, h0 = split_halves(x0)
    s1, h1 = split_halves(x1)
    w = np.asarray(direction_vector, dtype=np.float64) if direction_vector is not None else fisher_direction(s0, s1)
    t_s0, t_s1, t_h0, t_h1 = s0 @ w, s1 @ w, h0 @ w, h1 @ w
    n_tested = 2 * n_events
    level = alpha / (2 * n_tested)
    grid = np.unique(np.quantile(np.concatenate([t_s0, t_s1]), np.arange(1, n_thresholds + 1) / (n_thresholds + 1)))
    srt0, srt1 = np.sort(t_s0), np.sort(t_s1)
    cands = []
    for c in grid:
        above0 = srt0.size - np.searchsorted(srt0, c, side="right")
        above1 = srt1.size - np.searchsorted(srt1, c, side="right")
        below0, below1 = srt0.size - above0, srt1.size - above1
        for side, k0, k1 in ((">", above0, above1), ("<=", below0, below1)):
            _both_directions(cands, (side, float(c)), k0, srt0.size, k1, srt1.size)
    chosen = _best(cands, delta, level, n_events)
    if labels is not None and len(labels) == w.size:
        terms = [f"{wi:+.3g}*{lab}" for wi, lab in zip(w, labels) if abs(wi) > 1e-3]
        stat = " ".join(terms) if terms else "0"
    else:
        stat = "t" if w.size == 1 else "w.x"
    return _held_out(chosen, t_h0, t_h1, _threshold_count, lambda key: f"{stat} {key[0]} {key[1]:.6g}", delta, level,
                     alpha, n_tested)


def statistic_thresholds(t_sel: np.ndarray, n_linear: int = 99, n_tail: int = 40) -> np.ndarray:
    """Thresholds: the j/(n_linear + 1) quantiles of the pooled selection-half statistic and, in each tail,
    the quantiles at 10^-k (k from 0.5 to log10 of the sample size, ``n_tail`` points): the unique values."""
    t_sel = np.asarray(t_sel, dtype=np.float64)
    n = max(t_sel.size, 2)
    lin = np.arange(1, n_linear + 1) / (n_linear + 1)
    tail = np.logspace(-0.5, -math.log10(n), n_tail)
    levels = np.concatenate([lin, tail, 1.0 - tail])
    return np.unique(np.quantile(t_sel, np.clip(levels, 0.0, 1.0), method="inverted_cdf"))


def audit_statistic(t0, t1, delta: float, *, alpha: float = 0.05, n_events: int = 4, label: str = "t") -> Evidence:
    """ε lower bound from a real statistic t of the outputs of M(D) (``t0``) and M(D') (``t1``): events
    {t ≥ c} and {t ≤ c}, c from :func:`statistic_thresholds` of the selection halves, the best
    ``n_events`` per direction evaluated on the held-out halves (Bonferroni over 2·n_events).

    ``t`` should order the outputs by their privacy loss (larger = more likely under D): then
    {t ≥ c} bounds ε in the direction D/D' and {t ≤ c} in D'/D.  Both event sides are tried in both
    directions, so a statistic of the opposite sign loses nothing.  ``label`` names t in the event text.
    """
    t0 = np.asarray(t0, dtype=np.float64).ravel()
    t1 = np.asarray(t1, dtype=np.float64).ravel()
    if not (np.isfinite(t0).all() and np.isfinite(t1).all()):
        raise ValueError("the audit statistic must be finite on every sample")
    s0, h0 = split_halves(t0)
    s1, h1 = split_halves(t1)
    n_tested = 2 * n_events
    level = alpha / (2 * n_tested)
    grid = statistic_thresholds(np.concatenate([s0, s1]))
    srt0, srt1 = np.sort(s0), np.sort(s1)
    ge0 = srt0.size - np.searchsorted(srt0, grid, side="left")
    ge1 = srt1.size - np.searchsorted(srt1, grid, side="left")
    le0 = np.searchsorted(srt0, grid, side="right")
    le1 = np.searchsorted(srt1, grid, side="right")
    cands = []
    for c, a0, a1, b0, b1 in zip(grid, ge0, ge1, le0, le1):
        for side, k0, k1 in ((">=", a0, a1), ("<=", b0, b1)):
            _both_directions(cands, (side, float(c)), k0, srt0.size, k1, srt1.size)
    chosen = _best(cands, delta, level, n_events)
    return _held_out(chosen, h0, h1, _threshold_count, lambda key: f"{label} {key[0]} {key[1]:.6g}", delta, level,
                     alpha, n_tested)
