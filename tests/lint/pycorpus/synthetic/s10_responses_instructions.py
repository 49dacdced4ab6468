from openai import OpenAI

client = OpenAI()


def respond(user_name, question, previous_id):
    return client.responses.create(
        model="gpt-4.1",
        instructions=f"Address the customer as {user_name}. Follow the returns policy.",  # label: PC502
        input=question,
        previous_response_id=previous_id,
    )
