"""The argument parser of the ``fdlsr`` command, every sub-command's in one place.

:func:`build_parser` returns the complete parser (the command-line reference is
generated from it); :mod:`.cli` parses with it and hands the arguments to the handler
of the sub-command (:mod:`.commands`). Nothing here computes.
"""

import argparse
import ast
import contextlib
import re

from .._common.messages import did_you_mean, printable
from .._version import __version__

DESCRIPTION = """\
Fisher Discriminative Least Squares Regression (FDLSR) and the classifiers it is
compared with, evaluated as in the paper: k random training samples per class, the
rest for testing, 10 random splits, accuracy as mean +- std.

Run with no arguments to try it: FDLSR and seven fast comparison methods on the
AT&T (ORL) faces shipped inside the package (a quick run), with a table
at the end; the results are kept in fdlsr-results/faces/."""

EXAMPLES = """\
examples:
  fdlsr                                   the quick demo on the embedded faces
  fdlsr run --config digits               a demo on scikit-learn's digits
  fdlsr run --config feret --data-dir ../shared/data --out results/feret
  fdlsr report results/feret --paper      the table, with the paper's numbers
  fdlsr plot all --config feret --data-dir ../shared/data --out figures/
  fdlsr run --dataset orl --data-dir ../shared/data -k 2 3 --methods FDLSR 1-NN
  fdlsr datasets                          what can be loaded, and from where
  fdlsr methods                           every method with its settings
  fdlsr fit --dataset orl --method FDLSR -o orl.fdlsr   train on every sample, save
  fdlsr predict orl.fdlsr new.npy -o predictions.csv    label new samples

Each sub-command has its own --help."""


def _param(text):
    """``METHOD.name=value`` or ``name=value`` from the command line."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not NAME=VALUE, e.g. FDLSR.alpha=0.01"
        )
    key, value = text.split("=", 1)
    try:
        value = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        pass  # a plain string, e.g. t_step=exact
    return key.strip(), value


def _k(text):
    if text == "fixed":
        return text
    return _whole(1, "a number of samples per class (or 'fixed')")(text)


def _whole(minimum, what):
    """An argument type: a whole number >= ``minimum``, described as ``what``."""

    def parse(text):
        value = None
        # digits 0-9 only: int() would also read ' 2', '+2', '2_0' and '٣'
        if text.isascii() and text.isdigit():
            with contextlib.suppress(ValueError):  # more digits than int() reads
                value = int(text)
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {what}: give a whole number >= {minimum}"
            )
        return value

    return parse


def _path(text):
    """An argument type: the path of a file or folder, which cannot be empty (``--out
    "$DIR"`` with ``DIR`` unset would otherwise stand for a default or the current
    folder)."""
    if not text:
        raise argparse.ArgumentTypeError(
            "the path is empty (an unset shell variable?): give a file or folder, or "
            "leave the option out"
        )
    return text


PIXELS = {"nargs": 2, "type": _whole(1, "a number of pixels"), "metavar": ("H", "W")}

# The data options' help, shared by the commands that offer them. Each says the inputs
# it applies to; the loader refuses the others (datasets/_options.py).
DATA_DIR_HELP = (
    "registry names only: the folder holding the dataset files (default: "
    "$FDLSR_DATA_DIR, else ./data)"
)
X_HELP = ".mat and .npz files only: the variable holding the samples"
Y_HELP = (
    ".mat and .npz files: the variable holding the labels; a CSV: the label column "
    "(header name, or index: 0 first, -1 last)"
)
SAMPLES_HELP = "are the samples the rows or the columns of X: .mat, .npz"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose mistakes are reported on one line (usage: --help)."""

    def error(self, message):
        self.exit(
            2,
            f"fdlsr: error: {printable(_with_suggestion(message))} (see "
            f"`{self.prog} --help`)\n",
        )


def _with_suggestion(message):
    """argparse's ``message``, with a "did you mean" after an invalid choice."""
    match = re.search(r"invalid choice: '?([^'(]*?)'? \(choose from (.*)\)", message)
    if match is None:
        return message
    choices = [c.strip(" '") for c in match.group(2).split(",")]
    suggestion = did_you_mean(match.group(1), choices)
    return f"{message}.{suggestion}" if suggestion else message


