"""The box simulated in code and in a terminal, and the named-screen walk."""
