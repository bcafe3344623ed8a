"""The toy paper's claims: the mean error of the Laplace mean is 1/(n·ε) (E|Lap(b)| = b); averaging k answers
of budget ε/k each, the mean squared error is 2k/(n·ε)² (Var Lap(b) = 2b²)."""

import numpy as np

from privopt.pipeline.claims import ClaimSet, Outcome, finite, fmt_sig

CLAIMS = ClaimSet("toy")


@CLAIMS.claim("F1.a", "fig1", "The mean absolute error is 1/(n·ε) at every ε.",
              "|mean error · n·ε − 1| ≤ 3 SEM·n·ε at every ε", needs=("fig1",))
def _f1a(tables, settings):
    t = tables["fig1"]
    scaled = t["mean"] * settings["n"] * t["eps"]
    tol = settings["sems"] * t["sem"] * settings["n"] * t["eps"]
    finite(scaled.to_numpy(), tol.to_numpy())
    return Outcome(", ".join(f"ε={e:g}: {fmt_sig(s)}" for e, s in zip(t["eps"], scaled)),
                   bool((np.abs(scaled - 1) <= tol).all()))


@CLAIMS.claim("D.a", "data", "The toy data set holds its 40 values, of mean 1/2, and the instance reads them all.",
              "n = 40 and |mean − 1/2| ≤ 1e-12", needs=("data",))
def _da(tables, settings):
    t = tables["data"]
    n, mean = int(t["n"].iloc[0]), float(t["mean"].iloc[0])
    return Outcome(f"n = {n}, mean = {mean:.12g}", bool(n == 40 and (t["n_instance"] == 40).all() and abs(mean - 0.5) <= 1e-12))


@CLAIMS.claim("F2.a", "fig2", "Averaging k answers of budget ε/k each, the mean squared error is 2k/(n·ε)².",
              "|mean error² · (n·ε)²/(2k) − 1| ≤ 3 SEM·(n·ε)²/(2k) at every k", needs=("fig2",))
def _f2a(tables, settings):
    t = tables["fig2"]
    unit = (settings["n"] * settings["repeat_eps"]) ** 2 / (2 * t["k"])
    scaled, tol = t["mean"] * unit, settings["sems"] * t["sem"] * unit
    finite(scaled.to_numpy(), tol.to_numpy())
    return Outcome(", ".join(f"k={k:g}: {fmt_sig(s)}" for k, s in zip(t["k"], scaled)),
                   bool((np.abs(scaled - 1) <= tol).all()))


def evaluate(tables, settings):
    return CLAIMS.evaluate(tables, settings)
