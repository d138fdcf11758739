"""Representation-based classifiers (SRC, CRC, ProCRC, NRC)."""

METHODS = []
