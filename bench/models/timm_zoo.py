"""timm models as factories for utils/fx-model-check.py and
bench/models/sweep.py (`bench/models/timm_zoo.py:NAME` for any timm model
name): the model built from its config with random weights (nothing is
downloaded), in eval mode. MODELS is the sweep's corpus: its name, the
input size (64 where the architecture takes any size; the size its patch
or window grid is built for otherwise) and the family it stands for."""
import torch

# (name, input size, family)
MODELS = [
    ("resnet18", 64, "ResNet"), ("resnet50", 64, "ResNet"), ("resnet18d", 64, "ResNet"),
    ("resnet26t", 64, "ResNet"), ("seresnext26d_32x4d", 64, "ResNeXt / SE"),
    ("resnest14d", 64, "ResNeSt"), ("res2net50_14w_8s", 64, "Res2Net"),
    ("skresnet18", 64, "SKNet"), ("cspresnet50", 64, "CSPNet"),
    ("cspdarknet53", 64, "CSPNet"), ("dla34", 64, "DLA"), ("dpn68", 64, "DPN"),
    ("hrnet_w18_small", 64, "HRNet"), ("densenet121", 64, "DenseNet"),
    ("vgg11", 64, "VGG"), ("repvgg_a0", 64, "RepVGG"), ("inception_v3", 299, "Inception"),
    ("efficientnet_b0", 64, "EfficientNet"), ("efficientnet_lite0", 64, "EfficientNet"),
    ("tf_efficientnet_b0", 64, "EfficientNet (TF padding)"),
    ("efficientnetv2_rw_t", 64, "EfficientNetV2"), ("tinynet_a", 64, "TinyNet"),
    ("mobilenetv2_100", 64, "MobileNetV2"), ("mobilenetv3_small_100", 64, "MobileNetV3"),
    ("mobilenetv3_large_100", 64, "MobileNetV3"), ("mobilenetv4_conv_small", 64, "MobileNetV4"),
    ("mixnet_s", 64, "MixNet"), ("mnasnet_100", 64, "MnasNet"), ("fbnetc_100", 64, "FBNet"),
    ("ghostnet_100", 64, "GhostNet"), ("lcnet_050", 64, "LCNet"), ("rexnet_100", 64, "ReXNet"),
    ("hardcorenas_a", 64, "HardCoRe-NAS"), ("hgnetv2_b0", 64, "HGNetV2"),
    ("regnetx_002", 64, "RegNetX"), ("regnety_002", 64, "RegNetY"),
    ("nf_regnet_b0", 64, "NFNet"), ("convnext_atto", 64, "ConvNeXt"),
    ("convnextv2_atto", 64, "ConvNeXt V2"), ("edgenext_xx_small", 64, "EdgeNeXt"),
    ("poolformer_s12", 64, "PoolFormer"), ("mobilevit_xxs", 256, "MobileViT"),
    ("vit_tiny_patch16_224", 224, "ViT"), ("deit_tiny_patch16_224", 224, "DeiT"),
    ("cait_xxs24_224", 224, "CaiT"), ("levit_128s", 224, "LeViT"),
    ("swin_tiny_patch4_window7_224", 224, "Swin"), ("efficientformer_l1", 224, "EfficientFormer"),
    ("resmlp_12_224", 224, "ResMLP"), ("gmlp_ti16_224", 224, "gMLP"),
]


def _create(name):
    # timm imports torchvision, whose operator library does not load with
    # the CPU torch: declare its operators first (fx_mlir.torchvision_models).
    from fx_mlir.torchvision_models import models as torchvision_models
    torchvision_models()
    import timm
    torch.manual_seed(0)
    return timm.create_model(name, pretrained=False).eval()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return lambda: _create(name)
