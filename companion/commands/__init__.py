"""CLI subcommands. Each module here defines ``register(subparsers)``; the CLI loads them all."""
