"""The order of the example gallery: from a first model to the paper's tables."""

ORDER = [
    "plot_pipeline_faces.py",
    "plot_compare_methods.py",
    "plot_your_method.py",
    "plot_fdlsrcv.py",
    "plot_convergence.py",
    "plot_projected_features.py",
    "plot_decision_rules.py",
    "plot_float32_torch_blocked.py",
    "plot_dask.py",
    "plot_save_load.py",
    "plot_deep_features.py",
    "plot_paper_table.py",
    "plot_results_dataframe.py",
]


class ReadingOrder:
    """Sort key of sphinx-gallery's ``within_subsection_order``: the files of
    ``ORDER`` in its order, any other after them by name."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        return (
            (ORDER.index(filename), "") if filename in ORDER else (len(ORDER), filename)
        )

    def __repr__(self):  # sphinx-gallery compares configurations by their repr
        return f"{type(self).__name__}()"
