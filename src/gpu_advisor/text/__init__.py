"""Ground-floor text tools shared by every reader of user text.

A Traditional character, a full-width digit, a Chinese numeral or a card's nickname reads
the same in a chat message, a pasted configuration sheet and a field of the JSON API:

- :mod:`gpu_advisor.text.hanzi` — the one Traditional→Simplified table and control-character rule;
- :mod:`gpu_advisor.text.normalize` — the chat normaliser built on it (width, symbols, repeats);
- :mod:`gpu_advisor.text.numbers` — number spans, Arabic or Chinese, and their values;
- :mod:`gpu_advisor.text.names` — the one GPU and model name resolver;
- :mod:`gpu_advisor.text.sheet_lines` — a pasted sheet cut into lines, keys and segments.

Pure and below the engine: nothing here imports another ``gpu_advisor`` package.
"""
