"""Errors that reach a person: one line, naming the file, field or cell."""


class UserError(Exception):
    """Bad input from a person or a file. The CLI prints the message alone and exits 2."""

    exit_code = 2
