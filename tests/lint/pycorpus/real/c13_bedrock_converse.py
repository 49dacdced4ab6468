# Origin: adit-syntax/Content_summarizer, labs/converse/converse_api.py (licence not stated in the
# index). Whole file.
import json

import boto3

session = boto3.Session()
bedrock = session.client(service_name="bedrock-runtime")

message_list = []

initial_message = {"role": "user", "content": [{"text": "How are you today?"}]}

message_list.append(initial_message)

response = bedrock.converse(
    modelId="us.anthropic.claude-3-7-sonnet-20250219-v1:0",
    messages=message_list,
    inferenceConfig={"maxTokens": 2000, "temperature": 0},
)

response_message = response["output"]["message"]
print(json.dumps(response_message, indent=4))
