"""The April 2014 Uber pickups (FiveThirtyEight FOIL release): the data set ``uber``.

* :mod:`~privopt.datasets.uber.dataset` — the declaration (``DATASET``), found by the registry
  (:func:`privopt.pipeline.datasets.datasets`); it imports nothing heavy.
* :mod:`~privopt.datasets.uber.fetch` — the fetch step: the verified download (:func:`~.fetch.fetch_uber`) and the
  name of the check the data pass (:func:`~.fetch.content_key`).
* :mod:`~privopt.datasets.uber.parse` — the parse step: the validated CSV reader (:func:`~.parse.read_pickups`).
* :mod:`~privopt.datasets.uber.reader` — what the papers' instances read: the parsed ``pickups.parquet``
  (:func:`~.reader.read_pickups_parquet`).

This module holds no code: every module of the package runs it when imported, and so counts it in its code
digest (:mod:`privopt.codedigest`).
"""
