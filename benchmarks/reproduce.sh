#!/usr/bin/env bash
# Regenerate the reproduction tables and figures of docs/ from scratch (or resume them).
#
#   bash benchmarks/reproduce.sh [DATASET ...]       default: feret and the figure set
#
# DATA_DIR (default ../shared/data) holds the .mat files; METHODS, when set, restricts the
# methods (e.g. METHODS="FDLSR RidgeClassifier LDA 1-NN"); every method registered in
# fdlsr is run otherwise. JOBS (default 1) runs that many splits at once (fdlsr run
# --jobs). Results go to docs/results/NAME (resumable: rerun to continue),
# tables to docs/tables/NAME.{md,tex,csv}, figures to docs/figures/ (for FERET and
# ORL also the comparison figures, and the HTML report to docs/_extra/reports/).
# The figures are written with --force: figures of docs/figures drawn before fdlsr
# marked its figure files are the project's own, not a user's.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA_DIR="${DATA_DIR:-${FDLSR_DATA_DIR:-../shared/data}}"
FIGURES="${FIGURES:-feret coil20}"
DATASETS=("$@")
[ ${#DATASETS[@]} -eq 0 ] && DATASETS=(feret)
mkdir -p docs/tables docs/figures

for name in "${DATASETS[@]}"; do
    methods=()
    [ -n "${METHODS:-}" ] && methods=(--methods $METHODS)
    fdlsr run --config "$name" --data-dir "$DATA_DIR" --out "docs/results/$name" \
        "${methods[@]}" --jobs "${JOBS:-1}" --no-table
    if [ "$name" = feret ] && [ -z "${METHODS:-}" ]; then
        # A row beside the defaults (docs/reproduction.md): LRDLSR with values chosen
        # on training images (the config itself tunes CRC and ProCRC on each split).
        fdlsr run --config feret --data-dir "$DATA_DIR" --out docs/results/feret \
            --methods LRDLSR --jobs "${JOBS:-1}" --no-table \
            --params LRDLSR.alpha=1 LRDLSR.beta=0.1 LRDLSR.gamma=0.01 LRDLSR.lam=0.01
    fi
    paper=()
    grep -q '^paper_table' "src/fdlsr/_experiments/configs/$name.toml" && paper=(--paper)
    fdlsr report "docs/results/$name" "${paper[@]}" --format md -o "docs/tables/$name.md"
    fdlsr report "docs/results/$name" "${paper[@]}" --format latex -o "docs/tables/$name.tex"
    fdlsr report "docs/results/$name" "${paper[@]}" --format csv -o "docs/tables/$name.csv"
    if [ "$name" = feret ] || [ "$name" = orl ]; then
        # the comparison figures and the one-page report the results page shows
        fdlsr plot results "docs/results/$name" "${paper[@]}" --out docs/figures --force
        mkdir -p docs/_extra/reports
        fdlsr report "docs/results/$name" "${paper[@]}" --format html \
            -o "docs/_extra/reports/$name.html"
    fi
done

if [ $# -eq 0 ]; then
    for name in $FIGURES; do
        fdlsr plot all --config "$name" --data-dir "$DATA_DIR" --out docs/figures --force
    done
fi
