"""Reading text people type or paste: one normaliser, one number reader, one name resolver.

Every reader of user text shares these modules, so a Traditional character, a full-width
digit, a Chinese numeral or a card's nickname reads the same in a chat message, a pasted
configuration sheet and a field of the JSON API:

- :mod:`reading.hanzi` — the one Traditional→Simplified table and control-character rule;
- :mod:`reading.normalize` — the chat normaliser built on it (width, symbols, repeats);
- :mod:`reading.numbers` — number spans, Arabic or Chinese, and their values;
- :mod:`reading.names` — the one GPU and model name resolver (chat, API validators, sheets);
- :mod:`reading.sheet_lines` — a pasted sheet cut into lines, keys and segments;
- :mod:`reading.requirements` — a chat message read into workload slots.

Pure: no I/O, no chat library. The top-level modules import nothing from ``engine`` so
the engine's validators and sheet analysis may import them; only
``reading.requirements`` (which fills ``engine.workload`` fields) imports the engine.
"""
