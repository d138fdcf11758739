"""The paper's Table VI: the three shipped configs and the paper's numbers beside ours."""

import pytest

from fdlsr._experiments.cli import main
from fdlsr._experiments.config import load_config
from fdlsr._experiments.report import paper_results
from fdlsr.errors import ConfigError

# Sec. IV-E: alpha, beta, lambda per data set, and FDLSR's Table VI accuracy.
PAPER = {
    "stanford40": ("stanford40_vgg19", (1e-1, 1e-2, 1e-2), 82.0),
    "cub200": ("cub200_vgg19", (1e-1, 1e-2, 1e-1), 79.8),
    "flowers102": ("flowers102_vgg19", (1.0, 1e-2, 1e-3), 95.8),
}
TABLE_VI_METHODS = {"SRC", "CRC", "ProCRC", "NRC", "DLSR", "ReLSR", "GReLSR", "DRR",
                    "FDLSR"}  # fmt: skip


def test_run_help_lists_the_table_vi_configs(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    shipped = capsys.readouterr().out.split("shipped configs:")[1]
    for name in PAPER:
        assert name in shipped


@pytest.mark.parametrize("name", sorted(PAPER))
def test_configs_hold_the_papers_protocol_and_parameters(name):
    dataset, (alpha, beta, lam), _ = PAPER[name]
    config = load_config(name)
    ex = config.experiment
    assert ex.dataset == dataset and ex.ks == ["fixed"]
    assert ex.params["FDLSR"] == {"alpha": alpha, "beta": beta, "lam": lam}
    assert ex.paper_params == ["FDLSR"] and config.paper_table == "VI"
    assert TABLE_VI_METHODS <= set(ex.methods)
    assert not any("KSVD" in m or "DPL" in m for m in ex.methods)  # not in Table VI
    assert ex.resolved()


@pytest.mark.parametrize("name", sorted(PAPER))
def test_table_vi_rows_per_dataset(name):
    dataset, _, fdlsr = PAPER[name]
    rows = paper_results("VI", dataset)
    assert {r["method"] for r in rows} == TABLE_VI_METHODS | {"AlexNet", "VGG19"}
    assert all(r["k"] == "fixed" and r["std"] is None for r in rows)
    (row,) = [r for r in rows if r["method"] == "FDLSR"]
    assert row["mean"] == fdlsr
    # a feature file named after the data set finds its column too
    assert paper_results("VI", f"/data/{dataset}.npz") == rows


def test_table_vi_spot_checks_and_a_dataset_it_does_not_have():
    def mean(dataset, method):
        (row,) = [r for r in paper_results("VI", dataset) if r["method"] == method]
        return row["mean"]

    assert mean("stanford40_vgg19", "DRR") == 73.4
    assert mean("cub200_vgg19", "AlexNet") == 52.2
    assert mean("flowers102_vgg19", "ReLSR") == 95.8
    with pytest.raises(ConfigError, match="column for each of cub200_vgg19"):
        paper_results("VI", "photos.npz")
