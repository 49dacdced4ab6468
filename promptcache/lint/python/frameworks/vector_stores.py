"""
Vector-store and memory clients (Chroma, Pinecone, Qdrant, Weaviate, mem0 and the like): what a
search returns was retrieved for this request's query.

These clients share their method names and are called through objects the analysis cannot type
(`collection.query(query_texts=[q])`, `index.search(q)`), so they are told by method name, and
only when the query varies: a search for a constant returns the same every time. A compiled
regex's `search` is not one of them.
"""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="vector-stores",
    data=(
        DataSource(
            what="documents retrieved for this request",
            methods=("search", "asearch", "query_points", "hybrid_search", "near_text"),
            varying=True,
        ),
    ),
)
