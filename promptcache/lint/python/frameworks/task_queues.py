"""
Task queues (Celery, RQ, Dramatiq, Huey): a task's arguments are the work item one caller
enqueued (a ticket to answer, a document to summarise), different in each run; a bound Celery
task's `self` is the task object. RQ runs whatever function is handed to `enqueue`.
"""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="task_queues",
    data=(
        DataSource(
            what="the task's arguments (one queued job)",
            handlers=("celery.shared_task", "*.task", "dramatiq.actor", "*.actor"),
            imported=("celery", "dramatiq", "huey"),
            given=("self",),
        ),
        DataSource(
            what="the task's arguments (one queued job)",
            registrations=("*.enqueue", "*.enqueue_call", "*.enqueue_in", "*.enqueue_at"),
            imported=("rq",),
        ),
    ),
)
