"""``fdlsr features``: images -> a torchvision backbone -> a feature file that
``fdlsr run --dataset`` reads; resumable, with its record. Random weights
(``--weights none``), so nothing is downloaded; skipped without torchvision."""

import functools
import json
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings

from fdlsr._testing import cli_error
from image_bytes import image_files, png_declaring
from image_layouts import cub200, image_folder

pytest.importorskip("torchvision")
pytest.importorskip("PIL")

from fdlsr._experiments.cli import main  # noqa: E402
from fdlsr._experiments.features import extract_features  # noqa: E402
from fdlsr.datasets import load_dataset  # noqa: E402
from fdlsr.errors import ConfigError  # noqa: E402

SMALL = dict(model="resnet18", weights="none", batch_size=4)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """3 classes x 4 images of 64x64, classes of different colours."""
    root = tmp_path_factory.mktemp("images")
    image_folder(root, classes=3, per_class=4, size=64)
    return root


@pytest.fixture(scope="module")
def extracted(folder, tmp_path_factory):
    """The features of the folder through the Python API, once for the module."""
    out = tmp_path_factory.mktemp("api") / "features.npz"
    record = extract_features(folder, out, chunk_size=8, **SMALL)
    return out, record


def reference_features(files):
    """The same network built and applied here without fdlsr: resnet18 with
    torch's seed 0, its weights' preprocessing, fc's input (the pooled vector)."""
    import torch
    from PIL import Image
    from torchvision import models

    torch.manual_seed(0)
    net = models.resnet18(weights=None).eval()
    net.fc = torch.nn.Identity()
    transform = models.ResNet18_Weights.DEFAULT.transforms()
    batch = torch.stack([transform(Image.open(f).convert("RGB")) for f in files])
    with torch.inference_mode():
        return net(batch).numpy()


def test_python_api_writes_features_labels_files_and_record(folder, extracted):
    out, record = extracted
    with np.load(out, allow_pickle=False) as f:
        X, labels, files = f["features"], f["labels"], f["files"]
        stored = json.loads(str(f["record"]))
        assert "trainIdx" not in f.files  # a folder has no split of its own
    assert X.shape == (12, 512) and X.dtype == np.float32
    assert labels.tolist() == [f"class_{c}" for c in range(3) for _ in range(4)]
    assert files[0] == "class_0/img_0.png"
    expected = reference_features([folder / name for name in files])
    np.testing.assert_allclose(X, expected, rtol=1e-4, atol=1e-5)
    assert stored["model"] == "resnet18" and stored["layer"] == "fc (input)"
    assert stored["weights"].startswith("none") and "seed 0" in stored["weights"]
    assert "resize_size=[256]" in stored["preprocessing"]
    assert stored["torchvision"] and stored["torch"] and stored["n_features"] == 512
    assert {k: record[k] for k in stored} == stored
    assert not out.with_name(out.name + ".parts").exists()  # chunks cleaned up


def test_feature_file_runs_through_the_protocol(extracted, tmp_path):
    from fdlsr._experiments.config import Config
    from fdlsr._experiments.planning import Experiment
    from fdlsr._experiments.run import RunRequest, run

    out, _ = extracted
    ds = load_dataset(out)
    assert ds.X.shape == (12, 512) and ds.n_classes == 3
    assert "deep features of resnet18" in ds.description
    ex = Experiment(dataset=str(out), ks=[2], methods=["FDLSR", "1-NN"], splits=2)
    request = RunRequest(Config(ex), out=tmp_path / "res", table=False)
    result = run(request)  # the features file, loaded as the command loads it
    assert result.computed == 4
    rows = result.rows
    assert all(0 <= r["accuracy"] <= 1 and r["n_features"] == 512 for r in rows)


def test_command_line_end_to_end(folder, tmp_path, capsys):
    out = tmp_path / "features.npz"
    argv = ["features", str(folder), "-o", str(out), "--model", "resnet18",
            "--weights", "none", "--batch-size", "4"]  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "12/12 images" in err and "12 images -> 512 features" in err
    assert main(["run", "--dataset", str(out), "-k", "2", "--splits", "2",
                 "--methods", "FDLSR", "1-NN", "--out", str(tmp_path / "res")]) == 0  # fmt: skip
    table = capsys.readouterr().out
    assert "| FDLSR |" in table and "k=2" in table
    assert main(["report", str(tmp_path / "res")]) == 0
    assert "| 1-NN |" in capsys.readouterr().out


