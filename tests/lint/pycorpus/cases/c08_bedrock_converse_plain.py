# Our reproduction of a clean shape: Bedrock Converse with a static system block and the messages.
import boto3

bedrock = boto3.client("bedrock-runtime")
messages = [{"role": "user", "content": [{"text": "Suggest three names for a bakery."}]}]
response = bedrock.converse(
    modelId="us.anthropic.claude-3-7-sonnet-20250219-v1:0",
    system=[{"text": "You are a branding consultant. Answer with a list."}],
    messages=messages,
    inferenceConfig={"maxTokens": 500, "temperature": 0},
)
print(response["output"]["message"])
