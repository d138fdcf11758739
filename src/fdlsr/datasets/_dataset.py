"""The loaded data set: samples as rows, labels, and how a row becomes an image."""

from dataclasses import dataclass

import numpy as np

from .._common.messages import one_line, setting
from ..errors import DatasetError

__all__ = ["Dataset", "as_samples", "one_line"]


def as_samples(X, where, budget=None, name="the samples"):
    """Samples as a C-contiguous float64 matrix, refusing NaN and infinity; the
    memory this takes is charged to ``budget`` (a ``MemoryBudget``) first, as
    ``name``."""
    X = np.asarray(X)
    if X.dtype.kind == "c":  # float64 would drop the imaginary parts
        raise DatasetError(
            f"the samples in {where} are complex numbers; classify real features "
            "(e.g. their magnitudes), or choose another variable with "
            f"{setting('x', 'x=NAME')}"
        )
    if X.dtype.kind in "mM":  # as float64: a count of units, and NaT -9.2e18
        what = "dates" if X.dtype.kind == "M" else "durations"
        raise DatasetError(
            f"the samples in {where} are {what} ({X.dtype}), not numbers; convert "
            "them to numbers (e.g. seconds from a start, a missing one filled in) "
            f"first, or choose another variable with {setting('x', 'x=NAME')}"
        )
    if budget is not None and X.dtype.kind in "biuf":
        budget.charge_samples(X, name)
    try:
        X = np.ascontiguousarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DatasetError(
            f"the samples in {where} are not numbers ({one_line(exc)}); "
            f"choose the numeric variable with {setting('x', 'x=NAME')}"
        ) from None
    bad = X.size - np.count_nonzero(np.isfinite(X))  # one mask, one byte a value
    if bad:
        raise DatasetError(
            f"the samples in {where} contain {bad} NaN or infinite values; "
            "fill or remove them before classification"
        )
    return X


@dataclass(frozen=True, eq=False)
class Dataset:
    """A classification data set: samples as rows and one label per sample.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64
        The raw feature values (not normalised).
    y : ndarray of shape (n_samples,)
        The class labels as stored: integers stay integers, image folders give
        their sub-folder names as strings.
    name : str
        Registry name, or the file name for a file loaded by path.
    image_shape : tuple of int or None
        ``(h, w)`` (or ``(h, w, 3)`` for colour) when a row is an image.
    order : {"F", "C"}
        How a row reshapes to an image: ``row.reshape(image_shape, order=order)``;
        ``"F"`` is MATLAB's column-major flattening.
    fixed_split : tuple of ndarray or None
        ``(train_index, test_index)`` for files that ship a fixed split.
    description : str
        One line saying what the data are.
    path : str or None
        The file or folder the data came from.
    feature_names : tuple of str or None
        The name of each feature (column of ``X``), where the file names them (a
        CSV's header).
    """

    X: np.ndarray
    y: np.ndarray
    name: str
    image_shape: tuple | None = None
    order: str = "C"
    fixed_split: tuple | None = None
    description: str = ""
    path: str | None = None
    feature_names: tuple | None = None

    def __post_init__(self):
        n = self.X.shape[0]
        if self.X.ndim != 2 or self.y.shape != (n,):
            raise DatasetError(
                f"{self.name}: {self.y.size} labels for {n} samples; "
                "give exactly one label per sample"
            )
        if self.order not in ("F", "C"):
            raise DatasetError(f"order must be 'F' or 'C', got {self.order!r}")
        if self.image_shape is not None:
            shape = tuple(int(s) for s in self.image_shape)
            if int(np.prod(shape)) != self.X.shape[1]:
                raise DatasetError(
                    f"{self.name}: image_shape {shape} holds {int(np.prod(shape))} "
                    f"pixels but the samples have {self.X.shape[1]} features; "
                    "pass the image_shape whose product is the number of features"
                )
            object.__setattr__(self, "image_shape", shape)
        if self.feature_names is not None:
            names = tuple(str(name) for name in self.feature_names)
            if len(names) != self.X.shape[1]:
                raise DatasetError(
                    f"{self.name}: {len(names)} feature names for {self.X.shape[1]} "
                    "features; give one name per feature"
                )
            object.__setattr__(self, "feature_names", names)
        if self.fixed_split is not None:
            train, test = (np.asarray(i, dtype=np.intp) for i in self.fixed_split)
            object.__setattr__(self, "fixed_split", (train, test))

    @property
    def n_samples(self):
        return self.X.shape[0]

    @property
    def n_features(self):
        return self.X.shape[1]

    @property
    def classes(self):
        """The distinct labels, sorted."""
        return np.unique(self.y)

    @property
    def n_classes(self):
        return self.classes.size

    def images(self):
        """The samples as an array of images, ``(n_samples, *image_shape)``.

        Returns
        -------
        images : ndarray of shape (n_samples, ...), the image shape last
            A view of ``X`` where the layout allows it.
        """
        if self.image_shape is None:
            raise DatasetError(
                f"{self.name} has no image shape; pass image_shape=(h, w) when loading"
            )
        shape = self.image_shape
        if self.order == "C":
            return self.X.reshape((self.n_samples, *shape))
        # Column-major rows: reshape to the reversed shape, then reverse the axes back.
        k = len(shape)
        flipped = self.X.reshape((self.n_samples, *shape[::-1]))
        return flipped.transpose(0, *range(k, 0, -1))

    def __repr__(self):
        split = "" if self.fixed_split is None else ", fixed split"
        shape = "" if self.image_shape is None else f", images {self.image_shape}"
        return (
            f"Dataset({self.name!r}: {self.n_samples} samples x {self.n_features} "
            f"features, {self.n_classes} classes{shape}{split})"
        )
