"""Hugging Face transformers models as factories for utils/fx-model-check.py
and bench/models/sweep.py --corpus hf (`bench/models/hf_corpus.py:NAME`):
small configurations (2 layers, hidden size 128) with random weights,
nothing downloaded, each called with seeded example inputs and returning a
tuple of tensors (its last hidden state or logits). MODELS is the sweep's
corpus: name and kind. The bench's full-size models are hf_zoo.py's."""
import torch

# (name, kind)
MODELS = [
    ("bert", "encoder"), ("bert_padding_mask", "encoder"), ("distilbert", "encoder"),
    ("roberta", "encoder"), ("albert", "encoder"), ("electra", "encoder"),
    ("deberta_v2", "encoder"), ("t5_encoder", "encoder"),
    ("gpt2", "decoder"), ("opt", "decoder"), ("gpt_neo", "decoder"), ("bloom", "decoder"),
    ("llama", "decoder"), ("mistral", "decoder"), ("qwen2", "decoder"), ("phi", "decoder"),
    ("gemma", "decoder"),
    ("vit", "vision"), ("swin", "vision"), ("convnext", "vision"), ("clip_vision", "vision"),
    ("whisper_encoder", "audio"), ("wav2vec2", "audio"),
]

VOCAB, SEQUENCE = 1000, 16
SMALL = dict(vocab_size=VOCAB, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
             intermediate_size=256)


def _transformers():
    # transformers imports torchvision, whose operator library does not load
    # with the CPU torch: declare its operators first.
    from fx_mlir.torchvision_models import models as torchvision_models
    torchvision_models()
    import transformers
    torch.manual_seed(0)
    return transformers


class _Tensors(torch.nn.Module):
    """The model called with keyword inputs, its outputs as a tuple: the
    last hidden state (or the logits) and the pooled output where there is
    one."""

    def __init__(self, model, names):
        super().__init__()
        self.model = model
        self.names = names

    def forward(self, *inputs):
        out = self.model(**dict(zip(self.names, inputs)))
        if hasattr(out, "logits"):
            return (out.logits,)
        pooled = getattr(out, "pooler_output", None)
        return (out.last_hidden_state,) + ((pooled,) if pooled is not None else ())


def _ids(batch=1):
    return torch.randint(0, VOCAB, (batch, SEQUENCE), generator=torch.Generator().manual_seed(1))


def _text(model):
    return _Tensors(model.eval(), ("input_ids",)), (_ids(),)


def bert():
    t = _transformers()
    return _text(t.BertModel(t.BertConfig(**SMALL)))


def bert_padding_mask():
    t = _transformers()
    mask = torch.ones(2, SEQUENCE, dtype=torch.int64)
    mask[1, 10:] = 0
    return (_Tensors(t.BertModel(t.BertConfig(**SMALL)).eval(), ("input_ids", "attention_mask")),
            (_ids(2), mask))


def distilbert():
    t = _transformers()
    return _text(t.DistilBertModel(t.DistilBertConfig(
        vocab_size=VOCAB, dim=128, n_layers=2, n_heads=4, hidden_dim=256)))


def roberta():
    t = _transformers()
    return _text(t.RobertaModel(t.RobertaConfig(**SMALL)))


def albert():
    t = _transformers()
    return _text(t.AlbertModel(t.AlbertConfig(**SMALL, embedding_size=64)))


def electra():
    t = _transformers()
    return _text(t.ElectraModel(t.ElectraConfig(**SMALL, embedding_size=64)))


def deberta_v2():
    t = _transformers()
    return _text(t.DebertaV2Model(t.DebertaV2Config(**SMALL)))


def t5_encoder():
    t = _transformers()
    return _text(t.T5EncoderModel(t.T5Config(
        vocab_size=VOCAB, d_model=128, d_kv=32, d_ff=256, num_layers=2, num_heads=4,
        use_cache=False)))


