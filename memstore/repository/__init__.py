"""Data access: textual SQL and ORM rows. Never commits; the service owns each unit of work."""
