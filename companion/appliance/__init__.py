"""The box as an SD-card appliance: release files, the A/B slots and updates, first-boot settings."""
