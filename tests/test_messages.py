"""What the command says: labels as the user wrote them, counts that are true, fixes
that exist, and captions that describe the runs they caption."""

import json

import numpy as np
import pytest
import scipy.io

from fdlsr._experiments.cli import main
from fdlsr._experiments.registry import get_method
from fdlsr._testing import cli_error
from fdlsr.errors import ConfigError
from fdlsr.model_selection._split import per_class_split


@pytest.mark.parametrize(
    "labels, shown",
    [
        (np.array([77] * 3 + [5] * 9, dtype=np.int64), "class 77,"),
        (np.array(["13.0"] * 3 + ["2.0"] * 9), "class '13.0',"),
    ],
)
def test_k_too_large_names_the_label_as_written(labels, shown):
    with pytest.raises(ConfigError) as excinfo:
        per_class_split(labels, 4, 0, 0)
    text = str(excinfo.value)
    assert shown in text and "np." not in text, text


def test_k_too_large_counts_the_small_classes_truly():
    # 99 classes of 14 samples and one of 13: k = 14 leaves all 100 without a test
    # sample, but they are not all as small as the smallest
    y = np.concatenate([np.repeat(np.arange(99), 14), np.full(13, 99)])
    with pytest.raises(ConfigError) as excinfo:
        per_class_split(y, 14, 0, 0)
    text = str(excinfo.value)
    assert "class 99, which has 13 samples" in text
    assert "100 of the 100 classes have 14 samples or fewer" in text
    assert "that small" not in text and "k <= 12" in text


def test_method_errors_name_the_label_as_written():
    X = np.random.default_rng(0).standard_normal((12, 4))
    y = np.array([7] * 2 + [8] * 10, dtype=np.int64)
    with pytest.raises(ValueError) as excinfo:
        get_method("LRSDL").build(n_atoms_per_class=3).fit(X, y)
    assert "of class 7:" in str(excinfo.value) and "np." not in str(excinfo.value)


def test_checksum_mismatch_offers_a_fix_that_exists(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FDLSR_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "orl" / "ORL_32x32.mat"
    path.parent.mkdir()
    scipy.io.savemat(path, {"fea": np.ones((6, 10)), "gnd": np.repeat([1, 2], 3)})
    argv = ["run", "--dataset", "orl", "--data-dir", str(tmp_path), "-k", "1"]
    line = cli_error(capsys, argv)
    assert "checksum mismatch" in line and "--no-verify" not in line
    assert f"--dataset {path}" in line
    # the fix it names works
    assert main(["datasets", "info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "n_samples: 6" in out and "n_classes: 2" in out


def split_file(tmp_path):
    """An .npz with its own train/test split (Keras's names): 3 classes, 4 + 4 each."""
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 4)
    x = np.eye(3)[y] * 5 + rng.uniform(0, 0.1, (12, 3))
    path = tmp_path / "split.npz"
    np.savez(path, x_train=x, y_train=y, x_test=x + 0.01, y_test=y)
    return path


def test_datasets_info_describes_a_file(tmp_path, capsys):
    assert main(["datasets", "info", str(split_file(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "n_samples: 24" in out and "fixed_split: 12 training, 12 test" in out


def test_caption_of_a_fixed_split_says_so(tmp_path, capsys):
    out = tmp_path / "res"
    argv = ["run", "--dataset", str(split_file(tmp_path)), "--methods", "1-NN"]
    assert main([*argv, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "own train/test split" in captured.out
    assert "random split" not in captured.out and "warning" not in captured.err


def test_k_on_a_file_with_its_own_split_says_it_pools(tmp_path, capsys):
    out = tmp_path / "res"
    argv = ["run", "--dataset", str(split_file(tmp_path)), "--methods", "1-NN"]
    assert main([*argv, "-k", "3", "fixed", "--splits", "2", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    warned = [x for x in captured.err.splitlines() if x.startswith("fdlsr: warning")]
    assert len(warned) == 1 and "training and test samples together" in warned[0]
    assert "training and test samples together" in captured.out  # the caption
    assert "over 2 random splits" in captured.out
    assert "own train/test split (column k=fixed" in captured.out
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    pooled = {r["k"]: "samples together" in r["note"] for r in rows}
    assert pooled == {3: True, "fixed": False}


def test_caption_of_one_random_split_is_singular(tmp_path, capsys):
    out = tmp_path / "res"
    argv = ["run", "--dataset", "digits", "--methods", "1-NN", "-k", "2"]
    assert main([*argv, "--splits", "1", "--out", str(out)]) == 0
    caption = capsys.readouterr().out
    assert "over 1 random split " in caption and "1 random splits" not in caption


@pytest.mark.parametrize(
    "argv, suggested",
    [
        (["run", "--dataset", "orl", "--methods", "FDLRS"], "'FDLSR'"),
        (["run", "--dataset", "orll"], "'orl'"),
        (["run", "--config", "ferte"], "'feret'"),
        (["run", "--dataset", "digits", "--params", "FDLSR.alhpa=1"], "'alpha'"),
        (
            ["fit", "--dataset", "digits", "--method", "lrdsr", "-o", "m.fdlsr"],
            "'LRDLSR'",
        ),
        (["plot", "tsen", "--dataset", "digits"], "'tsne'"),
        (["rnu"], "'run'"),
        (["report", ".", "--format", "mdd"], "'md'"),
    ],
)
def test_a_misspelled_name_gets_did_you_mean(
    capsys, tmp_path, monkeypatch, argv, suggested
):
    monkeypatch.chdir(tmp_path)
    line = cli_error(capsys, argv)
    assert f"Did you mean {suggested}?" in line, line


def test_a_name_close_to_nothing_gets_no_guess(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = cli_error(capsys, ["run", "--dataset", "digits", "--methods", "zzzzqq"])
    assert "unknown method 'zzzzqq'" in line and "Did you mean" not in line


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_is_printed(capsys, flag):
    from fdlsr import __version__

    with pytest.raises(SystemExit) as stop:
        main([flag])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"fdlsr {__version__}"


def test_a_torchvision_built_for_another_torch_is_one_line(tmp_path):
    # What pip left in the trial: torch 2.13.0 beside a torchvision built for another
    # torch, whose import fails with "operator torchvision::nms does not exist".
    import os
    import subprocess
    import sys

    from image_layouts import image_folder

    fake = tmp_path / "site"
    for name, version, body in [
        ("torch", "2.13.0", "__version__ = '2.13.0'\n"),
        (
            "torchvision",
            "0.29.1",
            "raise RuntimeError('operator torchvision::nms does not exist')\n",
        ),
    ]:
        (fake / name).mkdir(parents=True)
        (fake / name / "__init__.py").write_text(body)
        info = fake / f"{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        )
    images = tmp_path / "images"
    image_folder(images, classes=2, per_class=2, size=16)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(fake), *sys.path]))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "fdlsr",
            "features",
            str(images),
            "-o",
            str(tmp_path / "f.npz"),
            "--weights",
            "none",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert "torchvision 0.29.1" in lines[0] and "torch 2.13.0" in lines[0], lines[0]
    assert "pip install 'torch==2.14.1' 'torchvision==0.29.1'" in lines[0]
    assert not (tmp_path / "f.npz").exists()
