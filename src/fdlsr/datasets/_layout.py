"""Which arrays of a file are the samples and the labels, and which way round.

The benchmark files come in a handful of layouts (the names are matched without
regard to case, and also inside scalar structs, ``s.fea``/``s.gnd``):

- one array of samples with a label vector: ``fea``/``gnd`` (Deng Cai's
  collection), ``all_data``/``all_label``, ``DATA``/``Label``, ``X``/``y``,
  ``data``/``labels``, a struct's ``.mat``/``.labels``, and LC-KSVD's random-face
  files ``featureMat`` (d x n) with a one-hot ``labelMat`` (c x n);
- a fixed split: 1-based index vectors ``trainIdx``/``testIdx`` beside a pair,
  ``traindata``/``trainlabel`` with ``testdata``/``testlabel``,
  LC-KSVD's ``training_feats``/``H_train`` with ``testing_feats``/``H_test``,
  Keras's ``x_train``/``y_train`` with ``x_test``/``y_test``, or two structs named
  train* and test* holding one of the pairs above.

Orientation is never guessed from the names: the number of labels must match
exactly one axis of the samples (rows or columns); when both match (a square
matrix) the caller must say ``samples="rows"`` or ``"columns"``. A 3-D array is a
stack of images, ``(h, w, n)`` as MATLAB keeps it or ``(n, h, w)`` as NumPy does.
When no known layout is present, the one numeric matrix whose size matches the one
integer label vector is taken; anything less clear-cut is an error that lists the
candidates and the override (``x=``, ``y=``) that settles it.
"""

from dataclasses import dataclass

import numpy as np

from .._common.messages import cut, quote, setting
from ..errors import DatasetError
from ._dataset import as_samples
from ._labels import class_labels
from ._options import given, spelled

PAIRS = [
    ("fea", "gnd"),
    ("all_data", "all_label"),
    ("DATA", "Label"),
    ("featureMat", "labelMat"),
    ("X", "y"),
    ("data", "labels"),
    ("features", "labels"),
    ("mat", "labels"),
]
SPLITS = [
    ("traindata", "trainlabel", "testdata", "testlabel"),
    ("traindata", "trainlabels", "testdata", "testlabels"),
    ("train_data", "train_label", "test_data", "test_label"),
    ("training_feats", "H_train", "testing_feats", "H_test"),
    ("x_train", "y_train", "x_test", "y_test"),
]
IMAGE_SIZE_HINTS = [("rows", "cols"), ("height", "width"), ("h", "w")]
INDEX_SPLITS = [("trainIdx", "testIdx")]  # 1-based, beside fea/gnd (Deng Cai)


@dataclass
class Layout:
    """Samples as rows, labels, and what the file said about images and splits."""

    X: np.ndarray
    y: np.ndarray
    image_shape: tuple | None
    order: str | None
    fixed_split: tuple | None
    description: str
    samples: str | None = None  # "rows"/"columns" for a matrix, None for a stack


def resolve(arrays, where, *, x=None, y=None, samples=None, budget=None):
    """Find the samples and labels among ``arrays`` ({name: ndarray}).

    ``where`` names the file in messages; ``x``/``y`` are variable names to use,
    ``samples`` ("rows"/"columns") settles a square matrix; the copies made of the
    samples and labels are charged to ``budget`` (a ``MemoryBudget``) first.
    """
    for role, name in (("x", x), ("y", y)):
        if name is not None and name not in arrays:
            raise DatasetError(
                f"{where} has no variable {quote(name)}; its variables are "
                f"{_listing(arrays)}: pass one of them as {spelled(role)}"
            )
    if x is not None and y is not None:
        layout = _pair(arrays, where, x, y, samples, budget)
    else:
        found = _known(arrays, x, y)
        if len(found) > 1:
            options = "; ".join(_describe(c) for c in found)
            raise DatasetError(
                f"ambiguous variables in {where}: it holds several data sets "
                f"({options}); choose one with {spelled('x')} and {spelled('y')}"
            )
        if found and len(found[0]) == 4:
            layout = _split(arrays, where, *found[0], samples, budget)
        elif found:
            layout = _pair(arrays, where, *found[0], samples, budget)
        else:
            guessed = _guess(arrays, where, x, y)
            layout = _pair(arrays, where, *guessed, samples, budget)
    if layout.image_shape is None:
        layout.image_shape = _size_hint(arrays, layout.X.shape[1])
    if layout.fixed_split is None:
        layout.fixed_split = _index_split(arrays, where, layout.y.size)
    return layout


