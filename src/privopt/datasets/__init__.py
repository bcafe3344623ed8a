"""The declared data sets: one module per data set, ``<name>.py`` defining ``DATASET``
(a :class:`privopt.pipeline.datasets.Dataset`), found by :func:`privopt.pipeline.datasets.datasets`.

Declarations only: they import nothing heavy (the fetch and parse code is named as ``"module:function"``)."""
