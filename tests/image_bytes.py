"""Image files as bytes, for the tests of the image decoder (``datasets._images``)
through the image-folder loader and ``fdlsr features``: valid images of every mode in
lossless formats with the pixels a reader must give, random bytes, files cut short,
and the header of a decompression bomb."""

import io
import struct
import zlib

import numpy as np
from hypothesis import strategies as st
from PIL import Image


def png_chunk(kind, data):
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png_declaring(width, height):
    """A PNG whose header declares ``width`` x ``height`` grey pixels, with one row of
    data: what a decompression bomb's header looks like, in a few bytes."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    data = zlib.compress(b"\x00" * (width + 1))
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", data)
        + png_chunk(b"IEND", b"")
    )


def png_16_bit_colour(levels):
    """A PNG of 16 bits per channel (colour type 2) with the samples ``levels``
    (h x w x 3, 0..65535): Pillow writes none."""
    h, w, _ = levels.shape
    rows = b"".join(b"\x00" + levels[i].astype(">u2").tobytes() for i in range(h))
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0))
        + png_chunk(b"IDAT", zlib.compress(rows))
        + png_chunk(b"IEND", b"")
    )


MODES = ["L", "RGB", "1", "P", "LA", "RGBA", "I;16", "I", "F", "CMYK"]
LOSSLESS = {  # formats that keep each mode exactly (or refuse to write it)
    "L": ["png", "bmp", "tif", "pgm"],
    "RGB": ["png", "bmp", "tif", "ppm"],
    "1": ["png", "bmp", "tif"],
    "P": ["png", "bmp", "gif", "tif"],
    "LA": ["png", "tif"],
    "RGBA": ["png", "tif"],
    "I;16": ["png", "tif", "pgm"],
    "I": ["tif"],
    "F": ["tif"],
    "CMYK": ["tif"],
}


@st.composite
def images(draw):
    """A valid image of a random mode, size and lossless format: its bytes, its
    suffix and the pixels the loader must give (None: it must be refused)."""
    mode = draw(st.sampled_from(MODES))
    suffix = draw(st.sampled_from(LOSSLESS[mode]))
    h, w = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if mode == "I;16":
        levels = rng.integers(0, 65536, size=(h, w), dtype=np.uint16)
        img = Image.fromarray(levels)
        expected = {True: levels * 255.0 / 65535}
        expected[False] = np.repeat(expected[True][..., None], 3, axis=2)
    elif mode in ("I", "F"):
        dtype = np.int32 if mode == "I" else np.float32
        img = Image.fromarray((rng.normal(size=(h, w)) * 1e5).astype(dtype))
        expected = None
    else:
        img = Image.fromarray(rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8))
        if mode == "P":
            img = img.quantize(colors=int(rng.integers(2, 256)))
        else:
            img = img.convert(mode)
        expected = {
            g: np.asarray(img.convert("L" if g else "RGB")) for g in (True, False)
        }
    buffer = io.BytesIO()
    img.save(
        buffer, format={"tif": "TIFF", "pgm": "PPM", "ppm": "PPM"}.get(suffix, suffix)
    )
    return buffer.getvalue(), suffix, expected


@st.composite
def image_files(draw):
    """Random bytes with an image suffix, a valid image, or a valid image cut short."""
    kind = draw(st.sampled_from(["bytes", "image", "truncated"]))
    if kind == "bytes":
        data = draw(st.binary(max_size=400))
        return (
            data,
            draw(st.sampled_from(["png", "jpg", "gif", "tif", "bmp", "pgm"])),
            "any",
        )
    data, suffix, expected = draw(images())
    if kind == "truncated":
        data = data[: draw(st.integers(0, max(0, len(data) - 1)))]
    return data, suffix, expected
