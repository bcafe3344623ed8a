"""A toy paper (tests only): the Laplace mechanism estimating a mean, as the worked example of
docs/adding-a-paper.md.  ``paper`` declares it; ``runs`` runs it and builds its tables; ``claims``
checks it."""
