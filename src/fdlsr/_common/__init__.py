"""What every layer shares: array-library compatibility, linear algebra, input
checks, the scikit-learn classifier plumbing and the nearest-projection rule.

Nothing here knows of FDLSR, of a comparison method or of an experiment.
"""
