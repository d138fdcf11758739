"""``fdlsr features``: images through a pretrained backbone into a feature file."""

import sys
from pathlib import Path

from ..progress import Bar


def main(args):
    """``fdlsr features``: extract, with a one-line progress bar on stderr."""
    from ..features import extract_features  # torch: only when extracting

    bar = Bar(f"features {Path(args.source).name}")
    record = extract_features(
        args.source,
        args.output,
        layout=args.layout,
        model=args.model,
        layer=args.layer,
        weights=args.weights,
        batch_size=args.batch_size,
        chunk_size=args.chunk_size,
        device=args.device,
        workers=args.workers,
        seed=args.seed,
        progress=bar,
        notice=lambda message: print(f"fdlsr: {message}", file=sys.stderr),
        force=args.force,
    )
    bar.close()
    rate = record["images_per_second"]
    speed = f", {rate:.1f} images/s" if rate else " (all chunks were already there)"
    print(
        f"{record['n_images']} images -> {record['n_features']} features of "
        f"{record['model']} {record['layer']} on {record['device']}{speed}; "
        f"wrote {args.output} (classify: fdlsr run --dataset {args.output})",
        file=sys.stderr,
    )
    return 0
