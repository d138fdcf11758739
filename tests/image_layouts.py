"""Small image data sets in the exact file layouts of Stanford-40, CUB-200-2011 and
Oxford 102 Flowers, and a class-per-folder tree, for the loader and feature tests.

Each writer returns what the loader must find: ``(names, labels, train, test)`` with
``names`` relative to the root, in the loader's order, and 0-based split indices.
The images are tiny PNG-encoded pictures saved under the data sets' own names (``.jpg``
files hold JPEG data when Pillow is there; otherwise a few bytes, enough for the
loaders, which only list files).
"""

from pathlib import Path

import numpy as np


def write_image(path, value=0, size=16):
    """A small RGB picture whose colour depends on ``value`` (so classes differ)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        from PIL import Image
    except ImportError:
        path.write_bytes(b"not an image")
        return
    rng = np.random.default_rng(value)
    base = np.array([(value * 70) % 256, (value * 40 + 90) % 256, (value * 110) % 256])
    pixels = np.clip(base + rng.normal(0, 25, (size, size, 3)), 0, 255)
    Image.fromarray(pixels.astype(np.uint8)).save(path)


def image_folder(root, classes=3, per_class=4, size=64):
    """torchvision's ImageFolder layout: ROOT/CLASS/IMAGE."""
    names, labels = [], []
    for c in range(classes):
        for i in range(per_class):
            name = f"class_{c}/img_{i}.png"
            write_image(Path(root) / name, 10 * c + i, size)
            names.append(name)
            labels.append(f"class_{c}")
    return names, labels, None, None


def stanford40(root, actions=("applauding", "cooking"), train=3, test=2):
    """JPEGImages/ACTION_NNN.jpg, ImageSplits/ACTION_{train,test}.txt, actions.txt."""
    root = Path(root)
    splits = root / "ImageSplits"
    splits.mkdir(parents=True)
    (splits / "actions.txt").write_text(
        "action_name\tnumber_of_images\n"
        + "".join(f"{a}\t{train + test}\n" for a in actions)
    )
    names, labels, part = [], [], []
    for c, action in enumerate(actions):
        files = [f"{action}_{i:03d}.jpg" for i in range(1, train + test + 1)]
        # the official lists are not the first images of each action: odd ones first
        order = files[1::2] + files[::2]
        train_files = sorted(order[:train])
        test_files = [f for f in files if f not in train_files]
        (splits / f"{action}_train.txt").write_text("\n".join(train_files) + "\n")
        (splits / f"{action}_test.txt").write_text("\n".join(test_files) + "\n")
        for i, f in enumerate(files):
            write_image(root / "JPEGImages" / f, 10 * c + i)
        for which, listed in ((0, train_files), (1, test_files)):
            for f in listed:
                names.append(f"JPEGImages/{f}")
                labels.append(action)
                part.append(which)
    part = np.array(part)
    return names, labels, np.flatnonzero(part == 0), np.flatnonzero(part == 1)


def cub200(root, classes=("001.Black_footed_Albatross", "002.Laysan_Albatross"),
           per_class=4):  # fmt: skip
    """images/CLASS/FILE with images.txt, image_class_labels.txt, train_test_split.txt,
    classes.txt; ids 1..n, every other image of a class for training."""
    root = Path(root)
    root.mkdir(parents=True)
    lines = {"images": [], "labels": [], "split": []}
    names, labels, is_train = [], [], []
    image_id = 0
    for c, cls in enumerate(classes, 1):
        for i in range(per_class):
            image_id += 1
            name = f"{cls}/{cls.split('.', 1)[1]}_{i:04d}_{image_id}.jpg"
            write_image(root / "images" / name, 10 * c + i)
            lines["images"].append(f"{image_id} {name}")
            lines["labels"].append(f"{image_id} {c}")
            lines["split"].append(f"{image_id} {int(i % 2 == 0)}")
            names.append(f"images/{name}")
            labels.append(cls)
            is_train.append(i % 2 == 0)
    (root / "images.txt").write_text("\n".join(lines["images"]) + "\n")
    (root / "image_class_labels.txt").write_text("\n".join(lines["labels"]) + "\n")
    (root / "train_test_split.txt").write_text("\n".join(lines["split"]) + "\n")
    (root / "classes.txt").write_text(
        "".join(f"{c} {cls}\n" for c, cls in enumerate(classes, 1))
    )
    is_train = np.array(is_train)
    return names, labels, np.flatnonzero(is_train), np.flatnonzero(~is_train)


def flowers102(root, classes=3, per_class=5):
    """jpg/image_NNNNN.jpg with imagelabels.mat (labels, 1 x n) and setid.mat (trnid,
    valid, tstid: 1-based image numbers, 1 x m each, as in the release)."""
    from scipy.io import savemat

    root = Path(root)
    (root / "jpg").mkdir(parents=True)
    n = classes * per_class
    rng = np.random.default_rng(0)
    y = rng.permutation(np.repeat(np.arange(1, classes + 1), per_class))
    for i in range(1, n + 1):
        write_image(root / "jpg" / f"image_{i:05d}.jpg", int(y[i - 1]) * 10 + i)
    trnid, valid, tstid = [], [], []
    for c in range(1, classes + 1):
        ids = np.flatnonzero(y == c) + 1
        trnid.append(ids[0])
        valid.append(ids[1])
        tstid.extend(ids[2:])
    savemat(root / "imagelabels.mat", {"labels": y[None, :].astype(np.uint8)})
    savemat(
        root / "setid.mat",
        {
            "trnid": np.array(trnid, dtype=np.uint16)[None, :],
            "valid": np.array(valid, dtype=np.uint16)[None, :],
            "tstid": np.array(sorted(tstid), dtype=np.uint16)[None, :],
        },
    )
    names = [f"jpg/image_{i:05d}.jpg" for i in range(1, n + 1)]
    train = np.sort(np.array(trnid + valid)) - 1
    test = np.array(sorted(tstid)) - 1
    return names, [str(v) for v in y], train, test
