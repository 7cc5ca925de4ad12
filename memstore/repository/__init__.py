"""Data access: textual SQL with bound parameters, one module per table family, returning
frozen dataclasses. Never commits; the service owns each unit of work."""
