"""The box's own screens: home, resume, settings, about, powered off."""