def _dataset_args(parser):
    group = parser.add_argument_group("data")
    group.add_argument(
        "--dataset",
        type=_path,
        help="dataset name (see `fdlsr datasets`) or a file/folder path",
    )
    group.add_argument("--data-dir", type=_path, help=DATA_DIR_HELP)
    group.add_argument("--x", dest="x_var", metavar="NAME", help=X_HELP)
    group.add_argument("--y", dest="y_var", metavar="NAME|INDEX", help=Y_HELP)
    group.add_argument("--samples", choices=["rows", "columns"], help=SAMPLES_HELP)
    group.add_argument(
        "--config",
        type=_path,
        help="a shipped config name (e.g. feret) or the path of a .toml file; "
        "flags override it",
    )
    group.add_argument(
        "--resize",
        **PIXELS,
        help="image folders only: resize every image to H x W pixels (for images "
        "of several sizes)",
    )


def _params_option(parser, metavar, text):
    """``--params NAME=VALUE ...``: parameters fixed on the command line."""
    parser.add_argument(
        "--params", type=_param, nargs="+", default=[], metavar=metavar, help=text
    )


def _seed_option(parser, text, default=None):
    parser.add_argument("--seed", type=_whole(0, "a seed"), default=default, help=text)


def _splits_option(parser, text, default=None):
    parser.add_argument(
        "--splits", type=_whole(1, "a number of splits"), default=default, help=text
    )


def _paper_option(parser, text):
    parser.add_argument("--paper", nargs="?", const="auto", metavar="TABLE", help=text)


