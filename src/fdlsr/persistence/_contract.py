"""What a saved model takes: the samples it was fitted on, as its file records them.

A model labels other samples correctly only if they come as its training samples
came: the same columns in the same order, images of the same size flattened in the
same order. A model file records this *input contract* beside the model (``"input"``
in its ``model.json``): the number of features, the column names where the data had
them (a CSV's header, or a pandas DataFrame's columns: scikit-learn's
``feature_names_in_``), the image size and pixel order where the samples were
images, the size ``fdlsr fit --resize`` brought them to, and the kind of the labels.
:meth:`InputContract.conform` applies it to new samples, for ``fdlsr predict``:
columns named as the model's in another order are put back in its order, images
flattened in the other order are flattened again, anything else that differs is
refused in one line.

The record is data like the rest of the file: :meth:`InputContract.from_json`
refuses any value that is not a well-formed record, and :meth:`InputContract.check`
one that contradicts the model it describes (both raise
:class:`~fdlsr.persistence._checks.InconsistentModel`).
"""

from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from .._common.messages import cut, quote, setting
from ..errors import DatasetError, ModelFileError
from ._checks import InconsistentModel, n_features_in

#: The kinds of labels a model may have been fitted on (its ``classes_``).
LABEL_KINDS = ("integer", "text", "other")
#: Every field of the record, each written by ``fdlsr.save``.
FIELDS = ("n_features", "feature_names", "image_shape", "order", "resize", "labels")
#: Names shown in a message at most (a table may have thousands of columns).
SHOWN = 4


