"""The toy data set of the tests: 40 values in [0, 1], written by its fetch step from nothing.

It plugs into the workflow through the public mechanism alone: this declaration and the code it names
(privopt.experiments.toy.data), read by the toy paper's instance ``values``; no generic file names it.
"""

from privopt.pipeline.datasets import Dataset

DATASET = Dataset(
    name="toy",
    title="the toy values of the tests",
    fetch="privopt.experiments.toy.data:fetch",
    parse="privopt.experiments.toy.data:parse",
    raw=("values.csv",),
    outputs={"values": "values.parquet"},
    folder=lambda settings: "generated-v1",
)