def build_parser():
    """The complete ``fdlsr`` argument parser, with every sub-command."""
    parser = _Parser(
        prog="fdlsr",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-V", "--version", action="version", version=f"fdlsr {__version__}"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    from .config import shipped_configs

    run = sub.add_parser(
        "run",
        help="run an experiment (resumes an interrupted one)",
        description="Evaluate methods on a dataset with the paper's protocol. Each finished "
        "run is saved at once in OUT/results.jsonl (default fdlsr-results/DATASET); "
        "running the same command again skips what is done, so an interrupted "
        "experiment resumes where it stopped. A paper config with every method takes "
        "long (docs/performance.md gives the times; --jobs N runs N at once); away "
        "from a terminal a line is printed on stderr for each method finished at "
        "each k.",
        epilog="shipped configs: " + ", ".join(shipped_configs()),
    )
    _dataset_args(run)
    group = run.add_argument_group("protocol")
    group.add_argument(
        "--methods",
        nargs="+",
        metavar="NAME",
        help="methods to run (see `fdlsr methods`), or 'all', and your own "
        "scikit-learn classifiers by import path (mypkg.models:MyClassifier, "
        "--params MyClassifier.NAME=VALUE); default: the config's (all, except in "
        "the faces and digits demos)",
    )
    group.add_argument(
        "-k",
        type=_k,
        nargs="+",
        metavar="K",
        help="training samples per class, one or more; 'fixed': the dataset's own "
        "train/test split (the default when it has one)",
    )
    _splits_option(group, "random splits per k (default 10)")
    _seed_option(
        group, "seed of the random splits and of the methods' random states (default 0)"
    )
    _params_option(
        group,
        "M.NAME=VALUE",
        "fixed parameters, e.g. FDLSR.alpha=0.01 FDLSR.lam=0.1 (NAME=VALUE alone if "
        "one method)",
    )
    group.add_argument(
        "--cv",
        nargs="*",
        metavar="NAME",
        help="choose parameters by cross-validation on each training split (over the "
        "method's grid) for these methods (a method without a grid is refused); "
        "no names: every method with a grid. "
        "FDLSR's grid is the paper's, with its 1-NN rule",
    )
    group.add_argument(
        "--cv-rules",
        action="store_true",
        help="with --cv, choose the decision rule too, for the methods that have "
        "several (FDLSR: 1-NN, k-NN, nearest class centroid, argmax; 1-NN on ties)",
    )
    group.add_argument(
        "--cv-folds",
        type=_whole(2, "a number of folds"),
        help="most inner folds (default 3; never more than k)",
    )
    group.add_argument(
        "--raw", action="store_true", help="do not unit-normalise the samples"
    )
    group.add_argument(
        "--standardize",
        action="store_true",
        help="bring each column to zero mean and unit variance (fitted on each "
        "training split) before the samples are unit-normalised: for tables of "
        "measurements on different scales",
    )
    group.add_argument(
        "--jobs",
        type=_whole(1, "a number of jobs"),
        default=1,
        metavar="N",
        help="runs computed at once in N processes, BLAS threads shared out among "
        "them (default 1); rows are the same but for times (per process) and "
        "rounding (docs/reproduction.md)",
    )
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="compute the runs on a dask.distributed cluster: a scheduler's address "
        "(tcp://HOST:8786) or local:N for N worker processes here (docs/cluster.md); "
        "needs pip install 'fdlsr[cluster]'",
    )
    group.add_argument(
        "--order",
        choices=["longest", "plan"],
        default=None,
        help="with several runs at once (--jobs N, --scheduler), start the longest "
        "expected first (default) or in the plan's order; one at a time they run "
        "in the plan's order (--order is refused then)",
    )
    group = run.add_argument_group("output")
    group.add_argument(
        "--out", type=_path, help="results folder (default fdlsr-results/DATASET)"
    )
    _paper_option(group, "print the paper's numbers beside ours")
    group.add_argument(
        "--no-table", action="store_true", help="do not print the table at the end"
    )

    report = sub.add_parser(
        "report",
        help="render tables (or an HTML report) from a results folder",
        description="Tables in the paper's layout from the results store, each with "
        "its notes under it; --format html writes one self-contained page with the "
        "figures of `fdlsr plot results` too.",
    )
    report.add_argument(
        "results",
        nargs="+",
        type=_path,
        help="results folder(s) written by `fdlsr run`",
    )
    report.add_argument(
        "--format",
        choices=["md", "latex", "csv", "html"],
        default="md",
        help="md (default), latex, csv (every cell, with every split's choice of a "
        "tuned method), or html: one self-contained page per report with the "
        "tables, figures, notes, environment and commands",
    )
    _paper_option(
        report, "add the paper's numbers (its Table I-VI; default: the config's table)"
    )
    report.add_argument(
        "--stats",
        action="store_true",
        help="instead of the tables, the paired statistics: each method against "
        "--reference on the splits both ran (wins/ties/losses, mean difference, "
        "Wilcoxon p with Holm's correction per table), the average ranks with the "
        "Friedman test and critical difference (md or csv)",
    )
    report.add_argument(
        "--reference",
        metavar="METHOD",
        help="with --stats: the method the others are compared with (a row label of "
        "the tables; default: FDLSR)",
    )
    report.add_argument(
        "-o", "--output", type=_path, help="write to this file instead of the screen"
    )
    report.add_argument(
        "--force",
        action="store_true",
        help="replace the -o file even if fdlsr did not write it or it was changed "
        "since (never an input)",
    )

    plot = sub.add_parser(
        "plot",
        help="draw the paper's figures 1-4 for a dataset, or compare the methods "
        "of results folders",
        description="Fig. 1 convergence, Fig. 2 t-SNE, Fig. 3 alpha x lambda "
        "sensitivity, Fig. 4 accuracy against lambda; PNG and PDF, with the data as "
        "JSON. `fdlsr plot results STORE [STORE ...]` draws, per data set of the "
        "results folders, the accuracy of every method against k and against its "
        "training time (the Pareto front marked).",
    )
    plot.add_argument(
        "kind",
        choices=["convergence", "tsne", "sensitivity", "lambda", "all", "results"],
    )
    plot.add_argument(
        "stores",
        nargs="*",
        type=_path,
        metavar="STORE",
        help="with results: the results folders written by `fdlsr run` (pooled)",
    )
    _dataset_args(plot)
    plot.add_argument(
        "-k",
        type=_whole(1, "a number of samples per class"),
        help="training samples per class (default: the config's figures.k)",
    )
    _params_option(
        plot, "NAME=VALUE", "FDLSR parameters, e.g. alpha=0.01 beta=0.001 lam=0.1"
    )
    _seed_option(plot, "seed of the random split", default=0)
    _splits_option(
        plot,
        "random splits averaged in the lambda figure (default 1, as the paper)",
        default=1,
    )
    plot.add_argument(
        "--classes",
        type=_whole(1, "a number of classes"),
        default=20,
        help="classes shown by t-SNE (the first ones)",
    )
    plot.add_argument(
        "--methods",
        nargs="+",
        help="t-SNE methods besides FDLSR (default DLSR ReLSR GReLSR when available)",
    )
    _paper_option(
        plot,
        "with results: the paper's numbers as hollow markers (its Table I-VI; "
        "default: the table the results record)",
    )
    plot.add_argument(
        "--out", type=_path, default="figures", help="output folder (default figures/)"
    )
    plot.add_argument(
        "--force",
        action="store_true",
        help="replace files of the figures' names in --out even if fdlsr did not "
        "write them or they were changed since (never an input)",
    )

    data = sub.add_parser(
        "datasets",
        help="list known datasets or describe one",
        description="List the registry's datasets and whether their files are there "
        "(present, missing, embedded in the package, or cached or to download by scikit-learn), or "
        "with `info NAME` describe one: its file, sizes, checksum, source and how to "
        "obtain it. Files are looked for in --data-dir, else $FDLSR_DATA_DIR, else "
        "./data.",
    )
    data.add_argument("action", nargs="?", choices=["list", "info"], default="list")
    data.add_argument(
        "name",
        nargs="?",
        type=_path,
        help="with info: a registry name or a file or folder path",
    )
    data.add_argument("--data-dir", type=_path, help=DATA_DIR_HELP)
    data.add_argument(
        "--resize",
        **PIXELS,
        help="with info on an image folder only: resize every image to H x W pixels",
    )

    _features_parser(sub)

    sub.add_parser(
        "methods",
        help="list the methods with their settings",
        description="List every method `fdlsr run --methods` accepts: its family, "
        "what it does, how it labels a test sample, its fixed settings and the grid "
        "that --cv searches.",
    )
    _model_parsers(sub)
    return parser


