"""The paper's figures 1-4 drawn with matplotlib (Agg backend), as PNG and PDF.

Each ``make`` call computes its numbers with :mod:`.figure_data`, saves them as JSON
next to the figure (so a figure can be redrawn or checked without recomputing), and
returns the paths written. The files are named after the data set, without the
extension of the file it was read from (``pie10_fig1_convergence.png`` for
``pie10.mat``).
"""

import hashlib
import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .._common.messages import did_you_mean  # noqa: E402
from .._common.ownership import record_written  # noqa: E402
from ..datasets._load import CSV, MAT, NPZ  # noqa: E402
from ..errors import ConfigError  # noqa: E402
from . import figure_data  # noqa: E402
from .outputs import FIGURE_MARK, replaced_atomically, write_atomic  # noqa: E402
from .registry import METHODS  # noqa: E402

PAPER_TSNE_METHODS = ["DLSR", "ReLSR", "GReLSR"]
# The file name of each figure, after the data set's name.
STEMS = {
    "convergence": "fig1_convergence",
    "tsne": "fig2_tsne",
    "sensitivity": "fig3_sensitivity",
    "lambda": "fig4_lambda",
}


def paths(kind, name, out):
    """The files that :func:`make` writes in ``out`` for figure ``kind`` of data set
    ``name``: PNG, PDF and the numbers as JSON."""
    if kind not in STEMS:
        raise ConfigError(
            f"unknown figure {kind!r}; choose convergence, tsne, sensitivity or lambda."
            + did_you_mean(kind, STEMS)
        )
    return output_files(out, f"{file_stem(name)}_{STEMS[kind]}")


# What a figure's file name keeps of a data set's name: letters, digits, ``_ . + -``.
_UNSAFE = re.compile(r"[^\w.+-]+")
_LONGEST_STEM = 80


def file_stem(name):
    """The start of a figure's file name for the data set ``name``: the name without
    the extension of a data file it was read from, as one plain file name.

    Every figure file is named here, and a data set's name may come from a results
    store anyone can edit: a folder separator, ``..``, a leading dot or a character
    a file system refuses becomes ``_``, so that the name never leaves the output
    folder nor makes one inside it; a name made longer than 80 characters is cut
    and ends with the first 8 characters of its sha256.
    """
    name = str(name)
    path = Path(name.replace("\\", "/"))
    if path.suffix.lower() in MAT | NPZ | CSV:
        name = path.stem
    stem = _UNSAFE.sub("_", name).lstrip(".") or "data"
    if len(stem) > _LONGEST_STEM:
        digest = hashlib.sha256(name.encode("utf-8", "replace")).hexdigest()[:8]
        stem = f"{stem[: _LONGEST_STEM - 9]}_{digest}"
    return stem


def output_files(out, stem):
    """The files a figure named ``stem`` is written to in ``out``: PNG, PDF, JSON."""
    return [Path(out) / f"{stem}.{ext}" for ext in ("png", "pdf", "json")]


def save_figure(fig, out, stem, data):
    """Write the figure and its numbers (``data``, a dict, as JSON) into ``out`` as
    :func:`output_files` names them, each file whole (a temporary file renamed);
    returns the paths written.

    Each file carries fdlsr's name and version (:data:`.outputs.FIGURE_MARK`: the
    PNG's ``Software``, the PDF's ``Creator``, the JSON's ``written_by``) and is
    recorded as fdlsr's (:func:`~fdlsr._common.ownership.record_written`), so that a
    later ``fdlsr plot`` may replace it while it is unchanged.
    """
    files = output_files(out, stem)
    Path(out).mkdir(parents=True, exist_ok=True)
    marks = {".png": {"Software": FIGURE_MARK}, ".pdf": {"Creator": FIGURE_MARK}}
    for path in files[:2]:
        # a time of 1e300 s on a log axis overflows inside matplotlib's transform
        with replaced_atomically(path) as tmp, np.errstate(over="ignore"):
            fig.savefig(
                tmp,
                format=path.suffix[1:],
                dpi=150 if path.suffix == ".png" else None,
                bbox_inches="tight",
                metadata=marks[path.suffix],
            )
        record_written(path)
    plt.close(fig)
    numbers = {"written_by": FIGURE_MARK, **data}
    write_atomic(files[2], json.dumps(numbers, indent=1, default=str) + "\n")
    record_written(files[2])
    return files


