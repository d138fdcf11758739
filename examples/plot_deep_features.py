"""
Deep features of an image folder
================================

``fdlsr features FOLDER -o FILE.npz`` (or
:func:`~fdlsr.features.extract_features`) passes every image of a folder
with one sub-folder per class through a torchvision or timm network and saves one
layer's activations with the labels, ready for ``fdlsr run --dataset FILE.npz``.
The paper uses VGG-19 with ImageNet weights, which must be in torch's cache (see the
deep-features page). This example needs no download: it writes the shipped faces
of 6 persons as PNG files and uses a ResNet-18 with random weights
(``weights="none"``, ``--weights none``), which shows the mechanics, not the
accuracy of pretrained features. Needs ``pip install "fdlsr[features]"``; without
PyTorch only the images are drawn.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from PIL import Image
from sklearn.decomposition import PCA

from fdlsr.datasets import load_dataset
from fdlsr.errors import ConfigError

faces = load_dataset("faces")
images = faces.images()
folder = Path(tempfile.mkdtemp()) / "faces"
persons = np.unique(faces.y)[:6]
for person in persons:
    (folder / f"person{person:02d}").mkdir(parents=True)
    for n, i in enumerate(np.flatnonzero(faces.y == person)):
        pixels = np.clip(images[i], 0, 255).astype(np.uint8)
        Image.fromarray(pixels).save(folder / f"person{person:02d}" / f"{n}.png")
print(sorted(p.name for p in folder.iterdir()))

# %%
# The features of the 60 images, read back by the data-set loader as ``fdlsr run
# --dataset faces_resnet18.npz -k 5 --methods FDLSR 1-NN`` reads them.
try:
    from fdlsr._experiments.features import extract_features

    output = folder.parent / "faces_resnet18.npz"
    record = extract_features(
        folder, output, model="resnet18", weights="none", batch_size=50
    )
    print({key: record[key] for key in ("model", "layer", "weights", "n_features")})
    stored = load_dataset(output)
    features, labels = stored.X, stored.y
    print(features.shape, stored.n_classes)
except ConfigError as error:  # no PyTorch or torchvision here
    print("features skipped:", error)
    features = None

# %%
fig = plt.figure(figsize=(10, 4))
for n, person in enumerate(persons):
    ax = fig.add_subplot(2, 6, 1 + n + 3 * (n >= 3))
    ax.imshow(images[np.flatnonzero(faces.y == person)[0]], cmap="gray")
    ax.set_title(f"person{person:02d}", fontsize=8)
    ax.set_axis_off()
if features is not None:
    ax = fig.add_subplot(1, 2, 2)
    codes = np.unique(labels, return_inverse=True)[1]
    embedded = PCA(2).fit_transform(features)
    ax.scatter(*embedded.T, c=codes, cmap="tab10", s=15)
    ax.set_title(f"PCA of {features.shape[1]} ResNet-18 features (random weights)")
    ax.set_xticks([])
    ax.set_yticks([])
else:
    fig.text(
        0.75, 0.5, "no features: PyTorch or torchvision\nis not installed", ha="center"
    )
fig.tight_layout()
plt.show()
