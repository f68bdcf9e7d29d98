"""The Discord bot: a ``commands.Bot`` whose slash commands (one Cog) hand text to the dialog core.

Each command is the dialog command of the same name (``/plan`` → ``"/plan"``); ``/advise``
passes free text, which starts or continues the conversation. Descriptions and option
names are localised for zh-CN clients by :class:`~bot.discord.translate.LocaleTranslator`.
At startup the commands are synced globally, or to one guild (``guild_id``: instant,
for testing), and the quick-reply button class is registered so that buttons on
messages from before a restart still work.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from gpu_advisor import knowledge
from gpu_advisor.bot.admission import Admission
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.discord import modals
from gpu_advisor.bot.discord import translate as tr
from gpu_advisor.bot.discord.conversation import PLATFORM, Conversations, lang_of
from gpu_advisor.bot.discord.views import ContinueButton, PayloadButton
from gpu_advisor.bot.execution import auto_workers
from gpu_advisor.bot.ratelimit import RateLimiter
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.turn import Conversations as Host
from gpu_advisor.bot.turn import Turn, executor_for
from gpu_advisor.reading.requirements import MAX_INPUT_CHARS

log = logging.getLogger(__name__)
Interaction = discord.Interaction[Any]
Text = app_commands.Range[str, 1, MAX_INPUT_CHARS]
Name = app_commands.Range[str, 1, 100]
Sheet = app_commands.Range[str, 1, modals.SHEET_MAX]


@dataclass(frozen=True)
class DiscordConfig:
    token: str
    db_path: str = "gpu-advisor.db"
    catalog: str | None = None
    guild_id: int | None = None  # sync commands to this guild only (instant; for testing)
    sync: bool = True
    messages_per_minute: int = 20
    guild_ready_timeout: float = 2.0
    # Turn worker processes (bot.execution), each turn within the deadline; None: one per spare
    # CPU (1 to 4). 0 runs turns on the event loop without a deadline (tests).
    workers: int | None = None
    # This process's gateway shard (``gpu-advisor discord --shard-id I --shard-count N``); None: unsharded.
    shard_id: int | None = None
    shard_count: int | None = None


class GpuAdvisorBot(commands.Bot):
    def __init__(self, config: DiscordConfig, conversations: Conversations) -> None:
        intents = discord.Intents.none()
        intents.guilds = True  # slash commands and buttons need no privileged intents
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            guild_ready_timeout=config.guild_ready_timeout,
            shard_id=config.shard_id,
            shard_count=config.shard_count,
        )
        self.config = config
        self.conversations = conversations

    async def setup_hook(self) -> None:
        await self.conversations.turn.executor.initialize(wait=False)  # turns run here until then
        self.tree.error(self.report_command_error)
        await self.tree.set_translator(tr.LocaleTranslator())
        await self.add_cog(AdvisorCog(self.conversations))
        self.add_dynamic_items(PayloadButton, ContinueButton)
        if self.config.sync:
            synced = await self.sync_commands()
            log.info("synced %d slash commands (guild %s)", len(synced), self.config.guild_id)

    async def sync_commands(self) -> list[app_commands.AppCommand]:
        if self.config.guild_id is None:
            return await self.tree.sync()
        guild = discord.Object(id=self.config.guild_id)
        self.tree.copy_global_to(guild=guild)
        return await self.tree.sync(guild=guild)

    async def close(self) -> None:
        """Disconnect, then let the turn workers go once they have answered."""
        await super().close()
        await self.conversations.turn.executor.shutdown()

    async def on_press(self, interaction: Interaction, payload: str) -> None:
        await self.conversations.press(interaction, payload)

    async def on_text(self, interaction: Interaction, text: str) -> None:
        """What a form submitted: the next answer, or ``/analyze`` and the pasted sheet."""
        await self.conversations.command(interaction, text)

    async def report_command_error(
        self, interaction: Interaction, error: app_commands.AppCommandError
    ) -> None:
        """What escaped a command before reaching the dialog (a failed check or conversion)."""
        log.error(
            "discord /%s failed before reaching the dialog (interaction %s, channel %s, user %s)",
            interaction.command.name if interaction.command else "?",
            interaction.id,
            interaction.channel_id,
            interaction.user.id,
            exc_info=error,
        )
        await self.conversations.apologise(interaction)


def build_bot(
    config: DiscordConfig, dialog: Dialog | None = None, store: Store | None = None
) -> GpuAdvisorBot:
    host = Host(dialog or Dialog(knowledge.load(config.catalog)), store or Store(config.db_path), PLATFORM)
    workers = auto_workers() if config.workers is None else config.workers
    limiter = RateLimiter(config.messages_per_minute)
    admission = Admission(workers, queue_limit=None)  # every surface's turns are admitted alike
    turn = Turn(host, executor_for(host, workers, config.catalog), limiter, admission=admission)
    return GpuAdvisorBot(config, Conversations(turn))


class AdvisorCog(commands.Cog):
    """The slash commands; each one is a line that names the dialog command it stands for."""

    def __init__(self, conversations: Conversations) -> None:
        self.conversations = conversations

    @app_commands.command(name="advise", description=tr.text("discord.command.advise"))
    @app_commands.rename(text=tr.option("text"))
    @app_commands.describe(text=tr.option_help("text"))
    async def advise(self, interaction: Interaction, text: Text) -> None:
        await self.conversations.command(interaction, text)

    @app_commands.command(name="plan", description=tr.text("commands.plan"))
    async def plan(self, interaction: Interaction) -> None:
        await self.conversations.command(interaction, "/plan")

    @app_commands.command(name="why", description=tr.text("commands.why"))
    async def why(self, interaction: Interaction) -> None:
        await self.conversations.command(interaction, "/why")

    @app_commands.command(name="cost", description=tr.text("commands.cost"))
    async def cost(self, interaction: Interaction) -> None:
        await self.conversations.command(interaction, "/cost")

    @app_commands.command(name="compare", description=tr.text("commands.compare"))
    @app_commands.rename(a=tr.option("a"), b=tr.option("b"), workload=tr.option("workload"))
    @app_commands.describe(a=tr.option_help("a"), b=tr.option_help("b"), workload=tr.option_help("workload"))
    async def compare(self, interaction: Interaction, a: Name, b: Name, workload: Text | None = None) -> None:
        await self.conversations.command(
            interaction, f"/compare {a} {b}" + (f" for {workload}" if workload else "")
        )

    @app_commands.command(name="gpu", description=tr.text("commands.gpu"))
    @app_commands.rename(name=tr.option("name"))
    @app_commands.describe(name=tr.option_help("name"))
    async def gpu(self, interaction: Interaction, name: Name) -> None:
        await self.conversations.command(interaction, f"/gpu {name}")

    @app_commands.command(name="analyze", description=tr.text("commands.analyze"))
    @app_commands.rename(sheet=tr.option("sheet"))
    @app_commands.describe(sheet=tr.option_help("sheet"))
    async def analyze(self, interaction: Interaction, sheet: Sheet | None = None) -> None:
        if sheet is None:  # the form: a pasted sheet keeps its lines there
            await interaction.response.send_modal(modals.sheet(lang_of(interaction.locale)))
        else:
            await self.conversations.command(interaction, f"/analyze {sheet}")

    @app_commands.command(name="new", description=tr.text("commands.new"))
    async def new(self, interaction: Interaction) -> None:
        await self.conversations.command(interaction, "/new")

    @app_commands.command(name="help", description=tr.text("commands.help"))
    async def help(self, interaction: Interaction) -> None:
        """This surface's own help: its registered commands and its buttons, and how a server works."""
        await self.conversations.say(interaction, "surfaces.discord.help")

    @app_commands.command(name="lang", description=tr.text("commands.lang"))
    @app_commands.rename(lang=tr.option("lang"))
    @app_commands.describe(lang=tr.option_help("lang"))
    @app_commands.choices(
        lang=[app_commands.Choice(name="中文", value="zh"), app_commands.Choice(name="English", value="en")]
    )
    async def lang(self, interaction: Interaction, lang: app_commands.Choice[str]) -> None:
        await self.conversations.command(interaction, f"/lang {lang.value}")
