"""A round of Makan Mania played on the simulated box by button presses, with undo (long BACK)."""

from __future__ import annotations

from companion.games.makan_mania import rules
from companion.simulator.walk import run_steps


def state(box) -> rules.State:
    return box.app.play.session.state


def press(box, *buttons: str) -> None:
    run_steps(box, buttons)


def test_a_round_by_buttons_with_undo(box):
    """Setup, round start, Rush end, jumps, the Queue and the scoreboard, all by presses."""
    press(box, "game:makan", "OK")                       # quick setup: 4 players, trays in order
    s = state(box)
    assert (s.phase, len(s.players), s.round) == ("reveal", 4, 1)
    assert "Start" in box.screen.title

    # "Reveal 8 Food + 4 Drinks", then the drinks by hand: Cola, Bandung, Milo Dino, Kopi O and
    # Cai's private Teh O.
    press(box, "OK", *["DOWN"] * 7, "OK", "DOWN", "DOWN", "OK", *["DOWN"] * 4, "OK", "OK", "DOWN", "OK")
    s = state(box)
    assert [c.drink for c in s.row] == ["cola", "bandung", "milo_dino", "kopi_o", "teh_o"]
    assert s.phase == "rush"

    # Ana sits first at Table 1 with 2 dice; undo it with a long BACK, then seat her again.
    press(box, "OK", "OK", "OK", "UP", "UP", "OK")
    assert (state(box).players[0].table, state(box).players[0].dice) == (1, 2)
    box.press("BACK", long=True)
    assert state(box).players[0].table is None and box.screen is box.app.stack.game_root
    press(box, "OK", "OK", "OK", "UP", "UP", "OK")
    # Ben: Table 2 with 1 die; Cai: Table 3; Dee is last and takes Table 88 with 3 dice.
    press(box, "OK", "OK", "OK", "UP", "OK")
    press(box, "OK", "OK", "OK", "OK")
    press(box, "OK", "UP", "UP", "UP", "OK")
    s = state(box)
    assert [p.table for p in s.players] == [1, 2, 3, 88] and s.phase == "jumps"

    # Ana (red) stays; Ben (black) jumps to Table 1 and Ana says tch (OK ticks her, then Done).
    press(box, "ACTION", "OK", "OK", "DOWN", "OK")
    assert box.screen.lines == ["Ana → 2, Ben → 1", "Ana takes 1 coin"]
    press(box, "OK")
    s = state(box)
    assert [p.table for p in s.players] == [2, 1, 3, 88]
    assert s.phase == "queue" and rules.current(s) == 1
    assert s.players[0].coins == 1 and s.players[1].coins == 1    # tch, and Table 1's coin

    # Ben's turn opens on what to do; ▼ shows the drinks. He cannot afford the Cola (2 dice,
    # he has 1): refused, nothing changes; the reason waits for OK.
    press(box, "DOWN")
    before = state(box)
    press(box, "OK", "+5")
    assert box.beeps()[-1] == "error" and state(box) is before
    assert box.screen.lines == ["Cola", "needs 2 dice, has 1"]
    # He buys Bandung with his die (two ways to pay: the box asks), then next player.
    press(box, "OK", "DOWN", "OK", "OK")
    assert state(box).players[1].drinks == ("bandung",) and state(box).players[1].dice == 0
    press(box, "ACTION")
    # Ana on Table 2: Cola costs 2 dice less the 1-die discount (OK opens the drinks, OK buys).
    press(box, "OK", "OK")
    assert state(box).players[0].drinks == ("cola",) and state(box).players[0].dice == 1
    press(box, "ACTION")
    assert state(box).players[0].coins == 2                      # 1 unspent die -> 1 coin
    assert box.screen.lines == ["Ana:", "1 unspent die,", "take 1 coin from pile"]
    press(box, "OK", "DOWN", "DOWN", "DOWN", "OK")                # Cai's private Teh O, 1 coin
    assert state(box).players[2].drinks == ("teh_o",)
    press(box, "ACTION", "+1", "ACTION", "OK")                    # Cai, then Dee (doubled 88)
    s = state(box)
    assert (s.phase, s.round, s.pot) == ("reveal", 2, 2)
    assert box.screen.title == "Makan · After R1"

    # Undo the last "next player": back to Dee's turn; then finish the round again.
    box.press("BACK", long=True)
    assert state(box).phase == "queue" and rules.current(state(box)) == 3
    press(box, "+1", "ACTION", "OK", "+3")
    assert box.screen.title == "Makan · After R1"
    press(box, "OK")
    assert "R2 ·" in box.screen.title and state(box).players[3].bonus == 2


def test_virtual_deal_is_drawn_by_the_box_and_not_undone(box):
    """Drinks dealt from the box's deck come from app.table.rng, are recorded in the action, and a
    long BACK does not take the deal back (chance is not undoable)."""
    press(box, "game:makan", "menu:Drinks", "menu:Start")
    assert state(box).deal
    press(box, "OK")
    s = state(box)
    assert s.phase == "rush" and len(s.row) == 5 and sum(s.deck) == 36 - 5
    last = box.app.play.session.actions[-1]
    assert last["type"] == "deal" and last["drinks"] == [c.drink for c in s.row[:4]]
    box.press("BACK", long=True)
    assert state(box) is s and box.beeps()[-1] == "error"


