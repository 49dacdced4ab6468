"""The rendering side: a template rendered into promptcache layers, split at the tail marker."""

from __future__ import annotations

import warnings
from datetime import datetime, timezone

import jinja2
import pytest

from promptcache import InputError, Layer, Prompt, VolatileContentError, VolatileContentWarning
from promptcache.lint import TAIL_MARKER, render_prompt, render_template

TEMPLATE = (
    "You are a support agent for {{ company }}.\n"
    "{{ manual }}\n"
    "{# promptcache: tail #}\n"
    "Today is {{ now().date() }}. Question: {{ question }}"
)
CONTEXT = {
    "company": "Acme",
    "manual": "Refunds within 30 days.",
    "question": "Where is my order?",
    "now": lambda: datetime(2030, 1, 2, tzinfo=timezone.utc),
}


def test_split_at_the_marker() -> None:
    rendered = render_template(TEMPLATE, CONTEXT)
    assert rendered.stable == "You are a support agent for Acme.\nRefunds within 30 days.\n"
    assert rendered.tail == "\nToday is 2030-01-02. Question: Where is my order?"


def test_render_prompt_layers() -> None:
    prompt = render_prompt(TEMPLATE, CONTEXT)
    assert [block.layer for block in prompt.render()] == [Layer.SYSTEM, Layer.TAIL]
    assert prompt.system[0].text.startswith("You are a support agent for Acme.")
    docs = render_prompt(TEMPLATE, CONTEXT, layer="docs", base=Prompt().add_system("Be brief."))
    assert [block.layer for block in docs.render()] == [Layer.SYSTEM, Layer.DOCS, Layer.TAIL]


def test_same_stable_part_same_prefix_hash() -> None:
    one = render_prompt(TEMPLATE, CONTEXT).render()
    two = render_prompt(TEMPLATE, {**CONTEXT, "question": "Can I return it?"}).render()
    assert one.prefix_hash == two.prefix_hash
    assert one.blocks[-1].hash != two.blocks[-1].hash


def test_static_refusal_of_volatile_call_above_marker() -> None:
    source = "Now {{ now() }}\n{{ manual }}\n{# promptcache: tail #}\n{{ question }}"
    with pytest.raises(VolatileContentError) as info:
        render_template(source, CONTEXT)
    message = str(info.value)
    assert "<template>:1: volatile call `now()` renders above the tail marker (PC101)" in message
    assert TAIL_MARKER in message


def test_static_refusal_of_per_request_variable_even_when_short() -> None:
    # The marker says where the prefix ends: no threshold applies above it.
    with pytest.raises(VolatileContentError, match="per-request variable `question`"):
        render_template("Q: {{ question }}\n{# promptcache: tail #}", CONTEXT)


def test_runtime_refusal_of_a_volatile_value() -> None:
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    source = "Build {{ build }}\n{# promptcache: tail #}\n{{ question }}"
    with pytest.raises(VolatileContentError, match="ISO 8601 timestamp"):
        render_template(source, {**CONTEXT, "build": stamp})


def test_warn_and_ignore_policies() -> None:
    source = "Now {{ now() }}\n{# promptcache: tail #}\n{{ question }}"
    with pytest.warns(VolatileContentWarning, match="above the tail marker"):
        rendered = render_template(source, CONTEXT, volatile="warn")
    assert rendered.stable == "Now 2030-01-02 00:00:00+00:00\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        render_template(source, CONTEXT, volatile="ignore")


def test_without_marker_everything_is_stable() -> None:
    rendered = render_template("Hello {{ company }}.", CONTEXT)
    assert (rendered.stable, rendered.tail) == ("Hello Acme.", "")
    with pytest.raises(VolatileContentError):
        render_template("Hello {{ company }} at {{ now() }}.", CONTEXT)


def test_bad_input() -> None:
    with pytest.raises(InputError, match="volatile must be"):
        render_template("x", volatile="loud")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="appears more than once"):
        render_template("a{# promptcache: tail #}b{# promptcache: tail #}")
    with pytest.raises(InputError, match="rendered more than once"):
        render_template("{% for i in [1, 2] %}{# promptcache: tail #}{% endfor %}")
    with pytest.raises(InputError, match=r"'missing' is undefined"):
        render_template("{{ missing }}")


def test_custom_environment() -> None:
    env = jinja2.Environment(undefined=jinja2.ChainableUndefined)
    rendered = render_template("{{ a.b }}x{# promptcache: tail #}y", env=env)
    assert (rendered.stable, rendered.tail) == ("x", "y")


def test_a_name_the_context_lacks_is_an_input_error_naming_it_and_the_fix() -> None:
    """The docs' own template calls `now()` below the marker; left out, Jinja's UndefinedError
    reached the caller raw. It is an InputError naming the name and how to supply it."""
    source = (
        "You are a support agent for {{ company }}.\n{{ policy_manual }}\n"
        "{# promptcache: tail #}\nToday is {{ now().date() }}. The customer asks: {{ question }}\n"
    )
    context = {"company": "Acme", "policy_manual": "Refunds within 30 days.", "question": "Hi"}
    with pytest.raises(InputError, match=r"'now' is undefined.*context.*env\.globals") as caught:
        render_prompt(source, context)
    assert not isinstance(caught.value, jinja2.UndefinedError)
    with pytest.raises(InputError, match=r"'company' is undefined"):
        render_template(source, {"now": datetime.now, "policy_manual": "x", "question": "Hi"})
