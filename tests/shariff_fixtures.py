"""Synthetic Shariff & Sheffet tables shared by the test modules (test_shariff2018, test_claim_outcomes)."""

from __future__ import annotations

import pandas as pd

from privopt.experiments.shariff2018 import runs


def synthetic_audit(n: int = 100) -> pd.DataFrame:
    """Audited rounds well inside every bound: NonPrivate (H = I) and two private variants, two gaps."""
    rows = []
    bounds = {"nonprivate": ("none", 1.0, 1.0, 0.0), "gaussian": ("gaussian", 9e4, 2.7e5, 28.0),
              "wishart": ("wishart", 1.7e5, 3.4e5, 204.0)}
    for gap in (0.0, 0.1):
        for variant, (mech, lo, hi, gamma) in bounds.items():
            for i in range(n):
                lam = (1.0, 1.0, 0.0) if mech == "none" else (1.5 * lo, 0.8 * hi, 0.3 * gamma)
                rows.append({"gap": gap, "variant": variant, "mechanism": mech, "seed": i % 4, "t": 10 + i,
                             "lambda_min_H": lam[0], "lambda_max_H": lam[1], "h_norm_Hinv": lam[2],
                             "conf_norm_V": 5.0, "beta": 20.0, "logdet_V": 50.0, "rho_min": lo, "rho_max": hi,
                             "gamma": gamma})
    return pd.DataFrame(rows, columns=list(runs.AUDIT_TABLE_COLUMNS))
