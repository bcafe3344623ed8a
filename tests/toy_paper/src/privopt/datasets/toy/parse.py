"""The toy data set's parse step: the CSV read back into a table, checked against the fetch's record."""

import pandas as pd


def parse(settings, files, provenance):
    values = pd.read_csv(files["values.csv"])
    if list(values.columns) != ["value"] or len(values) != provenance["records"]:
        raise ValueError(f"{files['values.csv']}: expected one column 'value' and {provenance['records']} records")
    return {"values": values}