def _model_parsers(sub):
    """``fdlsr fit`` (train one method on a whole dataset and save it) and ``fdlsr
    predict`` (label samples with a saved model)."""
    fit = sub.add_parser(
        "fit",
        help="train one method on every sample of a dataset and save the model",
        description="Fit METHOD on all the samples of a dataset and write the fitted "
        "model to a file (fdlsr.load reads it back; `fdlsr predict` uses it). As in "
        "`fdlsr run`, the samples are unit-normalised unless --raw: the saved model "
        "is then a scikit-learn Pipeline(UnitNormalizer, METHOD), so it takes raw "
        "samples. The file holds data only, never code (docs/saving.md).",
    )
    _dataset_args(fit)
    group = fit.add_argument_group("model")
    group.add_argument(
        "--method", required=True, help="the method to fit (see `fdlsr methods`)"
    )
    _params_option(
        group,
        "NAME=VALUE",
        "its parameters, e.g. alpha=0.01 lam=0.1 (default: the config's, else the "
        "method's settings in `fdlsr methods`)",
    )
    _seed_option(
        group, "seed of the method's random state, for methods that draw (default 0)"
    )
    group.add_argument(
        "--raw", action="store_true", help="do not unit-normalise the samples"
    )
    group.add_argument(
        "-o",
        "--out",
        type=_path,
        required=True,
        metavar="MODEL",
        help="the model file to write",
    )
    group.add_argument(
        "--force",
        action="store_true",
        help="replace MODEL even if fdlsr did not write it or it was changed since "
        "(never an input)",
    )

    predict = sub.add_parser(
        "predict",
        help="label samples with a model saved by `fdlsr fit` or fdlsr.save",
        description="Predict the class of every sample of DATA with the saved MODEL and "
        "write one line per sample (index, prediction, and the label when DATA has "
        "labels) as CSV; with labels, the accuracy is printed on stderr. DATA is what "
        "`fdlsr run --dataset` accepts (a dataset name, a .mat/.npz/.csv file, an image "
        "folder), a .npy file of samples without labels, one per row, or a CSV as "
        "wide as the model's features (samples without labels; a CSV has a label "
        "column when --y or its header names one, or when it is one column wider); "
        "what the model file records of its training data is applied "
        "(docs/saving.md).",
    )
    predict.add_argument(
        "model", type=_path, help="a model file written by `fdlsr fit` or fdlsr.save"
    )
    predict.add_argument(
        "data", type=_path, help="dataset name, data file or folder, or a .npy file"
    )
    predict.add_argument(
        "-o",
        "--output",
        type=_path,
        help="write the CSV to this file instead of the screen",
    )
    predict.add_argument(
        "--force",
        action="store_true",
        help="replace the -o file even if fdlsr did not write it or it was changed "
        "since (never an input)",
    )
    predict.add_argument("--data-dir", type=_path, help=DATA_DIR_HELP)
    predict.add_argument("--x", dest="x_var", metavar="NAME", help=X_HELP)
    predict.add_argument("--y", dest="y_var", metavar="NAME|INDEX", help=Y_HELP)
    predict.add_argument(
        "--samples", choices=["rows", "columns"], help=SAMPLES_HELP + ", .npy"
    )
    predict.add_argument(
        "--resize",
        **PIXELS,
        help="image folders: resize every image to H x W pixels (default: the size "
        "the model file records; another than its images' is refused)",
    )


