"""The least-squares-regression family with relaxed labels
(:mod:`fdlsr.methods.relaxed`) under its short public name."""

from .methods.relaxed import *  # noqa: F403
from .methods.relaxed import __all__  # noqa: F401
