"""The toy paper's cost model: the seconds and the memory of one run job (docs/adding-a-paper.md).

A job draws the n data values once and, per seed, one Laplace draw per answer (k answers in the
``repeat`` experiment, one in ``laplace``); the constant is a generous bound, not a measurement.
"""

#: seconds per data value and answer of one seed (generous: a job takes milliseconds)
SECONDS_PER_VALUE = 1e-6


#: seconds of a job of the experiment ``data`` (the mean of the toy data set's 40 values, one seed)
DATA_S = 0.1


def job_seconds(experiment, settings, point, n_seeds) -> float:
    """The cost model (one for the paper: the protocol passes the experiment; it dispatches on its name)."""
    name = experiment.name
    if name == "data":
        return DATA_S
    return SECONDS_PER_VALUE * n_seeds * settings["n"] * point.get("k", 1)


def data_mb(experiment, settings, point, n_seeds) -> float:
    """The data array (8 bytes a value)."""
    return 8 * settings["n"] / 1e6


def summary() -> list[str]:
    return [f"{SECONDS_PER_VALUE:g} s per value, answer and seed (a bound, not a measurement)"]