def _fmt(value):
    return (
        "0" if value == 0 else f"{value:.0e}".replace("e-0", "e-").replace("e+00", "")
    )


def _params_text(params, keys=("alpha", "beta", "lam")):
    names = {"alpha": "α", "beta": "β", "lam": "λ"}
    return ", ".join(f"{names[k]}={_fmt(params[k])}" for k in keys if k in params)


def draw_convergence(data, title):
    fig, ax = plt.subplots(figsize=(6, 4))
    it = data["iteration"]
    ax.plot(
        it, data["objective"], "o-", color="tab:blue", ms=3, label="objective (Eq. 10)"
    )
    ax.set_xlabel("iteration")
    ax.set_ylabel("objective value", color="tab:blue")
    ax.tick_params(axis="y", labelcolor="tab:blue")
    right = ax.twinx()
    right.plot(
        it,
        100 * np.asarray(data["accuracy"]),
        "s-",
        color="tab:red",
        ms=3,
        label="test accuracy",
    )
    right.set_ylabel("test accuracy (%)", color="tab:red")
    right.tick_params(axis="y", labelcolor="tab:red")
    ax.set_title(f"{title}\n{_params_text(data['params'])}", fontsize=10)
    lines = ax.get_lines() + right.get_lines()
    ax.legend(
        lines, [line.get_label() for line in lines], loc="center right", fontsize=8
    )
    ax.grid(alpha=0.3)
    return fig


def draw_tsne(panels, y_train, y_test, title, seed=0, progress=None):
    from sklearn.manifold import TSNE
    from threadpoolctl import threadpool_limits

    names = list(panels)
    fig, axes = plt.subplots(
        2, len(names), figsize=(3.2 * len(names), 6.4), squeeze=False
    )
    cmap = plt.get_cmap("tab20")
    embedded = {}
    for col, name in enumerate(names):
        for row, (Z, labels, part) in enumerate(
            [(panels[name][0], y_train, "training"), (panels[name][1], y_test, "test")]
        ):
            perplexity = max(2.0, min(30.0, (Z.shape[0] - 1) / 3))
            # one OpenMP thread: on a few hundred points t-SNE's Barnes-Hut gradient
            # gains nothing from threads and loses much when they spin on a busy
            # machine (docs/performance.md)
            with threadpool_limits(limits=1, user_api="openmp"):
                E = TSNE(
                    n_components=2, perplexity=perplexity, init="pca", random_state=seed
                ).fit_transform(Z)
            embedded[f"{name} / {part}"] = E.tolist()
            if progress is not None:
                progress(len(embedded), 2 * len(names))
            ax = axes[row, col]
            ax.scatter(
                E[:, 0], E[:, 1], c=labels % 20, cmap=cmap, vmin=0, vmax=19, s=12
            )
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(f"{name}\n{part} samples", fontsize=9)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig, embedded


