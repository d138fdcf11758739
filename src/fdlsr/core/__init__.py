"""The FDLSR model: the estimator, its solvers (in memory, blocked, Dask, stacked for
the grid search) and its cross-validation. Imports only :mod:`fdlsr.common`."""
