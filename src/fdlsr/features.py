"""Deep features of images from a pretrained network (``fdlsr features``; needs
``pip install "fdlsr[features]"``).

* :func:`extract_features`: the features of an image folder or data set, in chunks
  that an interrupted extraction resumes from;
* :func:`load_backbone`: the pretrained network and its preprocessing.
"""

from ._experiments.backbones import load_backbone
from ._experiments.features import extract_features

__all__ = ["extract_features", "load_backbone"]
