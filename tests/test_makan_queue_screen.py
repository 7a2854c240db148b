"""Makan Mania's play screens at the table: a coin never looks like a die, the Queue shows the
turn before the drinks, counts read as English, and nobody gets a tch coin they did not claim."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.commands.screenshot import render
from companion.frame.font import ICONS, SMALL, BitmapFont
from companion.games.makan_mania import SPEC, rules
from companion.games.makan_mania.data import DRINKS_FILE, deck_problem, load_drinks
from companion.simulator.walk import run_steps

WALK = {name: ("makan-" + name, steps) for name, steps in SPEC.screens.walk.items()}


@pytest.fixture
def walked():
    """Open a fresh box at one of Makan's named screens; closed after the test."""
    boxes = []

    def open_at(name: str, *more: str):
        screen, steps = WALK[name]
        box = render(screen, (*steps, *more))
        boxes.append(box)
        return box

    yield open_at
    for box in boxes:
        box.close()


def texts(box, monkeypatch) -> list[str]:
    """Every text drawn for the box's current frame."""
    drawn: list[str] = []
    draw = BitmapFont.draw

    def spy(self, image, xy, text, fill=255):
        drawn.append(text)
        return draw(self, image, xy, text, fill)

    with monkeypatch.context() as patch:
        patch.setattr(BitmapFont, "draw", spy)
        box.app.panel.render()
    return drawn


# ----- the coin ----------------------------------------------------------------------------

def _regions(cells: set[tuple[int, int]]) -> int:
    """How many 4-connected pieces ``cells`` form."""
    left, pieces = set(cells), 0
    while left:
        pieces += 1
        todo = [left.pop()]
        while todo:
            x, y = todo.pop()
            for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if near in left:
                    left.remove(near)
                    todo.append(near)
    return pieces


def test_the_coin_is_round_and_solid_never_a_die_face_with_pips():
    """UX: "A coin and a die never look alike (round coin, square die)". The coin glyph is as
    tall as the letters, as wide as tall, with cut corners, and its only gap is one slot: a die
    face shows several separate pips."""
    rows = ICONS["¤"]
    ink = {(x, y) for y, row in enumerate(rows) for x, cell in enumerate(row) if cell == "#"}
    width, height = max(x for x, _ in ink) + 1, max(y for _, y in ink) + 1
    assert width == height == SMALL.glyph("A").height - 1   # 7 px, the capitals' height
    assert {(0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1)}.isdisjoint(ink)
    inside = {(x, y) for y in range(1, height - 1) for x in range(1, width - 1)}
    assert _regions(ink) == 1
    assert _regions(inside - ink) == 1, "the coin's gaps read as a die's pips"


# ----- "Who said tch?" -----------------------------------------------------------------------

def test_nobody_is_ticked_for_tch_until_they_said_it(walked):
    """"Each player you jump over may make a 'tch' sound and earn 1 coin." Only those who did
    earn it: the list starts with nobody ticked, so Done at once gives no coin."""
    box = walked("tch")
    screen = box.screen
    assert screen.title.startswith("Who said tch?") and screen.checked == [False]
    before = [p.coins for p in box.app.play.session.state.players]
    run_steps(box, ("DOWN", "OK"))                                   # straight to Done
    assert box.app.play.session.actions[-1]["tch"] == []
    s = box.app.play.session.state
    assert s.phase == "queue" and s.players[0].coins == before[0]   # Ana kept quiet
    assert s.players[1].table == 1


def test_a_player_ticked_for_tch_earns_one_coin(walked):
    """"... may make a 'tch' sound and earn 1 coin": OK ticks Ana, Done pays her 1 coin."""
    box = walked("tch", "OK", "DOWN", "OK")
    assert box.app.play.session.actions[-1]["tch"] == [0]
    assert box.app.play.session.state.players[0].coins == 1


# ----- issue 39: the jumps say why, in the table's words -------------------------------------

