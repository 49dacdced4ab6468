"""One module per `promptcache` subcommand; each exposes `register(subparsers)`."""
