"""Old import path of :mod:`fdlsr.experiments.store` (the results store).

Kept so that imports written before the rename still work; new code imports
``fdlsr.experiments.store``.
"""

from .store import (  # noqa: F401
    ENVIRONMENT,
    INFO,
    INFO_FIELDS,
    KEY_FIELDS,
    LOCK,
    RESULTS,
    STORE_FILES,
    TABLE_FIELDS,
    ResultStore,
    StoreRows,
    by_data,
    cpu_model,
    environment,
    n_rows,
    read_info,
    read_rows,
    read_store,
    record_run,
    row_key,
    table_info,
    validate_row,
    write_atomic,
    write_info,
)
