"""The game journal: the writer, its SQLite files, schema and start-up check."""
