"""Dice in the tray: tray located by markers 20-23, dice split, top faces read (reader.DiceReader).

Train: ``python -m vision.dice.train``; evaluate: ``python -m vision.dice.evaluate``.
"""
