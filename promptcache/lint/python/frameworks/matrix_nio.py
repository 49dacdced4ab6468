"""
matrix-nio (a Matrix client library): `await client.room_messages(room_id, start, limit=n)`
pages back from `start` (the sync's newest token) through a room's newest n events, 10 when no
limit is given (`AsyncClient.room_messages(room_id, start, end=None, direction=back, limit=10)`,
the Matrix `/rooms/{roomId}/messages` endpoint, whose `dir` is backwards by default). Checked
against the Matrix client-server API's message pagination spec and clients of the same endpoint
(ruma's `get_message_events`, the R `mx_messages`). A `direction=` given is taken as a forward
read from a fixed token (backwards is the default, seldom written out): no window, by keyword
or as the fourth argument.
"""

from __future__ import annotations

from .._knowledge import Framework, HistoryRead

FRAMEWORK = Framework(
    name="matrix_nio",
    history_reads=(
        HistoryRead(
            methods=("room_messages",),
            imported=("nio",),
            default=10,
            position=4,
            anchors=("direction",),
            anchor_positions=(3,),
        ),
    ),
)
