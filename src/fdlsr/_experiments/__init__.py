"""The paper's experiments: datasets, the protocol of random splits, results stores,
reports, figures, and the ``fdlsr`` command line on top of them.

The estimators never import from here; the command line (:mod:`.cli`) only parses
arguments and hands them to :mod:`.commands`.
"""
