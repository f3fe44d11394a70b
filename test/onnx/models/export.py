"""Exports the model zoo: small torch models with random weights, as ONNX.

Run by hand with torch, torchvision, transformers, onnx and onnxscript
installed (none is a dependency of the project or of CI)::

    python test/onnx/models/export.py [--only bert,gpt2] [--out test/onnx/models]

Every model is built from a tiny configuration with a fixed seed, exported
with named dynamic axes by the TorchScript exporter (``dynamo=False``) and,
where it works, by the newer one (``dynamo=True``), and written as
``<name>.onnx`` / ``<name>_dynamo.onnx`` beside ``zoo.json``, the manifest
that ``test/py/test_onnx_zoo.py`` reads: each model's inputs (how to draw
them), the bindings to check and the tolerance. An export that fails is
reported and left out of the manifest.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

OPSET = 17


@dataclass
class Input:
    """One graph input: its axes (names or sizes) and how to draw it.

    ``kind`` is ``float`` (standard normal), ``ids`` (integers in ``[0, high)``),
    ``mask`` (ones, with the tail of every other row zeroed).
    """

    name: str
    axes: list[str | int]
    kind: str = "float"
    high: int = 0

    def example(self, binding: dict[str, int]) -> torch.Tensor:
        shape = [binding[a] if isinstance(a, str) else a for a in self.axes]
        gen = torch.Generator().manual_seed(0)
        if self.kind == "ids":
            return torch.randint(0, self.high, shape, generator=gen)
        if self.kind == "mask":
            return torch.ones(shape, dtype=torch.int64)
        return torch.randn(shape, generator=gen)


@dataclass
class Model:
    """A zoo entry."""

    name: str
    build: Callable[[], nn.Module]
    inputs: list[Input]
    outputs: list[str]
    #: Bindings checked in CI: size 1, an odd size, a larger one.
    bindings: list[dict[str, int]]
    dynamo: bool = True
    torchscript: bool = True
    rtol: float = 1e-4
    atol: float = 1e-5
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class Outputs(nn.Module):
    """Calls a transformers model with keyword inputs and returns plain tensors."""

    def __init__(self, model: nn.Module, names: list[str], keys: list[str]) -> None:
        super().__init__()
        self.model = model
        self.names = names
        self.keys = keys

    def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out = self.model(**dict(zip(self.names, args, strict=True)))
        return tuple(out[k] for k in self.keys)


def _hf(model_cls: Any, config: Any, names: list[str], keys: list[str],
        calibrate: bool = False) -> Callable[[], nn.Module]:
    """A builder of ``model_cls(config)`` returning ``keys``; ``calibrate``: with
    batch-norm statistics from random images (`_calibrated`)."""
    def build() -> nn.Module:
        model = Outputs(model_cls(config), names, keys)
        return _calibrated(model) if calibrate else model

    return build


# -- transformers ---------------------------------------------------------------------


def _text(vocab: int = 96) -> list[Input]:
    return [
        Input("input_ids", ["batch", "seq"], "ids", vocab),
        Input("attention_mask", ["batch", "seq"], "mask"),
    ]


TEXT_BINDINGS = [{"batch": 1, "seq": 7}, {"batch": 3, "seq": 1}, {"batch": 2, "seq": 16}]


def _text_model(name: str, model_cls: Any, config: Any,
                outputs: tuple[str, ...] = ("last_hidden_state",), note: str = "") -> Model:
    """A text model fed ``input_ids`` and ``attention_mask`` at `TEXT_BINDINGS`."""
    return Model(name, _hf(model_cls, config, ["input_ids", "attention_mask"], list(outputs)),
                 _text(), list(outputs), TEXT_BINDINGS, note=note)


def _bert() -> Model:
    from transformers import BertConfig, BertModel

    config = BertConfig(vocab_size=96, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=64, max_position_embeddings=64)
    return _text_model("bert", BertModel, config, ("last_hidden_state", "pooler_output"))


def _distilbert() -> Model:
    from transformers import DistilBertConfig, DistilBertModel

    config = DistilBertConfig(vocab_size=96, dim=32, n_layers=2, n_heads=4, hidden_dim=64,
                              max_position_embeddings=64)
    return _text_model("distilbert", DistilBertModel, config)


def _roberta() -> Model:
    from transformers import RobertaConfig, RobertaModel

    config = RobertaConfig(vocab_size=96, hidden_size=32, num_hidden_layers=2,
                           num_attention_heads=4, intermediate_size=64,
                           max_position_embeddings=70, pad_token_id=1)
    return _text_model("roberta", RobertaModel, config)


def _gpt2() -> Model:
    from transformers import GPT2Config, GPT2Model

    config = GPT2Config(vocab_size=96, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                        use_cache=False)
    return _text_model("gpt2", GPT2Model, config,
                       note="decoder with causal mask and a padding mask")


def _gpt2_lm() -> Model:
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(vocab_size=96, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                        use_cache=False)
    return Model("gpt2_lm", _hf(GPT2LMHeadModel, config, ["input_ids"], ["logits"]),
                 [Input("input_ids", ["batch", "seq"], "ids", 96)], ["logits"], TEXT_BINDINGS,
                 torchscript=False, note="input_ids only: the newer exporter (CumSum, GatherND)")


def _llama() -> Model:
    from transformers import LlamaConfig, LlamaModel

    config = LlamaConfig(vocab_size=96, hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=64, use_cache=False)
    return _text_model("llama", LlamaModel, config,
                       note="rotary embeddings, RMSNorm, grouped-query attention")


def _deberta_v2() -> Model:
    from transformers import DebertaV2Config, DebertaV2Model

    config = DebertaV2Config(vocab_size=96, hidden_size=32, num_hidden_layers=2,
                             num_attention_heads=4, intermediate_size=64,
                             max_position_embeddings=64)
    return _text_model("deberta_v2", DebertaV2Model, config,
                       note="disentangled attention: relative positions gathered per query and key")


def _bloom() -> Model:
    from transformers import BloomConfig, BloomModel

    config = BloomConfig(vocab_size=96, hidden_size=32, n_layer=2, n_head=4, use_cache=False)
    return _text_model("bloom", BloomModel, config,
                       note="ALiBi: attention biases from the mask's cumulative sum")


def _mistral() -> Model:
    from transformers import MistralConfig, MistralModel

    config = MistralConfig(vocab_size=96, hidden_size=32, intermediate_size=64,
                           num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                           max_position_embeddings=64, sliding_window=8, use_cache=False)
    return _text_model("mistral", MistralModel, config,
                       note="sliding-window causal mask, grouped-query attention")


def _t5() -> Model:
    from transformers import T5Config, T5Model

    config = T5Config(vocab_size=96, d_model=32, d_kv=8, d_ff=64, num_layers=2,
                      num_decoder_layers=2, num_heads=4, relative_attention_num_buckets=8,
                      use_cache=False, decoder_start_token_id=0)
    inputs = [
        Input("input_ids", ["batch", "seq"], "ids", 96),
        Input("attention_mask", ["batch", "seq"], "mask"),
        Input("decoder_input_ids", ["batch", "target"], "ids", 96),
    ]
    bindings = [{"batch": 1, "seq": 7, "target": 3}, {"batch": 3, "seq": 1, "target": 1},
                {"batch": 2, "seq": 16, "target": 5}]
    return Model("t5", _hf(T5Model, config, [i.name for i in inputs], ["last_hidden_state"]),
                 inputs, ["last_hidden_state"], bindings, note="encoder-decoder")


def _bart() -> Model:
    from transformers import BartConfig, BartModel

    config = BartConfig(vocab_size=96, d_model=32, encoder_layers=1, decoder_layers=1,
                        encoder_attention_heads=4, decoder_attention_heads=4,
                        encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
                        use_cache=False)
    inputs = [
        Input("input_ids", ["batch", "seq"], "ids", 96),
        Input("attention_mask", ["batch", "seq"], "mask"),
        Input("decoder_input_ids", ["batch", "target"], "ids", 96),
    ]
    bindings = [{"batch": 1, "seq": 7, "target": 3}, {"batch": 3, "seq": 1, "target": 1},
                {"batch": 2, "seq": 16, "target": 5}]
    return Model("bart", _hf(BartModel, config, [i.name for i in inputs], ["last_hidden_state"]),
                 inputs, ["last_hidden_state"], bindings, note="encoder-decoder")


IMAGE_BATCH = [{"batch": 1}, {"batch": 3}, {"batch": 4}]


def _vit() -> Model:
    from transformers import ViTConfig, ViTModel

    config = ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2,
                       num_attention_heads=4, intermediate_size=64, num_channels=3)
    return Model("vit", _hf(ViTModel, config, ["pixel_values"],
                            ["last_hidden_state", "pooler_output"]),
                 [Input("pixel_values", ["batch", 3, 32, 32])],
                 ["last_hidden_state", "pooler_output"], IMAGE_BATCH,
                 note="class token expanded to the batch")


def _swin() -> Model:
    from transformers import SwinConfig, SwinModel

    config = SwinConfig(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1],
                        num_heads=[2, 2], window_size=4)
    return Model("swin", _hf(SwinModel, config, ["pixel_values"], ["last_hidden_state"]),
                 [Input("pixel_values", ["batch", 3, 32, 32])], ["last_hidden_state"],
                 IMAGE_BATCH, dynamo=False,
                 note="shifted windows (roll, window partition), patch merging")


def _segformer() -> Model:
    from transformers import SegformerConfig, SegformerModel

    config = SegformerConfig(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1],
                             hidden_sizes=[8, 16], num_attention_heads=[1, 2],
                             patch_sizes=[7, 3], strides=[4, 2], mlp_ratios=[2, 2])
    return Model("segformer", _hf(SegformerModel, config, ["pixel_values"],
                                  ["last_hidden_state"]),
                 [Input("pixel_values", ["batch", 3, 32, 32])], ["last_hidden_state"],
                 IMAGE_BATCH, note="overlapping patch embeddings, attention over "
                                   "strided-convolution-reduced keys, depthwise mix FFN")


def _mobilevit() -> Model:
    from transformers import MobileViTConfig, MobileViTModel

    # Convolutions drawn at the default scale (0.02) shrink the output to zero.
    config = MobileViTConfig(image_size=64, hidden_sizes=[16, 16, 16],
                             neck_hidden_sizes=[8, 8, 16, 16, 16, 16, 32],
                             num_attention_heads=2, initializer_range=0.3)
    return Model("mobilevit", _hf(MobileViTModel, config, ["pixel_values"],
                                  ["last_hidden_state"]),
                 [Input("pixel_values", ["batch", 3, 64, 64])], ["last_hidden_state"],
                 IMAGE_BATCH, note="inverted residuals, then attention over unfolded patches")


def _levit() -> Model:
    from transformers import LevitConfig, LevitModel

    config = LevitConfig(image_size=64, hidden_sizes=[16, 32, 48], num_attention_heads=[2, 2, 2],
                         depths=[1, 1, 1], key_dim=[8, 8, 8])
    return Model("levit", _hf(LevitModel, config, ["pixel_values"], ["last_hidden_state"],
                              calibrate=True),
                 [Input("pixel_values", ["batch", 3, 64, 64])], ["last_hidden_state"],
                 IMAGE_BATCH, note="convolution stem, attention biases by offset, "
                                   "shrinking attention, batch-normed linear layers")


def _wav2vec2() -> Model:
    from transformers import Wav2Vec2Config, Wav2Vec2Model

    config = Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                            intermediate_size=64, conv_dim=(16, 16, 16), conv_stride=(5, 2, 2),
                            conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
                            num_conv_pos_embedding_groups=4, feat_extract_norm="group",
                            do_stable_layer_norm=False, mask_time_prob=0.0)
    bindings = [{"batch": 1, "samples": 400}, {"batch": 3, "samples": 333},
                {"batch": 2, "samples": 1000}]
    return Model("wav2vec2", _hf(Wav2Vec2Model, config, ["input_values"],
                                 ["last_hidden_state"]),
                 [Input("input_values", ["batch", "samples"])], ["last_hidden_state"], bindings,
                 note="speech encoder: 1-D convolutions, group norm, grouped positional conv")


_SPEECH_BINDINGS = [{"batch": 1, "samples": 400}, {"batch": 3, "samples": 333},
                    {"batch": 2, "samples": 1000}]


def _sew() -> Model:
    from transformers import SEWConfig, SEWModel

    config = SEWConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                       intermediate_size=64, conv_dim=(16, 16, 16), conv_stride=(5, 2, 2),
                       conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
                       num_conv_pos_embedding_groups=4, squeeze_factor=2, mask_time_prob=0.0)
    return Model("sew", _hf(SEWModel, config, ["input_values"], ["last_hidden_state"]),
                 [Input("input_values", ["batch", "samples"])], ["last_hidden_state"],
                 _SPEECH_BINDINGS,
                 note="speech encoder that pools frames and pads the upsampled ones back by "
                      "a width whose sign the provers cannot tell; nested clamps")


def _wavlm() -> Model:
    from transformers import WavLMConfig, WavLMModel

    config = WavLMConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                         intermediate_size=64, conv_dim=(16, 16, 16), conv_stride=(5, 2, 2),
                         conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
                         num_conv_pos_embedding_groups=4, feat_extract_norm="layer",
                         do_stable_layer_norm=True, num_buckets=16, max_bucket_distance=40,
                         mask_time_prob=0.0)
    return Model("wavlm", _hf(WavLMModel, config, ["input_values"], ["last_hidden_state"]),
                 [Input("input_values", ["batch", "samples"])], ["last_hidden_state"],
                 _SPEECH_BINDINGS, dynamo=False,
                 note="relative position buckets; the gated bias tiled by the batch")


def _whisper_encoder() -> Model:
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder

    config = WhisperConfig(vocab_size=96, num_mel_bins=16, d_model=32, encoder_layers=2,
                           encoder_attention_heads=4, encoder_ffn_dim=64,
                           max_source_positions=40, decoder_layers=1,
                           decoder_attention_heads=4, decoder_ffn_dim=64)
    return Model("whisper_encoder", _hf(WhisperEncoder, config, ["input_features"],
                                        ["last_hidden_state"]),
                 [Input("input_features", ["batch", 16, 80])], ["last_hidden_state"],
                 IMAGE_BATCH, note="speech encoder: 1-D convolutions over mel frames")


# -- torchvision ----------------------------------------------------------------------

CNN_BINDINGS = [{"batch": 1, "height": 64, "width": 64}, {"batch": 3, "height": 33, "width": 47},
                {"batch": 2, "height": 96, "width": 80}]


def _image(channels: int = 3) -> list[Input]:
    return [Input("images", ["batch", channels, "height", "width"])]


class _Logits(nn.Module):
    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)


def _calibrated(model: nn.Module, channels: int = 3) -> nn.Module:
    """Batch-norm statistics from random images (random init gives outputs near 0)."""
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(8, channels, 64, 64))
    return model.eval()


def _resnet() -> Model:
    from torchvision.models.resnet import BasicBlock

    class TinyResNet(nn.Module):
        """resnet18's stem, blocks and head at 1/8 of its width, one block per stage."""

        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 8, 7, 2, 3, bias=False), nn.BatchNorm2d(8),
                                      nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
            layers, width = [], 8
            for planes, stride in ((8, 1), (16, 2), (32, 2), (64, 2)):
                down = None
                if stride != 1 or width != planes:
                    down = nn.Sequential(nn.Conv2d(width, planes, 1, stride, bias=False),
                                         nn.BatchNorm2d(planes))
                layers.append(BasicBlock(width, planes, stride, down))
                width = planes
            self.layers = nn.Sequential(*layers)
            self.head = nn.Linear(64, 10)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = self.layers(self.stem(x))
            return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    return Model("resnet", lambda: _calibrated(TinyResNet()), _image(), ["logits"],
                 CNN_BINDINGS, note="torchvision BasicBlock, batch norm, max pool")


