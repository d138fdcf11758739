"""The least-squares-regression family with relaxed labels (DLSR, ReLSR, ...)."""

METHODS = []
