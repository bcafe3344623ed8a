"""Square-root and banded square-root factorisation of the prefix-sum matrix ("sqrt" of :mod:`privopt.mechanisms.counting`).

The prefix-sum matrix A (T×T lower-triangular ones) is the Toeplitz matrix of 1/(1 − x); its square root is the
Toeplitz matrix C of (1 − x)^{−1/2} = Σ_k c_k x^k,  c_k = binom(2k, k)/4^k  (c_0 = 1, c_k = c_{k−1}(2k − 1)/(2k)),
A = C·C (Fichtenberger, Henzinger & Upadhyay, ICML 2023; Henzinger, Upadhyay & Upadhyay, SODA 2023).  The banded
square root C_b keeps the first b diagonals, c_k for k < b (Kalinin & Lampert, NeurIPS 2024); b ≥ T is the full
square root.  The mechanism releases A x + B z with B = A C_b^{-1}, i.e. B (C_b x + z): a Gaussian mechanism on
C_b x, post-processed.

Noise.  With d = the power series of 1/c_b(x) (d_0 = 1, d_n = −Σ_{k=1}^{min(n, b−1)} c_k d_{n−k}) and
D_n = Σ_{k≤n} d_k (the series of 1/((1 − x) c_b(x))),  B[t, s] = D_{t−s}, so

    Var N_i(t) = σ² · Σ_{n=0}^{t−1} D_n²;     for b ≥ T: D_n = c_n and Var N_i(t) = σ² Σ_{n<t} c_n².

Sensitivity (one item changed by at most Δ in ℓ2, single participation): max_s ‖C_b e_s‖₂·Δ
= Δ·sqrt(Σ_{k < min(b, T)} c_k²) (column s = 1 is the longest).  Under pure ε with ℓ2-Laplace seeds the cost is
the column's ℓ1 norm Σ_{k<min(b,T)} c_k ≈ 2√(min(b, T)/π), which is why the factorisation is offered for the
Gaussian guarantee only.

Streaming (O(b) per step): y_t = (z_t − Σ_{k=1}^{min(b,t)−1} c_k y_{t−k}) / c_0 (y = C_b^{-1} z), N(t) = Σ_{s≤t} y_s.
``buf`` rows: ring of the last b−1 values of y (rows 0 … b−2), the running sum (row b−1), the new draw (row b).
(By Eneström–Kakeya the zeros of c_b(x) lie in |x| ≥ 1 since 1 = c_0 ≥ c_1 ≥ … > 0: the recursion does not blow up.)
"""

from __future__ import annotations

import numba
import numpy as np

from privopt.mechanisms.node_noise import draw_node_into

__all__ = ["sqrt_coefficients", "banded_inverse_series", "sqrt_variance_factor", "sqrt_sensitivity_factor",
           "sqrt_l1_factor", "sqrt_state_rows", "sqrt_step", "sqrt_linear_maps"]


def sqrt_coefficients(n: int) -> np.ndarray:
    """c_k = binom(2k, k)/4^k for k = 0 … n−1 (by the ratio (2k − 1)/(2k), no overflow)."""
    c = np.empty(int(n))
    if n:
        c[0] = 1.0
    for k in range(1, int(n)):
        c[k] = c[k - 1] * (2 * k - 1) / (2 * k)
    return c


@numba.njit(cache=True)
def _inverse_series(c, n):
    d = np.zeros(n)
    if n == 0:
        return d
    d[0] = 1.0 / c[0]
    b = c.shape[0]
    for m in range(1, n):
        acc = 0.0
        top = m if m < b - 1 else b - 1
        for k in range(1, top + 1):
            acc += c[k] * d[m - k]
        d[m] = -acc / c[0]
    return d


def banded_inverse_series(T: int, bands: int) -> np.ndarray:
    """D_n = Σ_{k≤n} d_k, n = 0 … T−1, where d is the power series of 1/c_b(x): the entries B[t, s] = D_{t−s}."""
    b = min(int(bands), int(T))
    return np.cumsum(_inverse_series(sqrt_coefficients(b), int(T)))


def sqrt_variance_factor(T: int, bands: int) -> np.ndarray:
    """Σ_{n<t} D_n² for t = 1..T: Var N_i(t)/σ² (= Σ_{n<t} c_n² for bands ≥ T)."""
    D = banded_inverse_series(T, bands)
    return np.cumsum(D * D)


def sqrt_sensitivity_factor(T: int, bands: int) -> float:
    """max_s ‖C_b e_s‖₂ = sqrt(Σ_{k<min(b,T)} c_k²)."""
    c = sqrt_coefficients(min(int(bands), int(T)))
    return float(np.sqrt(np.sum(c * c)))


def sqrt_l1_factor(T: int, bands: int) -> float:
    """max_s ‖C_b e_s‖₁ = Σ_{k<min(b,T)} c_k: the pure-ε (ℓ2-Laplace) cost, ≈ 2√(min(b,T)/π)."""
    return float(np.sum(sqrt_coefficients(min(int(bands), int(T)))))


def sqrt_state_rows(bands: int) -> int:
    return int(bands) + 1


@numba.njit(cache=True, inline="always")
def sqrt_step(t, law, scale, p, b, c, buf, rng_state, gbuf, out):
    """Move to the release after item t ≥ 1 (t ≤ T), write N(t) into ``out[:p]``; ``c``: the b coefficients."""
    z = buf[b]
    draw_node_into(law, rng_state, p, scale, gbuf, buf, b)
    top = t - 1 if t - 1 < b - 1 else b - 1
    for k in range(1, top + 1):
        row = (t - 1 - k) % (b - 1)  # y_{t−k} lives in row (t−k−1) mod (b−1)
        ck = c[k]
        for i in range(p):
            z[i] -= ck * buf[row, i]
    inv = 1.0 / c[0]
    if b > 1:
        row = (t - 1) % (b - 1)
        for i in range(p):
            y = z[i] * inv
            buf[row, i] = y
            buf[b - 1, i] += y
            out[i] = buf[b - 1, i]
    else:
        for i in range(p):
            buf[b - 1, i] += z[i] * inv
            out[i] = buf[b - 1, i]


def sqrt_linear_maps(T: int, bands: int) -> tuple[np.ndarray, np.ndarray]:
    """(B, C_b): N = B z (z: one seed per item), B = A C_b^{-1} (Toeplitz of D), C_b banded Toeplitz of c."""
    T = int(T)
    b = min(int(bands), T)
    c = sqrt_coefficients(b)
    D = banded_inverse_series(T, b)
    idx = np.subtract.outer(np.arange(T), np.arange(T))
    B = np.where(idx >= 0, D[np.clip(idx, 0, T - 1)], 0.0)
    cc = np.zeros(T)
    cc[:b] = c
    C = np.where(idx >= 0, cc[np.clip(idx, 0, T - 1)], 0.0)
    return B, C
