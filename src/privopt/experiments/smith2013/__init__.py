"""Smith & Thakurta (NIPS 2013), private online learning: new figures illustrating its theorems.

The paper has no experiments; the figures are the project's design (docs/papers/smith2013.md, reading R12), proposing
figures ST-0 … ST-4, which this package runs on the Uber pickups (a unit disk about Midtown) and on a
synthetic stream.  ``paper`` declares them; ``instances`` builds the disk of pickups; ``streams``
draws the point streams; ``runs`` runs PFTAL (:mod:`privopt.online.pftal.full`), bandit PFTAL
(:mod:`privopt.online.pftal.bandit`) and the TBAP diagnostic; ``tables`` aggregates; ``claims`` checks
the claims (smith2013 reading R13); ``privacy`` audits TBAP and PFTAL (each with a planted bug); ``cost`` prices jobs.
"""
