"""A minimal game used to test the box's own machinery (journal, undo, resume) apart from any
real game's rules: a tally that ACTION raises by one and OK raises by a die roll."""

from __future__ import annotations

from companion.contract.rules import Rules
from companion.contract.spec import CONTRACT, Screens
from companion.frame.canvas import Canvas
from companion.games import GameSpec, RuleError
from companion.ui.widgets import Screen, is_press


def apply(state: int, action: dict) -> int:
    if action["type"] == "add":
        if state >= 1000:
            raise RuleError("The tally is full")
        return state + action["n"]
    if action["type"] == "roll":
        return state + action["value"]
    raise RuleError(f"Unknown action {action['type']}")


class TallyScreen(Screen):
    title = "Tally"
    hint = "◆ +1  OK roll"

    def draw(self, canvas: Canvas) -> None:
        canvas.big(10, str(self.app.session.state))

    def on_button(self, event) -> bool:
        if is_press(event, "ACTION"):
            self.app.dispatch({"type": "add", "n": 1})
            return True
        if is_press(event, "OK"):
            self.app.dispatch({"type": "roll", "value": self.app.rng.randint(1, 6)})
            return True
        return False


class StartScreen(Screen):
    title = "Tally"
    hint = "OK start"

    def draw(self, canvas: Canvas) -> None:
        canvas.paragraph("Start a tally?", 1)

    def on_button(self, event) -> bool:
        if is_press(event, "OK"):
            self.app.games.start(SPEC.key)
            return True
        return False


SPEC = GameSpec(
    contract=CONTRACT,
    key="tally",
    title="Tally",
    rules=Rules(
        initial_state=lambda: 0,
        apply=apply,
        is_finished=lambda state: state >= 1000,
        summary=lambda state: {"tally": state},
        describe=lambda state: f"at {state}",
        describe_action=lambda action, state: f"{action['type']} {action.get('n', action.get('value'))}",
        is_undoable=lambda action: action["type"] != "roll",
    ),
    screens=Screens(new_game=StartScreen, play=TallyScreen),
)
