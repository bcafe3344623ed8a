"""The toy paper's claim: the mean error of the Laplace mean is 1/(n·ε) (E|Lap(b)| = b)."""

import numpy as np

from privopt.pipeline.claims import ClaimSet, Outcome, finite, fmt_sig

CLAIMS = ClaimSet("toy")


@CLAIMS.claim("F1.a", "fig1", "The mean absolute error is 1/(n·ε) at every ε.",
              "|mean error · n·ε − 1| ≤ 3 SEM·n·ε at every ε", needs=("fig1",))
def _f1a(tables, settings):
    t = tables["fig1"]
    scaled = t["mean"] * settings["n"] * t["eps"]
    tol = 3 * t["sem"] * settings["n"] * t["eps"]
    finite(scaled.to_numpy(), tol.to_numpy())
    return Outcome(", ".join(f"ε={e:g}: {fmt_sig(s)}" for e, s in zip(t["eps"], scaled)),
                   bool((np.abs(scaled - 1) <= tol).all()))


@CLAIMS.claim("D.a", "data", "The toy data set holds its 40 values, of mean 1/2, and the instance reads them all.",
              "n = 40 and |mean − 1/2| ≤ 1e-12", needs=("data",))
def _da(tables, settings):
    t = tables["data"]
    n, mean = int(t["n"].iloc[0]), float(t["mean"].iloc[0])
    return Outcome(f"n = {n}, mean = {mean:.12g}", bool(n == 40 and (t["n_instance"] == 40).all() and abs(mean - 0.5) <= 1e-12))


def evaluate(tables, settings):
    return CLAIMS.evaluate(tables, settings)
