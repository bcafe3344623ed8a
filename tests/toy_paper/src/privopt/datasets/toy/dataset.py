"""The toy data set of the tests: 40 values in [0, 1], written by its fetch step from nothing.

It plugs into the workflow through the public mechanism alone: this declaration and the steps beside it
(privopt.datasets.toy.fetch, .parse), read through privopt.datasets.toy.reader by the toy paper's instance
``values``; no generic file names it.
"""

from privopt.pipeline.datasets import Dataset

DATASET = Dataset(
    name="toy",
    title="the toy values of the tests",
    fetch="privopt.datasets.toy.fetch:fetch",
    parse="privopt.datasets.toy.parse:parse",
    raw=("values.csv",),
    outputs={"values": "values.parquet"},
    folder=lambda settings: "generated-v1",
)
