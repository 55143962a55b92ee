"""Agent adapters: chat loops on real clients, and conversations turned into outcomes."""