def _mobilenet_v3() -> Model:
    from torchvision.models import mobilenet_v3_small

    return Model("mobilenet_v3_small",
                 lambda: _calibrated(mobilenet_v3_small(width_mult=0.5, num_classes=10)),
                 _image(), ["logits"], CNN_BINDINGS, dynamo=False,
                 note="depthwise convolutions, squeeze-excitation, hard-swish")


def _mobilenet_v2() -> Model:
    from torchvision.models import mobilenet_v2

    return Model("mobilenet_v2", lambda: _calibrated(mobilenet_v2(width_mult=0.35, num_classes=10)),
                 _image(), ["logits"], CNN_BINDINGS, dynamo=False,
                 note="inverted residuals, ReLU6")


def _squeezenet() -> Model:
    from torchvision.models import squeezenet1_1

    return Model("squeezenet", lambda: squeezenet1_1(num_classes=10).eval(), _image(),
                 ["logits"], CNN_BINDINGS, dynamo=False,
                 note="ceil-mode max pool, concatenated expands")


def _shufflenet() -> Model:
    from torchvision.models import shufflenet_v2_x0_5

    return Model("shufflenet", lambda: _calibrated(shufflenet_v2_x0_5(num_classes=10)), _image(),
                 ["logits"], CNN_BINDINGS, dynamo=False,
                 note="channel shuffle, split, depthwise")


