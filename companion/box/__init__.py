"""The box: its loop and the parts it owns (screen stack, game session, panel), and its assembly."""
