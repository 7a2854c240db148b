"""A small 1-bit UI toolkit for the 128×64 OLED: pixel fonts, the frame, and widgets."""