def _efficientnet() -> Model:
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf

    def build() -> nn.Module:
        setting, last = _efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.25)
        return _calibrated(EfficientNet(setting, 0.2, num_classes=10, last_channel=last))

    return Model("efficientnet", build, _image(), ["logits"], CNN_BINDINGS,
                 note="SiLU, squeeze-excitation, depthwise")


def _convnext() -> Model:
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt

    def build() -> nn.Module:
        setting = [CNBlockConfig(16, 32, 1), CNBlockConfig(32, None, 1)]
        return ConvNeXt(setting, num_classes=10).eval()

    return Model("convnext", build, _image(), ["logits"],
                 [{"batch": 1, "height": 64, "width": 64}, {"batch": 3, "height": 36, "width": 44},
                  {"batch": 2, "height": 96, "width": 80}],
                 note="7x7 depthwise, channels-last layer norm, GELU")


class _UNet(nn.Module):
    """A small encoder-decoder: strided convs down, nearest and bilinear upsampling back."""

    def __init__(self) -> None:
        super().__init__()

        def block(i: int, o: int, stride: int = 1) -> nn.Module:
            return nn.Sequential(nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o),
                                 nn.ReLU())

        self.down1, self.down2, self.down3 = block(3, 8), block(8, 16, 2), block(16, 32, 2)
        self.up2, self.up1 = block(32 + 16, 16), block(16 + 8, 8)
        self.out = nn.Conv2d(8, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.down1(x)
        b = self.down2(a)
        c = self.down3(b)
        c = nn.functional.interpolate(c, size=b.shape[-2:], mode="nearest")
        b = self.up2(torch.cat([c, b], 1))
        b = nn.functional.interpolate(b, size=a.shape[-2:], mode="bilinear", align_corners=False)
        return self.out(self.up1(torch.cat([b, a], 1)))


def _unet() -> Model:
    return Model("unet", lambda: _calibrated(_UNet()), _image(), ["masks"],
                 [{"batch": 1, "height": 64, "width": 64}, {"batch": 3, "height": 33, "width": 47},
                  {"batch": 2, "height": 40, "width": 24}],
                 note="nearest and bilinear Resize to sizes read from shapes")


class _Upsampler(nn.Module):
    """Upsampling by scale factors (Resize with scales) and a transposed convolution."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, 1, 1)
        self.norm = nn.InstanceNorm2d(8, affine=True)
        self.group = nn.GroupNorm(2, 8)
        self.deconv = nn.ConvTranspose2d(8, 4, 4, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.norm(self.conv(x)))
        y = nn.functional.interpolate(y, scale_factor=2.0, mode="nearest")
        y = self.group(nn.functional.avg_pool2d(y, 2))
        y = nn.functional.interpolate(y, scale_factor=2.0, mode="bilinear", align_corners=True)
        return self.deconv(y)


def _upsampler() -> Model:
    return Model("upsampler", lambda: _Upsampler().eval(), _image(), ["images_out"],
                 [{"batch": 1, "height": 16, "width": 16}, {"batch": 3, "height": 9, "width": 13},
                  {"batch": 2, "height": 24, "width": 20}],
                 note="instance and group norm, Resize by scales, transposed convolution")


MODELS: dict[str, Callable[[], Model]] = {
    f.__name__.lstrip("_"): f
    for f in (_bert, _distilbert, _roberta, _gpt2, _gpt2_lm, _llama, _deberta_v2, _bloom,
              _mistral, _t5, _bart, _vit, _swin, _segformer, _mobilevit, _levit, _wav2vec2,
              _sew, _wavlm, _whisper_encoder, _resnet, _mobilenet_v3, _mobilenet_v2,
              _squeezenet, _shufflenet, _efficientnet, _convnext, _unet, _upsampler)
}


def _export(model: Model, module: nn.Module, path: Path, dynamo: bool) -> None:
    example = tuple(i.example(model.bindings[-1]) for i in model.inputs)
    names = [i.name for i in model.inputs]
    if dynamo:
        dims = {
            i.name: {a: torch.export.Dim(str(n), min=1, max=4096)
                     for a, n in enumerate(i.axes) if isinstance(n, str)}
            for i in model.inputs
        }
        shared: dict[str, Any] = {}
        for spec in dims.values():
            for a, d in spec.items():
                spec[a] = shared.setdefault(d.__name__, d)
        shapes: tuple[Any, ...] = tuple(dims[n] for n in names)
        if isinstance(module, Outputs):  # forward(*args): one tuple of inputs
            shapes = (shapes,)
        program = torch.onnx.export(module, example, dynamo=True, input_names=names,
                                    output_names=model.outputs,
                                    dynamic_shapes=shapes,
                                    optimize=True, verbose=False)
        program.save(str(path))
    else:
        axes = {i.name: {a: n for a, n in enumerate(i.axes) if isinstance(n, str)}
                for i in model.inputs}
        torch.onnx.export(module, example, str(path), dynamo=False, opset_version=OPSET,
                          input_names=names, output_names=model.outputs, dynamic_axes=axes,
                          do_constant_folding=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated model names")
    parser.add_argument("--out", default=str(Path(__file__).parent))
    parser.add_argument("--limit-mb", type=float, default=2.0, help="skip larger files")
    args = parser.parse_args(argv)
    out = Path(args.out)
    manifest_path = out / "zoo.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    wanted = [n for n in args.only.split(",") if n] or list(MODELS)
    failures = 0
    for key in wanted:
        torch.manual_seed(0)
        model = MODELS[key]()
        module = model.build().eval()
        for dynamo in (False, True):
            if not (model.dynamo if dynamo else model.torchscript):
                continue
            name = model.name + ("_dynamo" if dynamo and model.torchscript else "")
            path = out / f"{name}.onnx"
            try:
                torch.manual_seed(0)
                _export(model, module, path, dynamo)
            except Exception:
                failures += 1
                print(f"== {name}: export failed", file=sys.stderr)
                traceback.print_exc(limit=3)
                manifest.pop(name, None)
                continue
            size = path.stat().st_size / 1e6
            if size > args.limit_mb:
                print(f"== {name}: {size:.1f} MB is over the limit; removed", file=sys.stderr)
                path.unlink()
                manifest.pop(name, None)
                continue
            manifest[name] = {
                "file": path.name,
                "exporter": "dynamo" if dynamo else "torchscript",
                "inputs": [{"name": i.name, "axes": i.axes, "kind": i.kind, "high": i.high}
                           for i in model.inputs],
                "outputs": model.outputs,
                "bindings": model.bindings,
                "rtol": model.rtol,
                "atol": model.atol,
                "note": model.note,
            }
            print(f"== {name}: {size:.2f} MB")
    manifest_path.write_text(json.dumps(dict(sorted(manifest.items())), indent=1) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