def draw_sensitivity(data, title):
    acc = 100 * np.asarray(data["accuracy"])
    fig, ax = plt.subplots(figsize=(7.5, 6.2))
    image = ax.imshow(acc, origin="lower", cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(data["lam"])), [_fmt(v) for v in data["lam"]], rotation=45)
    ax.set_yticks(range(len(data["alpha"])), [_fmt(v) for v in data["alpha"]])
    ax.set_xlabel("λ (Fisher term)")
    ax.set_ylabel("α (relaxed-label term)")
    middle = (acc.max() + acc.min()) / 2
    best = np.unravel_index(np.argmax(acc), acc.shape)
    for (i, j), value in np.ndenumerate(acc):
        ax.text(
            j,
            i,
            f"{value:.1f}",
            ha="center",
            va="center",
            fontsize=6.5,
            color="black" if value > middle else "white",
            fontweight="bold" if (i, j) == best else "normal",
        )
    ax.add_patch(
        plt.Rectangle(
            (best[1] - 0.5, best[0] - 0.5), 1, 1, fill=False, ec="red", lw=1.5
        )
    )
    fig.colorbar(image, ax=ax, label="test accuracy (%)")
    ax.set_title(
        f"{title}\nβ={_fmt(data['params']['beta'])}; best (red box): {acc.max():.2f}%",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def draw_lambda(data, title):
    acc = 100 * np.asarray(data["accuracy"])
    lam = np.asarray(data["lam"])
    mean = acc.mean(axis=0)
    fig, ax = plt.subplots(figsize=(6, 4))
    if acc.shape[0] > 1:
        ax.errorbar(
            lam[1:],
            mean[1:],
            yerr=acc.std(axis=0, ddof=1)[1:],
            fmt="o-",
            capsize=3,
            label="FDLSR",
        )
    else:
        ax.plot(lam[1:], mean[1:], "o-", label="FDLSR")
    ax.axhline(
        mean[0], color="gray", ls="--", label=f"λ = 0 (no Fisher term): {mean[0]:.2f}%"
    )
    ax.set_xscale("log")
    ax.set_xlabel("λ")
    ax.set_ylabel("test accuracy (%)")
    splits = (
        f"mean of {acc.shape[0]} splits" if acc.shape[0] > 1 else "one random split"
    )
    ax.set_title(
        f"{title}\n{_params_text(data['params'], ('alpha', 'beta'))}; {splits}",
        fontsize=10,
    )
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def make(
    kind,
    dataset,
    *,
    k,
    params,
    out,
    seed=0,
    n_classes=20,
    methods=None,
    normalize=True,
    sensitivity_beta=1e-2,
    lambda_splits=1,
    progress=None,
):
    """Compute and draw one figure; returns the paths written (PNG, PDF, JSON).

    ``progress(done, total, what)``, if given, is called after each step of the
    computation; ``what`` names the steps (``"fits"``, ``"iterations"``,
    ``"embeddings"``).
    """
    paths(kind, dataset.name, out)  # refuses an unknown kind before any work
    name = dataset.name
    stem = f"{file_stem(name)}_{STEMS[kind]}"
    title = f"{name}, k={k} per class"
    X, codes, train, test = figure_data.split_data(dataset, k, seed, normalize)
    if kind == "convergence":
        data = figure_data.convergence(
            X, codes, train, test, params, progress=_steps(progress, "iterations")
        )
        return save_figure(
            draw_convergence(data, f"FDLSR convergence on {title}"),
            out,
            stem,
            data,
        )
    if kind == "tsne":
        if methods is None:
            methods = [m for m in PAPER_TSNE_METHODS if m in METHODS]
        panels, y_train, y_test, skipped = figure_data.projections(
            X, codes, train, test, params, methods, n_classes, seed=seed,
            progress=_steps(progress, "fits"),
        )  # fmt: skip
        shown = min(n_classes, int(codes.max()) + 1)
        fig, embedded = draw_tsne(
            panels,
            y_train,
            y_test,
            f"t-SNE of the first {shown} classes of {title}",
            seed,
            progress=_steps(progress, "embeddings"),
        )
        data = {
            "panels": embedded,
            "y_train": y_train.tolist(),
            "y_test": y_test.tolist(),
            "skipped": skipped,
        }
        return save_figure(fig, out, stem, data)
    if kind == "sensitivity":
        data = figure_data.sensitivity(
            X, codes, train, test, {**params, "beta": sensitivity_beta},
            progress=_steps(progress, "fits"),
        )  # fmt: skip
        return save_figure(
            draw_sensitivity(data, f"FDLSR accuracy over α and λ on {title}"),
            out,
            stem,
            data,
        )
    if kind == "lambda":
        data = figure_data.lambda_curve(
            dataset,
            k,
            params,
            seeds=range(seed, seed + lambda_splits),
            normalize=normalize,
            progress=_steps(progress, "fits"),
        )
        return save_figure(
            draw_lambda(data, f"FDLSR accuracy against λ on {title}"),
            out,
            stem,
            data,
        )
    raise AssertionError(kind)  # paths() refused any other kind


def _steps(progress, what):
    """``progress`` as :mod:`.figure_data` calls it, ``(done, total)``, naming the steps."""
    if progress is None:
        return None
    return lambda done, total: progress(done, total, what)
