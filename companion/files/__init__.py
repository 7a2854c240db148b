"""Text and JSON from outside the box (replay, import, config and data files, typed actions),
read with bounds, and files written whole through a rename."""
