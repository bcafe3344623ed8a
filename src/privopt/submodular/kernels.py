"""Numba kernels of the private continuous greedy for the facility objective.

Their caller (and the public entry point) is
:func:`privopt.submodular.continuous_greedy.private_continuous_greedy`.
Notation and formulas follow chaturvedi2021 readings R1, R2, R5, R7, R18.  Both kernels take all randomness pre-drawn
(``gumbel`` and,
for G, the frozen uniforms ``R``) so that the numpy ``Generator`` of the caller
stays the only source of randomness.

Shared conventions
------------------
* Matroid: partition form ``part_of`` (n,), ``capacity`` (k,) (a uniform matroid
  is one part).  Candidates at step (t, i) are the elements u not in the current
  round's set B with load[part_of[u]] < capacity[part_of[u]] (chaturvedi2021 reading R2).
* Exponential mechanism with Δ = 1 by Gumbel-max (chaturvedi2021 reading R5):
  u* = argmax_{u ∈ Cand} ε0·w̃(u)/2 + gumbel[t, i, u]; ties → lowest index.
* Outputs: ``counts`` (n,) picks per element (y = counts·η), ``bases`` (T, r)
  picks in order (−1 where a round broke early), ``pick_scores`` (T, r) score of
  each pick (NaN padding), ``trace`` (T, r, n) every candidate's score when
  ``record`` is true (entries of non-candidates are left untouched).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def sample_buckets(R, thr):
    """Per element u, the samples j grouped by the bucket b of R[j, u].

    Bucket b means thr[b] <= R[j, u] < thr[b + 1] (thr increasing, thr[0] = 0,
    thr[-1] = +inf).  Returns ``start`` (n, nb + 1) and ``samples`` (n, s) with
    samples[u, start[u, b]:start[u, b + 1]] = {j : R[j, u] in bucket b}, sorted
    by j.  The bucket is found from the same float thresholds the set test
    r_j,u < thr[k_u] uses, so membership is exactly consistent (chaturvedi2021 readings R1, R18).
    """
    s, n = R.shape
    nb = thr.size - 1
    start = np.zeros((n, nb + 1), dtype=np.int64)
    samples = np.empty((n, s), dtype=np.int64)
    bucket = np.empty(s, dtype=np.int64)
    cnt = np.empty(nb, dtype=np.int64)
    for u in range(n):
        cnt[:] = 0
        for j in range(s):
            b = 0
            while R[j, u] >= thr[b + 1]:
                b += 1
            bucket[j] = b
            cnt[b] += 1
        acc = 0
        for b in range(nb):
            start[u, b] = acc
            acc += cnt[b]
        start[u, nb] = acc
        for b in range(nb):
            cnt[b] = start[u, b]
        for j in range(s):
            b = bucket[j]
            samples[u, cnt[b]] = j
            cnt[b] += 1
    return start, samples


@njit(cache=True)
def _mask_entry(dT, mk, out):
    """out[q] = Σ_p max(0, dmin[p] − dT[p, q]) with dmin = min over the rows in bitmask mk (1.0 if none)."""
    m, nr = dT.shape
    out[:] = 0.0
    for p in range(m):
        dmin = 1.0
        for q in range(nr):
            if (mk >> q) & 1 and dT[p, q] < dmin:
                dmin = dT[p, q]
        for q in range(nr):
            gap = dmin - dT[p, q]
            if gap > 0.0:
                out[q] += gap


@njit(cache=True)
def pcg_facility_G_kernel(dT, row_of, part_of, capacity, T, r, thr, eps0, R, gumbel, use_masks, record, trace):
    """Algorithm 1 (PCG) with the sampled proxy G on f(S) = Σ_p (1 − min_{l∈S} d[l, p]).

    dT: (m, n_rows) distinct rows of the distance matrix, transposed; element u
    has row ``row_of[u]``.  R: (s, n) frozen uniforms.  thr: (T + 2,) thresholds
    k·η (thr[T + 1] = inf): sample j contains u iff R[j, u] < thr[k_u] (strict, chaturvedi2021 reading R1).

    Per-sample state (chaturvedi2021 reading R18): H[j, q] = Σ_p max(0, Dmin[j, p] − d_q[p]) = f(R_j(y) + l) − f(R_j(y))
    for any element l with row q, where Dmin[j, p] = min_{l ∈ R_j(y)} d[l, p]
    (1.0 for the empty set, encoding f_p(∅) = 0).  Score (chaturvedi2021 reading R1):
        w̃(u) = G(y + η1_u) − G(y) = (1/s) Σ_{j ∈ J_u} H[j, row(u)],
        J_u = {j : thr[k_u] <= R[j, u] < thr[k_u + 1]}   (≈ ηs samples, pre-bucketed).
    After the pick of u*, only the samples in J_{u*} change.  Two ways to refresh H:
    * ``use_masks`` (few distinct rows; the caller uses it for n_rows <= 12): a sample's set matters only
      through the bitmask of distinct rows it contains; H rows are memoised per
      bitmask (table (2^n_rows, n_rows), filled lazily, O(m·n_rows) per new mask).
    * otherwise Dmin (s, m) is kept (rows initialised lazily) and H[j, :] is
      updated incrementally on the pickups p whose minimum dropped.
    Returns (counts, bases, pick_scores, value) with value = Σ picked scores
    = G(y_end) − G(0) (telescoping; G(0) = 0).
    """
    m, nr = dT.shape
    s, n = R.shape
    start, samples = sample_buckets(R, thr)

    H = np.empty((s, nr))
    if use_masks:
        n_masks = 1 << nr
        table = np.empty((n_masks, nr))
        have = np.zeros(n_masks, dtype=np.bool_)
        mask = np.zeros(s, dtype=np.int64)
        Dmin = np.empty((0, 0))
    else:
        table = np.empty((1, nr))
        have = np.zeros(1, dtype=np.bool_)
        mask = np.zeros(0, dtype=np.int64)
        Dmin = np.empty((s, m))
    _mask_entry(dT, 0, table[0])
    have[0] = True
    for j in range(s):
        for q in range(nr):
            H[j, q] = table[0, q]
    touched = np.zeros(s, dtype=np.bool_)

    counts = np.zeros(n, dtype=np.int64)
    bases = np.full((T, r), -1, dtype=np.int64)
    pick_scores = np.full((T, r), np.nan)
    in_b = np.zeros(n, dtype=np.bool_)
    load = np.zeros(capacity.size, dtype=np.int64)
    half = 0.5 * eps0
    inv_s = 1.0 / s
    value = 0.0
    for t in range(T):
        in_b[:] = False
        load[:] = 0
        for i in range(r):
            best = -np.inf
            ustar = -1
            wstar = 0.0
            for u in range(n):
                pu = part_of[u]
                if in_b[u] or load[pu] >= capacity[pu]:
                    continue
                k = counts[u]
                q = row_of[u]
                acc = 0.0
                for idx in range(start[u, k], start[u, k + 1]):
                    acc += H[samples[u, idx], q]
                w = acc * inv_s
                if record:
                    trace[t, i, u] = w
                key = half * w + gumbel[t, i, u]
                if key > best:
                    best = key
                    ustar = u
                    wstar = w
            if ustar < 0:
                break
            value += wstar
            bases[t, i] = ustar
            pick_scores[t, i] = wstar
            if not (t == T - 1 and i == r - 1):  # the final state is never scored
                k = counts[ustar]
                qs = row_of[ustar]
                if use_masks:
                    bit = np.int64(1) << qs
                    for idx in range(start[ustar, k], start[ustar, k + 1]):
                        j = samples[ustar, idx]
                        mk = mask[j] | bit
                        if mk != mask[j]:
                            mask[j] = mk
                            if not have[mk]:
                                _mask_entry(dT, mk, table[mk])
                                have[mk] = True
                            for q in range(nr):
                                H[j, q] = table[mk, q]
                else:
                    for idx in range(start[ustar, k], start[ustar, k + 1]):
                        j = samples[ustar, idx]
                        if not touched[j]:
                            touched[j] = True
                            for p in range(m):
                                Dmin[j, p] = 1.0
                        for p in range(m):
                            dn = dT[p, qs]
                            do = Dmin[j, p]
                            if dn < do:
                                # max(0, do − dq) − max(0, dn − dq) = do − max(dn, dq) if dq < do else 0
                                for q in range(nr):
                                    dq = dT[p, q]
                                    if dq < do:
                                        H[j, q] -= do - (dn if dn > dq else dq)
                                Dmin[j, p] = dn
            counts[ustar] += 1
            in_b[ustar] = True
            load[part_of[ustar]] += 1
    return counts, bases, pick_scores, value


@njit(cache=True)
def facility_F_rows(order, vs, q, grow):
    """Exact multilinear extension of the facility objective over distinct rows (chaturvedi2021 reading R7).

    Elements with identical distance rows are merged: row group g is "present" with
    probability q_g = 1 − Π_{u∈g} (1 − x_u) (f_p only sees whether some copy is in S).
    order[p] sorts the rows by increasing distance to pickup p (ties by row id),
    vs[p, k] = 1 − d[order[p, k], p].  With prefix products P_k = Π_{k'<k} (1 − q_{π(k')})
    and suffixes Suf_k = v_{π(k)} q_{π(k)} + (1 − q_{π(k)}) Suf_{k+1}, Suf_{n_rows} = 0:
        F_p = Suf_0,   ∂F_p/∂q_g = P_{k(g)} (v_{p,g} − Suf_{k(g)+1}).
    Writes Σ_p ∂F_p/∂q_g into ``grow`` and returns F = Σ_p F_p.  O(m · n_rows).
    """
    m, nr = order.shape
    suf = np.empty(nr + 1)
    grow[:] = 0.0
    total = 0.0
    for p in range(m):
        suf[nr] = 0.0
        for k in range(nr - 1, -1, -1):
            qg = q[order[p, k]]
            suf[k] = vs[p, k] * qg + (1.0 - qg) * suf[k + 1]
        total += suf[0]
        P = 1.0
        for k in range(nr):
            g = order[p, k]
            grow[g] += P * (vs[p, k] - suf[k + 1])
            P *= 1.0 - q[g]
            if P == 0.0:
                break
    return total


@njit(cache=True)
def group_update(g, x, grp_start, grp_members, q, others):
    """Recompute q_g = 1 − Π_{u∈g}(1 − x_u) and others[u] = Π_{v∈g, v≠u}(1 − x_v) for u ∈ g.

    others[u] = ∂q_g/∂x_u, so ∂F/∂x_u = others[u] · ∂F/∂q_{g(u)} (chain rule); computed
    with prefix/suffix products (no division, exact when some x_v = 1).
    """
    a = grp_start[g]
    b = grp_start[g + 1]
    acc = 1.0
    for idx in range(a, b):
        others[grp_members[idx]] = acc
        acc *= 1.0 - x[grp_members[idx]]
    q[g] = 1.0 - acc
    acc = 1.0
    for idx in range(b - 1, a - 1, -1):
        u = grp_members[idx]
        others[u] *= acc
        acc *= 1.0 - x[u]


@njit(cache=True)
def pcg_facility_F_kernel(order, vs, row_of, grp_start, grp_members, part_of, capacity, T, r, eta, eps0, gumbel, record, trace):
    """Algorithm 1 (PCG) with exact multilinear-extension scores (chaturvedi2021 reading R7).

    y = counts·η (clipped at 1).  Score of candidate u:
        w̃(u) = F(y + c_u 1_u) − F(y) = c_u · ∂F/∂x_u(y),   c_u = min(η, 1 − y_u),
    exact because F is multilinear (c_u = η whenever T·η = 1; the clip keeps
    y + c_u 1_u in [0, 1]^n when T·η > 1, matching G whose uniforms are < 1).
    ∂F/∂x_u = others[u] · ∂F/∂q_{row(u)} (see ``facility_F_rows``, ``group_update``).
    Returns (counts, bases, pick_scores, value) with value = F(min(counts·η, 1)).
    """
    n = row_of.size
    nr = order.shape[1]
    counts = np.zeros(n, dtype=np.int64)
    bases = np.full((T, r), -1, dtype=np.int64)
    pick_scores = np.full((T, r), np.nan)
    in_b = np.zeros(n, dtype=np.bool_)
    load = np.zeros(capacity.size, dtype=np.int64)
    x = np.zeros(n)
    q = np.zeros(nr)
    others = np.ones(n)
    grow = np.zeros(nr)
    half = 0.5 * eps0
    for t in range(T):
        in_b[:] = False
        load[:] = 0
        for i in range(r):
            facility_F_rows(order, vs, q, grow)
            best = -np.inf
            ustar = -1
            wstar = 0.0
            for u in range(n):
                pu = part_of[u]
                if in_b[u] or load[pu] >= capacity[pu]:
                    continue
                c = 1.0 - x[u]
                if eta < c:
                    c = eta
                w = c * others[u] * grow[row_of[u]]
                if record:
                    trace[t, i, u] = w
                key = half * w + gumbel[t, i, u]
                if key > best:
                    best = key
                    ustar = u
                    wstar = w
            if ustar < 0:
                break
            bases[t, i] = ustar
            pick_scores[t, i] = wstar
            counts[ustar] += 1
            xu = counts[ustar] * eta
            x[ustar] = xu if xu < 1.0 else 1.0
            group_update(row_of[ustar], x, grp_start, grp_members, q, others)
            in_b[ustar] = True
            load[part_of[ustar]] += 1
    value = facility_F_rows(order, vs, q, grow)
    return counts, bases, pick_scores, value
