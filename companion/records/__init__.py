"""The records kept from the journal: history, summaries, stats, exports and the roster."""
