"""Online learning algorithms (experts, online submodular maximisation, private follow-the-leader).

Private follow-the-approximate-leader (Smith & Thakurta 2013; docs/papers/smith2013.md, reading R6):
``tbap`` (the tree-based aggregation protocol: the dyadic tree of :mod:`privopt.mechanisms.tree` with
ℓ2-Laplace nodes), ``losses`` (squared and Euclidean distance), ``projections`` (onto a ball),
``comparators`` (the best fixed decision), ``pftal`` (PFTAL, full information) and ``bandit_pftal``
(private bandit FTAL).
"""
