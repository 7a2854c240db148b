"""What the loop takes from the buttons and the dice sensor.

:class:`PressDecoder` turns pin edges into presses (:class:`ButtonEvent`): short press, long
press, auto-repeat and debounce are decided here from edge timestamps and the injected clock
rather than on gpiozero's ``when_held`` thread, so they are testable without sleeping and the
loop stays the only owner of state. :class:`SensorStatus` is what the sensor's events told.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hardware.buttons import PinEdge

REPEATING = frozenset({"UP", "DOWN"})


@dataclass(frozen=True)
class ButtonEvent:
    """A decoded press. ``kind`` is ``short``, ``long`` or ``repeat``.

    UP and DOWN report ``short`` the moment they go down, then ``repeat`` while held;
    OK, BACK and ACTION report ``short`` on release or ``long`` once held long enough.
    """

    button: str
    kind: str


@dataclass(frozen=True)
class PressTiming:
    long_press_s: float = 0.8
    debounce_s: float = 0.03
    repeat_delay_s: float = 0.45
    repeat_interval_s: float = 0.12
    fast_after_s: float = 1.5
    fast_interval_s: float = 0.04


@dataclass
class _Held:
    since: float
    long_fired: bool = False
    next_repeat: float | None = None


@dataclass
class PressDecoder:
    """Pure state machine from :class:`PinEdge` to :class:`ButtonEvent`."""

    timing: PressTiming = field(default_factory=PressTiming)
    _held: dict[str, _Held] = field(default_factory=dict)
    _last_edge: dict[str, float] = field(default_factory=dict)
    # The latest raw level of a button whose edge fell inside the debounce window: once the
    # window has passed, poll() settles the button to it (a 20 ms tap is still a press).
    _unsettled: dict[str, PinEdge] = field(default_factory=dict)

    def feed(self, edge: PinEdge) -> list[ButtonEvent]:
        """Take one edge; return the presses it completes."""
        last = self._last_edge.get(edge.button)
        if last is not None and edge.at - last < self.timing.debounce_s:
            self._unsettled[edge.button] = edge  # contact bounce, or a very quick tap
            return []
        self._unsettled.pop(edge.button, None)
        return self._change(edge)

    def _change(self, edge: PinEdge) -> list[ButtonEvent]:
        held = self._held.get(edge.button)
        if edge.pressed == (held is not None):
            return []  # a repeated level (a lost edge): nothing changed
        self._last_edge[edge.button] = edge.at
        if edge.pressed:
            state = _Held(since=edge.at)
            self._held[edge.button] = state
            if edge.button in REPEATING:
                state.next_repeat = edge.at + self.timing.repeat_delay_s
                return [ButtonEvent(edge.button, "short")]
            return []
        released = self._held.pop(edge.button)
        if edge.button in REPEATING or released.long_fired:
            return []
        return [ButtonEvent(edge.button, "short")]

    def poll(self, now: float) -> list[ButtonEvent]:
        """Return the presses that are due at ``now``: long presses, repeats, settled taps.

        A stalled loop gets at most one repeat per button, never a burst.
        """
        events = []
        for name, edge in list(self._unsettled.items()):
            if now - self._last_edge[name] >= self.timing.debounce_s:
                del self._unsettled[name]
                events += self._change(PinEdge(name, edge.pressed, now))
        for name, state in self._held.items():
            if name in REPEATING:
                if state.next_repeat is not None and now >= state.next_repeat:
                    events.append(ButtonEvent(name, "repeat"))
                    fast = now - state.since >= self.timing.fast_after_s
                    step = self.timing.fast_interval_s if fast else self.timing.repeat_interval_s
                    state.next_repeat = max(state.next_repeat, now) + step
            elif not state.long_fired and now - state.since >= self.timing.long_press_s:
                state.long_fired = True
                events.append(ButtonEvent(name, "long"))
        return events

    def next_deadline(self) -> float | None:
        """When :meth:`poll` next has something to say, or None while nothing is pending."""
        deadlines = [self._last_edge[name] + self.timing.debounce_s for name in self._unsettled]
        for name, state in self._held.items():
            if name in REPEATING:
                if state.next_repeat is not None:
                    deadlines.append(state.next_repeat)
            elif not state.long_fired:
                deadlines.append(state.since + self.timing.long_press_s)
        return min(deadlines, default=None)


@dataclass
class SensorStatus:
    """What the settings screen tells about the dice sensor; kept up to date by its events."""

    configured: bool = False
    online: bool = False
    sensor_id: str = ""
    firmware: str = ""
    kinds: tuple[str, ...] = ()
    last_problem: str = ""
    counters: dict[str, int] = field(default_factory=dict)
    faces: tuple[str | None, ...] = ()  # the last settled set, in die order
    battery: tuple[int | None, ...] = ()  # smart dice's charge in percent, in die order
