"""The image lists of ``fdlsr features``: each data set's own files, read on small
fixtures written in its exact layout (tests/image_layouts.py)."""

import sys

import numpy as np
import pytest

from fdlsr.datasets._image_lists import detect, image_list
from fdlsr.errors import DatasetError
from image_layouts import cub200, flowers102, image_folder, stanford40


def cli_error(kind, function, *args):
    """The message of the one-line ``kind`` error that ``function(*args)`` raises."""
    with pytest.raises(kind) as excinfo:
        function(*args)
    text = str(excinfo.value)
    assert "\n" not in text
    return text


LAYOUTS = {
    "folder": image_folder,
    "stanford40": stanford40,
    "cub200": cub200,
    "flowers102": flowers102,
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_each_layout_lists_its_images_labels_and_split(tmp_path, layout):
    root = tmp_path / layout
    if layout == "folder":
        root.mkdir()
    names, labels, train, test = LAYOUTS[layout](root)
    assert detect(root) == layout
    for given in (None, layout):  # detected, and named
        images = image_list(root, given)
        assert images.layout == layout
        assert images.names == names
        assert images.labels.tolist() == labels
        assert all(f.is_file() for f in images.files)
        if train is None:
            assert images.train is None and images.test is None
        else:
            np.testing.assert_array_equal(images.train, train)
            np.testing.assert_array_equal(images.test, test)
            both = np.concatenate([images.train, images.test])
            assert np.array_equal(np.sort(both), np.arange(len(images)))


def test_flowers_trains_on_trnid_and_valid(tmp_path):
    """The split of ProCRC and NRC (whose features the paper used): 20 per class."""
    from scipy.io import loadmat

    flowers102(tmp_path / "f", classes=4, per_class=6)
    images = image_list(tmp_path / "f")
    setid = loadmat(tmp_path / "f" / "setid.mat")
    expected = np.sort(np.concatenate([setid["trnid"].ravel(), setid["valid"].ravel()]))
    np.testing.assert_array_equal(images.train + 1, expected)
    per_class = np.unique(images.labels[images.train], return_counts=True)[1]
    assert per_class.tolist() == [2, 2, 2, 2]
    assert images.names[0] == "jpg/image_00001.jpg"


def test_cub_labels_are_the_class_names_and_ids_follow_images_txt(tmp_path):
    cub200(tmp_path / "c")
    # lines in another order name the same images: the ids decide
    for name in ("images.txt", "train_test_split.txt"):
        path = tmp_path / "c" / name
        path.write_text("\n".join(reversed(path.read_text().split("\n")[:-1])) + "\n")
    images = image_list(tmp_path / "c")
    assert images.names[0].startswith("images/001.Black_footed_Albatross/")
    assert images.labels[0] == "001.Black_footed_Albatross"
    assert images.train.tolist() == [0, 2, 4, 6]


def test_list_file_paths_relative_to_it_with_an_optional_split(tmp_path):
    image_folder(tmp_path, classes=2, per_class=2)
    lines = ["# path,label", "class_0/img_0.png,a", "class_0/img_1.png, a",
             "class_1/img_0.png\tb", ""]  # fmt: skip
    (tmp_path / "list.txt").write_text("\n".join(lines))
    images = image_list(tmp_path / "list.txt")
    assert images.layout == "list" and images.labels.tolist() == ["a", "a", "b"]
    assert images.names == [
        "class_0/img_0.png",
        "class_0/img_1.png",
        "class_1/img_0.png",
    ]
    assert images.train is None
    (tmp_path / "split.csv").write_text(
        "class_0/img_0.png,a,train\nclass_0/img_1.png,a,test\n"
        "class_1/img_0.png,b,train\nclass_1/img_1.png,b,test\n"
    )
    images = image_list(tmp_path / "split.csv")
    assert images.train.tolist() == [0, 2] and images.test.tolist() == [1, 3]


@pytest.mark.parametrize(
    "text, message",
    [
        ("a.png,x,train\nb.png,y\n", "train/test"),
        ("a.png,x,val\n", "train or test"),
        ("a.png\n", "path,label"),
        ("# nothing\n", "lists no images"),
        ("missing.png,x\n", "missing"),
    ],
)
def test_bad_list_files_say_what_to_fix(tmp_path, text, message):
    image_folder(tmp_path, classes=1, per_class=1)
    (tmp_path / "class_0" / "img_0.png").rename(tmp_path / "a.png")
    (tmp_path / "b.png").write_bytes(b"")
    (tmp_path / "list.txt").write_text(text)
    assert message in cli_error(DatasetError, image_list, tmp_path / "list.txt")


def test_broken_layouts_say_what_to_fix(tmp_path):
    cub200(tmp_path / "c")
    (tmp_path / "c" / "train_test_split.txt").write_text("1 1\n")
    assert "same image ids" in cli_error(DatasetError, image_list, tmp_path / "c")
    stanford40(tmp_path / "s")
    (tmp_path / "s" / "ImageSplits" / "cooking_test.txt").unlink()
    assert "cooking_test.txt" in cli_error(DatasetError, image_list, tmp_path / "s")
    flowers102(tmp_path / "f")
    (tmp_path / "f" / "jpg" / "image_00003.jpg").unlink()
    assert "image_00003.jpg" in cli_error(DatasetError, image_list, tmp_path / "f")
    assert "not found" in cli_error(DatasetError, image_list, tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    assert "sub-folder" in cli_error(DatasetError, image_list, tmp_path / "empty")
    assert "unknown image layout" in cli_error(
        DatasetError, image_list, tmp_path / "c", "imagenet"
    )


def test_without_torchvision_extraction_says_what_to_install(tmp_path, monkeypatch):
    from fdlsr._experiments.features import extract_features
    from fdlsr.errors import ConfigError

    monkeypatch.setitem(sys.modules, "torchvision", None)  # import fails
    image_folder(tmp_path / "images", classes=1, per_class=1)
    images, out = tmp_path / "images", tmp_path / "f.npz"  # never inside the images
    text = cli_error(ConfigError, extract_features, images, out)
    assert "torchvision" in text and 'pip install ".[features]"' in text