def test_a_jump_question_says_whose_tray_decides_and_what_happens(walked, monkeypatch):
    """"At the start of the 'Queue', you may jump to Table 1, pushing players back. Each player
    you jump over may make a 'tch' sound and earn 1 coin." The question names the tray that
    lets Ben jump (why the box asks), the tables, who moves and how a coin is earned, in words
    (no "pushed" or bare "tch +1¤"), every line whole."""
    from tests.test_screens import shown

    box = walked("jump-to-1")
    drawn, cut = shown(box, monkeypatch)
    body = ["Ben's Black tray may", "jump T2 → Table 1", "Ana moves back a table",
            'Who says "tch" gets 1¤']
    assert drawn[drawn.index(body[0]):][:4] == body and cut == []
    assert not any("pushed" in text or "tch +1" in text for text in drawn)
    assert box.app.stack.game_root.hint == "OK jump  ◆ stay"


def test_a_jump_to_88_from_table_1_says_the_four_coins(walked, monkeypatch):
    """"You may jump to Table 88, pushing players forward. If you jump from Table 1, earn 4
    coins." Three players pass: counted when their names do not fit the line."""
    box = walked("jumps")
    body = ["Ana's Red tray may", "jump T1 → Table 88", "3 players move up one",
            "From Table 1: Ana +4¤"]
    drawn = texts(box, monkeypatch)
    assert drawn[drawn.index(body[0]):][:4] == body


RUSH = SPEC.screens.walk["rush-who"][:-1]   # the drinks laid out, nobody seated yet


def _seated(box, tables: dict[str, str]) -> None:
    """The Rush of the walk's first round ended with each player (Ana, Ben, Cai, then Dee)
    at the table given, by presses: the first in the free-table list, or ▼ to the one named."""
    for name in ("Ana", "Ben", "Cai"):
        free = [c for c in ("1", "2", "3", "88") if c not in
                [str(p.table) for p in box.app.play.session.state.players if p.table]]
        run_steps(box, ("OK", f"menu:{name}", *("DOWN",) * free.index(tables[name]), "OK", "OK"))
    run_steps(box, ("OK", "OK"))   # Dee, the last, takes the last table


def test_a_tray_already_at_its_table_is_said_not_silently_passed(monkeypatch):
    """"At the start of the 'Queue', you may jump to Table 88": Ana (Red) sat at Table 88, so
    there is nothing to ask; the box says so over the jump it does ask (Ben's, to Table 1)."""
    box = render("makan-jumps-passed", RUSH)
    try:
        _seated(box, {"Ana": "88", "Ben": "2", "Cai": "1"})
        assert box.app.play.session.state.phase == "jumps"
        drawn = texts(box, monkeypatch)
        assert {"Ana is at Table 88:", "no jump to make", "Ben's Black tray may"} <= set(drawn)
    finally:
        box.close()


def test_two_trays_at_their_tables_go_straight_to_the_queue_and_say_why(monkeypatch):
    """Ana (Red, jump to 88) at Table 88 and Ben (Black, jump to 1) at Table 1: neither can
    jump, the Queue starts, and the table is told why no jump was asked."""
    box = render("makan-jumps-none", RUSH)
    try:
        _seated(box, {"Ana": "88", "Ben": "1", "Cai": "2"})
        assert box.app.play.session.state.phase == "queue"
        assert box.app.stack.toast_lines == ["Ana at 88, Ben at 1:", "no jumps to make"]
    finally:
        box.close()


# ----- issue 39: the final scores show the way out ---------------------------------------------

def test_the_final_scores_say_how_to_leave_and_back_leaves(walked, monkeypatch):
    """The game is over: the hint says BACK goes to the menu (not "hold a button"), BACK does,
    the game is finished in History, not waiting under Resume, and Makan Mania on the menu
    starts the next game with the same players."""
    from companion.screens.home import HomeScreen

    box = walked("final")
    assert "OK details  BACK menu" in texts(box, monkeypatch)
    run_steps(box, ("BACK",))
    assert isinstance(box.screen, HomeScreen) and box.app.stack.toast_lines is None
    assert box.app.play.session is None and box.app.table.saved_games() == []
    run_steps(box, ("game:makan",))
    assert box.screen.title.startswith("Makan") and box.screen.names() == ["Ana", "Ben", "Cai", "Dee"]


# ----- the Queue: the turn first, the drinks a press away --------------------------------------

