"""Telegram surface (python-telegram-bot v22): an adapter over the dialog core, no rules here.

``app`` builds the Application, ``render`` turns replies into HTML messages and
keyboards, ``send`` retries transient failures, ``run`` is the command-line entry.
"""
