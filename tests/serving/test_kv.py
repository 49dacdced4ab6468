"""`promptcache kv` and `promptcache.serving.kv`: the seed's numbers, config.json fields, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcache import cli
from promptcache._errors import InputError
from promptcache.serving.kv import GIB, KVShape, offload_cost, shape_from_config

SEED_FLAGS = ["--layers", "80", "--kv-heads", "8", "--head-dim", "128", "--bytes", "2"]
SEED = KVShape(layers=80, kv_heads=8, head_dim=128, bytes_per_element=2)
LLAMA_70B = {
    "num_hidden_layers": 80,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "hidden_size": 8192,
    "torch_dtype": "bfloat16",
}


def test_seed_bytes_per_token() -> None:
    assert SEED.bytes_per_token == 327_680  # 2 · 80 · 8 · 128 · 2
    assert round(SEED.bytes_per_token / 2**20, 2) == 0.31


def test_seed_32k_request_is_ten_gib() -> None:
    assert SEED.request_bytes(32_768) == 10 * GIB


def test_seed_concurrency_in_60_gib() -> None:
    budget = 60 * GIB
    assert SEED.concurrency(budget, 32_768) == 6
    # The seed says 93: it rounds 2,048 tokens' 0.625 GiB up to "0.64 GB" before dividing.
    # Exactly, 60 / 0.625 = 96.
    assert SEED.concurrency(budget, 2_048) == 96


def test_seed_offload_versus_recompute() -> None:
    cost = offload_cost(
        SEED, 10_000, bandwidth_bytes_per_s=25 * GIB, params=70e9, flops_per_s=500e12
    )
    assert round(cost.bytes / GIB, 1) == 3.1
    assert round(cost.transfer_seconds, 2) == 0.12
    assert cost.recompute_seconds == pytest.approx(2.8)
    assert cost.offload_wins is True


def test_cli_json_reproduces_the_seed(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["kv", *SEED_FLAGS, "--budget-gib", "60", "--context", "32768", "--context", "2048"]
    argv += ["--prefix", "10000", "--params", "70B", "--tflops", "500"]
    assert cli.main([*argv, "--share", "4", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bytes_per_token"] == 327_680
    assert [(r["tokens"], r["gib"], r["concurrency"]) for r in out["requests"]] == [
        (32_768, 10.0, 6),
        (2_048, 0.625, 96),
    ]
    prefix = out["prefix"]
    assert round(prefix["transfer_seconds"], 2) == 0.12
    assert prefix["recompute_seconds"] == pytest.approx(2.8)
    assert prefix["share"]["saved_bytes"] == 3 * 10_000 * 327_680


def test_cli_text_names_the_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["kv", *SEED_FLAGS, "--budget-gib", "60"]
    assert cli.main([*argv, "--prefix", "10000", "--params", "70B", "--tflops", "500"]) == 0
    out = capsys.readouterr().out
    assert "327,680 bytes (0.31 MiB)" in out
    assert "32,768 tokens: 10.00 GiB per request; 6 fit in 60 GiB" in out
    assert "0.12 s over 25 GiB/s vs 2.80 s to recompute" in out


def test_config_json_gives_the_same_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA_70B))
    assert cli.main(["kv", str(path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["bytes_per_token"] == 327_680


def test_mla_uses_the_latent_width() -> None:
    deepseek = {
        "num_hidden_layers": 61,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "hidden_size": 7168,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
        "torch_dtype": "bfloat16",
    }
    shape = shape_from_config(deepseek)
    assert shape.bytes_per_token == 61 * (512 + 64) * 2
    assert "MLA" in shape.source


def test_gemma3_layer_types_cap_sliding_layers_at_the_window() -> None:
    config = {
        "text_config": {
            "num_hidden_layers": 6,
            "num_attention_heads": 4,
            "num_key_value_heads": 1,
            "head_dim": 256,
            "sliding_window": 512,
            "layer_types": ["sliding_attention"] * 5 + ["full_attention"],
        },
        "torch_dtype": "bfloat16",
    }
    shape = shape_from_config(config)
    per_layer = 2 * 1 * 256 * 2
    assert shape.bytes_per_token == 6 * per_layer
    assert shape.bytes_per_token_beyond_window == per_layer
    assert shape.request_bytes(4096) == 5 * 512 * per_layer + 4096 * per_layer
    assert shape.request_bytes(100) == 100 * 6 * per_layer
    budget = shape.request_bytes(4096)
    assert shape.tokens_in(budget) == 4096


def test_mistral_style_window_slides_every_layer() -> None:
    config = {**LLAMA_70B, "sliding_window": 4096}
    shape = shape_from_config(config)
    assert shape.sliding_layers == 80
    assert shape.request_bytes(32_768) == shape.request_bytes(4096)
    assert shape.tokens_in(100 * GIB) is None
    assert "every layer assumed sliding" in shape.source
    assert "--sliding-layers" in shape.source


def test_a_shape_read_from_named_fields_carries_no_assumption() -> None:
    assert shape_from_config(LLAMA_70B).source == "config.json"
    named = {**LLAMA_70B, "sliding_window": 4096, "sliding_window_pattern": 4}
    assert shape_from_config(named).source == "config.json"


def test_sliding_window_pattern_keeps_every_pattern_th_layer_global() -> None:
    # Gemma 3 style: of every 4 layers, 3 slide and the 4th attends over the whole context.
    shape = shape_from_config({**LLAMA_70B, "sliding_window": 4096, "sliding_window_pattern": 4})
    assert (shape.sliding_layers, shape.sliding_window) == (60, 4096)


def test_disabled_window_is_full_attention() -> None:
    shape = shape_from_config({**LLAMA_70B, "sliding_window": 4096, "use_sliding_window": False})
    assert shape.sliding_layers == 0


def test_ambiguous_window_is_refused() -> None:
    config = {**LLAMA_70B, "sliding_window": 4096, "max_window_layers": 28}
    with pytest.raises(InputError, match="--sliding-layers"):
        shape_from_config(config)


def test_missing_dtype_asks_for_bytes() -> None:
    config = {k: v for k, v in LLAMA_70B.items() if k != "torch_dtype"}
    with pytest.raises(InputError, match="--bytes"):
        shape_from_config(config)
    assert shape_from_config(config, bytes_per_element=1).bytes_per_token == 163_840


def test_cli_refuses_incomplete_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["kv", "--layers", "80"]) == 2
    err = capsys.readouterr().err
    assert "--kv-heads, --head-dim, --bytes" in err and "Traceback" not in err


def test_cli_refuses_recompute_without_tflops(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["kv", *SEED_FLAGS, "--prefix", "10", "--params", "70B"]) == 2
    assert "--tflops" in capsys.readouterr().err


def test_bad_config_value_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA_70B, "num_key_value_heads": "eight"}))
    assert cli.main(["kv", str(path)]) == 2
    assert "num_key_value_heads" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--bytes", "inf"], "bytes per element"),
        (["--budget-gib", "nan"], "--budget-gib"),
        (["--budget-gib", "inf"], "--budget-gib"),
        (["--prefix", "10", "--bandwidth-gibps", "nan"], "bandwidth"),
        (["--prefix", "10", "--bandwidth-gibps", "inf"], "bandwidth"),
        (["--prefix", "10", "--params", "70B", "--tflops", "nan"], "--tflops"),
        (["--prefix", "10", "--params", "nan", "--tflops", "500"], "--params"),
        (["--prefix", "10", "--params", "70B", "--tflops", "0"], "--tflops"),
    ],
    ids=[
        "bytes-inf",
        "budget-nan",
        "budget-inf",
        "bw-nan",
        "bw-inf",
        "tflops-nan",
        "params-nan",
        "tflops-0",
    ],
)
def test_cli_refuses_a_number_it_cannot_cost(
    flags: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Was an internal error (inf, nan budget), "nan s ... recompute wins", or, for --tflops 0,
    # the recompute comparison silently left out.
    assert cli.main(["kv", *SEED_FLAGS, *flags]) == 2  # a later --bytes wins
    err = capsys.readouterr().err
    assert named in err and "internal error" not in err


@pytest.mark.parametrize("budget", [-1.0, 0.0, float("inf"), float("nan")])
def test_tokens_in_refuses_a_budget_it_cannot_hold_tokens_in(budget: float) -> None:
    # tokens_in(-1) answered -1 tokens (and inf raised a bare OverflowError) where concurrency()
    # refused the same budget.
    with pytest.raises(InputError, match="KV budget"):
        shape_from_config(LLAMA_70B).tokens_in(budget)


def test_an_assumed_shape_is_said_in_text_and_a_zero_flag_overrides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The "every layer assumed sliding" note was only in --format json, and `--sliding-layers 0`
    # (no layer slides) was dropped by an `or`, leaving the assumption in force.
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA_70B, "sliding_window": 4096}))
    assert cli.main(["kv", str(path)]) == 0
    out = capsys.readouterr().out
    assert "every layer assumed sliding" in out and "--sliding-layers" in out
    assert cli.main(["kv", str(path), "--sliding-layers", "0", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["shape"]["sliding_layers"] == 0
    assert "overridden by --sliding-layers" in payload["shape"]["source"]
    assert payload["bytes_per_token"] == 327_680


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (
            ["--sliding-window", "4096", "--sliding-layers", "81"],
            "--sliding-layers must be from 0 to the model's 80 layers (--layers), got 81; pass "
            "how many of the 80 layers use sliding-window attention (0: none, 80: all)",
        ),
        (
            ["--sliding-window", "4096", "--sliding-layers", "-1"],
            "--sliding-layers must be from 0 to the model's 80 layers (--layers), got -1",
        ),
        (["--sliding-layers", "2"], "--sliding-layers 2 needs the window they keep"),
        (["--sliding-window", "0"], "--sliding-window must be a positive whole number, got 0"),
        (["--layers", "0"], "--layers must be a positive whole number, got 0"),
        (["--kv-heads", "-8"], "--kv-heads must be a positive whole number, got -8"),
    ],
    ids=["layers-over", "layers-negative", "no-window", "window-0", "layers-0", "kv-heads"],
)
def test_cli_names_the_shape_flag_the_user_typed(
    flags: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Was KVShape's field name ("sliding_layers must lie between 0 and layers (80), got 81"):
    # no flag a CLI user could find, and no fix.
    assert cli.main(["kv", *SEED_FLAGS, *flags]) == 2  # a later flag wins
    err = capsys.readouterr().err
    assert said in err and "internal error" not in err, err


def test_cli_checks_sliding_layers_against_the_config_files_layers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA_70B, "sliding_window": 4096}))
    assert cli.main(["kv", str(path), "--sliding-layers", "99"]) == 2
    err = capsys.readouterr().err
    assert "--sliding-layers must be from 0 to the model's 80 layers (config.json), got 99" in err
    assert cli.main(["kv", str(path), "--layers", "40", "--sliding-layers", "41"]) == 2
    assert "the model's 40 layers (--layers), got 41" in capsys.readouterr().err
    assert cli.main(["kv", str(path), "--sliding-layers", "80"]) == 0
