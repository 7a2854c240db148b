"""The box as an SD-card appliance: release files, the slots and updates, first-boot settings."""
