"""Synthetic images for training and testing the vision code (boards, drawings; table scenes)."""