def test_the_queue_opens_on_whose_turn_and_what_to_do(walked, monkeypatch):
    """Ben's turn at Table 1: his name and table, his dice and coins, and what the table does
    now ("Table 1 gains 1 coin" from the pile); the drinks wait behind ▼."""
    box = walked("queue")
    assert not box.app.stack.game_root.drinks_open
    drawn = texts(box, monkeypatch)
    assert {"Ben · Table 1", "1 die left", "1¤", "Take 1¤ from the pile"} <= set(drawn)
    assert "Cola" not in drawn and box.app.stack.game_root.hint == "▼ drinks  ◆ next player"


def test_down_ok_up_and_back_move_between_the_turn_and_the_drinks(walked, monkeypatch):
    box = walked("queue")
    root = box.app.stack.game_root
    run_steps(box, ("DOWN",))
    assert root.drinks_open and root.selected == 0
    drawn = texts(box, monkeypatch)
    assert {"Ben has 1 die, 1¤", "Cola", "2 dice", "Bandung", "1 die/1¤"} <= set(drawn)
    run_steps(box, ("UP",))                  # above the first drink is the turn again
    assert not root.drinks_open
    run_steps(box, ("UP",))                  # and above the turn, the last drink
    assert root.drinks_open and root.selected == 3
    run_steps(box, ("DOWN",))                # below the last drink, the turn
    assert not root.drinks_open
    run_steps(box, ("OK",))                  # OK opens the drinks too; BACK closes them
    assert root.drinks_open
    run_steps(box, ("BACK",))
    assert not root.drinks_open and root.app.session.state.phase == "queue"


def test_the_next_player_starts_on_their_turn_not_the_drinks(walked):
    box = walked("queue", "DOWN", "ACTION")
    assert rules.current(box.app.play.session.state) == 2 and not box.app.stack.game_root.drinks_open


def test_table_88_puts_the_pot_coin_from_the_pile(walked, monkeypatch):
    """"Table 88: Put 1 coin from the supply here. Gain 1 bonus die for the next round only."
    The screen says the coin comes from the pile, so nobody pays it from their own coins."""
    box = walked("queue-88")
    drawn = texts(box, monkeypatch)
    assert {"Ana · Table 88", "88 pot +1¤ from pile", "Take 1 bonus die (R2)"} <= set(drawn)
    assert not any(text.startswith("Put") for text in drawn)


def test_the_discount_left_is_said_in_words(walked, monkeypatch):
    """"Table 2 gives a 1 dice discount": Cai at Table 2 sees "1 die discount left", not "Off 1";
    once spent on a drink it is gone from the screen."""
    box = walked("queue", "+1", "ACTION", "OK")   # OK: Ben takes his coin
    s = box.app.play.session.state
    assert s.players[rules.current(s)].table == 2 and s.discount == 1
    drawn = texts(box, monkeypatch)
    assert "1 die discount left" in drawn and not any("Off" in text for text in drawn)
    run_steps(box, ("OK", "DOWN", "OK"))     # Bandung: 1 die less the discount, 0 dice to pay
    assert box.app.play.session.state.players[2].drinks == ("bandung",)
    run_steps(box, ("+3", "BACK"))
    assert box.app.play.session.state.discount == 0
    assert not any("discount" in text for text in texts(box, monkeypatch))


# ----- counts in words ---------------------------------------------------------------------------

def test_counts_say_one_coin_and_one_die(walked, monkeypatch):
    """UX: "One plural helper: '1 coin', '2 coins'". Bandung's choice, the purchase and the
    refusal say "1 die" and "1 coin"; the Rush says "1 die left"."""
    box = walked("queue-pay")
    assert box.screen.options == ["1 die", "1 coin"]
    run_steps(box, ("OK",))
    assert box.app.stack.toast_lines == ["Bandung", "bought, paid 1 die"]
    cai = walked("queue", "+1", "ACTION", "OK", "OK", "DOWN", "DOWN", "DOWN", "OK")   # Kopi O: Cai has 0¤
    assert cai.screen.lines == ["Kopi O", "needs 1 coin, has 0"]

    rush = walked("rush", "OK", "OK", "OK", "UP", "OK")   # Ben sits at Table 2 with 1 die
    assert "T2 Ben: 1 die left" in texts(rush, monkeypatch)


