"""GPU Advisor's sizing engine: requirements in, a plan out.

Pure functions over pydantic models. No I/O, no chat library, no human-language
strings: findings carry a stable id and numbers, and ``locales`` renders them.
"""