def test_an_interrupted_extraction_resumes_from_its_chunks(folder, extracted, tmp_path):
    out = tmp_path / "features.npz"
    calls = []

    def stop_after_first_chunk(done, total):
        calls.append(done)
        if done >= 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        extract_features(folder, out, chunk_size=4, progress=stop_after_first_chunk,
                         **{**SMALL, "batch_size": 2})  # fmt: skip
    parts = out.with_name("features.npz.parts")
    assert sorted(p.name for p in parts.iterdir()) == ["chunk-00000.npz", "run.json"]
    assert not out.exists()
    # other settings do not mix with these chunks
    with pytest.raises(ConfigError, match="another extraction.*layer"):
        extract_features(folder, out, chunk_size=4, layer="layer4", **SMALL)
    with pytest.raises(ConfigError, match="another extraction.*chunk_size"):
        extract_features(folder, out, chunk_size=6, **SMALL)
    calls.clear()
    record = extract_features(
        folder, out, chunk_size=4, progress=lambda done, total: calls.append(done),
        **{**SMALL, "batch_size": 2},
    )  # fmt: skip
    # the first chunk read back (one call), the other two computed in batches of 2
    assert calls == [4, 6, 8, 10, 12]
    assert record["images_per_second"] is not None
    np.testing.assert_array_equal(load_dataset(out).X, load_dataset(extracted[0]).X)
    assert not parts.exists()


def test_a_named_layer_a_mat_file_and_a_weights_file(folder, extracted, tmp_path):
    import torch
    from torchvision import models

    out = tmp_path / "layer.mat"
    record = extract_features(folder, out, layer="layer3", **SMALL)
    ds = load_dataset(out)
    assert ds.X.shape == (12, 256)  # layer3's 256 maps, averaged over positions
    assert record["layer"] == "layer3 (output)" and ds.y[0] == "class_0"
    # a state dict given as a file: the same network as the seeded random one
    torch.manual_seed(0)
    torch.save(models.resnet18(weights=None).state_dict(), tmp_path / "w.pt")
    record = extract_features(folder, tmp_path / "w.npz", model="resnet18",
                              weights=tmp_path / "w.pt", batch_size=6)  # fmt: skip
    assert record["weights"].startswith("file ") and "sha256" in record["weights"]
    np.testing.assert_allclose(
        load_dataset(tmp_path / "w.npz").X, load_dataset(extracted[0]).X,
        rtol=1e-5, atol=1e-6,
    )  # fmt: skip


def test_a_dataset_split_is_kept_and_run_as_fixed(tmp_path, capsys):
    names, labels, train, test = cub200(tmp_path / "CUB_200_2011", per_class=4)
    out = tmp_path / "cub200_vgg19.npz"
    extract_features(tmp_path / "CUB_200_2011", out, chunk_size=3, **SMALL)
    ds = load_dataset(out)
    np.testing.assert_array_equal(ds.fixed_split[0], train)
    np.testing.assert_array_equal(ds.fixed_split[1], test)
    with np.load(out) as f:
        assert f["files"].tolist() == names and f["labels"].tolist() == labels
    # the shipped config's protocol on it (a subset of its methods, to stay quick),
    # with the paper's CUB column beside ours
    assert main(["run", "--config", "cub200", "--dataset", str(out), "--methods",
                 "FDLSR", "DLSR", "--out", str(tmp_path / "res"), "--paper"]) == 0  # fmt: skip
    table = capsys.readouterr().out
    assert "fixed" in table and "FDLSR (paper)" in table and "79.80" in table
    assert "VGG19 (paper only)" in table


@pytest.mark.parametrize(
    "options, message",
    [
        (["--model", "resnet_999"], "unknown torchvision model"),
        (["--model", "resnet18", "--weights", "none", "--layer", "nope"], "no layer"),
        (["--model", "resnet18", "--weights", "IMAGENET1K_V1"], "not in torch's cache"),
        (["--model", "resnet18", "--weights", "w.pt"], "no such file"),
        (["--model", "resnet18", "--weights", "none", "--device", "cuda:7"], None),
    ],
)
def test_bad_options_are_one_line_errors(folder, tmp_path, monkeypatch, capsys,
                                         options, message):  # fmt: skip
    import torch

    if message is None:
        if torch.cuda.is_available():
            pytest.skip("a GPU is there")
        message = "no CUDA GPU"
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "empty-cache"))
    monkeypatch.chdir(tmp_path)
    argv = ["features", str(folder), "-o", str(tmp_path / "f.npz"), *options]
    assert message in cli_error(capsys, argv)
    assert "error" in cli_error(capsys, ["features", str(folder), "-o", "f.txt"])


