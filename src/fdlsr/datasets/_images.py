"""One image file as pixels, at the image's own bit depth, never clipped.

This is the only place an image file is decoded: the image-folder loader
(``load_dataset(FOLDER)``) and ``fdlsr features`` both come here.

Pillow opens a file in a *mode*. Images of 8 bits per sample (modes ``1``, ``L``,
``P``, ``RGB``, ``RGBA``, ``LA``, ``CMYK``, ``YCbCr``, ...) become grey (``L``) or
``RGB`` as ``Image.convert`` makes them; an alpha channel is dropped. ``convert``
clips deeper samples at 255, so they never go through it: 16-bit grey images (modes
``I;16``, ``I;16B``, ``I;16L``, ``I;16N``, and 16-bit PGM/PPM files, which Pillow
opens as ``I`` rescaled to 0..65535) are divided by 65535, their full range. Other
32-bit images (``I`` from a TIFF file, floating-point ``F``) declare no range of
grey levels, so they are refused with the fix rather than guessed. A file whose
header declares more pixels than Pillow's ``Image.MAX_IMAGE_PIXELS`` (a possible
decompression bomb) is refused before its pixels are read.

Pillow reads images of 16 bits per colour channel (48- and 64-bit PNG, TIFF, PPM)
into 8-bit modes by keeping the high byte of each sample, so 16-bit colour samples
below 256 all become 0: such files (a ``;16`` raw mode under an 8-bit mode) are
refused with the fix, before their pixels are read.
"""

import contextlib
import warnings

import numpy as np

from .._common.files import open_input
from ..errors import DatasetError
from ._dataset import one_line

# Modes whose samples are 8 bits: Image.convert to L or RGB loses nothing but alpha.
EIGHT_BIT = {
    "1", "L", "P", "RGB", "RGBA", "RGBX", "RGBa", "LA", "La", "PA", "CMYK",
    "YCbCr", "LAB", "HSV",
}  # fmt: skip
# Modes of 16-bit grey samples, and the formats whose mode I holds them (Pillow
# rescales a PGM/PPM file's maximum value to 65535).
SIXTEEN_BIT = {"I;16", "I;16B", "I;16L", "I;16N"}
SIXTEEN_BIT_AS_I = {"PPM"}
MAX_LEVEL = 65535
FIX = "replace or remove the file"


def decode_image(path, *, grey=False):
    """The pixels of the image file ``path``.

    Parameters
    ----------
    path : path-like
        The image file.
    grey : bool, default=False
        One grey channel, else three (RGB).

    Returns
    -------
    PIL.Image.Image or ndarray
        An 8-bit image as a Pillow image in mode ``"L"`` or ``"RGB"``; a 16-bit one
        as a float64 array, ``(h, w)`` or ``(h, w, 3)``, of its samples, out of
        ``MAX_LEVEL`` (65535).

    Raises
    ------
    fdlsr.errors.DatasetError
        A file that is not an image, is damaged or truncated, declares too many
        pixels, or holds samples with no fixed range (modes ``I`` and ``F``).
    """
    with _opened(path) as img:
        return _pixels(img, path, grey)


def image_size(path):
    """``(height, width, deep)`` of the image file ``path`` from its header alone (no
    pixel is decoded; ``deep``: more than 8 bits per sample); refused as
    :func:`decode_image` refuses a file."""
    with _opened(path) as img:
        return img.height, img.width, img.mode not in EIGHT_BIT


@contextlib.contextmanager
def _opened(path):
    """The image file ``path`` opened by Pillow, whatever goes wrong inside the block
    refused in one line."""
    from PIL import Image

    with warnings.catch_warnings():
        # Pillow's notes (e.g. on palette transparency) are not the user's concern;
        # its warning about too many pixels is refused like its error.
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with (
                open_input(path, error=DatasetError, what="image file") as f,
                Image.open(f) as img,
            ):
                yield img
        except DatasetError:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise DatasetError(
                f"refused the image {path}: its header declares too many pixels, as a "
                f"decompression bomb does ({one_line(exc)[:120]}); {FIX}, or shrink "
                f"it to at most {Image.MAX_IMAGE_PIXELS} pixels"
            ) from None
        except Exception as exc:  # Pillow's plugins raise many kinds on a bad file
            raise DatasetError(
                f"cannot read the image {path} ({_reason(exc)}); {FIX}"
            ) from None


