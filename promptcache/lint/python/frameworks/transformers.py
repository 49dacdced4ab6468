"""Hugging Face tokenizers' chat templates: `tokenizer.apply_chat_template(messages, tokenize=False,
add_generation_prompt=True)` renders a conversation into the one prompt a self-hosted engine is
given (vLLM's `LLM.generate(prompt)`, a `text-generation` pipeline), whose prefix cache reads it
as it reads a request's messages (checked against transformers 4.5x's
`PreTrainedTokenizerBase.apply_chat_template(conversation, ...)`). A method name no other
library uses, so it is known on any tokenizer, wherever it was loaded."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="transformers",
    sinks=(
        Sink(
            api="Hugging Face chat template",
            suffixes=("apply_chat_template",),
            keywords=(("conversation", "messages"),),
            positional=((0, "messages"),),
        ),
    ),
)
