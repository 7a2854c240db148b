"""The dice sensor: its line protocol, the serial link, a virtual sensor and reference firmware.

It knows dice and faces, never games: the app turns its events into game actions.
"""
