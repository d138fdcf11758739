"""The backbones of ``fdlsr features``: a torchvision or timm model with its weights,
the layer whose activations are kept and the preprocessing of those weights.

:func:`load_backbone` builds one. *Weights* come from torch's (or timm's) local
cache, from a file (``weights=PATH``, a state dict), or are random
(``weights="none"``, seeded: for tests and timing); nothing is downloaded unless the
cache already holds it. The layer kept is by default the input of the model's last
linear layer (VGG-19: fc7, 4096-d; ResNet-50: the pooled 2048-d vector; a ViT: the
class token), or the output of any module named with ``layer``.
"""

import importlib.metadata
from dataclasses import dataclass
from pathlib import Path

from .._common.files import sha256
from .._version import __version__
from ..datasets._dataset import one_line
from ..errors import ConfigError

DEFAULT_MODEL = "vgg19"
PENULTIMATE = "penultimate"
# ImageNet's preprocessing, for a model whose weights do not say theirs.
IMAGENET_MEAN, IMAGENET_STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


@dataclass
class Backbone:
    """A model in eval mode, the module whose activations are kept, the transform."""

    model: object
    module: object
    layer: str
    use_input: bool  # True: the module's input (the penultimate layer), else its output
    transform: object
    record: dict


def torch_modules():
    """``(torch, torchvision)``, or one line saying how to install them."""
    try:
        import torch
        import torchvision
    except ImportError:
        raise ConfigError(
            "feature extraction needs PyTorch and torchvision: pip install torch "
            'torchvision (or pip install ".[features]" in the fdlsr source folder)'
        ) from None
    except Exception as error:  # noqa: BLE001 (a broken install fails in any way)
        # e.g. "operator torchvision::nms does not exist": a torchvision built for
        # another torch (each torchvision 0.N+15 is built for one torch 2.N)
        raise ConfigError(
            f"torchvision {_installed('torchvision')} does not load beside torch "
            f"{_installed('torch')} ({one_line(error, 80)}); install a pair built for "
            "each other, e.g. pip install 'torch==2.14.1' 'torchvision==0.29.1' "
            "(torchvision 0.N+15 goes with torch 2.N)"
        ) from None
    return torch, torchvision


