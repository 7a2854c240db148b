"""``companion web``: the phone page, a second screen for the table on the local network."""
