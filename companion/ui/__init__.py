"""A small 1-bit UI toolkit for the 128×64 OLED: widgets, the name editor and the shared words,
drawn on :mod:`companion.frame`."""
