"""
Azure Functions: a function's `func.HttpRequest` parameter is the incoming request, in the v1
model (`main(req: func.HttpRequest)`) and the v2 one (`@app.route(...)`, whose handlers the
web frameworks' `*.route` already marks); a queue or Service Bus trigger's message is the
work item of this run.
"""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="azure_functions",
    data=(
        DataSource(
            what="the incoming request",
            types=("HttpRequest", "QueueMessage", "ServiceBusMessage", "EventGridEvent"),
            handlers=(
                "*.queue_trigger",
                "*.service_bus_queue_trigger",
                "*.service_bus_topic_trigger",
                "*.event_grid_trigger",
                "*.event_hub_message_trigger",
            ),
            imported=("azure.functions",),
        ),
    ),
)
