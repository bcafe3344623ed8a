"""The toy paper's instance ``values``, which reads the toy data set (privopt.datasets.toy): ``build`` keeps
the values and their count and mean."""

from privopt.datasets.toy.reader import read_values


def build(name, settings, inputs):
    """Instance entry point: the data set's values and a summary."""
    values = read_values(inputs["values"])
    return {"values.parquet": values, "values.json": {"instance": name, "n": len(values),
                                                       "mean": float(values["value"].mean())}}
