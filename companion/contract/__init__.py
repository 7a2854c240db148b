"""The contract between the games and the box, which the games, the UI kit and the box import
downward: the rules' checks (:mod:`.rules`) and a game's spec and the table its screens see
(:mod:`.spec`)."""
