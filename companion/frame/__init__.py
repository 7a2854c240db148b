"""The 128×64 frame a screen draws in (:mod:`.canvas`) and its pixel fonts (:mod:`.font`):
below the contract, whose ``Screen.draw`` is handed a :class:`~.canvas.Canvas`."""
