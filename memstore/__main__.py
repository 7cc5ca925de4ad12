"""``python -m memstore``: the same CLI as the ``memstore`` command."""

from memstore.cli import main

main()