@dataclass(frozen=True)
class InputContract:
    """The samples a model was fitted on, as :func:`fdlsr.save` records them.

    Parameters
    ----------
    n_features : int
        The number of features (columns) of a sample.
    feature_names : tuple of str or None
        The name of each feature, in the model's order, where the data named them.
    image_shape : tuple of int or None
        ``(h, w)`` (or ``(h, w, 3)``) where a sample was an image.
    order : {"C", "F"} or None
        How an image was flattened into a sample (with ``image_shape`` only).
    resize : tuple of int or None
        ``(h, w)`` the images were resized to before fitting (``fdlsr fit
        --resize``), which ``fdlsr predict`` applies to its images.
    labels : {"integer", "text", "other"} or None
        The kind of the model's labels (``save`` sets it from ``classes_``).
    """

    n_features: int
    feature_names: tuple | None = None
    image_shape: tuple | None = None
    order: str | None = None
    resize: tuple | None = None
    labels: str | None = None

    def to_json(self):
        """The record as the JSON object of a model file's ``"input"``.

        Returns
        -------
        dict
            Every field of :data:`FIELDS`, tuples as lists.
        """
        return {
            "n_features": _plain(self.n_features),
            "feature_names": _listed(self.feature_names),
            "image_shape": _listed(self.image_shape),
            "order": self.order,
            "resize": _listed(self.resize),
            "labels": self.labels,
        }

    @classmethod
    def from_json(cls, node):
        """The record of a model file's ``"input"``; :class:`InconsistentModel` for
        anything but a well-formed record.

        Parameters
        ----------
        node : object
            The decoded JSON value of ``"input"``.

        Returns
        -------
        InputContract
        """
        if not isinstance(node, dict) or set(node) != set(FIELDS):
            raise InconsistentModel(
                f"its input record is not an object of the fields {', '.join(FIELDS)}"
            )
        n_features = node["n_features"]
        if not _is_count(n_features):
            raise InconsistentModel(
                f"its input record's n_features {quote(n_features)} is not a count"
            )
        names = node["feature_names"]
        if names is not None and not (
            isinstance(names, list) and all(isinstance(n, str) for n in names)
        ):
            raise InconsistentModel(
                "its input record's feature_names is not a list of texts"
            )
        shapes = {}
        for field, sizes in (("image_shape", (2, 3)), ("resize", (2,))):
            value = node[field]
            if value is not None and not (
                isinstance(value, list)
                and len(value) in sizes
                and all(_is_count(n) for n in value)
            ):
                raise InconsistentModel(
                    f"its input record's {field} {cut(str(value))} is not "
                    f"{' or '.join(map(str, sizes))} numbers of pixels"
                )
            shapes[field] = None if value is None else tuple(value)
        image_shape = shapes["image_shape"]
        if image_shape is not None and len(image_shape) == 3 and image_shape[2] != 3:
            # an image is grey (h, w) or colour (h, w, 3): a grey one listed with a
            # channel would be asked for in a size no image folder reads
            raise InconsistentModel(
                f"its input record's image_shape {cut(str(node['image_shape']))} is "
                "neither (height, width) nor (height, width, 3)"
            )
        if node["order"] not in (None, "C", "F"):
            raise InconsistentModel(
                f"its input record's order {quote(node['order'])} is not 'C' or 'F'"
            )
        if node["labels"] not in LABEL_KINDS:
            raise InconsistentModel(
                f"its input record's labels {quote(node['labels'])} is not one of "
                f"{', '.join(LABEL_KINDS)}"
            )
        return cls(
            n_features=n_features,
            feature_names=None if names is None else tuple(names),
            image_shape=shapes["image_shape"],
            order=node["order"],
            resize=shapes["resize"],
            labels=node["labels"],
        )

    def check(self, model):
        """Raise :class:`InconsistentModel` unless the record describes ``model``:
        its number of features, names (``feature_names_in_``, where it has them) and
        label kind, and an image shape of as many pixels, given with its order.

        Parameters
        ----------
        model : estimator
            The fitted model the record was saved with.
        """
        width = n_features_in(model)
        if self.n_features != width:
            raise InconsistentModel(
                f"its input record says {cut(str(self.n_features))} features where "
                f"the model has {cut(str(width))}"
            )
        if self.feature_names is not None and len(self.feature_names) != width:
            raise InconsistentModel(
                f"its input record names {len(self.feature_names)} features where "
                f"the model has {width}"
            )
        own = _feature_names_in(model)
        if own is not None and self.feature_names != own:
            raise InconsistentModel(
                "its input record's feature_names are not the model's feature_names_in_"
            )
        if (self.image_shape is None) != (self.order is None):
            raise InconsistentModel(
                "its input record gives an image shape without a pixel order, or an "
                "order without a shape"
            )
        if self.image_shape is not None and _pixels(self.image_shape) != width:
            raise InconsistentModel(
                f"its input record's images of {_size(self.image_shape)} pixels are "
                f"not the model's {width} features"
            )
        if self.resize is not None and (
            self.image_shape is None or self.image_shape[:2] != self.resize
        ):
            raise InconsistentModel(
                "its input record's resize is not the size of its images"
            )
        kind = label_kind(model.classes_)
        if self.labels != kind:
            raise InconsistentModel(
                f"its input record says {quote(self.labels)} labels where the model's "
                f"are {kind}"
            )

    @property
    def colour(self):
        """Whether the model's samples were colour images (``image_shape`` (h, w, 3)),
        which ``fdlsr predict`` reads an image folder as."""
        return self.image_shape is not None and len(self.image_shape) == 3

    def resize_for(self, given, model_name):
        """The size to resize images to for the model: ``given`` (``--resize``),
        refused (:class:`~fdlsr.errors.DatasetError`) where it contradicts the
        record; else the recorded ``resize``.

        Parameters
        ----------
        given : tuple of int or None
            ``(h, w)`` asked for, or None.
        model_name : str
            What the model is called in messages (its file).

        Returns
        -------
        tuple of int or None
        """
        if given is None:
            return self.resize
        given = tuple(int(n) for n in given)
        expected = self.resize or (self.image_shape and self.image_shape[:2])
        if expected and given != expected:
            how = "resized to" if self.resize else "of"
            raise DatasetError(
                f"{model_name} was fitted on images {how} {_size(expected)} pixels "
                f"(height x width), which its file records; the size asked for, "
                f"{_size(given)} ({setting('resize', 'resize=(h, w)')}), contradicts "
                f"it: give {_size(expected)}"
                + (
                    " or leave it out (the model's size is applied)"
                    if self.resize
                    else ""
                )
            )
        return given

    def conform(
        self, X, *, where, model_name, feature_names=None, image_shape=None,
        order=None, resizable=False, hint=""
    ):  # fmt: skip
        """``X`` as the model takes it, and the notes that say what was changed.

        Columns named as the model's but in another order are taken by name;
        images of the model's size flattened in the other order are flattened
        again. Other names, images of another size and another number of features
        are refused (:class:`~fdlsr.errors.DatasetError`, one line).

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            The samples, as rows.
        where : str
            What the samples are called in messages (the data's name).
        model_name : str
            What the model is called in messages (its file).
        feature_names : sequence of str, optional
            The samples' column names, where the data names them.
        image_shape : tuple of int, optional
            The samples' image shape, where they are images.
        order : {"C", "F"}, optional
            How the samples' images were flattened (with ``image_shape``).
        resizable : bool, default=False
            Whether the samples' images can be resized as they are read (an image
            folder's: ``resize``); a refusal of another size names it only then.
        hint : str, optional
            A fix to add to the messages about other columns (the way to choose
            the label column, to read columns as samples).

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        notes : list of str
        """
        notes = []
        if self.feature_names is not None and feature_names is not None:
            X, note = self._by_name(X, tuple(feature_names), where, model_name, hint)
            notes += note
        elif self.feature_names is not None and X.shape[1] == self.n_features:
            notes.append(
                f"{where} does not name its columns: they are taken to be the "
                f"model's {_some(self.feature_names)}, in that order"
            )
        elif feature_names is not None and X.shape[1] == self.n_features:
            # as scikit-learn warns of data with names given to a model without
            notes.append(
                f"{where} names its columns ({_some(tuple(feature_names))}), and "
                f"{model_name} was fitted on data without names: they are taken "
                "by position"
            )
        if self.image_shape is not None and image_shape is not None:
            image_shape = tuple(int(n) for n in image_shape)
            if image_shape != self.image_shape:
                raise DatasetError(
                    self._other_size(image_shape, where, model_name, resizable)
                )
            order = order or "C"
            if order != self.order:
                X = _reflatten(X, image_shape, order, self.order)
                notes.append(
                    f"the images of {where} were flattened in {order} order, the "
                    f"model's in {self.order} order: their pixels are taken in the "
                    "model's order"
                )
        if X.shape[1] != self.n_features:
            raise DatasetError(
                f"{model_name} was fitted on samples of {self.n_features} features; "
                f"{where} has {X.shape[1]}: give data of the same kind"
                + (f" ({hint})" if hint else "")
            )
        return X, notes

    def _other_size(self, shape, where, model_name, resizable):
        """Why images of ``shape`` are not the model's, and the fix that applies to
        them: resizing where they can be resized as read, else images of its size."""
        own = self.image_shape
        given = f"the images of {where} are {_size(shape)} pixels"
        fitted = f"{model_name} was fitted on images of {_size(own)}"
        if shape[:2] == own[:2]:  # grey against colour
            kinds = [_colour_word(shape), _colour_word(own)]
            return (
                f"the images of {where} are {kinds[0]} ({_size(shape)} pixels); "
                f"{model_name} was fitted on {kinds[1]} images ({_size(own)}): give "
                f"{kinds[1]} images"
            )
        if resizable:
            return (
                f"{given}; {fitted}: resize them to {_size(own[:2])} "
                f"({setting('resize', 'resize=(h, w)')})"
            )
        if shape[:2] == own[1::-1]:
            return (
                f"{given} (height x width); {fitted}: they may be transposed; give "
                f"each image as {own[0]} rows of {own[1]} pixels"
            )
        return f"{given}; {fitted}: give images of that size (height x width)"

    def _by_name(self, X, names, where, model_name, hint):
        """``X``'s columns in the model's order, from their ``names``."""
        own = self.feature_names
        if names == own:
            return X, []
        given, known = set(names), set(own)
        missing = [n for n in own if n not in given]
        extra = [n for n in names if n not in known]
        if missing or extra:
            parts = [f"missing {_some(missing)}"] if missing else []
            parts += [f"not the model's {_some(extra)}"] if extra else []
            raise DatasetError(
                f"the columns of {where} are not those {model_name} was fitted on "
                f"({'; '.join(parts)}); give samples with the model's columns "
                f"({_some(own)}), in any order" + (f" ({hint})" if hint else "")
            )
        if Counter(names) != Counter(own) or len(known) < len(own):
            raise DatasetError(
                f"the columns of {where} are the model's in another order, but names "
                "repeat, so which is which cannot be told; give them in the model's "
                f"order ({_some(own)})"
            )
        position = {name: i for i, name in enumerate(names)}
        X = X[:, [position[name] for name in own]]
        return X, [
            f"the columns of {where} are the model's in another order: they are "
            "taken by name"
        ]


