"""The benchmark's agent inside the emulated box: runs the host's commands, answers on a port.

It reads one JSON object a line from its port (a virtio-serial port, or a UART named by
``companion_test.port=`` on the kernel's command line): ``{"id": N, "sh": "COMMAND"}`` runs
COMMAND in a shell and answers ``{"id": N, "rc": RC, "out": "...", "err": "..."}`` (with
``"stdin": BASE64`` the command reads those bytes, e.g. a file sent in pieces); with
``"stream": true`` each line of its output is sent at once as ``{"id": N, "line": "..."}``,
then ``{"id": N, "rc": RC}``. At start it says ``{"hello": UPTIME_S}``.

Only in the test image (image/build.sh --test-agent); never in the image people flash.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import threading
import time

VIRTIO_PORT = "/dev/virtio-ports/companion.agent"


def port_path() -> str:
    with open("/proc/cmdline") as f:
        for word in f.read().split():
            if word.startswith("companion_test.port="):
                return "/dev/" + word.split("=", 1)[1]
    return VIRTIO_PORT


class Agent:
    def __init__(self, path: str) -> None:
        for _ in range(600):  # the port's device may come up after this service starts
            if os.path.exists(path):
                break
            time.sleep(0.1)
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        if not path.startswith("/dev/virtio-ports/"):
            subprocess.run(["stty", "-F", path, "raw", "-echo", "115200"], check=False)
        self.lock = threading.Lock()

    def send(self, **fields: object) -> None:
        data = (json.dumps(fields) + "\n").encode()
        with self.lock:
            while data:
                data = data[os.write(self.fd, data):]

    def run(self, request: dict) -> None:
        ident, command = request["id"], request["sh"]
        if request.get("stream"):
            proc = subprocess.Popen(command, shell=True, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
            for line in proc.stdout:
                self.send(id=ident, line=line.rstrip("\n"))
            self.send(id=ident, rc=proc.wait())
            return
        try:
            done = subprocess.run(command, shell=True, capture_output=True,
                                  input=base64.b64decode(request.get("stdin", "")),
                                  timeout=request.get("timeout", 600))
            self.send(id=ident, rc=done.returncode, out=done.stdout.decode(errors="replace"),
                      err=done.stderr.decode(errors="replace"))
        except subprocess.TimeoutExpired as exc:
            self.send(id=ident, rc=-1, out=str(exc.stdout or ""), err="timeout")

    def serve(self) -> None:
        with open("/proc/uptime") as f:
            self.send(hello=float(f.read().split()[0]))
        pending: list[bytes] = []  # the pieces of a line not yet ended (a file can be long)
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except OSError:
                return  # the port went away: systemd starts the agent again
            if not chunk:
                time.sleep(0.05)
                continue
            *ended, rest = chunk.split(b"\n")
            for piece in ended:
                line, pending = b"".join([*pending, piece]), []
                try:
                    request = json.loads(line)
                except ValueError:
                    continue  # noise on the line before the host spoke
                threading.Thread(target=self.run, args=(request,), daemon=True).start()
            pending.append(rest)


if __name__ == "__main__":
    Agent(port_path()).serve()
