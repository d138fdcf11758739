"""Which image files make a data set, with their labels and any official split.

Deep features (``fdlsr features``) are extracted from a list of image files. The list
comes from one of five layouts, each read from the files its distribution ships:

- ``folder``: one sub-folder per class (torchvision's ``ImageFolder``);
- ``list``: a text file of ``path,label`` lines (a path relative to the file's folder;
  ``path label`` with a space or tab also works; ``#`` starts a comment); an optional
  third field ``train`` or ``test`` gives a fixed split;
- ``stanford40``: Stanford 40 Actions, ``JPEGImages/`` with ``ImageSplits/ACTION_train.txt``
  and ``ImageSplits/ACTION_test.txt`` (the official split: 100 training images per
  action);
- ``cub200``: CUB-200-2011, ``images/`` with ``images.txt`` (id, path),
  ``image_class_labels.txt`` (id, class id), ``train_test_split.txt`` (id, 1 = train)
  and ``classes.txt`` (class id, name);
- ``flowers102``: Oxford 102 Flowers, ``jpg/image_NNNNN.jpg`` with ``imagelabels.mat``
  (``labels``, 1..102) and ``setid.mat`` (``trnid``, ``valid``, ``tstid``); training
  is ``trnid`` and ``valid`` together (20 images per class), as in ProCRC and NRC,
  whose features the paper used; testing is ``tstid``.

:func:`image_list` tells the layout from the files present when none is named.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._common.files import open_input
from .._common.messages import quote
from ..errors import DatasetError
from ._dataset import one_line

IMAGE_SUFFIXES = {
    ".png",
    ".jpg",
    ".jpeg",
    ".bmp",
    ".gif",
    ".tif",
    ".tiff",
    ".pgm",
    ".ppm",
}
LAYOUTS = ("folder", "list", "stanford40", "cub200", "flowers102")


@dataclass(frozen=True, eq=False)
class ImageList:
    """Image files with one label each and, for a data set that ships one, its split.

    ``files`` are absolute paths; ``names`` the same paths relative to ``root`` (what a
    feature file records); ``train``/``test`` are 0-based indices or None.
    """

    files: list
    labels: np.ndarray
    root: Path
    layout: str
    train: np.ndarray | None = None
    test: np.ndarray | None = None

    @property
    def names(self):
        out = []
        for f in self.files:
            try:
                out.append(Path(f).relative_to(self.root).as_posix())
            except ValueError:  # a list file may name images outside its folder
                out.append(str(f))
        return out

    def __len__(self):
        return len(self.files)


def image_list(source, layout=None):
    """The images of ``source`` (a folder or a list file) in ``layout`` (or detected)."""
    path = Path(source).expanduser()
    if not path.exists():
        raise DatasetError(
            f"image source not found: {path}; give a folder of images (one sub-folder "
            "per class, or a dataset's own folder) or a list file of path,label lines"
        )
    if layout is None:
        layout = detect(path)
    readers = {
        "folder": image_folder,
        "list": list_file,
        "stanford40": stanford40,
        "cub200": cub200,
        "flowers102": flowers102,
    }
    if layout not in readers:
        raise DatasetError(
            f"unknown image layout {layout!r}; choose one of {', '.join(LAYOUTS)}"
        )
    images = readers[layout](path)
    if not images.files:
        raise DatasetError(f"{path} lists no images; check the {layout} layout")
    missing = [f for f in images.files if not _is_file(f)]
    if missing:
        raise DatasetError(
            f"{len(missing)} of the {len(images.files)} images listed in {path} are "
            f"missing (first: {missing[0]}); complete the data set or fix the list"
        )
    return images


def _is_file(path):
    try:
        return Path(path).is_file()
    except (OSError, ValueError):  # a name too long for the file system, a NUL
        return False


def detect(path):
    """The layout of ``path`` from the files it holds."""
    if path.is_file():
        return "list"
    if (path / "images.txt").is_file() and (path / "train_test_split.txt").is_file():
        return "cub200"
    if (path / "imagelabels.mat").is_file() and (path / "setid.mat").is_file():
        return "flowers102"
    if (path / "ImageSplits").is_dir():
        return "stanford40"
    return "folder"


def image_folder(path):
    """One sub-folder per class; sorted classes and files, as ``ImageFolder``."""
    classes = sorted(
        p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")
    )
    files, labels = [], []
    for c in classes:
        for f in sorted(c.iterdir()):
            if f.suffix.lower() in IMAGE_SUFFIXES and not f.name.startswith("."):
                files.append(f)
                labels.append(c.name)
    if not files:
        raise DatasetError(
            f"no images found in class sub-folders of {path}; put the images of each "
            "class in a sub-folder named after the class, or give a list file"
        )
    return ImageList(files, np.array(labels, dtype=str), path, "folder")


def list_file(path):
    """``path,label[,train|test]`` lines; paths relative to the list file's folder.

    A line holding a comma is split at commas, any other at white space; a line with
    another number of fields is refused with its line (``file:line``).
    """
    root = path.parent
    files, labels, parts = [], [], []
    text = _read_text(path)
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in (line.split(",") if "," in line else line.split())]
        if len(fields) not in (2, 3) or not all(fields):
            raise DatasetError(
                f"{path}:{number}: expected path,label (or path,label,train|test), "
                f"got {quote(line)}; fix the line"
            )
        if len(fields) == 3 and fields[2] not in ("train", "test"):
            raise DatasetError(
                f"{path}:{number}: the third field must be train or test, got "
                f"{quote(fields[2])}; fix the line"
            )
        files.append(_resolved(root / fields[0], path, number))
        labels.append(fields[1])
        parts.append(fields[2] if len(fields) == 3 else None)
    if not files:
        raise DatasetError(f"{path} lists no images; write one path,label per line")
    given = {p is not None for p in parts}
    if given == {True, False}:
        raise DatasetError(
            f"{path}: some lines give train/test and others do not; give it on every "
            "line or on none"
        )
    train = test = None
    if given == {True}:
        parts = np.array(parts)
        train, test = np.flatnonzero(parts == "train"), np.flatnonzero(parts == "test")
    return ImageList(
        files, np.array(labels, dtype=str), root.resolve(), "list", train, test
    )


def stanford40(path):
    """Stanford 40 Actions: ``ImageSplits/ACTION_{train,test}.txt`` name the images."""
    splits = path / "ImageSplits"
    actions = sorted(p.name[: -len("_train.txt")] for p in splits.glob("*_train.txt"))
    if not actions:
        raise DatasetError(
            f"{splits} holds no ACTION_train.txt files; give the folder of the Stanford "
            "40 Actions data set (with JPEGImages/ and ImageSplits/)"
        )
    files, labels, part = [], [], []
    for action in actions:
        for name, which in (("train", 0), ("test", 1)):
            listing = splits / f"{action}_{name}.txt"
            if not listing.is_file():
                raise DatasetError(
                    f"{listing} is missing; the Stanford 40 split needs both "
                    f"{action}_train.txt and {action}_test.txt"
                )
            for image in _read_text(listing).split():
                files.append(path / "JPEGImages" / image)
                labels.append(action)
                part.append(which)
    part = np.array(part)
    return ImageList(
        files, np.array(labels, dtype=str), path, "stanford40",
        np.flatnonzero(part == 0), np.flatnonzero(part == 1),
    )  # fmt: skip


def cub200(path):
    """CUB-200-2011: ids in ``images.txt`` joined with the class and split files."""
    images = _id_table(path / "images.txt")
    classes = _id_table(path / "image_class_labels.txt", one_word=True)
    split = _id_table(path / "train_test_split.txt", one_word=True)
    names = _id_table(path / "classes.txt") if (path / "classes.txt").is_file() else {}
    for label, table in (("image_class_labels.txt", classes),
                         ("train_test_split.txt", split)):  # fmt: skip
        if set(table) != set(images):
            raise DatasetError(
                f"{path / label} does not cover the same image ids as images.txt "
                f"({len(table)} and {len(images)} ids); use the files of one release"
            )
    ids = sorted(images, key=int)
    bad = [split[i] for i in ids if split[i] not in ("0", "1")]
    if bad:
        raise DatasetError(
            f"{path / 'train_test_split.txt'}: the split must be 1 (train) or 0 (test), "
            f"got {quote(bad[0])}"
        )
    used = sorted(set(classes.values()))
    named = [names.get(c, c) for c in used]
    if len(set(named)) < len(used):  # two class ids would become one class
        twice = next(n for n in named if named.count(n) > 1)
        raise DatasetError(
            f"{path / 'classes.txt'} gives two classes the name {quote(twice)}; "
            "give every class its own name"
        )
    files = [path / "images" / images[i] for i in ids]
    labels = np.array([names.get(classes[i], classes[i]) for i in ids], dtype=str)
    is_train = np.array([split[i] == "1" for i in ids])
    return ImageList(
        files, labels, path, "cub200",
        np.flatnonzero(is_train), np.flatnonzero(~is_train),
    )  # fmt: skip


def flowers102(path):
    """Oxford 102 Flowers: ``imagelabels.mat`` and ``setid.mat`` (1-based image ids)."""
    from scipy.io import loadmat

    try:
        labels = _whole_vector(loadmat(path / "imagelabels.mat"), "labels", path)
        setid = loadmat(path / "setid.mat")
        parts = [
            _whole_vector(setid, name, path) for name in ("trnid", "valid", "tstid")
        ]
    except (KeyError, ValueError, OSError) as exc:
        raise DatasetError(
            f"cannot read {path}'s imagelabels.mat (labels) and setid.mat (trnid, "
            f"valid, tstid): {one_line(exc)}; use the files of the Oxford 102 release"
        ) from None
    train, test = np.concatenate(parts[:2]), parts[2]
    n = labels.size
    ids = np.concatenate([train, test])
    if ids.min() < 1 or ids.max() > n or np.unique(ids).size != ids.size:
        raise DatasetError(
            f"{path / 'setid.mat'}: trnid, valid and tstid must be distinct image "
            f"numbers 1..{n} (the length of imagelabels.mat's labels)"
        )
    files = [path / "jpg" / f"image_{i:05d}.jpg" for i in range(1, n + 1)]
    return ImageList(
        files, labels.astype(str), path, "flowers102",
        np.sort(train.astype(np.intp) - 1), np.sort(test.astype(np.intp) - 1),
    )  # fmt: skip


def _whole_vector(arrays, name, path):
    """The variable ``name`` of a Flowers ``.mat`` file: a vector of whole numbers."""
    a = np.asarray(arrays[name])
    if (
        a.dtype.kind not in "biuf"
        or sum(s > 1 for s in a.shape) > 1
        or not np.all(np.isfinite(a))
        or np.any(a != np.round(a))
    ):
        raise DatasetError(
            f"{quote(name)} in {path} is not a vector of whole numbers (a "
            f"{'x'.join(map(str, a.shape))} {a.dtype} array); use the files of the "
            "Oxford 102 release"
        )
    return a.ravel().astype(np.int64)


def _id_table(path, one_word=False):
    """``{id: value}`` from a file of ``id value`` lines (CUB's metadata files); with
    ``one_word`` the value is one word (a class id, a 0 or 1), else the rest of the
    line (a file or class name)."""
    if not path.is_file():
        raise DatasetError(
            f"{path} is missing; give the CUB_200_2011 folder (images.txt, "
            "image_class_labels.txt, train_test_split.txt, images/)"
        )
    table = {}
    for number, line in enumerate(_read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split() if one_word else line.split(maxsplit=1)
        if len(fields) != 2:
            raise DatasetError(
                f"{path}:{number}: expected 'id value', got {quote(line)}; fix the line"
            )
        if fields[0] in table:
            raise DatasetError(
                f"{path}:{number}: id {quote(fields[0])} is given twice; give "
                "each id once"
            )
        table[fields[0]] = fields[1].strip()
    return table


def _resolved(image, listing, number):
    """The absolute path of an image named on line ``number`` of ``listing``."""
    try:
        return image.resolve()
    except (OSError, RuntimeError, ValueError):  # a NUL, a loop of links, ...
        raise DatasetError(
            f"{listing} line {number}: {quote(str(image))} is not a usable path; "
            "give the path of an image file"
        ) from None


def _read_text(path):
    try:
        with open_input(
            path, "r", error=DatasetError, what="text file", encoding="utf-8-sig"
        ) as f:
            text = f.read()
    except UnicodeDecodeError:
        text = "\0"
    if "\0" in text:  # binary; and numpy would drop a label's last NUL characters
        raise DatasetError(f"{path} is not a UTF-8 text file; save it as text")
    return text
