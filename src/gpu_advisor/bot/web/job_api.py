"""``POST /api/job``: a GPU job that is not a language model, sized from its JSON request.

The body is one member of ``engine.jobs.request.JobRequest`` chosen by ``family`` (the same
JSON ``gpu-advisor job`` reads, ``bot.job_contract``); the answer is a ``JobAnswer`` whose
``text`` carries the findings' sentences in the language of ``?lang=zh|en``, else the
browser's (Accept-Language). Planning runs where the chat turns run, with their deadline
(``bot.execution``), like ``/api/recommend``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from aiohttp import web

from gpu_advisor.bot.errors import InputError
from gpu_advisor.bot.job_contract import JobAnswer, answer, read_job
from gpu_advisor.bot.web.api import _run_engine, lang_of, model_response, read_text
from gpu_advisor.bot.web.errors import ApiError, error
from gpu_advisor.engine.jobs.request import JobRequest

if TYPE_CHECKING:
    from gpu_advisor.bot.turn import Conversations

LANGS = ("zh", "en")


@dataclass(frozen=True)
class PlanJob:
    """The job's plan as a call the turn executor runs (picklable: a request and a language)."""

    request: JobRequest
    lang: str

    def run(self, host: Conversations) -> JobAnswer:
        return answer(self.request, host.dialog.kb, self.lang)


async def job(request: web.Request) -> web.Response:
    given = request.query.get("lang")
    if given is not None and given not in LANGS:
        raise error(422, "lang must be zh or en", field="lang", code="invalid_input")
    lang = given or lang_of(request)
    try:
        parsed = read_job(await read_text(request))
    except InputError as exc:
        raise ApiError(422, exc.payload) from exc
    return model_response(await _run_engine(request, PlanJob(parsed, lang)))