def test_missing_default_weights_say_how_to_download_them(
    folder, tmp_path, monkeypatch, capsys
):
    """The README's command without VGG-19 in torch's cache: one line that gives the
    command that puts the weights there."""
    import torchvision

    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "empty-cache"))
    message = cli_error(
        capsys, ["features", str(folder), "-o", str(tmp_path / "f.npz")]
    )
    command = (
        "python -c \"import torchvision; torchvision.models.get_model('vgg19', "
        "weights='IMAGENET1K_V1')\""
    )
    assert command in message
    weights = torchvision.models.get_model_weights("vgg19")["IMAGENET1K_V1"]
    assert message.split(" are not in torch's cache (")[1].startswith(
        str(
            tmp_path
            / "empty-cache"
            / "hub"
            / "checkpoints"
            / weights.url.split("/")[-1]
        )
    )
    assert not (tmp_path / "f.npz").exists()


def test_a_timm_model(folder, tmp_path):
    """timm:NAME: the pooled features of timm's own forward_head(pre_logits=True)."""
    timm = pytest.importorskip("timm")
    import torch
    from PIL import Image
    from timm.data import create_transform, resolve_data_config

    out = tmp_path / "timm.npz"
    record = extract_features(folder, out, model="timm:resnet18", weights="none",
                              batch_size=6)  # fmt: skip
    assert record["timm"] == timm.__version__ and record["layer"] == "fc (input)"
    torch.manual_seed(0)
    net = timm.create_model("resnet18", pretrained=False).eval()
    transform = create_transform(**resolve_data_config({}, model=net))
    with np.load(out) as f:
        files = [folder / name for name in f["files"]]
        X = f["features"]
    batch = torch.stack([transform(Image.open(p).convert("RGB")) for p in files])
    with torch.inference_mode():
        expected = net.forward_head(net.forward_features(batch), pre_logits=True)
    np.testing.assert_allclose(X, expected.numpy(), rtol=1e-4, atol=1e-5)


# --- images at any bit depth, changed images on resume, worker processes ----------

TINY = dict(model="mobilenet_v3_small", weights="none", batch_size=2)
TINY_ARGS = ["--model", "mobilenet_v3_small", "--weights", "none", "--batch-size", "2"]


