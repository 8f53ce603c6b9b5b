"""schemathesis hooks for SchemathesisTests (loaded through SCHEMATHESIS_HOOKS).

tus chunks (`PATCH /uploads/{id}`, a `POST /uploads` with its first chunk) are sent as
`application/offset+octet-stream`, a media type schemathesis has no serializer for: its bodies are
raw bytes, generated like `application/octet-stream`'s.
"""

import schemathesis
from hypothesis import strategies as st

schemathesis.openapi.media_type("application/offset+octet-stream", st.binary(max_size=4096))
