"""The contract between the games and the box, which the games, the UI kit and the box import
downward: the rules' checks (:mod:`.rules`), a game's spec and the table its screens see
(:mod:`.spec`), the facts a spec hands back (:mod:`.facts`), the config's schema (:mod:`.config`),
the presses and sensor status screens are handed (:mod:`.input`), what makes a player's name
(:mod:`.names`) and the saved games' entries (:mod:`.saved_games`)."""