def _listing(arrays, shown=8):
    """The variables of a file, for messages: the first ``shown``, names cut short."""
    items = [f"{cut(k)} ({'x'.join(map(str, v.shape))})" for k, v in arrays.items()]
    more = len(items) - shown
    return ", ".join(items[:shown]) + (f" and {more} more" if more > 0 else "")


def _describe(candidate):
    if len(candidate) == 2:
        return f"{given('x', candidate[0])}, {given('y', candidate[1])}"
    return "train {}/{} with test {}/{}".format(*map(quote, candidate))


def _lookup(arrays, name):
    if name in arrays:
        return name
    hits = [k for k in arrays if k.lower() == name.lower()]
    return hits[0] if len(hits) == 1 else None


def _known(arrays, x, y):
    """Every known layout present, as name pairs or (train x, y, test x, y)."""
    prefixes = sorted({k.rsplit(".", 1)[0] + "." for k in arrays if "." in k})
    pairs = []
    for prefix in ["", *prefixes]:
        for xs, ys in PAIRS:
            xn, yn = _lookup(arrays, prefix + xs), _lookup(arrays, prefix + ys)
            if xn and yn and (x in (None, xn)) and (y in (None, yn)):
                pairs.append((xn, yn))
    if x is not None or y is not None:
        return pairs
    splits = []
    for names in SPLITS:
        found = [_lookup(arrays, n) for n in names]
        if all(found):
            splits.append(tuple(found))
    # Two structs named train* and test*, each with a known pair, are a split.
    train = [p for p in pairs if "train" in p[0].split(".")[0].lower() and "." in p[0]]
    test = [p for p in pairs if "test" in p[0].split(".")[0].lower() and "." in p[0]]
    if len(train) == 1 and len(test) == 1:
        splits.append((*train[0], *test[0]))
        pairs = [p for p in pairs if p not in (train[0], test[0])]
    return splits + pairs


def _guess(arrays, where, x, y):
    """The one matrix and the one label vector whose sizes agree."""
    matrices = [k for k, v in arrays.items() if _is_samples(v)] if x is None else [x]
    vectors = [k for k, v in arrays.items() if _is_labels(v)] if y is None else [y]
    fits = [
        (xn, yn)
        for xn in matrices
        for yn in vectors
        if xn != yn and _n_labels(arrays[yn]) in _sample_axes(arrays[xn])
    ]
    if len(fits) == 1:
        return fits[0]
    if fits:
        options = "; ".join(_describe(f) for f in fits)
        raise DatasetError(
            f"ambiguous variables in {where}: several arrays could be the samples "
            f"and labels ({options}); choose with {spelled('x')} and {spelled('y')}"
        )
    if x is not None or y is not None:
        fitted = given("x", x) if x is not None else given("y", y)
        other = "y" if x is not None else "x"
        raise DatasetError(
            f"no variable in {where} fits {fitted} (variables: {_listing(arrays)}); "
            f"name the {'labels' if other == 'y' else 'samples'} with {spelled(other)}"
        )
    raise DatasetError(
        f"cannot tell the samples and labels apart in {where} (variables: "
        f"{_listing(arrays) or 'none numeric'}); pass {spelled('x')} and "
        f"{spelled('y')}"
    )


