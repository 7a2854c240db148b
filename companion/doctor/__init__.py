"""``companion doctor``: the checks of a box, and the ones done by hand."""
