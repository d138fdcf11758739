"""Experiment configs: TOML files, shipped ones by name (``fdlsr run --config feret``).

Why TOML: it is the format of ``pyproject.toml``, readable and commentable by people,
with real numbers and lists; Python 3.11 reads it with the standard ``tomllib``, and
3.10 with the small ``tomli`` backport (the same parser). A config looks like::

    title = "FERET, the paper's Table III"
    dataset = "feret"
    k = [1, 2, 3, 4, 5]
    splits = 10                  # random splits per k
    seed = 0
    methods = "all"              # or a list of names
    cv = []                      # methods whose grid is searched on the training split
    paper_table = "III"          # the paper's numbers to show beside ours

    [params.FDLSR]               # fixed values (the paper's, for this dataset)
    alpha = 1e-2
    beta = 1e-3
    lam = 1e-1

    [figures]                    # settings of `fdlsr plot`
    k = 5
"""

import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ..errors import ConfigError
from ..methods import METHODS
from .protocol import DEFAULT_CV_FOLDS, DEFAULT_SPLITS, Experiment

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KNOWN_KEYS = {
    "title",
    "dataset",
    "data_dir",
    "k",
    "splits",
    "seed",
    "methods",
    "cv",
    "cv_folds",
    "normalise",
    "paper_table",
    "note",
    "params",
    "figures",
}


@dataclass
class Config:
    """An experiment plus what the reports and figures need to know about it."""

    experiment: Experiment
    title: str = ""
    paper_table: str | None = None
    note: str = ""
    figures: dict = field(default_factory=dict)
    source: str = ""


def shipped_configs():
    """Names of the configs shipped with the package."""
    folder = resources.files("fdlsr.experiments") / "configs"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def find_config(name_or_path):
    """Text and origin of a config given by file path or by shipped name."""
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        try:
            return path.read_text(encoding="utf-8"), str(path)
        except FileNotFoundError:
            raise ConfigError(
                f"config file {path} not found; give an existing file or a shipped "
                f"config name ({', '.join(shipped_configs())})"
            ) from None
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(f"cannot read config file {path}: {error}") from None
    shipped = resources.files("fdlsr.experiments") / "configs" / f"{name_or_path}.toml"
    if not shipped.is_file():
        raise ConfigError(
            f"no config {name_or_path!r}: give a .toml file or one of the shipped "
            f"configs ({', '.join(shipped_configs())})"
        )
    return shipped.read_text(encoding="utf-8"), f"shipped config {name_or_path}"


def load_config(name_or_path):
    """Parse and check a config into a :class:`Config`."""
    text, source = find_config(name_or_path)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source} is not valid TOML: {error}") from None
    unknown = sorted(set(raw) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(
            f"{source}: unknown setting {unknown[0]!r}; known settings are "
            + ", ".join(sorted(KNOWN_KEYS))
        )
    if "dataset" not in raw:
        raise ConfigError(f"{source}: missing 'dataset = NAME'")
    ks = raw.get("k", [])
    ks = [ks] if isinstance(ks, int) else list(ks)
    methods = raw.get("methods", "all")
    params = raw.get("params", {})
    if not isinstance(params, dict) or not all(
        isinstance(v, dict) for v in params.values()
    ):
        raise ConfigError(f"{source}: write parameters as [params.METHOD] tables")
    experiment = Experiment(
        dataset=raw["dataset"],
        ks=ks,
        methods=all_methods() if methods == "all" else list(methods),
        splits=int(raw.get("splits", DEFAULT_SPLITS)),
        seed=int(raw.get("seed", 0)),
        params={name: dict(values) for name, values in params.items()},
        cv=list(raw.get("cv", [])),
        cv_folds=int(raw.get("cv_folds", DEFAULT_CV_FOLDS)),
        normalise=bool(raw.get("normalise", True)),
        data_dir=raw.get("data_dir"),
    )
    if methods == "all":  # parameters for a method not (yet) available are kept aside
        experiment.params = {
            name: values
            for name, values in experiment.params.items()
            if name.lower() in {m.lower() for m in experiment.methods}
        }
    return Config(
        experiment=experiment,
        title=raw.get("title", ""),
        paper_table=raw.get("paper_table"),
        note=raw.get("note", ""),
        figures=dict(raw.get("figures", {})),
        source=source,
    )


def all_methods():
    """Every registered method, in registry order."""
    return list(METHODS)
