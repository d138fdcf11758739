"""``fdlsr datasets``: the registry's data sets and whether their files are there."""

import os
from pathlib import Path

from ...datasets import dataset_info, list_datasets
from ...errors import ConfigError
from ..planning import DataOptions


def main(args):
    """``fdlsr datasets [list|info NAME]``."""
    if args.data_dir and not Path(args.data_dir).is_dir():
        raise ConfigError(
            f"--data-dir {args.data_dir} is not a folder; give the folder that holds "
            "the dataset files (e.g. ../shared/data)"
        )
    if args.action == "info":
        if not args.name:
            raise ConfigError(
                "name the dataset: fdlsr datasets info NAME (or the path of a file)"
            )
        options = DataOptions(resize=args.resize)  # the one it offers
        info = dataset_info(args.name, data_dir=args.data_dir, **options.given())
        for key, value in info.items():
            print(f"{key}: {value}")
        return 0
    for given, what in (
        (args.name, f"a name ({args.name})"),
        (args.resize, "--resize"),
    ):
        if given is not None:
            raise ConfigError(
                f"`fdlsr datasets list` takes no {what}; describe one data set with "
                "`fdlsr datasets info NAME`"
            )
    print(f"{'name':<18} {'status':<10} description")
    missing = downloads = 0
    for entry in list_datasets():
        if entry.get("loader") == "sklearn" and entry["name"] == "digits":
            status = "embedded"  # ships with scikit-learn
        elif entry.get("loader") == "sklearn":  # fetched by scikit-learn on first use
            cached = dataset_info(entry["name"]).get("present")
            status = "cached" if cached else "download"
            downloads += not cached
        elif entry.get("loader") == "embedded":
            status = "embedded"
        else:
            info = dataset_info(entry["name"], args.data_dir)
            status = "present" if info.get("present") else "missing"
            missing += status == "missing"
        print(f"{entry['name']:<18} {status:<10} {entry.get('description', '')}")
    if args.data_dir:
        where = args.data_dir
    elif os.environ.get("FDLSR_DATA_DIR"):
        where = f"{os.environ['FDLSR_DATA_DIR']} (from FDLSR_DATA_DIR)"
    else:
        where = "./data (the default: neither --data-dir nor FDLSR_DATA_DIR is set)"
    print(
        f"\nfiles are looked for in {where}; `fdlsr datasets info NAME` says what a "
        "file should contain and where to get it"
    )
    if downloads:
        print(
            "download: scikit-learn downloads it into its cache on first use "
            "(needs network access); cached: it is there already"
        )
    if missing and not args.data_dir:
        print(
            "to use files kept elsewhere, point at the folder that holds them: "
            "--data-dir DIR, or export FDLSR_DATA_DIR=DIR (e.g. ../shared/data)"
        )
    return 0
