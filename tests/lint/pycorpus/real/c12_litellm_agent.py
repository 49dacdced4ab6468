# Origin: CloAI/CommaAgents, comma_agents/agents/external/litellm_agent.py (licence not stated in the
# index). Whole file.
from litellm import completion

from ..base_agent import BaseAgent


class LiteLLMAgent(BaseAgent):
    def __init__(self, name="Lite LLM Agent", model_name="", hooks={}, **kwargs):
        super().__init__(name=name, hooks=hooks, **kwargs)
        self.model_name = model_name

    def _call_llm(self, prompt, **kwargs):
        response = completion(
            model=self.model_name,
            messages=[{"content": prompt, "role": "user"}],
        )
        return response.choices[0].message.content
