"""Slash-command descriptions and option names in Chinese for zh-CN clients, from ``locales/``.

Each translatable string is a :class:`discord.app_commands.locale_str` whose message is
the English text (what Discord shows by default and sends back) and whose ``key`` extra
names the template; at sync time the tree asks :class:`LocaleTranslator` for every
locale and we answer for ``zh-CN`` only (Traditional-Chinese locales get the default).

Command names themselves stay the same in both languages: the dialog's help text and
its answers say "/plan", "/why", "/cost" in Chinese too.
"""

from __future__ import annotations

import discord
from discord import app_commands

from gpu_advisor import locales

CHINESE = (discord.Locale.chinese,)


def text(key: str) -> app_commands.locale_str:
    """A translatable string: the English template now, the Chinese one at sync time."""
    return app_commands.locale_str(locales.t("en", key), key=key)


def option(name: str) -> app_commands.locale_str:
    """A translatable option name (``discord.option.<parameter>.name``)."""
    return text(f"discord.option.{name}.name")


def option_help(name: str) -> app_commands.locale_str:
    return text(f"discord.option.{name}.description")


class LocaleTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        if locale not in CHINESE or not isinstance(key, str) or not locales.has("zh", key):
            return None
        return locales.t("zh", key)
