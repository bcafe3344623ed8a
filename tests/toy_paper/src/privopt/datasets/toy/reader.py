"""What the toy paper's instance reads of the toy data set: the parsed table ``values.parquet``."""

import pandas as pd


def read_values(path):
    values = pd.read_parquet(path)
    if list(values.columns) != ["value"]:
        raise ValueError(f"{path}: expected one column 'value', found {list(values.columns)}")
    return values
