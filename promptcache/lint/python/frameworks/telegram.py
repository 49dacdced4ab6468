"""
Telegram bots: a handler's first argument is the incoming update or message of this turn (the
user's text, their name and ids); python-telegram-bot registers handlers by a call
(`MessageHandler(filters.TEXT, reply)`), pyTelegramBotAPI and aiogram by a decorator. The
second argument of python-telegram-bot's handlers is the bot's own context, not the message.
"""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="telegram",
    data=(
        DataSource(
            what="the incoming Telegram message",
            registrations=(
                "telegram.ext.MessageHandler",
                "telegram.ext.CommandHandler",
                "telegram.ext.CallbackQueryHandler",
                "telegram.ext.ConversationHandler",
                "telegram.ext.InlineQueryHandler",
            ),
            first_only=True,
            imported=("telegram",),
        ),
        DataSource(
            what="the incoming Telegram message",
            handlers=(
                "*.message_handler",
                "*.callback_query_handler",
                "*.edited_message_handler",
                "*.message",
                "*.callback_query",
            ),
            imported=("telebot", "aiogram"),
        ),
    ),
)