def _is_samples(a):
    return (
        a.dtype.kind in "biuf"
        and a.ndim in (2, 3)
        and sum(s > 1 for s in a.shape) >= 2
        and _one_hot_axis(a) is None
    )


def _is_labels(a):
    if a.dtype.kind not in "biuf" or a.size < 2:
        return False
    if sum(s > 1 for s in a.shape) == 1:
        v = a.ravel()
        return a.dtype.kind != "f" or bool(np.all(v == np.round(v)))
    return _one_hot_axis(a) is not None


def _one_hot_axis(a):
    """The axis that runs over samples when ``a`` is a one-hot label matrix."""
    if a.ndim != 2 or min(a.shape) < 2 or a.dtype.kind not in "biuf":
        return None
    if not np.all((a == 0) | (a == 1)):
        return None
    if np.all(a.sum(axis=0) == 1):
        return 1  # c x n, LC-KSVD's labelMat
    if np.all(a.sum(axis=1) == 1):
        return 0
    return None


def _n_labels(a):
    axis = _one_hot_axis(a) if sum(s > 1 for s in a.shape) > 1 else None
    return a.shape[axis] if axis is not None else a.size


def _labels(arrays, name, where):
    """The labels of variable ``name`` as stored (one-hot: the class number)."""
    a = arrays[name]
    axis = _one_hot_axis(a) if sum(s > 1 for s in a.shape) > 1 else None
    if axis is not None:  # one-hot: the class is the (1-based) position of the one
        return np.argmax(a, axis=1 - axis).astype(np.int64) + 1
    if sum(s > 1 for s in a.shape) > 1:
        raise DatasetError(
            f"{quote(name)} in {where} is a {'x'.join(map(str, a.shape))} array, not a "
            f"label vector or a one-hot label matrix; name the labels with "
            f"{spelled('y')}"
        )
    return a.ravel()


def _sample_axes(a):
    if a.ndim == 2:
        return a.shape
    if a.ndim == 3:
        return (a.shape[0], a.shape[-1])
    return ()


def _pair(arrays, where, xn, yn, samples, budget, convert_labels=True):
    labels = _labels(arrays, yn, where)
    if convert_labels:
        labels = class_labels(labels, f"{where}:{cut(yn)}", budget=budget)
    X, image_shape, order, how = _orient(
        arrays[xn], labels.size, where, xn, yn, samples, budget
    )
    desc = f"x={quote(xn)} ({how}), y={quote(yn)}"
    samples = how if how in ("rows", "columns") else None
    X = as_samples(X, f"{where}:{xn}", budget, name=quote(xn))
    return Layout(X, labels, image_shape, order, None, desc, samples)


def _split(arrays, where, xtr, ytr, xte, yte, samples, budget):
    train = _pair(arrays, where, xtr, ytr, samples, budget, convert_labels=False)
    # A square test matrix takes the orientation of the training matrix.
    test = _pair(
        arrays, where, xte, yte, samples or train.samples, budget, convert_labels=False
    )
    if train.X.shape[1] != test.X.shape[1]:
        raise DatasetError(
            f"{where}: training samples {quote(xtr)} have {train.X.shape[1]} features "
            f"but test samples {quote(xte)} have {test.X.shape[1]}; the split does not fit "
            "together: check the file"
        )
    # one conversion for both parts, so that a label is one class in each
    labels = class_labels(
        train.y, f"{where}:{cut(ytr)} and {cut(yte)}", test.y, budget=budget
    )
    n_train, n_test = train.y.size, test.y.size
    split = (np.arange(n_train), np.arange(n_train, n_train + n_test))
    if budget is not None:
        shape = (n_train + n_test, train.X.shape[1])
        budget.charge(shape, 8, "the training and test samples joined")
    return Layout(
        np.concatenate([train.X, test.X]),
        labels,
        train.image_shape,
        train.order,
        split,
        f"fixed split: train {train.description}; test {test.description}",
    )