def _features_parser(sub):
    """``fdlsr features``: images through a pretrained backbone into a feature file."""
    features = sub.add_parser(
        "features",
        help="deep features of images, for `fdlsr run --dataset FILE`",
        description="Pass images through a pretrained torchvision (or timm) model and "
        "save one layer's activations (default: the penultimate layer) with the labels, "
        "file names, the data set's own split and a record of the model, layer, "
        "weights and preprocessing, as .npz or .mat. Runs on the GPU when there is "
        "one. Chunks are written to OUTPUT.parts as they finish: running the same "
        "command again resumes. Needs torch and torchvision (pip install "
        '".[features]").',
        epilog="examples:\n"
        "  fdlsr features photos/ -o photos_vgg19.npz      one sub-folder per class\n"
        "  fdlsr features CUB_200_2011/ -o data/cub200/cub200_vgg19.npz\n"
        "  fdlsr features list.txt --model resnet50 -o f.npz  path,label lines\n"
        "  fdlsr features photos/ --model resnet18 --weights none -o test.npz",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    features.add_argument(
        "source",
        type=_path,
        help="a folder (one sub-folder per class, or the folder of Stanford-40, "
        "CUB-200-2011 or Oxford 102 Flowers) or a list file of path,label lines",
    )
    features.add_argument(
        "-o",
        "--output",
        type=_path,
        required=True,
        help="the .npz or .mat file to write",
    )
    features.add_argument(
        "--force",
        action="store_true",
        help="replace OUTPUT even if fdlsr did not write it or it was changed since "
        "(never an input)",
    )
    features.add_argument(
        "--layout",
        choices=["folder", "list", "stanford40", "cub200", "flowers102"],
        help="how SOURCE lists its images (default: told from the files there)",
    )
    features.add_argument(
        "--model",
        default="vgg19",
        help="a torchvision model (vgg19, resnet50, vit_b_16, ...) or timm:NAME "
        "(default vgg19, as the paper)",
    )
    features.add_argument(
        "--layer",
        help="the module whose output is kept (default: the penultimate layer, the "
        "input of the last linear layer)",
    )
    features.add_argument(
        "--weights",
        default="default",
        help="default (pretrained, from torch's local cache), a weights name "
        "(IMAGENET1K_V1), a state-dict file, or none (random, for tests)",
    )
    features.add_argument(
        "--batch-size", type=_whole(1, "a batch size"), default=32, metavar="N"
    )
    features.add_argument(
        "--chunk-size",
        type=_whole(1, "a chunk size"),
        default=512,
        metavar="N",
        help="images per chunk written to OUTPUT.parts (default 512)",
    )
    features.add_argument(
        "--device", help="cuda, cpu, ... (default: the GPU when there is one)"
    )
    features.add_argument(
        "--workers",
        type=_whole(0, "a number of processes"),
        default=0,
        help="processes decoding images (default 0: this one)",
    )
    features.add_argument(
        "--seed",
        type=_whole(0, "a seed"),
        default=0,
        help="seed of the random weights of --weights none (default 0)",
    )
