"""Old import path of :mod:`fdlsr.experiments.fingerprints` (what identifies a run).

Kept so that imports written before the rename still work; new code imports
``fdlsr.experiments.fingerprints``.
"""

from .fingerprints import (  # noqa: F401
    StoredRuns,
    data_facts,
    data_fingerprint,
    run_fingerprints,
    stored_runs,
)
