"""The chat model the agent plans and writes with: a local llama.cpp server the project starts itself, or any
OpenAI-compatible endpoint. Imports `core` only."""