def gpt2():
    t = _transformers()
    return _text(t.GPT2LMHeadModel(t.GPT2Config(
        vocab_size=VOCAB, n_embd=128, n_layer=2, n_head=4, bos_token_id=0, eos_token_id=0,
        use_cache=False)))


def opt():
    t = _transformers()
    return _text(t.OPTForCausalLM(t.OPTConfig(
        vocab_size=VOCAB, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
        ffn_dim=256, word_embed_proj_dim=128, use_cache=False)))


def gpt_neo():
    t = _transformers()
    return _text(t.GPTNeoForCausalLM(t.GPTNeoConfig(
        vocab_size=VOCAB, hidden_size=128, num_layers=2, num_heads=4,
        attention_types=[[["global", "local"], 1]], window_size=8, use_cache=False)))


def bloom():
    t = _transformers()
    return _text(t.BloomForCausalLM(t.BloomConfig(
        vocab_size=VOCAB, hidden_size=128, n_layer=2, n_head=4, use_cache=False)))


def llama():
    t = _transformers()
    return _text(t.LlamaForCausalLM(t.LlamaConfig(**SMALL, num_key_value_heads=2,
                                                  use_cache=False)))


def mistral():
    t = _transformers()
    return _text(t.MistralForCausalLM(t.MistralConfig(**SMALL, num_key_value_heads=2,
                                                      sliding_window=8, use_cache=False)))


def qwen2():
    t = _transformers()
    return _text(t.Qwen2ForCausalLM(t.Qwen2Config(**SMALL, num_key_value_heads=2,
                                                  use_cache=False)))


def phi():
    t = _transformers()
    return _text(t.PhiForCausalLM(t.PhiConfig(**SMALL, use_cache=False)))


def gemma():
    t = _transformers()
    return _text(t.GemmaForCausalLM(t.GemmaConfig(**SMALL, num_key_value_heads=2, head_dim=32,
                                                  use_cache=False)))


def _image(model, size=64):
    image = torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(1))
    return _Tensors(model.eval(), ("pixel_values",)), (image,)


# A ViT-style encoder of 64x64 images in 16x16 patches.
PATCHES = dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
               intermediate_size=256, image_size=64, patch_size=16)


def vit():
    t = _transformers()
    return _image(t.ViTModel(t.ViTConfig(**PATCHES)))


def swin():
    t = _transformers()
    return _image(t.SwinModel(t.SwinConfig(
        image_size=64, patch_size=4, embed_dim=32, depths=[2, 2], num_heads=[2, 4],
        window_size=4)))


def convnext():
    t = _transformers()
    return _image(t.ConvNextModel(t.ConvNextConfig(
        hidden_sizes=[32, 64], depths=[2, 2], num_stages=2)))


def clip_vision():
    t = _transformers()
    return _image(t.CLIPVisionModel(t.CLIPVisionConfig(**PATCHES)))


def whisper_encoder():
    t = _transformers()
    config = t.WhisperConfig(vocab_size=VOCAB, d_model=128, encoder_layers=2,
                             encoder_attention_heads=4, encoder_ffn_dim=256, decoder_layers=2,
                             decoder_attention_heads=4, decoder_ffn_dim=256, num_mel_bins=80,
                             max_source_positions=64, pad_token_id=0, bos_token_id=1,
                             eos_token_id=2, decoder_start_token_id=1)
    encoder = t.WhisperModel(config).get_encoder()
    features = torch.randn(1, 80, 128, generator=torch.Generator().manual_seed(1))
    return _Tensors(encoder.eval(), ("input_features",)), (features,)


def wav2vec2():
    t = _transformers()
    model = t.Wav2Vec2Model(t.Wav2Vec2Config(
        hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=256,
        conv_dim=(32, 32, 32), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
        num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4))
    audio = torch.randn(1, 4000, generator=torch.Generator().manual_seed(1))
    return _Tensors(model.eval(), ("input_values",)), (audio,)
