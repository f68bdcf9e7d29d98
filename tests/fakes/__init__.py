"""Loopback stand-ins for chat platforms' servers, so transport tests run the real libraries offline."""

from .telegram_api import ApiError, Call, FakeTelegram, User

__all__ = ["ApiError", "Call", "FakeTelegram", "User"]
