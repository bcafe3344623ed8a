"""The toy paper's cost model: the seconds and the memory of one run job (docs/adding-a-paper.md).

A job draws the n data values once and, per seed, one Laplace draw per answer (k answers in the
``repeat`` experiment, one in ``laplace``); the constant is a generous bound, not a measurement.
"""

#: seconds per data value and answer of one seed (generous: a job takes milliseconds)
SECONDS_PER_VALUE = 1e-6


def job_seconds(settings, point, n_seeds) -> float:
    return SECONDS_PER_VALUE * n_seeds * settings["n"] * point.get("k", 1)


def data_mb(settings, point, n_seeds) -> float:
    """The data array (8 bytes a value)."""
    return 8 * settings["n"] / 1e6


def summary() -> list[str]:
    return [f"{SECONDS_PER_VALUE:g} s per value, answer and seed (a bound, not a measurement)"]
