"""torchvision models beyond classification as factories for
utils/fx-model-check.py and bench/models/sweep.py --corpus torchvision-dense
(`bench/models/torchvision_dense.py:NAME`): segmentation models (their
"out" map, and "aux" where there is one) and video classifiers (3-d
convolutions and pooling), random weights (nothing downloaded), each with
a seeded example input of the size MODELS lists."""
import torch

# (name, kind, input shape)
MODELS = [
    ("fcn_resnet50", "segmentation", (1, 3, 64, 64)),
    ("deeplabv3_mobilenet_v3_large", "segmentation", (1, 3, 64, 64)),
    ("deeplabv3_resnet50", "segmentation", (1, 3, 64, 64)),
    ("lraspp_mobilenet_v3_large", "segmentation", (1, 3, 64, 64)),
    ("r3d_18", "video", (1, 3, 8, 56, 56)),
    ("mc3_18", "video", (1, 3, 8, 56, 56)),
    ("r2plus1d_18", "video", (1, 3, 8, 56, 56)),
]


class _Maps(torch.nn.Module):
    """A segmentation model's output dict as a tuple of its maps."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        out = self.model(x)
        return tuple(out[k] for k in sorted(out))


def _make(name):
    from fx_mlir.torchvision_models import models as torchvision_models
    models = torchvision_models()
    kind, shape = next((k, s) for n, k, s in MODELS if n == name)
    torch.manual_seed(0)
    if kind == "segmentation":
        model = _Maps(getattr(models.segmentation, name)(weights=None, weights_backbone=None))
    else:
        model = getattr(models.video, name)(weights=None)
    example = torch.randn(shape, generator=torch.Generator().manual_seed(1))
    return model.eval(), (example,)


def __getattr__(name):
    if name.startswith("__") or name not in {n for n, _, _ in MODELS}:
        raise AttributeError(name)
    return lambda: _make(name)