def contract_for(model, given=None):
    """The record ``fdlsr.save`` writes for ``model``: ``given`` (or one of the
    model's width) with the model's ``feature_names_in_`` and label kind.

    Raises :class:`ModelFileError` where ``given`` contradicts the model.
    """
    width = n_features_in(model)
    contract = given if given is not None else InputContract(n_features=width)
    if not isinstance(contract, InputContract):
        raise ModelFileError(
            f"cannot save the model: input_contract is a {type(contract).__name__}, "
            "not an InputContract"
        )
    own = _feature_names_in(model)
    if own is not None and contract.feature_names is None:
        contract = replace(contract, feature_names=own)
    classes = getattr(model, "classes_", None)
    if classes is not None:
        contract = replace(contract, labels=label_kind(classes))
    try:
        contract = InputContract.from_json(contract.to_json())
        contract.check(model)
    except InconsistentModel as error:
        raise ModelFileError(f"cannot save the model: {error}") from None
    return contract


def label_kind(classes):
    """``"integer"``, ``"text"`` or ``"other"``: the kind of a model's labels."""
    classes = _host(classes)
    if classes.dtype.kind in "iu":
        return "integer"
    if classes.dtype.kind == "U":
        return "text"
    items = classes.ravel().tolist() if classes.dtype.kind == "O" else [None]
    if all(type(v) is int for v in items):
        return "integer"
    if all(isinstance(v, str) for v in items):
        return "text"
    return "other"


