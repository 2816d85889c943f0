# Model corpora beyond torchvision: Hugging Face transformers (BERT with
# and without a padding mask, GPT-2, LLaMA, the T5 encoder, ViT, whose
# attention takes a boolean mask) and timm (a ResNet, MobileNetV3,
# ConvNeXt, a ViT, EfficientNet), small configurations with random
# weights (no downloads), imported with torch.export, compiled, run with
# their weights bound, and compared with eager. On the CPU and, where a
# Vulkan device is present, on it.
# REQUIRES: torch2
# RUN: %python %s cpu | FileCheck %s
# RUN: %if vulkan %{ %python %s vulkan | FileCheck %s %}
# CHECK-COUNT-11: PASS
# CHECK-NOT: FAIL

import os
import sys
import tempfile

import torch

import fx_mlir
from fx_mlir.testing import compare
from fx_mlir.torchvision_models import models as torchvision_models

# timm and transformers import torchvision, whose operator library does
# not load with the CPU torch: declare its operators first (see there).
torchvision_models()
import timm  # noqa: E402
import transformers  # noqa: E402

target = sys.argv[1]
workdir = tempfile.mkdtemp()
torch.manual_seed(0)


def outputs_of(result):
    if isinstance(result, torch.Tensor):
        return [result]
    if hasattr(result, "logits"):
        return [result.logits]
    values = [result.last_hidden_state]
    if getattr(result, "pooler_output", None) is not None:
        values.append(result.pooler_output)
    return values


def check(name, module, *inputs):
    module.eval()
    imported = fx_mlir.import_module(module, inputs)
    mlir = os.path.join(workdir, name + ".mlir")
    weights = os.path.join(workdir, name + ".safetensors")
    imported.save(mlir, weights)
    model = fx_mlir.compile(mlir, target=target)
    model.bind_weights(weights)
    got = model(*[t.numpy() for t in inputs])
    with torch.no_grad():
        want = outputs_of(module(*inputs))
    result = compare(got[:len(want)], want)
    print(name, "PASS" if result.ok else "FAIL", result.message)


class Masked(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids, mask):
        return self.model(input_ids=ids, attention_mask=mask).last_hidden_state


ids = torch.randint(0, 1000, (1, 16))
small = dict(vocab_size=1000, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
             intermediate_size=256)
check("bert", transformers.BertModel(transformers.BertConfig(**small)), ids)
padding = torch.ones(2, 16, dtype=torch.int64)
padding[1, 10:] = 0
check("bert_padding_mask", Masked(transformers.BertModel(transformers.BertConfig(**small))),
      torch.randint(0, 1000, (2, 16)), padding)
check("gpt2", transformers.GPT2LMHeadModel(transformers.GPT2Config(
    vocab_size=1000, n_embd=128, n_layer=2, n_head=4, use_cache=False)), ids)
check("llama", transformers.LlamaForCausalLM(transformers.LlamaConfig(
    **small, num_key_value_heads=2, use_cache=False)), ids)
check("t5_encoder", transformers.T5EncoderModel(transformers.T5Config(
    vocab_size=1000, d_model=128, d_kv=32, d_ff=256, num_layers=2, num_heads=4,
    use_cache=False)), ids)
check("vit", transformers.ViTModel(transformers.ViTConfig(
    hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=256,
    image_size=64, patch_size=16)), torch.randn(1, 3, 64, 64))

image = torch.randn(1, 3, 64, 64)
for name, kwargs in (("resnet18", {}), ("mobilenetv3_small_100", {}), ("convnext_atto", {}),
                     ("vit_tiny_patch16_224", {"img_size": 64}), ("efficientnet_b0", {})):
    check("timm_" + name, timm.create_model(name, pretrained=False, **kwargs), image)
