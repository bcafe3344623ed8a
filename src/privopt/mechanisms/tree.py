"""Tree-based aggregation (binary mechanism) for private prefix sums under continual observation.

Shariff & Sheffet §4 and App. A.2, read as docs/papers/shariff2018.md, readings R4–R6; one implementation for every
paper that needs a private counter.  Items x_1, x_2, … (scalars, vectors or matrices of a fixed shape) arrive
one at a time; after s items the mechanism releases

    release(s) = Σ_{i≤s} x_i + N(s),

where N(s) is a sum of independent *node noises* η_{ℓ,j}, each attached once and for all to the
dyadic node (ℓ, j) covering items j·2^ℓ + 1 … (j+1)·2^ℓ (levels ℓ = 0 … m−1, m = 1 + ⌈log2 n⌉,
2^(m−1) ≥ n leaves).  Node noises come from a pluggable sampler ``f(rng) -> array`` (Gaussian,
symmetric Gaussian, Wishart, Laplace, …), so the privacy calibration lives with the sampler.

Constructions (``construction=``):

``"path"`` (default; the root-to-leaf path of shariff2018 reading R4, the authors' PanPrivTreeStrategy)
    N(s) = Σ_{ℓ=0}^{m−1} η_{ℓ, ⌊s/2^ℓ⌋} — **exactly m node noises in every release**, as the
    paper's accuracy bounds require (Wishart N_t ~ W(L̃²I, m·k); Gaussian variance m·σ²).
    The level-ℓ noise is shared by the 2^ℓ consecutive releases s ∈ [j·2^ℓ, (j+1)·2^ℓ).
    Moving from s−1 to s redraws levels ℓ = 0 … min(tz(s), m−1) (tz = trailing zero bits), i.e.
    1 + tz(s) draws: amortised 2 per item, worst case m (shariff2018 reading R5).
``"dyadic"`` (classic Chan–Shi–Song / Dwork et al. binary mechanism)
    N(s) = Σ over the popcount(s) dyadic nodes whose union is {1..s}: at most m noises.
``"dyadic_padded"``
    the dyadic noises plus m − popcount(s) *fresh* independent node noises (drawn when the
    release for s is formed), so again exactly m noises per release (the alternative of shariff2018 reading R4).

Privacy of "path" with the classic per-node calibration is argued in shariff2018 reading R4 (each item lies in
at most one left-sibling sum per level).  The noise is data-independent, so the implementation
keeps the exact prefix sum and the noise sum separately; this is exactly equivalent to storing
noisy node sums.

This is the one tree of the project; what differs between papers is only the node noise and the
construction.  Users:

* Shariff & Sheffet (private LinUCB, :mod:`privopt.bandits`): "path", symmetric Gaussian or
  Wishart nodes (:mod:`privopt.mechanisms.gaussian`, :mod:`privopt.mechanisms.wishart`);
* Smith & Thakurta (PFTAL, :mod:`privopt.mechanisms.tbap`): "dyadic" — the tree-based aggregation
  protocol (TBAP) of smith2013 reading R5 — with ℓ2-Laplace nodes
  (:mod:`privopt.mechanisms.laplace`).  At item s exactly one node noise is drawn, the one of the
  node (tz(s), s/2^tz(s) − 1) that completes; item t lies in the noised nodes
  :func:`dyadic_leaf_nodes` (at most m of them), so node noise calibrated to m·Δ/ε makes the
  released stream ε-DP.

For numba kernels the module exposes :func:`tree_depth` (the number of levels), :func:`trailing_zeros`, :func:`path_refresh_top`
(the level-ℓ node of leaf s is ⌊s/2^ℓ⌋, :func:`path_nodes`); the bandit kernel implements the "path" update with them (shariff2018 reading R5,
including the periodic exact recomputation of the noise sum, see :data:`EXACT_REFRESH_LEVEL`).
For "dyadic", :func:`dyadic_level` says which level an item completes and
:func:`dyadic_noise_update` keeps N(s) with the same additions in the same order as
:meth:`TreeAggregator.noise` (root side first), so a numba kernel and the class give bit-identical
releases for equal node noises.
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

__all__ = [
    "CONSTRUCTIONS",
    "EXACT_REFRESH_LEVEL",
    "tree_levels",
    "tree_depth",
    "trailing_zeros",
    "path_refresh_top",
    "path_nodes",
    "shared_path_levels",
    "dyadic_level",
    "dyadic_noise_update",
    "dyadic_nodes",
    "dyadic_leaf_nodes",
    "TreeAggregator",
]

CONSTRUCTIONS = ("path", "dyadic", "dyadic_padded")
#: The running noise sum is recomputed from the m stored noises whenever a refresh reaches this
#: level (every 2^10 = 1024 items), limiting floating-point drift of the add/subtract updates.
EXACT_REFRESH_LEVEL = 10


def tree_levels(n: int) -> int:
    """m = ⌈log2(n) + 1⌉ = 1 + ⌈log2 n⌉ levels for a horizon of n items: 2^(m−1) ≥ n leaves
    (shariff2018 reading R4).

    Exact integer arithmetic: ⌈log2 n⌉ = bit_length(n − 1).  27 for n = 5·10^7, 18 for 10^5.
    """
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    return 1 + (int(n) - 1).bit_length()


@numba.njit(cache=True, inline="always")
def tree_depth(n):
    """:func:`tree_levels` inside a numba kernel: m = 1 + ⌈log2 n⌉, the least m with 2^(m−1) ≥ n (1 for
    n ≤ 1; no argument check, the kernel's caller has made one)."""
    m = 1
    while (1 << (m - 1)) < n:
        m += 1
    return m


@numba.njit(cache=True, inline="always")
def trailing_zeros(s):
    """tz(s): number of trailing zero bits of an integer s ≥ 1 (tz(0) is defined as 63)."""
    if s == 0:
        return 63
    c = 0
    while (s & 1) == 0:
        s >>= 1
        c += 1
    return c


@numba.njit(cache=True, inline="always")
def path_refresh_top(s, m):
    """Highest level whose node changes when the leaf index moves from s−1 to s ≥ 1: min(tz(s), m−1).

    The level-ℓ node index ⌊s/2^ℓ⌋ changes iff 2^ℓ divides s, i.e. iff ℓ ≤ tz(s) (shariff2018 reading R5).
    """
    t = trailing_zeros(s)
    return t if t < m - 1 else m - 1


def path_nodes(s: int, m: int) -> list[tuple[int, int]]:
    """The m nodes (ℓ, ⌊s/2^ℓ⌋), ℓ = 0..m−1, whose noises make up the "path" release after s items."""
    return [(level, s >> level) for level in range(m)]


def shared_path_levels(s: int, t: int, m: int) -> int:
    """Number of node noises shared by the "path" releases after s and after t items.

    Levels ℓ with ⌊s/2^ℓ⌋ = ⌊t/2^ℓ⌋, i.e. ℓ ≥ bit_length(s XOR t): m − min(m, bit_length(s ^ t)).
    Hence Cov(N(s), N(t)) = shared_path_levels(s, t, m) · Cov(η) entrywise.
    """
    return m - min(m, (int(s) ^ int(t)).bit_length())


@numba.njit(cache=True, inline="always")
def dyadic_level(s):
    """Level tz(s) of the "dyadic" node that completes with item s ≥ 1 (its index is s/2^tz − 1)."""
    return trailing_zeros(s)


@numba.njit(cache=True, inline="always")
def dyadic_noise_update(eta, partial, s):
    """Move the "dyadic" noise sum to the release after item s ≥ 1; then N(s) = ``partial[0]``.

    ``eta`` (m, w): ``eta[tz(s)]`` holds the noise just drawn for the node item s completes.
    ``partial`` (m + 1, w), zero at the start, keeps ``partial[ℓ]`` = the sum of the node noises of
    the set bits ≥ ℓ of s, added from the highest level down (``partial[m]`` stays 0) — the order of
    :meth:`TreeAggregator.noise` for "dyadic", so releases are bit-identical to the class's.  Item s
    changes only the bits ≤ tz(s), so one addition and tz(s) copies (amortised 2 rows) per item,
    instead of popcount(s) additions.
    """
    lv = dyadic_level(s)
    w = eta.shape[1]
    for i in range(w):
        partial[lv, i] = partial[lv + 1, i] + eta[lv, i]
    for low in range(lv):
        for i in range(w):
            partial[low, i] = partial[lv, i]


def dyadic_nodes(s: int, m: int) -> list[tuple[int, int]]:
    """The popcount(s) nodes (ℓ, ⌊s/2^ℓ⌋ − 1), ℓ ascending over the set bits of s, whose union is items 1..s."""
    return [(level, (s >> level) - 1) for level in range(m) if (s >> level) & 1]


def dyadic_leaf_nodes(t: int, n: int) -> list[tuple[int, int]]:
    """The noised "dyadic" nodes holding item t (1-based) over a horizon of n items.

    Node (ℓ, j) covers items j·2^ℓ + 1 … (j+1)·2^ℓ and is noised when item (j+1)·2^ℓ completes it
    with tz((j+1)·2^ℓ) = ℓ, i.e. iff j is even and (j+1)·2^ℓ ≤ n.  At most m = tree_levels(n) nodes
    (exactly m for t = 1 and n a power of two): the count the per-node privacy budget divides by.
    """
    if not 1 <= t <= n:
        raise ValueError(f"need 1 <= t <= n, got t={t}, n={n}")
    out = []
    for level in range(tree_levels(n)):
        j = (t - 1) >> level
        if j % 2 == 0 and (j + 1) << level <= n:
            out.append((level, j))
    return out


class TreeAggregator:
    """Private running sum of items of a fixed shape with tree-based node noise.

    Parameters
    ----------
    n : horizon (maximum number of items); m = 1 + ⌈log2 n⌉ levels.
    shape : shape of one item (``()`` for scalars).
    node_sampler : ``f(rng) -> ndarray(shape)``, one independent node noise per call
        (e.g. :func:`privopt.mechanisms.gaussian.symmetric_gaussian_node_sampler`,
        :func:`privopt.mechanisms.wishart.wishart_node_sampler`).
    rng : ``numpy.random.Generator`` passed to every sampler call.
    construction : "path" (default), "dyadic" or "dyadic_padded" (module docstring).

    Draw order (relied upon by the bandit kernel tests): at construction, "path" draws levels
    0..m−1 in increasing order; on each :meth:`add`, levels 0..min(tz(s), m−1) in increasing order.
    "dyadic" draws the completed node's noise on :meth:`add`; "dyadic_padded" additionally draws
    its m − popcount(s) padding noises on :meth:`add` (and m of them at construction).

    Usage::

        tree = TreeAggregator(n, (d + 1, d + 1), wishart_node_sampler(d + 1, k, 2.0), rng)
        for t in range(1, n + 1):
            released = tree.release()          # = Σ_{s<t} z_s z_sᵀ + N_t  (t − 1 items so far)
            ...
            tree.add(np.outer(z, z))
    """

    def __init__(self, n: int, shape, node_sampler: Callable[[np.random.Generator], np.ndarray],
                 rng: np.random.Generator, *, construction: str = "path") -> None:
        if construction not in CONSTRUCTIONS:
            raise ValueError(f"construction must be one of {CONSTRUCTIONS}, got {construction!r}")
        self.n = int(n)
        self.m = tree_levels(n)
        self.shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(x) for x in shape)
        self.construction = construction
        self._sampler = node_sampler
        self._rng = rng
        self._count = 0
        self._sum = np.zeros(self.shape)
        self._draws = 0
        # level noises and their identities
        self._eta: list[np.ndarray | None] = [None] * self.m
        self._ids: list[tuple | None] = [None] * self.m
        self._pad: list[np.ndarray] = []
        self._pad_ids: list[tuple] = []
        if construction == "path":
            for level in range(self.m):
                self._set_level(level, 0)
        elif construction == "dyadic_padded":
            self._draw_padding()
        self._noise = self._recompute_noise()

    # -- internals -------------------------------------------------------------------------
    def _draw(self) -> np.ndarray:
        value = np.asarray(self._sampler(self._rng), dtype=np.float64)
        if value.shape != self.shape:
            raise ValueError(f"node sampler returned shape {value.shape}, expected {self.shape}")
        self._draws += 1
        return value

    def _set_level(self, level: int, index: int) -> None:
        self._eta[level] = self._draw()
        self._ids[level] = (level, index)

    def _draw_padding(self) -> None:
        k = self.m - bin(self._count).count("1")
        self._pad = [self._draw() for _ in range(k)]
        self._pad_ids = [("pad", self._count, i) for i in range(k)]

    def _active_levels(self) -> list[int]:
        if self.construction == "path":
            return list(range(self.m))
        return [lv for lv in range(self.m) if (self._count >> lv) & 1]

    def _recompute_noise(self) -> np.ndarray:
        # "path" adds its levels from the leaf up; the dyadic constructions from the root down (the
        # order in which :func:`dyadic_noise_update` reuses the sums of the unchanged high levels)
        levels = self._active_levels()
        if self.construction != "path":
            levels = levels[::-1]
        total = np.zeros(self.shape)
        for lv in levels:
            total = total + self._eta[lv]
        for p in self._pad:
            total = total + p
        return total

    # -- public API ------------------------------------------------------------------------
    @property
    def count(self) -> int:
        """Number of items added so far (s)."""
        return self._count

    @property
    def draws(self) -> int:
        """Total number of node noises drawn so far."""
        return self._draws

    def add(self, item) -> None:
        """Append item x_{s+1} and move the noise to the release for s + 1 items."""
        if self._count >= self.n:
            raise ValueError(f"tree horizon n = {self.n} exhausted")
        item = np.asarray(item, dtype=np.float64)
        if item.shape != self.shape:
            raise ValueError(f"item shape {item.shape} != {self.shape}")
        self._sum = self._sum + item
        self._count += 1
        s = self._count
        tz = (s & -s).bit_length() - 1
        if self.construction == "path":
            top = min(tz, self.m - 1)
            for level in range(top + 1):
                self._set_level(level, s >> level)
        else:
            # node (tz, s/2^tz − 1) completes; lower levels leave the decomposition
            self._set_level(tz, (s >> tz) - 1)
            for level in range(tz):
                self._eta[level] = None
                self._ids[level] = None
            if self.construction == "dyadic_padded":
                self._draw_padding()
        self._noise = self._recompute_noise()

    def noise(self) -> np.ndarray:
        """Current noise sum N(s) (a copy)."""
        return self._noise.copy()

    def exact_sum(self) -> np.ndarray:
        """Exact (non-private) prefix sum of the items added so far — for tests/diagnostics only."""
        return self._sum.copy()

    def release(self) -> np.ndarray:
        """Private prefix sum Σ_{i≤s} x_i + N(s)."""
        return self._sum + self._noise

    def node_ids(self) -> list[tuple]:
        """Identities of the noises in the current release: (level, index) per tree node,
        ("pad", s, i) for padding noises.  Its length is the number of noise terms."""
        ids = [self._ids[lv] for lv in self._active_levels()]
        return ids + list(self._pad_ids)

    def n_noises(self) -> int:
        """Number of node noises in the current release (m for "path"/"dyadic_padded")."""
        return len(self._active_levels()) + len(self._pad)
