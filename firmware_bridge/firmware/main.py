"""Dice sensor firmware for a Raspberry Pi Pico (MicroPython): the board shell around dicecore.

Copy this file, dicecore.py and ../faces.py to the Pico (see WIRING.md). Each die holds an
MPU-6050; this file only reads them, keeps time and moves bytes over USB serial. Everything
that decides (faces, rolling, settling, framing) is in dicecore and tested on the host.
"""

import select
import sys
import time

import dicecore
import faces
import machine
import ubinascii

FIRMWARE = "2.0.0"  # protocol v2: CRC-16 lines
SAMPLE_MS = 10         # 100 Hz: a tumbling die is seen within a few samples
HEARTBEAT_MS = 1000
ERROR_EVERY_MS = 5000  # a broken sensor is reported, but not 100 times a second

# Which dice this sensor watches, in order, and where each MPU-6050 answers:
# (I2C bus, TCA9548A channel or None, I2C address 0x68/0x69). Edit for your build.
KINDS = ("yellow", "yellow", "blue", "blue")
DICE = ((0, None, 0x68), (0, None, 0x69), (1, None, 0x68), (1, None, 0x69))
# For Miams (six dice) put a TCA9548A at 0x70 on bus 0, one MPU-6050 per channel:
# KINDS = ("white",) * 5 + ("red",)
# DICE = tuple((0, channel, 0x68) for channel in range(6))

MUX = 0x70
PWR_MGMT_1, CONFIG, ACCEL_CONFIG, ACCEL_XOUT_H = 0x6B, 0x1A, 0x1C, 0x3B
LSB_PER_G = 16384  # at the ±2 g range


def buses():
    """I2C0 on GP4/GP5 and I2C1 on GP6/GP7, 400 kHz."""
    return (machine.I2C(0, sda=machine.Pin(4), scl=machine.Pin(5), freq=400000),
            machine.I2C(1, sda=machine.Pin(6), scl=machine.Pin(7), freq=400000))


def select_channel(bus, channel):
    if channel is not None:
        bus.writeto(MUX, bytes([1 << channel]))


def wake(bus, channel, address):
    select_channel(bus, channel)
    bus.writeto_mem(address, PWR_MGMT_1, b"\x00")    # leave sleep mode
    bus.writeto_mem(address, CONFIG, b"\x03")        # 44 Hz low-pass: table knocks, not tumbles
    bus.writeto_mem(address, ACCEL_CONFIG, b"\x00")  # ±2 g


def read_g(bus, channel, address):
    """Acceleration in g on the three axes."""
    select_channel(bus, channel)
    raw = bus.readfrom_mem(address, ACCEL_XOUT_H, 6)
    out = []
    for i in (0, 2, 4):
        value = (raw[i] << 8) | raw[i + 1]
        out.append((value - 65536 if value > 32767 else value) / LSB_PER_G)
    return out


def main():
    out = sys.stdout.buffer
    i2c = buses()
    sensor_id = ubinascii.hexlify(machine.unique_id()).decode().upper()
    reporter = dicecore.Reporter(sensor_id, FIRMWARE, KINDS, faces.FACES)
    trackers = [dicecore.DieTracker() for _ in DICE]
    failed_at = [None] * len(DICE)
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    start = time.ticks_ms()
    out.write(reporter.hello())
    for index, (bus, channel, address) in enumerate(DICE):
        try:
            wake(i2c[bus], channel, address)
        except OSError:
            out.write(reporter.error("IMU", f"die {index} not found"))
    next_beat = time.ticks_add(start, HEARTBEAT_MS)
    while True:
        now = time.ticks_ms()
        for index, (bus, channel, address) in enumerate(DICE):
            try:
                x, y, z = read_g(i2c[bus], channel, address)
            except OSError:
                last = failed_at[index]
                if last is None or time.ticks_diff(now, last) >= ERROR_EVERY_MS:
                    failed_at[index] = now
                    out.write(reporter.error("IMU", f"die {index} silent"))
                continue
            event = trackers[index].update(time.ticks_diff(now, start), x, y, z)
            if event is not None:
                out.write(reporter.die(index, event))
        pending = b""
        while poller.poll(0):
            pending += sys.stdin.buffer.read(1)
        if pending:
            for reply in reporter.receive(pending):
                out.write(reply)
        if time.ticks_diff(now, next_beat) >= 0:
            next_beat = time.ticks_add(next_beat, HEARTBEAT_MS)
            out.write(reporter.heartbeat(time.ticks_diff(now, start) // 1000))
        time.sleep_ms(max(0, SAMPLE_MS - time.ticks_diff(time.ticks_ms(), now)))


main()
