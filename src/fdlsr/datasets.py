"""The dataset loaders (:mod:`fdlsr.experiments.datasets`) under their short public
name: ``from fdlsr.datasets import load_dataset``."""

from .experiments.datasets import *  # noqa: F403
from .experiments.datasets import __all__  # noqa: F401
