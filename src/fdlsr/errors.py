"""Exceptions for mistakes a user can fix: bad files, names, settings.

The command line prints their message on one line and exits non-zero, without a
traceback; library callers can catch them as ``ValueError``.
"""

__all__ = [
    "ConfigError",
    "DataScaleError",
    "DataScaleWarning",
    "DatasetError",
    "FdlsrError",
    "ModelFileError",
    "TiedScoresWarning",
    "UnreliableResultWarning",
    "WorkerError",
]


class FdlsrError(ValueError):
    """A problem with the user's input, with a message that names the fix."""


class DatasetError(FdlsrError):
    """A dataset could not be found, read or understood."""


class ConfigError(FdlsrError):
    """An experiment setting (method, parameter, split) is invalid."""


class ModelFileError(FdlsrError):
    """A model file could not be written or read (not one, damaged, unknown format)."""


class WorkerError(FdlsrError):
    """A worker of ``fdlsr run --jobs`` or ``--scheduler`` ended before its work was
    done (killed, out of memory, lost by the cluster); the rows stored so far are
    kept, and running the same command again resumes."""


class DataScaleError(FdlsrError):
    """Samples of a scale at which a method's float64 arithmetic over- or underflows."""


class DataScaleWarning(UserWarning):
    """Samples far from the unit norm that a method's parameters are chosen for.

    Raised once by ``fit`` of a method whose model depends on the samples' scale
    (:func:`fdlsr._common.validation.check_sample_scale` states the rule); the fix
    is to unit-normalise the samples, as the papers and ``fdlsr run`` do.
    """


class UnreliableResultWarning(UserWarning):
    """A method ran faithfully in a setting where its result is known to be unreliable.

    Experiment rows record it, and ``fdlsr report`` marks the cells it touched with a
    dagger and a note, so that such a number never stands in a table unexplained.
    """


class TiedScoresWarning(UserWarning):
    """Several candidates of a cross-validated search tie for the best mean score.

    :class:`~fdlsr.FDLSRCV` warns it when more than one candidate has exactly the
    best mean validation score (it records how many in ``n_tied_best_``); it takes
    the first of them in grid order, as ``GridSearchCV`` does.
    """
