"""Deep features of images: a pretrained backbone's penultimate layer, saved for ``fdlsr run``.

The paper's Table VI classifies VGG-19 features (ImageNet weights) of Stanford-40,
CUB-200-2011 and Oxford 102 Flowers. :func:`extract_features` makes such a file from
the images: a list of files (``datasets._image_lists``: a class-per-folder tree, a
``path,label`` list or one of the three data sets' own layouts) goes through a
torchvision or timm model with the preprocessing of its weights, in batches, on the GPU
when there is one. The features of one layer are kept: by default the input of the
model's last linear layer (VGG-19: fc7, 4096-d; ResNet-50: the pooled 2048-d vector;
a ViT: the class token), or the output of any module named with ``layer`` (a 4-D
convolutional map is averaged over its spatial positions).

*Weights* and the layer kept: :mod:`.backbones`.

*Images* are decoded by ``datasets._images`` (as the image-folder loader does): 8-bit
pictures through the weights' preprocessing as Pillow images, 16-bit grey ones as
float tensors of their samples / 65535 (never clipped at 255); files that cannot be
read, in the main process or in a DataLoader worker, are one error naming the file.

*Resumable.* Features are written in chunks of ``chunk_size`` images to a folder
``OUTPUT.parts`` beside the output as they finish, each with the sha256 of its image
files; a rerun with the same settings keeps the chunks whose files are unchanged,
recomputes the others (and says so), and the folder is removed once the output is
written.

*The output* (``.npz`` or ``.mat``) holds ``features`` (n x d, float32), ``labels``,
``files`` (paths relative to the image folder), the data set's own split as 1-based
``trainIdx``/``testIdx`` when it has one, and ``record``: a JSON text naming the
model, layer, weights, preprocessing and library versions. ``load_dataset`` (and so
``fdlsr run --dataset FILE``) reads it as it is.
"""

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._common.ownership import record_written
from ..datasets._dataset import one_line
from ..datasets._image_lists import image_list
from ..datasets._images import MAX_LEVEL, decode_image
from ..errors import ConfigError, DatasetError, FdlsrError
from . import feature_chunks as chunks
from .backbones import DEFAULT_MODEL, load_backbone, torch_modules
from .outputs import check_output


class _Images:
    """The transformed images with the sha256 of each file, for a DataLoader.

    A file that cannot be used comes back as a :class:`_Failure` (turned into one
    error by :func:`_collate` and :func:`_batches`): an exception raised inside a
    DataLoader worker process would reach the user as a traceback.
    """

    def __init__(self, files, transform):
        self.files, self.transform = files, transform

    def __len__(self):
        return len(self.files)

    def __getitem__(self, index):
        file = self.files[index]
        try:
            digest = chunks.file_sha256(file)  # before decoding: the chunk records it
            pixels = decode_image(file)
            if isinstance(pixels, np.ndarray):  # 16-bit: a float tensor in [0, 1]
                import torch

                pixels = torch.from_numpy(
                    (pixels.transpose(2, 0, 1) / MAX_LEVEL).astype(np.float32)
                )
            return self.transform(pixels), digest
        except DatasetError as exc:
            return _Failure(str(exc))
        except Exception as exc:  # the model's preprocessing refusing this image
            return _Failure(
                f"cannot prepare the image {file} for the model "
                f"({type(exc).__name__}: {one_line(exc)[:120]}); replace or remove "
                "the file"
            )


@dataclass(frozen=True)
class _Failure:
    """Why an image could not be used (one line), passed out of a worker process."""

    message: str


def _collate(items):
    """A batch ``(images, sha256s)``, or the first failure among ``items``."""
    from torch.utils.data import default_collate

    for item in items:
        if isinstance(item, _Failure):
            return item
    tensors, digests = zip(*items, strict=True)
    return default_collate(list(tensors)), list(digests)


def _batches(loader, parts):
    """The batches of ``loader``; a failed image or a dead worker as one error."""
    try:
        for batch in loader:
            if isinstance(batch, _Failure):
                raise DatasetError(batch.message)
            yield batch
    except RuntimeError as exc:
        if "DataLoader worker" not in str(exc):
            raise
        raise FdlsrError(
            f"a process decoding images died ({one_line(exc)[:160]}); finished chunks "
            f"are kept in {parts}: rerun the same command to resume (--workers 0 "
            "decodes in the main process)"
        ) from None


def pick_device(device=None):
    """``device`` as given, else ``"cuda"`` when a GPU is there, else ``"cpu"``."""
    torch, _ = torch_modules()
    if device is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"--device {device}: no CUDA GPU is available; use cpu")
    return str(device)


def features_of(backbone, batch, device):
    """The hooked activations of one batch of transformed images, as float32 rows."""
    import torch

    caught = []
    if backbone.use_input:
        handle = backbone.module.register_forward_pre_hook(
            lambda module, args: caught.append(args[0])
        )
    else:
        handle = backbone.module.register_forward_hook(
            lambda module, args, output: caught.append(output)
        )
    try:
        with torch.inference_mode():
            backbone.model(batch.to(device))
    finally:
        handle.remove()
    out = caught[0]
    if isinstance(out, (tuple, list)):
        out = out[0]
    if out.ndim == 4:  # a convolutional map: average over the positions
        out = out.mean(dim=(2, 3))
    return out.reshape(out.shape[0], -1).float().cpu().numpy()


