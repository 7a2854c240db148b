"""In the emulated box, inside the test's station namespace: one DHCP exchange on IFACE
(DISCOVER, OFFER, REQUEST, ACK) with whatever server answers there; prints
``{"address": ..., "server": ...}`` (or ``{"error": ...}``). The image has no DHCP client
of its own outside systemd-networkd, which does not run in the test's namespace.

    python dhcp_probe.py IFACE
"""

from __future__ import annotations

import json
import random
import socket
import struct
import sys
import time

MAGIC = bytes((99, 130, 83, 99))
DISCOVER, OFFER, REQUEST, ACK = 1, 2, 3, 5
WAIT_S = 60


def packet(kind: int, xid: int, hardware: bytes, extra: bytes = b"") -> bytes:
    header = struct.pack("!BBBBIHH4s4s4s4s16s64s128s", 1, 1, 6, 0, xid, 0, 0x8000, bytes(4),
                         bytes(4), bytes(4), bytes(4), hardware.ljust(16, b"\0"), b"", b"")
    return header + MAGIC + bytes((53, 1, kind)) + extra + bytes((55, 2, 1, 3, 255))


def options(data: bytes) -> dict[int, bytes]:
    found, at = {}, 240
    while at < len(data) and data[at] != 255:
        if data[at] == 0:
            at += 1
            continue
        code, length = data[at], data[at + 1]
        found[code] = data[at + 2:at + 2 + length]
        at += 2 + length
    return found


def answer(sock: socket.socket, xid: int, kind: int) -> tuple[str, dict[int, bytes]] | None:
    deadline = time.monotonic() + WAIT_S
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            data = sock.recv(2048)
        except TimeoutError:
            return None
        if len(data) > 240 and struct.unpack_from("!I", data, 4)[0] == xid:
            said = options(data)
            if said.get(53) == bytes((kind,)):
                return socket.inet_ntoa(data[16:20]), said
    return None


def main() -> int:
    iface = sys.argv[1]
    with open(f"/sys/class/net/{iface}/address") as address:
        hardware = bytes.fromhex(address.read().strip().replace(":", ""))
    xid = random.getrandbits(32)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, iface.encode())
    sock.bind(("", 68))
    sock.sendto(packet(DISCOVER, xid, hardware), ("255.255.255.255", 67))
    offered = answer(sock, xid, OFFER)
    if offered is None:
        print(json.dumps({"error": "no offer"}))
        return 1
    address, said = offered
    server = said.get(54, bytes(4))
    sock.sendto(packet(REQUEST, xid, hardware, bytes((50, 4)) + socket.inet_aton(address)
                       + bytes((54, 4)) + server), ("255.255.255.255", 67))
    acked = answer(sock, xid, ACK)
    if acked is None:
        print(json.dumps({"error": f"{address} offered, not acknowledged"}))
        return 1
    print(json.dumps({"address": acked[0], "server": socket.inet_ntoa(server)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
