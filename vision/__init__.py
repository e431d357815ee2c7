"""Camera frame to observation: city boards, dice, pirate boxes, each with a confidence."""
