"""Image files as pixels (``datasets._images``), through the image-folder loader and the
list files of ``fdlsr features``: high bit depths scaled by their range, never
clipped; damaged files, decompression bombs and ranges no one can know refused in one
line; any bytes as an image give the right pixels or that one line."""

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fdlsr._testing import cli_error
from fdlsr.datasets import load_dataset
from fdlsr.datasets._image_lists import image_list
from fdlsr.errors import DatasetError
from image_bytes import image_files, png_16_bit_colour, png_declaring

Image = pytest.importorskip("PIL.Image")


def one_line(excinfo):
    text = str(excinfo.value)
    assert "\n" not in text and isinstance(excinfo.value, DatasetError)
    return text


def folder_of(root, files):
    """``{"class/name": bytes or PIL image}`` written under ``root``; returns root."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            content.save(path)
    return root


# --- 16-bit images: scaled by 65535, never clipped at 255 --------------------------


def test_16_bit_pngs_differ_where_they_differ_above_255(tmp_path):
    """Two 16-bit PNGs (mode I;16) that differ only above 255: the loader used to
    clip both to 255 everywhere and return identical rows."""
    a = np.array([[300, 1000, 65535], [256, 40000, 0]], dtype=np.uint16)
    b = np.array([[600, 2000, 30000], [512, 20000, 0]], dtype=np.uint16)
    root = folder_of(
        tmp_path / "imgs",
        {"a/a.png": Image.fromarray(a), "b/b.png": Image.fromarray(b)},
    )
    assert Image.open(root / "a" / "a.png").mode == "I;16"
    ds = load_dataset(root)
    assert ds.image_shape == (2, 3)
    np.testing.assert_array_equal(ds.images()[0], a * 255.0 / 65535)
    np.testing.assert_array_equal(ds.images()[1], b * 255.0 / 65535)
    assert not np.array_equal(ds.X[0], ds.X[1])
    rgb = load_dataset(root, grey=False)  # one grey channel, three times
    assert rgb.image_shape == (2, 3, 3)
    np.testing.assert_array_equal(
        rgb.images()[0], np.repeat(ds.images()[0][..., None], 3, 2)
    )


def test_a_16_bit_copy_of_an_8_bit_image_reads_the_same(tmp_path):
    """Every sample times 257 (65535 / 255): the same array, also resized (to within
    one level: Pillow resizes 8-bit images in fixed point), in PNG, TIFF (I;16B) and 16-bit PGM (mode I)."""
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 256, size=(8, 6), dtype=np.uint8)
    deep = pixels.astype(np.uint16) * 257
    big_endian = Image.frombytes("I;16B", (6, 8), deep.astype(">u2").tobytes())
    root = folder_of(
        tmp_path / "imgs",
        {
            "a/8bit.png": Image.fromarray(pixels),
            "b/16bit.png": Image.fromarray(deep),
            "c/16bit.tif": big_endian,
            "d/16bit.pgm": Image.fromarray(deep),
        },
    )
    assert Image.open(root / "d" / "16bit.pgm").mode == "I"
    assert Image.open(root / "c" / "16bit.tif").mode == "I;16B"
    ds = load_dataset(root)
    for row in ds.X[1:]:
        np.testing.assert_array_equal(row, ds.X[0])
    small = load_dataset(root, resize=(4, 3))
    assert small.image_shape == (4, 3)
    for row in small.X[1:]:
        np.testing.assert_allclose(row, small.X[0], atol=1)
    assert not np.array_equal(small.X[1], np.round(small.X[1]))  # finer levels kept


def test_a_pgm_with_a_smaller_maximum_is_scaled_by_it(tmp_path):
    """A 10-bit PGM (maximum 1023): Pillow rescales it to 0..65535; 1023 is white."""
    (tmp_path / "imgs" / "a").mkdir(parents=True)
    levels = np.array([[0, 1023, 512]], dtype=">u2")
    (tmp_path / "imgs" / "a" / "x.pgm").write_bytes(
        b"P5\n3 1\n1023\n" + levels.tobytes()
    )
    (tmp_path / "imgs" / "b").mkdir()
    (tmp_path / "imgs" / "b" / "y.pgm").write_bytes(
        b"P5\n3 1\n1023\n" + levels[:, ::-1].tobytes()
    )
    ds = load_dataset(tmp_path / "imgs")
    np.testing.assert_allclose(ds.X[0], [0, 255, 512 * 255 / 1023], atol=0.01)
    np.testing.assert_allclose(ds.X[1], ds.X[0][::-1])


@pytest.mark.parametrize(
    "array, kind",
    [
        (np.array([[0, 70000], [5, -3]], dtype=np.int32), "32-bit integer"),
        (
            np.array([[0.5, 2.0], [-1.0, 0.25]], dtype=np.float32),
            "32-bit floating-point",
        ),
    ],
)
def test_32_bit_images_have_no_range_and_are_refused(tmp_path, capsys, array, kind):
    root = folder_of(
        tmp_path / "imgs",
        {"a/x.tif": Image.fromarray(array), "b/y.png": Image.new("L", (2, 2))},
    )
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(root)
    text = one_line(excinfo)
    assert "x.tif" in text and kind in text and "Pillow mode" in text
    assert "8 or 16 bits" in text  # the fix
    line = cli_error(capsys, ["run", "--dataset", str(root), "--methods", "1-NN"])
    assert "x.tif" in line and kind in line


def test_16_bit_colour_is_refused_not_cut_to_its_high_byte(tmp_path, capsys):
    # Pillow would read both as black: every sample is below 256
    dark = np.full((2, 2, 3), 200, dtype=np.uint16)
    root = folder_of(
        tmp_path / "imgs",
        {"a/x.png": png_16_bit_colour(dark), "b/y.png": png_16_bit_colour(dark + 7)},
    )
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(root, grey=False)
    text = one_line(excinfo)
    assert "x.png" in text and "16 bits per colour channel" in text
    assert "8 bits per channel" in text  # the fix
    line = cli_error(capsys, ["run", "--dataset", str(root), "--methods", "1-NN"])
    assert "x.png" in line and "16 bits per colour channel" in line


# --- decompression bombs ------------------------------------------------------------


@pytest.mark.parametrize("side", [10_000, 100_000])  # over the warning, over the error
def test_a_decompression_bomb_is_refused_from_its_header(tmp_path, capsys, side):
    root = folder_of(
        tmp_path / "imgs",
        {"a/bomb.png": png_declaring(side, side), "b/y.png": Image.new("L", (2, 2))},
    )
    with pytest.raises(DatasetError) as excinfo:
        load_dataset(root)
    text = one_line(excinfo)
    assert "bomb.png" in text and "decompression bomb" in text and "pixels" in text
    line = cli_error(capsys, ["run", "--dataset", str(root), "--methods", "1-NN"])
    assert "bomb.png" in line and "decompression bomb" in line


# --- any bytes as an image ----------------------------------------------------------


def check_pixels(result, expected, grey):
    """``result`` (an array of one image) is ``expected`` (None: must not be here)."""
    assert expected is not None, "an image with no known range was read"
    if expected != "any":
        np.testing.assert_array_equal(result, expected[grey])


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(file=image_files(), grey=st.booleans())
def test_any_bytes_in_an_image_folder(tmp_path_factory, file, grey):
    """The loader gives the image's true pixels, or one line naming the file."""
    data, suffix, expected = file
    root = tmp_path_factory.mktemp("fuzz")
    name = f"x.{suffix}"
    folder_of(root, {f"a/{name}": data, f"b/{name}": data})  # same size in both
    try:
        ds = load_dataset(root, grey=grey)
    except DatasetError as error:
        text = str(error)
        assert "\n" not in text and name in text, text
        event("refused in one line")
        return
    event(f"read: {'any bytes' if expected == 'any' else 'an image'}")
    assert ds.n_samples == 2 and np.array_equal(ds.X[0], ds.X[1])
    check_pixels(ds.images()[0], expected, grey)


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    lines=st.lists(
        st.one_of(
            st.tuples(st.sampled_from(["a.png", "sub/b.png", "missing.png", "nul\x00.png"]),
                      st.text(min_size=0, max_size=6),
                      st.sampled_from(["", ",train", ",test", ",val"])),
            st.text(max_size=30),
        ),
        max_size=6,
    ),
    junk=st.binary(max_size=20),
    separator=st.sampled_from([",", " ", "\t"]),
)  # fmt: skip
def test_any_list_file(tmp_path_factory, lines, junk, separator):
    """A list file of any text (and any bytes): its images, or one line."""
    root = tmp_path_factory.mktemp("list")
    folder_of(
        root, {"a.png": Image.new("L", (2, 2)), "sub/b.png": Image.new("L", (2, 2))}
    )
    text = "\n".join(
        line if isinstance(line, str) else f"{line[0]}{separator}{line[1]}{line[2]}"
        for line in lines
    )
    listing = root / "list.txt"
    listing.write_bytes(text.encode("utf-8", "surrogatepass") + junk)
    try:
        found = image_list(listing)
    except DatasetError as error:
        assert "\n" not in str(error)
        return
    assert len(found) == len(found.labels) > 0
    assert all(f.is_file() for f in found.files)
