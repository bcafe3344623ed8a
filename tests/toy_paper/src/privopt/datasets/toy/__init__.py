"""The toy data set of the tests, laid out as every data set is: its declaration (``dataset.py``), its fetch
and parse steps (``fetch.py``, ``parse.py``) and the reader of what it makes (``reader.py``)."""