def test_a_one_card_deck_says_one_drink():
    """The setup's and doctor's deck check counts in words too: "Deck has 1 drink"."""
    one = (replace(load_drinks(DRINKS_FILE)[0], copies=1),)
    assert deck_problem(one, 2, False, rules.ROUNDS) == "Deck has 1 drink,\n10 needed (5 rounds)"


def test_the_widest_drinks_fit_their_drinks_page(monkeypatch):
    """The longest drink names beside their prices in words, scroll bar and all, are not cut:
    Sugarcane Juice, Iced Lemon Tea, Ice Kachang, Chendol and Cai's private Grass Jelly (list
    order of drinks.toml), on the drinks page of Cai, who sees all five, top to bottom."""
    cut: list[str] = []
    fit = BitmapFont.fit

    def strict(self, text, width):
        out = fit(self, text, width)
        if out != text:
            cut.append(text)
        return out

    walk = SPEC.screens.walk
    picks = [step for n in (8, 9, 3, 5, 6) for step in (*("DOWN",) * n, "OK")]
    seats = walk["jumps"][len(walk["rush-who"]) - 1 :]   # "rush-who" is the Rush plus one OK
    box = render("makan-wide-drinks", ("game:makan", "OK", "OK", *picks, *seats, "OK", "OK",
                                       "+1", "ACTION", "OK"))
    try:
        s = box.app.play.session.state
        assert len(rules.visible_slots(s, rules.current(s))) == 5
        monkeypatch.setattr(BitmapFont, "fit", strict)
        for _ in range(5):
            run_steps(box, ("DOWN",))
            box.app.panel.render()
        assert box.app.stack.game_root.drinks_open and cut == []
    finally:
        box.close()


# ----- issue 24: a real table's Queue -------------------------------------------------------

def short_pile_box(tmp_path, coins: int):
    """The walk's 4-player game on a pile of ``coins``, at the jumps."""
    from companion.games import box_config
    from companion.simulator.simbox import SimBox

    box = SimBox(tmp_path / "state", cfg=box_config.parse({"games": {"makan": {"coin_supply": coins}}}))
    run_steps(box, SPEC.screens.walk["jumps"])
    return box


def test_a_jump_says_who_moves_where_and_waits_for_ok(walked):
    """Issue 24, item 8: "you may jump to Table 88, pushing players forward": after OK jump the
    box says each player's new table and the jumper's coins ("If you jump from Table 1, earn 4
    coins"); the notice waits for OK, and ◆ does not close it."""
    box = walked("jump-moves")
    assert box.screen.lines == ["Ana → 88, Ben → 1", "Cai → 2, Dee → 3", "Ana takes 4 coins",
                                "Ben at Table 1: no jump"]   # Black's jump passed by: see below
    run_steps(box, ("+5", "ACTION"))
    assert box.screen.title == "Makan R1 · Jump"
    run_steps(box, ("OK",))
    assert box.screen is box.app.stack.game_root and box.app.play.session.state.phase == "queue"


def test_an_empty_pile_says_who_gets_nothing(tmp_path, monkeypatch):
    """Issue 24, item 4: "For each leftover die unspent during your turn, earn 1 coin" and
    "Put 1 coin from the supply here", from a pile of 4 coins that Ana's jump empties: every
    screen says exactly who takes what, and what the pile could not pay; nothing is cut."""
    from tests.test_screens import shown

    box = short_pile_box(tmp_path, 4)
    try:
        run_steps(box, ("OK",))
        assert box.screen.lines[2:] == ["Ana takes 4 coins", "Ben at Table 1: no jump"]
        run_steps(box, ("OK",))                        # Ben at Table 1: the pile is empty
        drawn, cut = shown(box, monkeypatch)
        assert "Pile empty: 1¤ unpaid" in drawn and "Take 1¤ from the pile" not in drawn
        assert cut == []
        run_steps(box, ("+1", "ACTION"))
        assert box.screen.lines == ["Ben:", "1 unspent die,", "no coin: pile is empty"]
        run_steps(box, ("OK", "+1", "ACTION", "+1", "ACTION"))   # Cai, then Dee (3 dice)
        assert box.screen.lines == ["Dee:", "3 unspent dice,", "no coin: pile is empty"]
        run_steps(box, ("OK",))                        # Ana at Table 88
        drawn, cut = shown(box, monkeypatch)
        assert {"Pile empty: no 88 coin", "Take 1 bonus die (R2)"} <= set(drawn) and cut == []
    finally:
        box.close()