def _installed(name):
    """The installed version of distribution ``name``, or "(version unknown)"."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown)"


def load_backbone(model=DEFAULT_MODEL, weights="default", layer=None, seed=0):
    """The backbone ``model`` (a torchvision name, or ``timm:NAME``) with ``weights``.

    ``weights``: ``"default"`` (the model's recommended pretrained weights, from the
    local cache), a torchvision weights name (``IMAGENET1K_V1``), ``"none"`` (random,
    drawn with ``seed``) or the path of a state-dict file.

    Parameters
    ----------
    model : str, default=DEFAULT_MODEL
        A torchvision model name (``"vgg19"``, ``"resnet50"``, ...) or ``"timm:NAME"``.
    weights : str or path-like, default="default"
        As described above.
    layer : str, optional
        The module whose output (or input) is the feature; default: the input of the
        last layer (the penultimate layer's features).
    seed : int, default=0
        Seed of the random weights of ``weights="none"``.

    Returns
    -------
    backbone : Backbone
        The network in evaluation mode, its preprocessing and the record of what
        was loaded.
    """
    torch, torchvision = torch_modules()
    weights = str(weights)
    if weights == "none":
        torch.manual_seed(seed)
    if model.startswith("timm:"):
        net, transform, source = _timm(model[len("timm:") :], weights)
    else:
        net, transform, source = _torchvision(torchvision, torch, model, weights)
    if weights == "none":
        source = f"none (random initialisation, torch seed {seed})"
    net.eval()
    module, name, use_input = _layer(net, layer, model)
    record = {
        "model": model,
        "layer": name + (" (input)" if use_input else " (output)"),
        "weights": source,
        "preprocessing": " ".join(repr(transform).split()),
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "fdlsr": __version__,
    }
    if model.startswith("timm:"):
        import timm

        record["timm"] = timm.__version__
    return Backbone(net, module, name, use_input, transform, record)


def _torchvision(torchvision, torch, name, weights):
    from torchvision import models

    try:
        models.get_model_builder(name)
    except ValueError:
        known = ", ".join(
            m for m in models.list_models(module=models) if m in _EXAMPLES
        )
        raise ConfigError(
            f"unknown torchvision model {name!r}; give a name of "
            f"torchvision.models.list_models() (e.g. {known}) or timm:NAME"
        ) from None
    try:
        enum = models.get_model_weights(name)
    except ValueError:
        enum = None
    default = enum.DEFAULT if enum is not None else None
    transform = default.transforms() if default is not None else _imagenet_transform()
    if weights == "none":
        net = models.get_model(name, weights=None)
        return net, transform, "none"
    if weights == "default" or (enum is not None and weights in enum.__members__):
        if enum is None:
            raise ConfigError(
                f"torchvision has no pretrained weights for {name}; pass --weights "
                "PATH (a state dict) or --weights none"
            )
        chosen = default if weights == "default" else enum[weights]
        cached = Path(torch.hub.get_dir()) / "checkpoints" / Path(chosen.url).name
        if not cached.is_file():
            raise ConfigError(
                f"the weights {name} {chosen.name} are not in torch's cache ({cached}); "
                'download them once (needs network access) with: python -c "import '
                f"torchvision; torchvision.models.get_model('{name}', "
                f"weights='{chosen.name}')\" (or copy the file there from a machine "
                "that has it), or pass --weights PATH (a state dict) or --weights none"
            )
        net = models.get_model(name, weights=chosen)
        return (
            net,
            chosen.transforms(),
            f"{enum.__name__}.{chosen.name} ({cached.name})",
        )
    path = Path(weights).expanduser()
    if not path.is_file():
        names = ", ".join(enum.__members__) if enum is not None else "none"
        raise ConfigError(
            f"--weights {weights}: no such file, and not a weights name of {name} "
            f"(default, none, {names})"
        )
    net = models.get_model(name, weights=None)
    state = torch.load(path, map_location="cpu", weights_only=True)
    if isinstance(state, dict) and isinstance(state.get("state_dict"), dict):
        state = state["state_dict"]
    try:
        net.load_state_dict(state)
    except (RuntimeError, TypeError, AttributeError) as exc:
        raise ConfigError(
            f"{path} does not hold {name}'s weights ({one_line(exc)[:160]}); give the "
            "state dict saved from the same architecture"
        ) from None
    return net, transform, f"file {path.resolve()} (sha256 {sha256(path)})"


# Examples named in the error for an unknown model.
_EXAMPLES = ("vgg19", "resnet18", "resnet50", "vit_b_16", "convnext_tiny")


def _timm(name, weights):
    try:
        import timm
        from timm.data import create_transform, resolve_data_config
    except ImportError:
        raise ConfigError(
            f"timm:{name} needs timm: pip install timm (or give a torchvision model)"
        ) from None
    options = {}
    if weights not in ("default", "none"):
        path = Path(weights).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"--weights {weights}: no such file (timm models take default, none "
                "or the path of a weights file)"
            )
        options["pretrained_cfg_overlay"] = {"file": str(path.resolve())}
    try:
        net = timm.create_model(name, pretrained=weights != "none", **options)
    except Exception as exc:  # an unknown name, weights not cached, a wrong file
        # (timm and huggingface_hub raise RuntimeError, OSError, ValueError, ...)
        raise ConfigError(
            f"timm cannot build {name} with weights {weights} ({one_line(exc)[:160]}); "
            "check the name (timm.list_models()) and that the weights are cached"
        ) from None
    transform = create_transform(**resolve_data_config({}, model=net))
    if weights == "none":
        source = "none"
    elif weights == "default":
        cfg = net.pretrained_cfg
        source = f"timm default ({cfg.get('hf_hub_id') or cfg.get('url') or name})"
    else:
        source = f"file {Path(weights).resolve()} (sha256 {sha256(weights)})"
    return net, transform, source


def _imagenet_transform():
    from torchvision import transforms

    return transforms.Compose(
        [
            transforms.Resize(256),
            transforms.CenterCrop(224),
            transforms.ToTensor(),
            transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD),
        ]
    )


def _layer(net, layer, model):
    """The module to hook: the last linear layer's input, or the named module's output."""
    import torch

    modules = dict(net.named_modules())
    if layer in (None, PENULTIMATE):
        linear = [n for n, m in modules.items() if isinstance(m, torch.nn.Linear)]
        if not linear:
            raise ConfigError(
                f"{model} has no linear layer, so no penultimate layer: name a layer "
                "with --layer (e.g. the last pooling module)"
            )
        return modules[linear[-1]], linear[-1], True
    if layer not in modules or not layer:
        names = [n for n in modules if n]
        shown = ", ".join(names[-8:])
        raise ConfigError(
            f"{model} has no layer {layer!r}; name one of its modules (the last ones: "
            f"{shown}) or leave --layer out for the penultimate layer"
        )
    return modules[layer], layer, False
