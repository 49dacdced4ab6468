"""
FastAPI (and Starlette, whose routing it shares): a route handler's parameters are the incoming
request's data (its path and query parameters, its body model), except what the framework
injects from its own setup (`Depends(...)`: a database session, the settings).
"""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="fastapi",
    data=(
        DataSource(
            what="the incoming request",
            handlers=(
                "*.get",
                "*.post",
                "*.put",
                "*.patch",
                "*.delete",
                "*.websocket",
                "*.api_route",
            ),
        ),
    ),
)