def extract_features(
    source,
    output,
    *,
    layout=None,
    model=DEFAULT_MODEL,
    layer=None,
    weights="default",
    batch_size=32,
    chunk_size=512,
    device=None,
    workers=0,
    seed=0,
    progress=None,
    notice=None,
    force=False,
):
    """Extract deep features of the images of ``source`` and save them to ``output``.

    Parameters
    ----------
    source : str or path-like
        A folder (one sub-folder per class, or the folder of Stanford-40,
        CUB-200-2011 or Oxford 102 Flowers) or a list file of ``path,label`` lines.
    output : str or path-like
        The ``.npz`` or ``.mat`` file to write.
    layout : {"folder", "list", "stanford40", "cub200", "flowers102"}, optional
        How ``source`` lists its images; default: told from the files present.
    model : str, default="vgg19"
        A torchvision model name (``torchvision.models.list_models()``) or ``timm:NAME``.
    layer : str, optional
        A module of the model whose output is kept; default: the penultimate layer
        (the input of the last linear layer).
    weights : str, default="default"
        ``"default"`` (pretrained, from the local cache), a torchvision weights name,
        ``"none"`` (random, seeded by ``seed``) or a state-dict file.
    batch_size, chunk_size : int
        Images per forward pass, and per chunk written to ``OUTPUT.parts``.
    device : str, optional
        ``"cuda"``, ``"cpu"``, ...; default: the GPU when there is one.
    workers : int, default=0
        DataLoader processes decoding images (0: in this process).
    seed : int, default=0
        Torch's seed for random weights (``weights="none"``).
    progress : callable, optional
        ``progress(done, total)`` after each batch (after the chunk it completes is
        written).
    notice : callable, optional
        ``notice(message)`` with a line saying how many saved chunks are recomputed
        and why (their images changed); default: a warning.
    force : bool, default=False
        Replace an existing ``output`` that is not a features file (never one of the
        images, nor a file of a results store: see :mod:`.outputs`).

    Returns
    -------
    dict
        The record written into the file, with ``n_images``, ``n_features``,
        ``seconds`` and ``images_per_second`` of this call.
    """
    output = Path(output).expanduser()
    if output.suffix.lower() not in (".npz", ".mat"):
        raise ConfigError(
            f"output {output}: give a .npz or .mat file name (e.g. features.npz)"
        )
    for name, value in (("batch_size", batch_size), ("chunk_size", chunk_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"{name} must be a whole number >= 1, got {value!r}")
    images = image_list(source, layout)
    check_output(output, inputs=[source, *images.files, weights], force=force)
    backbone = load_backbone(model, weights, layer, seed)
    device = pick_device(device)
    backbone.model.to(device)
    record = {
        **backbone.record,
        "images": str(Path(source).expanduser().resolve()),
        "layout": images.layout,
        "n_images": len(images),
    }
    parts = output.with_name(output.name + ".parts")
    chunks.start(parts, record, images.names, chunk_size)
    import torch

    loader_options = dict(
        batch_size=batch_size, num_workers=workers, shuffle=False, collate_fn=_collate
    )
    total, started, computed = len(images), time.perf_counter(), 0
    bounds = [(lo, min(total, lo + chunk_size)) for lo in range(0, total, chunk_size)]
    try:
        kept = chunks.kept(parts, images, bounds, notice)
        done = 0
        for index, (lo, hi) in enumerate(bounds):
            if index in kept:
                done = hi
                if progress:
                    progress(done, total)
                continue
            loader = torch.utils.data.DataLoader(
                _Images(images.files[lo:hi], backbone.transform), **loader_options
            )
            rows, digests = [], []
            for batch, sha256 in _batches(loader, parts):
                rows.append(features_of(backbone, batch, device))
                digests += sha256
                done += len(rows[-1])
                computed += len(rows[-1])
                if done == hi:
                    chunks.save(parts, index, np.concatenate(rows), digests)
                if progress:
                    progress(done, total)
    except BaseException:
        chunks.remove(parts, only_if_empty=True)  # a failed start leaves nothing
        raise
    X = np.concatenate([chunks.read(parts, i)[0] for i in range(len(bounds))])
    seconds = time.perf_counter() - started
    record.update(n_features=int(X.shape[1]), device=device)
    _write(output, X, images, record)
    chunks.remove(parts)
    rate = computed / seconds if computed and seconds > 0 else None
    return {**record, "seconds": seconds, "images_per_second": rate}


def _write(output, X, images, record):
    """The feature file: features, labels, files, the split (1-based) and the record."""
    arrays = {
        "features": X.astype(np.float32),
        "labels": np.asarray(images.labels, dtype=str),
        "files": np.array(images.names, dtype=str),
        "record": np.array(json.dumps(record, sort_keys=True)),
    }
    if images.train is not None:
        arrays["trainIdx"] = images.train.astype(np.int64) + 1
        arrays["testIdx"] = images.test.astype(np.int64) + 1
    output.parent.mkdir(parents=True, exist_ok=True)
    if output.suffix.lower() == ".npz":
        tmp = output.with_name(output.name + ".tmp.npz")
        np.savez(tmp, **arrays)
    else:
        from scipy.io import savemat

        tmp = output.with_name(output.name + ".tmp.mat")
        for key in ("labels", "files"):  # cell arrays of strings in MATLAB
            arrays[key] = np.array(list(arrays[key]), dtype=object)
        arrays["record"] = np.array([arrays["record"].item()], dtype=object)
        savemat(tmp, arrays, do_compression=False)
    os.replace(tmp, output)
    record_written(output)
