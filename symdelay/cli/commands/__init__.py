"""CLI sub-commands, one module each; every module defines ``register(subparsers)``."""