@pytest.fixture
def one_thread():
    """One torch thread: the tiny model's passes are quickest so on a busy machine."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@functools.cache
def tiny_net():
    """mobilenet_v3_small with torch's seed 0, built here without fdlsr, with its last
    linear layer removed (so its output is that layer's input), and its transform."""
    import torch
    from torchvision import models

    torch.manual_seed(0)
    net = models.mobilenet_v3_small(weights=None).eval()
    net.classifier[3] = torch.nn.Identity()
    return net, models.MobileNet_V3_Small_Weights.DEFAULT.transforms()


def tiny_reference(pictures):
    """The features fdlsr must give for ``pictures`` (Pillow images, or float tensors
    in [0, 1]) with ``TINY``."""
    import torch

    net, transform = tiny_net()
    with torch.inference_mode():
        return net(torch.stack([transform(p) for p in pictures])).numpy()


def assert_close(actual, expected, rtol):
    """Equal to within ``rtol`` of the largest value (random weights give tiny
    features, far below any fixed tolerance)."""
    expected = np.asarray(expected)
    np.testing.assert_allclose(
        actual, expected, rtol=rtol, atol=rtol * np.abs(expected).max()
    )


def test_16_bit_images_give_their_own_features(tmp_path, one_thread):
    """Two 16-bit PNGs whose samples are all above 255 and differ only in their low
    byte used to be clipped to the same white picture; now each is its samples /
    65535, and a 16-bit copy of an 8-bit image (samples x 257) gives the 8-bit image's
    features to within 2% (torch resizes a tensor where Pillow resizes a picture)."""
    import torch
    from PIL import Image

    rng = np.random.default_rng(0)
    eight = rng.integers(0, 256, size=(40, 48), dtype=np.uint8)
    high = rng.integers(256, 65536, size=(40, 48)).astype(np.uint16)
    levels = {
        "a/high.png": high,
        "b/higher.png": (high // 256 * 256 + 255).astype(np.uint16),
        "c/copy.png": eight.astype(np.uint16) * 257,
    }
    for name, values in levels.items():
        (tmp_path / "imgs" / name).parent.mkdir(parents=True)
        Image.fromarray(values).save(tmp_path / "imgs" / name)
    (tmp_path / "imgs" / "d").mkdir()
    Image.fromarray(eight).save(tmp_path / "imgs" / "d" / "eight.png")
    extract_features(tmp_path / "imgs", tmp_path / "f.npz", **TINY)
    with np.load(tmp_path / "f.npz") as f:
        X = f["features"]
    assert np.abs(X[0] - X[1]).max() > 1e-3 * np.abs(X[0]).max()
    tensors = [
        torch.from_numpy(np.repeat(v[None] / 65535, 3, axis=0).astype(np.float32))
        for v in levels.values()
    ]
    assert_close(X[:3], tiny_reference(tensors), 1e-4)
    assert_close(X[3], tiny_reference([Image.fromarray(eight).convert("RGB")])[0], 1e-4)
    assert_close(X[2], X[3], 0.02)


def bmp_folder(root, seed=0):
    """3 classes x 2 BMP pictures of 24 x 24 (a BMP's size depends only on its shape)."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    for c in range(3):
        for i in range(2):
            path = root / f"class_{c}" / f"img_{i}.bmp"
            path.parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(rng.integers(0, 256, (24, 24, 3), dtype=np.uint8)).save(
                path
            )
    return root


def test_a_replaced_image_is_recomputed_on_resume(tmp_path, capsys, one_thread):
    """Interrupted after its first chunk; an image of that chunk is replaced by another
    picture of the same size and modification time: the rerun recomputes that chunk
    (and says so, on one line) and matches a fresh extraction, where it used to keep
    the stale rows."""
    import os

    from PIL import Image

    folder = bmp_folder(tmp_path / "imgs")
    out = tmp_path / "features.npz"

    def stop_after_first_chunk(done, total):
        if done >= 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        extract_features(
            folder, out, chunk_size=2, progress=stop_after_first_chunk, **TINY
        )
    replaced = folder / "class_0" / "img_1.bmp"
    before = replaced.stat()
    Image.fromarray(np.full((24, 24, 3), 7, dtype=np.uint8)).save(replaced)
    os.utime(replaced, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = replaced.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)

    argv = ["features", str(folder), "-o", str(out), "--chunk-size", "2", *TINY_ARGS]
    assert main(argv) == 0
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if "recomputed" in line]
    assert len(notes) == 1 and "1 of 3 chunks recomputed" in notes[0]
    assert "class_0/img_1.bmp" in notes[0]
    fresh = tmp_path / "fresh.npz"
    extract_features(folder, fresh, **TINY)
    np.testing.assert_array_equal(load_dataset(out).X, load_dataset(fresh).X)

    # unchanged images: the chunks are kept, silently (the Python API warns instead)
    with pytest.raises(KeyboardInterrupt):
        extract_features(
            folder, out, chunk_size=2, progress=stop_after_first_chunk, **TINY
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        extract_features(folder, out, chunk_size=2, **TINY)
    np.testing.assert_array_equal(load_dataset(out).X, load_dataset(fresh).X)
    # a damaged chunk is recomputed too
    with pytest.raises(KeyboardInterrupt):
        extract_features(
            folder, out, chunk_size=2, progress=stop_after_first_chunk, **TINY
        )
    (tmp_path / "features.npz.parts" / "chunk-00000.npz").write_bytes(b"damaged")
    with pytest.warns(
        UserWarning, match="1 of 3 chunks recomputed: 1 could not be read"
    ):
        extract_features(folder, out, chunk_size=2, **TINY)
    np.testing.assert_array_equal(load_dataset(out).X, load_dataset(fresh).X)


def test_an_unreadable_run_record_is_one_line(tmp_path, capsys):
    folder = bmp_folder(tmp_path / "imgs")
    parts = tmp_path / "features.npz.parts"
    parts.mkdir()
    (parts / "run.json").write_bytes(b"\x00{not json")
    argv = ["features", str(folder), "-o", str(tmp_path / "features.npz"), *TINY_ARGS]
    line = cli_error(capsys, argv)
    assert "run.json cannot be read" in line and "delete the folder" in line
    assert (parts / "run.json").read_bytes() == b"\x00{not json"  # left as it was


@pytest.mark.parametrize("workers", ["0", "2"])
@pytest.mark.parametrize(
    "content, message",
    [
        (b"not an image at all", "cannot read the image"),
        ("bomb", "decompression bomb"),
        ("float", "32-bit floating-point"),
    ],
)
def test_a_bad_image_is_one_line_in_any_process(tmp_path, capsys, one_thread,
                                                 workers, content, message):  # fmt: skip
    """A damaged file, a decompression bomb's header or a 32-bit float image, decoded
    in this process or in a DataLoader worker (where the error used to come back as
    a 14-line traceback): one line naming the file, exit 2, nothing written."""
    from PIL import Image

    folder = bmp_folder(tmp_path / "imgs")
    bad = folder / "class_2" / "bad.png"
    if content == "bomb":
        bad.write_bytes(png_declaring(100_000, 100_000))
    elif content == "float":
        bad = bad.with_suffix(".tif")
        Image.fromarray(np.ones((4, 4), dtype=np.float32)).save(bad)
    else:
        bad.write_bytes(content)
    out = tmp_path / "features.npz"
    argv = ["features", str(folder), "-o", str(out), "--workers", workers,
            "--chunk-size", "4", *TINY_ARGS]  # fmt: skip
    line = error_line(capsys, argv)
    assert str(bad) in line and message in line
    assert not out.exists()
    # its chunk was not finished: the first one is kept, to resume from
    assert sorted(p.name for p in (tmp_path / "features.npz.parts").iterdir()) == [
        "chunk-00000.npz",
        "run.json",
    ]


def error_line(capsys, argv):
    """The command's one-line error (exit 2), after any progress lines."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    others = [line for line in lines if not line.startswith("fdlsr: features imgs [")]
    assert len(others) == 1 and others[0].startswith("fdlsr: error: "), lines
    return others[0]


def test_a_dead_worker_process_is_one_line(tmp_path, capsys, monkeypatch, one_thread):
    import os

    from fdlsr._experiments import features

    folder = bmp_folder(tmp_path / "imgs")
    monkeypatch.setattr(features._Images, "__getitem__", lambda self, i: os._exit(3))
    out = tmp_path / "features.npz"
    line = cli_error(capsys, ["features", str(folder), "-o", str(out), "--workers", "1",
                              *TINY_ARGS])  # fmt: skip
    assert "a process decoding images died" in line and "rerun" in line
    assert not out.exists() and not (tmp_path / "features.npz.parts").exists()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(file=image_files())
def test_any_bytes_as_an_image_to_extract(tmp_path_factory, capsys, one_thread, file):
    """Random bytes, valid images of random modes and sizes, valid images cut short:
    the features of the image's true pixels, or one line naming the file, exit 2 and
    nothing written."""
    import torch
    from PIL import Image

    data, suffix, expected = file
    root = tmp_path_factory.mktemp("fuzz")
    good = np.random.default_rng(0).integers(0, 256, (10, 12, 3), dtype=np.uint8)
    (root / "imgs" / "a").mkdir(parents=True)
    (root / "imgs" / "b").mkdir()
    Image.fromarray(good).save(root / "imgs" / "a" / "good.png")
    name = f"fuzz.{suffix}"
    (root / "imgs" / "b" / name).write_bytes(data)
    out = root / "f.npz"
    argv = ["features", str(root / "imgs"), "-o", str(out), *TINY_ARGS]
    capsys.readouterr()
    try:
        assert main(argv) == 0
    except SystemExit as exit_info:
        assert exit_info.code == 2
        lines = capsys.readouterr().err.strip().splitlines()
        others = [line for line in lines if "images, " not in line]
        assert len(others) == 1 and others[0].startswith("fdlsr: error: "), lines
        assert name in others[0]
        assert sorted(p.name for p in root.iterdir()) == ["imgs"]  # nothing written
        event("refused in one line")
        return
    assert expected is not None, "an image with no known range was read"
    with np.load(out) as f:
        X = f["features"]
    assert X.shape == (2, 1024) and np.all(np.isfinite(X))
    assert_close(X[0], tiny_reference([Image.fromarray(good)])[0], 1e-4)
    if expected == "any":
        event("read: any bytes")
        return
    pixels = expected[False]
    if pixels.dtype == np.uint8:
        picture = Image.fromarray(pixels)
    else:  # 16-bit: the samples / 65535 as a float tensor
        picture = torch.from_numpy((pixels / 255).transpose(2, 0, 1).astype(np.float32))
    assert_close(X[1], tiny_reference([picture])[0], 1e-4)
    event("read: an image")
