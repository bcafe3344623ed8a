"""Online learning algorithms (experts, online submodular maximisation, private follow-the-leader).

Private follow-the-approximate-leader (Smith & Thakurta 2013; docs/papers/smith2013.md, reading R6):
``losses`` (squared and Euclidean distance), ``projections`` (onto a ball),
``comparators`` (the best fixed decision), ``pftal`` (PFTAL, full information) and ``bandit_pftal``
(private bandit FTAL).  Their private prefix sums are the mechanism TBAP (:mod:`privopt.mechanisms.tbap`: the
dyadic tree of :mod:`privopt.mechanisms.tree` with ℓ2-Laplace nodes).
"""
