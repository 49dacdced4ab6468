"""
Async web servers whose handlers are registered by a call or typed, not decorated: aiohttp
(`app.router.add_post("/chat", handle)`, `web.post(...)` in a route table), Starlette
(`Route("/chat", endpoint)`), the `websockets` server (`serve(handler, ...)`, called with each
connection: what it receives is the client's data). Their request and connection types mark a
handler's request wherever it is (`request: web.Request`). (Decorated routes — aiohttp's
`@routes.post`, Sanic's and Quart's `@app.route` — are the web frameworks' `*.post`/`*.route`.)
"""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="web_servers",
    data=(
        DataSource(
            what="the incoming request",
            types=("Request", "BaseRequest", "WebSocket", "ServerConnection"),
        ),
        DataSource(
            what="the incoming request",
            registrations=(
                "*.add_get",
                "*.add_post",
                "*.add_put",
                "*.add_patch",
                "*.add_delete",
                "*.add_route",
                "aiohttp.web.get",
                "aiohttp.web.post",
                "aiohttp.web.put",
                "aiohttp.web.patch",
                "aiohttp.web.delete",
                "aiohttp.web.route",
            ),
            imported=("aiohttp",),
        ),
        DataSource(
            what="the incoming request",
            registrations=("*.Route", "*.WebSocketRoute", "*.add_websocket_route"),
            imported=("starlette", "fastapi"),
        ),
        DataSource(
            what="the client's connection",
            registrations=(
                "websockets.serve",
                "websockets.server.serve",
                "websockets.asyncio.server.serve",
                "websockets.legacy.server.serve",
            ),
            first_only=True,
            imported=("websockets",),
        ),
    ),
)
