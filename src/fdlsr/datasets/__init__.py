"""Classification data sets by name or by path, as samples-as-rows matrices.

>>> from fdlsr.datasets import load_dataset
>>> ds = load_dataset("faces")
>>> ds.X.shape, ds.n_classes, ds.image_shape, ds.order
((400, 1024), 40, (32, 32), 'C')

``load_dataset`` takes a registry name (``list_datasets()``; ``faces`` is shipped inside
the package and ``digits`` with scikit-learn, other files are looked for in
``data_dir``, default ``$FDLSR_DATA_DIR`` or ``./data``) or the path of a MATLAB
``.mat`` (v4 to v7.3), ``.npz``, CSV file or a folder of images with one
sub-folder per class. Mistakes a user can fix raise
:class:`fdlsr.errors.DatasetError` with a one-line message that names the fix; an
option that does not apply to the input (``resize`` for a ``.mat`` file) is one of
them (``_options``). See ``docs/datasets.md`` for the registry and the layouts
recognised.
"""

from ._dataset import Dataset
from ._load import dataset_info, list_datasets, load_dataset

__all__ = ["Dataset", "dataset_info", "list_datasets", "load_dataset"]
