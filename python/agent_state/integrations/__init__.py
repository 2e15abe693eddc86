"""Adapters for agent frameworks (optional extras). They only call stored functions."""
