"""Hugging Face models for bench/models/run.py (factories in the form
`fx_mlir.import` and utils/fx-model-check.py take: a module and its example
inputs). Random weights from a fixed seed: the benchmark times the
architecture, not a checkpoint (nothing is downloaded). The batch is
FX_BENCH_BATCH's (run.py sets it from --batch; default 1)."""
import os

import torch

# Sequence length of the benchmark (issue: bert-base at 128 tokens).
SEQUENCE = 128


def _ids(batch, vocab, seed):
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (batch, SEQUENCE), generator=gen)


class _Outputs(torch.nn.Module):
    """A Hugging Face model called with token ids alone, its outputs a
    tuple: the legacy ONNX exporter (ONNX Runtime's column) passes example
    inputs positionally, where BertModel's second parameter is not the ids'
    ("got multiple values for argument 'use_cache'")."""

    def __init__(self, model, keys):
        super().__init__()
        self.model = model
        self.keys = keys

    def forward(self, ids):
        out = self.model(input_ids=ids)
        return tuple(out[k] for k in self.keys)


def bert_base():
    """BERT-base (12 layers, hidden 768, 12 heads, 110M parameters), 128
    token ids per sequence, no padding: its last hidden state and pooled
    output."""
    # transformers imports torchvision, whose operator library does not load
    # with the CPU torch: declare its operators first (see there).
    from fx_mlir.torchvision_models import models as torchvision_models
    torchvision_models()
    import transformers
    torch.manual_seed(0)
    config = transformers.BertConfig()  # the defaults are bert-base-uncased's shape
    model = transformers.BertModel(config).eval()
    return (_Outputs(model, ("last_hidden_state", "pooler_output")).eval(),
            (_ids(int(os.environ.get("FX_BENCH_BATCH", "1")), config.vocab_size, 1),))


def gpt2():
    """GPT-2 (12 layers, hidden 768, 12 heads, 124M parameters), 128 token
    ids per sequence, no key/value cache: its logits over the 50257-token
    vocabulary."""
    from fx_mlir.torchvision_models import models as torchvision_models
    torchvision_models()
    import transformers
    torch.manual_seed(0)
    config = transformers.GPT2Config(use_cache=False)  # the defaults are gpt2's shape
    model = transformers.GPT2LMHeadModel(config).eval()
    return (_Outputs(model, ("logits",)).eval(),
            (_ids(int(os.environ.get("FX_BENCH_BATCH", "1")), config.vocab_size, 2),))
