"""Hardware ports and their adapters: gpiozero buttons and buzzer, luma.oled display, clocks.

`companion` depends only on the ports in :mod:`hardware.ports` and the bundle in
:mod:`hardware.bundle`; this package imports nothing from `companion`. :mod:`hardware.device` builds
the real adapters and :mod:`hardware.sim` the simulated ones from the same libraries' test devices.
"""
