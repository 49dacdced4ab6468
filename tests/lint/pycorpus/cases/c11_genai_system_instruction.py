# Our reproduction of clean shapes: google-genai system instructions as a list of strings and as a
# Content in a config dict.
from google import genai
from google.genai import types


def translate(text: str) -> str:
    client = genai.Client()
    response = client.models.generate_content(
        model="gemini-2.5-flash",
        contents=text,
        config=types.GenerateContentConfig(
            system_instruction=["You translate English to Dutch.", "Keep the tone informal."]
        ),
    )
    return response.text


live_config = {
    "system_instruction": types.Content(parts=[types.Part(text="You answer in a calm voice.")]),
    "response_modalities": ["TEXT"],
}
