"""Table Companion: the referee, timer and solo opponent box for three dice games."""

__version__ = "0.1.0"
