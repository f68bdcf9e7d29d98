"""Discord surface (discord.py 2.x): an adapter over the dialog core, no rules here.

``app`` builds the bot and its slash commands, ``conversation`` runs one turn per
interaction, ``views`` holds the restart-proof quick-reply buttons, ``render`` cuts
replies into embeds within Discord's limits, ``translate`` localises the command menu,
``run`` is the command-line entry.
"""
