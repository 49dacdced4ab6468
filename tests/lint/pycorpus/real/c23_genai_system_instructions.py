# Origin: zndrsblurry/desktop-ai-assistant, genai_docs/system_instructions.py (licence not stated in
# the index). Whole file.
from google.genai import types

config = {
    "system_instruction": types.Content(
        parts=[types.Part(text="You are a helpful assistant and answer in a friendly tone.")]
    ),
    "response_modalities": ["TEXT"],
}
