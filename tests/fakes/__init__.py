"""Test doubles for what cannot run here (a paid LLM API) and loopback server helpers."""
