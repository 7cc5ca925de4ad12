"""``python -m memstore``: the same CLI as the ``memstore`` command."""

from memstore.adapters.cli import main

main()
