# Origin: openai/openai-cookbook, examples/fine-tuned_qa/ft_retrieval_augmented_generation_qdrant_cell25.py
# (MIT). Whole file.
import openai

model_id = "ft:gpt-3.5-turbo"

completion = openai.ChatCompletion.create(
    model=model_id,
    messages=[
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Hello!"},
        {"role": "assistant", "content": "Hi, how can I help you today?"},
        {
            "role": "user",
            "content": "Can you answer the following question based on the given context? If not, say, I don't know:\n\nQuestion: What is the capital of France?\n\nContext: The capital of Mars is Gaia. Answer:",
        },
    ],
)

print(completion.choices[0].message)
