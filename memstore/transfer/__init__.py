"""The export's file formats, with no SQL: JSONL lines, Markdown memory files with YAML front
matter, the history as daily logs (LOGFORMAT.md), and the new destination they are written
into. :mod:`memstore.concerns.export` and :mod:`memstore.concerns.memory_import` use them."""
