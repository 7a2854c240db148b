"""READY on trial only with a journal the new version can write (issue 36: "READY only once
the journal is writable by the service and its schema is one the running version knows")."""

from __future__ import annotations

import socket
import sqlite3

from companion.cli import main
from companion.commands import run
from companion.journal import schema
from companion.journal.journal import Journal


def test_on_trial_a_journal_it_cannot_write_is_no_ready_and_the_update_goes_back(
        tmp_path, monkeypatch, capsys):
    state = tmp_path / "state"
    journal, _ = Journal.open(state)
    journal.close()
    with sqlite3.connect(state / "journal.db") as conn:  # a newer version's schema
        conn.execute(f"PRAGMA user_version = {schema.VERSION + 1}")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(tmp_path / "notify"))
    listener.setblocking(False)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    monkeypatch.setattr(run, "on_trial", lambda: True)
    try:
        assert main(["run", "--sim", "--state-dir", str(state)]) == 1
        said = capsys.readouterr().err
        assert "companion: not READY on trial: the journal cannot be written" in said
        sent = []
        while True:
            try:
                sent.append(listener.recv(4096))
            except BlockingIOError:
                break
        assert not any(b"READY=1" in datagram for datagram in sent)
    finally:
        listener.close()