def _orient(a, n, where, xn, yn, samples, budget=None):
    """Samples as rows; image shape and flattening order for a 3-D stack (flattened
    by a copy when its memory order is not the stack's: charged to ``budget``)."""
    shape = "x".join(map(str, a.shape))
    if a.ndim == 2:
        rows, cols = a.shape[0] == n, a.shape[1] == n
    elif a.ndim == 3:  # (n, h, w) as NumPy keeps images, (h, w, n) as MATLAB does
        rows, cols = a.shape[0] == n, a.shape[2] == n
    else:
        raise DatasetError(
            f"{quote(xn)} in {where} has {a.ndim} dimensions ({shape}); samples must be "
            "a matrix or a stack of grey images: flatten or convert it, or pass "
            f"{spelled('x')}"
        )
    if samples is not None:
        rows, cols = (rows, False) if samples == "rows" else (False, cols)
        if not (rows or cols):
            raise DatasetError(
                f"labels do not match the samples in {where}: {quote(yn)} has {n} labels "
                f"but the {samples} of {quote(xn)} ({shape}) number "
                f"{a.shape[0] if samples == 'rows' else a.shape[-1]}; "
                f"check {spelled('samples')} or give the matching variables with "
                f"{spelled('x')} and {spelled('y')}"
            )
    elif rows and cols:
        raise DatasetError(
            f"cannot tell whether the samples are the rows or the columns of {quote(xn)} "
            f"in {where} ({shape}, {n} labels); pass "
            + setting("samples", "samples='rows' or samples='columns'")
        )
    elif not (rows or cols):
        raise DatasetError(
            f"labels do not match the samples in {where}: {quote(yn)} has {n} labels but "
            f"{quote(xn)} is {shape}; give the matching variables with {spelled('x')} "
            f"and {spelled('y')}, or fix the file"
        )
    if a.ndim == 2:
        return (a if rows else a.T), None, None, "rows" if rows else "columns"
    copied = not (a.flags.c_contiguous if rows else a.flags.f_contiguous)
    if budget is not None and copied:
        budget.charge(a.shape, a.itemsize, f"{quote(xn)} flattened")
    if rows:
        return a.reshape(n, -1), a.shape[1:], "C", "images, first axis"
    return a.reshape(-1, n, order="F").T, a.shape[:2], "F", "images, last axis"


def _size_hint(arrays, n_features):
    """The image size from scalar variables such as FERET.mat's ``rows``/``cols``."""
    for hn, wn in IMAGE_SIZE_HINTS:
        h, w = _lookup(arrays, hn), _lookup(arrays, wn)
        if h and w and arrays[h].size == 1 and arrays[w].size == 1:
            hv, wv = int(arrays[h].ravel()[0]), int(arrays[w].ravel()[0])
            if hv > 0 and wv > 0 and hv * wv == n_features:
                return (hv, wv)
    return None


def _index_split(arrays, where, n):
    """A fixed split given as 1-based index vectors beside the samples."""
    for train_name, test_name in INDEX_SPLITS:
        tr, te = _lookup(arrays, train_name), _lookup(arrays, test_name)
        if not (tr and te):
            continue
        vectors = [np.asarray(arrays[k]) for k in (tr, te)]
        parts = [v.ravel() for v in vectors]
        valid = all(
            sum(s > 1 for s in v.shape) <= 1
            and p.size
            and np.all(p == np.round(p))
            and p.min() >= 1
            and p.max() <= n
            for v, p in zip(vectors, parts, strict=True)
        )
        if not valid:
            raise DatasetError(
                f"{quote(tr)}/{quote(te)} in {where} are not vectors of 1-based indices "
                f"of the {n} samples; fix them, or load the samples alone with x= and "
                "y="
            )
        shared = np.intersect1d(*parts).size
        if shared:
            raise DatasetError(
                f"{quote(tr)} and {quote(te)} in {where} share {shared} samples; a training "
                "and a test set must be disjoint: fix the indices"
            )
        return tuple(p.astype(np.intp) - 1 for p in parts)
    return None