def test_a_pile_that_runs_short_pays_what_it_has_and_says_the_rest(tmp_path):
    """Issue 24, item 4: Dee's 3 unspent dice from a pile of 2 coins: "takes 2 coins", and the
    one the pile cannot pay is said, not left out."""
    box = short_pile_box(tmp_path, 12)   # Ana 4, Ben 1 + 1, Dee's doubled Table 3 four: 2 left
    try:
        run_steps(box, ("OK", "OK", "+1", "ACTION", "OK", "+1", "ACTION", "+1", "ACTION"))
        assert box.screen.lines == ["Dee:", "3 unspent dice,", "take 2 coins from pile",
                                    "pile empty, 1 unpaid"]
    finally:
        box.close()


def test_a_refused_buy_waits_for_ok(walked):
    """Issue 24, item 5 (UX: "A notice that asks the table to do something (Double Trouble, a
    refused buy) waits for OK"): Ben cannot pay the Cola; the reason stays until OK, and the
    big button does not close it."""
    box = walked("queue", "DOWN", "OK")
    assert box.screen.lines == ["Cola", "needs 2 dice, has 1"] and box.beeps()[-1] == "error"
    run_steps(box, ("+10", "ACTION"))
    assert box.screen.title == "Makan R1 · Refused"
    run_steps(box, ("OK",))
    assert box.screen is box.app.stack.game_root and box.app.stack.game_root.drinks_open


def test_a_gain_taken_is_not_offered_again_after_an_undone_buy(walked, monkeypatch):
    """Issue 24, item 9: "Tables 1, 3 and 5: Gain the amount of coins shown": Ben takes his
    coin, opens the drinks and buys Bandung; the buy is undone: the turn page says the coin was
    taken, so nobody takes it twice."""
    box = walked("queue")
    assert "Take 1¤ from the pile" in texts(box, monkeypatch)
    run_steps(box, ("DOWN", "DOWN", "OK", "OK"))        # Bandung, paid with his die
    assert box.app.play.session.state.players[1].drinks == ("bandung",)
    box.press("BACK", long=True)
    drawn = texts(box, monkeypatch)
    assert "✓ Took 1¤ from pile" in drawn and "Take 1¤ from the pile" not in drawn


def test_two_quick_presses_end_one_turn(walked):
    """Issue 24, item 10 (UX: "a quick double tap never skips a player"): ◆ ◆ 0.3 s apart end
    Cai's turn only; a ◆ a second after Dee's turn came up ends hers."""
    box = walked("queue")
    box.press("ACTION")
    box.press("OK")                                   # "Ben: take 1 coin" closed
    box.press("ACTION")                               # Cai's turn ends (he spent every die)
    box.advance(0.2)
    box.press("ACTION")
    assert rules.current(box.app.play.session.state) == 3 and box.beeps()[-1] == "error"
    box.advance(1.0)
    box.press("ACTION")
    assert box.screen.lines[0] == "Dee:"              # her turn ended: take 3 coins


def test_dealt_drinks_are_never_split_over_two_lines(monkeypatch):
    """Found at the table: "Lay out: Sugarcane / Juice, Ice Kachang, Kopi / O" broke drink
    names; each name now stays whole on its line."""
    from companion.frame.font import SMALL

    names = ["Sugarcane Juice", "Ice Kachang", "Kopi O", "Iced Lemon Tea"]
    lines = SMALL.wrap_items(names, 126)
    assert [n for line in lines for n in line.split(", ")] == names
    box = render("makan-rush-deal", SPEC.screens.walk["rush-deal"])
    try:
        drawn = texts(box, monkeypatch)
        dealt = [c.drink for c in box.app.play.session.state.row if c.owner is None]
        book = box.app.play.session.state.book
        shown = [n for text in drawn for n in text.split(", ")]
        assert all(book.by_key[d].name in shown for d in dealt)
    finally:
        box.close()
