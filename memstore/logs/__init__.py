"""The daily Markdown log the assistant keeps, one file per local day (see LOGFORMAT.md)."""
