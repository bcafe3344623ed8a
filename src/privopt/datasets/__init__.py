"""The declared data sets: one package per data set, ``<name>/``, holding its declaration ``dataset.py``
(defining ``DATASET``, a :class:`privopt.pipeline.datasets.Dataset`, found by
:func:`privopt.pipeline.datasets.datasets`), its fetch and parse steps and the reader of what it makes.

The declarations import nothing heavy (the fetch and parse steps are named as ``"module:function"``)."""
