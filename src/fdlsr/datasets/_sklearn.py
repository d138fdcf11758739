"""scikit-learn's data sets: digits (bundled), Olivetti faces and LFW people.

Olivetti and LFW come through scikit-learn's own fetchers, which download once and
cache in scikit-learn's data folder (``SCIKIT_LEARN_DATA``, default
``~/scikit_learn_data``). Without a network, a cached copy still loads; a missing
one is a DatasetError that says where the cache was looked for.
"""

from pathlib import Path

from ..errors import DatasetError
from ._dataset import as_samples, one_line
from ._labels import class_labels

# The scikit-learn example's LFW task: persons with at least 70 pictures, resized
# by 0.4 to 50x37 pixels (7 persons, 1288 images).
LFW_PEOPLE = {"min_faces_per_person": 70, "resize": 0.4}

# What scikit-learn's fetchers leave in their data folder once they have run.
CACHE_FILES = {"olivetti": "olivetti_py3.pkz", "lfw_people": "lfw_home/lfw_funneled"}


def load_sklearn(name, *, download=True):
    """``X, y, image_shape`` of a scikit-learn data set by registry name."""
    from sklearn import datasets

    if name == "digits":
        bunch = datasets.load_digits()
    elif name in CACHE_FILES:
        fetch = {
            "olivetti": datasets.fetch_olivetti_faces,
            "lfw_people": lambda **kw: datasets.fetch_lfw_people(**LFW_PEOPLE, **kw),
        }[name]
        bunch = _fetch(name, fetch, download)
    else:  # pragma: no cover - the registry lists only the three above
        raise DatasetError(f"{name!r} is not a scikit-learn data set")
    image_shape = tuple(bunch.images.shape[1:])
    X = as_samples(bunch.data, f"scikit-learn's {name}")
    return X, class_labels(bunch.target, name), image_shape


def _fetch(name, fetch, download):
    home = _data_home()
    try:
        return fetch(data_home=home, download_if_missing=download)
    except ImportError as exc:
        raise DatasetError(
            f"{name} needs Pillow to decode its images ({one_line(exc)}): "
            'pip install pillow (or pip install ".[data]" in the fdlsr source folder)'
        ) from None
    except OSError as exc:  # includes urllib's URLError
        if not download:
            raise DatasetError(
                f"{name} is not in scikit-learn's cache ({home}) and downloading is "
                "off; run once with download=True on a machine with internet, or copy "
                "a scikit-learn cache there (set SCIKIT_LEARN_DATA to use another)"
            ) from None
        raise DatasetError(
            f"downloading {name} through scikit-learn failed ({one_line(exc)}); "
            f"connect to the internet, or copy a scikit-learn cache to {home} "
            "(set SCIKIT_LEARN_DATA to use another folder)"
        ) from None


def _data_home():
    from sklearn.datasets import get_data_home

    return get_data_home()


def cache_status(name):
    """Where a scikit-learn data set lives and whether it is there already."""
    if name == "digits":
        return {"path": "bundled with scikit-learn", "present": True, "verified": None}
    path = Path(_data_home()) / CACHE_FILES[name]
    return {"path": str(path), "present": path.exists(), "verified": None}
