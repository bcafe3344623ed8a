"""Smith & Thakurta (NIPS 2013), private online learning: new figures illustrating its theorems.

The paper has no experiments; spec ``shared/specs/online-convex-and-submodular-min.md`` §3.2 proposes
figures ST-0 … ST-4, which this package runs on the Uber pickups (a unit disk about Midtown) and on a
synthetic stream.  ``paper`` declares them; ``instances`` builds the disk of pickups; ``streams``
draws the point streams; ``runs`` runs PFTAL (:mod:`privopt.online.pftal`), bandit PFTAL
(:mod:`privopt.online.bandit_pftal`) and the TBAP diagnostic; ``tables`` aggregates; ``claims`` checks
the spec's claims; ``privacy`` audits TBAP and PFTAL (each with a planted bug); ``cost`` prices jobs.
"""
