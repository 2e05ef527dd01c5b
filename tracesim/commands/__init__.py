"""One module per `tracesim` subcommand, each exposing a click command named `command`."""
