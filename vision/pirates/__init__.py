"""The pirate track: markers 24-27 around its 6 x 10 boxes; marked boxes counted (reader.PirateReader)."""