def undo_restores(box, undone: str, *buttons: str) -> None:
    """Press ``buttons`` (one action), check it was taken, hold BACK, check it is gone and the
    toast says who did what ("Undone: " + ``undone``); redo."""
    before, count = state(box), len(box.app.play.session.actions)
    press(box, *buttons)
    assert len(box.app.play.session.actions) == count + 1, buttons
    box.press("BACK", long=True)
    assert state(box) == before and len(box.app.play.session.actions) == count
    assert " ".join(box.app.stack.toast_lines) == f"Undone: {undone}"
    assert box.screen is box.app.stack.game_root
    press(box, "+3", *buttons)
    assert len(box.app.play.session.actions) == count + 1


def test_long_back_undoes_every_kind_of_step(box):
    """Reveal, seat, jump, buy, next player and score: each is taken back by a long BACK,
    and the toast names the player."""
    press(box, "game:makan", "OK")
    undo_restores(box, "drinks entered", "OK", "OK", "OK", "OK", "OK", "OK")  # all Kopi O
    undo_restores(box, "Ana at Table 1", "OK", "OK", "OK", "UP", "UP", "OK")
    press(box, "OK", "OK", "OK", "UP", "OK", "OK", "OK", "OK", "OK", "OK", "UP", "OK")
    undo_restores(box, "Ana's jump to 88", "OK")
    press(box, "OK")   # closes "Ana → 88, Ben → 1 ..."
    undo_restores(box, "Ben bought Kopi O", "OK", "OK")
    undo_restores(box, "end of Ben's turn", "ACTION")
    press(box, "OK")   # closes "Ben: 1 unspent die, take 1 coin from pile"
    # Fast-forward to the final scoring through the app, then score Ana by buttons.
    app = box.app
    while state(box).phase != "scoring":
        s = state(box)
        if s.phase == "reveal":
            app.table.dispatch({"type": "reveal", "drinks": ["cola"] * 4, "private": "cola"})
        elif s.phase == "rush":
            app.table.dispatch({"type": "seat", "player": rules.unseated(s)[0], "dice": 0,
                          "table": rules.free_tables(s)[0]})
        elif s.phase == "jumps":
            app.table.dispatch({"type": "jump", "go": False})
        else:
            app.table.dispatch({"type": "end_turn"})
    app.stack.game_root.on_state_changed()
    undo_restores(box, "Ana's score", "OK", "UP", "UP", "UP", "OK")    # 3 food points
    assert state(box).players[0].score is not None


def test_house_rules_from_config_are_fixed_in_the_setup_action(tmp_path):
    """[games.makan] settings (docs/rulings.md) go into the setup action, so a saved game
    replays with the readings it was played with."""
    from companion.games import box_config as config
    from companion.simulator.simbox import SimBox

    cfg = config.parse({"games": {"makan": {"push": "swap", "coin_supply": 0}}})
    sim = SimBox(tmp_path / "state", cfg=cfg)
    try:
        press(sim, "game:makan", "OK")
        first = sim.app.play.session.actions[0]
        assert first["options"]["push"] == "swap" and first["options"]["coin_supply"] == 0
        assert state(sim).options.push == "swap"
    finally:
        sim.close()


def test_sub_screens_name_the_game_and_round(box):
    """UX: the title bar says where we are, also on the questions a step asks."""
    press(box, "game:makan", "OK", "OK")
    assert box.app.stack.screens[-1].title == "Makan R1 · Drinks"
    press(box, "OK", "OK", "OK", "OK", "OK")            # four drinks and the private one
    press(box, "OK")
    assert box.app.stack.screens[-1].title == "Makan R1 · Rush"
    press(box, "OK")
    assert box.app.stack.screens[-1].title == "Makan R1 · Seat"


def test_config_fields_are_the_rules_options():
    """[games.makan] offers exactly the readings rules.Options accepts, with its defaults."""
    from companion.games.makan_mania import CONFIG

    defaults = rules.Options()
    for key, choices in rules.Options.CHOICES.items():
        assert CONFIG[key].default == getattr(defaults, key)
        assert all(CONFIG[key].check(c) is None for c in choices)
        assert CONFIG[key].check("other") is not None
    assert CONFIG["coin_supply"].check(rules.MAX_COIN_SUPPLY + 1) is not None


def test_undoing_the_setup_leaves_no_game_behind(box):
    """Issue 24, item 11: hold BACK right after the setup takes the whole game back: no
    "round 0" game to resume, no dropped game in history, nobody seated in it; the table is at
    Makan's setup again, with its choices, and a new start journals a new game."""
    from companion.games.makan_mania.setup_screen import SetupScreen

    press(box, "game:makan", "OK")
    assert state(box).phase == "reveal"
    box.press("BACK", long=True)
    app = box.app
    assert app.play.session is None and isinstance(box.screen, SetupScreen)
    assert " ".join(app.stack.toast_lines).startswith("Undone: ")
    assert app.play.saved_games() == [] and app.play.journal.history() == []
    assert app.play.journal.read("SELECT COUNT(*) FROM game_players") == [(0,)]
    assert app.play.journal.roster()[:2] == ["Ana", "Ben"]      # the names stay offered
    press(box, "OK")
    assert state(box).phase == "reveal" and len(app.play.journal.history()) == 1
