"""Dictionary-learning classifiers (LC-KSVD, LCLE, FDDL, LRSDL, DPL, DRA-DPL)."""

METHODS = []
