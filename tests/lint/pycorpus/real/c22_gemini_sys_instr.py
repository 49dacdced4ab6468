# Origin: GoogleCloudPlatform/python-docs-samples, genai/text_generation/textgen_sys_instr_with_txt.py
# (Apache-2.0; Copyright 2025 Google LLC). Excerpt without the licence header and comments.
def generate_content() -> str:
    from google import genai
    from google.genai.types import GenerateContentConfig, HttpOptions

    client = genai.Client(http_options=HttpOptions(api_version="v1"))
    response = client.models.generate_content(
        model="gemini-2.5-flash-preview-05-20",
        contents="Why is the sky blue?",
        config=GenerateContentConfig(
            system_instruction=[
                "You're a language translator.",
                "Your mission is to translate text in English to French.",
            ]
        ),
    )
    print(response.text)
    return response.text
