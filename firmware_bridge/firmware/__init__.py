"""Reference firmware for a Raspberry Pi Pico: ``dicecore`` (plain Python, also used on the
host) and ``main`` (the MicroPython board shell)."""
