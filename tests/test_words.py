"""One plural helper for every screen (UX: "One plural helper: '1 coin', '2 coins'")."""

from companion.ui.words import noun_for, plural


def test_one_is_singular_and_every_other_count_plural():
    assert plural(1, "coin") == "1 coin"
    assert plural(2, "coin") == "2 coins"
    assert plural(0, "order") == "0 orders"


def test_dice_and_given_plurals():
    assert plural(1, "die") == "1 die"
    assert plural(3, "die") == "3 dice"
    assert plural(2, "space", "spaces") == "2 spaces"
    assert plural(2, "cross", "crosses") == "2 crosses"


def test_a_noun_drawn_apart_from_its_count():
    assert (noun_for(1, "order"), noun_for(4, "order"), noun_for(2, "die")) == (
        "order", "orders", "dice")
