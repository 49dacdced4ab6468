# Our reproduction: a get_system_prompt() helper that fills {current_time} of a module constant.
DEFAULT_PROMPT = """You are the assistant of a note-taking app.
Current time: {current_time}

Use the tools to search and edit notes. Explain a change before making it, and ask before
deleting anything."""


def get_system_prompt(custom: str = "") -> str:
    from datetime import datetime

    current_time = datetime.now().strftime("%Y-%m-%d %H:%M:%S")  # label: PC501
    prompt = custom or DEFAULT_PROMPT
    if "{current_time}" in prompt:
        return prompt.format(current_time=current_time)
    return f"{prompt}\n\nCurrent time: {current_time}"