def read_image(path, *, grey=True, resize=None):
    """The pixels of ``path`` as an array on the 0..255 scale of 8-bit images.

    An 8-bit image comes as stored (uint8); a 16-bit one as float64 samples
    * 255 / 65535, keeping its finer levels (a 16-bit copy of an 8-bit image, each
    sample times 257, gives the same array). ``resize=(h, w)`` resamples with
    Pillow's default filter (bicubic; nearest for modes 1 and P), in floating point
    for a 16-bit image.
    """
    from PIL import Image

    pixels = decode_image(path, grey=grey)
    if isinstance(pixels, Image.Image):
        if resize is not None:
            pixels = pixels.resize((resize[1], resize[0]))
        return np.asarray(pixels)
    pixels = pixels * 255 / MAX_LEVEL  # exact for 257 times an 8-bit level
    if resize is None:
        return pixels
    channels = pixels[..., None] if pixels.ndim == 2 else pixels
    resized = [
        np.asarray(
            Image.fromarray(channels[..., c].astype(np.float32)).resize(
                (resize[1], resize[0]), Image.Resampling.BICUBIC
            ),
            dtype=np.float64,
        )
        for c in range(channels.shape[2])
    ]
    return resized[0] if pixels.ndim == 2 else np.stack(resized, axis=-1)


def _pixels(img, path, grey):
    if img.mode in EIGHT_BIT and any(";16" in raw for raw in _raw_modes(img)):
        raise DatasetError(
            f"the image {path} has 16 bits per colour channel, which Pillow reads "
            f"as {img.mode} with 8 (the low byte dropped); save it with 8 bits per "
            "channel, or as 16-bit grey"
        )
    img.load()  # decodes now: a truncated or damaged file fails here
    if img.width < 1 or img.height < 1:
        raise DatasetError(f"the image {path} has no pixels ({img.size}); {FIX}")
    if img.mode in EIGHT_BIT:
        return img.convert("L" if grey else "RGB")
    sixteen = img.mode in SIXTEEN_BIT or (
        img.mode == "I" and img.format in SIXTEEN_BIT_AS_I
    )
    if img.mode in ("I", "F") and not sixteen:
        kind = "integer" if img.mode == "I" else "floating-point"
        raise DatasetError(
            f"the image {path} has 32-bit {kind} samples (Pillow mode {img.mode}), "
            "which have no fixed range of grey levels; save it with 8 or 16 bits per "
            "sample (e.g. as a 16-bit PNG scaled to 0..65535)"
        )
    if not sixteen:
        raise DatasetError(
            f"the image {path} has samples of Pillow mode {img.mode}, which are not "
            "read here; save it with 8 or 16 bits per sample (e.g. as a PNG)"
        )
    levels = np.asarray(img)
    if levels.min() < 0 or levels.max() > MAX_LEVEL:
        raise DatasetError(
            f"the image {path} (Pillow mode {img.mode}) holds samples outside "
            f"0..{MAX_LEVEL} ({levels.min()}..{levels.max()}); save it as a "
            "16-bit image"
        )
    levels = levels.astype(np.float64)
    return levels if grey else np.repeat(levels[..., None], 3, axis=2)


def _raw_modes(img):
    """The raw modes the decoder will read ``img``'s tiles in (before ``load``)."""
    modes = []
    for tile in getattr(img, "tile", None) or []:
        args = tile[-1] if isinstance(tile, tuple) else getattr(tile, "args", None)
        args = args if isinstance(args, tuple) else (args,)
        modes += [arg for arg in args if isinstance(arg, str)]
    return modes


def _reason(exc):
    """A library's exception in a few words: its message, else its kind."""
    from PIL import UnidentifiedImageError

    if isinstance(exc, UnidentifiedImageError):  # its message shows a file object
        return "not an image file that Pillow reads"
    text = one_line(exc)[:120]
    return text if text else type(exc).__name__
