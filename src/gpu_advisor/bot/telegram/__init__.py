"""Telegram surface (python-telegram-bot v22): an adapter over the one turn, no rules here.

``app`` holds the handlers (updates in, turns out), ``surface`` shows a turn's reply on a
message or a pressed button, ``config`` the settings and the transport they build,
``render`` turns replies into HTML messages and keyboards, ``send`` retries transient
failures, ``run`` is the command-line entry.
"""
