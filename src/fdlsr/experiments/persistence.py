"""``fdlsr.save`` and ``fdlsr.load`` under their old import path; they live in
:mod:`fdlsr.persistence`."""

from ..persistence.archive import (  # noqa: F401
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    MANIFEST_LIMIT,
    load,
    save,
)

__all__ = ["load", "save"]
