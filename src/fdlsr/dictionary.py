"""The dictionary-learning classifiers (:mod:`fdlsr.methods.dictionary`) under
their short public name."""

from .methods.dictionary import *  # noqa: F403
from .methods.dictionary import __all__  # noqa: F401
