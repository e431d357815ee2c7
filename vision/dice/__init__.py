"""Dice in the tray: tray located by markers 20-23, dice split, top faces read (reader.DiceReader).

Train: ``python -m vision.dice.train --cache F`` (the classifier on the faces' features), then
``python -m vision.dice.train_faces --cache F`` (the face network on their crops, ``faces``); evaluate:
``python -m vision.dice.evaluate``.
"""
