"""
Django and Django REST framework: a view's request (typed `HttpRequest`, or a DRF `Request`)
is the incoming request whatever the parameter is called (`req`); `@api_view` functions are
views. (A view's `request` parameter is per-request by its name already; its URL captures are
matched by the URLconf in another module, and are followed as the names they have.)
"""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="django",
    data=(
        DataSource(
            what="the incoming request",
            types=("HttpRequest", "WSGIRequest", "ASGIRequest"),
        ),
        DataSource(
            what="the incoming request",
            handlers=("rest_framework.decorators.api_view", "*.api_view"),
            imported=("rest_framework",),
        ),
    ),
)