def _feature_names_in(model):
    """The model's ``feature_names_in_`` as a tuple of str, or None."""
    try:
        names = model.feature_names_in_
    except AttributeError:  # a Pipeline's property raises it for its first step
        return None
    return tuple(str(n) for n in np.asarray(names).ravel().tolist())


def _reflatten(X, shape, source, target):
    """Rows flattened from images of ``shape`` in ``source`` order, flattened
    again in ``target`` order."""
    n = X.shape[0]
    if source == "F":  # reshape to the reversed shape, then reverse the axes back
        images = X.reshape((n, *shape[::-1])).transpose(0, *range(len(shape), 0, -1))
    else:
        images = X.reshape((n, *shape))
    if target == "F":
        images = images.transpose(0, *range(len(shape), 0, -1))
    return np.ascontiguousarray(images.reshape(n, -1))


def _colour_word(shape):
    return "colour" if len(shape) == 3 else "grey"


def _is_count(value):
    return type(value) is int and 0 < value < 2**63


def _pixels(shape):
    return int(np.prod(shape, dtype=object))


def _size(shape):
    """``6 x 5`` (height x width), ``6 x 5 x 3`` for colour."""
    return " x ".join(str(n) for n in shape)


def _some(names):
    """A few names quoted, and how many there are."""
    shown = ", ".join(quote(n) for n in names[:SHOWN])
    return shown + (f", ... ({len(names)} names)" if len(names) > SHOWN else "")


def _listed(value):
    return None if value is None else [_plain(v) for v in value]


def _plain(value):
    """A NumPy scalar as the Python value JSON writes."""
    return value.item() if isinstance(value, np.generic) else value


def _host(array):
    """A model's array as NumPy (a PyTorch tensor of a model fitted on a device, as
    the file saves it)."""
    if type(array).__module__.split(".")[0] == "torch" and hasattr(array, "detach"):
        return array.detach().cpu().numpy()
    return np.asarray(array)
