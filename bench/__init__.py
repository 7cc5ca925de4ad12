"""memstore's benchmarks: the scale run against plain sqlite3 (``python -m bench.run``), the
hostile inputs (``python -m bench.hostile``) and the credential guard (``python -m bench.guard``).

The scale run's steps each have a module (``imports``, ``recall``, ``words``, ``records``,
``remember``, ``context``, ``peak``); what they share is in ``common`` (constants and the raw
side's sqlite3 helpers), ``corpus`` (the data set), ``timing`` and ``report``.
"""
