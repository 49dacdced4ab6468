import json
import time

import boto3

runtime = boto3.client("bedrock-runtime")


def invoke(question):
    body = {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 512,
        "system": f"Request time {time.time()}. You are a claims assistant.",  # label: PC501
        "messages": [{"role": "user", "content": question}],
    }
    return runtime.invoke_model(modelId="anthropic.claude-3-5-sonnet", body=json.dumps(body))
