"""What learners' free text may hold (issue #13).

SQLite stores a NUL byte or a bell where PostgreSQL refuses them (a 422 there,
a "�" in the page here); a display name with a right-to-left override shows
other learners a name written backwards. Both databases now refuse the same
text, before it is stored, with a message code the pages translate.
"""

from __future__ import annotations

import re

from app.services.errors import Invalid

# C0 controls and DEL, except tab, line feed and carriage return.
_CONTROL_CLASS = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f"
# Bidirectional embeddings, overrides and isolates (the "Trojan Source" characters).
_BIDI_CLASS = r"\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[{_CONTROL_CLASS}]")
_BIDI = re.compile(f"[{_BIDI_CLASS}]")

# The same rules as OpenAPI `pattern`s (documentation: the services enforce them,
# with a message code), so schema-valid text is accepted text.
TEXT_SCHEMA = {"pattern": f"^[^{_CONTROL_CLASS}]*$"}
# ...and a comment or report says something: not blank once stripped (422 "invalid").
SAYS_SOMETHING_SCHEMA = {"pattern": f"^[^{_CONTROL_CLASS}]*[^{_CONTROL_CLASS}\\s][^{_CONTROL_CLASS}]*$"}
NAME_SCHEMA = {"pattern": f"^[^{_CONTROL_CLASS}{_BIDI_CLASS}]*$"}


def check_text(text: str, field: str) -> None:
    """Refuse control characters in a comment, a report or its anchor (422 `text_control`)."""
    if _CONTROL.search(text):
        raise Invalid(f"The {field} contains a control character (such as NUL); remove it and try again.",
                      "text_control")


def check_name(name: str) -> None:
    """Refuse control and bidirectional-override characters in a display name (422 `display_name_invalid`)."""
    if _CONTROL.search(name) or _BIDI.search(name):
        raise Invalid("The display name cannot contain control or text-direction characters.",
                      "display_name_invalid")
