"""The representation-based classifiers (:mod:`fdlsr.methods.representation`)
under their short public name."""

from .methods.representation import *  # noqa: F403
from .methods.representation import __all__  # noqa: F401
