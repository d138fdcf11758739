"""``fdlsr features``: images -> a torchvision backbone -> a feature file that
``fdlsr run --dataset`` reads; resumable, with its record. Random weights
(``--weights none``), so nothing is downloaded; skipped without torchvision."""

import json

import numpy as np
import pytest

from conftest import cli_error
from image_layouts import cub200, image_folder

pytest.importorskip("torchvision")
pytest.importorskip("PIL")

from fdlsr.errors import ConfigError  # noqa: E402
from fdlsr.experiments.cli import main  # noqa: E402
from fdlsr.experiments.datasets import load_dataset  # noqa: E402
from fdlsr.experiments.features import extract_features  # noqa: E402

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
    from fdlsr.experiments.protocol import Experiment
    from fdlsr.experiments.results import ResultStore
    from fdlsr.experiments.scheduler import run_experiment

    out, _ = extracted
    ds = load_dataset(out)
    assert ds.X.shape == (12, 512) and ds.n_classes == 3
    assert "deep features of resnet18" in ds.description
    ex = Experiment(dataset=str(out), ks=[2], methods=["FDLSR", "1-NN"], splits=2)
    with ResultStore(tmp_path / "res") as store:
        assert run_experiment(ex, ds, store) == 4
        rows = store.rows
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
    assert sorted(p.name for p in parts.iterdir()) == ["chunk-00000.npy", "run.json"]
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
