"""The machinery every paper uses: the protocol a paper declares, the registry of papers, the claims
toolkit, configuration loading and validation, the cost model and guard, provenance and tamper checks,
reference results and the report.  It imports the library below it, never a paper by name (the registry
finds the papers by discovery); no module of the library imports it."""
